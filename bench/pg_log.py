"""PostgreSQL benchmark 1: durable appends to the receipt log on PostgreSQL.

Figures, each next to the raw ceiling of the same server measured in the same run on the same
schema (indexes and append-only triggers included):
- records/s of ``PostgresReceiptLog.append`` from ``--appenders`` asyncio tasks in one process,
  each appending one record per call (canonical JSON, hash chain, Merkle leaf, advisory-lock group
  commit, NOTIFY); p50/p99 latency from call to durable acknowledgement;
- the same with two replica processes appending to the same database at once (one total order);
- baselines: (a) single-row INSERT, one commit each (one connection); (b) COPY of 1,000 pre-built
  rows per transaction.
After each Metis phase: every acknowledged record is in the database and the offline verifier
passes. Start-up: ``open()`` of an empty log and of one with ``--open-records`` records (the tree's
right edge is read from the stored Merkle nodes), next to the rebuild it replaces (reading and
hashing every record), measured on the same log.

Run: ``PYTHONPATH=. .venv/bin/python bench/pg_log.py [--seconds 6] [--appenders 100]``; needs a
local PostgreSQL (``--admin-url``); creates and drops a throwaway database; writes
``bench/results/pg_log.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import json
import os
import secrets
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import psycopg  # noqa: E402

try:
    import uvloop
except ImportError:  # platforms without uvloop
    uvloop = None

from bench.spine_common import REPO, ms, pct, ratio, show, write_result  # noqa: E402
from receipts.log import Entry  # noqa: E402
from receipts.merkle import MerkleTree, leaf_hash  # noqa: E402
from receipts.postgres import COPY, PostgresReceiptLog, upgrade, verify_database  # noqa: E402
from tests.conftest import new_pg_schema  # noqa: E402

TARGET_RPS = 30_000
ADMIN_URL = os.environ.get("METIS_BENCH_PG_ADMIN_URL", "postgresql://postgres@127.0.0.1:5432/postgres")


def payload(i: int) -> dict:
    """A typical event payload (~200 bytes of body), the same as the embedded log's benchmark."""
    return {"ability": "t_emit", "revision": 1, "kind": "plan_delta", "payload": {"i": i, "v": i * 7919 % 1000003}}


@contextlib.contextmanager
def throwaway_database(admin_url: str) -> Iterator[str]:
    """A new database ``metis_bench_<random>`` (its URL), dropped afterwards whatever happens."""
    db = "metis_bench_" + secrets.token_hex(4)
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {db}")
    try:
        yield admin_url.rsplit("/", 1)[0] + "/" + db
    finally:
        with psycopg.connect(admin_url, autocommit=True) as admin:
            admin.execute(f"DROP DATABASE IF EXISTS {db} WITH (FORCE)")


def fresh_schema(db_url: str) -> str:
    """A URL on a new schema of ``db_url`` with the receipt-log migrations applied."""
    url = new_pg_schema(db_url)
    upgrade(url)
    return url


def raw_rows(start: int, n: int) -> list[tuple]:
    body = json.dumps({"v": 1, "payload": "x" * 200}).encode()
    hsh = hashlib.sha256(body).hexdigest()
    return [(s, "event", "bench", "acme", "t", "a", None, "acme\x1ft", body, hsh) for s in range(start, start + n)]


def raw_insert(url: str, seconds: float) -> dict:
    """One pre-built row per INSERT, one commit each: the per-commit ceiling."""
    sql = ("INSERT INTO records (seq, type, name, tenant, topic, action_id, ref, stream, body, hash) "
           "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)")
    seq = 0
    with psycopg.connect(url, autocommit=True) as conn:
        t0 = time.perf_counter()
        end = t0 + seconds
        while time.perf_counter() < end:
            seq += 1
            conn.execute(sql, raw_rows(seq, 1)[0])
        elapsed = time.perf_counter() - t0
    return {"records_per_commit": 1, "records": seq, "seconds": round(elapsed, 3),
            "records_per_s": round(seq / elapsed, 1)}


