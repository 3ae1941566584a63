"""PostgreSQL benchmark 2: the work queue (claims under leases) and the rescue of a dead worker.

Figures, next to baselines measured in the same run on the same server:
- jobs/s claimed and completed (claim with FOR UPDATE SKIP LOCKED + lease + epoch, then complete
  checked against the epoch) by 1, 2 and 4 claimer processes, each doing one job at a time;
  baseline: one process doing the same number of committed single-row UPDATEs by primary key
  (the per-commit ceiling of one connection);
- time from a lease holder's kill -9 to its job being claimed by another process, with the
  rescuer polling every ``--rescue-every`` seconds; goal: within the lease plus 2 s.

Run: ``PYTHONPATH=. .venv/bin/python bench/pg_queue.py [--jobs 3000] [--lease 2]``; needs a local
PostgreSQL; creates and drops a throwaway database; writes ``bench/results/pg_queue.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import psycopg  # noqa: E402

from bench.pg_log import ADMIN_URL, fresh_schema, throwaway_database  # noqa: E402
from bench.spine_common import REPO, ratio, show, write_result  # noqa: E402
from receipts.workqueue import WorkQueue  # noqa: E402

CLAIMER = textwrap.dedent("""
    import json, sys, time
    sys.path.insert(0, sys.argv[1])
    from receipts.workqueue import WorkQueue
    q = WorkQueue(sys.argv[2], lease_s=30, pool_size=1)
    done, t0 = [], time.perf_counter()
    while True:
        got = q.claim(sys.argv[3])
        if not got:
            break
        assert q.complete(got[0])
        done.append(got[0].action_id)
    print(json.dumps({"done": done, "seconds": time.perf_counter() - t0}))
""")

HOLDER = textwrap.dedent("""
    import sys, time
    sys.path.insert(0, sys.argv[1])
    from receipts.workqueue import WorkQueue
    q = WorkQueue(sys.argv[2], lease_s=float(sys.argv[3]), pool_size=1)
    (lease,) = q.claim("doomed")
    print("claimed", flush=True)
    while True:
        q.heartbeat(lease)
        time.sleep(float(sys.argv[3]) / 4)
""")


def claimers(url: str, jobs: int, procs: int) -> dict:
    q = WorkQueue(url)
    for i in range(jobs):
        q.enqueue(f"act_{procs}_{i:06d}", "acme", "t_emit", {"i": i})
    q.close()
    t0 = time.perf_counter()
    ps = [subprocess.Popen([sys.executable, "-c", CLAIMER, str(REPO), url, f"w{k}"], stdout=subprocess.PIPE, text=True)
          for k in range(procs)]
    runs = [json.loads(p.communicate()[0]) for p in ps]
    elapsed = time.perf_counter() - t0
    done = [a for r in runs for a in r["done"]]
    return {"processes": procs, "jobs": jobs, "completed": len(done), "each_once": len(done) == len(set(done)) == jobs,
            "seconds": round(elapsed, 3), "jobs_per_s": round(len(done) / max(r["seconds"] for r in runs), 1)}


def raw_updates(url: str, n: int) -> dict:
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE TABLE raw_jobs (id int PRIMARY KEY, v int NOT NULL DEFAULT 0)")
        conn.execute("INSERT INTO raw_jobs (id) SELECT generate_series(1, %s)", (n,))
        t0 = time.perf_counter()
        for i in range(1, n + 1):
            conn.execute("UPDATE raw_jobs SET v = v + 1 WHERE id = %s", (i,))
        elapsed = time.perf_counter() - t0
    return {"updates": n, "seconds": round(elapsed, 3), "updates_per_s": round(n / elapsed, 1)}


def rescue_time(url: str, lease_s: float, every_s: float) -> float:
    q = WorkQueue(url, lease_s=lease_s)
    aid = "act_rescue_" + secrets.token_hex(4)
    q.enqueue(aid, "acme", "t_emit")
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(REPO), url, str(lease_s)], stdout=subprocess.PIPE,
                              text=True)
    assert holder.stdout.readline().strip() == "claimed"
    time.sleep(lease_s * 1.5)  # alive and heartbeating past one lease
    os.kill(holder.pid, signal.SIGKILL)
    holder.wait()
    died = time.monotonic()
    while True:
        q.rescue()
        got = q.claim("survivor")
        if got:
            took = time.monotonic() - died
            q.complete(got[0])
            q.close()
            return took
        time.sleep(every_s)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=3000)
    ap.add_argument("--lease", type=float, default=2.0)
    ap.add_argument("--rescue-every", type=float, default=0.5)
    ap.add_argument("--trials", type=int, default=3)
    ap.add_argument("--admin-url", default=ADMIN_URL)
    ap.add_argument("--smoke", action="store_true", help="seconds-long run for CI; results not committed")
    args = ap.parse_args()
    if args.smoke:
        args.jobs, args.trials, args.lease = 60, 1, 1.0
    with throwaway_database(args.admin_url) as db_url:
        base = raw_updates(fresh_schema(db_url), args.jobs)
        runs = {n: claimers(fresh_schema(db_url), args.jobs, n) for n in (1, 2, 4)}
        url = fresh_schema(db_url)
        rescues = [round(rescue_time(url, args.lease, args.rescue_every), 3) for _ in range(args.trials)]
    result = {
        "benchmark": "pg_queue",
        "claimers": {str(n): r for n, r in runs.items()},
        "baseline_single_row_update": base,
        "scaling_4_vs_1": ratio(runs[4]["jobs_per_s"], runs[1]["jobs_per_s"]),
        "rescue": {"lease_s": args.lease, "rescuer_every_s": args.rescue_every, "death_to_reclaim_s": rescues,
                   "worst_s": max(rescues), "goal_s": args.lease + 2.0},
        "met": {"rescue_within_lease_plus_2s": max(rescues) <= args.lease + 2.0,
                "each_job_once": all(r["each_once"] for r in runs.values())},
    }
    path = write_result("pg_queue", result, args.smoke)
    rows = [(f"jobs/s, {n} claimer process{'es' if n > 1 else ''}", f"{r['jobs_per_s']:,.0f}",
             f"{base['updates_per_s']:,.0f}", f"{ratio(r['jobs_per_s'], base['updates_per_s']):.2f}x")
            for n, r in runs.items()]
    rows.append(("death -> reclaimed, worst of trials (s)", f"{max(rescues)}", f"goal {args.lease + 2.0}", ""))
    show("PostgreSQL work queue", rows)
    print(f"met: {result['met']}\nwrote {path}")


if __name__ == "__main__":
    main()
