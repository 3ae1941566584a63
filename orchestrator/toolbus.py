"""The ToolBus WebSocket endpoint: a thin shell around ``jsonrpc`` and ``service``.

One JSON text frame per message (single request or batch). The requests of one connection are
handled concurrently, each in its own task, and answered as they finish: responses are matched by
``id``, not by order (a batch's members run concurrently too; its answer is one array in request
order). At most ``MAX_INFLIGHT`` requests of a connection run at once; beyond that the endpoint
stops reading the socket until one finishes, so a fast sender is slowed by TCP, not buffered.
Subscriptions push ``event`` notifications through the same send lock, in order per subscription.
A bad frame gets an error response and the connection stays open.

On uvicorn's sans-I/O WebSocket protocol (``serve_asgi``, called by the app for ``/toolbus``
ahead of Starlette's router), messages skip the per-message ASGI wrappers: each answer's frame is
appended to the protocol's output, and the frames of one event-loop turn leave in ONE socket write
(``_Frames``). A burst's answers, released together by one durable commit, then cost one write
(one wake-up of the client) instead of one each. Any other server protocol gets the ASGI path.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from typing import Any

import structlog
from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocket, WebSocketDisconnect
from websockets.exceptions import InvalidState

from orchestrator import errors as E
from orchestrator import observe, tracing
from orchestrator.errors import RpcError, storage_error
from orchestrator.jsonrpc import (
    Request,
    encode_bytes,
    error_response,
    parse,
    result_response,
    scan_id,
)
from orchestrator.ratelimit import TokenBucket
from orchestrator.service import Session

log = structlog.get_logger("metis.toolbus")
MAX_INFLIGHT = 256
#: Reads that never wait on I/O: answered in the reading loop itself, sparing a task per call (they
#: cannot hold anything back: they do not await).
INLINE = frozenset({"session.whoami", "abilities.list", "actions.get", "actions.list", "events.unsubscribe"})


def bearer(headers: Any) -> str | None:
    value = headers.get("authorization") or ""
    if value.lower().startswith("bearer "):
        return value[7:].strip()
    return None


async def handle_request(session: Session, service: Any, req: Request) -> dict[str, Any] | None:
    metrics = service.metrics
    started = time.perf_counter()
    # The log context names the request for whatever the method (and a traced call's debug line)
    # logs; an untraced inline read logs nothing on success (its failures below name it
    # themselves), so it skips the bind (~4 us).
    inline = req.method in INLINE
    bound = not inline or tracing.enabled()
    if bound:
        rid = str(req.id) if req.id is not None else uuid.uuid4().hex[:12]
        structlog.contextvars.bind_contextvars(request_id=rid, method=req.method)
    span = tracing.begin_call(session, req.method, req.params)
    outcome = "ok"
    try:
        result = await service.call(session, req.method, req.params)
        response = result_response(req.id, result)
    except RpcError as err:
        outcome = str(err.code)
        response = error_response(req.id, err)
    except Exception as exc:
        mapped = storage_error(exc)
        if mapped is not None:  # the storage refused a write: retryable, never "internal"
            log.warning("storage_unavailable", error=str(exc)[:200], **({} if bound else {"method": req.method}))
            outcome, response = str(mapped.code), error_response(req.id, mapped)
        else:
            outcome = "internal"
            log.exception("method_failed", **({} if bound else {"method": req.method, "request_id": req.id}))
            response = error_response(req.id, RpcError(E.INTERNAL_ERROR, f"internal error: {type(exc).__name__}"))
    finally:
        if bound and inline:  # the reading loop's own context; a task's context ends with it
            structlog.contextvars.unbind_contextvars("request_id", "method")
        tracing.end_call(span, outcome)
    label = req.method if req.method in service.methods else "unknown"
    observe.child(metrics.toolbus_requests, label, outcome).inc()  # both labels from bounded sets
    metrics.toolbus_seconds.observe(time.perf_counter() - started)
    return None if req.notification else response


_PROTOCOL_ATTRS = ("conn", "writable", "disconnected", "close_sent", "transport", "loop")


class _Frames:
    """Text frames written straight to uvicorn's sans-I/O WebSocket protocol, one socket write per
    event-loop turn for all of them (in order). Built only for that protocol (``attach``)."""

    def __init__(self, proto: Any) -> None:
        self.proto = proto
        self.pending = False  # a flush is scheduled for this loop turn

    @staticmethod
    def attach(send: Send) -> _Frames | None:
        """The frames of the protocol behind the server's own ``send``, or None when that is
        not uvicorn's ``WebSocketsSansIOProtocol`` (another server or protocol: the ASGI path)."""
        proto = getattr(send, "__self__", None)
        try:
            from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
        except ImportError:  # pragma: no cover - uvicorn without the sans-I/O protocol
            return None
        if not isinstance(proto, WebSocketsSansIOProtocol):
            return None
        # Internals of that protocol (as in uvicorn 0.54; 0.35 has no `disconnected`): a release without any of
        # them gets the ASGI path, slower but correct, instead of a broken connection.
        if not all(hasattr(proto, name) for name in _PROTOCOL_ATTRS):
            return None
        if not all(callable(getattr(proto.conn, name, None)) for name in ("send_text", "data_to_send")):
            return None
        return _Frames(proto)

    @property
    def writable(self) -> bool:
        return self.proto.writable.is_set()

    async def wait_writable(self) -> None:
        await self.proto.writable.wait()

    def put(self, data: bytes) -> None:
        """Queue one text frame (UTF-8); ConnectionError once the socket is closing or gone."""
        proto = self.proto
        if proto.disconnected or proto.close_sent:
            raise ConnectionError("connection closed")
        try:
            proto.conn.send_text(data)
        except InvalidState as exc:
            raise ConnectionError("connection closed") from exc
        if not self.pending:
            self.pending = True
            proto.loop.call_soon(self.flush)

    def flush(self) -> None:
        self.pending = False
        proto = self.proto
        data = proto.conn.data_to_send()
        if data and not proto.transport.is_closing():
            proto.transport.write(b"".join(data))


