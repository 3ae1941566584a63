"""What every replica must agree on, behind one small interface: idempotency keys, approvals, rate buckets.

One process on a SQLite data directory is the only one that starts actions, decides approvals and
counts requests, so ``LocalState`` keeps these in memory, exactly as before (approvals are rebuilt
from the log at start, the scheduler's own table answers repeated idempotency keys). Replicas on one
PostgreSQL database share them through ``orchestrator/shared_state_pg.py`` (tables of migration
0005): claiming a key, deciding an approval and taking a token are each one atomic statement, so
two replicas never both win. ``open_shared_state`` picks the driver from the log's engine; the
scheduler, approvals and service above it only see ``SharedState``.

Every driver raises ``StorageUnavailable`` when its storage does not answer (the ToolBus turns it
into the retryable -32053), never a driver's own exception.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, Protocol

from orchestrator.errors import CONFLICT, RpcError, StorageUnavailable
from orchestrator.ratelimit import TokenBucket
from receipts.store import ReceiptStore, is_postgres_url

#: A claimed key whose action is still not in the log after this long is taken to have failed
#: (its replica died between the claim and the ``created`` record): a new start may take it over.
STALE_CLAIM_S = 15.0
#: A decision begun this long ago and never ended (its replica died mid-way) no longer blocks others.
STALE_DECISION_S = 30.0


class StartedElsewhere(Exception):
    """The idempotency key belongs to an action that another replica started (same params)."""

    def __init__(self, action_id: str) -> None:
        super().__init__(action_id)
        self.action_id = action_id


class SharedState(Protocol):
    """The storage interface: one driver per engine (``LocalState``, ``PostgresState``)."""

    #: True when the state outlives the process (then approvals need no rebuild from the log).
    durable: bool

    async def claim_key(self, tenant: str, key: str, params_hash: str, action_id: str) -> tuple[str, str, float] | None:
        """Claim ``(tenant, key)`` for ``action_id``: None if claimed, else the holder's
        ``(action_id, params_hash, age_s)``."""
        ...

    async def take_over_key(self, tenant: str, key: str, stale_action_id: str, action_id: str) -> bool:
        """Move a stale claim to ``action_id``; False if someone else moved it first."""
        ...

    async def release_key(self, tenant: str, key: str, action_id: str) -> None:
        """Drop ``action_id``'s claim (its ``created`` record was refused)."""
        ...

    async def approval_put(self, body: dict[str, Any]) -> None:
        """Insert or replace an approval (its log record is durable already)."""
        ...

    async def approval_get(self, approval_id: str) -> dict[str, Any] | None: ...

    async def approvals_of(self, tenant: str, kind: str | None = None, requested_by: str | None = None,
                           status: str | None = None) -> list[dict[str, Any]]:
        """The tenant's approvals matching the filters, oldest first."""
        ...

    async def approval_begin(self, approval_id: str) -> bool:
        """Start deciding a pending approval: False if it is not pending or being decided elsewhere."""
        ...

    async def approval_end(self, approval_id: str, decided: dict[str, Any] | None) -> None:
        """End a decision: store ``decided``, or (None) leave the approval pending again."""
        ...

    def approvals_load(self, bodies: list[dict[str, Any]]) -> None:
        """At start: the approvals as the log holds them (newest body per id)."""
        ...

    async def take(self, bucket: str, rate: float, burst: float, n: float = 1.0) -> bool:
        """Spend ``n`` tokens of ``bucket`` (refilled at ``rate``/s up to ``burst``) if it has them."""
        ...

    def close(self) -> None: ...


