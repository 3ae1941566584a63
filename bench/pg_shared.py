"""PostgreSQL benchmark: the cost of what replicas share (orchestrator/shared_state_pg.py).

Figures, from ``--tasks`` concurrent asyncio tasks on one ``PostgresState`` (its pool of 4
connections), each next to the raw round trip of the same pool in the same run (``SELECT 1``
through the same code path, measured before and after the others; their mean is the baseline):
- a raw single-row INSERT with its commit through the same pool (the write a key claim is);
- idempotency key claims/s (a new key each: the ``INSERT ... ON CONFLICT DO NOTHING`` every keyed
  ``actions.start`` pays on PostgreSQL) and p50/p99 latency;
- tenant bucket takes/s, every task on one tenant's bucket (the hottest row: contended updates);
- approval decisions/s (begin + end: two statements, the conditional update and the stored body).

Run: ``PYTHONPATH=. .venv/bin/python bench/pg_shared.py [--seconds 4] [--tasks 16]``; needs a local
PostgreSQL (``METIS_BENCH_PG_ADMIN_URL``); creates and drops a throwaway database; writes
``bench/results/pg_shared.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Awaitable, Callable
from itertools import count
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.pg_log import ADMIN_URL, fresh_schema, throwaway_database  # noqa: E402
from bench.spine_common import ms, pct, ratio, show, write_result  # noqa: E402
from orchestrator.shared_state_pg import PostgresState  # noqa: E402


async def drive(op: Callable[[int], Awaitable[object]], tasks: int, seconds: float) -> dict:
    """Run ``op(i)`` from ``tasks`` tasks for ``seconds``: ops/s and latency percentiles."""
    latencies: list[float] = []
    numbers = count()
    stop = time.monotonic() + seconds

    async def worker() -> None:
        while time.monotonic() < stop:
            t0 = time.perf_counter()
            await op(next(numbers))
            latencies.append(time.perf_counter() - t0)

    t0 = time.monotonic()
    await asyncio.gather(*(worker() for _ in range(tasks)))
    elapsed = time.monotonic() - t0
    return {"ops": len(latencies), "ops_per_s": round(len(latencies) / elapsed, 1),
            "p50_ms": ms(pct(latencies, 0.5)), "p99_ms": ms(pct(latencies, 0.99))}


async def measure(state: PostgresState, tasks: int, seconds: float) -> dict:
    async def raw(i: int) -> object:
        return await state._q("SELECT 1", ())

    async def insert(i: int) -> object:
        return await state._q("INSERT INTO bench_raw (i) VALUES (%s)", (i,))

    async def claim(i: int) -> object:
        return await state.claim_key("acme", f"k-{i}", "h", f"act_{i}")

    async def take(i: int) -> object:
        return await state.take("start:acme", 1e9, 1e9)  # never refused: every call updates the row

    async def decide(i: int) -> object:
        body = {"approval_id": f"apr_{i}", "tenant": "acme", "kind": "reflect", "requested_by": "sub_r",
                "status": "pending"}
        await state.approval_put(body)
        assert await state.approval_begin(body["approval_id"])
        return await state.approval_end(body["approval_id"], {**body, "status": "granted"})

    await drive(raw, tasks, min(seconds, 1.0))  # warm-up: the pool opens its connections
    await state._q("CREATE TABLE bench_raw (i bigint PRIMARY KEY)", ())
    return {"raw_round_trip": await drive(raw, tasks, seconds),
            "raw_insert_commit": await drive(insert, tasks, seconds),
            "key_claim": await drive(claim, tasks, seconds),
            "bucket_take_one_tenant": await drive(take, tasks, seconds),
            "approval_put_begin_end": await drive(decide, tasks, seconds),
            "raw_round_trip_again": await drive(raw, tasks, seconds)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=4.0, help="per figure")
    ap.add_argument("--tasks", type=int, default=16, help="concurrent asyncio tasks")
    ap.add_argument("--smoke", action="store_true", help="seconds-long run for CI; results not committed")
    args = ap.parse_args()
    seconds = 0.5 if args.smoke else args.seconds
    with throwaway_database(ADMIN_URL) as db:
        state = PostgresState(fresh_schema(db))
        try:
            figures = asyncio.run(measure(state, args.tasks, seconds))
        finally:
            state.close()
    base = (figures["raw_round_trip"]["ops_per_s"] + figures["raw_round_trip_again"]["ops_per_s"]) / 2
    show("shared state on PostgreSQL (ops/s, baseline: SELECT 1 through the same pool)",
         [(name, f"{f['ops_per_s']:.0f}/s p99 {f['p99_ms']:.1f}ms", f"{base:.0f}/s", f"{ratio(f['ops_per_s'], base):.2f}x")
          for name, f in figures.items() if not name.startswith("raw_round")])
    result = {"tasks": args.tasks, "seconds_per_figure": seconds, "figures": figures,
              "ratios_to_raw": {k: ratio(v["ops_per_s"], base) for k, v in figures.items()}}
    print(write_result("pg_shared", result, args.smoke))


if __name__ == "__main__":
    main()
