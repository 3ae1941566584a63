"""Spine benchmark 1: durable appends to the receipt log from 100 concurrent appenders.

Figures (each next to a baseline measured in the same run, on the same disk):
- records/s of ``ReceiptLog.append`` (hash chain, canonical JSON, Merkle leaf, group commit
  with one fsync per batch) from ``--appenders`` asyncio tasks each appending one record per
  call in a loop; p50/p99 append latency (call -> durable acknowledgement);
- baselines: raw ``sqlite3`` on the same schema, WAL, ``synchronous=FULL``, pre-built rows,
  (a) one record per commit, (b) 100 records per commit, (c) 100 per commit of rows shaped like
  the appenders' (same body size, one action per appender, ten topics): each commit then
  touches a leaf page of the action index per appender, which (b), one action and one topic,
  does not; (c) is what SQLite alone does with this load.
The appenders run on uvloop when it is installed (the server's loop, through uvicorn).
After the run: every acknowledged record is in the database (count) and
``receipts.verify.verify_data_dir`` passes.

Where the time goes: CPU per record of the event loop's thread and of each of the log's threads
(``receipt-log-*``, read from their CPU clocks, so it works on any version of the log), and, where
the log keeps ``stats``, the writer's build and SQLite time per record, the sync time, records per
sync and the hand-back delay (sync done -> the loop's callback runs). Also the disk's own
``fdatasync`` latency after a 4 KB write on the same file system, measured in the same round.

Run: ``PYTHONPATH=. .venv/bin/python bench/spine_log.py [--seconds 8] [--appenders 100]``;
writes ``bench/results/spine_log.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import gc
import hashlib
import os
import shutil
import sqlite3
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

try:
    import uvloop
except ImportError:  # platforms without uvloop
    uvloop = None

from bench.spine_common import REPO, ms, pct, ratio, show, write_result  # noqa: E402
from receipts.log import (  # noqa: E402
    DB_FILE,
    INSERT,
    SCHEMA,
    Entry,
    ReceiptLog,
    build_body,
    connect,
    stream_key,
    utc_now,
)
from receipts.verify import verify_data_dir  # noqa: E402

TARGET_RPS = 50_000
# The baselines index records by action and by stream the way SQLite does it for any such table
# (and the log did before it wrote those indexes in bulk), so they stay the same across versions.
RAW_ACTION_INDEX = "CREATE INDEX IF NOT EXISTS records_action ON records(action_id, seq) WHERE action_id IS NOT NULL"
RAW_STREAM_INDEX = "CREATE INDEX IF NOT EXISTS records_stream ON records(stream, seq) WHERE stream IS NOT NULL"
TARGET_P99_MS = 10.0


def payload(i: int) -> dict:
    """A typical event payload (~200 bytes of body): what a checkpoint record carries."""
    return {"ability": "t_emit", "revision": 1, "kind": "plan_delta", "payload": {"i": i, "v": i * 7919 % 1000003}}


def entry(k: int, i: int) -> Entry:
    """Appender k's i-th record: its own action, one of ten topics."""
    return Entry("event", "action_checkpoint", "acme", payload(i), topic=f"topic-{k % 10}", action_id=f"act_{k}",
                 stream=True)


def raw_sqlite(path: Path, seconds: float, per_commit: int, appenders: int = 0) -> dict:
    """Raw inserts of pre-built rows, same schema and pragmas as the log: the disk+SQLite ceiling.
    With ``appenders``, rows are shaped like theirs (body size, action and topic keys)."""
    conn = connect(path)
    conn.executescript(SCHEMA)
    conn.execute(RAW_ACTION_INDEX)
    conn.execute(RAW_STREAM_INDEX)
    if appenders:
        body = build_body(10**6, utc_now(), entry(0, 0), "0" * 64)
        keys = [(f"topic-{k % 10}", f"act_{k}") for k in range(appenders)]
    else:
        body = b'{"v":1,"payload":' + b"x" * 240 + b"}"
        keys = [("t", "a")]
    hsh = hashlib.sha256(body).hexdigest()
    seq = conn.execute("SELECT COALESCE(MAX(seq), 0) FROM records").fetchone()[0]
    commits = 0
    t0 = time.perf_counter()
    end = t0 + seconds
    while time.perf_counter() < end:
        rows = []
        for _ in range(per_commit):
            seq += 1
            topic, action = keys[seq % len(keys)]
            rows.append((seq, "event", "action_checkpoint", "acme", topic, action, None, stream_key("acme", topic),
                         body, hsh))
        conn.execute("BEGIN IMMEDIATE")
        conn.executemany(INSERT, rows)
        conn.execute("COMMIT")
        commits += 1
    elapsed = time.perf_counter() - t0
    conn.close()
    return {"records_per_commit": per_commit, "commits": commits, "records": commits * per_commit,
            "seconds": round(elapsed, 3), "records_per_s": round(commits * per_commit / elapsed, 1),
            "commits_per_s": round(commits / elapsed, 1)}


