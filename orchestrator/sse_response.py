"""A plain ASGI Server-Sent Events response, the hot path of ``/streams`` fan-out.

Why not sse-starlette: it runs four tasks per connection in a task group and wraps every send
in a lock and an anyio cancel scope (its send timeout). With 1,000 subscribers on one topic every
event paid that 1,000 times. Here a stream is its own task sending ready chunks (for a
one-record batch, the record's frame: one bytes object shared by every subscriber) straight to
the server's ``send``, plus one idle task waiting for the client to hang up. A caught-up stream
is not even woken: the hub hands a commit's records to its sink, which sends them there and then
when the socket takes them without waiting (the common case). Send timeouts, comment pings and
the end on server shutdown are checked by one sweeper per event loop a few times a second, not
on every send.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from contextlib import aclosing
from typing import Any

import structlog

from orchestrator.hub import Dropped
from orchestrator.observe import SEND_BLOCK, SendTally
from receipts.log import Record

log = structlog.get_logger("metis.sse")

RAW_SEND = "metis.raw_send"  # scope key: the server's own ``send`` (``orchestrator.app.MetisApp``)
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


def _transport(send: Any, depth: int = 6) -> Any:
    """The server's transport behind ``send`` (uvicorn's bound ``send``, under the framework's
    wrapper closures), or None. ASGI has no way to abort a connection, and a client cut for not
    reading must not keep what is buffered for it (the server's write buffer, the kernel's send
    buffer, megabytes) until it reads or goes: a closed transport waits for that, an aborted one
    frees it at once."""
    transport = getattr(getattr(send, "__self__", None), "transport", None)
    if callable(getattr(transport, "abort", None)):
        return transport
    for cell in (getattr(send, "__closure__", None) or ()) if depth else ():
        try:
            inner = cell.cell_contents
        except ValueError:  # an empty cell
            continue
        if callable(inner) and (found := _transport(inner, depth - 1)) is not None:
            return found
    return None


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


def chunked(body: bytes) -> bytes:
    """``body`` as one HTTP/1.1 chunk (the transfer coding of an event stream)."""
    return b"%x\r\n%s\r\n" % (len(body), body)


class _Framed:
    """The last chunk made, and what it was made from: a commit's records reach every subscriber
    of their stream as the same list (the same frame for a one-record batch), so they are framed
    once per commit, not once per subscriber. ``now``: the loop's time when they were framed (the
    send time each direct send of that commit records, for pings: no clock read per send)."""

    __slots__ = ("chunk", "frame", "key", "now")

    def __init__(self) -> None:
        self.key: object = None
        self.frame: object = None
        self.chunk = b""
        self.now = 0.0

    def of_batch(self, frame: Callable[[Record], bytes], recs: list[Record], now: float) -> bytes:
        if recs is not self.key or frame is not self.frame:
            body = frame(recs[0]) if len(recs) == 1 else b"".join(map(frame, recs))
            self.key, self.frame, self.chunk, self.now = recs, frame, chunked(body), now
        return self.chunk

    def of_frame(self, body: bytes) -> bytes:
        if body is not self.key:
            self.key, self.frame, self.chunk = body, None, chunked(body)
        return self.chunk


_framed = _Framed()

class Wire:
    """Writes a body chunk straight to the connection when that is exactly what the server's
    ``send`` would do with it, and nothing more: uvicorn's httptools protocol, a chunked response
    under way, the client still there and the socket's buffer below its high-water mark. Then
    ``send`` would only frame the chunk and write it; here the chunk comes framed (one bytes
    object for every subscriber) and no message dict, coroutine or wrapper is made per send.
    Otherwise ``write`` says no and the caller uses ``send``, which waits for the socket to drain
    (back-pressure) or ignores a gone client, as always."""

    __slots__ = ("cycle", "writes")

    def __init__(self, cycle: Any) -> None:
        self.cycle = cycle
        self.writes = 0  # chunks written here (the rest went through ``send``)

    @classmethod
    def of(cls, send: Any) -> Wire | None:
        """The wire behind the server's own ``send``, or None for any other server or protocol."""
        cycle = getattr(send, "__self__", None)
        kind = type(cycle)
        if (kind.__name__ != "RequestResponseCycle" or kind.__module__ != "uvicorn.protocols.http.httptools_impl"
                or getattr(send, "__func__", None) is not getattr(kind, "send", None)):
            return None
        if not all(hasattr(cycle, name) for name in ("transport", "flow", "chunked_encoding", "disconnected",
                                                      "response_complete")):
            return None
        return cls(cycle)

    def write(self, chunk: bytes) -> bool:
        """Write ``chunk`` (framed with ``chunked``) now if ``send`` would write it at once; False
        (nothing written) if ``send`` must be used."""
        c = self.cycle
        if c.chunked_encoding is not True or c.disconnected or c.response_complete or c.flow.write_paused:
            return False
        c.transport.write(chunk)
        self.writes += 1
        return True


