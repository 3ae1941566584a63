"""Spine benchmark 2: no-op actions through the ToolBus of a real server.

Figures (each next to a baseline measured in the same run):
- ``t_noop`` start -> completed latency p50/p95, measured by the client from sending
  ``actions.start`` to receiving that action's ``action_completed`` event notification
  (each client subscribes once to its own topic and starts its actions on it);
  (a) one client, one action at a time (unloaded latency), (b) ``--clients`` clients with
  ``--inflight`` actions each in flight (throughput, loaded latency);
- actions/s in phase (b), run twice: the first run includes the worker pool growing under load
  (the pool size from ``/healthz`` is reported before and after), the second runs on the grown pool;
- durable log commits per action in phase (a) (the server's ``metis_log_commits_total``): the
  fsyncs a no-op action's path costs, which no code outside the disk makes cheaper;
- CPU per action in phase (b): the server process (event loop and log threads), its worker
  processes, and this client; and the rate those three would reach with the machine's cores to
  themselves (cores / CPU per action): the machine is shared, so the wall-clock rate says more
  about the other jobs than about Metis, and this figure does not;
- a fresh server's first no-op action, started as soon as ``/healthz`` answers (the warm workers
  still starting): start -> completed, next to the server's own time to healthy;
- baselines: a plain asyncio task ``await asyncio.create_task(noop())`` rate in the client
  process, same run; and the disk's durable commit, raw SQLite (WAL, ``synchronous=FULL``, one
  row per commit, mean time per commit) on the same disk just before and after phase (a): the
  one-client p50 is also given in these commits (a no-op needs two of them: its ``created``
  record before the start call answers, its end before ``action_completed`` is sent).
The server is ``metis serve`` on a fresh data dir with its default settings (4 actions at
once, 2 warm workers) unless ``--server-arg`` says otherwise.

Run from the repo root: ``PYTHONPATH=. .venv/bin/python bench/spine_actions.py [--seconds 10]``;
writes ``bench/results/spine_actions.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.spine_common import REPO, WARM_WORKERS_ENV, ms, pct, ratio, show, write_result  # noqa: E402
from bench.spine_log import raw_sqlite  # noqa: E402
from bench.spine_sse import proc_cpu_s  # noqa: E402
from tests.support import MetisServer, ToolBus  # noqa: E402

TARGET_P50_MS = 2.0
TARGET_RATE = 1500.0


async def task_rate(seconds: float = 1.0) -> float:
    """Baseline: create and await plain asyncio tasks, one at a time."""

    async def noop() -> None:
        return None

    n = 0
    t0 = time.perf_counter()
    end = t0 + seconds
    while time.perf_counter() < end:
        for _ in range(1000):
            await asyncio.create_task(noop())
        n += 1000
    return n / (time.perf_counter() - t0)


class Client:
    """One ToolBus connection with its own topic; resolves a future per action on completion."""

    def __init__(self, tb: ToolBus, topic: str) -> None:
        self.tb = tb
        self.topic = topic
        self.waiting: dict[str, asyncio.Future[float]] = {}
        self.early: dict[str, float] = {}
        self.failed: list[str] = []
        self.start_lat: list[float] = []
        self._pump: asyncio.Task | None = None

    async def open(self) -> None:
        await self.tb.call("events.subscribe", {"topic": self.topic})
        self._pump = asyncio.create_task(self._read())

    async def _read(self) -> None:
        while True:
            note = await self.tb.notifications.get()
            now = time.perf_counter()
            p = note.get("params", {})
            if note.get("method") != "event" or p.get("event") not in (
                    "action_completed", "action_failed", "action_partial"):
                continue
            aid = p["data"]["action_id"]
            if p["event"] != "action_completed":
                self.failed.append(aid)
            fut = self.waiting.pop(aid, None)
            if fut is not None:
                fut.set_result(now)
            else:
                self.early[aid] = now

    async def one(self) -> float:
        """Start a no-op action and wait for its completion event; returns the latency in s."""
        t0 = time.perf_counter()
        started = await self.tb.start("t_noop", {}, topic=self.topic)
        self.start_lat.append(time.perf_counter() - t0)
        aid = started["action_id"]
        if aid in self.early:
            return self.early.pop(aid) - t0
        fut: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        self.waiting[aid] = fut
        return await asyncio.wait_for(fut, 60) - t0

    def close(self) -> None:
        if self._pump is not None:
            self._pump.cancel()


async def workers(server: MetisServer) -> int:
    """Worker processes of the server's pool (``/healthz``)."""
    import httpx

    async with httpx.AsyncClient() as client:
        return (await client.get(server.http_url + "/healthz")).json()["workers"]


