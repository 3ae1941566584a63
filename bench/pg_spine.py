"""The spine's ToolBus, no-op action and SSE figures on PostgreSQL, next to SQLite in turns.

The issue's figures that ``pg_log.py`` (appends), ``spine_startup.py --pg`` (start-up) and
``pg_actions.py`` (the worker tier) do not cover, measured by the same scenario code as the
SQLite benches (imported from ``api_toolbus.py``, ``spine_actions.py`` and ``spine_sse.py``,
never copied) against a server on each engine: the embedded SQLite log and ``--database`` on a
fresh schema of a throwaway PostgreSQL database. Each figure runs in turns (SQLite, PostgreSQL,
SQLite, PostgreSQL, ... ``--turns`` pairs), a fresh server per turn, each next to its own bench's
bare baseline measured in the same turn, with the load average read at every figure:
- 1,000 ``actions.start`` pipelined on one connection: p50 / p99 (baseline: the same starts over
  32 connections); ``session.whoami`` round trips/s against a bare ``websockets`` echo server;
- no-op ``t_noop`` start -> completed p50, one client one action at a time (baseline: an asyncio
  task), and actions/s with 8 clients x 4 in flight, twice (the second on the grown pool);
- SSE to one subscriber: events/s of a burst against a bare sse-starlette generator (ratio), and
  1,000 subscribers paced at 10 events/s: delivery latency p50 / p99 (baseline: the generator
  paced alike).
The PostgreSQL / SQLite ratio of each figure is given per turn (the machine is shared: read ratios
of the same turn, not absolute figures across turns).

Run from the repo root: ``PYTHONPATH=. .venv/bin/python bench/pg_spine.py [--turns 2]``; needs a
local PostgreSQL (``--admin-url``, default ``$METIS_BENCH_PG_ADMIN_URL``); creates and drops a
throwaway database; writes ``bench/results/pg_spine.json`` (``--smoke``: small N, results to a
temporary directory).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.api_toolbus import pipelined_starts, wait_idle  # noqa: E402
from bench.pg_log import ADMIN_URL, fresh_schema, throwaway_database  # noqa: E402
from bench.spine_actions import measure as actions_measure  # noqa: E402
from bench.spine_common import REPO, WARM_WORKERS_ENV, ms, pct, ratio, show, write_result  # noqa: E402
from bench.spine_sse import ABILITIES, metis_phase, phase, wait_port  # noqa: E402
from bench.spine_toolbus import round_trips, spawn  # noqa: E402
from tests.support import MetisServer, free_port, token_for  # noqa: E402

ENGINES = ("sqlite", "postgresql")
# each scenario's server environment, as its own bench sets it
TOOLBUS_ENV = {"METIS_RATE_PER_S": "10000000", "METIS_RATE_BURST": "10000000", **WARM_WORKERS_ENV}
ACTIONS_ENV = dict(WARM_WORKERS_ENV)
SSE_ENV = {"METIS_EXTRA_ABILITIES": ABILITIES, **WARM_WORKERS_ENV}


def load1() -> float:
    return round(os.getloadavg()[0], 2)


class Servers:
    """Fresh servers on either engine: SQLite in a new data dir, PostgreSQL on a new schema of one
    throwaway database (migrations applied). ``shared`` (smoke mode): one server per engine for
    every scenario, with their environments merged, so CI pays for two start-ups, not six."""

    def __init__(self, base: Path, db_url: str, shared: bool = False) -> None:
        self.base, self.db_url, self.n, self.shared = base, db_url, 0, shared
        self.kept: dict[str, MetisServer] = {}

    def start(self, engine: str, env: dict[str, str]) -> MetisServer:
        if self.shared:
            if engine not in self.kept:
                self.kept[engine] = self._new(engine, {**TOOLBUS_ENV, **ACTIONS_ENV, **SSE_ENV})
            return self.kept[engine]
        return self._new(engine, env)

    def stop(self, server: MetisServer) -> None:
        if server not in self.kept.values():
            server.stop()

    def close(self) -> None:
        for server in self.kept.values():
            server.stop()

    def _new(self, engine: str, env: dict[str, str]) -> MetisServer:
        self.n += 1
        args = ["--log-level", "warning"]
        if engine == "postgresql":
            args += ["--database", fresh_schema(self.db_url)]
        return MetisServer(self.base / f"{engine}-{self.n}", extra_args=args, env=env).start()


def toolbus_turn(server: MetisServer, starts: int, seconds: float, echo_port: int) -> dict[str, Any]:
    """``api_toolbus.py``'s scenario: pipelined starts on 1 and on 32 connections; whoami vs echo."""
    asyncio.run(pipelined_starts(server.ws_url, min(starts, 100)))  # warm-up: workers, caches
    wait_idle(server)
    load = load1()
    lat, el = asyncio.run(pipelined_starts(server.ws_url, starts))
    wait_idle(server)
    lat32, el32 = asyncio.run(pipelined_starts(server.ws_url, starts, 32))
    wait_idle(server)
    n, w_el, _ = asyncio.run(round_trips(server.ws_url, seconds, {"Authorization": f"Bearer {token_for('partner')}"},
                                         True))
    nb, b_el, _ = asyncio.run(round_trips(f"ws://127.0.0.1:{echo_port}/", seconds))
    who, bare = n / w_el, nb / b_el
    return {"load_1m": load, "load_1m_end": load1(),
            "pipelined_p50_ms": ms(pct(lat, 0.5)), "pipelined_p99_ms": ms(pct(lat, 0.99)),
            "pipelined_starts_per_s": round(starts / el, 1),
            "baseline_32_connections_p50_ms": ms(pct(lat32, 0.5)), "baseline_32_connections_p99_ms": ms(pct(lat32, 0.99)),
            "whoami_per_s": round(who, 1), "baseline_echo_per_s": round(bare, 1), "whoami_ratio": ratio(who, bare)}


