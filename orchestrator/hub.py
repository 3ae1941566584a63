"""Live fan-out of committed stream records to subscribers, and shared, bounded backlog replay.

The log calls ``on_commit`` after each durable commit. A subscriber whose buffer is full is
dropped (it resumes from the log with its last id) instead of being buffered without bound.

Catch-up (resuming with a Last-Event-ID) reads the log page by page. Why this shape: a thousand
readers replaying the same topic at once must not hold a thousand copies of the backlog. Full
pages are immutable in an append-only log, so they are shared through a small LRU keyed by
(stream, after_seq, rows); a reader holds one page at a time, and only ``REPLAY_SLOTS`` readers
send a page at once (each send waits for the socket to drain), so memory and event-loop time
stay bounded however many readers arrive. The cache is emptied when the last replay ends.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict, deque
from collections.abc import AsyncIterator, Callable

from receipts.log import ReceiptLog, Record, stream_key

FIRST_CHUNK = 20  # small, so the first resumed event leaves quickly
BACKLOG_CHUNK = 64  # rows per page: what one replaying reader holds at a time
REPLAY_SLOTS = 32  # readers sending a backlog page at the same moment
PAGE_CACHE_BYTES = 16 * 1024 * 1024
_RECORD_OVERHEAD = 400  # Record object, row tuple and frame header, roughly


class Dropped(Exception):
    """The subscriber fell too far behind and was dropped."""


class PageCache:
    """Backlog pages shared by concurrent replays, least recently used evicted first.

    A full page never changes (seqs only grow). A short page is the topic's tail as of the read;
    it is shared too, and dropped by ``invalidate`` when a record of its stream commits: a reader
    that took the stale tail had subscribed before that commit reached the hub, so the record
    is in its live buffer (no gap)."""

    def __init__(self, max_bytes: int = PAGE_CACHE_BYTES, slots: int = REPLAY_SLOTS) -> None:
        self.max_bytes = max_bytes
        self.nbytes = 0
        self.hits = 0
        self.misses = 0
        self.replays = 0  # replays in progress
        self.slots = asyncio.Semaphore(slots)
        #: The newest seq the hub has been handed (None: no hub, no bound). The log shows a commit
        #: to readers a moment before its listeners run (the scheduler's views, the hub); a replay
        #: stops at this seq, and what follows comes from the live buffer, so no client is sent a
        #: record before the views that go with it (``actions.get`` right after an event).
        self.upto: int | None = None
        self._pages: OrderedDict[tuple[str, int, int], tuple[list[Record], int]] = OrderedDict()
        self._tails: dict[str, set[tuple[str, int, int]]] = {}

    def __len__(self) -> int:
        return len(self._pages)

    def read(self, rlog: ReceiptLog, tenant: str, topic: str, after: int, rows: int) -> list[Record]:
        """Up to ``rows`` events with seq > ``after``, from the cache or the log."""
        skey = stream_key(tenant, topic)
        key = (skey, after, rows)
        hit = self._pages.get(key)
        if hit is not None:
            self._pages.move_to_end(key)
            self.hits += 1
            return hit[0]
        self.misses += 1
        page = rlog.read_stream(tenant, topic, after, rows)
        size = sum(len(r.body) for r in page) * 2 + _RECORD_OVERHEAD * (len(page) + 1)
        self._pages[key] = (page, size)
        self.nbytes += size
        if len(page) < rows:
            self._tails.setdefault(skey, set()).add(key)
        while self.nbytes > self.max_bytes and self._pages:
            old, (_, dropped) = self._pages.popitem(last=False)
            self.nbytes -= dropped
            self._forget_tail(old)
        return page

    def _forget_tail(self, key: tuple[str, int, int]) -> None:
        tails = self._tails.get(key[0])
        if tails is not None:
            tails.discard(key)
            if not tails:
                del self._tails[key[0]]

    def invalidate(self, stream: str) -> None:
        """A record of ``stream`` committed: its cached tail pages are stale."""
        for key in self._tails.pop(stream, ()):
            entry = self._pages.pop(key, None)
            if entry is not None:
                self.nbytes -= entry[1]

    def clear(self) -> None:
        self._pages.clear()
        self._tails.clear()
        self.nbytes = 0


class Subscriber:
    __slots__ = ("_wake", "buffer", "dropped", "key", "limit", "pages", "sink")

    def __init__(self, key: str, limit: int, pages: PageCache | None = None) -> None:
        self.key = key
        self.limit = limit
        self.pages = pages if pages is not None else PageCache()
        self.buffer: deque[Record] = deque()
        self.dropped = False
        self._wake = asyncio.Event()
        #: Set while the consumer is caught up and idle (its buffer empty, not dropped): it takes a
        #: commit's records at once (True) or refuses them (False: they are buffered and the sink is
        #: unset until the consumer, having taken them, waits again). Spares a task wake-up per
        #: record per reader; the hub calls it first, without looking further.
        self.sink: Callable[[list[Record]], bool] | None = None

    def offer_many(self, recs: list[Record]) -> bool:
        """Queue one commit's records of this subscriber's stream with one wake-up (the hub offers
        them to a set sink first). The sink is unset: the consumer takes these, and later ones,
        in order. False: the buffer is full and the subscriber dropped."""
        self.sink = None
        if len(self.buffer) + len(recs) > self.limit:
            self.dropped = True
            self._wake.set()
            return False
        self.buffer.extend(recs)
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
        self.sink = None
        self._wake.set()


class Hub:
    def __init__(self, receipt_log: ReceiptLog, buffer_limit: int = 4096) -> None:
        self.buffer_limit = buffer_limit
        self.pages = PageCache()
        self._subs: dict[str, set[Subscriber]] = {}
        self.dropped_total = 0
        self.pages.upto = getattr(receipt_log, "last_seq", 0)  # what is in the log now is no news
        receipt_log.add_listener(self.on_commit)

    @property
    def subscribers(self) -> int:
        return sum(len(s) for s in self._subs.values())

    def subscribe(self, tenant: str, topic: str, limit: int | None = None) -> Subscriber:
        sub = Subscriber(stream_key(tenant, topic), limit or self.buffer_limit, self.pages)
        self._subs.setdefault(sub.key, set()).add(sub)
        return sub

    def unsubscribe(self, sub: Subscriber) -> None:
        subs = self._subs.get(sub.key)
        if subs is not None:
            subs.discard(sub)
            if not subs:
                del self._subs[sub.key]

    def on_commit(self, records: list[Record]) -> None:
        """Hand a commit's records to their streams' subscribers: records grouped by stream first,
        so a subscriber is woken once per commit, not once per record."""
        if records and (self.pages.upto is None or records[-1].seq > self.pages.upto):
            self.pages.upto = records[-1].seq
        by_stream: dict[str, list[Record]] = {}
        for rec in records:
            if rec.stream is not None:
                group = by_stream.get(rec.stream)
                if group is None:
                    by_stream[rec.stream] = [rec]
                else:
                    group.append(rec)
        for stream, recs in by_stream.items():
            self.pages.invalidate(stream)
            subs = self._subs.get(stream)
            if not subs:
                continue
            for sub in list(subs):
                sink = sub.sink  # the live case, taken at once: one call per subscriber
                if sink is not None and sink(recs):
                    continue
                if not sub.offer_many(recs):  # refused or no sink: buffered for the consumer's task
                    self.dropped_total += 1
                    subs.discard(sub)

    def close_all(self) -> None:
        for subs in self._subs.values():
            for sub in subs:
                sub.close()
        self._subs.clear()


async def _replay(rlog: ReceiptLog, pages: PageCache, tenant: str, topic: str,
                  after: int) -> AsyncIterator[list[Record]]:
    """The backlog after ``after``, page by page. A page is read and handed on while holding one
    of the cache's slots, released only when the consumer asks for the next page, i.e. after it
    has sent this one (the send waits for the socket to drain)."""
    pages.replays += 1
    try:
        last, rows = after, FIRST_CHUNK
        while True:
            async with pages.slots:
                page = pages.read(rlog, tenant, topic, last, rows)
                upto = pages.upto
                cut = upto is not None and bool(page) and page[-1].seq > upto
                if cut:  # committed, not handed to the listeners yet: those come live
                    page = [rec for rec in page if rec.seq <= upto]  # type: ignore[operator]
                if page:
                    last = page[-1].seq
                    yield page
            if cut or len(page) < rows:
                return
            page = None
            rows = BACKLOG_CHUNK
            await asyncio.sleep(0)  # let a hung-up client's cancellation land between pages
    finally:
        page = None  # a traceback that keeps this frame must not keep the page
        pages.replays -= 1
        if not pages.replays:
            pages.clear()  # give the memory back when the last replay ends


async def resume_then_live(rlog: ReceiptLog, sub: Subscriber, tenant: str, topic: str, after: int,
                           sink: Callable[[list[Record]], bool] | None = None) -> AsyncIterator[list[Record]]:
    """Every event of a tenant's topic with seq > ``after``, in order, in batches: paged index
    range reads of the log (shared, see ``PageCache``), then the live buffer of ``sub``. ``sub``
    must be subscribed before this starts: anything committed after subscribing is in its buffer
    (no gap) and the seq filter drops what the range reads already gave (no duplicate). Raises
    ``Dropped`` if ``sub`` falls behind. With a ``sink``, live records that arrive while this
    waits with nothing buffered go to the sink instead (it refuses what it cannot take at once,
    and must itself refuse records at or below the last it was given or yielded here)."""
    last = after
    page: list[Record] | None = None
    fresh: list[Record] | None = None
    replay = _replay(rlog, sub.pages, tenant, topic, after)
    try:
        async for page in replay:
            last = page[-1].seq
            yield page
        page = None
        while True:
            if sink is not None and not sub.buffer and not sub.dropped:
                sub.sink = sink
                try:
                    fresh = await sub.get_many()
                finally:
                    sub.sink = None
            else:
                fresh = await sub.get_many()
            if fresh[0].seq <= last:  # only just after the backlog: what the range reads already gave
                fresh = [rec for rec in fresh if rec.seq > last]
                if not fresh:
                    continue
            last = fresh[-1].seq
            yield fresh
    finally:
        page = fresh = None  # a traceback that keeps this frame must not keep records
        await replay.aclose()
