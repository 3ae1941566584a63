"""The ToolBus WebSocket endpoint: a thin shell around ``jsonrpc`` and ``service``.

One JSON text frame per message (single request or batch). Requests of one connection run in
order; subscriptions push ``event`` notifications concurrently through the same send lock. A bad
frame gets an error response and the connection stays open.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from typing import Any

import structlog
from starlette.websockets import WebSocket, WebSocketDisconnect

from orchestrator import errors as E
from orchestrator.errors import RpcError
from orchestrator.jsonrpc import Request, encode, error_response, parse, result_response
from orchestrator.ratelimit import TokenBucket
from orchestrator.service import Session

log = structlog.get_logger("metis.toolbus")


def bearer(headers: Any) -> str | None:
    value = headers.get("authorization") or ""
    if value.lower().startswith("bearer "):
        return value[7:].strip()
    return None


async def handle_request(session: Session, service: Any, req: Request) -> dict[str, Any] | None:
    metrics = service.metrics
    started = time.perf_counter()
    rid = str(req.id) if req.id is not None else uuid.uuid4().hex[:12]
    structlog.contextvars.bind_contextvars(request_id=rid, method=req.method)
    outcome = "ok"
    try:
        result = await service.call(session, req.method, req.params)
        response = result_response(req.id, result)
    except RpcError as err:
        outcome = str(err.code)
        response = error_response(req.id, err)
    except Exception as exc:
        outcome = "internal"
        log.exception("method_failed")
        response = error_response(req.id, RpcError(E.INTERNAL_ERROR, f"internal error: {type(exc).__name__}"))
    finally:
        structlog.contextvars.unbind_contextvars("request_id", "method")
    label = req.method if req.method in service.methods else "unknown"
    metrics.toolbus_requests.labels(label, outcome).inc()
    metrics.toolbus_seconds.observe(time.perf_counter() - started)
    return None if req.notification else response


async def toolbus_endpoint(ws: WebSocket) -> None:
    app_state = ws.app.state
    service, settings = app_state.service, app_state.settings
    principal = service.tokens.authenticate(bearer(ws.headers))
    await ws.accept()
    send_lock = asyncio.Lock()

    async def send(obj: Any) -> None:
        async with send_lock:
            try:
                await ws.send_text(encode(obj))
            except UnicodeEncodeError:  # a lone surrogate echoed from bad input: escape it
                await ws.send_text(json.dumps(obj, separators=(",", ":"), ensure_ascii=True))

    async def notify(method: str, params: dict[str, Any]) -> None:
        await send({"jsonrpc": "2.0", "method": method, "params": params})

    session = Session(principal, notify)
    bucket = TokenBucket(settings.rate_per_s, settings.rate_burst)
    service.metrics.toolbus_connections.inc()
    try:
        while True:
            msg = await ws.receive()
            if msg["type"] == "websocket.disconnect":
                break
            text = msg.get("text")
            if text is None:
                raw = msg.get("bytes") or b""
                try:
                    text = raw.decode("utf-8")
                except UnicodeDecodeError:
                    await send(error_response(None, RpcError(E.PARSE_ERROR, "binary frame is not UTF-8 JSON")))
                    continue
            if not bucket.take():
                await send(error_response(None, RpcError(E.RATE_LIMITED, "rate limit exceeded: slow down",
                                                         {"rate_per_s": settings.rate_per_s})))
                continue
            items, is_batch = parse(text, settings.max_message_bytes, settings.max_batch)
            responses: list[dict[str, Any]] = []
            for item in items:
                if isinstance(item, dict):
                    responses.append(item)
                else:
                    res = await handle_request(session, service, item)
                    if res is not None:
                        responses.append(res)
            if is_batch:
                if responses:
                    await send(responses)
            elif responses:
                await send(responses[0])
    except (WebSocketDisconnect, ConnectionError, RuntimeError):
        pass
    finally:
        service.metrics.toolbus_connections.dec()
        session.close()