def actions_turn(server: MetisServer, seconds: float, clients: int, inflight: int, sequential: int,
                 scratch: Path) -> dict[str, Any]:
    """``spine_actions.py``'s scenario (its ``measure``) on a warm server."""
    load = load1()
    r = asyncio.run(actions_measure(server, seconds, clients, inflight, sequential, scratch))
    seq, loaded, again = r["sequential"], r["loaded"], r["loaded_again"]
    return {"load_1m": load, "load_1m_end": load1(),
            "noop_p50_ms": seq["p50_ms"], "noop_p95_ms": seq["p95_ms"],
            "start_response_p50_ms": seq["start_response_p50_ms"], "log_commits_per_action": seq["log_commits_per_action"],
            "loaded_actions_per_s": loaded["actions_per_s"], "loaded_p50_ms": loaded["p50_ms"],
            "loaded_again_actions_per_s": again["actions_per_s"], "loaded_again_p50_ms": again["p50_ms"],
            "loaded_cpu_us_per_action": again["cpu_us_per_action"],
            "not_completed": seq["not_completed"] + loaded["not_completed"] + again["not_completed"],
            "baseline_asyncio_task_us": r["baseline_asyncio_task_us"],
            "baseline_asyncio_tasks_per_s": r["baseline_asyncio_tasks_per_s"],
            "baseline_sqlite_commit_ms": r["baseline_disk_commit_ms_p50"]}


