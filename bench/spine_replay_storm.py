"""Spine benchmark 6: an SSE catch-up storm: many readers replay one topic from its start at once.

Build: a fresh data dir gets a topic of ``--events`` events (~``--payload-bytes`` each, with a
float stamp like a progress checkpoint) among ``--noise`` records of other topics, written with
``ReceiptLog`` directly. Then ``metis serve`` starts on it and ``--readers`` raw-socket SSE
clients connect at once with ``Last-Event-ID: 0`` and each reads the whole topic, checking that
it got every event, in order, once.

Figures (each next to a baseline from the same run, same server):
- server RSS growth during the storm (peak minus the idle RSS just before), and after every
  reader has left; baseline: the idle RSS itself;
- ``session.whoami`` round trip p50/p99 of another client polling during the storm; baseline:
  the same client on the idle server just before;
- storm duration, events delivered per second, readers complete and in order.
The server's RSS is read from ``/proc/<pid>/status`` every 50 ms.

Run: ``PYTHONPATH=. .venv/bin/python bench/spine_replay_storm.py [--readers 1000]``; writes
``bench/results/spine_replay_storm.json``. ``--smoke`` runs a small storm in seconds.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import shutil
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import websockets  # noqa: E402

from bench.spine_common import REPO, ms, pct, ratio, show, spread, write_result  # noqa: E402
from receipts.log import Entry, ReceiptLog  # noqa: E402
from tests.support import MetisServer, ToolBus, token_for  # noqa: E402

TOPIC = "storm"
TARGET_RSS_MB = 200.0
TARGET_WHOAMI_P99_MS = 100.0
ID = re.compile(rb"(?:^|\n)id: (\d+)\n")


def build(data_dir: Path, events: int, noise: int, payload_bytes: int) -> list[int]:
    """A log with ``events`` events on TOPIC spread among ``noise`` other records; their seqs."""
    rlog = ReceiptLog(data_dir)
    rlog.open()
    every = max(1, (events + noise) // max(1, events))
    pad = "lorem ipsum dolor sit amet " * (payload_bytes // 27 + 1)
    entries, made = [], 0
    for i in range(events + noise):
        on_topic = made < events and (i % every == 0 or events + noise - i <= events - made)
        made += on_topic
        entries.append(Entry("event", "action_checkpoint", "acme",
                             {"ability": "b_stamp", "revision": 1, "kind": "plan_delta",
                              "payload": {"i": i, "progress": i / (events + noise), "note": pad[:payload_bytes]}},
                             topic=TOPIC if on_topic else f"noise-{i % 7}", action_id=f"act_{i // 100:020d}",
                             stream=True))
    seqs = [r.seq for r in rlog.append_sync(entries) if r.topic == TOPIC]
    rlog.close()
    return seqs


def rss_bytes(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


class RssSampler:
    """Samples a process's RSS every ``interval`` seconds in a thread."""

    def __init__(self, pid: int, interval: float = 0.05) -> None:
        self.pid, self.interval = pid, interval
        self.samples: list[tuple[float, int]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.samples.append((time.monotonic(), rss_bytes(self.pid)))
            self._stop.wait(self.interval)

    def __enter__(self) -> RssSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def peak(self, since: float = 0.0) -> int:
        return max((r for t, r in self.samples if t >= since), default=0)


@dataclass
class ReaderResult:
    ids: list[int] = field(default_factory=list)
    reconnects: int = 0
    error: str | None = None


async def read_topic(port: int, topic: str, last_id: int, timeout: float, token: str,
                     max_reconnects: int = 20) -> ReaderResult:
    """One raw-socket SSE reader from Last-Event-ID 0 until it has read ``last_id``; every id seen.
    Like an EventSource, it reconnects with its last id when the server closes the stream (the
    server drops a reader that leaves a send unread for longer than its send timeout)."""
    out = ReaderResult()
    try:
        async with asyncio.timeout(timeout):
            while not out.ids or out.ids[-1] < last_id:
                if out.reconnects > max_reconnects:
                    out.error = "too many reconnects"
                    break
                await _read_once(port, topic, token, out, last_id)
                if not out.ids or out.ids[-1] < last_id:
                    out.reconnects += 1
    except (TimeoutError, OSError, asyncio.IncompleteReadError) as exc:
        out.error = f"{type(exc).__name__}: {exc}"
    return out


async def _read_once(port: int, topic: str, token: str, out: ReaderResult, last_id: int) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        after = out.ids[-1] if out.ids else 0
        writer.write(f"GET /streams/{topic} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
                     f"Authorization: Bearer {token}\r\nLast-Event-ID: {after}\r\n\r\n".encode())
        head = await reader.readuntil(b"\r\n\r\n")
        if not head.startswith(b"HTTP/1.1 200"):
            raise OSError(f"status {head[:40]!r}")
        carry = b""
        while not out.ids or out.ids[-1] < last_id:
            data = await reader.read(1 << 16)
            if not data:
                return
            buf = carry + data
            cut = buf.rfind(b"\n\n") + 2
            out.ids.extend(int(m) for m in ID.findall(buf, 0, cut) if m)
            carry = buf[cut:] if cut >= 2 else buf
    finally:
        writer.close()


async def poll_whoami(server: MetisServer, stop: asyncio.Event, interval: float, ready: bool = False) -> list[float]:
    """``session.whoami`` round trips until ``stop`` is set. A call that gets no answer counts as
    the time waited (60 s at most); a connection the server let die is counted so and reopened."""
    times: list[float] = []
    while not stop.is_set():
        try:
            async with ToolBus.connect(server) as tb:
                while not stop.is_set():
                    t0 = time.perf_counter()
                    try:
                        await tb.call("session.whoami", {}, timeout=60)
                    finally:
                        times.append(time.perf_counter() - t0)
                    if ready and len(times) == 1:
                        print("ready", flush=True)  # the session is open: timing starts now
                    try:
                        await asyncio.wait_for(stop.wait(), interval)
                    except TimeoutError:
                        pass
        except (TimeoutError, OSError, websockets.ConnectionClosed):
            continue
    return times


async def _probe_main(port: int) -> None:
    """The other client, in its own process (so the readers' parsing cannot delay it): polls
    ``whoami`` until a line arrives on stdin, then prints the round trips as JSON."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    loop.add_reader(sys.stdin.fileno(), stop.set)
    times = await poll_whoami(MetisServer(Path("."), port=port), stop, 0.02, ready=True)
    print(json.dumps(times), flush=True)


class Probe:
    """A ``poll_whoami`` subprocess: ``start()``, later ``await stop()`` -> round trips."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.proc: asyncio.subprocess.Process | None = None

    async def start(self) -> None:
        """Returns once the probe has made its first call (its interpreter start is not timed)."""
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable, __file__, "--probe-port", str(self.port), cwd=REPO,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)
        assert self.proc.stdout is not None
        await self.proc.stdout.readline()

    async def stop(self) -> list[float]:
        assert self.proc is not None and self.proc.stdin is not None
        out, _ = await self.proc.communicate(b"stop\n")
        return json.loads(out.decode().strip().splitlines()[-1])