class LocalState:
    """The embedded driver: this process is the only one, so memory is exact."""

    durable = False

    def __init__(self, clock: Any = time.monotonic) -> None:
        self._approvals: dict[str, dict[str, Any]] = {}
        self._deciding: set[str] = set()
        self._buckets: dict[str, TokenBucket] = {}
        self._clock = clock

    async def claim_key(self, tenant: str, key: str, params_hash: str, action_id: str) -> tuple[str, str, float] | None:
        return None  # the scheduler's own table (rebuilt from the log) already answered a known key

    async def take_over_key(self, tenant: str, key: str, stale_action_id: str, action_id: str) -> bool:
        return True

    async def release_key(self, tenant: str, key: str, action_id: str) -> None:
        return None

    async def approval_put(self, body: dict[str, Any]) -> None:
        self._approvals[body["approval_id"]] = body

    async def approval_get(self, approval_id: str) -> dict[str, Any] | None:
        return self._approvals.get(approval_id)

    async def approvals_of(self, tenant: str, kind: str | None = None, requested_by: str | None = None,
                           status: str | None = None) -> list[dict[str, Any]]:
        return [b for b in self._approvals.values() if b["tenant"] == tenant
                and (kind is None or b["kind"] == kind) and (status is None or b["status"] == status)
                and (requested_by is None or b["requested_by"] == requested_by)]

    async def approval_begin(self, approval_id: str) -> bool:
        body = self._approvals.get(approval_id)
        if body is None or body["status"] != "pending" or approval_id in self._deciding:
            return False
        self._deciding.add(approval_id)
        return True

    async def approval_end(self, approval_id: str, decided: dict[str, Any] | None) -> None:
        self._deciding.discard(approval_id)
        if decided is not None:
            self._approvals[approval_id] = decided

    def approvals_load(self, bodies: list[dict[str, Any]]) -> None:
        for body in bodies:
            self._approvals[body["approval_id"]] = body

    async def take(self, bucket: str, rate: float, burst: float, n: float = 1.0) -> bool:
        b = self._buckets.get(bucket)
        if b is None or (b.rate, b.burst) != (rate, burst):
            b = self._buckets[bucket] = TokenBucket(rate, burst, self._clock)
        return b.take(n)

    def close(self) -> None:
        return None


def open_shared_state(receipt_log: ReceiptStore) -> SharedState:
    """The driver that goes with the log's engine: PostgreSQL tables for a PostgreSQL log, else memory."""
    url = getattr(receipt_log, "url", None)
    if is_postgres_url(url):
        from orchestrator.shared_state_pg import PostgresState

        return PostgresState(url)  # type: ignore[arg-type]
    return LocalState()


class KeyClaims:
    """Idempotency keys across replicas: a start claims its key before its ``created`` record.

    The scheduler answers a key it knows from its own table; a key it does not know is claimed in
    the shared state. A key held by another action with other params is -32009 (as on one
    machine); with the same params the caller gets ``StartedElsewhere`` once that action's
    ``created`` record is in the log (waiting, like a second start on one machine waits for the
    first). A claim whose action never reached the log (its replica died in between) is taken over
    after ``STALE_CLAIM_S``."""

    def __init__(self, state: SharedState, receipt_log: ReceiptStore, poll_s: float = 0.05,
                 stale_s: float = STALE_CLAIM_S) -> None:
        self.state = state
        self.log = receipt_log
        self.poll_s = poll_s
        self.stale_s = stale_s

    async def _created(self, action_id: str) -> bool:
        return bool(await asyncio.to_thread(self.log.read_action, action_id, ["state"]))

    @asynccontextmanager
    async def claim(self, tenant: str, key: str | None, params_hash: str, action_id: str) -> AsyncIterator[None]:
        """Hold ``key`` for ``action_id`` around the commit of its ``created`` record (no key: nothing)."""
        if key is None:
            yield
            return
        while True:
            holder = await self.state.claim_key(tenant, key, params_hash, action_id)
            if holder is None:
                break
            other, other_hash, age_s = holder
            if other_hash != params_hash:
                raise RpcError(CONFLICT, "idempotency_key already used with other params", {"action_id": other})
            if await self._created(other):
                raise StartedElsewhere(other)
            if age_s >= self.stale_s and await self.state.take_over_key(tenant, key, other, action_id):
                break
            await asyncio.sleep(self.poll_s)  # its start is in flight on another replica
        try:
            yield
        except StorageUnavailable:  # nothing was recorded: the key is free again
            try:
                await self.state.release_key(tenant, key, action_id)
            except StorageUnavailable:
                pass  # the claim goes stale and is taken over
            raise
