"""The worker tier: replicas that only serve (``--workers 0``) and ``metis worker`` processes that run
the actions, on one PostgreSQL database, as subprocesses with real clients.

An action started on one replica is followed over SSE on a second and answered on a third, while
the workers claim it, park it and resume it by replay; a worker killed -9 mid-action loses its
lease and the other worker resumes the action to outputs equal to an undisturbed run's."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import psycopg
import pytest

from receipts.canonical import canonical_json
from tests.conftest import new_pg_schema
from tests.support import ROOT, MetisServer, ToolBus, answer_open_request, ended, sse_read, stop_process

LEASE_S = 2.0


@dataclass
class MetisWorker:
    """A ``metis worker`` subprocess; ready once it printed ``worker_ready``."""

    data_dir: Path
    database: str
    keys: Path
    env: dict[str, str] = field(default_factory=dict)
    args: list[str] = field(default_factory=lambda: ["--workers", "1", "--concurrency", "2"])
    proc: subprocess.Popen | None = None

    @property
    def log_path(self) -> Path:
        return self.data_dir.parent / f"{self.data_dir.name}-worker.log"

    def start(self, timeout: float = 90.0) -> MetisWorker:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "METIS_EXTRA_ABILITIES": "tests.abilities_testing:ABILITIES",
               **self.env}
        out = open(self.log_path, "ab")  # noqa: SIM115
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "orchestrator.cli", "worker", "--database", self.database, "--keys-dir",
             str(self.keys), "--data-dir", str(self.data_dir), *self.args],
            cwd=ROOT, env=env, stdout=out, stderr=out, start_new_session=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"worker exited with {self.proc.returncode}: see {self.log_path}")
            if b'"worker_ready"' in self.log_path.read_bytes():
                return self
            time.sleep(0.1)
        raise RuntimeError("worker did not become ready")

    def owner_prefix(self) -> str:
        assert self.proc is not None
        return f":{self.proc.pid}:"

    def stop(self, kill: bool = False) -> None:
        stop_process(self.proc, kill, grace_s=20)


def keys_init(keys: Path) -> None:
    subprocess.run([sys.executable, "-m", "orchestrator.cli", "keys", "init", "--keys-dir", str(keys)], cwd=ROOT,
                   check=True, capture_output=True, timeout=60)


def verify(pg_url: str, keys: Path) -> dict:
    out = subprocess.run([sys.executable, "-m", "orchestrator.cli", "receipts", "verify", "--database", pg_url,
                          "--keys-dir", str(keys)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    report = json.loads(out.stdout)
    assert out.returncode == 0, report
    return report


@contextlib.contextmanager
def running_tier(pg_database: str, base: Path, n_replicas: int, n_workers: int) -> Iterator[dict]:
    """Serve-only replicas and ``metis worker`` processes on one fresh schema, started in parallel."""
    url, keys = new_pg_schema(pg_database), base / "keys"
    keys_init(keys)
    env = {"METIS_LEASE_S": str(LEASE_S)}
    replicas = [MetisServer(base / f"replica{i}", env=env,
                            extra_args=["--database", url, "--keys-dir", str(keys), "--workers", "0"])
                for i in range(n_replicas)]
    workers = [MetisWorker(base / f"worker{i}", url, keys, env=env) for i in range(n_workers)]
    try:
        with ThreadPoolExecutor(n_replicas + n_workers) as pool:
            list(pool.map(lambda p: p.start(), [*replicas, *workers]))
        yield {"replicas": replicas, "workers": workers, "url": url, "keys": keys}
    finally:
        for p in [*replicas, *workers]:
            p.stop(kill=True)


@pytest.fixture(scope="module")
def tier(pg_database: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict]:
    """Three serve-only replicas and two workers on one database (the last test kills a worker)."""
    with running_tier(pg_database, tmp_path_factory.mktemp("tier"), 3, 2) as t:
        yield t


def job(url: str, action_id: str) -> dict:
    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT state, owner, epoch FROM metis_jobs WHERE action_id = %s", (action_id,)).fetchone()
    return {"state": row[0], "owner": row[1], "epoch": row[2]} if row else {}


def test_replicas_serve_only_and_a_worker_runs_the_action(tier):
    r1 = tier["replicas"][0]

    async def go() -> dict:
        async with ToolBus.connect(r1) as tb:
            view, _ = await tb.run("t_emit", {"n": 3})
            return view

    view = asyncio.run(go())
    assert view["status"] == "completed" and len(view["outputs"]["values"]) == 3
    with psycopg.connect(tier["url"]) as conn:
        owner = conn.execute("SELECT owner, state FROM metis_jobs WHERE action_id = %s",
                             (view["action_id"],)).fetchone()
    assert owner[1] == "done"
    for r in tier["replicas"]:  # no replica started a worker process
        assert httpx_get(r, "/healthz")["workers"] == 0


def httpx_get(server: MetisServer, path: str) -> dict:
    import httpx

    return httpx.get(server.http_url + path, timeout=10).json()


def test_start_on_one_replica_follow_on_another_answer_on_a_third(tier):
    r1, r2, r3 = tier["replicas"]

    async def go() -> tuple[dict, list[dict], dict]:
        async with ToolBus.connect(r1) as tb1, ToolBus.connect(r3) as tb3:
            started = await tb1.start("t_ask", {"question": "go on?"})
            aid, topic, token = started["action_id"], started["topic"], started["stream"]["token"]
            follow = asyncio.create_task(sse_read(r2, topic, query={"token": token}, until=ended(aid), timeout=90))
            await tb3.wait_status(aid, {"waiting_user"}, timeout=60)
            for _ in range(100):  # the job parks once the waiting records are durable
                if job(tier["url"], aid)["state"] == "parked":
                    break
                await asyncio.sleep(0.1)
            assert job(tier["url"], aid)["state"] == "parked"  # waiting costs no worker: its job is parked
            asked = await answer_open_request(tb3, aid, "yes, from replica 3")
            _, events = await follow
            view = await tb1.wait_status(aid, {"completed"}, timeout=60)
            return view, events, asked

    view, events, asked = asyncio.run(go())
    assert view["status"] == "completed"
    assert view["outputs"] == {"answer": "yes, from replica 3"}
    names = [e["event"] for e in events]
    assert names[0] == "action_started" and names[-1] == "action_completed"
    assert names.count("action_waiting_user") == 1 and asked["request_id"]
    ids = [e["id"] for e in events]
    assert ids == sorted(set(ids))  # in order, once each
    assert job(tier["url"], view["action_id"])["state"] == "done"
    verify(tier["url"], tier["keys"])


def test_sub_actions_and_dependencies_across_workers(tier):
    """A parent parks on its sub-action (wherever it runs) and is woken when it ends; a consumer
    started waiting on a producer runs once the producer completes."""
    r1, r2, _ = tier["replicas"]

    async def go() -> tuple[dict, dict, dict]:
        async with ToolBus.connect(r1) as tb1, ToolBus.connect(r2) as tb2:
            parent = await tb1.start("t_spawn", {"ability": "t_emit", "inputs": {"n": 2}})
            producer = await tb1.start("t_emit", {"n": 3, "delay_s": 0.2})
            consumer = await tb2.start("t_deps", {}, edges=[{"kind": "dependsOn", "action_id": producer["action_id"]}])
            views = await asyncio.gather(*(tb2.wait_status(a["action_id"], {"completed", "failed"}, timeout=90)
                                           for a in (parent, producer, consumer)))
            return tuple(views)  # type: ignore[return-value]

    parent, producer, consumer = asyncio.run(go())
    assert parent["status"] == "completed" and parent["outputs"]["child_status"] == "completed"
    assert len(parent["outputs"]["child_outputs"]["values"]) == 2
    assert consumer["status"] == "completed"
    assert consumer["outputs"]["deps"] == {producer["action_id"]: producer["outputs"]}


def test_a_parked_question_that_times_out_ends_the_action_partial(tier):
    """The worker that asked keeps the question's timer after the job parked: when it fires, the
    expiry is recorded and the job woken; the claimer resumes the run, whose ``ask`` times out."""
    r1 = tier["replicas"][0]

    async def go() -> dict:
        async with ToolBus.connect(r1) as tb:
            started = await tb.start("t_ask", {"question": "anyone?", "timeout_s": 1.5})
            return await tb.wait_status(started["action_id"], {"partial", "completed", "failed"}, timeout=60)

    view = asyncio.run(go())
    assert view["status"] == "partial" and view["error"]["reason"] == "input_timeout", view


def test_cancel_on_a_replica_stops_the_run_on_its_worker(tier):
    """The replica revokes the job (its epoch moves on) before it records the end: the worker's
    next append is refused, so nothing of the run follows the end in the log."""
    r1, _, r3 = tier["replicas"]

    async def go() -> dict:
        async with ToolBus.connect(r1) as tb1, ToolBus.connect(r3) as tb3:
            started = await tb1.start("t_emit", {"n": 200, "delay_s": 0.05})
            aid = started["action_id"]
            await sse_read(r1, started["topic"], query={"token": started["stream"]["token"]}, max_events=5, timeout=60)
            view = await tb3.call("actions.cancel", {"action_id": aid, "reason": "enough"})
            assert view["status"] == "cancelled"
            await asyncio.sleep(2.0)  # time for the worker to try a few more appends
            return await tb1.call("actions.get", {"action_id": aid})

    view = asyncio.run(go())
    assert view["status"] == "cancelled"
    with psycopg.connect(tier["url"]) as conn:
        rows = conn.execute("SELECT type, name FROM records WHERE action_id = %s ORDER BY seq",
                            (view["action_id"],)).fetchall()
    end = rows.index(("state", "cancelled"))
    assert ("event", "action_checkpoint") in rows[:end]  # it ran on a worker
    assert [r for r in rows[end:] if r[1] in ("action_checkpoint", "tool_call", "trace")] == []
    assert job(tier["url"], view["action_id"])["state"] == "done"


def test_a_worker_killed_mid_action_is_rescued_by_the_other_with_equal_outputs(tier):
    r1, r2, _ = tier["replicas"]
    inputs, seed = {"n": 24, "delay_s": 0.1}, {"purpose": "rescue"}

    async def go() -> tuple[dict, dict, list[dict], float, float]:
        async with ToolBus.connect(r1) as tb:
            reference, _ = await tb.run("t_emit", inputs, seed=seed)  # undisturbed
            doomed = await tb.start("t_emit", inputs, seed=seed)
            aid = doomed["action_id"]
            _, early = await sse_read(r2, doomed["topic"], query={"token": doomed["stream"]["token"]},
                                      max_events=8, timeout=60)
            holder = job(tier["url"], aid)
            victim = next(w for w in tier["workers"] if holder["owner"] and w.owner_prefix() in holder["owner"])
            victim.stop(kill=True)  # kill -9 the worker (and its worker processes) mid-action
            killed = time.monotonic()
            resumed = None
            while resumed is None and time.monotonic() - killed < 60:
                now = job(tier["url"], aid)
                if now["epoch"] > holder["epoch"] and now["owner"] and victim.owner_prefix() not in now["owner"]:
                    resumed = time.monotonic() - killed
                await asyncio.sleep(0.05)
            view = await tb.wait_status(aid, {"completed", "failed", "partial"}, timeout=120)
            _, whole = await sse_read(r2, doomed["topic"], query={"token": doomed["stream"]["token"]},
                                      until=ended(aid), timeout=60)
            return reference, view, early + [{"split": True}] + whole, resumed or -1.0, killed

    reference, view, streams, resumed_after, _ = asyncio.run(go())
    split = streams.index({"split": True})
    early, whole = streams[:split], streams[split + 1:]
    assert view["status"] == "completed", view
    assert canonical_json(view["outputs"]) == canonical_json(reference["outputs"])  # byte for byte
    ids = [e["id"] for e in whole]
    assert ids == sorted(set(ids)) and whole[: len(early)] == early
    assert [e["event"] for e in whole].count("action_checkpoint") == inputs["n"] + 1  # each step once
    assert 0 < resumed_after < LEASE_S + 8  # generous on a loaded machine; the bench measures it
    verify(tier["url"], tier["keys"])
