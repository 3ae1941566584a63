"""PostgreSQL benchmark 3: actions through real servers whose log is in PostgreSQL.

Figures, next to baselines measured in the same run:
- actions/s of ``t_noop`` (start -> completed event, ``--clients`` ToolBus clients with
  ``--inflight`` actions each in flight) on one replica and on two replicas of one database
  (clients split between them); baseline: the embedded server (SQLite) with the same load;
- time from the death (kill -9) of the worker processes running an action to that action's next
  new checkpoint (resumed by replay under its retry policy), on a PostgreSQL-backed server.
- the worker tier: one serve-only replica (``--workers 0``) and 1, 2, 4 ``metis worker`` processes
  (each ``--workers 4 --concurrency 4``: its ability processes started up front): actions/s of ``t_noop`` (orchestration only) and of
  ``t_sleep`` 0.25 s (an ability that waits, as on a model or tool call: the workers' slots are the
  limit) (baseline: 1 worker, same run); park-and-resume latency (answer sent -> ``action_completed``
  seen, the action parked with no worker and resumed by replay on whichever worker claims it;
  baseline: the same on the embedded server); time from a ``metis worker``'s kill -9 to its
  action's next new checkpoint on the other worker (goal: lease + 2 s; the lease is the baseline).

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
from bench.spine_actions import Client, loaded_phase  # noqa: E402
from bench.spine_common import WARM_WORKERS_ENV, ratio, show, write_result  # noqa: E402
from tests.support import MetisServer, ToolBus, sse_read  # noqa: E402
from tests.test_pg_workers import MetisWorker, keys_init  # noqa: E402

TIER_LEASE_S = 2.0


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


class AbilityClient(Client):
    """``Client`` starting a given ability instead of ``t_noop``."""

    ability: tuple[str, dict] = ("t_noop", {})

    async def one(self) -> float:
        t0 = time.perf_counter()
        started = await self.tb.start(self.ability[0], self.ability[1], topic=self.topic)
        aid = started["action_id"]
        if aid in self.early:
            return self.early.pop(aid) - t0
        fut: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        self.waiting[aid] = fut
        return await asyncio.wait_for(fut, 120) - t0


async def ability_phase(server: MetisServer, ability: tuple[str, dict], seconds: float, clients: int,
                        inflight: int) -> dict:
    """Actions/s of ``ability`` with ``clients`` x ``inflight`` in flight for ``seconds``."""
    done: list[float] = []
    stop = False

    async def run_client(k: int) -> None:
        async with ToolBus.connect(server) as tb:
            cl = AbilityClient(tb, f"work-c{k}")
            cl.ability = ability
            await cl.open()

            async def lane() -> None:
                while not stop:
                    done.append(await cl.one())

            await asyncio.gather(*(lane() for _ in range(inflight)))
            cl.close()

    t0 = time.perf_counter()
    tasks = [asyncio.create_task(run_client(k)) for k in range(clients)]
    await asyncio.sleep(seconds)
    stop = True
    await asyncio.gather(*tasks)
    elapsed = time.perf_counter() - t0
    done.sort()
    return {"ability": ability[0], "inputs": ability[1], "actions": len(done), "seconds": round(elapsed, 3),
            "actions_per_s": round(len(done) / elapsed, 1),
            "p50_ms": round(done[len(done) // 2] * 1000, 1) if done else None}


WAITING_WORK = ("t_sleep", {"seconds": 0.25})  # an ability that waits (a model or tool call), not the CPU


async def park_resume(server: MetisServer, samples: int) -> dict:
    """Answer sent -> ``action_completed`` seen over SSE, for actions parked on a question (one at a time)."""
    took: list[float] = []
    async with ToolBus.connect(server) as tb:
        for _ in range(samples):
            started = await tb.start("t_ask", {"question": "go?"})
            aid = started["action_id"]
            view = await tb.wait_status(aid, {"waiting_user"}, timeout=60)
            rid = view["pending"][0]["request_id"]
            t0 = time.perf_counter()
            await tb.call("actions.input", {"action_id": aid, "request_id": rid, "value": "yes"})
            await sse_read(server, started["topic"], query={"token": started["stream"]["token"]},
                           until=lambda e: e["event"] == "action_completed", timeout=60)
            took.append(time.perf_counter() - t0)
    took.sort()
    return {"samples": len(took), "p50_ms": round(took[len(took) // 2] * 1000, 1), "max_ms": round(took[-1] * 1000, 1)}


async def tier_worker_death(replica: MetisServer, workers: list[MetisWorker], url: str) -> dict:
    """kill -9 the ``metis worker`` holding a running action; seconds until the action's first new
    checkpoint after the retry notice (written by the other worker)."""
    import psycopg

    async with ToolBus.connect(replica) as tb:
        started = await tb.start("t_emit", {"n": 60, "delay_s": 0.05})
    topic, aid, token = started["topic"], started["action_id"], started["stream"]["token"]
    _, early = await sse_read(replica, topic, query={"token": token}, max_events=8, timeout=60)
    with psycopg.connect(url) as conn:
        owner = conn.execute("SELECT owner FROM metis_jobs WHERE action_id = %s", (aid,)).fetchone()[0]
    victim = next(w for w in workers if w.owner_prefix() in (owner or ""))
    victim.stop(kill=True)
    died = time.perf_counter()
    retried: list[dict] = []

    def resumed(ev: dict) -> bool:
        if ev["data"].get("kind") == "retry":
            retried.append(ev["data"]["payload"])
        return bool(retried) and ev["event"] == "action_checkpoint"

    _, after = await sse_read(replica, topic, query={"token": token}, last_event_id=early[-1]["id"], until=resumed,
                              timeout=120)
    took = time.perf_counter() - died
    async with ToolBus.connect(replica) as tb:
        view = await tb.wait_status(aid, {"completed", "failed", "partial"}, timeout=120)
    return {"lease_s": TIER_LEASE_S, "seconds_to_new_progress": round(took, 3),
            "within_lease_plus_2s": took <= TIER_LEASE_S + 2, "retry_notice": retried[0] if retried else None,
            "final_status": view["status"]}


def worker_tier(db_url: str, base: Path, seconds: float, clients: int, inflight: int, counts: list[int],
                samples: int, smoke: bool) -> dict:
    """The worker tier phases (see the module docstring)."""
    url, keys = fresh_schema(db_url), base / "tier-keys"
    keys_init(keys)
    env = {"METIS_LEASE_S": str(TIER_LEASE_S), **WARM_WORKERS_ENV}
    replica = MetisServer(base / "tier-replica", env=env,
                          extra_args=["--database", url, "--keys-dir", str(keys), "--workers", "0"]).start()
    workers: list[MetisWorker] = []
    out: dict = {"workers": {}}
    try:
        for n in counts:
            while len(workers) < n:
                # its 4 ability processes started up front (each imports every ability: started on
                # demand, under load their start-up fell inside the measured phases)
                workers.append(MetisWorker(base / f"tier-w{len(workers)}", url, keys, env=env,
                                           args=["--workers", "4", "--concurrency", "4"]).start())
            if not smoke:  # warm up: worker processes start on demand (imports), not inside a measured phase;
                # both loads, so a just-started worker's start-up CPU does not fall in the t_noop phase
                asyncio.run(ability_phase(replica, WAITING_WORK, 2.0, clients, inflight))
                asyncio.run(ability_phase(replica, ("t_noop", {}), 3.0, clients, inflight))
            out["workers"][str(n)] = asyncio.run(throughput([replica], seconds, clients, inflight))
            if not smoke:
                out.setdefault("waiting_work", {})[str(n)] = asyncio.run(
                    ability_phase(replica, WAITING_WORK, seconds, clients, inflight))
        out["park_resume"] = asyncio.run(park_resume(replica, samples))
        if not smoke:
            out["worker_death"] = asyncio.run(tier_worker_death(replica, workers, url))
    finally:
        for w in workers:
            w.stop()
        replica.stop()
    one = out["workers"][str(counts[0])]["actions_per_s"]
    out["scaling_vs_one_worker"] = {n: ratio(r["actions_per_s"], one) for n, r in out["workers"].items()}
    if not smoke:
        slow = out["waiting_work"][str(counts[0])]["actions_per_s"]
        out["waiting_work_scaling_vs_one_worker"] = {n: ratio(r["actions_per_s"], slow)
                                                     for n, r in out["waiting_work"].items()}
    return out


def tier_rows(tier: dict) -> list[tuple[str, str, str, str]]:
    first = next(iter(tier["workers"]))
    rows = [(f"worker tier t_noop actions/s, {n} worker(s)", f"{r['actions_per_s']:,.0f}",
             f"{tier['workers'][first]['actions_per_s']:,.0f} ({first} worker)", f"{tier['scaling_vs_one_worker'][n]:.2f}x")
            for n, r in tier["workers"].items()]
    rows += [(f"worker tier t_sleep 0.25 s actions/s, {n} worker(s)", f"{r['actions_per_s']:,.1f}",
              f"{tier['waiting_work'][first]['actions_per_s']:,.1f} ({first} worker)",
              f"{tier['waiting_work_scaling_vs_one_worker'][n]:.2f}x") for n, r in tier.get("waiting_work", {}).items()]
    rows.append(("park -> answer -> completed p50 ms (tier)", f"{tier['park_resume']['p50_ms']}", "", ""))
    if "worker_death" in tier:
        rows.append(("metis worker kill -9 -> resumed on the other (s)",
                     f"{tier['worker_death']['seconds_to_new_progress']}", f"lease {TIER_LEASE_S} s + 2 s", ""))
    return rows


def tier_only(args: argparse.Namespace, counts: list[int], samples: int) -> None:
    """``--tier-only``: the worker tier phases alone, with the load average around them."""
    load_before = [round(x, 2) for x in os.getloadavg()]
    with throwaway_database(args.admin_url) as db_url, tempfile.TemporaryDirectory() as scratch:
        tier = worker_tier(db_url, Path(scratch), args.seconds, args.clients, args.inflight, counts, samples,
                           args.smoke)
    result = {"benchmark": "pg_actions_tier", "worker_tier": tier, "load_average_at_start": load_before,
              "load_average": [round(x, 2) for x in os.getloadavg()]}
    path = write_result("pg_actions_tier", result, args.smoke)
    show(f"worker tier (load average {load_before} -> {result['load_average']})", tier_rows(tier))
    print(f"wrote {path}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=8.0)
    ap.add_argument("--clients", type=int, default=4)
    ap.add_argument("--inflight", type=int, default=8)
    ap.add_argument("--admin-url", default=ADMIN_URL)
    ap.add_argument("--smoke", action="store_true",
                    help="CI: 1 s phases, one replica (no two-replica phase), the crash on that replica")
    ap.add_argument("--tier-only", action="store_true",
                    help="only the worker tier (1, 2, 4 workers); writes results/pg_actions_tier.json")
    ap.add_argument("--workers", default="1,2,4", help="worker counts of the tier phases (the first is the baseline)")
    args = ap.parse_args()
    if args.smoke:
        args.seconds, args.clients, args.inflight = 1.0, 2, 2
    samples = 2 if args.smoke else 12
    counts = [1] if args.smoke else [int(n) for n in args.workers.split(",")]
    if args.tier_only:
        tier_only(args, counts, samples)
        return
    with throwaway_database(args.admin_url) as db_url, tempfile.TemporaryDirectory() as scratch:
        base = Path(scratch)
        embedded = MetisServer(base / "embedded").start()
        try:
            sqlite = asyncio.run(throughput([embedded], args.seconds, args.clients, args.inflight))
            park_embedded = asyncio.run(park_resume(embedded, samples))
        finally:
            embedded.stop()
        tier = worker_tier(db_url, base, args.seconds, args.clients, args.inflight, counts, samples, args.smoke)
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
        "worker_tier": tier,
        "park_resume_embedded": park_embedded,
        "load_average": [round(x, 2) for x in os.getloadavg()],
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
    show(f"worker tier (load average {result['load_average']})", tier_rows(tier))
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
