"""The worker tier on PostgreSQL: every action runs where its job is leased, any process serves it.

With several processes on one database (``metis serve`` replicas, ``metis worker`` processes), each
action is one row of the work queue (``receipts/workqueue.py``) and runs only in the process that
holds its lease:

- a process with worker processes *claims* ready jobs (``FOR UPDATE SKIP LOCKED``, as many as it
  has free slots; NOTIFY wakes it) and the scheduler ``adopt``-s each: rebuilt from the log, then
  run, resumed by replay, or parked again. An action it starts itself it takes at once (no round
  trip through the queue); a replica with ``--workers 0`` only queues what it starts;
- a background thread renews every lease of the process in one statement (heartbeat) and runs
  the rescuer (one at a time, by advisory lock): a job whose lease lapsed (its worker died) is
  claimable again, so a running worker adopts it within a lease plus a poll;
- every append the scheduler makes for an action it holds carries the claim's fencing epoch
  (``Fence``); the database refuses it once the lease was lost (rescued, or revoked by a cancel
  elsewhere), and the scheduler drops the run (``Scheduler.forget``);
- an action that waits (on a person, a sub-action, a producer) releases its job (``parked``);
  whoever delivers what it waits for (an answer on any replica, a sub-action's end on any
  worker) wakes the job. A park re-reads the log afterwards, so a wake that raced it is not lost.

Views of every action follow the log in every process (the scheduler's mirrors), so any replica
answers ``actions.get``/``input``/``cancel`` for any action. Everything else is the wrapped log.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import socket
import threading
import time
from collections.abc import Callable, Coroutine
from typing import Any

import structlog

from receipts.log import Entry, Record
from receipts.store import Fence, FencedOut, ReceiptStore, StorageUnavailable
from receipts.workqueue import Lease, WorkQueue

log = structlog.get_logger("metis.replicas")
CLAIM_WAIT_S = 2.0


def replica_id() -> str:
    """This process, named for operators: host, pid and a random part (a restarted pid is another owner)."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"


