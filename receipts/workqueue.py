"""The work queue on PostgreSQL: claims under leases, heartbeats, fencing epochs and a rescuer.

Modelled on River and Oban: a job row per action; workers claim with ``FOR UPDATE SKIP LOCKED``
(claimers never wait on each other's rows), the claim sets a lease (``lease_until``) that the
worker renews with heartbeats, and a rescuer returns jobs whose lease expired (the worker died
or hung) to the queue, or ends them ``failed`` once ``max_attempts`` are used. Every claim
increments ``epoch``; a worker passes ``Fence(action_id, epoch)`` to
``PostgresReceiptLog.append(..., fence=...)`` and the append is refused (``FencedOut``) unless the
job is still running under that epoch, so a worker that lost its lease can no longer write.

A job waiting on a person is ``parked``: it holds no worker and no lease; ``wake`` makes it
available again and any worker resumes it (by replaying its recorded history). Enqueue and wake
NOTIFY ``metis_jobs`` so idle workers claim at once instead of at their next poll.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool

from receipts import migrations
from receipts.postgres import CONNECTION_ERRORS, connect, unavailable
from receipts.store import Fence

CHANNEL = "metis_jobs"
RESCUER_LOCK = migrations.lock_key("metis:rescuer")
CLAIM_COOLDOWN_S = 0.02  # claim_wait: the least time between a claim that emptied the queue and the next
_RETURNING = "action_id, tenant, kind, payload, attempt, max_attempts, epoch, owner"
# the running jobs of one owner, row-locked in action_id order: the order in which a fenced append
# share-locks them (migration 0007). A statement that locked several in heap order instead could
# deadlock with a concurrent append of the same process (each holding a row the other waits for):
# PostgreSQL broke it after deadlock_timeout (1 s), failing the append, while that append's
# transaction held the log's lock, so every writer of every process stalled for that second.
_OWN_ROWS = "SELECT action_id FROM metis_jobs WHERE owner = %s AND state = 'running' ORDER BY action_id FOR NO KEY UPDATE"


@dataclass(frozen=True)
class Lease:
    """A claimed job."""

    action_id: str
    tenant: str
    kind: str
    payload: dict[str, Any]
    attempt: int
    max_attempts: int
    epoch: int
    owner: str

    @property
    def fence(self) -> Fence:
        return Fence(self.action_id, self.epoch)


def retry_delay_s(attempt: int, base: float = 1.0, cap: float = 60.0) -> float:
    """Backoff before attempt ``attempt + 1``: 1, 2, 4, ... seconds, capped."""
    return min(cap, base * 2 ** max(0, attempt - 1))


class WorkQueue:
    """Enqueue, claim, heartbeat, park, wake, complete, retry, rescue. Thread-safe: one short
    connection per call (pass ``conn`` to join a transaction of yours)."""

    def __init__(self, url: str, lease_s: float = 10.0, pool_size: int = 4) -> None:
        self.url = url
        self.lease_s = lease_s
        self._pool = ConnectionPool(url, min_size=0, max_size=pool_size, timeout=2.0, open=False, name="metis-queue",
                                    kwargs={"autocommit": True, "connect_timeout": 5, "application_name": "metis-queue"})
        self._opened = False
        self._listener: psycopg.Connection | None = None
        self._full = False  # the last claim_wait filled every slot asked: more may be waiting
        self._drained_at = float("-inf")  # when a claim last got fewer jobs than asked (see claim_wait)

    def close(self) -> None:
        if self._listener is not None:
            self._listener.close()
            self._listener = None
        if self._opened:
            self._pool.close()
            self._opened = False

    def _open(self) -> None:
        if not self._opened:
            self._pool.open()
            self._opened = True

    def _run(self, sql: str, args: tuple[Any, ...], conn: psycopg.Connection | None = None) -> list[dict[str, Any]]:
        try:
            if conn is not None:
                with conn.cursor(row_factory=dict_row) as cur:
                    cur.execute(sql, args)
                    return cur.fetchall() if cur.description else []
            self._open()
            with self._pool.connection() as own, own.cursor(row_factory=dict_row) as cur:
                cur.execute(sql, args)
                return cur.fetchall() if cur.description else []
        except CONNECTION_ERRORS as exc:
            raise unavailable(exc, "queue") from None

    def enqueue(self, action_id: str, tenant: str, kind: str, payload: dict[str, Any] | None = None,
                max_attempts: int = 3, conn: psycopg.Connection | None = None) -> bool:
        """Add a job (once: a second enqueue of the same action is a no-op); True if added."""
        rows = self._run(
            "WITH added AS (INSERT INTO metis_jobs (action_id, tenant, kind, payload, max_attempts) "
            "VALUES (%s, %s, %s, %s, %s) ON CONFLICT (action_id) DO NOTHING RETURNING action_id) "
            "SELECT action_id, pg_notify(%s, action_id) FROM added",
            (action_id, tenant, kind, json.dumps(payload or {}), max_attempts, CHANNEL), conn)
        return bool(rows)

    def claim(self, owner: str, limit: int = 1, kinds: list[str] | None = None) -> list[Lease]:
        """Take up to ``limit`` available jobs (oldest first), skipping rows other claimers hold."""
        kind_filter = "AND kind = ANY(%s)" if kinds else ""
        args: tuple[Any, ...] = ((kinds,) if kinds else ()) + (limit, owner, self.lease_s)
        rows = self._run(
            "WITH next AS (SELECT action_id FROM metis_jobs WHERE state = 'available' AND run_after <= now() "
            f"{kind_filter} ORDER BY run_after, created_at FOR UPDATE SKIP LOCKED LIMIT %s) "
            "UPDATE metis_jobs j SET state = 'running', owner = %s, epoch = j.epoch + 1, attempt = j.attempt + 1, "
            "lease_until = now() + make_interval(secs => %s), updated_at = now() "
            f"FROM next WHERE j.action_id = next.action_id RETURNING {', '.join('j.' + c for c in _RETURNING.split(', '))}",
            args)
        return [Lease(**r) for r in rows]

    def claim_wait(self, owner: str, timeout_s: float, limit: int = 1, poll_s: float = 1.0) -> list[Lease]:
        """``claim``, waiting up to ``timeout_s`` for an enqueue/wake NOTIFY (or polling every ``poll_s``).
        The LISTEN connection is kept between calls (one claimer thread at a time uses it), so a
        notification that arrives while the caller adopts its last jobs waits for the next call: a
        claim is made only when something may be there (the first call, a notification since the
        last claim, a last claim that filled every slot, a poll), not on every call.

        Every NOTIFY wakes every idle claimer of every process, and only one of them gets the job.
        A claimer whose last claim emptied the queue (it got fewer jobs than it asked for) claims
        again at most ``CLAIM_COOLDOWN_S`` after it, gathering the notifications of that moment
        into one claim (River's fetch cooldown, Oban's dispatch cooldown): a job costs about one
        claim instead of one per idle process, and claims take several jobs at once when they
        arrive faster than the cooldown. A claimer that drains nothing (a backlog) is not held."""
        deadline = time.monotonic() + timeout_s
        try:
            fresh = self._listener is None or self._listener.closed
            if fresh:  # LISTEN before the first claim: a job added in between is not missed
                self._listener = connect(self.url, app="metis-queue-listen")
                self._listener.execute(f"LISTEN {CHANNEL}")
            listener = self._listener
            assert listener is not None
            woken = fresh or self._full or bool(list(listener.notifies(timeout=0.0)))
            got: list[Lease] = []
            while True:
                if woken:
                    # within the cooldown: let the notifications gather (and drain them) first
                    rest = min(self._drained_at + CLAIM_COOLDOWN_S, deadline) - time.monotonic()
                    for _ in listener.notifies(timeout=max(0.0, rest)):
                        pass
                    got = self.claim(owner, limit)  # also after a quiet poll: a retry's backoff ran out
                    if len(got) < limit:
                        self._drained_at = time.monotonic()
                    if got:
                        break
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                woken = bool(list(listener.notifies(timeout=min(poll_s, left), stop_after=1)))
                if not woken and left < poll_s:
                    break  # the call's time is up before the next poll: the next call polls
                woken = True
            self._full = len(got) >= limit
            return got
        except CONNECTION_ERRORS as exc:
            if self._listener is not None:
                self._listener.close()
                self._listener = None
            raise unavailable(exc, "queue") from None

    def take(self, action_id: str, tenant: str, kind: str, owner: str,
             payload: dict[str, Any] | None = None, max_attempts: int = 3) -> Lease | None:
        """Claim one named action for ``owner``: creates its job if there is none, or takes it over when
        it is available, parked, ended (a revision runs it again) or running under an expired lease.
        None while another owner's lease is live. This is how a replica that accepted (or, at start-up, found) an action makes sure no
        other replica runs it at the same time."""
        rows = self._run(
            "INSERT INTO metis_jobs AS j (action_id, tenant, kind, payload, max_attempts, state, owner, epoch, attempt, "
            "lease_until) VALUES (%s, %s, %s, %s, %s, 'running', %s, 1, 1, now() + make_interval(secs => %s)) "
            "ON CONFLICT (action_id) DO UPDATE SET state = 'running', owner = EXCLUDED.owner, epoch = j.epoch + 1, "
            "attempt = j.attempt + 1, lease_until = EXCLUDED.lease_until, updated_at = now() "
            "WHERE j.state IN ('available', 'parked', 'done', 'failed') OR (j.state = 'running' AND j.lease_until < now()) "
            f"RETURNING {', '.join('j.' + c for c in _RETURNING.split(', '))}",
            (action_id, tenant, kind, json.dumps(payload or {}), max_attempts, owner, self.lease_s))
        return Lease(**rows[0]) if rows else None

    def renew_all(self, owner: str) -> int:
        """One heartbeat for every job ``owner`` runs; returns how many leases it holds."""
        return len(self.renew_held(owner))

    def renew_held(self, owner: str) -> set[str]:
        """One heartbeat for every job ``owner`` runs (a worker renews all its leases in one statement);
        returns the actions whose leases it still holds (one missing was rescued or revoked)."""
        return {r["action_id"] for r in self._run(
            f"WITH mine AS ({_OWN_ROWS}) UPDATE metis_jobs j SET lease_until = now() + make_interval(secs => %s), "
            "updated_at = now() FROM mine WHERE j.action_id = mine.action_id RETURNING j.action_id",
            (owner, self.lease_s))}

    def submit(self, action_id: str, tenant: str, kind: str, parked: bool = False, max_attempts: int = 1000) -> bool:
        """An action is ready to run (``parked``: it waits on something, make sure its job exists):
        add its job, or make a parked or ended one (a new revision) available again. A running job
        is left alone. NOTIFYs claimers when a job became available; True if it did."""
        state = "parked" if parked else "available"
        revive = "" if parked else "DO UPDATE SET state = 'available', attempt = 0, run_after = now(), updated_at = now() " \
                                   "WHERE j.state IN ('parked', 'done', 'failed')"
        rows = self._run(
            "WITH added AS (INSERT INTO metis_jobs AS j (action_id, tenant, kind, state, max_attempts) "
            f"VALUES (%s, %s, %s, %s, %s) ON CONFLICT (action_id) {revive or 'DO NOTHING'} "
            "RETURNING j.action_id, j.state) "
            "SELECT action_id, CASE WHEN state = 'available' THEN pg_notify(%s, action_id) END FROM added",
            (action_id, tenant, kind, state, max_attempts, CHANNEL))
        return bool(rows) and not parked

    def revoke(self, action_id: str) -> bool:
        """Take an action away from whoever runs it (it was cancelled elsewhere): the job is done and
        its epoch moves on, so the holder's next fenced append is refused. True if there was a job."""
        return bool(self._run(
            "UPDATE metis_jobs SET state = 'done', epoch = epoch + 1, owner = NULL, lease_until = NULL, "
            "updated_at = now() WHERE action_id = %s RETURNING action_id", (action_id,)))

    def release_all(self, owner: str) -> int:
        """Let go of every lease ``owner`` holds (a replica shutting down cleanly): the jobs can be
        taken at once instead of after their leases lapse. Returns how many."""
        return len(self._run(f"WITH mine AS ({_OWN_ROWS}) UPDATE metis_jobs j SET lease_until = now() - interval "
                             "'1 millisecond', updated_at = now() FROM mine WHERE j.action_id = mine.action_id "
                             "RETURNING j.action_id", (owner,)))

    def heartbeat(self, lease: Lease) -> bool:
        """Extend the lease; False if it was lost (expired and rescued, or claimed again)."""
        return bool(self._run("UPDATE metis_jobs SET lease_until = now() + make_interval(secs => %s), updated_at = now() "
                              "WHERE action_id = %s AND epoch = %s AND state = 'running' RETURNING action_id",
                              (self.lease_s, lease.action_id, lease.epoch)))

    def _end(self, lease: Lease, state: str, error: str | None = None,
             run_after_s: float = 0.0, conn: psycopg.Connection | None = None) -> bool:
        return bool(self._run(
            "UPDATE metis_jobs SET state = %s, owner = NULL, lease_until = NULL, last_error = COALESCE(%s, last_error), "
            "run_after = now() + make_interval(secs => %s), updated_at = now() "
            "WHERE action_id = %s AND epoch = %s AND state = 'running' RETURNING action_id",
            (state, error, run_after_s, lease.action_id, lease.epoch), conn))

    def complete(self, lease: Lease, conn: psycopg.Connection | None = None) -> bool:
        """The action ended (whatever its outcome): the job is done. False if the lease was lost."""
        return self._end(lease, "done", conn=conn)

    def park(self, lease: Lease) -> bool:
        """The action waits on a person, an approval or a sub-action: release the worker and the lease."""
        return self._end(lease, "parked")

    def wake(self, action_id: str) -> bool:
        """What a parked action waited for arrived: make it claimable (any replica may call this)."""
        return bool(self._run(
            "WITH woken AS (UPDATE metis_jobs SET state = 'available', attempt = 0, run_after = now(), updated_at = now() "
            "WHERE action_id = %s AND state = 'parked' RETURNING action_id) "
            "SELECT action_id, pg_notify(%s, action_id) FROM woken", (action_id, CHANNEL)))

    def retry(self, lease: Lease, error: str) -> str:
        """The attempt failed: back to the queue after a backoff, or ``failed`` when attempts are used up.
        Returns the new state ('' if the lease was lost)."""
        if lease.attempt >= lease.max_attempts:
            return "failed" if self._end(lease, "failed", error) else ""
        return "available" if self._end(lease, "available", error, retry_delay_s(lease.attempt)) else ""

    def rescue(self) -> dict[str, list[str]]:
        """Jobs whose lease expired: back to ``available`` (attempts left) or ``failed``. One rescuer at a
        time (a transaction-scoped advisory lock; the others skip)."""
        try:
            # a pooled connection: every process rescues every poll, and a new connection per poll
            # costs the database a backend start each time (more CPU than the rescue itself)
            self._open()
            with self._pool.connection() as conn, conn.transaction():
                if not conn.execute("SELECT pg_try_advisory_xact_lock(%s)", (RESCUER_LOCK,)).fetchone()[0]:
                    return {"requeued": [], "failed": []}
                rows = conn.execute(
                    "WITH stale AS (SELECT action_id FROM metis_jobs WHERE state = 'running' AND lease_until < now() "
                    "FOR UPDATE SKIP LOCKED) "
                    "UPDATE metis_jobs j SET state = CASE WHEN j.attempt >= j.max_attempts THEN 'failed' ELSE 'available' END, "
                    "owner = NULL, lease_until = NULL, run_after = now(), updated_at = now(), "
                    "last_error = 'lease expired (worker ' || COALESCE(j.owner, '?') || ' stopped heartbeating)' "
                    "FROM stale WHERE j.action_id = stale.action_id RETURNING j.action_id, j.state").fetchall()
                if any(state == "available" for _, state in rows):
                    conn.execute("SELECT pg_notify(%s, 'rescued')", (CHANNEL,))
        except CONNECTION_ERRORS as exc:
            raise unavailable(exc, "rescue") from None
        return {"requeued": [a for a, s in rows if s == "available"], "failed": [a for a, s in rows if s == "failed"]}

    def get(self, action_id: str) -> dict[str, Any] | None:
        rows = self._run("SELECT * FROM metis_jobs WHERE action_id = %s", (action_id,))
        return rows[0] if rows else None

    def counts(self) -> dict[str, int]:
        return {r["state"]: r["n"] for r in self._run("SELECT state, count(*) AS n FROM metis_jobs GROUP BY state", ())}