class _Connection:
    """One socket's sending side and in-flight bookkeeping."""

    def __init__(self, ws: WebSocket, service: Any, frames: _Frames | None = None) -> None:
        self.ws = ws
        self.service = service
        self.frames = frames
        self.send_lock = asyncio.Lock()
        self.closed = False
        self.inflight = 0  # requests of running frames (a counter and an event: a semaphore's
        self._room = asyncio.Event()  # acquire per request cost more than the rest of the read)
        self.running: set[asyncio.Task] = set()
        self.session = Session(None, self.notify, send_raw=self.send_raw)

    async def send(self, obj: Any) -> None:
        """Send one message; ConnectionError once the client is gone (subscriptions then stop)."""
        await self.send_raw(encode_bytes(obj))

    async def send_raw(self, data: bytes) -> None:
        """Send one message already encoded as compact UTF-8 JSON."""
        if self.closed:
            raise ConnectionError("connection closed")
        frames = self.frames
        if frames is not None:
            if frames.writable and not self.send_lock.locked():  # nearly always: no await at all
                self._put(frames, data)
                return
            async with self.send_lock:  # the socket is full: wait in order behind earlier senders
                await frames.wait_writable()
                self._put(frames, data)
            return
        async with self.send_lock:
            try:
                await self.ws.send_text(data.decode("utf-8"))
            except (WebSocketDisconnect, RuntimeError, OSError) as exc:
                self.closed = True
                raise ConnectionError("connection closed") from exc

    def _put(self, frames: _Frames, data: bytes) -> None:
        try:
            frames.put(data)
        except ConnectionError:
            self.closed = True
            raise

    async def notify(self, method: str, params: dict[str, Any]) -> None:
        await self.send({"jsonrpc": "2.0", "method": method, "params": params})

    async def start(self, items: list[Request | dict[str, Any]], is_batch: bool) -> None:
        """Run a frame's requests in a task; waits (stops reading) while the connection is full."""
        n = min(MAX_INFLIGHT, sum(1 for i in items if isinstance(i, Request))) if is_batch else 1
        while self.inflight + n > MAX_INFLIGHT:
            self._room.clear()
            await self._room.wait()
        self.inflight += n
        task = asyncio.get_running_loop().create_task(self._frame(items, is_batch))
        self.running.add(task)
        task.add_done_callback(lambda t: self._done(t, n))

    def _done(self, task: asyncio.Task, n: int) -> None:
        self.running.discard(task)
        self.inflight -= n
        self._room.set()
        if not task.cancelled() and task.exception() is not None:
            log.error("frame_failed", error=repr(task.exception()))

    async def _answer(self, item: Request | dict[str, Any]) -> dict[str, Any] | None:
        if isinstance(item, dict):
            return item
        return await handle_request(self.session, self.service, item)

    async def _frame(self, items: list[Request | dict[str, Any]], is_batch: bool) -> None:
        try:
            if not is_batch:
                res = await self._answer(items[0])
                if res is not None:
                    await self.send(res)
                return
            answers = await asyncio.gather(*(self._answer(i) for i in items))
            responses = [a for a in answers if a is not None]
            if responses:
                await self.send(responses)
        except ConnectionError:
            pass


