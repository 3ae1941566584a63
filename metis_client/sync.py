"""``SyncClient``: the same calls without ``await``, for scripts and notebooks.

It runs an asyncio loop in a private daemon thread and hands each call to it, so it also works
where a loop is already running (Jupyter)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Coroutine, Iterator
from typing import Any, TypeVar

from metis_client.client import Action, Client, Subscription
from metis_client.sse import Event
from metis_client.types import ActionView, Artifact, WhoAmI

T = TypeVar("T")


class _Loop:
    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="metis-client", daemon=True)
        self.thread.start()

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()

    def iterate(self, agen: AsyncIterator[T]) -> Iterator[T]:
        try:
            while True:
                try:
                    yield self.run(agen.__anext__())
                except StopAsyncIteration:
                    return
        finally:
            aclose = getattr(agen, "aclose", None)
            if aclose is not None and self.loop.is_running():
                self.run(aclose())

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)
        if not self.loop.is_running():
            self.loop.close()


class SyncAction:
    """``Action`` without ``await``."""

    def __init__(self, loop: _Loop, action: Action) -> None:
        self._loop = loop
        self.aio = action

    @property
    def action_id(self) -> str:
        return self.aio.action_id

    @property
    def topic(self) -> str:
        return self.aio.topic

    def events(self, last_event_id: int | None = None) -> Iterator[Event]:
        return self._loop.iterate(self.aio.events(last_event_id))

    def get(self) -> ActionView:
        return self._loop.run(self.aio.get())

    def answer(self, request_id: str, value: Any) -> dict[str, Any]:
        return self._loop.run(self.aio.answer(request_id, value))

    def cancel(self, reason: str | None = None) -> ActionView:
        return self._loop.run(self.aio.cancel(reason))

    def result(self, timeout: float | None = None) -> ActionView:
        return self._loop.run(self.aio.result(timeout))


class SyncClient:
    """``with SyncClient(url, token=...) as c:`` then ``c.start(...)``, ``c.call(...)``..."""

    def __init__(self, url: str | None = None, token: str | None = None, **kwargs: Any) -> None:
        self._loop = _Loop()
        try:
            self.aio = self._loop.run(self._make(url, token, kwargs))
        except BaseException:
            self._loop.stop()
            raise

    @staticmethod
    async def _make(url: str | None, token: str | None, kwargs: dict[str, Any]) -> Client:
        if url is None or token is None:
            return Client.from_env(url=url, token=token, **kwargs)
        return Client(url, token, **kwargs)

    @classmethod
    def from_env(cls, role: str = "partner", **kwargs: Any) -> SyncClient:
        self = cls.__new__(cls)
        self._loop = _Loop()
        try:
            self.aio = self._loop.run(self._from_env(role, kwargs))
        except BaseException:
            self._loop.stop()
            raise
        return self

    @staticmethod
    async def _from_env(role: str, kwargs: dict[str, Any]) -> Client:
        return Client.from_env(role, **kwargs)

    def __enter__(self) -> SyncClient:
        self.connect()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def connect(self) -> WhoAmI:
        return self._loop.run(self.aio.connect())

    def close(self) -> None:
        try:
            self._loop.run(self.aio.close())
        finally:
            self._loop.stop()

    def call(self, method: str, params: dict[str, Any] | None = None, *, timeout: float | None = None) -> Any:
        return self._loop.run(self.aio.call(method, params, timeout=timeout))

    def whoami(self) -> WhoAmI:
        return self._loop.run(self.aio.whoami())

    def start(self, ability: str, inputs: dict[str, Any] | None = None, **kwargs: Any) -> SyncAction:
        return SyncAction(self._loop, self._loop.run(self.aio.start(ability, inputs, **kwargs)))

    def action(self, action_id: str, topic: str | None = None) -> SyncAction:
        return SyncAction(self._loop, self.aio.action(action_id, topic))

    def artifact(self, artifact_id: str) -> Artifact:
        return self._loop.run(self.aio.artifact(artifact_id))

    def stream(self, topic: str, last_event_id: int | None = None) -> Iterator[Event]:
        return self._loop.iterate(self.aio.stream(topic, last_event_id))

    def subscribe(self, topic: str, last_event_id: int | None = None) -> Iterator[Event]:
        sub: Subscription = self._loop.run(self.aio.subscribe(topic, last_event_id))
        try:
            yield from self._loop.iterate(sub)
        finally:
            if self._loop.loop.is_running():
                self._loop.run(sub.close())
