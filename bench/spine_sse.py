"""Spine benchmark 4: SSE fan-out of one topic to 1 and to 500 real HTTP subscribers.

Figures (each next to a baseline measured in the same run, with the same clients):
- delivered events/s summed over all subscribers, at 1 and at ``--many`` (500) subscribers on
  one topic, live: subscribers connect to ``/streams/{topic}`` first, then one ``b_stamp``
  action (``bench/spine_abilities.py``) emits N checkpoints as fast as the pipeline takes them;
- append -> delivery latency p50/p99: the emit wall-clock time stamped in each payload by the
  ability, to the moment the client reads the frame (same machine clock);
- baseline: a bare sse-starlette ``EventSourceResponse`` over a generator yielding N frames of
  the same shape and size (with the yield time stamped), served by uvicorn in its own process,
  read by the same clients.
- the 1-subscriber burst is short and its rate moves with the machine's load from one second to
  the next: baseline and Metis run in turns ``--repeat-one`` times, the pair with the median
  ratio is reported and every ratio is kept.
- what the 1-subscriber figure compares: Metis' whole path (the worker process running the
  action, its pipe, the scheduler, the durable log's writer and syncer, the hub, the SSE
  response), timed from the first frame the client reads to the last, against a generator of
  ready-made strings. So each turn also reports the CPU per event of each process (server,
  Metis' worker, client), the log commits the burst took, and a replay of the same records once
  durable (``Last-Event-ID: 0``, one subscriber), next to that turn's baseline: the SSE response
  alone, without the producer.
- for the paced many-subscriber phase, two parts of that latency: the record's ``ts`` (set by the
  log's writer as it builds the record, before the commit) -> read, and the server's own commit ->
  sent histogram (``metis_sse_delivery_lag_seconds``, read from ``/metrics`` before and after;
  bucket bounds); and the system share of the server's CPU (the socket writes).
Clients are raw asyncio sockets (HTTP/1.1 GET, chunked body), not httpx: 500 httpx streams
in one Python process cost several times more client CPU than the server spends, which would
measure the client. Each is an asyncio protocol (a callback per read, no task) on uvloop
(``--client-loop asyncio`` for the standard loop; rounds before the fourth read with stream
readers on the standard loop, ~21 us of client CPU per frame against ~15 now). Every subscriber counts frames; the first ``--parsed`` subscribers also
parse each frame's stamp for latency. The client's CPU seconds per frame are reported, since
client and server share the 2 cores. At 1 subscriber Metis is bounded by its producer (worker
-> scheduler -> durable log commit), so the producer's own rate is reported too.

Run from the repo root: ``PYTHONPATH=. .venv/bin/python bench/spine_sse.py``; writes
``bench/results/spine_sse.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.spine_common import REPO, WARM_WORKERS_ENV, ms, pct, ratio, show, write_result  # noqa: E402
from tests.support import MetisServer, ToolBus, free_port, token_for  # noqa: E402

TARGET_RATIO = 0.8  # the goal for 1 subscriber
TARGET_P99_MS = 50.0
STAMP = re.compile(rb'"t":([0-9]+\.[0-9]+)')
RECORD_TS = re.compile(rb'"ts":"([0-9T:.-]+)Z"')  # when the log's writer built the record (before its commit)
LAG_BUCKET = re.compile(r'^metis_sse_delivery_lag_seconds_bucket\{le="([^"]+)"\} (\S+)$', re.M)
END = b"event: action_completed"
ABILITIES = "tests.abilities_testing:ABILITIES,bench.spine_abilities:ABILITIES"


def serve_baseline(port: int) -> None:
    """A bare sse-starlette app: each connection gets a generator of ``n`` stamped frames."""
    import uvicorn
    from sse_starlette.sse import EventSourceResponse
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.routing import Route

    async def stream(request: Request) -> EventSourceResponse:
        n = int(request.query_params.get("n", "1000"))
        interval = float(request.query_params.get("interval", "0"))
        head = '{"action_id":"act_0123456789abcdef0123","topic":"bench","seq":'
        tail = (',"ts":"2026-01-01T00:00:00.000000Z","ability":"b_stamp","revision":1,"kind":"plan_delta",'
                '"receipt_hash":"' + "0" * 64 + '","payload":{"i":0,"pad":"","t":')

        async def gen():  # noqa: ANN202
            for i in range(n):
                yield f"id: {i + 1}\nevent: action_checkpoint\ndata: {head}{i + 1}{tail}{time.time()}}}}}\n\n".encode()
                if interval:
                    await asyncio.sleep(interval)
            yield f"id: {n + 1}\nevent: action_completed\ndata: {{}}\n\n".encode()

        return EventSourceResponse(gen(), ping=15, send_timeout=10)

    app = Starlette(routes=[Route("/stream", stream)])
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


def wait_port(port: int, proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError("baseline server exited")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("baseline server did not start")


class Sub(asyncio.Protocol):
    """One raw-socket SSE subscriber: counts frames, optionally parses stamps. An asyncio protocol,
    not a stream reader read by a task: each read costs the client one callback instead of a task
    wake-up, so the client (which shares the 2 cores with the server) stays light; on uvloop about
    a fifth of the CPU per frame of the stream-reader client of earlier rounds."""

    def __init__(self, port: int, path: str, token: str | None, parse: bool, record_ts: bool = False) -> None:
        self.port, self.path, self.token, self.parse, self.record_ts = port, path, token, parse, record_ts
        self.frames = 0
        self.latencies: list[float] = []
        self.from_record: list[float] = []  # the record's ts -> read (the producer's part left out)
        self.first: float | None = None
        self.done: float | None = None
        self.ready = asyncio.Event()
        self.ended: asyncio.Future | None = None
        self.head = b""
        self.tail = b""
        self.pending = b""

    async def run(self, go: asyncio.Event | None = None) -> None:
        loop = asyncio.get_running_loop()
        self.ended = loop.create_future()
        transport, _ = await loop.create_connection(lambda: self, "127.0.0.1", self.port)
        auth = f"Authorization: Bearer {self.token}\r\n" if self.token else ""
        if go is not None:
            await go.wait()
        transport.write(f"GET {self.path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n{auth}\r\n"
                        .encode())
        try:
            await self.ended
        finally:
            transport.close()

    def _end(self, exc: Exception | None = None) -> None:
        if self.ended is not None and not self.ended.done():
            if exc is None:
                self.ended.set_result(None)
            else:
                self.ended.set_exception(exc)

    def connection_lost(self, exc: Exception | None) -> None:
        self._end()

    def data_received(self, data: bytes) -> None:
        now = time.time()
        if self.done is not None:
            return
        if not self.ready.is_set():
            self.head += data
            cut = self.head.find(b"\r\n\r\n")
            if cut < 0:
                return
            if not self.head.startswith(b"HTTP/1.1 200"):
                self._end(RuntimeError(f"subscribe failed: {self.head[:200]!r}"))
                return
            data, self.head = self.head[cut + 4:], b""
            self.ready.set()
            if not data:
                return
        if self.first is None:
            self.first = time.perf_counter()
        tail = self.tail
        buf = tail + data
        self.frames += buf.count(b"id: ") - tail.count(b"id: ")
        if self.parse:
            pending = self.pending + data
            cut = pending.rfind(b"\n\n")
            if cut >= 0:
                for m in STAMP.finditer(pending, 0, cut):
                    self.latencies.append(now - float(m.group(1)))
                if self.record_ts:  # Metis' frames carry the record's ts; the baseline's is a constant
                    for m in RECORD_TS.finditer(pending, 0, cut):
                        self.from_record.append(now - record_time(m.group(1)))
                pending = pending[cut + 2:]
            self.pending = pending
        if END in buf:
            self.done = time.perf_counter()
            self._end()
            return
        self.tail = buf[-32:]


_MINUTES: dict[bytes, float] = {}


def record_time(ts: bytes) -> float:
    """Seconds since the epoch of a record's ``ts`` (UTC, without its ``Z``). The minute is parsed
    once (``strptime`` costs ~19 us: parsing every Metis frame's ts with it made the client, which
    shares the cores, several times dearer per frame for Metis than for the baseline, whose frames
    carry no ts to parse)."""
    minute = _MINUTES.get(ts[:16])
    if minute is None:
        minute = _MINUTES[ts[:16]] = datetime.strptime(ts[:16].decode(), "%Y-%m-%dT%H:%M").replace(
            tzinfo=UTC).timestamp()
    return minute + float(ts[17:])


def proc_cpu(pid: int | None, thread: int | None = None) -> tuple[float, float]:
    """User and system CPU seconds of a process so far ((0.0, 0.0) when not known); of one of its
    threads with ``thread`` (the main thread's id is the process id)."""
    if pid is None:
        return 0.0, 0.0
    with open(f"/proc/{pid}/stat" if thread is None else f"/proc/{pid}/task/{thread}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return int(fields[11]) / tick, int(fields[12]) / tick


def proc_cpu_s(pid: int | None) -> float:
    """User + system CPU seconds of a process so far (0.0 when not known)."""
    return sum(proc_cpu(pid))


def lag_buckets(port: int) -> dict[float, float]:
    """The server's SSE delivery lag histogram (commit -> sent), cumulative counts by bucket bound."""
    import httpx

    text = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=10).text
    return {float(le): float(n) for le, n in LAG_BUCKET.findall(text)}


def lag_quantiles(before: dict[float, float], after: dict[float, float]) -> dict[str, float | None]:
    """p50 / p99 of the server's delivery lag over a phase, as the upper bound (ms) of the bucket
    holding that quantile (None past the last finite bucket)."""
    bounds = sorted(after)
    counts = [after[b] - before.get(b, 0.0) for b in bounds]
    total = counts[-1] if counts else 0.0
    out: dict[str, float | None] = {"server_lag_samples": total}
    for name, q in (("server_lag_p50_ms_le", 0.5), ("server_lag_p99_ms_le", 0.99)):
        hit = next((b for b, n in zip(bounds, counts, strict=True) if total and n >= q * total), None)
        out[name] = None if hit is None or hit == float("inf") else round(hit * 1000, 3)
    return out


async def phase(port: int, path: str, token: str | None, subscribers: int, parsed: int,
                trigger=None, server_pid: int | None = None, record_ts: bool = False) -> dict:  # noqa: ANN001
    """One phase: ``subscribers`` clients read ``path`` to its end. ``record_ts``: the parsing
    clients also parse each record's ts (Metis' paced phases, where the figure is reported; in the
    bursts both streams are parsed alike, stamps only)."""
    subs = [Sub(port, path, token, k < parsed, record_ts=record_ts) for k in range(subscribers)]
    go = asyncio.Event() if trigger is None else None
    tasks = [asyncio.create_task(s.run(go)) for s in subs]
    c0 = time.process_time()
    u0, k0 = proc_cpu(server_pid)
    main0 = sum(proc_cpu(server_pid, server_pid))  # the event loop's thread; the rest: the log's threads
    u_ready, k_ready = u0, k0
    if trigger is not None:
        await asyncio.gather(*(s.ready.wait() for s in subs))
        u_ready, k_ready = proc_cpu(server_pid)  # every subscriber's request handled: the rest is delivery
        await trigger()
    else:
        go.set()
    await asyncio.gather(*tasks)
    cpu = time.process_time() - c0
    u1, k1 = proc_cpu(server_pid)
    main1 = sum(proc_cpu(server_pid, server_pid))
    server_cpu = u1 + k1 - u0 - k0
    live_cpu = u1 + k1 - u_ready - k_ready
    first = min(s.first for s in subs if s.first is not None)
    last = max(s.done or 0 for s in subs)
    frames = sum(s.frames for s in subs)
    lat = [x for s in subs for x in s.latencies]
    from_record = [x for s in subs for x in s.from_record]
    return {"subscribers": subscribers, "frames": frames, "seconds": round(last - first, 4),
            "events_per_s": round(frames / (last - first), 1), "latency_p50_ms": ms(pct(lat, 0.5)),
            "latency_p99_ms": ms(pct(lat, 0.99)), "latency_samples": len(lat),
            "record_to_read_p50_ms": ms(pct(from_record, 0.5)), "record_to_read_p99_ms": ms(pct(from_record, 0.99)),
            "all_complete": all(s.done is not None for s in subs),
            "client_cpu_us_per_frame": round(cpu / max(1, frames) * 1e6, 3),
            "server_cpu_us_per_frame": round(server_cpu / max(1, frames) * 1e6, 3),
            "server_loop_thread_cpu_us_per_frame": round((main1 - main0) / max(1, frames) * 1e6, 3),
            "server_system_cpu_share": round((k1 - k0) / server_cpu, 3) if server_cpu else None,
            # Metis only: from every subscriber subscribed to the end (their requests left out)
            "server_cpu_us_per_frame_live": round(live_cpu / max(1, frames) * 1e6, 3) if trigger else None,
            "server_system_cpu_share_live": round((k1 - k_ready) / live_cpu, 3) if trigger and live_cpu else None}


async def metis_phase(server: MetisServer, topic: str, subscribers: int, n: int, parsed: int,
                      interval: float = 0.0) -> dict:
    pid = server.proc.pid if server.proc else None
    async with ToolBus.connect(server) as tb:
        async def trigger() -> None:
            await tb.start("b_stamp", {"n": n, "interval_s": interval}, topic=topic)

        lag0, commits0 = lag_buckets(server.port), log_commits(server.port)
        workers = children(pid)
        w0 = sum(proc_cpu_s(w) for w in workers)
        r = await phase(server.port, f"/streams/{topic}", token_for("partner"), subscribers, parsed, trigger, pid,
                        record_ts=interval > 0)
        w1 = sum(proc_cpu_s(w) for w in workers)
        r.update(lag_quantiles(lag0, lag_buckets(server.port)))
        r["log_commits"] = log_commits(server.port) - commits0
    r["events_per_subscriber"] = n
    # the producer's third process (the worker running the action), per event; its pipe, the
    # scheduler, the log and the SSE response are the server's figure
    r["worker_cpu_us_per_event"] = round((w1 - w0) / max(1, n) * 1e6, 3)
    return r


def children(pid: int | None) -> list[int]:
    """The processes whose parent is ``pid`` (the server's workers)."""
    if pid is None:
        return []
    kids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        kids.append(int(entry))
            except (OSError, ValueError, IndexError):
                continue
    return kids


def log_commits(port: int) -> float:
    """Group commits of the server's log so far (``metis_log_commits_total``)."""
    import httpx

    m = re.search(r"^metis_log_commits_total (\S+)$", httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=10).text,
                  re.M)
    return float(m.group(1)) if m else 0.0


