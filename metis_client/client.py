"""The asynchronous client: one WebSocket for ToolBus calls, SSE for streams.

Many calls may be in flight on one connection (answers are matched by id); ``event``
notifications go to the subscription they belong to. A dropped connection fails the calls in
flight with ``ConnectionLost`` and is re-opened in the background (subscriptions resume after
their last event); streams resume with ``Last-Event-ID``. Every wait has a timeout.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import quote

import httpx
import websockets

from metis_client.config import DEFAULT_URL, find_token, split_url
from metis_client.errors import (
    CONFIG_ERROR,
    INTERNAL_ERROR,
    INVALID_REQUEST,
    UNAUTHENTICATED,
    CallTimeout,
    ConnectionLost,
    MetisError,
)
from metis_client.rpc import Notification, Response, RpcCore
from metis_client.sse import TERMINAL_STATUSES, Event, SSEParser
from metis_client.types import ActionView, Artifact, StartResult, WhoAmI

MAX_MESSAGE_BYTES = 64 * 1024 * 1024


def describe(exc: BaseException) -> str:
    """A short human reason for a network failure (no traceback, no class soup)."""
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused (is the server running?)"
    if isinstance(exc, httpx.ConnectError | OSError) and "refused" in str(exc).lower():
        return "connection refused (is the server running?)"
    if isinstance(exc, TimeoutError | httpx.TimeoutException):
        return "timed out"
    if isinstance(exc, websockets.ConnectionClosed):
        return f"connection closed ({exc.rcvd.code if exc.rcvd else 'no close frame'})"
    text = str(exc).strip()
    return text or type(exc).__name__


class Subscription:
    """A topic's events over the ToolBus (``events.subscribe``), as an async iterator.

    It resumes after a reconnect and after a ``subscription_dropped`` from its last event."""

    def __init__(self, client: Client, topic: str, last_event_id: int | None) -> None:
        self.client = client
        self.topic = topic
        self.last_event_id = last_event_id  # of the last event queued
        self.subscription_id: str | None = None
        self._queue: asyncio.Queue[Event | MetisError | None] = asyncio.Queue()
        self.closed = False

    def _push(self, item: Event | MetisError | None) -> None:
        if isinstance(item, Event):
            if self.last_event_id is not None and item.id <= self.last_event_id:
                return  # a resubscription's backlog may repeat what was already queued
            self.last_event_id = item.id
        self._queue.put_nowait(item)

    async def _subscribe(self) -> None:
        params: dict[str, Any] = {"topic": self.topic}
        if self.last_event_id is not None:
            params["last_event_id"] = self.last_event_id
        result = await self.client.call("events.subscribe", params)
        self.subscription_id = result["subscription_id"]
        self.client._subs[self.subscription_id] = self
        for note in self.client._early.pop(self.subscription_id, []):
            self.client._route(note)

    def __aiter__(self) -> Subscription:
        return self

    async def __anext__(self) -> Event:
        if self.closed and self._queue.empty():
            raise StopAsyncIteration
        item = await self._queue.get()
        if item is None:
            raise StopAsyncIteration
        if isinstance(item, MetisError):
            raise item
        return item

    async def get(self, timeout: float | None = None) -> Event:
        """The next event, or ``CallTimeout``."""
        try:
            return await asyncio.wait_for(self.__anext__(), timeout)
        except TimeoutError:
            raise CallTimeout(f"no event on {self.topic!r} in {timeout:g} s") from None

    async def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        self._queue.put_nowait(None)
        sid, self.subscription_id = self.subscription_id, None
        if sid is not None:
            self.client._subs.pop(sid, None)
            with contextlib.suppress(MetisError):
                await self.client.call("events.unsubscribe", {"subscription_id": sid}, timeout=5)


class Action:
    """A handle on one action: follow its events, answer its questions, wait for its result."""

    def __init__(self, client: Client, action_id: str, topic: str | None = None,
                 started: StartResult | None = None) -> None:
        self.client = client
        self.action_id = action_id
        self.topic = topic or action_id
        self.started = started
        self.stream_token = started["stream"]["token"] if started else None
        self.last_event_id: int | None = None
        self.ended = False

    def __repr__(self) -> str:
        return f"<Action {self.action_id} topic={self.topic!r}>"

    async def events(self, last_event_id: int | None = None) -> AsyncIterator[Event]:
        """The topic's events (SSE, resumed with Last-Event-ID after any disconnect), from the
        beginning or after ``last_event_id``; ends after this action's terminal event."""
        start = last_event_id if last_event_id is not None else self.last_event_id
        async with contextlib.aclosing(self.client.stream(self.topic, start, stream_token=self.stream_token)) as evs:
            async for ev in evs:
                self.last_event_id = ev.id
                yield ev
                if ev.terminal and ev.action_id == self.action_id:
                    self.ended = True
                    return

    async def get(self) -> ActionView:
        return await self.client.call("actions.get", {"action_id": self.action_id})

    async def answer(self, request_id: str, value: Any) -> dict[str, Any]:
        """Answer an ``action_waiting_user`` request (``actions.input``)."""
        return await self.client.call("actions.input", {"action_id": self.action_id, "request_id": request_id,
                                                        "value": value})

    async def cancel(self, reason: str | None = None) -> ActionView:
        params: dict[str, Any] = {"action_id": self.action_id}
        if reason:
            params["reason"] = reason
        return await self.client.call("actions.cancel", params)

    async def result(self, timeout: float | None = None) -> ActionView:
        """Wait for the action's end (following its stream) and return its ActionView."""

        async def wait() -> ActionView:
            view = await self.get()
            if view["status"] in TERMINAL_STATUSES:
                return view
            if not self.ended:
                async for _ in self.events():
                    pass
            return await self.get()

        if timeout is None:
            return await wait()
        try:
            return await asyncio.wait_for(wait(), timeout)
        except TimeoutError:
            raise CallTimeout(f"{self.action_id} did not end in {timeout:g} s") from None