def raw_copy(url: str, seconds: float, per_txn: int = 1000) -> dict:
    """COPY of ``per_txn`` pre-built rows per transaction: the bulk ceiling."""
    seq = 0
    with psycopg.connect(url) as conn:
        t0 = time.perf_counter()
        end = t0 + seconds
        while time.perf_counter() < end:
            with conn.transaction(), conn.cursor().copy(COPY) as copy:
                for row in raw_rows(seq + 1, per_txn):
                    copy.write_row(row)
            seq += per_txn
        elapsed = time.perf_counter() - t0
    return {"records_per_commit": per_txn, "records": seq, "seconds": round(elapsed, 3),
            "records_per_s": round(seq / elapsed, 1)}


def postgres_cpu_s() -> float:
    """CPU seconds used so far by the local PostgreSQL server's processes (all of them: backends,
    WAL writer, checkpointer), from /proc; 0 where it cannot be read."""
    total = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if (entry / "comm").read_text().strip() != "postgres":
                continue
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def thread_cpu_s(thread: object) -> float:
    ident = getattr(thread, "ident", None)
    return time.clock_gettime(time.pthread_getcpuclockid(ident)) if ident else 0.0


async def metis_appends(url: str, keys: Path, seconds: float, appenders: int, name: str = "r1") -> dict:
    rlog = PostgresReceiptLog(url, keys)
    rlog.open()
    rlog.bind_loop(asyncio.get_running_loop())
    cpu0, writer0, pg0 = time.process_time(), thread_cpu_s(rlog._writer), postgres_cpu_s()
    moved0, locked0 = getattr(rlog, "moved_total", 0), getattr(rlog, "locked_total", 0)  # (older code: none)
    latencies: list[float] = []
    acked: dict[int, str] = {}
    stop = False

    async def appender(k: int) -> None:
        i = 0
        while not stop:
            entry = Entry("event", "action_checkpoint", "acme", payload(i), topic=f"topic-{k % 10}",
                          action_id=f"act_{name}_{k}", stream=True)
            t = time.perf_counter()
            (rec,) = await rlog.append([entry])
            latencies.append(time.perf_counter() - t)
            acked[rec.seq] = rec.hash
            i += 1

    commits0 = rlog.commits_total
    t0 = time.perf_counter()
    tasks = [asyncio.create_task(appender(k)) for k in range(appenders)]
    await asyncio.sleep(seconds)
    stop = True
    await asyncio.gather(*tasks)
    elapsed = time.perf_counter() - t0
    commits = rlog.commits_total - commits0
    cpu, writer, pg = time.process_time() - cpu0, thread_cpu_s(rlog._writer) - writer0, postgres_cpu_s() - pg0
    moved, locked = getattr(rlog, "moved_total", 0) - moved0, getattr(rlog, "locked_total", 0) - locked0
    rlog.close()
    per = 1e6 / max(1, len(acked))
    return {"appenders": appenders, "acknowledged": len(acked), "seconds": round(elapsed, 3),
            "records_per_s": round(len(acked) / elapsed, 1), "commits": commits,
            "calls_tail_moved": moved, "batches_locked_path": locked,
            "process_cpu_us_per_record": round(cpu * per, 1), "writer_thread_cpu_us_per_record": round(writer * per, 1),
            "postgres_cpu_us_per_record": round(pg * per, 1),
            "records_per_commit": round(len(acked) / max(1, commits), 1),
            "append_p50_ms": ms(pct(latencies, 0.50)), "append_p99_ms": ms(pct(latencies, 0.99)),
            "acked": acked}


REPLICA = textwrap.dedent("""
    import asyncio, json, sys
    from pathlib import Path
    sys.path.insert(0, sys.argv[1])
    from bench.pg_log import metis_appends, run_loop
    r = run_loop(sys.argv[7])(metis_appends(sys.argv[2], Path(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5]),
                                            sys.argv[6]))
    Path(sys.argv[8]).write_text(json.dumps(r))  # a file, not stdout: on uvloop a large answer on a pipe was cut at 64 KB
""")


def run_loop(name: str) -> Callable[[Coroutine[Any, Any, dict]], dict]:
    """``asyncio.run`` on the named event loop (``uvloop``: the server's, through uvicorn)."""
    return uvloop.run if name == "uvloop" and uvloop is not None else asyncio.run  # type: ignore[return-value]


