"""What tracing costs: the same server and load with OpenTelemetry off (the default, the baseline)
and on (every span exported to a JSON-lines file through the SDK's batch processor, written off the
event loop as the OTLP exporter's batches are; no sampling). The first committed figures (commit
"bench/obs_tracing.py first figures") were taken with a synchronous write per span.

Figures, each next to the tracing-off baseline of the same run (phases alternate off/on to spread
machine load evenly):
- ``session.whoami`` round trips/s on one connection, each call carrying a ``_meta.traceparent``
  (a traced call: a ToolBus span per call when on);
- ``t_noop`` start -> completed latency p50/p95 (one action at a time: ToolBus span, run span, worker
  span, append batches).

Run from the repo root: ``PYTHONPATH=. .venv/bin/python bench/obs_tracing.py [--seconds 5] [--actions 100]``;
writes ``bench/results/obs_tracing.json`` (``--smoke``: a few seconds, results elsewhere).
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.spine_common import ms, pct, ratio, show, write_result  # noqa: E402
from tests.support import MetisServer, ToolBus  # noqa: E402


def traceparent() -> str:
    return f"00-{secrets.token_hex(16)}-{secrets.token_hex(8)}-01"


async def whoami_rate(server: MetisServer, seconds: float) -> float:
    async with ToolBus.connect(server) as tb:
        n = 0
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            await tb.call("session.whoami", {"_meta": {"traceparent": traceparent()}})
            n += 1
        return n / (time.perf_counter() - t0)


async def noop_latencies(server: MetisServer, count: int) -> list[float]:
    out = []
    async with ToolBus.connect(server) as tb:
        for _ in range(count):
            t0 = time.perf_counter()
            view, _ = await tb.run("t_noop", {}, _meta={"traceparent": traceparent()})
            assert view["status"] == "completed"
            out.append(time.perf_counter() - t0)
    return out


async def phase(root: Path, traced: bool, seconds: float, actions: int, i: int) -> dict[str, object]:
    spans = root / f"spans{i}.jsonl"
    env = {"METIS_RATE_PER_S": "1000000", "METIS_RATE_BURST": "1000000"}  # measure, not rate-limit
    if traced:
        env |= {"OTEL_TRACES_EXPORTER": "jsonl", "METIS_TRACES_FILE": str(spans)}
    server = MetisServer(root / f"data{i}", env=env).start()
    try:
        await noop_latencies(server, 3)  # warm the workers
        rate = await whoami_rate(server, seconds)
        lat = await noop_latencies(server, actions)
    finally:
        server.stop()
    n_spans = len(spans.read_text().splitlines()) if spans.exists() else 0
    return {"traced": traced, "whoami_per_s": round(rate, 1), "noop_p50_ms": ms(pct(lat, 0.5)),
            "noop_p95_ms": ms(pct(lat, 0.95)), "spans_exported": n_spans}


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--actions", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--smoke", action="store_true")
    args = ap.parse_args()
    if args.smoke:
        args.seconds, args.actions, args.rounds = 1.0, 5, 1
    root = Path(tempfile.mkdtemp(prefix="metis_obs_bench_"))
    try:
        phases = []
        for _round in range(args.rounds):
            for traced in (False, True):
                phases.append(await phase(root, traced, args.seconds, args.actions, len(phases)))
                print(phases[-1], flush=True)
    finally:
        shutil.rmtree(root, ignore_errors=True)

    def med(traced: bool, key: str) -> float:
        return statistics.median(float(p[key]) for p in phases if p["traced"] is traced)  # type: ignore[arg-type]

    on_rate, off_rate = med(True, "whoami_per_s"), med(False, "whoami_per_s")
    on_p50, off_p50 = med(True, "noop_p50_ms"), med(False, "noop_p50_ms")
    on_p95, off_p95 = med(True, "noop_p95_ms"), med(False, "noop_p95_ms")
    show("tracing on (every span, batch export) vs off (baseline), medians over rounds", [
        ("whoami/s, traced calls", f"{on_rate:.0f}", f"{off_rate:.0f}", f"{ratio(on_rate, off_rate):.2f}x"),
        ("t_noop p50 ms", f"{on_p50:.1f}", f"{off_p50:.1f}", f"{ratio(on_p50, off_p50):.2f}x"),
        ("t_noop p95 ms", f"{on_p95:.1f}", f"{off_p95:.1f}", f"{ratio(on_p95, off_p95):.2f}x"),
    ])
    path = write_result("obs_tracing", {
        "phases": phases, "whoami_per_s": {"on": on_rate, "off": off_rate, "ratio": ratio(on_rate, off_rate)},
        "noop_p50_ms": {"on": on_p50, "off": off_p50, "ratio": ratio(on_p50, off_p50)},
        "noop_p95_ms": {"on": on_p95, "off": off_p95, "ratio": ratio(on_p95, off_p95)},
        "settings": {"seconds": args.seconds, "actions": args.actions, "rounds": args.rounds}}, smoke=args.smoke)
    print(f"wrote {path}")


if __name__ == "__main__":
    asyncio.run(main())