def fsync_probe(path: Path, seconds: float) -> dict:
    """The disk's sync latency as the log sees it: append 4 KB to a file, ``fdatasync``, repeat."""
    sync = getattr(os, "fdatasync", os.fsync)
    times: list[float] = []
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        block = b"x" * 4096
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            os.write(fd, block)
            t = time.perf_counter()
            sync(fd)
            times.append(time.perf_counter() - t)
    finally:
        os.close(fd)
    return {"syncs": len(times), "p50_ms": ms(pct(times, 0.5)), "p99_ms": ms(pct(times, 0.99))}


def thread_clocks(rlog: ReceiptLog) -> dict[str, int]:
    """CPU clock ids of the log's threads (writer, and the syncer where there is one)."""
    out = {}
    for t in threading.enumerate():
        if t.name.startswith("receipt-log-") and t.ident is not None:
            out[t.name.removeprefix("receipt-log-")] = time.pthread_getcpuclockid(t.ident)
    return out


def log_stats(rlog: ReceiptLog) -> dict[str, float]:
    stats = getattr(rlog, "stats", None)  # (older logs keep none)
    return dataclasses.asdict(stats) if dataclasses.is_dataclass(stats) else {}


async def metis_appends(data_dir: Path, seconds: float, appenders: int, log_args: dict | None = None,
                        freeze: bool = True) -> dict:
    rlog = ReceiptLog(data_dir, **(log_args or {}))
    rlog.open()
    rlog.bind_loop(asyncio.get_running_loop())
    if freeze:  # as the server does once started (orchestrator/app.py): full GC passes skip what is loaded
        gc.freeze()
    latencies: list[float] = []
    acked = 0
    stop = False

    async def appender(k: int) -> None:
        nonlocal acked
        i = 0
        while not stop:
            e = entry(k, i)
            t = time.perf_counter()
            recs = await rlog.append([e])
            latencies.append(time.perf_counter() - t)
            acked += len(recs)
            i += 1

    commits0 = rlog.commits_total
    clocks = thread_clocks(rlog)
    thread0 = {k: time.clock_gettime(c) for k, c in clocks.items()}
    stats0 = log_stats(rlog)
    cpu0 = time.process_time()
    t0 = time.perf_counter()
    tasks = [asyncio.create_task(appender(k)) for k in range(appenders)]
    await asyncio.sleep(seconds)
    stop = True
    await asyncio.gather(*tasks)
    elapsed = time.perf_counter() - t0
    cpu = time.process_time() - cpu0
    threads = {k: time.clock_gettime(c) - thread0[k] for k, c in clocks.items()}
    stats = {k: v - stats0[k] for k, v in log_stats(rlog).items()}
    commits = rlog.commits_total - commits0
    ckpt = getattr(rlog, "checkpointer", None)  # (older logs checkpoint inside a commit)
    checkpoints = ({"checkpoints": ckpt.runs, "complete": ckpt.complete, "wal_frames_max": ckpt.frames_max,
                    "gated": ckpt.gated, "gate_ms_max": round(ckpt.gate_max_s * 1e3, 3),
                    "gate_ms_mean": round(ckpt.gate_s / max(1, ckpt.gated) * 1e3, 3)} if ckpt is not None else {})
    wal = data_dir / (DB_FILE + "-wal")
    wal_mb = round(wal.stat().st_size / 1e6, 1) if wal.exists() else 0.0
    rlog.close()
    conn = sqlite3.connect(data_dir / DB_FILE)
    on_disk = conn.execute("SELECT COUNT(*) FROM records").fetchone()[0]
    conn.close()
    t = time.perf_counter()
    report = verify_data_dir(data_dir)
    verify_s = time.perf_counter() - t
    per = 1e6 / max(1, acked)
    where = {f"{k}_thread_cpu_us_per_record": round(v * per, 2) for k, v in threads.items()}
    where["loop_thread_cpu_us_per_record"] = round((cpu - sum(threads.values())) * per, 2)
    if stats:
        syncs = max(1, stats["syncs"])
        where.update({"build_us_per_record": round(stats["build_s"] * per, 2),
                      "sqlite_us_per_record": round(stats["sqlite_s"] * per, 2),
                      "sync_ms_mean": round(stats["sync_s"] / syncs * 1e3, 3),
                      "records_per_sync": round(acked / syncs, 1),
                      "hand_back_ms_mean": round(stats["deliver_delay_s"] / max(1, stats["deliveries"]) * 1e3, 3)})
    return {"appenders": appenders, "acknowledged": acked, "on_disk": on_disk, "seconds": round(elapsed, 3),
            "records_per_s": round(acked / elapsed, 1), "commits": commits,
            "records_per_commit": round(acked / max(1, commits), 1),
            "cpu_us_per_record": round(cpu / max(1, acked) * 1e6, 2), "where": where, "wal_mb_at_end": wal_mb,
            "checkpointer": checkpoints,
            "append_p50_ms": ms(pct(latencies, 0.50)), "append_p99_ms": ms(pct(latencies, 0.99)),
            "all_acknowledged_on_disk": on_disk == acked, "verify_ok": report.ok,
            "verify_checked": report.checked, "verify_seconds": round(verify_s, 3)}