async def storm(server: MetisServer, seqs: list[int], readers: int, idle_s: float, settle_s: float,
                timeout: float) -> dict:
    """Idle whoami baseline, then the storm with whoami polling, then RSS after everyone left."""
    pid = server.proc.pid
    token = token_for("partner")
    with RssSampler(pid) as rss:
        probe = Probe(server.port)
        await probe.start()
        await asyncio.sleep(idle_s)
        idle = (await probe.stop())[1:]  # the first call opened the session
        rss_idle = rss_bytes(pid)
        t_start = time.monotonic()
        probe = Probe(server.port)
        await probe.start()
        t0 = time.perf_counter()
        results = await asyncio.gather(*(read_topic(server.port, TOPIC, seqs[-1], timeout, token)
                                         for _ in range(readers)))
        elapsed = time.perf_counter() - t0
        during = (await probe.stop())[1:]
        rss_peak = rss.peak(t_start)
        await asyncio.sleep(settle_s)
        rss_after = rss_bytes(pid)
    complete = sum(1 for r in results if r.ids == seqs)
    reconnects = sum(r.reconnects for r in results)
    errors = sorted({r.error for r in results if r.error})[:5]
    delivered = sum(len(r.ids) for r in results)
    mb = 1024 * 1024
    return {
        "readers": readers, "topic_events": len(seqs), "readers_complete_in_order": complete,
        "reader_errors": errors, "reader_reconnects": reconnects, "storm_seconds": round(elapsed, 3),
        "events_delivered_per_s": round(delivered / elapsed, 1),
        "rss_idle_mb": round(rss_idle / mb, 1), "rss_peak_mb": round(rss_peak / mb, 1),
        "rss_growth_mb": round((rss_peak - rss_idle) / mb, 1),
        "rss_after_left_mb": round(rss_after / mb, 1),
        "rss_after_left_growth_mb": round((rss_after - rss_idle) / mb, 1),
        "whoami_idle_p50_ms": ms(pct(idle, 0.5)), "whoami_idle_p99_ms": ms(pct(idle, 0.99)),
        "whoami_storm_p50_ms": ms(pct(during, 0.5)), "whoami_storm_p99_ms": ms(pct(during, 0.99)),
        "whoami_storm_max_ms": ms(max(during, default=0.0)), "whoami_storm_calls": len(during),
    }