class Tier:
    """This process's part in the worker tier: its leases and fences, claims, parks and wake-ups."""

    def __init__(self, queue: WorkQueue, owner: str | None = None) -> None:
        self.queue = queue
        self.owner = owner or replica_id()
        self.leases: dict[str, Lease] = {}  # actions this process runs; their appends show the lease's fence
        self.scheduler: Any = None
        self.claims = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._tasks: set[asyncio.Task] = set()
        self._slot: asyncio.Event | None = None
        self._stop = threading.Event()
        self._beat: threading.Thread | None = None

    # -- lifecycle -----------------------------------------------------------------------------

    async def start(self, scheduler: Any) -> None:
        """Begin heartbeats and rescues; claim jobs if this process has worker processes."""
        self.scheduler = scheduler
        self.claims = scheduler.pool.warm > 0
        self._loop = asyncio.get_running_loop()
        self._slot = asyncio.Event()
        self._stop.clear()
        self._beat = threading.Thread(target=self._beat_loop, name="tier-heartbeat", daemon=True)
        self._beat.start()
        if self.claims:
            self._spawn(self._claim_loop())

    def halt(self) -> None:
        """Claim nothing more (the scheduler is closing)."""
        self._stop.set()
        for t in list(self._tasks):
            t.cancel()

    def stop(self) -> None:
        """Stop claiming and heartbeating; let go of every lease so running workers adopt them now."""
        self.halt()
        if self._beat is not None:
            self._beat.join(timeout=5)
            self._beat = None
        try:
            self.queue.release_all(self.owner)
        except StorageUnavailable as exc:
            log.warning("lease_release_failed", error=str(exc)[:200])
        self.leases.clear()

    # -- what the scheduler asks -----------------------------------------------------------------

    def owns(self, action_id: str) -> bool:
        return action_id in self.leases

    async def take(self, a: Any) -> None:
        """An action this process just created: run it here if it has workers."""
        if not self.claims:
            return
        lease = await asyncio.to_thread(self.queue.take, a.action_id, a.tenant, a.ability, self.owner,
                                        None, 1000)
        if lease is not None:
            self._hold(lease)

    def submit(self, a: Any) -> None:
        """A ready action this process does not hold: make its job claimable."""
        self._spawn(self._call(self.queue.submit, a.action_id, a.tenant, a.ability))

    def offer(self, a: Any) -> None:
        """An action this process does not hold may be ready (it was created here, or something it
        waits on changed here): a queued one becomes claimable; for another, its job exists
        (parked) and is woken if the log says it can go on."""
        if str(a.status) == "queued":
            self.submit(a)
        else:
            self._spawn(self._park_new(a))

    def release(self, a: Any) -> None:
        """An action this process holds now waits: park its job once its records are durable (it
        stays held until then, so an answer given here meanwhile just resumes it here)."""
        if a.action_id in self.leases:
            self._spawn(self._park(a))

    def ended(self, a: Any) -> None:
        """An action's end is durable: its job is done; a parent parked anywhere is woken."""
        lease = self.leases.pop(a.action_id, None)
        if lease is not None:
            self._spawn(self._complete(lease))
        if a.parent_id is not None:
            self.wake(a.parent_id)

    def wake(self, action_id: str) -> None:
        self._spawn(self._call(self.queue.wake, action_id))

    def revoke(self, action_id: str) -> None:
        """Cancelled here while another process may run it: end its job and move the epoch on (one
        short statement, on the caller's thread so the cancel record follows it)."""
        try:
            self.queue.revoke(action_id)
        except StorageUnavailable as exc:
            log.warning("revoke_failed", action_id=action_id, error=str(exc)[:200])

    def slot_freed(self) -> None:
        if self._slot is not None:
            self._slot.set()

    # -- internals -------------------------------------------------------------------------------

    def _hold(self, lease: Lease) -> None:
        self.leases[lease.action_id] = lease

    def fence(self, action_id: str) -> Fence | None:
        lease = self.leases.get(action_id)
        return lease.fence if lease is not None else None

    def _spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        if self._loop is None or self._stop.is_set():
            coro.close()
            return
        task = self._loop.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _call(self, fn: Callable[..., Any], *args: Any) -> Any:
        """A queue call off the loop, retried while the database is away (wake-ups must not be lost)."""
        delay = 0.2
        while True:
            try:
                return await asyncio.to_thread(fn, *args)
            except StorageUnavailable as exc:
                log.warning("tier_call_retry", call=fn.__name__, error=str(exc)[:200])
                await asyncio.sleep(delay)
                delay = min(5.0, delay * 2)

    async def _park(self, a: Any) -> None:
        await self.scheduler.outbox.flush()  # its waiting records go in under its fence first
        if a.in_ready or a.worker is not None or a.ended_durably:
            return  # resumed here meanwhile (or ended): keep the lease
        lease = self.leases.pop(a.action_id, None)
        if lease is None:
            return
        await self._call(self.queue.park, lease)
        if await asyncio.to_thread(self.scheduler.ready_again, a.action_id):
            await self._call(self.queue.wake, a.action_id)

    async def _park_new(self, a: Any) -> None:
        await self.scheduler.outbox.flush()  # what changed here is in the log before it is read back
        await self._call(self.queue.submit, a.action_id, a.tenant, a.ability, True)
        if await asyncio.to_thread(self.scheduler.ready_again, a.action_id):
            await self._call(self.queue.wake, a.action_id)

    async def _complete(self, lease: Lease) -> None:
        await self._call(self.queue.complete, lease)

    async def _claim_loop(self) -> None:
        """Claim as many ready jobs as there are free slots, and adopt each."""
        assert self._slot is not None
        while not self._stop.is_set():
            free = self.scheduler.free_slots()
            if free <= 0:
                self._slot.clear()
                await self._slot.wait()
                continue
            try:
                leases = await asyncio.to_thread(self.queue.claim_wait, self.owner, CLAIM_WAIT_S, free)
            except StorageUnavailable as exc:
                log.warning("claim_failed", error=str(exc)[:200])
                await asyncio.sleep(1.0)
                continue
            for lease in leases:
                self._hold(lease)
                try:
                    outcome = await self.scheduler.adopt(lease.action_id)
                except Exception:
                    log.exception("adopt_failed", action_id=lease.action_id)
                    self.leases.pop(lease.action_id, None)
                    continue
                if outcome == "unknown":  # its records are not there (yet): leave it to the rescuer
                    self.leases.pop(lease.action_id, None)
                log.debug("adopted", action_id=lease.action_id, outcome=outcome, epoch=lease.epoch)

    def _beat_loop(self) -> None:
        """Heartbeat every third of a lease; rescue lapsed leases every poll (at most 1 s)."""
        beat_every = self.queue.lease_s / 3
        rescue_every = min(1.0, self.queue.lease_s / 4)
        next_beat = time.monotonic()
        while not self._stop.is_set():
            try:
                if time.monotonic() >= next_beat:
                    next_beat = time.monotonic() + beat_every
                    self._heartbeat()
                self.queue.rescue()
            except StorageUnavailable as exc:
                log.warning("heartbeat_failed", error=str(exc)[:200])
            self._stop.wait(rescue_every)

    def _heartbeat(self) -> None:
        mine = set(self.leases.copy())  # the loop thread changes it meanwhile (a copy is atomic)
        if not mine:
            return
        held = self.queue.renew_held(self.owner)
        for aid in mine - held:
            if aid in self.leases and self._loop is not None:
                self._loop.call_soon_threadsafe(self._lost, aid)

    def _lost(self, action_id: str) -> None:
        if self.leases.pop(action_id, None) is not None:
            self.scheduler.forget(action_id)


