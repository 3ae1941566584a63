"""``metis serve --database``: replicas on one PostgreSQL log, as subprocesses with real clients.

An action started on one replica streams live over SSE from any other (the log is shared, the
stream token is signed with the shared server key), and a client whose replica is killed -9
resumes on another with Last-Event-ID: no gap, no duplicate."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import httpx
import psycopg
import pytest

from receipts.canonical import canonical_json
from tests.conftest import new_pg_schema
from tests.support import ROOT, MetisServer, RpcFailure, ToolBus, answer_open_request, ended, sse_read


@pytest.fixture(scope="module")
def cluster(pg_database: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict]:
    """Three replicas on one database and one keys dir, shared by this module's tests (the last test
    kills one of them)."""
    base = tmp_path_factory.mktemp("cluster")
    url, keys = new_pg_schema(pg_database), base / "keys"
    subprocess.run([sys.executable, "-m", "orchestrator.cli", "keys", "init", "--keys-dir", str(keys)], cwd=ROOT,
                   check=True, capture_output=True, timeout=60)
    servers = [MetisServer(base / f"replica{i}", extra_args=["--database", url, "--keys-dir", str(keys), "--workers", "1"])
               for i in range(3)]
    with ThreadPoolExecutor(3) as pool:  # they start side by side, as replicas do
        list(pool.map(MetisServer.start, servers))
    yield {"servers": servers, "url": url, "keys": keys}
    for s in servers:
        s.stop(kill=True)


def job_row(pg_url: str, action_id: str) -> tuple:
    """(state, owner, epoch) of the action's job in the work queue."""
    with psycopg.connect(pg_url) as conn:
        return conn.execute("SELECT state, owner, epoch FROM metis_jobs WHERE action_id = %s", (action_id,)).fetchone()


