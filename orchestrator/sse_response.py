"""A plain ASGI Server-Sent Events response, the hot path of ``/streams`` fan-out.

Why not sse-starlette: it runs four tasks per connection in a task group and wraps every send
in a lock and an anyio cancel scope (its send timeout). With 1,000 subscribers on one topic every
event paid that 1,000 times. Here a stream is its own task sending ready chunks (for a
one-record batch, the record's frame: one bytes object shared by every subscriber) straight to
the server's ``send``, plus one idle task waiting for the client to hang up. Send timeouts,
comment pings and the end on server shutdown are checked by one sweeper per event loop a few
times a second, not on every send.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from contextlib import aclosing
from typing import Any

import structlog

from orchestrator.hub import Dropped
from receipts.log import Record

log = structlog.get_logger("metis.sse")

PING = b": ping\n\n"
SEND_BYTES = 32 * 1024  # at most this much per send, so a slow reader holds little besides the socket's buffer
SWEEP_S = 0.25  # how often send timeouts, pings and shutdown are checked
Scope = dict[str, Any]
Receive = Callable[[], Any]
Send = Callable[[dict[str, Any]], Any]


def _server_exiting() -> bool:
    """True once uvicorn has been asked to stop (its signal handler is a bound method of the
    server, which carries ``should_exit``): streams must then end so the shutdown is clean."""
    for sig in (signal.SIGTERM, signal.SIGINT):
        server = getattr(signal.getsignal(sig), "__self__", None)
        if getattr(server, "should_exit", False):
            return True
    return False


class _Sweeper:
    """The streams of one event loop, checked together: one timer, not one per send."""

    def __init__(self) -> None:
        self.streams: set[SseResponse] = set()
        self.task: asyncio.Task | None = None

    def add(self, stream: SseResponse) -> None:
        self.streams.add(stream)
        if self.task is None or self.task.done():
            self.task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        exiting = False
        while self.streams:
            await asyncio.sleep(SWEEP_S)
            now = loop.time()
            exiting = exiting or _server_exiting()
            for stream in list(self.streams):
                stream.check(now, exiting)


_sweepers: dict[asyncio.AbstractEventLoop, _Sweeper] = {}


def _sweeper() -> _Sweeper:
    loop = asyncio.get_running_loop()
    sweeper = _sweepers.get(loop)
    if sweeper is None:
        for old in [lp for lp in _sweepers if lp.is_closed()]:
            del _sweepers[old]
        sweeper = _sweepers[loop] = _Sweeper()
    return sweeper


def chunks(frame: Callable[[Record], bytes], batch: list[Record]) -> Iterator[bytes]:
    """The batch's frames joined into sends of about ``SEND_BYTES``: few sends per batch (500
    subscribers cost 500 sends per burst, not 500 per event), none of them large. A one-record
    batch is sent as the record's own frame, the same bytes object for every subscriber."""
    parts: list[bytes] = []
    size = 0
    for rec in batch:
        f = frame(rec)
        parts.append(f)
        size += len(f)
        if size >= SEND_BYTES:
            yield b"".join(parts)
            parts, size = [], 0
    if parts:
        yield b"".join(parts)


