"""Live fan-out of committed stream records to subscribers, with bounded buffers.

The log calls ``on_commit`` after each durable commit. A subscriber whose buffer is full is
dropped (it resumes from the log with its last id) instead of being buffered without bound.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator

from receipts.log import ReceiptLog, Record, stream_key

FIRST_CHUNK = 20  # small, so the first resumed event leaves quickly
BACKLOG_CHUNK = 500


class Dropped(Exception):
    """The subscriber fell too far behind and was dropped."""


class Subscriber:
    def __init__(self, key: str, limit: int) -> None:
        self.key = key
        self.limit = limit
        self.buffer: deque[Record] = deque()
        self.dropped = False
        self._wake = asyncio.Event()

    def offer(self, rec: Record) -> bool:
        if len(self.buffer) >= self.limit:
            self.dropped = True
            self._wake.set()
            return False
        self.buffer.append(rec)
        self._wake.set()
        return True

    async def get(self) -> Record:
        while not self.buffer:
            if self.dropped:
                raise Dropped(self.key)
            self._wake.clear()
            await self._wake.wait()
        if self.dropped:
            raise Dropped(self.key)
        return self.buffer.popleft()

    async def get_many(self, limit: int = 256) -> list[Record]:
        """At least one record (waits), then whatever else is buffered, up to ``limit``."""
        first = await self.get()
        out = [first]
        while self.buffer and len(out) < limit:
            out.append(self.buffer.popleft())
        return out

    def close(self) -> None:
        self.dropped = True
        self._wake.set()


class Hub:
    def __init__(self, receipt_log: ReceiptLog, buffer_limit: int = 4096) -> None:
        self.buffer_limit = buffer_limit
        self._subs: dict[str, set[Subscriber]] = {}
        self.dropped_total = 0
        receipt_log.add_listener(self.on_commit)

    @property
    def subscribers(self) -> int:
        return sum(len(s) for s in self._subs.values())

    def subscribe(self, tenant: str, topic: str, limit: int | None = None) -> Subscriber:
        sub = Subscriber(stream_key(tenant, topic), limit or self.buffer_limit)
        self._subs.setdefault(sub.key, set()).add(sub)
        return sub

    def unsubscribe(self, sub: Subscriber) -> None:
        subs = self._subs.get(sub.key)
        if subs is not None:
            subs.discard(sub)
            if not subs:
                del self._subs[sub.key]

    def on_commit(self, records: list[Record]) -> None:
        for rec in records:
            if rec.stream is None:
                continue
            subs = self._subs.get(rec.stream)
            if not subs:
                continue
            for sub in list(subs):
                if not sub.offer(rec):
                    self.dropped_total += 1
                    subs.discard(sub)

    def close_all(self) -> None:
        for subs in self._subs.values():
            for sub in subs:
                sub.close()
        self._subs.clear()


async def resume_then_live(rlog: ReceiptLog, sub: Subscriber, tenant: str, topic: str,
                           after: int) -> AsyncIterator[list[Record]]:
    """Every event of a tenant's topic with seq > ``after``, in order, in batches: an index range
    read of the log, then the live buffer of ``sub``. ``sub`` must be subscribed before this starts:
    anything committed after subscribing is in its buffer (no gap) and the seq filter drops what
    the range read already gave (no duplicate). Raises ``Dropped`` if ``sub`` falls behind."""
    last = after
    chunk = FIRST_CHUNK
    while True:
        rows = rlog.read_stream(tenant, topic, last, chunk)
        if rows:
            yield rows
            last = rows[-1].seq
            await asyncio.sleep(0)  # let a hung-up client's cancellation land between chunks
        if len(rows) < chunk:
            break
        chunk = BACKLOG_CHUNK
    while True:
        fresh = [rec for rec in await sub.get_many() if rec.seq > last]
        if fresh:
            yield fresh
            last = fresh[-1].seq