def producer_rate(server: MetisServer, topic: str) -> float:
    """Metis' producer: checkpoints per second appended for ``topic`` (from the records' ts)."""
    import sqlite3
    from datetime import datetime

    conn = sqlite3.connect(f"file:{server.data_dir / 'receipts.sqlite3'}?mode=ro", uri=True)
    rows = conn.execute("SELECT body FROM records WHERE topic = ? AND name = 'action_checkpoint' ORDER BY seq",
                        (topic,)).fetchall()
    conn.close()
    ts = [datetime.strptime(json.loads(b)["ts"], "%Y-%m-%dT%H:%M:%S.%fZ").timestamp() for (b,) in (rows[0], rows[-1])]
    return round(len(rows) / max(1e-6, ts[1] - ts[0]), 1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--many", type=int, default=500, help="subscribers of the fan-out phase")
    ap.add_argument("--n-one", type=int, default=4000, help="events for the 1-subscriber phase")
    ap.add_argument("--n-many", type=int, default=300, help="events for the many-subscriber phase")
    ap.add_argument("--repeat-one", type=int, default=5,
                    help="1-subscriber bursts, baseline and Metis in turns (the median ratio is reported)")
    ap.add_argument("--parsed", type=int, default=20, help="subscribers that parse stamps for latency")
    ap.add_argument("--paced-rate-one", type=float, default=200.0, help="events/s of the paced 1-subscriber phase")
    ap.add_argument("--paced-rate-many", type=float, default=10.0, help="events/s of the paced many phase")
    ap.add_argument("--paced-seconds", type=float, default=4.0)
    ap.add_argument("--client-loop", choices=("uvloop", "asyncio"), default="uvloop",
                    help="event loop of the bench's clients (the same for Metis and the baseline)")
    ap.add_argument("--smoke", action="store_true", help="small N, seconds (CI); results to a temp dir")
    args = ap.parse_args()
    load_at_start = [round(x, 2) for x in os.getloadavg()]  # the machine is shared: next to every figure
    if args.smoke:
        args.many, args.n_one, args.n_many, args.parsed, args.paced_seconds, args.repeat_one = 5, 50, 20, 2, 0.3, 1
    tmp = Path(tempfile.mkdtemp(prefix="spine_sse_", dir=REPO / "bench"))
    server = MetisServer(tmp / "data", extra_args=["--log-level", "warning"], env={"METIS_EXTRA_ABILITIES": ABILITIES, **WARM_WORKERS_ENV})
    bport = free_port()
    base_proc = subprocess.Popen([sys.executable, __file__, "--serve-baseline", str(bport)], cwd=REPO)
    out: dict = {}
    try:
        wait_port(bport, base_proc)
        server.start()

        async def run_all() -> None:
            # warm-up both (imports, worker start)
            await metis_phase(server, "bench-warm", 1, 50, 1)
            await phase(bport, "/stream?n=50", None, 1, 1)
            # 1 subscriber: a short burst whose rate moves with the load from one second to the next,
            # so baseline and Metis alternate --repeat-one times and the pair with the median ratio
            # is reported (every ratio is kept)
            pairs, replays = [], []
            for k in range(args.repeat_one):
                b = await phase(bport, f"/stream?n={args.n_one}", None, 1, args.parsed, server_pid=base_proc.pid)
                m = await metis_phase(server, f"bench-one-{k}", 1, args.n_one, args.parsed)
                # the same records again, now durable, from the log (Last-Event-ID 0): the SSE
                # response alone, without the producer (worker, scheduler, log writer)
                r = await phase(server.port, f"/streams/bench-one-{k}?last_event_id=0", token_for("partner"), 1,
                                args.parsed, server_pid=server.proc.pid if server.proc else None)
                b["events_per_subscriber"] = args.n_one
                m["topic"] = f"bench-one-{k}"
                pairs.append((ratio(m["events_per_s"], b["events_per_s"]), k, b, m))
                r["baseline_events_per_s"] = b["events_per_s"]  # the same turn's baseline
                replays.append((ratio(r["events_per_s"], b["events_per_s"]), k, r))
            pairs.sort(key=lambda p: p[0])
            out["ratios_one"] = [p[0] for p in sorted(pairs, key=lambda p: p[1])]
            _, _, out["baseline_one"], out["metis_one"] = pairs[len(pairs) // 2]
            out["ratios_replay_one"] = [p[0] for p in sorted(replays, key=lambda p: p[1])]
            replays.sort(key=lambda p: p[0])
            _, _, out["metis_replay_one"] = replays[len(replays) // 2]
            out["metis_producer_events_per_s_one_all"] = [producer_rate(server, f"bench-one-{k}")
                                                          for k in range(args.repeat_one)]
            out["baseline_many"] = await phase(bport, f"/stream?n={args.n_many}", None, args.many, args.parsed,
                                               server_pid=base_proc.pid)
            out["metis_many"] = await metis_phase(server, "bench-many", args.many, args.n_many, args.parsed)
            out["baseline_many"]["events_per_subscriber"] = args.n_many
            # latency at a sustainable, paced rate (the burst phases measure queueing, not latency)
            for label, subs, rate in (("one", 1, args.paced_rate_one), ("many", args.many, args.paced_rate_many)):
                n, iv = max(1, int(rate * args.paced_seconds)), 1.0 / rate
                b = await phase(bport, f"/stream?n={n}&interval={iv}", None, subs, args.parsed,
                                server_pid=base_proc.pid)
                m = await metis_phase(server, f"bench-paced-{label}", subs, n, args.parsed, iv)
                for r in (b, m):
                    r["paced_events_per_s_per_subscriber"] = rate
                out[f"baseline_paced_{label}"], out[f"metis_paced_{label}"] = b, m

        if args.client_loop == "uvloop":
            import uvloop

            uvloop.run(run_all())
        else:
            asyncio.run(run_all())
        out["metis_producer_events_per_s_one"] = producer_rate(server, out["metis_one"]["topic"])
        out["metis_producer_events_per_s_many"] = producer_rate(server, "bench-many")
    finally:
        server.stop()
        base_proc.terminate()
        base_proc.wait(10)
        shutil.rmtree(tmp, ignore_errors=True)
    r_one = ratio(out["metis_one"]["events_per_s"], out["baseline_one"]["events_per_s"])
    r_many = ratio(out["metis_many"]["events_per_s"], out["baseline_many"]["events_per_s"])
    rr = out["metis_replay_one"]
    r_replay = ratio(rr["events_per_s"], rr["baseline_events_per_s"])
    p99 = max(out["metis_paced_one"]["latency_p99_ms"], out["metis_paced_many"]["latency_p99_ms"])
    result = {"benchmark": "spine_sse", "load_average_at_start": load_at_start,
              "load_average_at_end": [round(x, 2) for x in os.getloadavg()], "client_loop": args.client_loop,
              **out, "ratio_one": r_one, "ratio_many": r_many, "ratio_replay_one": r_replay,
              "targets": {"ratio": TARGET_RATIO, "latency_p99_ms": TARGET_P99_MS},
              "met": {"ratio_one": r_one >= TARGET_RATIO, "ratio_many": r_many >= TARGET_RATIO,
                      "latency_p99_ms_paced": p99 <= TARGET_P99_MS,
                      "latency_p99_ms_burst": max(out["metis_one"]["latency_p99_ms"],
                                                  out["metis_many"]["latency_p99_ms"]) <= TARGET_P99_MS}}
    path = write_result("spine_sse", result, args.smoke)
    m1, b1, mm, bm = out["metis_one"], out["baseline_one"], out["metis_many"], out["baseline_many"]
    show("SSE fan-out, one topic", [
        ("1 sub: events/s", f"{m1['events_per_s']:,.0f}", f"{b1['events_per_s']:,.0f}", f"{r_one:.2f}x"),
        ("1 sub: Metis producer events/s", f"{out['metis_producer_events_per_s_one']:,.0f}", "", ""),
        (f"1 sub: ratio of each of the {args.repeat_one} turns", " ".join(f"{r:.2f}" for r in out["ratios_one"]),
         "", ""),
        ("1 sub: CPU us/event: server (its loop thread); Metis' worker; client",
         f"{m1['server_cpu_us_per_frame']} ({m1['server_loop_thread_cpu_us_per_frame']}); "
         f"{m1['worker_cpu_us_per_event']}; {m1['client_cpu_us_per_frame']}",
         f"{b1['server_cpu_us_per_frame']}; -; {b1['client_cpu_us_per_frame']}", ""),
        ("1 sub: log commits in the burst (records per commit)",
         f"{m1['log_commits']:.0f} ({args.n_one / max(1.0, m1['log_commits']):.0f})", "", ""),
        ("1 sub: replay of those durable records (SSE alone), events/s", f"{rr['events_per_s']:,.0f}",
         f"{rr['baseline_events_per_s']:,.0f}", f"{r_replay:.2f}x"),
        (f"1 sub: replay ratio of each of the {args.repeat_one} turns",
         " ".join(f"{r:.2f}" for r in out["ratios_replay_one"]), "", ""),
        ("1 sub: burst latency p50/p99 ms", f"{m1['latency_p50_ms']}/{m1['latency_p99_ms']}",
         f"{b1['latency_p50_ms']}/{b1['latency_p99_ms']}", ""),
        (f"{args.many} subs: events/s (sum)", f"{mm['events_per_s']:,.0f}", f"{bm['events_per_s']:,.0f}",
         f"{r_many:.2f}x"),
        (f"{args.many} subs: burst latency p50/p99 ms", f"{mm['latency_p50_ms']}/{mm['latency_p99_ms']}",
         f"{bm['latency_p50_ms']}/{bm['latency_p99_ms']}", ""),
        (f"1 sub paced {args.paced_rate_one:g}/s: latency p50/p99 ms",
         f"{out['metis_paced_one']['latency_p50_ms']}/{out['metis_paced_one']['latency_p99_ms']}",
         f"{out['baseline_paced_one']['latency_p50_ms']}/{out['baseline_paced_one']['latency_p99_ms']}", ""),
        (f"{args.many} subs paced {args.paced_rate_many:g}/s: latency p50/p99 ms",
         f"{out['metis_paced_many']['latency_p50_ms']}/{out['metis_paced_many']['latency_p99_ms']}",
         f"{out['baseline_paced_many']['latency_p50_ms']}/{out['baseline_paced_many']['latency_p99_ms']}", ""),
        (f"{args.many} subs paced: frames/s delivered (asked {args.many * args.paced_rate_many:,.0f})",
         f"{out['metis_paced_many']['events_per_s']:,.0f}", f"{out['baseline_paced_many']['events_per_s']:,.0f}", ""),
        (f"{args.many} subs paced: record ts -> read p50/p99 ms",
         f"{out['metis_paced_many']['record_to_read_p50_ms']}/{out['metis_paced_many']['record_to_read_p99_ms']}",
         "", ""),
        (f"{args.many} subs paced: server commit -> sent p50/p99 ms (bucket bound)",
         f"{out['metis_paced_many']['server_lag_p50_ms_le']}/{out['metis_paced_many']['server_lag_p99_ms_le']}",
         "", ""),
        ("client CPU us/frame (many)", f"{mm['client_cpu_us_per_frame']}", f"{bm['client_cpu_us_per_frame']}", ""),
        ("server CPU us/frame: 1 sub; many (Metis: server process only)",
         f"{m1['server_cpu_us_per_frame']}; {mm['server_cpu_us_per_frame']}",
         f"{b1['server_cpu_us_per_frame']}; {bm['server_cpu_us_per_frame']}",
         f"{ratio(m1['server_cpu_us_per_frame'], b1['server_cpu_us_per_frame']):.2f}x; "
         f"{ratio(mm['server_cpu_us_per_frame'], bm['server_cpu_us_per_frame']):.2f}x"),
        (f"server system-CPU share: paced {args.many} subs", f"{out['metis_paced_many']['server_system_cpu_share']}",
         f"{out['baseline_paced_many']['server_system_cpu_share']}", ""),
        (f"server CPU us/frame: paced {args.many} subs", f"{out['metis_paced_many']['server_cpu_us_per_frame']}",
         f"{out['baseline_paced_many']['server_cpu_us_per_frame']}",
         f"{ratio(out['metis_paced_many']['server_cpu_us_per_frame'], out['baseline_paced_many']['server_cpu_us_per_frame']):.2f}x"),
        (f"server CPU us/frame: paced {args.many} subs, once subscribed (system share)",
         f"{out['metis_paced_many']['server_cpu_us_per_frame_live']} ({out['metis_paced_many']['server_system_cpu_share_live']})",
         "", ""),
        ("load average at start; at end", f"{load_at_start[0]}", f"{os.getloadavg()[0]:.2f}", ""),
        ("all subscribers complete", f"{m1['all_complete'] and mm['all_complete']}",
         f"{b1['all_complete'] and bm['all_complete']}", ""),
    ])
    print(f"met: {result['met']}\nwrote {path}")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--serve-baseline":
        serve_baseline(int(sys.argv[2]))
    else:
        main()