def merge(runs: list[dict]) -> dict:
    """Sum the rounds of one phase: rates over the total time, latency percentiles of the worst round."""
    out = dict(runs[-1])
    secs = sum(r["seconds"] for r in runs)
    count = "acknowledged" if "acknowledged" in runs[0] else "records"
    for key in (count, "on_disk", "commits", "verify_checked"):
        if key in runs[0]:
            out[key] = sum(r[key] for r in runs)
    out["seconds"] = round(secs, 3)
    out["records_per_s"] = round(out[count] / secs, 1)
    out["per_round_records_per_s"] = [r["records_per_s"] for r in runs]
    if "append_p50_ms" in runs[0]:
        out["append_p50_ms"] = max(r["append_p50_ms"] for r in runs)
        out["append_p99_ms"] = max(r["append_p99_ms"] for r in runs)
        out["records_per_commit"] = round(out[count] / max(1, out["commits"]), 1)
        out["cpu_us_per_record"] = sorted(r["cpu_us_per_record"] for r in runs)
        out["all_acknowledged_on_disk"] = all(r["all_acknowledged_on_disk"] for r in runs)
        out["verify_ok"] = all(r["verify_ok"] for r in runs)
        out["where"] = [r["where"] for r in runs]
    else:
        out["commits_per_s"] = round(out["commits"] / secs, 1)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=5.0, help="duration of the Metis phase per round")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--appenders", type=int, default=100)
    ap.add_argument("--dir", type=Path, default=None, help="scratch dir (default: a temp dir under bench/)")
    ap.add_argument("--loop", choices=("uvloop", "asyncio"), default="uvloop" if uvloop else "asyncio",
                    help="event loop of the appenders (default: uvloop, the server's, when installed)")
    ap.add_argument("--split-min", type=int, default=None,
                    help="the log's split_min (smallest half of a split commit; 0: never split); default: the log's")
    ap.add_argument("--checkpoint-pages", type=int, default=None,
                    help="the log's checkpoint_pages (WAL pages that trigger a checkpoint); default: the log's")
    ap.add_argument("--no-gc-freeze", action="store_true",
                    help="do not freeze the heap before the appenders start (the server freezes it once started)")
    ap.add_argument("--smoke", action="store_true", help="small N, seconds (CI); results to a temp dir")
    args = ap.parse_args()
    if args.smoke:
        args.seconds, args.rounds, args.appenders = 0.6, 1, 20
    base = Path(tempfile.mkdtemp(prefix="spine_log_", dir=args.dir or REPO / "bench"))
    run = uvloop.run if args.loop == "uvloop" else asyncio.run
    rounds: list[tuple[dict, dict, dict, dict]] = []
    log_args = {k: v for k, v in (("split_min", args.split_min), ("checkpoint_pages", args.checkpoint_pages))
                if v is not None}
    probes: list[dict] = []
    load = [round(x, 2) for x in os.getloadavg()]
    try:
        for k in range(args.rounds):  # interleaved so changing machine load hits every phase alike
            one = raw_sqlite(base / f"raw1-{k}.sqlite3", args.seconds / 2, 1)
            hundred = raw_sqlite(base / f"raw100-{k}.sqlite3", args.seconds / 2, 100)
            shaped = raw_sqlite(base / f"raw100s-{k}.sqlite3", args.seconds / 2, 100, args.appenders)
            probes.append(fsync_probe(base / f"probe-{k}", min(1.0, args.seconds / 4)))
            metis_k = run(metis_appends(base / f"metis-{k}", args.seconds, args.appenders, log_args,
                                        not args.no_gc_freeze))
            rounds.append((one, hundred, shaped, metis_k))
    finally:
        shutil.rmtree(base, ignore_errors=True)
    one, hundred = merge([r[0] for r in rounds]), merge([r[1] for r in rounds])
    shaped, metis = merge([r[2] for r in rounds]), merge([r[3] for r in rounds])
    result = {
        "benchmark": "spine_log",
        "metis": metis,
        "baseline_sqlite_1_per_commit": one,
        "baseline_sqlite_100_per_commit": hundred,
        "baseline_sqlite_100_per_commit_same_rows": shaped,
        "loop": args.loop,
        "gc_freeze": not args.no_gc_freeze,
        "fdatasync_4k_per_round": probes,
        "load_average_at_start": load,
        "ratio_vs_1_per_commit": ratio(metis["records_per_s"], one["records_per_s"]),
        "ratio_vs_100_per_commit": ratio(metis["records_per_s"], hundred["records_per_s"]),
        "ratio_vs_100_per_commit_same_rows": ratio(metis["records_per_s"], shaped["records_per_s"]),
        "targets": {"records_per_s": TARGET_RPS, "append_p99_ms": TARGET_P99_MS},
        "met": {"records_per_s": metis["records_per_s"] >= TARGET_RPS,
                "append_p99_ms": metis["append_p99_ms"] <= TARGET_P99_MS,
                "durability": metis["all_acknowledged_on_disk"] and metis["verify_ok"]},
    }
    path = write_result("spine_log", result, args.smoke)
    show("receipt log: durable appends", [
        ("records/s (100 appenders)", f"{metis['records_per_s']:,.0f}", f"{one['records_per_s']:,.0f}",
         f"{result['ratio_vs_1_per_commit']:.2f}x"),
        ("  vs raw 100/commit", "", f"{hundred['records_per_s']:,.0f}", f"{result['ratio_vs_100_per_commit']:.2f}x"),
        ("  vs raw 100/commit, rows like the appenders'", "", f"{shaped['records_per_s']:,.0f}",
         f"{result['ratio_vs_100_per_commit_same_rows']:.2f}x"),
        ("records per commit", f"{metis['records_per_commit']}", "1 / 100", ""),
        ("process CPU us/record (min/med/max)", "/".join(f"{x:g}" for x in metis["cpu_us_per_record"]), "", ""),
        ("append p50 ms", f"{metis['append_p50_ms']}", "", ""),
        ("append p99 ms", f"{metis['append_p99_ms']}", "", ""),
        ("fdatasync after 4 KB, p50 ms (per round)", "", "/".join(f"{p['p50_ms']:g}" for p in probes), ""),
    ] + [
        (f"  {key} (per round)", "/".join(f"{w.get(key, 0):g}" for w in metis["where"]), "", "")
        for key in sorted({k for w in metis["where"] for k in w})
    ] + [
        ("WAL checkpoints (complete; gated), most frames, gate ms mean/max (last round)",
         "{checkpoints} ({complete}; {gated}), {wal_frames_max}, {gate_ms_mean}/{gate_ms_max}".format(
             **metis["checkpointer"])
         if metis["checkpointer"] else "in commits", "", ""),
        ("acked == on disk", f"{metis['acknowledged']}=={metis['on_disk']}", "", ""),
        ("verify_data_dir ok", f"{metis['verify_ok']}", "", ""),
    ])
    print(f"met: {result['met']}\nwrote {path}")


if __name__ == "__main__":
    main()