async def log_commits(server: MetisServer) -> int:
    """Durable group commits of the server's log so far (``metis_log_commits_total``)."""
    import httpx

    async with httpx.AsyncClient() as client:
        text = (await client.get(server.http_url + "/metrics")).text
    for line in text.splitlines():
        if line.startswith("metis_log_commits_total "):
            return int(float(line.split()[1]))
    raise RuntimeError("metis_log_commits_total missing from /metrics")


def children_cpu_s(pid: int | None) -> float:
    """CPU seconds so far of the live child processes of ``pid`` (the server's workers)."""
    if pid is None:
        return 0.0
    total = 0.0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            total += proc_cpu_s(int(entry))
    return total


async def loaded_phase(server: MetisServer, seconds: float, clients: int, inflight: int) -> dict:
    """``clients`` connections with ``inflight`` actions each in flight, for ``seconds``."""
    lat: list[float] = []
    failed = 0
    stop = False

    async def run_client(k: int, ready: asyncio.Event, go: asyncio.Event) -> None:
        nonlocal failed
        async with ToolBus.connect(server) as tb:
            cl = Client(tb, f"bench-c{k}")
            await cl.open()
            ready.set()
            await go.wait()

            async def lane() -> None:
                while not stop:
                    lat.append(await cl.one())

            await asyncio.gather(*(lane() for _ in range(inflight)))
            failed += len(cl.failed)
            cl.close()

    go = asyncio.Event()
    readies = [asyncio.Event() for _ in range(clients)]
    tasks = [asyncio.create_task(run_client(k, readies[k], go)) for k in range(clients)]
    for r in readies:
        await r.wait()
    pid = server.proc.pid if server.proc else None
    cpu0 = (proc_cpu_s(pid), children_cpu_s(pid), time.process_time())
    t0 = time.perf_counter()
    go.set()
    await asyncio.sleep(seconds)
    stop = True
    await asyncio.gather(*tasks)
    elapsed = time.perf_counter() - t0
    cpu = [(b - a) * 1e6 / max(1, len(lat)) for a, b in
           zip(cpu0, (proc_cpu_s(pid), children_cpu_s(pid), time.process_time()), strict=True)]
    return {"clients": clients, "inflight_per_client": inflight, "seconds": round(elapsed, 3),
            "actions": len(lat), "actions_per_s": round(len(lat) / elapsed, 1), "p50_ms": ms(pct(lat, 0.5)),
            "p95_ms": ms(pct(lat, 0.95)), "p99_ms": ms(pct(lat, 0.99)), "not_completed": failed,
            "cpu_us_per_action": {"server": round(cpu[0], 1), "workers": round(cpu[1], 1), "client": round(cpu[2], 1)},
            "actions_per_s_if_cores_were_ours": round((os.cpu_count() or 1) * 1e6 / max(1.0, sum(cpu)), 1)}


async def _first_action(server: MetisServer) -> float:
    async with ToolBus.connect(server) as tb:
        c = Client(tb, "bench-cold")
        await c.open()
        try:
            return await c.one()
        finally:
            c.close()


