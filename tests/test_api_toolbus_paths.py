"""Which send path a ToolBus connection gets, on real uvicorn servers in this process.

``/toolbus`` writes its frames straight to uvicorn's sans-I/O WebSocket protocol when the server runs
it (what ``metis serve`` runs: uvicorn's ``auto``), and otherwise through the plain ASGI ``send``.
The fast path uses that protocol's internals, so a protocol that lacks any of them must get the ASGI
path rather than a broken connection, and the ASGI path must serve the ToolBus as before: every
request answered once, matched by id, a bad frame answered with an error on an open connection."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import uvicorn
import websockets
from uvicorn.config import WS_PROTOCOLS
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from orchestrator.app import create_app
from orchestrator.config import Settings
from orchestrator.toolbus import _Frames
from tests.support import free_port, token_for, write_tokens


@asynccontextmanager
async def serving(app: Any, ws_impl: str) -> AsyncIterator[int]:
    """A uvicorn server of ``app`` on a free port with the given WebSocket implementation."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, ws=ws_impl, lifespan="on",
                                           log_level="warning", log_config=None, timeout_graceful_shutdown=2))
    task = asyncio.get_running_loop().create_task(server.serve())
    while not server.started:
        assert not task.done(), "the server did not start"
        await asyncio.sleep(0.01)
    try:
        yield port
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, 30)


async def probe_attach(ws_impl: str) -> bool:
    """Whether ``_Frames.attach`` finds the fast path behind the server's own ``send``."""

    async def app(scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        await receive()  # websocket.connect
        await send({"type": "websocket.accept"})
        await send({"type": "websocket.send", "text": json.dumps(_Frames.attach(send) is not None)})
        await send({"type": "websocket.close", "code": 1000})

    async with serving(app, ws_impl) as port, websockets.connect(f"ws://127.0.0.1:{port}/toolbus") as ws:
        return json.loads(await asyncio.wait_for(ws.recv(), 10))


async def test_the_server_metis_runs_gets_the_fast_path() -> None:
    # ``metis serve`` leaves uvicorn's ``ws`` at its default: if this fails after an upgrade, the
    # ToolBus still works (ASGI path) but has lost its one-write-per-turn sending.
    assert await probe_attach("auto") is True


async def test_another_websocket_implementation_gets_the_asgi_path() -> None:
    assert await probe_attach(other_ws_impl()) is False


def test_a_sans_io_protocol_without_its_internals_gets_the_asgi_path() -> None:
    bare = WebSocketsSansIOProtocol.__new__(WebSocketsSansIOProtocol)  # none of its connection state
    assert _Frames.attach(bare.send) is None


@pytest.mark.timeout(120)
async def test_the_asgi_path_serves_the_toolbus(tmp_path: Path) -> None:
    """The real app on another WebSocket implementation of uvicorn (no fast path): 50 pipelined
    requests answered once each, matched by id, and a bad frame answered without closing."""
    tokens = write_tokens(tmp_path / "tokens.json")
    settings = Settings(data_dir=tmp_path / "data", tokens_file=tokens, warm_workers=0, port=0)
    async with serving(create_app(settings), other_ws_impl()) as port:
        headers = {"Authorization": f"Bearer {token_for('partner')}"}
        async with websockets.connect(f"ws://127.0.0.1:{port}/toolbus", additional_headers=headers) as ws:
            for i in range(50):
                await ws.send(json.dumps({"jsonrpc": "2.0", "id": i, "method": "session.whoami"}))
            await ws.send("{not json")
            answers = [json.loads(await asyncio.wait_for(ws.recv(), 30)) for _ in range(51)]
    by_id = {a.get("id"): a for a in answers}
    assert sorted(k for k in by_id if k is not None) == list(range(50))
    assert all(by_id[i]["result"]["tenant"] == "acme" for i in range(50))
    assert by_id[None]["error"]["code"] == -32700


def other_ws_impl() -> str:
    """A uvicorn WebSocket implementation other than the sans-I/O one (skip when it has none)."""
    for name in ("wsproto", "websockets"):
        target = WS_PROTOCOLS.get(name) or ""
        if "sansio" in target:
            continue
        try:
            __import__(target.split(":")[0])
        except ImportError:
            continue
        return name
    pytest.skip("this uvicorn has no WebSocket implementation besides the sans-I/O one")
