"""Parked actions cost nothing: N actions waiting on a person with 2 worker processes.

Starts a real server with 2 workers (``METIS_WARM_WORKERS=MAX_WORKERS=2``), then measures, each
next to its baseline from the same run:
- server memory per parked action: RSS after parking N ``t_ask`` actions minus RSS before, / N
  (goal: under 10 KB each);
- ``t_noop`` latency and throughput while N actions are parked, next to the same with none parked
  (other actions keep completing);
- park-and-resume latency: ``actions.input`` sent -> ``action_completed`` received for a parked
  action (it is replayed on any worker), next to a fresh ``t_noop`` start -> completed;
- worker processes: still 2, all idle, while N actions wait.

    PYTHONPATH=. .venv/bin/python bench/scheduler_park.py --parked 10000
    PYTHONPATH=. .venv/bin/python bench/scheduler_park.py --smoke       (CI: 300 parked, no committed files)
"""

from __future__ import annotations

import argparse
import asyncio
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import httpx  # noqa: E402

from bench.spine_common import ms, pct, ratio, show, write_result  # noqa: E402
from tests.support import MetisServer, ToolBus, open_request  # noqa: E402


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def gauge(server: MetisServer, name: str) -> float:
    text = httpx.get(server.http_url + "/metrics", timeout=30).text
    return sum(float(v) for v in re.findall(rf"^{name}(?:{{[^}}]*}})? ([0-9.e+]+)$", text, re.M))


async def noop_phase(server: MetisServer, runs: int) -> dict:
    """Sequential t_noop start -> completed latencies, and throughput of ``runs`` concurrent ones."""
    lat: list[float] = []
    async with ToolBus.connect(server) as tb:
        for _ in range(runs):
            t0 = time.perf_counter()
            started = await tb.start("t_noop", {})
            await tb.follow(started["topic"], started["action_id"], timeout=60)
            lat.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        starts = await asyncio.gather(*(tb.start("t_noop", {}) for _ in range(runs)))
        for s in starts:
            await tb.wait_status(s["action_id"], {"completed"}, timeout=120)
        took = time.perf_counter() - t0
    return {"p50_ms": ms(pct(lat, 0.5)), "p99_ms": ms(pct(lat, 0.99)), "actions_per_s": round(runs / took, 2)}


async def park(server: MetisServer, n: int, connections: int = 8) -> tuple[list[str], float]:
    ids: list[str] = []

    async def client(k: int) -> None:
        async with ToolBus.connect(server) as tb:
            for i in range(k, n, connections):
                started = await tb.start("t_ask", {"question": f"q{i}"}, budgets={"wall_s": 3600})
                ids.append(started["action_id"])

    t0 = time.perf_counter()
    await asyncio.gather(*(client(k) for k in range(connections)))
    while gauge(server, "metis_tenant_parked_actions") < n:
        await asyncio.sleep(0.2)
    return ids, time.perf_counter() - t0


async def resume_latency(server: MetisServer, ids: list[str]) -> list[float]:
    lat: list[float] = []
    async with ToolBus.connect(server) as tb:
        for aid in ids:
            question = await open_request(tb, aid)
            view = await tb.call("actions.get", {"action_id": aid})
            sub = (await tb.call("events.subscribe", {"topic": view["topic"]}))["subscription_id"]
            t0 = time.perf_counter()
            await tb.call("actions.input", {"action_id": aid, "request_id": question["request_id"], "value": "ok"})
            while True:
                note = await asyncio.wait_for(tb.notifications.get(), 60)
                p = note.get("params", {})
                if p.get("subscription_id") == sub and p.get("event") == "action_completed":
                    break
            lat.append(time.perf_counter() - t0)
            await tb.call("events.unsubscribe", {"subscription_id": sub})
    return lat


async def run(server: MetisServer, n: int, probes: int) -> dict:
    await noop_phase(server, 20)  # warm-up
    assert server.proc is not None
    before_kb = rss_kb(server.proc.pid)
    idle = await noop_phase(server, probes)
    ids, park_s = await park(server, n)
    await asyncio.sleep(1.0)
    after_kb = rss_kb(server.proc.pid)
    workers, workers_idle = gauge(server, "metis_workers"), gauge(server, "metis_workers_idle")
    loaded = await noop_phase(server, probes)
    resume = await resume_latency(server, ids[:probes])
    per_action_kb = (after_kb - before_kb) / n
    return {
        "parked": n, "park_seconds": round(park_s, 2), "parked_per_s": round(n / park_s, 1),
        "rss_before_kb": before_kb, "rss_after_kb": after_kb, "rss_per_parked_action_kb": round(per_action_kb, 3),
        "goal_per_parked_action_kb": 10, "workers": workers, "workers_idle": workers_idle,
        "noop_none_parked": idle, "noop_with_parked": loaded,
        "park_resume_p50_ms": ms(pct(resume, 0.5)), "park_resume_p99_ms": ms(pct(resume, 0.99)),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--parked", type=int, default=10000)
    ap.add_argument("--probes", type=int, default=50)
    ap.add_argument("--smoke", action="store_true", help="small and quick (CI); results not over committed files")
    args = ap.parse_args()
    n, probes = (300, 10) if args.smoke else (args.parked, args.probes)
    tmp = Path(tempfile.mkdtemp(prefix="metis_park_"))
    server = MetisServer(tmp / "data", extra_args=["--log-level", "warning"],
                         env={"METIS_WARM_WORKERS": "2", "METIS_MAX_WORKERS": "2"})
    server.start()
    try:
        result = asyncio.run(run(server, n, probes))
    finally:
        server.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    a, b = result["noop_with_parked"], result["noop_none_parked"]
    show(f"{n} parked actions, 2 worker processes", [
        ("server KB per parked action", f"{result['rss_per_parked_action_kb']}", "goal 10", ""),
        ("workers (idle) while parked", f"{result['workers']:.0f} ({result['workers_idle']:.0f})", "2", ""),
        ("parked per s", f"{result['parked_per_s']}", "", ""),
        ("t_noop p50 ms, parked vs none", f"{a['p50_ms']}", f"{b['p50_ms']}", f"{ratio(a['p50_ms'], b['p50_ms'])}"),
        ("t_noop actions/s, parked vs none", f"{a['actions_per_s']}", f"{b['actions_per_s']}",
         f"{ratio(a['actions_per_s'], b['actions_per_s'])}"),
        ("park->resume->completed p50 ms vs t_noop p50", f"{result['park_resume_p50_ms']}", f"{b['p50_ms']}",
         f"{ratio(result['park_resume_p50_ms'], b['p50_ms'])}"),
        ("park->resume->completed p99 ms vs t_noop p99", f"{result['park_resume_p99_ms']}", f"{b['p99_ms']}",
         f"{ratio(result['park_resume_p99_ms'], b['p99_ms'])}"),
    ])
    print("\nwrote", write_result("scheduler_park", result, smoke=args.smoke))


if __name__ == "__main__":
    main()