async def toolbus_endpoint(ws: WebSocket) -> None:
    """The Starlette route's endpoint (when the app does not hand ``/toolbus`` to ``serve_asgi``)."""
    await _serve(ws, ws.receive, None)


async def serve_asgi(scope: Scope, receive: Receive, send: Send) -> None:
    """``/toolbus`` straight from the server: its own ``receive`` and ``send`` (no per-message
    wrappers), frames written by ``_Frames`` when the protocol is uvicorn's sans-I/O one."""
    await _serve(WebSocket(scope, receive, send), receive, _Frames.attach(send))


async def _serve(ws: WebSocket, receive: Receive, frames: _Frames | None) -> None:
    app_state = ws.app.state
    service, settings = app_state.service, app_state.settings
    principal = service.tokens.authenticate(bearer(ws.headers))
    await ws.accept()
    conn = _Connection(ws, service, frames)
    conn.session.principal = principal
    conn.session.trace = tracing.headers_carrier(ws.headers)  # type: ignore[attr-defined]
    bucket = TokenBucket(settings.rate_per_s, settings.rate_burst)
    service.metrics.toolbus_connections.inc()
    try:
        while True:
            msg = await receive()
            if msg["type"] != "websocket.receive":  # websocket.disconnect
                break
            text = msg.get("text")
            if text is None:
                raw = msg.get("bytes") or b""
                try:
                    text = raw.decode("utf-8")
                except UnicodeDecodeError:
                    await conn.send(error_response(scan_id(raw), RpcError(E.PARSE_ERROR,
                                                                          "binary frame is not UTF-8 JSON")))
                    continue
            if not bucket.take():
                await conn.send(error_response(scan_id(text), RpcError(
                    E.RATE_LIMITED, "rate limit exceeded: slow down", {"rate_per_s": settings.rate_per_s})))
                continue
            items, is_batch = parse(text, settings.max_message_bytes, settings.max_batch)
            if not is_batch:
                item = items[0]
                if isinstance(item, dict):  # refused before any method ran
                    await conn.send(item)
                    continue
                if item.method in INLINE:
                    res = await handle_request(conn.session, service, item)
                    if res is not None:
                        await conn.send(res)
                    continue
            await conn.start(items, is_batch)
    except (WebSocketDisconnect, ConnectionError, RuntimeError):
        pass
    finally:
        conn.closed = True
        if conn.running:  # let started requests finish (an accepted start still gets recorded)
            await asyncio.gather(*conn.running, return_exceptions=True)
        service.metrics.toolbus_connections.dec()
        conn.session.close()
