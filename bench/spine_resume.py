"""Spine benchmark 5: time to the first resumed SSE event with 1,000,000 records in the log.

Build: a fresh data dir is filled by appending directly with ``ReceiptLog`` in big batches
(``--batch`` entries per append), mixing ``--noise-topics`` busy topics with one target topic
that gets every ``--target-every``-th record, plus one "fresh" topic holding a single event
appended last. Then ``metis serve`` starts on that dir (its start-up time is reported: the log
rebuilds its Merkle tree and checks the chain tail on open).

Figures (raw-socket HTTP client, time from starting the TCP connect to reading the first
``id:`` frame; ``--repeat`` connections per case, p50/p99):
- resume the target topic with ``Last-Event-ID`` in the middle of its history, at its start
  (id 0 via the header is "after 0") and just before its end;
- baseline (same run, same server, same log): a fresh topic's first event (one record,
  no Last-Event-ID).
Each resumed stream's first frame is checked to be the topic's next event after the given id.

Run from the repo root: ``PYTHONPATH=. .venv/bin/python bench/spine_resume.py [--records N]``;
writes ``bench/results/spine_resume.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import shutil
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.spine_common import REPO, ms, pct, ratio, show, spread, write_result  # noqa: E402
from receipts.log import DB_FILE, Entry, ReceiptLog  # noqa: E402
from tests.support import MetisServer, token_for  # noqa: E402

TARGET_MS = 20.0
TARGET_TOPIC = "resume-target"
FRESH_TOPIC = "resume-fresh"
ID = re.compile(rb"(?:^|\n)id: (\d+)\n")


def build(data_dir: Path, records: int, batch: int, noise_topics: int, target_every: int) -> dict:
    """Append ``records`` stream records; returns build time and the target topic's seqs."""
    rlog = ReceiptLog(data_dir)
    rlog.open()
    t0 = time.perf_counter()
    futs = []
    i = 0
    while i < records - 1:
        entries = []
        for _ in range(min(batch, records - 1 - i)):
            topic = TARGET_TOPIC if i % target_every == 0 else f"noise-{i % noise_topics}"
            entries.append(Entry("event", "action_checkpoint", "acme",
                                 {"ability": "b_stamp", "revision": 1, "kind": "plan_delta", "payload": {"i": i}},
                                 topic=topic, action_id=f"act_{i // 1000}", stream=True))
            i += 1
        futs.append(entries)
        if len(futs) >= 8:  # back-pressure: wait for every 8th batch to be durable
            for queued in futs[:-1]:
                rlog.submit(queued)
            rlog.append_sync(futs[-1])
            futs.clear()
    for queued in futs:
        rlog.append_sync(queued)
    rlog.append_sync([Entry("event", "action_checkpoint", "acme", {"ability": "b_stamp", "revision": 1,
                                                                    "kind": "plan_delta", "payload": {"i": i}},
                            topic=FRESH_TOPIC, action_id="act_fresh", stream=True)])
    elapsed = time.perf_counter() - t0
    rlog.close()
    conn = sqlite3.connect(data_dir / DB_FILE)
    total = conn.execute("SELECT COUNT(*) FROM records").fetchone()[0]
    seqs = [s for (s,) in conn.execute("SELECT seq FROM records WHERE topic = ? ORDER BY seq", (TARGET_TOPIC,))]
    conn.close()
    return {"records": total, "build_seconds": round(elapsed, 2), "build_records_per_s": round(total / elapsed, 1),
            "target_seqs": seqs}


async def first_event(port: int, topic: str, last_event_id: int | None, drain_to: int | None = None) -> tuple[float, int]:
    """Time to the first ``id:`` frame. With ``drain_to`` the rest of the backlog is then read
    up to that id before hanging up: hanging up mid-backlog makes the server replay the rest to
    a dead socket (see ``abandoned``), and an unread open stream keeps the server busy; either
    would load the next measurement."""
    t0 = time.perf_counter()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    lei = f"Last-Event-ID: {last_event_id}\r\n" if last_event_id is not None else ""
    writer.write(f"GET /streams/{topic} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
                 f"Authorization: Bearer {token_for('partner')}\r\n{lei}\r\n".encode())
    buf = b""
    try:
        while True:
            data = await asyncio.wait_for(reader.read(1 << 16), 30)
            if not data:
                raise RuntimeError(f"stream closed: {buf[:300]!r}")
            buf += data
            body = buf.split(b"\r\n\r\n", 1)
            if len(body) == 2:
                if not body[0].startswith(b"HTTP/1.1 200"):
                    raise RuntimeError(f"status: {body[0][:200]!r}")
                m = ID.search(body[1])
                if m:
                    dt, got = time.perf_counter() - t0, int(m.group(1))
                    mark = f"id: {drain_to}\n".encode()
                    if drain_to is not None and got != drain_to and mark not in body[1]:
                        # (a short backlog may have arrived whole with the first read: then done)
                        tail = body[1][-64:]
                        while True:
                            data = await asyncio.wait_for(reader.read(1 << 20), 60)
                            if not data:
                                raise RuntimeError("stream closed while draining")
                            if mark in tail + data:
                                break
                            tail = data[-64:]
                    return dt, got
    finally:
        writer.close()


