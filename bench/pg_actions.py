"""PostgreSQL benchmark 3: actions through real servers whose log is in PostgreSQL.

Figures, next to baselines measured in the same run:
- actions/s of ``t_noop`` (start -> completed event, ``--clients`` ToolBus clients with
  ``--inflight`` actions each in flight) on one replica and on two replicas of one database
  (clients split between them); baseline: the embedded server (SQLite) with the same load;
- time from the death (kill -9) of the worker processes running an action to that action's next
  new checkpoint (resumed by replay under its retry policy), on a PostgreSQL-backed server.

Run: ``PYTHONPATH=. .venv/bin/python bench/pg_actions.py [--seconds 8]``; needs a local
PostgreSQL; writes ``bench/results/pg_actions.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.pg_log import ADMIN_URL, fresh_schema, throwaway_database  # noqa: E402
from bench.spine_actions import loaded_phase  # noqa: E402
from bench.spine_common import ratio, show, write_result  # noqa: E402
from tests.support import MetisServer, ToolBus, sse_read  # noqa: E402


def worker_pids(server: MetisServer) -> list[int]:
    """The server's worker processes (``python -m orchestrator.worker`` children)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmd = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == server.proc.pid and b"orchestrator.worker" in cmd:
            pids.append(int(entry.name))
    return pids


async def throughput(servers: list[MetisServer], seconds: float, clients: int, inflight: int) -> dict:
    per = max(1, clients // len(servers))
    runs = await asyncio.gather(*(loaded_phase(s, seconds, per, inflight) for s in servers))
    actions = sum(r["actions"] for r in runs)
    secs = max(r["seconds"] for r in runs)
    return {"replicas": len(servers), "clients": per * len(servers), "inflight_per_client": inflight,
            "actions": actions, "seconds": secs, "actions_per_s": round(actions / secs, 1),
            "p50_ms": max(r["p50_ms"] for r in runs), "p95_ms": max(r["p95_ms"] for r in runs),
            "not_completed": sum(r["not_completed"] for r in runs)}


async def death_to_resume(server: MetisServer) -> dict:
    """kill -9 the workers mid-action; seconds until the first checkpoint written after the retry notice
    (replayed steps are matched against the log, not written again, so that one is new progress)."""
    async with ToolBus.connect(server) as tb:
        started = await tb.start("t_emit", {"n": 60, "delay_s": 0.05})
    topic, aid = started["topic"], started["action_id"]
    _, early = await sse_read(server, topic, max_events=8, timeout=60)
    pids = worker_pids(server)
    for pid in pids:
        os.kill(pid, signal.SIGKILL)
    died = time.perf_counter()
    retried: list[dict] = []

    def resumed(ev: dict) -> bool:
        if ev["data"].get("kind") == "retry":
            retried.append(ev["data"]["payload"])
        return bool(retried) and ev["event"] == "action_checkpoint"

    _, after = await sse_read(server, topic, last_event_id=early[-1]["id"], until=resumed, timeout=120)
    took = time.perf_counter() - died
    async with ToolBus.connect(server) as tb:
        view = await tb.wait_status(aid, {"completed", "failed", "partial"}, timeout=120)
    before = [e["data"]["payload"].get("i") for e in after[:-1] if e["event"] == "action_checkpoint"]
    return {"workers_killed": len(pids), "checkpoints_after_kill_before_retry": len(before),
            "first_new_checkpoint": after[-1]["data"]["payload"].get("i"), "seconds_to_new_progress": round(took, 3),
            "retry_notice": retried[0] if retried else None, "final_status": view["status"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=8.0)
    ap.add_argument("--clients", type=int, default=4)
    ap.add_argument("--inflight", type=int, default=8)
    ap.add_argument("--admin-url", default=ADMIN_URL)
    ap.add_argument("--smoke", action="store_true",
                    help="CI: 1 s phases, one replica (no two-replica phase), the crash on that replica")
    args = ap.parse_args()
    if args.smoke:
        args.seconds, args.clients, args.inflight = 1.0, 2, 2
    with throwaway_database(args.admin_url) as db_url, tempfile.TemporaryDirectory() as scratch:
        base = Path(scratch)
        embedded = MetisServer(base / "embedded").start()
        try:
            sqlite = asyncio.run(throughput([embedded], args.seconds, args.clients, args.inflight))
        finally:
            embedded.stop()
        url = fresh_schema(db_url)
        keys = base / "keys"
        replicas = [MetisServer(base / f"r{i}", extra_args=["--database", url, "--keys-dir", str(keys)])
                    for i in range(2)]
        replicas[0].start()
        try:
            one = asyncio.run(throughput(replicas[:1], args.seconds, args.clients, args.inflight))
            if args.smoke:
                two = {**one, "skipped": "smoke"}
                resume = asyncio.run(death_to_resume(replicas[0]))
            else:
                replicas[1].start()
                two = asyncio.run(throughput(replicas, args.seconds, args.clients, args.inflight))
        finally:
            for r in replicas:
                r.stop()
        if not args.smoke:
            crash = MetisServer(base / "crash", extra_args=["--database", fresh_schema(db_url)]).start()
            try:
                resume = asyncio.run(death_to_resume(crash))
            finally:
                crash.stop()
    result = {
        "benchmark": "pg_actions",
        "embedded_sqlite": sqlite,
        "postgres_one_replica": one,
        "postgres_two_replicas": two,
        "ratio_one_replica_vs_embedded": ratio(one["actions_per_s"], sqlite["actions_per_s"]),
        "ratio_two_vs_one_replica": ratio(two["actions_per_s"], one["actions_per_s"]),
        "worker_death": resume,
    }
    path = write_result("pg_actions", result, args.smoke)
    show("actions on PostgreSQL", [
        ("t_noop actions/s, 1 replica", f"{one['actions_per_s']:,.0f}", f"{sqlite['actions_per_s']:,.0f} (embedded)",
         f"{result['ratio_one_replica_vs_embedded']:.2f}x"),
        ("t_noop actions/s, 2 replicas", f"{two['actions_per_s']:,.0f}", f"{one['actions_per_s']:,.0f} (1 replica)",
         f"{result['ratio_two_vs_one_replica']:.2f}x"),
        ("p50 ms, 1 / 2 replicas", f"{one['p50_ms']} / {two['p50_ms']}", f"{sqlite['p50_ms']} (embedded)", ""),
        ("worker kill -9 -> new progress (s)", f"{resume['seconds_to_new_progress']}", "", ""),
    ])
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