class _Rest:
    """Awaitable rest of a coroutine already run, outside any task, to its first suspension
    (``first``, the future it waits on): a task awaiting this drives it to the end."""

    __slots__ = ("coro", "first")

    def __init__(self, coro: Any, first: Any) -> None:
        self.coro, self.first = coro, first

    def __await__(self) -> Any:
        coro, waiting = self.coro, self.first
        while True:
            try:
                value = yield waiting
            except BaseException as exc:  # noqa: BLE001 - cancellation and errors go on into the coroutine
                try:
                    waiting = coro.throw(exc)
                except StopIteration as stop:
                    return stop.value
            else:
                try:
                    waiting = coro.send(value)
                except StopIteration as stop:
                    return stop.value


DIRECT_MAX = 64  # records a sink sends in one go; a bigger commit is left to the stream's task


Source = Callable[[Callable[[list[Record]], bool]], AsyncIterator[list[Record]]]


class SseResponse:
    """``text/event-stream`` of record batches, each sent as joined frames.

    ``source(sink)`` gives the batches (``resume_then_live`` with the sink this response offers).
    The stream ends when the batches end or raises ``Dropped`` (the subscriber fell behind).
    ``on_close`` must make ``batches`` end soon (it closes the subscription); it is called when the
    client hangs up and when the server shuts down, so the response then ends like a finished one
    (the client reconnects with Last-Event-ID). ``sent(batch)`` is called after each batch is sent
    and ``on_end()`` once at the end, whatever the cause. A send blocked longer than
    ``send_timeout_s`` ends the response without its last chunk (the connection is aborted). A
    comment ping goes out when nothing was sent for ``ping_s``."""

    def __init__(self, source: Source, frame: Callable[[Record], bytes],
                 headers: Mapping[str, str], *, ping_s: float, send_timeout_s: float,
                 on_close: Callable[[], None], sent: Callable[[list[Record]], None],
                 on_end: Callable[[], None], tally: SendTally | None = None) -> None:
        self.source = source
        self.frame = frame
        self.sent = sent
        self.tally = tally  # direct sends' delivery lag, counted in blocks (None: each send observed)
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
        self._send: Send | None = None  # the server's own send for body chunks (``RAW_SEND``)
        self._wire: Wire | None = None
        self._task: asyncio.Task | None = None
        self._ping: asyncio.Task | None = None
        self._pending: asyncio.Task | None = None  # a sink's send that had to wait for the socket
        self._last = 0  # seq of the last record sent, by either path
        self._loop: asyncio.AbstractEventLoop | None = None

    def _sink(self, recs: list[Record]) -> bool:
        """Send a commit's records now, from the hub's commit callback, if the stream is idle and
        caught up; False (the hub buffers them and wakes the stream's task) otherwise."""
        send, loop = self._send, self._loop
        if (send is None or loop is None or self.sending or self.ended or len(recs) > DIRECT_MAX
                or recs[0].seq <= self._last):
            return False
        wire = self._wire
        if wire is not None:
            try:
                written = wire.write(_framed.of_batch(self.frame, recs, loop.time()))
            except Exception:  # noqa: BLE001 - refused before writing: the task's own send meets it again
                return False
            if written:
                self.last_sent = loop.time()
                self._last = recs[-1].seq
                self.sent(recs)
                return True
        body = self.frame(recs[0]) if len(recs) == 1 else b"".join(map(self.frame, recs))
        now = self.sending = loop.time()
        coro = send({"type": "http.response.body", "body": body, "more_body": True})
        try:
            waiting = coro.send(None)
        except StopIteration:  # written: the usual case
            self.sending = 0.0
            self.last_sent = now
            self._last = recs[-1].seq
            self.sent(recs)
            return True
        except Exception:  # noqa: BLE001 - refused before writing: the task's own send meets it again
            self.sending = 0.0
            return False
        # the socket's buffer is full: a task finishes this send; the stream waits for it first
        self._last = recs[-1].seq
        self._pending = loop.create_task(self._finish(_Rest(coro, waiting), recs))
        return True

    def _direct(self, wire: Wire) -> Callable[[list[Record]], bool]:
        """The sink of a stream on uvicorn's httptools connection, for the fan-out's hot loop: the
        conditions of ``Wire.write`` and ``_sink`` checked inline, the commit's chunk (made by the
        first subscriber) written to the transport, the lag counted in the ``SendTally``. Anything else
        (a send or ping under way, back-pressure, a gone client, a large commit) goes to ``_sink``."""
        cycle = wire.cycle
        flow, write, loop, frame, fr, slow, sent = (cycle.flow, cycle.transport.write, self._loop, self.frame,
                                                    _framed, self._sink, self.sent)
        tally = self.tally
        assert loop is not None

        def sink(recs: list[Record]) -> bool:
            if (self.sending or self.ended or cycle.disconnected or cycle.response_complete or flow.write_paused
                    or recs[0].seq <= self._last or len(recs) > DIRECT_MAX):
                return slow(recs)
            if fr.key is not recs or fr.frame is not frame:
                try:
                    fr.of_batch(frame, recs, loop.time())
                except Exception:  # noqa: BLE001 - the task's own path meets it again
                    return False
            try:
                write(fr.chunk)
            except Exception:  # noqa: BLE001 - a transport closing under us: refused, nothing written
                return False
            wire.writes += 1
            last = self._last = recs[-1].seq
            self.last_sent = fr.now
            if tally is None:
                sent(recs)
            else:
                if tally.seq != last:
                    tally.switch(last)
                tally.n += 1
                if tally.n >= SEND_BLOCK:
                    tally.flush()
            return True

        return sink

    async def _finish(self, rest: _Rest, recs: list[Record]) -> None:
        try:
            await rest
            self.sent(recs)
        finally:
            self.sending = 0.0
            self.last_sent = asyncio.get_running_loop().time()

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
            self.on_end()
            return
        loop = self._loop = asyncio.get_running_loop()
        await send(start)  # through the framework's wrappers: they see the response start
        send = self._send = scope.get(RAW_SEND) or send  # bodies: the server's own send
        wire = self._wire = Wire.of(send)
        sink = self._direct(wire) if wire is not None and wire.cycle.chunked_encoding is True else self._sink
        self._task = asyncio.current_task()
        self.last_sent = loop.time()
        watcher = loop.create_task(self._watch_disconnect(receive))
        sweeper = _sweeper()
        sweeper.add(self)
        frame, sent = self.frame, self.sent
        batch: list[Record] | None = None
        try:
            try:
                async with aclosing(self.source(sink)) as batches:  # type: ignore[type-var]
                    async for batch in batches:
                        if self._pending is not None:  # a sink's send still waiting: it goes first
                            await self._pending
                            self._pending = None
                        if batch[0].seq <= self._last:
                            batch = [rec for rec in batch if rec.seq > self._last]
                            if not batch:
                                continue
                        self._last = batch[-1].seq
                        if len(batch) == 1:  # the live case: no joining, no generator
                            body = frame(batch[0])
                            if wire is None or not wire.write(_framed.of_frame(body)):
                                self.sending = loop.time()
                                await send({"type": "http.response.body", "body": body, "more_body": True})
                        else:
                            for chunk in chunks(frame, batch):
                                if wire is None or not wire.write(chunked(chunk)):
                                    self.sending = loop.time()
                                    await send({"type": "http.response.body", "body": chunk, "more_body": True})
                        self.last_sent = loop.time()
                        self.sending = 0.0
                        sent(batch)
            except Dropped:
                pass
            batch = None
            if self._pending is not None:
                await self._pending
            self.sending = loop.time()
            await send({"type": "http.response.body", "body": b"", "more_body": False})
            self.sending = 0.0
        except asyncio.CancelledError:
            if not self.timed_out:
                raise
            task = asyncio.current_task()
            if task is not None:
                task.uncancel()
            transport = _transport(send)
            log.warning("sse_send_timeout", seconds=self.send_timeout_s, aborted=transport is not None)
            if transport is not None:  # else the server closes it (after flushing its buffer)
                transport.abort()
                await asyncio.sleep(0)  # the server sees the connection lost: no "incomplete response" error
        finally:
            batch = None  # noqa: F841 - a traceback that keeps this frame must not keep records
            sweeper.streams.discard(self)
            watcher.cancel()
            for task in (self._ping, self._pending):
                if task is not None:
                    task.cancel()
                    if task.done() and not task.cancelled():
                        task.exception()  # seen: a failed send to a gone client is no news
            self._send = None
            self.on_end()