async def measure(port: int, cases: dict[str, tuple[str, int | None, int]], repeat: int, pause: float,
                  last: dict[str, int]) -> dict:
    out: dict = {}
    for _ in range(3):  # warm-up
        await first_event(port, FRESH_TOPIC, None)
    times: dict[str, list[float]] = {k: [] for k in cases}
    for _ in range(repeat):  # interleaved so load hits every case alike
        for name, (topic, lei, expect) in cases.items():
            dt, got = await first_event(port, topic, lei, drain_to=last[topic])
            if got != expect:
                raise RuntimeError(f"{name}: first id {got}, expected {expect}")
            times[name].append(dt)
            await asyncio.sleep(pause)
    for name, (topic, lei, expect) in cases.items():
        out[name] = {"topic": topic, "last_event_id": lei, "first_id": expect,
                     "p50_ms": ms(pct(times[name], 0.5)), "p99_ms": ms(pct(times[name], 0.99)),
                     "max_ms": ms(max(times[name])), "connections": len(times[name])}
    return out


def log_open_seconds(data_dir: Path, times: int = 3) -> list[float]:
    """``ReceiptLog.open()`` + ``close()`` on a data dir, ``times`` times (the log's share of start-up)."""
    out = []
    for _ in range(times):
        t = time.perf_counter()
        rlog = ReceiptLog(data_dir)
        rlog.open()
        out.append(time.perf_counter() - t)
        rlog.close()
    return out


def server_start(data_dir: Path) -> tuple[float, float]:
    """Seconds until ``/healthz`` answers, and the server's RSS (MB) right then; the server is stopped."""
    server = MetisServer(data_dir, extra_args=["--log-level", "warning"])
    t = time.perf_counter()
    server.start(timeout=600)
    try:
        return time.perf_counter() - t, rss_mb(server.proc.pid)
    finally:
        server.stop()


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) / 1024 for line in f if line.startswith("VmRSS:"))


async def healthz(port: int) -> float:
    t0 = time.perf_counter()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
    await reader.read()
    writer.close()
    return time.perf_counter() - t0