def sse_turn(server: MetisServer, bport: int, bpid: int, n_one: int, many: int, paced_rate: float,
             paced_seconds: float, parsed: int, turn: int) -> dict[str, Any]:
    """``spine_sse.py``'s scenario: a 1-subscriber burst next to the bare generator, then ``many``
    subscribers paced at ``paced_rate`` events/s next to the generator paced alike."""
    import uvloop

    async def run() -> dict[str, Any]:
        await metis_phase(server, "bench-warm", 1, 50, 1)  # warm-up both (imports, worker start)
        await phase(bport, "/stream?n=50", None, 1, 1)
        load = load1()
        b = await phase(bport, f"/stream?n={n_one}", None, 1, parsed, server_pid=bpid)
        m = await metis_phase(server, f"bench-one-{turn}", 1, n_one, parsed)
        load_paced = load1()
        n, iv = max(1, int(paced_rate * paced_seconds)), 1.0 / paced_rate
        bp = await phase(bport, f"/stream?n={n}&interval={iv}", None, many, parsed, server_pid=bpid)
        mp = await metis_phase(server, f"bench-paced-{turn}", many, n, parsed, iv)
        return {"load_1m": load, "load_1m_paced": load_paced, "load_1m_end": load1(),
                "one_events_per_s": m["events_per_s"], "baseline_one_events_per_s": b["events_per_s"],
                "one_ratio": ratio(m["events_per_s"], b["events_per_s"]),
                "one_server_cpu_us_per_frame": m["server_cpu_us_per_frame"],
                "one_worker_cpu_us_per_event": m["worker_cpu_us_per_event"],
                "paced_subscribers": many, "paced_events_per_s_per_subscriber": paced_rate,
                "paced_p50_ms": mp["latency_p50_ms"], "paced_p99_ms": mp["latency_p99_ms"],
                "baseline_paced_p50_ms": bp["latency_p50_ms"], "baseline_paced_p99_ms": bp["latency_p99_ms"],
                "paced_record_to_read_p99_ms": mp["record_to_read_p99_ms"],
                "paced_server_cpu_us_per_frame": mp["server_cpu_us_per_frame"],
                "all_complete": m["all_complete"] and mp["all_complete"]}

    return uvloop.run(run())


