"""The scheduler's ordered path to the log: nothing is shown before it is durable, nothing is dropped.

Every record the scheduler writes goes through one ``Outbox``. Groups are appended in the order
they were put, one ``append`` at a time (everything queued meanwhile rides in the next one), and
each group's callbacks run only after its records are durable: that is where a view becomes
visible, an end wakes its waiters, and so on.

When storage refuses a write (disk full, I/O error, database down):
- a group put by a client call (``commit``) fails at once with ``StorageUnavailable`` and leaves
  nothing behind (the caller undoes what it prepared);
- the scheduler's own groups (a running action's events and states) are kept, in order, and retried
  with backoff until storage returns: an action may stall, but no record is lost or reordered;
- ``failing`` names the problem (``/readyz`` answers 503 with it); while idle and failing, the
  ``probe`` (a small write next to the log) is tried with the same backoff, so the service becomes
  ready again by itself when space returns.

A run's start (its ``running`` state with ``run.start``) may wait up to ``LINGER_S`` for company
when nothing else is queued: the worker has just been sent the run, and a short run's end then
rides in the same commit instead of queueing behind a commit of its own (one fsync less between
``actions.start`` and ``action_completed``). Anything else put meanwhile ends the wait at once.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

import structlog

from orchestrator.errors import StorageUnavailable
from receipts.log import Entry, Record

log = structlog.get_logger("metis.outbox")
Callback = Callable[[list[Record]], None]
Probe = Callable[[], Awaitable[bool]]
MAX_BACKOFF_S = 2.0
STALL_S = 15.0
LINGER_S = 0.005


class _Group:
    """Records put together, their after-durable callbacks, and the client's future if any (a
    plain class with slots: one is made for every event a running action emits)."""

    __slots__ = ("callbacks", "entries", "future", "hold_until")

    def __init__(self, entries: list[Entry], callbacks: list[Callback],
                 future: asyncio.Future[list[Record]] | None = None) -> None:
        self.entries = entries
        self.callbacks = callbacks
        self.future = future
        self.hold_until = 0.0  # loop time before which this group alone does not start an append


def _is_run_start(entries: list[Entry]) -> bool:
    """The record of a fresh run starting (not a resume): its end is likely close behind."""
    if not entries or entries[0].type != "state" or entries[0].name != "running":
        return False
    payload = entries[0].payload
    run = payload.get("run") if isinstance(payload, dict) else None
    return isinstance(run, dict) and run.get("start") is True


class Outbox:
    """Ordered, retried appends with after-durable callbacks (one per scheduler)."""

    def __init__(self, receipt_log: Any, probe: Probe | None = None) -> None:
        self.log = receipt_log
        self.probe = probe
        self.failing: str | None = None
        self.failures_total = 0
        self._queue: deque[_Group] = deque()
        self._wake = asyncio.Event()
        self._task: asyncio.Task | None = None

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name="scheduler-outbox")

    async def close(self) -> None:
        """Flush what is queued (if storage takes it), then stop."""
        if self._task is None:
            return
        for _ in range(50):
            if not self._queue or self.failing:
                break
            await asyncio.sleep(0.02)
        self._task.cancel()
        await asyncio.gather(self._task, return_exceptions=True)
        self._task = None

    @property
    def queued(self) -> int:
        return len(self._queue)

    def put(self, entries: list[Entry], *callbacks: Callback) -> None:
        """Queue records of the scheduler's own; retried until durable, callbacks after that."""
        group = _Group(entries, [c for c in callbacks if c is not None] if callbacks else [])
        if _is_run_start(entries):
            group.hold_until = asyncio.get_running_loop().time() + LINGER_S
        self._queue.append(group)
        self._wake.set()

    async def commit(self, entries: list[Entry], *callbacks: Callback) -> list[Record]:
        """Append for a client call: the durable records, or ``StorageUnavailable`` at once."""
        if self.failing:
            raise StorageUnavailable(f"storage unavailable: {self.failing}")
        fut: asyncio.Future[list[Record]] = asyncio.get_running_loop().create_future()
        self._queue.append(_Group(entries, [c for c in callbacks if c is not None], fut))
        self._wake.set()
        return await fut

    async def flush(self) -> None:
        """Wait until everything queued before this call is durable (however long storage takes)."""
        done = asyncio.Event()
        self._queue.append(_Group([], [lambda _records: done.set()]))
        self._wake.set()
        await done.wait()

    async def _run(self) -> None:
        backoff = 0.05
        while True:
            if not self._queue:
                if self.failing:
                    await asyncio.sleep(backoff)
                    backoff = min(MAX_BACKOFF_S, backoff * 2)
                    if self.probe is None or await self.probe():  # without a probe, the next append tells
                        log.warning("storage_recovered", was=self.failing)
                        self.failing = None
                    continue
                self._wake.clear()
                await self._wake.wait()
                continue
            if await self._held():
                continue
            batch = list(self._queue)
            self._queue.clear()
            try:
                await self._append(batch)
            except _Refused as exc:
                self.failures_total += 1
                if self.failing is None:
                    log.error("storage_unavailable", error=exc.reason)
                self.failing = exc.reason
                kept = [g for g in batch[exc.index:] if g.future is None]
                for g in batch[exc.index:]:
                    if g.future is not None and not g.future.done():
                        g.future.set_exception(StorageUnavailable(f"storage unavailable: {exc.reason}"))
                self._queue.extendleft(reversed(kept))
                await asyncio.sleep(backoff)
                backoff = min(MAX_BACKOFF_S, backoff * 2)
                continue
            if self.failing:
                log.warning("storage_recovered", was=self.failing)
            self.failing = None
            backoff = 0.05

    async def _held(self) -> bool:
        """True after waiting (for more groups or the end of a linger) when every queued group is
        a lingering run start; False when the queue should be appended now."""
        loop = asyncio.get_running_loop()
        now = loop.time()
        if any(g.hold_until <= now for g in self._queue):
            return False
        self._wake.clear()
        timer = loop.call_at(min(g.hold_until for g in self._queue), self._wake.set)
        try:
            await self._wake.wait()
        finally:
            timer.cancel()
        for g in self._queue:  # the wait is over: whatever is queued now goes in the next append
            g.hold_until = 0.0
        return True

    async def _append(self, batch: list[_Group]) -> None:
        """All groups in one append; if one group's payload cannot be written, one by one."""
        entries = [e for g in batch for e in g.entries]
        try:
            records = await self._watched(self.log.append(entries)) if entries else []
        except ValueError:  # a payload that is not JSON text: fail that group alone
            for i, g in enumerate(batch):
                try:
                    recs = await self.log.append(g.entries)
                except ValueError as exc:
                    log.error("record_not_appendable", error=str(exc)[:300])
                    if g.future is not None and not g.future.done():
                        g.future.set_exception(exc)
                    continue
                except Exception as exc:
                    raise _Refused(i, _reason(exc)) from exc
                self._done(g, recs)
            return
        except Exception as exc:
            raise _Refused(0, _reason(exc)) from exc
        pos = 0
        for g in batch:
            n = len(g.entries)
            if g.callbacks or g.future is not None:  # most groups are one event with nothing to call
                self._done(g, records[pos:pos + n])
            pos += n

    async def _watched(self, append: Awaitable[list[Record]]) -> list[Record]:
        """Await an append; one that hangs (a stuck writer, a database that does not answer) is
        reported as not ready after ``STALL_S`` instead of looking healthy forever. A timer, not a
        task and ``asyncio.wait``: those cost two extra loop turns on every append."""
        timer = asyncio.get_running_loop().call_later(STALL_S, self._stalled)
        try:
            return await append
        finally:
            timer.cancel()

    def _stalled(self) -> None:
        if self.failing is None:
            log.error("storage_stalled", seconds=STALL_S)
            self.failing = f"a log append has not finished for {STALL_S:.0f} s"

    @staticmethod
    def _done(g: _Group, recs: list[Record]) -> None:
        for cb in g.callbacks:
            try:
                cb(recs)
            except Exception:
                log.exception("after_durable_callback_failed")
        if g.future is not None and not g.future.done():
            g.future.set_result(recs)


class _Refused(Exception):
    def __init__(self, index: int, reason: str) -> None:
        super().__init__(reason)
        self.index = index
        self.reason = reason


def _reason(exc: BaseException) -> str:
    text = str(exc)
    prefix = "receipt log commit failed: "
    return (text[len(prefix):] if text.startswith(prefix) else text)[:200] or type(exc).__name__