def run(readers: int, events: int, noise: int, payload_bytes: int, rounds: int, timeout: float,
        workdir: Path | None = None) -> dict:
    """Build once, then ``rounds`` storms, each on a freshly started server (fresh RSS)."""
    tmp = Path(tempfile.mkdtemp(prefix="spine_storm_", dir=workdir or REPO / "bench"))
    try:
        data_dir = tmp / "data"
        seqs = build(data_dir, events, noise, payload_bytes)
        runs = []
        for _ in range(rounds):
            server = MetisServer(data_dir, extra_args=["--log-level", "warning"]).start(timeout=120)
            try:
                runs.append(asyncio.run(storm(server, seqs, readers, 2.0, 3.0, timeout)))
            finally:
                server.stop()
        return {"runs": runs, "payload_bytes": payload_bytes, "noise_records": noise}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def over(runs: list[dict], key: str) -> str:
    """min/median/max of a figure over the runs."""
    return spread([r[key] for r in runs])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--readers", type=int, default=1000)
    ap.add_argument("--events", type=int, default=840)
    ap.add_argument("--noise", type=int, default=8000)
    ap.add_argument("--payload-bytes", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per reader")
    ap.add_argument("--smoke", action="store_true", help="a small storm in seconds (CI)")
    ap.add_argument("--probe-port", type=int, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.probe_port:
        asyncio.run(_probe_main(args.probe_port))
        return
    if args.smoke:
        args.readers, args.events, args.noise, args.payload_bytes, args.rounds = 20, 60, 200, 500, 1
    res = run(args.readers, args.events, args.noise, args.payload_bytes, args.rounds, args.timeout)
    runs = res["runs"]
    worst_rss = max(r["rss_growth_mb"] for r in runs)
    worst_p99 = max(r["whoami_storm_p99_ms"] for r in runs)
    all_ok = all(r["readers_complete_in_order"] == r["readers"] for r in runs)
    result = {"benchmark": "spine_replay_storm", **res, "smoke": args.smoke,
              "target_rss_growth_mb": TARGET_RSS_MB, "target_whoami_p99_ms": TARGET_WHOAMI_P99_MS,
              "met": worst_rss < TARGET_RSS_MB and worst_p99 < TARGET_WHOAMI_P99_MS and all_ok}
    path = write_result("spine_replay_storm", result, args.smoke)
    r0 = runs[0]
    rows = [
        (f"RSS growth during storm, MB (min/med/max of {len(runs)})", over(runs, "rss_growth_mb"),
         over(runs, "rss_idle_mb") + " idle", f"{ratio(r0['rss_growth_mb'], r0['rss_idle_mb']):.2f}x"),
        ("RSS growth after readers left, MB", over(runs, "rss_after_left_growth_mb"),
         over(runs, "rss_idle_mb") + " idle", ""),
        ("whoami p99 during storm, ms", over(runs, "whoami_storm_p99_ms"), over(runs, "whoami_idle_p99_ms"),
         f"{ratio(r0['whoami_storm_p99_ms'], r0['whoami_idle_p99_ms']):.1f}x"),
        ("whoami p50 during storm, ms", over(runs, "whoami_storm_p50_ms"), over(runs, "whoami_idle_p50_ms"), ""),
        ("storm seconds", over(runs, "storm_seconds"), "", ""),
        ("events delivered/s", over(runs, "events_delivered_per_s"), "", ""),
        ("readers complete, in order, once", over(runs, "readers_complete_in_order"), str(args.readers), ""),
        ("reader reconnects (send timeout)", over(runs, "reader_reconnects"), "", ""),
    ]
    show(f"replay storm: {args.readers} readers x {args.events} events from Last-Event-ID 0", rows)
    print(json.dumps({"reader_errors": [r["reader_errors"] for r in runs]}))
    print(f"met: {result['met']}\nwrote {path}")


if __name__ == "__main__":
    main()