def two_replicas(url: str, keys: Path, seconds: float, appenders: int, loop: str = "asyncio") -> dict:
    """Two replica processes, ``appenders // 2`` appenders each, on the same database at once."""
    outs = [keys.parent / f"replica-{name}.json" for name in ("r1", "r2")]
    procs = [subprocess.Popen([sys.executable, "-c", REPLICA, str(REPO), url, str(keys), str(seconds),
                               str(appenders // 2), name, loop, str(out)])
             for name, out in zip(("r1", "r2"), outs, strict=True)]
    for p in procs:
        if p.wait() != 0:
            raise RuntimeError(f"replica process exited with {p.returncode}")
    runs = [json.loads(out.read_text()) for out in outs]
    acked: dict[int, str] = {}
    for r in runs:
        acked.update({int(k): v for k, v in r["acked"].items()})
    secs = max(r["seconds"] for r in runs)
    return {"replicas": 2, "appenders": appenders, "acknowledged": len(acked), "seconds": secs,
            "records_per_s": round(len(acked) / secs, 1),
            "no_seq_twice": len(acked) == sum(len(r["acked"]) for r in runs),
            "append_p50_ms": max(r["append_p50_ms"] for r in runs),
            "append_p99_ms": max(r["append_p99_ms"] for r in runs),
            "calls_tail_moved": sum(r["calls_tail_moved"] for r in runs),
            "batches_locked_path": sum(r["batches_locked_path"] for r in runs),
            "process_cpu_us_per_record": [r["process_cpu_us_per_record"] for r in runs], "acked": acked}


def check(url: str, keys: Path, run: dict) -> dict:
    """Every acknowledged record stored with its hash; the verifier passes."""
    acked = run.pop("acked")
    with psycopg.connect(url) as conn:
        stored = dict(conn.execute("SELECT seq, hash FROM records").fetchall())
    t = time.perf_counter()
    report = verify_database(url, keys)
    return {**run, "on_disk": len(stored), "all_acknowledged_on_disk": all(stored.get(s) == h for s, h in acked.items()),
            "verify_ok": report.ok, "verify_checked": report.checked,
            "verify_seconds": round(time.perf_counter() - t, 3)}


def fill(url: str, keys: Path, records: int) -> None:
    """``records`` records appended through the log in large batches."""
    rlog = PostgresReceiptLog(url, keys)
    rlog.open()
    try:
        done = 0
        while done < records:
            n = min(4096, records - done)
            rlog.append_sync([Entry("event", "action_checkpoint", "acme", payload(done + i), topic="t",
                                    action_id=f"act_{(done + i) % 100}", stream=True) for i in range(n)])
            done += n
    finally:
        rlog.close()


def timed_open(url: str, keys: Path, repeat: int = 3) -> tuple[float, int]:
    """Fastest of ``repeat`` opens (seconds) and the tree size it found."""
    best, size = float("inf"), -1
    for _ in range(repeat):
        rlog = PostgresReceiptLog(url, keys)
        t = time.perf_counter()
        rlog.open()
        best = min(best, time.perf_counter() - t)
        size = rlog.tree_size
        rlog.close()
    return best, size


def rebuild_seconds(url: str) -> float:
    """What opening cost before the nodes were stored: read every record, hash it into the tree."""
    t = time.perf_counter()
    with psycopg.connect(url) as conn, conn.cursor(name="rebuild") as cur:
        cur.itersize = 10000
        cur.execute("SELECT body FROM records ORDER BY seq")
        MerkleTree(leaf_hash(bytes(b)) for (b,) in cur)
    return time.perf_counter() - t


def open_times(db_url: str, keys: Path, records: int) -> dict:
    """Start-up time of an empty log and of one of ``records`` records, and the rebuild baseline."""
    empty_url, big_url = fresh_schema(db_url), fresh_schema(db_url)
    t = time.perf_counter()
    fill(big_url, keys, records)
    fill_s = time.perf_counter() - t
    empty_s, _ = timed_open(empty_url, keys)
    big_s, size = timed_open(big_url, keys)
    rebuild_s = rebuild_seconds(big_url)
    return {"records": size, "fill_seconds": round(fill_s, 2), "open_empty_ms": ms(empty_s), "open_large_ms": ms(big_s),
            "rebuild_from_records_ms": ms(rebuild_s), "open_large_vs_empty": ratio(big_s, empty_s),
            "open_large_vs_rebuild": ratio(big_s, rebuild_s)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=6.0, help="duration of each Metis phase")
    ap.add_argument("--appenders", type=int, default=100)
    ap.add_argument("--open-records", type=int, default=200_000, help="log size for the start-up figure")
    ap.add_argument("--admin-url", default=ADMIN_URL)
    ap.add_argument("--loop", choices=("uvloop", "asyncio"), default="uvloop" if uvloop else "asyncio",
                    help="event loop of the appenders (default: uvloop, the server's, when installed)")
    ap.add_argument("--smoke", action="store_true", help="seconds-long run for CI; results not committed")
    args = ap.parse_args()
    if args.smoke:
        args.seconds, args.appenders, args.open_records = 1.0, 20, 2_000
    load_before = [round(x, 2) for x in os.getloadavg()]
    with throwaway_database(args.admin_url) as db_url, tempfile.TemporaryDirectory() as scratch:
        keys = Path(scratch) / "keys"
        insert = raw_insert(fresh_schema(db_url), args.seconds / 2)
        copy = raw_copy(fresh_schema(db_url), args.seconds / 2)
        url1 = fresh_schema(db_url)
        one = check(url1, keys, run_loop(args.loop)(metis_appends(url1, keys, args.seconds, args.appenders)))
        url2 = fresh_schema(db_url)
        two = check(url2, keys, two_replicas(url2, keys, args.seconds, args.appenders, args.loop))
        opening = open_times(db_url, keys, args.open_records)
    result = {
        "benchmark": "pg_log",
        "metis_one_replica": one,
        "metis_two_replicas": two,
        "baseline_single_row_insert": insert,
        "baseline_copy_1000_per_txn": copy,
        "start_up": opening,
        "load_average_at_start": load_before,
        "event_loop": args.loop,
        "ratio_vs_single_row_insert": ratio(one["records_per_s"], insert["records_per_s"]),
        "ratio_vs_copy_1000": ratio(one["records_per_s"], copy["records_per_s"]),
        # each appender waits for its append, so one commit carries at most `appenders` records: the rate
        # can not exceed appenders x commits/s of this server (the single-row INSERT baseline measures one commit)
        "closed_loop_ceiling_records_per_s": round(args.appenders * insert["records_per_s"], 1),
        "ratio_vs_closed_loop_ceiling": ratio(one["records_per_s"], args.appenders * insert["records_per_s"]),
        "targets": {"records_per_s": TARGET_RPS},
        "met": {"records_per_s": one["records_per_s"] >= TARGET_RPS,
                "durability": all(r["all_acknowledged_on_disk"] and r["verify_ok"] for r in (one, two))},
    }
    path = write_result("pg_log", result, args.smoke)
    show("PostgreSQL receipt log: durable appends", [
        (f"records/s ({args.appenders} appenders, 1 replica)", f"{one['records_per_s']:,.0f}",
         f"{insert['records_per_s']:,.0f}", f"{result['ratio_vs_single_row_insert']:.2f}x"),
        ("  vs raw COPY 1,000/txn", "", f"{copy['records_per_s']:,.0f}", f"{result['ratio_vs_copy_1000']:.2f}x"),
        ("  vs appenders x commits/s (ceiling)", "", f"{result['closed_loop_ceiling_records_per_s']:,.0f}",
         f"{result['ratio_vs_closed_loop_ceiling']:.2f}x"),
        ("records/s (2 replicas at once)", f"{two['records_per_s']:,.0f}", "", ""),
        ("records per commit (1 replica)", f"{one['records_per_commit']}", "1 / 1000", ""),
        ("append p50 / p99 ms (1 replica)", f"{one['append_p50_ms']} / {one['append_p99_ms']}", "", ""),
        ("append p50 / p99 ms (2 replicas)", f"{two['append_p50_ms']} / {two['append_p99_ms']}", "", ""),
        ("acked all on disk, verify ok", f"{result['met']['durability']}", "", ""),
        (f"open ms, {opening['records']:,} records vs empty log", f"{opening['open_large_ms']}",
         f"{opening['open_empty_ms']}", f"{opening['open_large_vs_empty']:.2f}x"),
        ("  vs rebuilding the tree from every record", "", f"{opening['rebuild_from_records_ms']}",
         f"{opening['open_large_vs_rebuild']:.2f}x"),
        ("load average (start / end)", f"{load_before} / {[round(x, 2) for x in os.getloadavg()]}", "", ""),
    ])
    print(f"met: {result['met']}\nwrote {path}")


if __name__ == "__main__":
    main()
