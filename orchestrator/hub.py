"""Live fan-out of committed stream records to subscribers, with bounded buffers.

The log calls ``on_commit`` after each durable commit. A subscriber whose buffer is full is
dropped (it resumes from the log with its last id) instead of being buffered without bound.
"""

from __future__ import annotations

import asyncio
from collections import deque

from receipts.log import ReceiptLog, Record, stream_key


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