class Client:
    """``async with Client(url, token=...) as c``: see the module docstring and docs/client.md."""

    def __init__(self, url: str = DEFAULT_URL, token: str | None = None, *, timeout: float = 30.0,
                 connect_timeout: float = 10.0, reconnect_for: float = 30.0, stream_read_timeout: float = 45.0) -> None:
        self.ws_url, self.http_url = split_url(url)
        if not token:
            raise MetisError(CONFIG_ERROR, "no token given (use Client.from_env() to read METIS_TOKEN or tokens.json)")
        self.token = token
        self.timeout = timeout
        self.connect_timeout = connect_timeout
        self.reconnect_for = reconnect_for
        self.stream_read_timeout = stream_read_timeout
        self.principal: WhoAmI | None = None
        self.resumed_after: str | None = None  # Metis-Resumed-After of the last stream opened
        self._core = RpcCore()
        self._ws: Any = None
        self._reader: asyncio.Task[None] | None = None
        self._reconnector: asyncio.Task[None] | None = None
        self._pending: dict[int, asyncio.Future[Response]] = {}
        self._subs: dict[str, Subscription] = {}
        # notifications that overtook their events.subscribe answer (the reader runs ahead of the caller)
        self._early: dict[str, list[Notification]] = {}
        self._subscriptions: list[Subscription] = []
        self._ready = asyncio.Event()
        self._lost: MetisError | None = None
        self._closed = False
        self._opening = False
        self._connect_lock = asyncio.Lock()

    @classmethod
    def from_env(cls, role: str = "partner", **kwargs: Any) -> Client:
        """``METIS_URL`` (default http://127.0.0.1:8787) and ``METIS_TOKEN``, else a ``role`` token
        from ``$METIS_DATA_DIR/tokens.json`` (default ``.metis/tokens.json``)."""
        url = kwargs.pop("url", None) or os.environ.get("METIS_URL") or DEFAULT_URL
        token = kwargs.pop("token", None) or find_token(role, kwargs.pop("data_dir", None))
        return cls(url, token, **kwargs)

    # -- connection -------------------------------------------------------------------------

    async def __aenter__(self) -> Client:
        await self.connect()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def connect(self) -> WhoAmI:
        """Open the connection and check the token (``session.whoami``); returns the principal."""
        async with self._connect_lock:
            if self._ws is None:
                await self._open()
        assert self.principal is not None
        return self.principal

    async def _open(self) -> None:
        try:
            ws = await asyncio.wait_for(websockets.connect(
                self.ws_url, additional_headers={"Authorization": f"Bearer {self.token}"},
                max_size=MAX_MESSAGE_BYTES, open_timeout=self.connect_timeout), self.connect_timeout + 1)
        except (OSError, TimeoutError, websockets.InvalidHandshake, websockets.InvalidURI) as exc:
            raise ConnectionLost(f"cannot reach {self.ws_url}: {describe(exc)}") from None
        self._ws, self._lost = ws, None
        self._reader = asyncio.get_running_loop().create_task(self._read(ws))
        self._ready.set()
        self._opening = True
        try:
            self.principal = await self.call("session.whoami")
        except MetisError as exc:
            await self._drop(ws)
            if exc.code == UNAUTHENTICATED:
                raise MetisError(UNAUTHENTICATED, "the server refused the token", exc.data) from None
            raise
        finally:
            self._opening = False
        for sub in list(self._subscriptions):
            if not sub.closed:
                await sub._subscribe()

    async def _drop(self, ws: Any) -> None:
        if self._ws is ws:
            self._ws = None
            self._ready.clear()
        await ws.close()

    async def close(self) -> None:
        """Close the connection; calls in flight fail, subscriptions end."""
        self._closed = True
        if self._reconnector is not None:
            self._reconnector.cancel()
        for sub in self._subscriptions:
            sub.closed = True
            sub._queue.put_nowait(None)
        ws, self._ws = self._ws, None
        self._ready.clear()
        if ws is not None:
            await ws.close()
        if self._reader is not None:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._reader
        self._fail_pending(ConnectionLost("the client was closed"))

    async def _read(self, ws: Any) -> None:
        try:
            async for raw in ws:
                for item in RpcCore.receive(raw):
                    if isinstance(item, Response):
                        fut = self._pending.get(item.id) if isinstance(item.id, int) else None
                        if fut is not None and not fut.done():
                            fut.set_result(item)
                    elif isinstance(item, Notification):
                        self._route(item)
        except websockets.ConnectionClosed:
            pass
        finally:
            if self._ws is ws:
                self._on_lost()

    def _route(self, note: Notification) -> None:
        p = note.params
        sid = str(p.get("subscription_id"))
        sub = self._subs.get(sid)
        if sub is None:
            early = self._early.setdefault(sid, [])
            if len(early) < 100_000:
                early.append(note)
            while len(self._early) > 64:
                self._early.pop(next(iter(self._early)))
            return
        if note.method == "event":
            try:
                sub._push(Event(int(p["id"]), str(p["event"]), p.get("data") or {}))
            except (KeyError, TypeError, ValueError):
                return
        elif note.method == "subscription_dropped":
            self._subs.pop(str(p.get("subscription_id")), None)
            asyncio.get_running_loop().create_task(self._resubscribe(sub))

    async def _resubscribe(self, sub: Subscription) -> None:
        try:
            await sub._subscribe()
        except MetisError as exc:
            sub._push(exc)

    def _fail_pending(self, err: MetisError) -> None:
        for fut in self._pending.values():
            if not fut.done():
                fut.set_exception(err)
        self._pending.clear()

    def _on_lost(self) -> None:
        self._ws = None
        self._ready.clear()
        self._fail_pending(ConnectionLost(f"lost the connection to {self.ws_url}"))
        if self._closed or self._opening:  # a failed (re)connect reports itself; no background retry
            return
        self._subs.clear()
        if self.reconnect_for > 0:
            self._reconnector = asyncio.get_running_loop().create_task(self._reconnect())
        else:
            self._give_up(ConnectionLost(f"lost the connection to {self.ws_url}"))

    def _give_up(self, err: MetisError) -> None:
        self._lost = err
        self._ready.set()  # wake callers waiting for the reconnect: they raise ``err`` (no connection)
        for sub in self._subscriptions:
            if not sub.closed:
                sub._push(err)

    async def _reconnect(self) -> None:
        deadline = time.monotonic() + self.reconnect_for
        delay = 0.1
        last: MetisError = ConnectionLost(f"lost the connection to {self.ws_url}")
        while not self._closed:
            try:
                async with self._connect_lock:
                    if self._ws is None:
                        await self._open()
                return
            except MetisError as exc:
                last = exc
                if exc.code == UNAUTHENTICATED:
                    break
            if time.monotonic() + delay > deadline:
                last = ConnectionLost(f"lost the connection to {self.ws_url} and could not reconnect in "
                                      f"{self.reconnect_for:g} s: {last.message}")
                break
            await asyncio.sleep(delay)
            delay = min(delay * 2, 2.0)
        self._give_up(last)

    async def _connection(self, timeout: float) -> Any:
        if self._closed:
            raise ConnectionLost("the client was closed")
        if self._ws is not None:
            return self._ws
        reconnecting = self._reconnector is not None and not self._reconnector.done()
        if not reconnecting:
            # never connected, or gave up earlier: one fresh attempt
            async with self._connect_lock:
                if self._ws is None:
                    await self._open()
            return self._ws
        try:
            await asyncio.wait_for(self._ready.wait(), timeout)
        except TimeoutError:
            raise CallTimeout(f"not connected to {self.ws_url} after {timeout:g} s") from None
        if self._ws is None:
            raise self._lost or ConnectionLost(f"lost the connection to {self.ws_url}")
        return self._ws

    # -- calls ------------------------------------------------------------------------------

    async def call(self, method: str, params: dict[str, Any] | None = None, *, timeout: float | None = None) -> Any:
        """Call any ToolBus method; the result, or ``MetisError(code, message, data)``."""
        timeout = self.timeout if timeout is None else timeout
        ws = await self._connection(timeout)
        rid, frame = self._core.request(method, params)
        fut: asyncio.Future[Response] = asyncio.get_running_loop().create_future()
        self._pending[rid] = fut
        try:
            try:
                await ws.send(frame)
            except websockets.ConnectionClosed as exc:
                raise ConnectionLost(f"lost the connection to {self.ws_url}: {describe(exc)}") from None
            try:
                resp = await asyncio.wait_for(fut, timeout)
            except TimeoutError:
                raise CallTimeout(f"{method}: no answer in {timeout:g} s") from None
        finally:
            self._pending.pop(rid, None)
        if resp.error is not None:
            raise MetisError.from_error(resp.error)
        return resp.result

    async def whoami(self) -> WhoAmI:
        return await self.call("session.whoami")

    async def abilities(self) -> list[dict[str, Any]]:
        return (await self.call("abilities.list"))["abilities"]

    async def start(self, ability: str, inputs: dict[str, Any] | None = None, *, topic: str | None = None,
                    budgets: dict[str, Any] | None = None, seed_purpose: str | None = None,
                    idempotency_key: str | None = None, edges: list[dict[str, str]] | None = None,
                    risk_class: str | None = None) -> Action:
        """``actions.start``; returns a handle on the new (or idempotently repeated) action."""
        params: dict[str, Any] = {"ability": ability, "inputs": inputs or {}}
        for key, value in (("topic", topic), ("budgets", budgets), ("idempotency_key", idempotency_key),
                           ("edges", edges), ("risk_class", risk_class)):
            if value is not None:
                params[key] = value
        if seed_purpose is not None:
            params["seed"] = {"purpose": seed_purpose}
        started: StartResult = await self.call("actions.start", params)
        return Action(self, started["action_id"], started["topic"], started)

    def action(self, action_id: str, topic: str | None = None) -> Action:
        """A handle on an existing action (its topic defaults to its id, as for a fresh start)."""
        return Action(self, action_id, topic)

    async def artifact(self, artifact_id: str) -> Artifact:
        return await self.call("artifacts.get", {"artifact_id": artifact_id})

    async def subscribe(self, topic: str, last_event_id: int | None = None) -> Subscription:
        """Follow a topic over the ToolBus connection (notifications), resuming after reconnects."""
        sub = Subscription(self, topic, last_event_id)
        await sub._subscribe()
        self._subscriptions.append(sub)
        return sub

    # -- streams ----------------------------------------------------------------------------

    async def stream(self, topic: str, last_event_id: int | None = None, *,
                     stream_token: str | None = None) -> AsyncIterator[Event]:
        """A topic's events over SSE, forever: after a disconnect it reconnects with
        ``Last-Event-ID`` (no gap, no duplicate) and gives up with ``ConnectionLost`` after
        ``reconnect_for`` seconds without a connection. Close it (``aclose``) to stop."""
        url = f"{self.http_url}/streams/{quote(topic, safe='/:')}"
        last = last_event_id
        use_stream_token = False
        lost_since: float | None = None
        delay = 0.1
        timeout = httpx.Timeout(self.timeout, read=self.stream_read_timeout)
        async with httpx.AsyncClient(timeout=timeout) as http:
            while True:
                headers = {"Accept": "text/event-stream"}
                query = {}
                if use_stream_token and stream_token:
                    query["token"] = stream_token
                else:
                    headers["Authorization"] = f"Bearer {self.token}"
                if last is not None:
                    headers["Last-Event-ID"] = str(last)
                try:
                    async with http.stream("GET", url, headers=headers, params=query) as resp:
                        if resp.status_code == 401 and stream_token and not use_stream_token:
                            use_stream_token = True
                            continue
                        if resp.status_code == 401:
                            raise MetisError(UNAUTHENTICATED, f"the server refused the token for the stream of {topic!r}")
                        if resp.status_code != 200:
                            body = (await resp.aread()).decode(errors="replace")[:300]
                            code = INVALID_REQUEST if resp.status_code < 500 else INTERNAL_ERROR
                            raise MetisError(code, f"stream {topic!r}: HTTP {resp.status_code}: {body}")
                        self.resumed_after = resp.headers.get("metis-resumed-after")
                        lost_since, delay = None, 0.1
                        parser = SSEParser()
                        async for line in resp.aiter_lines():
                            ev = parser.feed(line)
                            if ev is None or (last is not None and ev.id <= last):
                                continue
                            last = ev.id
                            yield ev
                    reason = "the server ended the stream"
                except httpx.TransportError as exc:
                    reason = describe(exc)
                now = time.monotonic()
                lost_since = lost_since or now
                if now - lost_since >= self.reconnect_for:
                    raise ConnectionLost(f"lost the stream of {topic!r} at {self.http_url} and could not resume "
                                         f"in {self.reconnect_for:g} s: {reason}")
                await asyncio.sleep(delay)
                delay = min(delay * 2, 2.0)