class SseResponse:
    """``text/event-stream`` of record batches (``resume_then_live``), each sent as joined frames.

    The stream ends when ``batches`` ends or raises ``Dropped`` (the subscriber fell behind).
    ``on_close`` must make ``batches`` end soon (it closes the subscription); it is called when the
    client hangs up and when the server shuts down, so the response then ends like a finished one
    (the client reconnects with Last-Event-ID). ``sent(batch)`` is called after each batch is sent
    and ``on_end()`` once at the end, whatever the cause. A send blocked longer than
    ``send_timeout_s`` ends the response without its last chunk (the connection is closed). A
    comment ping goes out when nothing was sent for ``ping_s``."""

    def __init__(self, batches: AsyncIterator[list[Record]], frame: Callable[[Record], bytes],
                 headers: Mapping[str, str], *, ping_s: float, send_timeout_s: float,
                 on_close: Callable[[], None], sent: Callable[[list[Record]], None],
                 on_end: Callable[[], None]) -> None:
        self.batches = batches
        self.frame = frame
        self.sent = sent
        self.on_end = on_end
        self.raw_headers = [(b"content-type", b"text/event-stream; charset=utf-8"),
                            (b"connection", b"keep-alive")]
        self.raw_headers += [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers.items()]
        self.ping_s = ping_s
        self.send_timeout_s = send_timeout_s
        self.on_close = on_close
        self.sending = 0.0  # loop time the pending send began; 0.0 when none is pending
        self.last_sent = 0.0
        self.ended = False  # the client hung up, or the server is stopping
        self.timed_out = False
        self._send: Send | None = None
        self._task: asyncio.Task | None = None
        self._ping: asyncio.Task | None = None

    def _end(self) -> None:
        if not self.ended:
            self.ended = True
            self.on_close()

    def check(self, now: float, exiting: bool) -> None:
        """The sweeper's look at this stream: timeout, shutdown, ping."""
        if self.sending and now - self.sending > self.send_timeout_s:
            if not self.timed_out and self._task is not None:
                self.timed_out = True
                self._task.cancel()
            return
        if exiting:
            self._end()
        elif not self.sending and not self.ended and now - self.last_sent >= self.ping_s and (
                self._ping is None or self._ping.done()):
            self.last_sent = now
            self._ping = asyncio.get_running_loop().create_task(self._send_ping())

    async def _send_ping(self) -> None:
        if self._send is None:
            return
        self.sending = self.sending or asyncio.get_running_loop().time()
        try:
            await self._send({"type": "http.response.body", "body": PING, "more_body": True})
        except Exception:  # noqa: BLE001 - a ping to a gone client: the stream ends on its own
            pass
        finally:
            self.sending = 0.0

    async def _watch_disconnect(self, receive: Receive) -> None:
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                self._end()
                return

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        start = {"type": "http.response.start", "status": 200, "headers": self.raw_headers}
        if scope.get("method") == "HEAD":  # headers only: an endless body would never end
            await send(start)
            await send({"type": "http.response.body", "body": b"", "more_body": False})
            self.on_close()
            await self.batches.aclose()  # type: ignore[attr-defined]
            self.on_end()
            return
        loop = asyncio.get_running_loop()
        self._send = send
        self._task = asyncio.current_task()
        await send(start)
        self.last_sent = loop.time()
        watcher = loop.create_task(self._watch_disconnect(receive))
        sweeper = _sweeper()
        sweeper.add(self)
        frame, sent = self.frame, self.sent
        batch: list[Record] | None = None
        try:
            try:
                async with aclosing(self.batches) as batches:  # type: ignore[type-var]
                    async for batch in batches:
                        if len(batch) == 1:  # the live case: no joining, no generator
                            self.sending = loop.time()
                            await send({"type": "http.response.body", "body": frame(batch[0]), "more_body": True})
                        else:
                            for chunk in chunks(frame, batch):
                                self.sending = loop.time()
                                await send({"type": "http.response.body", "body": chunk, "more_body": True})
                        self.last_sent = self.sending
                        self.sending = 0.0
                        sent(batch)
            except Dropped:
                pass
            batch = None
            self.sending = loop.time()
            await send({"type": "http.response.body", "body": b"", "more_body": False})
            self.sending = 0.0
        except asyncio.CancelledError:
            if not self.timed_out:
                raise
            task = asyncio.current_task()
            if task is not None:
                task.uncancel()
            log.warning("sse_send_timeout", seconds=self.send_timeout_s)  # the connection is closed by the server
        finally:
            batch = None  # noqa: F841 - a traceback that keeps this frame must not keep records
            sweeper.streams.discard(self)
            watcher.cancel()
            if self._ping is not None:
                self._ping.cancel()
            self._send = None
            self.on_end()