class TierStore:
    """The receipt log as a tier member writes to it: appends for actions it holds carry their fence
    (a refused one drops that action here, not the others of the batch). ``tier`` is what the
    scheduler works with."""

    def __init__(self, inner: ReceiptStore, queue: WorkQueue, owner: str | None = None) -> None:
        self._inner = inner
        self.queue = queue
        self.tier = Tier(queue, owner)

    @property
    def owner(self) -> str:
        return self.tier.owner

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def open(self) -> None:
        self._inner.open()

    def close(self) -> None:
        """Drain the log, then let go of every lease (the next worker takes them at once)."""
        self._inner.close()
        self.tier.stop()
        self.queue.close()

    def _runs(self, entries: list[Entry]) -> list[tuple[list[Entry], Fence | None]]:
        """Consecutive entries by fence (an action held here shows its claim's epoch)."""
        runs: list[tuple[list[Entry], Fence | None]] = []
        for e in entries:
            fence = self.tier.fence(e.action_id) if e.action_id else None
            if runs and runs[-1][1] == fence:
                runs[-1][0].append(e)
            else:
                runs.append(([e], fence))
        return runs

    async def append(self, entries: list[Entry], **kwargs: Any) -> list[Record]:
        runs = self._runs(entries)
        if all(f is None for _, f in runs):
            return await self._inner.append(entries, **kwargs)
        # every run is queued before the first is awaited: the writer still takes them in one batch
        results = await asyncio.gather(*(self._inner.append(es, fence=f) for es, f in runs),  # type: ignore[call-arg]
                                       return_exceptions=True)
        records: list[Record] = []
        for (es, fence), res in zip(runs, results, strict=True):
            if isinstance(res, FencedOut) and fence is not None:
                log.warning("append_fenced_out", action_id=fence.action_id, epoch=fence.epoch, records=len(es))
                if self.tier._loop is not None:
                    self.tier._loop.call_soon(self.tier._lost, fence.action_id)
                records.extend(_refused(e) for e in es)
            elif isinstance(res, BaseException):
                raise res
            else:
                records.extend(res)
        return records

    def append_sync(self, entries: list[Entry], **kwargs: Any) -> list[Record]:
        return self._inner.append_sync(entries, **kwargs)

    def submit(self, entries: list[Entry], **kwargs: Any) -> None:
        self._inner.submit(entries, **kwargs)


def _refused(e: Entry) -> Record:
    """Stands for a record a fence refused (seq 0: never in the log) so the batch's others line up."""
    return Record(0, e.type, e.name, e.tenant, e.topic, e.action_id, e.ref, None, b"", "")


def lease_seconds() -> float:
    return float(os.environ.get("METIS_LEASE_S", "10"))


def owned(store: ReceiptStore, database_url: str) -> TierStore:
    """Wrap a PostgreSQL-backed store for the worker tier (lease length from ``METIS_LEASE_S``, default 10 s)."""
    return TierStore(store, WorkQueue(database_url, lease_s=lease_seconds(), pool_size=8))