def cold_start(data_dir: Path, server_args: list[str]) -> dict:
    """A fresh server's first no-op action, started the moment ``/healthz`` answers (its warm
    workers still starting): start -> completed. Baseline: the server's own start-up to healthy."""
    server = MetisServer(data_dir, extra_args=server_args + ["--log-level", "warning"], wait_workers=False)
    t0 = time.perf_counter()
    server.start()
    healthy = time.perf_counter() - t0
    try:
        first = asyncio.run(_first_action(server))
    finally:
        server.stop()
    return {"first_action_ms": ms(first), "baseline_server_to_healthy_ms": ms(healthy)}


def commit_ms(path: Path) -> float:
    """Mean time of a durable single-row SQLite commit on this disk now (50 ms of them)."""
    return 1000.0 / raw_sqlite(path, 0.05, 1)["commits_per_s"]


async def measure(server: MetisServer, seconds: float, clients: int, inflight: int, sequential: int,
                  scratch: Path) -> dict:
    base_rate = await task_rate()
    scratch.mkdir(parents=True, exist_ok=True)
    disk: list[float] = []
    async with ToolBus.connect(server) as tb:
        c = Client(tb, "bench-seq")
        await c.open()
        for _ in range(20):  # warm-up: workers started, imports done
            await c.one()
        await asyncio.sleep(0.1)  # let the warm-up's last records land before counting commits
        commits0 = await log_commits(server)
        seq_lat: list[float] = []
        while len(seq_lat) < sequential:  # blocks of 20, each after 50 ms of raw commits: same-time disk
            disk.append(commit_ms(scratch / "raw.sqlite3"))
            seq_lat += [await c.one() for _ in range(min(20, sequential - len(seq_lat)))]
        await asyncio.sleep(0.1)
        commits = await log_commits(server) - commits0
        seq_failed = len(c.failed)
        seq_start = c.start_lat[20:]
        c.close()
    commit = pct(disk, 0.5)

    workers_after_seq = await workers(server)
    loaded = await loaded_phase(server, seconds, clients, inflight)
    loaded["workers_after"] = await workers(server)
    again = await loaded_phase(server, seconds, clients, inflight)
    again["workers_after"] = await workers(server)
    base_rate_after = await task_rate()
    baseline = (base_rate + base_rate_after) / 2
    return {
        "sequential": {"actions": sequential, "p50_ms": ms(pct(seq_lat, 0.5)), "p95_ms": ms(pct(seq_lat, 0.95)),
                       "p99_ms": ms(pct(seq_lat, 0.99)), "actions_per_s": round(sequential / sum(seq_lat), 1),
                       "not_completed": seq_failed, "start_response_p50_ms": ms(pct(seq_start, 0.5)),
                       "log_commits_per_action": round(commits / sequential, 3),
                       "p50_in_disk_commits": round(pct(seq_lat, 0.5) * 1000 / commit, 2),
                       "start_response_p95_ms": ms(pct(seq_start, 0.95))},
        "workers_after_sequential": workers_after_seq,
        "loaded": loaded,
        "loaded_again": again,
        "baseline_asyncio_tasks_per_s": round(baseline, 1),
        "baseline_asyncio_task_us": round(1e6 / baseline, 3),
        "baseline_disk_commit_ms_p50": round(commit, 3),
        "baseline_disk_commit_ms_min_max": [round(min(disk), 3), round(max(disk), 3)],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--inflight", type=int, default=4, help="actions in flight per client")
    ap.add_argument("--sequential", type=int, default=300, help="actions of the one-client phase")
    ap.add_argument("--server-arg", action="append", default=[], help="extra `metis serve` argument")
    ap.add_argument("--smoke", action="store_true", help="small N, seconds (CI); results to a temp dir")
    args = ap.parse_args()
    if args.smoke:
        args.seconds, args.clients, args.inflight, args.sequential = 0.5, 2, 2, 10
    tmp = Path(tempfile.mkdtemp(prefix="spine_actions_", dir=REPO / "bench"))
    try:
        cold = cold_start(tmp / "cold", args.server_arg)
        server = MetisServer(tmp / "data", extra_args=args.server_arg + ["--log-level", "warning"], env=WARM_WORKERS_ENV)
        server.start()
        try:
            r = asyncio.run(measure(server, args.seconds, args.clients, args.inflight, args.sequential, tmp / "disk"))
        finally:
            server.stop()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    r["cold_start"] = cold
    base = r["baseline_asyncio_tasks_per_s"]
    seq, loaded, again = r["sequential"], r["loaded"], r["loaded_again"]
    result = {
        "benchmark": "spine_actions", **r, "server_args": args.server_arg,
        "ratio_sequential_rate_vs_tasks": ratio(seq["actions_per_s"], base),
        "ratio_loaded_rate_vs_tasks": ratio(loaded["actions_per_s"], base),
        "ratio_loaded_again_rate_vs_tasks": ratio(again["actions_per_s"], base),
        "ratio_p50_vs_task_time": ratio(seq["p50_ms"] / 1000, 1 / base),
        "targets": {"p50_ms": TARGET_P50_MS, "actions_per_s": TARGET_RATE},
        "met": {"p50_ms_unloaded": seq["p50_ms"] <= TARGET_P50_MS, "p50_ms_loaded": loaded["p50_ms"] <= TARGET_P50_MS,
                "actions_per_s": max(loaded["actions_per_s"], again["actions_per_s"]) >= TARGET_RATE},
    }
    path = write_result("spine_actions", result, args.smoke)
    show("no-op actions through the ToolBus", [
        ("1 client: start->completed p50 ms", f"{seq['p50_ms']}", f"{r['baseline_asyncio_task_us']} us", ""),
        ("1 client: p95 ms", f"{seq['p95_ms']}", "", ""),
        ("1 client: actions.start response p50 ms", f"{seq['start_response_p50_ms']}", "", ""),
        ("1 client: p50 in raw SQLite commits", f"{seq['p50_in_disk_commits']}",
         f"{r['baseline_disk_commit_ms_p50']} ms", ""),
        ("1 client: durable log commits per action", f"{seq['log_commits_per_action']}", "", ""),
        ("1 client: actions/s", f"{seq['actions_per_s']:,.0f}", f"{base:,.0f}",
         f"{result['ratio_sequential_rate_vs_tasks']:.4f}x"),
        (f"{loaded['clients']}x{loaded['inflight_per_client']} in flight: actions/s", f"{loaded['actions_per_s']:,.0f}",
         f"{base:,.0f}", f"{result['ratio_loaded_rate_vs_tasks']:.4f}x"),
        ("  loaded p50 ms", f"{loaded['p50_ms']}", "", ""),
        ("  loaded p95 ms", f"{loaded['p95_ms']}", "", ""),
        ("  worker processes after (before)", f"{loaded['workers_after']} ({r['workers_after_sequential']})", "", ""),
        ("  CPU us per action: server / workers / client",
         "{server:.0f} / {workers:.0f} / {client:.0f}".format(**loaded["cpu_us_per_action"]), "", ""),
        ("  actions/s if the cores were ours (cores / CPU)", f"{loaded['actions_per_s_if_cores_were_ours']:,.0f}", "", ""),
        ("same load again: actions/s", f"{again['actions_per_s']:,.0f}", f"{base:,.0f}",
         f"{result['ratio_loaded_again_rate_vs_tasks']:.4f}x"),
        ("  again p50 / p95 ms", f"{again['p50_ms']} / {again['p95_ms']}", "", ""),
        ("  again CPU us per action: server / workers / client",
         "{server:.0f} / {workers:.0f} / {client:.0f}".format(**again["cpu_us_per_action"]), "", ""),
        ("  again: actions/s if the cores were ours", f"{again['actions_per_s_if_cores_were_ours']:,.0f}", "", ""),
        ("  worker processes after", f"{again['workers_after']}", "", ""),
        ("cold start: first action start->completed ms", f"{cold['first_action_ms']}",
         f"{cold['baseline_server_to_healthy_ms']} ms to healthy", ""),
        ("  not completed", f"{loaded['not_completed'] + again['not_completed'] + seq['not_completed']}", "", ""),
    ])
    print(f"met: {result['met']}\nwrote {path}")


if __name__ == "__main__":
    main()