def verify(pg_url: str, keys) -> dict:
    out = subprocess.run([sys.executable, "-m", "orchestrator.cli", "receipts", "verify", "--database", pg_url,
                          "--keys-dir", str(keys)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    report = json.loads(out.stdout)
    assert out.returncode == 0, report
    return report


def test_serve_on_postgres_keeps_the_log_there(cluster):
    server, pg_url = cluster["servers"][0], cluster["url"]

    async def go() -> dict:
        async with ToolBus.connect(server) as tb:
            view, events = await tb.run("t_emit", {"n": 5})
            return {"view": view, "events": events}

    out = asyncio.run(go())
    assert out["view"]["status"] == "completed"
    assert [e["event"] for e in out["events"]].count("action_checkpoint") == 5 + 1  # n plan deltas, one boundary summary
    assert not (server.data_dir / "receipts.sqlite3").exists()  # nothing went to the embedded log
    with psycopg.connect(pg_url) as conn:
        stored = conn.execute("SELECT count(*) FROM records WHERE action_id = %s",
                              (out["view"]["action_id"],)).fetchone()[0]
    assert stored >= 7  # created, running, checkpoints, completed...
    health = httpx.get(server.http_url + "/healthz", timeout=5).json()
    assert health["log_records"] >= stored
    report = verify(pg_url, cluster["keys"])
    assert report["checked"] >= stored


def test_start_on_one_replica_follow_live_on_another(cluster):
    r1, r2, _ = cluster["servers"]

    async def go() -> tuple[list[dict], list[dict]]:
        async with ToolBus.connect(r1) as tb:
            started = await tb.start("t_emit", {"n": 30, "delay_s": 0.03})
            token, topic, aid = started["stream"]["token"], started["topic"], started["action_id"]
            # the stream token issued by replica 1 opens the stream on replica 2
            (_, on_r2), (_, on_r1) = await asyncio.gather(
                sse_read(r2, topic, query={"token": token}, until=ended(aid), timeout=60),
                sse_read(r1, topic, query={"token": token}, until=ended(aid), timeout=60))
            return on_r1, on_r2

    on_r1, on_r2 = asyncio.run(go())
    assert on_r2[-1]["event"] == "action_completed"
    assert [e["event"] for e in on_r2].count("action_checkpoint") == 30 + 1
    ids = [e["id"] for e in on_r2]
    assert ids == sorted(set(ids))  # in order, once each
    assert ids == [e["id"] for e in on_r1]  # the same stream on both replicas
    verify(cluster["url"], cluster["keys"])


def test_sse_clients_of_a_killed_replica_resume_on_another_without_gap_or_duplicate(cluster):
    runner, doomed, other = cluster["servers"]

    async def go() -> tuple[list[dict], list[dict], list[dict]]:
        async with ToolBus.connect(runner) as tb:
            started = await tb.start("t_emit", {"n": 80, "delay_s": 0.025})
            token, topic, aid = started["stream"]["token"], started["topic"], started["action_id"]
            _, before = await sse_read(doomed, topic, query={"token": token}, max_events=12, timeout=60)
            doomed.stop(kill=True)  # kill -9 the replica this client was reading from
            _, after = await sse_read(other, topic, query={"token": token}, last_event_id=before[-1]["id"],
                                      until=ended(aid), timeout=60)
            _, whole = await sse_read(other, topic, query={"token": token}, until=ended(aid), timeout=60)
            return before, after, whole

    before, after, whole = asyncio.run(go())
    assert len(before) == 12 and after and after[-1]["event"] == "action_completed"
    assert [e["id"] for e in before + after] == [e["id"] for e in whole]  # no gap, no duplicate
    assert [e["event"] for e in whole].count("action_checkpoint") == 80 + 1
    verify(cluster["url"], cluster["keys"])


def test_database_outage_answers_retryable_storage_errors_then_recovers(pg_url, tmp_path):
    from tests.test_pg_durability import Proxy

    proxy = Proxy(("127.0.0.1", 5432))
    url = pg_url.replace("127.0.0.1:5432", f"127.0.0.1:{proxy.port}")
    server = MetisServer(tmp_path / "replica", extra_args=["--database", url], env={"METIS_DATABASE_RETRY_S": "1"})
    try:
        server.start()

        async def go() -> None:
            async with ToolBus.connect(server) as tb:
                view, _ = await tb.run("t_noop", {})
                assert view["status"] == "completed"
                proxy.cut()
                with pytest.raises(RpcFailure) as err:
                    await tb.start("t_noop", {})
                assert err.value.code == -32053 and err.value.data["retryable"] is True  # never -32603
                ready = httpx.get(server.http_url + "/readyz", timeout=5)
                assert ready.status_code == 503 and "storage unavailable" in ready.json()["reason"]
                proxy.restore()
                for _ in range(100):  # the replica comes back by itself
                    try:
                        again = await tb.start("t_noop", {})
                        break
                    except RpcFailure as exc:
                        assert exc.code == -32053
                        await asyncio.sleep(0.2)
                assert (await tb.wait_status(again["action_id"], {"completed"}))["status"] == "completed"

        asyncio.run(go())
        for _ in range(50):
            if httpx.get(server.http_url + "/readyz", timeout=5).status_code == 200:
                break
            time.sleep(0.2)
        assert httpx.get(server.http_url + "/readyz", timeout=5).status_code == 200
    finally:
        server.stop(kill=True)
        proxy.close()


def test_a_replica_starting_later_leaves_running_actions_alone_and_one_that_died_is_taken_over(pg_url, tmp_path):
    """Each action runs where its job is leased: a replica that starts while another runs actions serves
    them but does not run them (no duplicate run), and when a replica is killed -9 the next replica to start takes its
    actions over after the lease lapses, resuming by replay to outputs equal to an undisturbed run's."""
    keys = tmp_path / "keys"
    subprocess.run([sys.executable, "-m", "orchestrator.cli", "keys", "init", "--keys-dir", str(keys)], cwd=ROOT,
                   check=True, capture_output=True, timeout=60)

    def replica(name: str) -> MetisServer:
        return MetisServer(tmp_path / name, extra_args=["--database", pg_url, "--keys-dir", str(keys)],
                           env={"METIS_LEASE_S": "2"})

    first, later = replica("first"), replica("later")
    first.start()
    inputs, seed = {"n": 30, "delay_s": 0.15}, {"purpose": "takeover"}
    try:
        async def go() -> None:
            async with ToolBus.connect(first) as tb:
                reference, _ = await tb.run("t_emit", inputs, seed=seed)
                assert reference["status"] == "completed"
                asking = await tb.start("t_ask", {"question": "still mine?"})
                await tb.wait_status(asking["action_id"], {"waiting_user"})
                busy = await tb.start("t_emit", {"n": 20, "delay_s": 0.1})
                await tb.wait_status(busy["action_id"], {"running"})
            held = job_row(pg_url, busy["action_id"])
            later.start()  # recovers from the shared log while `first` runs an action
            async with ToolBus.connect(later) as tb2:
                # any replica serves any action; the one running stays with the live replica (no second run)
                assert (await tb2.call("actions.get", {"action_id": asking["action_id"]}))["status"] == "waiting_user"
                assert (await tb2.call("actions.get", {"action_id": reference["action_id"]}))["status"] == "completed"
                done = await tb2.wait_status(busy["action_id"], {"completed"}, timeout=60)
                assert job_row(pg_url, busy["action_id"])[::2] == ("done", held[2])  # same epoch: never claimed again
            _, busy_events = await sse_read(later, busy["topic"], query={"token": busy["stream"]["token"]},
                                            until=ended(busy["action_id"]), timeout=60)
            assert done["status"] == "completed"
            assert [e["event"] for e in busy_events].count("action_checkpoint") == 20 + 1  # ran once
            async with ToolBus.connect(first) as tb:
                await answer_open_request(tb, asking["action_id"], "yes")
                assert (await tb.wait_status(asking["action_id"], {"completed"}))["outputs"]

            async with ToolBus.connect(first) as tb:
                doomed = await tb.start("t_emit", inputs, seed=seed)
            _, early = await sse_read(first, doomed["topic"], max_events=6, timeout=60)
            first.stop(kill=True)  # kill -9 the replica (and its workers) mid-action
            heir = replica("heir")
            heir.start()  # after first's lease (2 s) lapsed: it takes the action over
            async with ToolBus.connect(heir) as tb3:
                view = await tb3.wait_status(doomed["action_id"], {"completed", "failed", "partial"}, timeout=120)
            assert view["status"] == "completed", view
            assert canonical_json(view["outputs"]) == canonical_json(reference["outputs"])  # equal to undisturbed
            _, whole = await sse_read(heir, doomed["topic"], query={"token": doomed["stream"]["token"]},
                                      until=ended(doomed["action_id"]), timeout=60)
            ids = [e["id"] for e in whole]
            assert ids == sorted(set(ids)) and whole[: len(early)] == early
            assert [e["event"] for e in whole].count("action_checkpoint") == inputs["n"] + 1  # each step once
            heir.stop()

        asyncio.run(go())
    finally:
        first.stop(kill=True)
        later.stop(kill=True)
    verify(pg_url, keys)


def test_a_replica_shut_down_cleanly_hands_its_waiting_action_to_the_next_one(pg_url, tmp_path):
    """A graceful stop releases the replica's leases: the next replica to start takes its waiting
    action at once (no lease to wait out), is asked for the answer and completes the action."""
    keys = tmp_path / "keys"
    subprocess.run([sys.executable, "-m", "orchestrator.cli", "keys", "init", "--keys-dir", str(keys)], cwd=ROOT,
                   check=True, capture_output=True, timeout=60)
    args = ["--database", pg_url, "--keys-dir", str(keys)]
    env = {"METIS_LEASE_S": "120"}  # long: only the release lets the next replica take the action now
    old = MetisServer(tmp_path / "old", extra_args=args, env=env)
    new = MetisServer(tmp_path / "new", extra_args=args, env=env)
    old.start()
    try:
        async def go() -> None:
            async with ToolBus.connect(old) as tb:
                asking = await tb.start("t_ask", {"question": "carry on?"})
                await tb.wait_status(asking["action_id"], {"waiting_user"})
            old.stop()  # SIGTERM: drains, releases its leases
            new.start()
            async with ToolBus.connect(new) as tb2:
                assert (await tb2.call("actions.get", {"action_id": asking["action_id"]}))["status"] == "waiting_user"
                await answer_open_request(tb2, asking["action_id"], "yes")
                view = await tb2.wait_status(asking["action_id"], {"completed"}, timeout=60)
                assert view["status"] == "completed"

        asyncio.run(go())
    finally:
        old.stop(kill=True)
        new.stop(kill=True)
    verify(pg_url, keys)