def in_turns(servers: Servers, turns: int, env: dict[str, str],
             scenario: Callable[[MetisServer, int], dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """``scenario`` on a fresh server of each engine in turns: SQLite, PostgreSQL, SQLite, ..."""
    out: dict[str, list[dict[str, Any]]] = {e: [] for e in ENGINES}
    for turn in range(turns):
        for engine in ENGINES:
            server = servers.start(engine, env)
            try:
                out[engine].append(scenario(server, turn))
            finally:
                servers.stop(server)
    return out


# (scenario, key, label, higher is better)
FIGURES = [
    ("toolbus", "pipelined_p50_ms", "1,000 pipelined starts, 1 connection: p50 ms", False),
    ("toolbus", "pipelined_p99_ms", "  same, p99 ms", False),
    ("toolbus", "baseline_32_connections_p50_ms", "  baseline: 32 connections, p50 ms", False),
    ("toolbus", "whoami_ratio", "session.whoami vs bare websockets echo (ratio)", True),
    ("actions", "noop_p50_ms", "no-op start->completed p50 ms, 1 client", False),
    ("actions", "start_response_p50_ms", "  actions.start response p50 ms", False),
    ("actions", "loaded_actions_per_s", "no-op actions/s, 8 clients x 4 in flight", True),
    ("actions", "loaded_again_actions_per_s", "  same load again (grown pool)", True),
    ("sse", "one_ratio", "SSE 1 subscriber vs bare generator (ratio)", True),
    ("sse", "one_events_per_s", "  SSE 1 subscriber events/s", True),
    ("sse", "paced_p50_ms", "SSE paced subscribers: p50 ms", False),
    ("sse", "paced_p99_ms", "SSE paced subscribers: p99 ms", False),
    ("sse", "baseline_paced_p99_ms", "  baseline: bare generator paced, p99 ms", False),
]


def summary(runs: dict[str, dict[str, list[dict[str, Any]]]]) -> dict[str, Any]:
    """Per figure: each engine's value per turn, the PostgreSQL / SQLite ratio per turn, the loads."""
    out: dict[str, Any] = {}
    for scenario, key, _, _ in FIGURES:
        if scenario not in runs:
            continue
        s = [t[key] for t in runs[scenario]["sqlite"]]
        p = [t[key] for t in runs[scenario]["postgresql"]]
        out[f"{scenario}.{key}"] = {"sqlite": s, "postgresql": p,
                                    "postgresql_over_sqlite": [ratio(b, a) for a, b in zip(s, p, strict=True)],
                                    "load_1m": {e: [t["load_1m"] for t in runs[scenario][e]] for e in ENGINES}}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--turns", type=int, default=2, help="pairs of turns (SQLite then PostgreSQL) per figure")
    ap.add_argument("--only", action="append", choices=("toolbus", "actions", "sse"),
                    help="run only these scenarios (repeatable; default: all)")
    ap.add_argument("--starts", type=int, default=1000, help="pipelined starts on one connection")
    ap.add_argument("--whoami-seconds", type=float, default=3.0)
    ap.add_argument("--seconds", type=float, default=10.0, help="no-op actions: each loaded phase")
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--inflight", type=int, default=4)
    ap.add_argument("--sequential", type=int, default=300, help="no-op actions of the one-client phase")
    ap.add_argument("--n-one", type=int, default=4000, help="events of the 1-subscriber SSE burst")
    ap.add_argument("--many", type=int, default=1000, help="paced SSE subscribers")
    ap.add_argument("--paced-rate", type=float, default=10.0, help="events/s of the paced phase")
    ap.add_argument("--paced-seconds", type=float, default=4.0)
    ap.add_argument("--parsed", type=int, default=20, help="subscribers that parse stamps for latency")
    ap.add_argument("--admin-url", default=ADMIN_URL, help="PostgreSQL URL allowed to create databases")
    ap.add_argument("--smoke", action="store_true", help="small N, seconds (CI); results to a temp dir")
    args = ap.parse_args()
    if args.smoke:
        args.turns, args.starts, args.whoami_seconds, args.seconds = 1, 30, 0.3, 0.5
        args.clients, args.inflight, args.sequential = 2, 2, 10
        args.n_one, args.many, args.paced_seconds, args.parsed = 50, 5, 0.3, 2
    scenarios = args.only or ["toolbus", "actions", "sse"]
    load_at_start = [round(x, 2) for x in os.getloadavg()]
    tmp = Path(tempfile.mkdtemp(prefix="pg_spine_", dir=REPO / "bench"))
    helpers: list[subprocess.Popen] = []
    runs: dict[str, dict[str, list[dict[str, Any]]]] = {}
    try:
        with throwaway_database(args.admin_url) as db_url:
            servers = Servers(tmp, db_url, shared=args.smoke)
            try:
                if "toolbus" in scenarios:
                    echo_port = free_port()
                    helpers.append(spawn("--serve-websockets-echo", echo_port))
                    runs["toolbus"] = in_turns(servers, args.turns, TOOLBUS_ENV, lambda s, t: toolbus_turn(
                        s, args.starts, args.whoami_seconds, echo_port))
                if "actions" in scenarios:
                    runs["actions"] = in_turns(servers, args.turns, ACTIONS_ENV, lambda s, t: actions_turn(
                        s, args.seconds, args.clients, args.inflight, args.sequential, tmp / f"disk-{t}"))
                if "sse" in scenarios:
                    bport = free_port()
                    base = subprocess.Popen([sys.executable, str(REPO / "bench" / "spine_sse.py"), "--serve-baseline",
                                             str(bport)], cwd=REPO)
                    helpers.append(base)
                    wait_port(bport, base)
                    runs["sse"] = in_turns(servers, args.turns, SSE_ENV, lambda s, t: sse_turn(
                        s, bport, base.pid, args.n_one, args.many, args.paced_rate, args.paced_seconds, args.parsed, t))
            finally:
                servers.close()
    finally:
        for proc in helpers:
            proc.terminate()
            proc.wait(10)
        shutil.rmtree(tmp, ignore_errors=True)
    figures = summary(runs)
    result = {"benchmark": "pg_spine", "turns": args.turns, "order": "per figure: sqlite, postgresql, in turns",
              "load_average_at_start": load_at_start, "load_average_at_end": [round(x, 2) for x in os.getloadavg()],
              "params": {k: v for k, v in vars(args).items() if k not in ("smoke", "admin_url")},
              "figures": figures, "runs": runs}
    path = write_result("pg_spine", result, args.smoke)
    med = statistics.median
    rows = []
    for scenario, key, label, _ in FIGURES:
        f = figures.get(f"{scenario}.{key}")
        if f is None:
            continue
        rows.append((label, " ".join(f"{v:g}" for v in f["postgresql"]), " ".join(f"{v:g}" for v in f["sqlite"]),
                     f"{med(f['postgresql_over_sqlite']):.2f}x"))
    show(f"PostgreSQL (value per turn) vs SQLite (baseline per turn); ratio: median PG/SQLite of {args.turns} turns",
         rows)
    print(f"load average at start {load_at_start[0]}, at end {os.getloadavg()[0]:.2f}\nwrote {path}")


if __name__ == "__main__":
    main()
