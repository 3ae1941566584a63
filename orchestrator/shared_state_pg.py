"""The PostgreSQL driver of ``SharedState`` (orchestrator/shared_state.py): tables of migration 0005.

Each operation is one statement on a pooled autocommit connection, run off the event loop on the
driver's own threads. A lost connection is retried once on a fresh one, then reported as
``StorageUnavailable`` (-32053 to the client), like the log's own reads.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool, PoolTimeout

from receipts.postgres import CONNECTION_ERRORS, unavailable

_CLAIM = """
INSERT INTO metis_idempotency_keys (tenant, key, action_id, params_hash) VALUES (%s, %s, %s, %s)
ON CONFLICT (tenant, key) DO NOTHING RETURNING action_id"""
_HOLDER = """
SELECT action_id, params_hash, extract(epoch FROM clock_timestamp() - claimed_at)::float8
FROM metis_idempotency_keys WHERE tenant = %s AND key = %s"""
_TAKE_OVER = """
UPDATE metis_idempotency_keys SET action_id = %s, claimed_at = clock_timestamp()
WHERE tenant = %s AND key = %s AND action_id = %s"""
_PUT = """
INSERT INTO metis_approvals (approval_id, tenant, kind, requested_by, status, body)
VALUES (%s, %s, %s, %s, %s, %s)
ON CONFLICT (approval_id) DO UPDATE SET status = excluded.status, body = excluded.body, deciding_since = NULL"""
#: At start, the log's newer word wins over a row still pending (a decision whose row update was lost).
_LOAD = _PUT.replace("deciding_since = NULL", "deciding_since = NULL "
                     "WHERE metis_approvals.status = 'pending' AND excluded.status <> 'pending'")
_BEGIN = """
UPDATE metis_approvals SET deciding_since = clock_timestamp()
WHERE approval_id = %s AND status = 'pending'
  AND (deciding_since IS NULL OR deciding_since < clock_timestamp() - make_interval(secs => %s))"""
#: Refill from the database's clock, then spend n if there are n: one statement, so replicas share it.
_TAKE = """
INSERT INTO metis_rate_buckets AS b (bucket, tokens, stamp) VALUES (%(bucket)s, %(burst)s - %(n)s, clock_timestamp())
ON CONFLICT (bucket) DO UPDATE SET
  tokens = least(%(burst)s, b.tokens + extract(epoch FROM clock_timestamp() - b.stamp) * %(rate)s) - %(n)s,
  stamp = clock_timestamp()
WHERE least(%(burst)s, b.tokens + extract(epoch FROM clock_timestamp() - b.stamp) * %(rate)s) >= %(n)s
RETURNING tokens"""


class PostgresState:
    """Idempotency keys, approvals and rate buckets in PostgreSQL, shared by every replica."""

    durable = True

    def __init__(self, url: str, pool_size: int = 4) -> None:
        from orchestrator.shared_state import STALE_DECISION_S

        self.stale_decision_s = STALE_DECISION_S
        # threads of its own, one per connection: a call never queues behind other blocking work
        # (log reads, lease updates) in the loop's default executor while the database is slow
        self._threads = ThreadPoolExecutor(pool_size, thread_name_prefix="metis-shared")
        self._pool = ConnectionPool(url, min_size=0, max_size=pool_size, timeout=2.0, open=True,
                                    kwargs={"autocommit": True, "connect_timeout": 5,
                                            "application_name": "metis-shared"},
                                    name="metis-shared")

    def _run(self, sql: str, args: Any, fetch: bool = True) -> list[tuple[Any, ...]]:
        for attempt in (1, 2):
            try:
                with self._pool.connection() as conn:
                    cur = conn.execute(sql, args)
                    return cur.fetchall() if fetch and cur.description is not None else [(cur.rowcount,)]
            except (*CONNECTION_ERRORS, PoolTimeout) as exc:
                if attempt == 2:
                    raise unavailable(exc, "shared state") from None
        raise AssertionError("unreachable")

    async def _q(self, sql: str, args: Any) -> list[tuple[Any, ...]]:
        return await asyncio.get_running_loop().run_in_executor(self._threads, self._run, sql, args)

    # -- idempotency keys ----------------------------------------------------------------------

    async def claim_key(self, tenant: str, key: str, params_hash: str, action_id: str) -> tuple[str, str, float] | None:
        while True:
            if await self._q(_CLAIM, (tenant, key, action_id, params_hash)):
                return None
            rows = await self._q(_HOLDER, (tenant, key))
            if rows:  # else released between the two statements: claim again
                return rows[0][0], rows[0][1], float(rows[0][2])

    async def take_over_key(self, tenant: str, key: str, stale_action_id: str, action_id: str) -> bool:
        return (await self._q(_TAKE_OVER, (action_id, tenant, key, stale_action_id)))[0][0] == 1

    async def release_key(self, tenant: str, key: str, action_id: str) -> None:
        await self._q("DELETE FROM metis_idempotency_keys WHERE tenant = %s AND key = %s AND action_id = %s",
                      (tenant, key, action_id))

    # -- approvals -----------------------------------------------------------------------------

    @staticmethod
    def _row(body: dict[str, Any]) -> tuple[Any, ...]:
        return (body["approval_id"], body["tenant"], body["kind"], body["requested_by"], body["status"], Jsonb(body))

    async def approval_put(self, body: dict[str, Any]) -> None:
        await self._q(_PUT, self._row(body))

    async def approval_get(self, approval_id: str) -> dict[str, Any] | None:
        rows = await self._q("SELECT body FROM metis_approvals WHERE approval_id = %s", (approval_id,))
        return rows[0][0] if rows else None

    async def approvals_of(self, tenant: str, kind: str | None = None, requested_by: str | None = None,
                           status: str | None = None) -> list[dict[str, Any]]:
        rows = await self._q(
            "SELECT body FROM metis_approvals WHERE tenant = %s AND (%s::text IS NULL OR kind = %s) "
            "AND (%s::text IS NULL OR requested_by = %s) AND (%s::text IS NULL OR status = %s) ORDER BY created_seq",
            (tenant, kind, kind, requested_by, requested_by, status, status))
        return [r[0] for r in rows]

    async def approval_begin(self, approval_id: str) -> bool:
        return (await self._q(_BEGIN, (approval_id, self.stale_decision_s)))[0][0] == 1

    async def approval_end(self, approval_id: str, decided: dict[str, Any] | None) -> None:
        if decided is None:
            await self._q("UPDATE metis_approvals SET deciding_since = NULL WHERE approval_id = %s", (approval_id,))
        else:
            await self._q(_PUT, self._row(decided))

    def approvals_load(self, bodies: list[dict[str, Any]]) -> None:
        if not bodies:
            return
        try:
            with self._pool.connection() as conn, conn.cursor() as cur:
                cur.executemany(_LOAD, [self._row(b) for b in bodies])
        except (*CONNECTION_ERRORS, PoolTimeout) as exc:
            raise unavailable(exc, "shared state") from None

    # -- rate buckets --------------------------------------------------------------------------

    async def take(self, bucket: str, rate: float, burst: float, n: float = 1.0) -> bool:
        return bool(await self._q(_TAKE, {"bucket": bucket, "rate": rate, "burst": burst, "n": n}))

    def close(self) -> None:
        self._threads.shutdown(wait=False, cancel_futures=True)
        self._pool.close()

