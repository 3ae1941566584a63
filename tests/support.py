"""Test support: a real Metis server in a subprocess and a real ``websockets`` ToolBus client.

Fixtures (see ``tests/conftest.py``): ``metis_server`` (one server for the whole session) and
``server_factory`` (fresh servers on their own data dirs, for restart and crash tests).

    async def test_x(metis_server):
        view, events = await run_action(metis_server, "crl_math", {"goal": "simplify", ...})
        assert view["status"] == "completed"

    async with ToolBus.connect(metis_server, role="partner") as tb:
        with pytest.raises(RpcFailure) as err:
            await tb.call("actions.start", {"ability": "crl_math", "inputs": {}})
        assert err.value.code == -32602
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import websockets

ROOT = Path(__file__).resolve().parents[1]
TENANTS = ("acme", "globex")
ROLES = ("partner", "canvas", "reviewer", "approver")
ENDED = {"action_completed", "action_partial", "action_failed"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def token_for(role: str, tenant: str = "acme") -> str:
    return f"tok-{tenant}-{role}"


def write_tokens(path: Path) -> Path:
    tokens = {token_for(r, t): {"tenant": t, "roles": [r]} for t in TENANTS for r in ROLES}
    tokens["tok-acme-approver2"] = {"tenant": "acme", "roles": ["approver"]}
    tokens["tok-ops-operator"] = {"tenant": "ops", "roles": ["operator"]}
    tokens["tok-acme-fuzz"] = {"tenant": "acme", "roles": list(ROLES)}  # every tenant role: fuzzing reaches all params
    path.write_text(json.dumps(tokens))
    return path


@dataclass
class MetisServer:
    """A ``metis serve`` subprocess on a free port."""

    data_dir: Path
    port: int = field(default_factory=free_port)
    proc: subprocess.Popen | None = None
    extra_args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    tokens_file: bool = True  # False: the server creates <data-dir>/tokens.json itself
    #: Wait until the warm worker pool is up (the server is ready before it: a test that needs
    #: several actions running at once, or a producer and its consumer side by side, needs it).
    wait_workers: bool = True

    @property
    def http_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/toolbus"

    def token(self, role: str = "partner", tenant: str = "acme") -> str:
        return token_for(role, tenant)

    def start(self, timeout: float = 60.0) -> MetisServer:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        tokens_args: list[str] = []
        if self.tokens_file:
            tokens = write_tokens(self.data_dir.parent / f"{self.data_dir.name}-tokens.json")
            tokens_args = ["--tokens", str(tokens)]
        env = {**os.environ, "PYTHONPATH": str(ROOT), "METIS_EXTRA_ABILITIES": "tests.abilities_testing:ABILITIES",
               **self.env}
        log = open(self.data_dir.parent / f"{self.data_dir.name}-server.log", "ab")  # noqa: SIM115
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "orchestrator.cli", "serve", "--port", str(self.port), "--data-dir",
             str(self.data_dir), *tokens_args, *self.extra_args],
            cwd=ROOT, env=env, stdout=log, stderr=log, start_new_session=True,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with {self.proc.returncode}: see {log.name}")
            try:
                if httpx.get(self.http_url + "/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        else:
            raise RuntimeError("server did not become healthy")
        if self.wait_workers:
            self.wait_for_workers(self.warm_workers(), deadline)
        return self

    def warm_workers(self) -> int:
        """The warm pool size this server was started with (``--workers``, else the default 4)."""
        args = self.extra_args
        if "--workers" in args:
            return int(args[args.index("--workers") + 1])
        return int(self.env.get("METIS_WARM_WORKERS", os.environ.get("METIS_WARM_WORKERS", 4)))

    def wait_for_workers(self, n: int, deadline: float) -> None:
        """Poll ``metis_workers`` on /metrics until ``n`` worker processes are up."""
        while time.monotonic() < deadline:
            if self.proc is not None and self.proc.poll() is not None:
                raise RuntimeError(f"server exited with {self.proc.returncode}")
            try:
                text = httpx.get(self.http_url + "/metrics", timeout=2).text
            except httpx.HTTPError:
                text = ""
            for line in text.splitlines():
                if line.startswith("metis_workers ") and float(line.split()[1]) >= n:
                    return
            time.sleep(0.1)
        raise RuntimeError(f"fewer than {n} warm workers came up")

    def stop(self, kill: bool = False) -> None:
        stop_process(self.proc, kill, grace_s=15)


def stop_process(proc: subprocess.Popen | None, kill: bool = False, grace_s: float = 15) -> None:
    """Stop a process started in its own session: SIGTERM (or kill -9 of its whole group), then
    kill -9 of the group if it has not exited within ``grace_s``."""
    if proc is None or proc.poll() is not None:
        return
    if kill:
        os.killpg(proc.pid, signal.SIGKILL)
    else:
        proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(grace_s)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(5)


class RpcFailure(Exception):
    def __init__(self, error: dict[str, Any]) -> None:
        super().__init__(f"{error.get('code')}: {error.get('message')}")
        self.code = error.get("code")
        self.message = error.get("message")
        self.data = error.get("data")


class ToolBus:
    """Async JSON-RPC client over a real WebSocket; notifications are queued."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.next_id = 0
        self.pending: dict[Any, asyncio.Future[Any]] = {}
        self.notifications: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.unsolicited: list[Any] = []
        self._reader = asyncio.get_running_loop().create_task(self._read())

    @classmethod
    @asynccontextmanager
    async def connect(cls, server: MetisServer, role: str = "partner", tenant: str = "acme",
                      token: str | None = None, auth: bool = True):
        headers = {"Authorization": f"Bearer {token or server.token(role, tenant)}"} if auth else {}
        async with websockets.connect(server.ws_url, additional_headers=headers, max_size=64 * 1024 * 1024) as ws:
            tb = cls(ws)
            try:
                yield tb
            finally:
                tb._reader.cancel()

    async def _read(self) -> None:
        try:
            async for raw in self.ws:
                msg = json.loads(raw)
                if isinstance(msg, list):
                    key = tuple(sorted(str(m.get("id")) for m in msg))
                    fut = self.pending.pop(key, None)
                    if fut:
                        fut.set_result(msg)
                    else:
                        self.unsolicited.append(msg)
                elif "method" in msg and "id" not in msg:
                    await self.notifications.put(msg)
                elif msg.get("id") in self.pending:
                    self.pending.pop(msg["id"]).set_result(msg)
                else:
                    self.unsolicited.append(msg)
        except websockets.ConnectionClosed:
            pass

    async def send_raw(self, text: str | bytes) -> None:
        await self.ws.send(text)

    async def next_unsolicited(self, timeout: float = 10.0) -> Any:
        deadline = time.monotonic() + timeout
        while not self.unsolicited:
            if time.monotonic() > deadline:
                raise TimeoutError("no unsolicited message")
            await asyncio.sleep(0.01)
        return self.unsolicited.pop(0)

    async def request(self, method: str, params: dict[str, Any] | None = None, timeout: float = 60.0) -> dict[str, Any]:
        """The raw response object."""
        self.next_id += 1
        rid = self.next_id
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.pending[rid] = fut
        await self.ws.send(json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params or {}}))
        return await asyncio.wait_for(fut, timeout)

    async def batch(self, calls: list[tuple[str, dict[str, Any]]], timeout: float = 60.0) -> list[dict[str, Any]]:
        msgs = []
        for method, params in calls:
            self.next_id += 1
            msgs.append({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.pending[tuple(sorted(str(m["id"]) for m in msgs))] = fut
        await self.ws.send(json.dumps(msgs))
        return await asyncio.wait_for(fut, timeout)

    async def call(self, method: str, params: dict[str, Any] | None = None, timeout: float = 60.0) -> Any:
        """The result, or ``RpcFailure`` carrying code, message and data."""
        resp = await self.request(method, params, timeout)
        if "error" in resp:
            raise RpcFailure(resp["error"])
        return resp["result"]

    async def wait_status(self, action_id: str, statuses: set[str], timeout: float = 60.0) -> dict[str, Any]:
        """Poll ``actions.get`` until the action is in one of ``statuses``; returns the view."""
        deadline = time.monotonic() + timeout
        while True:
            view = await self.call("actions.get", {"action_id": action_id})
            if view["status"] in statuses:
                return view
            if time.monotonic() > deadline:
                raise TimeoutError(f"{action_id} never reached {statuses}: {view['status']}")
            await asyncio.sleep(0.05)

    async def start(self, ability: str, inputs: dict[str, Any], **params: Any) -> dict[str, Any]:
        return await self.call("actions.start", {"ability": ability, "inputs": inputs, **params})

    async def follow(self, topic: str, action_id: str, answer: Callable[[dict[str, Any]], Any] | None = None,
                     timeout: float = 120.0, last_event_id: int | None = None) -> list[dict[str, Any]]:
        """Subscribe to ``topic`` and collect events until ``action_id`` ends; ``answer`` replies
        to each ``action_waiting_user`` of that action (payload -> value)."""
        params: dict[str, Any] = {"topic": topic}
        if last_event_id is not None:
            params["last_event_id"] = last_event_id
        sub = (await self.call("events.subscribe", params))["subscription_id"]
        events: list[dict[str, Any]] = []
        deadline = time.monotonic() + timeout
        try:
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"{action_id} did not end in {timeout}s; got {[e['event'] for e in events]}")
                note = await asyncio.wait_for(self.notifications.get(), left)
                p = note.get("params", {})
                if note.get("method") != "event" or p.get("subscription_id") != sub:
                    continue
                events.append(p)
                if p["event"] == "action_waiting_user" and p["data"]["action_id"] == action_id and answer:
                    value = answer(p["data"]["payload"])
                    await self.call("actions.input", {"action_id": action_id,
                                                      "request_id": p["data"]["payload"]["request_id"],
                                                      "value": value})
                if p["event"] in ENDED and p["data"]["action_id"] == action_id:
                    return events
        finally:
            await self.call("events.unsubscribe", {"subscription_id": sub})

    async def run(self, ability: str, inputs: dict[str, Any], answer: Callable[[dict[str, Any]], Any] | None = None,
                  timeout: float = 120.0, **params: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        started = await self.start(ability, inputs, **params)
        events = await self.follow(started["topic"], started["action_id"], answer, timeout)
        view = await self.call("actions.get", {"action_id": started["action_id"]})
        return view, events


async def run_action(server: MetisServer, ability: str, inputs: dict[str, Any],
                     answer: Callable[[dict[str, Any]], Any] | None = None, timeout: float = 120.0,
                     role: str = "partner", tenant: str = "acme", **params: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Start an action, follow it to its end (answering questions), return (ActionView, events).

    Each event is ``{"subscription_id", "id", "event", "data"}``; ``data`` is the contract's event
    data (``kind``, ``payload``, ``seq``, ``receipt_hash``...)."""
    async with ToolBus.connect(server, role, tenant) as tb:
        return await tb.run(ability, inputs, answer, timeout, **params)


async def approved_reviewer(server: MetisServer, tb_reviewer: ToolBus, method: str, params: dict[str, Any]) -> Any:
    """Call a reflect method: the first call is refused with an approval id, an approver grants it,
    the second call succeeds. Returns the result."""
    try:
        return await tb_reviewer.call(method, params)
    except RpcFailure as exc:
        if exc.code != -32003 or not exc.data or "approval_id" not in exc.data:
            raise
        approval_id = exc.data["approval_id"]
    async with ToolBus.connect(server, "approver", "acme") as approver:
        await approver.call("approvals.grant", {"approval_id": approval_id, "note": "test"})
    return await tb_reviewer.call(method, params)


async def sse_read(server: MetisServer, topic: str, token: str | None = None, last_event_id: int | None = None,
                   query: dict[str, str] | None = None, until: Callable[[dict[str, Any]], bool] | None = None,
                   max_events: int | None = None, timeout: float = 30.0) -> tuple[dict[str, str], list[dict[str, Any]]]:
    """Read ``/streams/{topic}`` with a real httpx client until ``until(event)`` or ``max_events``.

    Returns (response headers, events) where each event is ``{"id": int, "event": str, "data": dict}``."""
    headers = {"Authorization": f"Bearer {token or server.token('canvas')}"} if query is None or "token" not in query else {}
    if last_event_id is not None:
        headers["Last-Event-ID"] = str(last_event_id)
    events: list[dict[str, Any]] = []
    async with httpx.AsyncClient(timeout=httpx.Timeout(timeout)) as client:
        async with client.stream("GET", f"{server.http_url}/streams/{topic}", headers=headers,
                                 params=query or {}) as resp:
            if resp.status_code != 200:
                return dict(resp.headers), [{"status": resp.status_code, "body": (await resp.aread()).decode()}]
            current: dict[str, Any] = {}

            async def consume() -> None:
                nonlocal current
                async for line in resp.aiter_lines():
                    if line.startswith(":"):
                        continue
                    if not line:
                        if "data" in current:
                            ev = {"id": int(current["id"]), "event": current["event"], "data": json.loads(current["data"])}
                            events.append(ev)
                            if (until and until(ev)) or (max_events and len(events) >= max_events):
                                return
                        current = {}
                        continue
                    key, _, value = line.partition(":")
                    current[key] = value[1:] if value.startswith(" ") else value

            await asyncio.wait_for(consume(), timeout)
            return dict(resp.headers), events


def ended(action_id: str) -> Callable[[dict[str, Any]], bool]:
    """``until`` predicate: the action's terminal event."""
    return lambda ev: ev["event"] in ENDED and ev["data"]["action_id"] == action_id


async def expect_invalid(server: MetisServer, ability: str, inputs: dict[str, Any], needle: str) -> RpcFailure:
    """``actions.start`` must fail with -32602 whose data names ``needle``; returns the failure."""
    async with ToolBus.connect(server) as tb:
        try:
            await tb.start(ability, inputs)
        except RpcFailure as exc:
            assert exc.code == -32602, exc
            assert needle in json.dumps(exc.data), exc.data
            return exc
    raise AssertionError(f"{ability} accepted invalid inputs (expected an error naming {needle!r})")


async def replay_and_receipts(server: MetisServer, action_id: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """As an approved reviewer: ``reflect.replay`` and ``reflect.receipts`` of one action."""
    async with ToolBus.connect(server, "reviewer") as rv:
        replay = await approved_reviewer(server, rv, "reflect.replay", {"action_id": action_id})
        receipts = await approved_reviewer(server, rv, "reflect.receipts", {"action_id": action_id})
    return replay, receipts


async def open_request(tb: ToolBus, action_id: str, topic: str | None = None, timeout: float = 30.0) -> dict[str, Any]:
    """The payload of the action's newest ``action_waiting_user`` event (read from the topic's
    history, so it works after a restart too); waits until the action is ``waiting_user``."""
    view = await tb.wait_status(action_id, {"waiting_user"}, timeout)
    sub = (await tb.call("events.subscribe", {"topic": topic or view["topic"]}))["subscription_id"]
    found: dict[str, Any] | None = None
    deadline = time.monotonic() + timeout
    try:
        while True:
            note = await asyncio.wait_for(tb.notifications.get(), max(0.1, deadline - time.monotonic()))
            p = note.get("params", {})
            if note.get("method") != "event" or p.get("subscription_id") != sub or p["data"]["action_id"] != action_id:
                continue
            if p["event"] == "action_waiting_user":
                found = p["data"]["payload"]
            if found is not None and tb.notifications.empty():
                await asyncio.sleep(0.2)  # a newer question may still be on its way
                if tb.notifications.empty():
                    return found
    finally:
        await tb.call("events.unsubscribe", {"subscription_id": sub})


async def answer_open_request(tb: ToolBus, action_id: str, value: Any) -> dict[str, Any]:
    """Answer the action's open question with ``actions.input``; returns the question's payload."""
    payload = await open_request(tb, action_id)
    await tb.call("actions.input", {"action_id": action_id, "request_id": payload["request_id"], "value": value})
    return payload


async def notices(tb: ToolBus, topic: str, action_id: str, kind: str, quiet_s: float = 0.5) -> list[dict[str, Any]]:
    """Payloads of the ``action_notice`` events of ``kind`` on an action, read from the topic's history
    through ``events.subscribe`` (until the subscription is quiet for ``quiet_s``)."""
    sub = (await tb.call("events.subscribe", {"topic": topic}))["subscription_id"]
    found: list[dict[str, Any]] = []
    try:
        while True:
            note = await asyncio.wait_for(tb.notifications.get(), quiet_s)
            p = note.get("params", {})
            if p.get("subscription_id") == sub and p["data"].get("kind") == kind and p["data"]["action_id"] == action_id:
                found.append(p["data"]["payload"])
    except TimeoutError:
        pass
    finally:
        await tb.call("events.unsubscribe", {"subscription_id": sub})
    return found