async def abandoned(port: int, after_id: int, backlog: int, repeat: int, pause: float) -> dict:
    """Diagnostic: a client resumes with ``backlog`` events still to come, reads one frame and
    hangs up; how long does ``/healthz`` take right after, vs when idle? (A server that stops the
    replay when the client leaves answers at the idle time.)"""
    idle, after = [], []
    for _ in range(repeat):
        await asyncio.sleep(pause)
        idle.append(await healthz(port))
        await first_event(port, TARGET_TOPIC, after_id)
        after.append(await healthz(port))
        await asyncio.sleep(pause)
    return {"backlog_events_abandoned": backlog, "healthz_idle_p50_ms": ms(pct(idle, 0.5)),
            "healthz_after_abandoned_resume_p50_ms": ms(pct(after, 0.5)),
            "healthz_after_abandoned_resume_max_ms": ms(max(after)), "repeat": repeat}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", type=int, default=1_000_000)
    ap.add_argument("--batch", type=int, default=4096)
    ap.add_argument("--noise-topics", type=int, default=9)
    ap.add_argument("--target-every", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--pause", type=float, default=0.05, help="seconds between connections")
    ap.add_argument("--abandon-backlog", type=int, default=10_000,
                    help="events left unread by the hung-up client of the abandoned-resume diagnostic")
    ap.add_argument("--abandon-repeat", type=int, default=3)
    ap.add_argument("--startup-rounds", type=int, default=3, help="start-ups measured (and on an empty log)")
    ap.add_argument("--keep", type=Path, default=None, help="build into / reuse this data dir (kept)")
    ap.add_argument("--smoke", action="store_true", help="small N, seconds (CI); results to a temp dir")
    args = ap.parse_args()
    if args.smoke:
        args.records, args.repeat, args.pause, args.abandon_backlog, args.abandon_repeat = 10_000, 3, 0.0, 50, 1
        args.startup_rounds = 1
    tmp = Path(tempfile.mkdtemp(prefix="spine_resume_", dir=REPO / "bench"))
    data_dir = args.keep or tmp / "data"
    try:
        if args.keep and (data_dir / DB_FILE).exists():
            conn = sqlite3.connect(data_dir / DB_FILE)
            seqs = [s for (s,) in conn.execute("SELECT seq FROM records WHERE topic = ? ORDER BY seq", (TARGET_TOPIC,))]
            info = {"records": conn.execute("SELECT COUNT(*) FROM records").fetchone()[0], "reused": True,
                    "target_seqs": seqs}
            conn.close()
        else:
            info = build(data_dir, args.records, args.batch, args.noise_topics, args.target_every)
        seqs = info.pop("target_seqs")
        mid = len(seqs) // 2
        cases = {
            "baseline_fresh_topic": (FRESH_TOPIC, None, info["records"]),
            "resume_middle": (TARGET_TOPIC, seqs[mid], seqs[mid + 1]),
            "resume_start": (TARGET_TOPIC, 0, seqs[0]),
            "resume_near_end": (TARGET_TOPIC, seqs[-2], seqs[-1]),
        }
        # start-up and memory against the same server on an empty log (same run), interleaved
        empty = tmp / "empty"
        ReceiptLog(empty).open()
        opens, opens_empty, starts, starts_empty, rss, rss_empty = [], [], [], [], [], []
        for _ in range(args.startup_rounds):
            opens += log_open_seconds(data_dir, 1)
            opens_empty += log_open_seconds(empty, 1)
            s, r = server_start(data_dir)
            starts.append(s)
            rss.append(r)
            s, r = server_start(empty)
            starts_empty.append(s)
            rss_empty.append(r)
        startup = sorted(starts)[len(starts) // 2]
        server = MetisServer(data_dir, extra_args=["--log-level", "warning"])
        server.start(timeout=600)
        try:
            figs = asyncio.run(measure(server.port, cases, args.repeat, args.pause,
                                       {TARGET_TOPIC: seqs[-1], FRESH_TOPIC: info["records"]}))
            k = min(args.abandon_backlog, len(seqs) - 1)
            stall = asyncio.run(abandoned(server.port, seqs[-k - 1], k, args.abandon_repeat, 1.0))
        finally:
            server.stop()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    base = figs["baseline_fresh_topic"]["p50_ms"]
    worst = max(figs[k]["p50_ms"] for k in figs if k.startswith("resume"))
    result = {"benchmark": "spine_resume", "log": info, "server_startup_seconds": round(startup, 2),
              "startup": {"log_open_s": opens, "log_open_empty_s": opens_empty, "server_start_s": starts,
                          "server_start_empty_s": starts_empty, "server_rss_mb": rss, "server_rss_empty_mb": rss_empty},
              "target_topic_events": len(seqs), "figures": figs, "abandoned_resume": stall,
              "ratios_p50_vs_fresh": {k: ratio(v["p50_ms"], base) for k, v in figs.items()},
              "target_ms": TARGET_MS, "met": worst <= TARGET_MS}
    path = write_result("spine_resume", result, args.smoke)
    rows = [(f"{k} p50/p99 ms", f"{v['p50_ms']}/{v['p99_ms']}",
             f"{figs['baseline_fresh_topic']['p50_ms']}/{figs['baseline_fresh_topic']['p99_ms']}",
             f"{ratio(v['p50_ms'], base):.2f}x") for k, v in figs.items() if k != "baseline_fresh_topic"]
    rows.append((f"healthz after abandoning {stall['backlog_events_abandoned']} backlog events, p50 ms", f"{stall['healthz_after_abandoned_resume_p50_ms']}",
                 f"{stall['healthz_idle_p50_ms']}",
                 f"{ratio(stall['healthz_after_abandoned_resume_p50_ms'], stall['healthz_idle_p50_ms']):.1f}x"))
    rows.append(("records in log", f"{info['records']:,}", "", ""))
    rows.append((f"log open s (min/med/max of {len(opens)})", spread(opens, ".3g"), spread(opens_empty, ".3g") + " empty", ""))
    rows.append(("server start-up s", spread(starts, ".3g"), spread(starts_empty, ".3g") + " empty", ""))
    rows.append(("server RSS after start MB", spread(rss, ".3g"), spread(rss_empty, ".3g") + " empty",
                 f"{ratio(sorted(rss)[len(rss) // 2], sorted(rss_empty)[len(rss_empty) // 2]):.2f}x"))
    if "build_records_per_s" in info:
        rows.append(("build: ReceiptLog batched appends/s", f"{info['build_records_per_s']:,.0f}", "", ""))
    show("resume with Last-Event-ID", rows)
    print(f"met: {result['met']}\nwrote {path}")


if __name__ == "__main__":
    main()
