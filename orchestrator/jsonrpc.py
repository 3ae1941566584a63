"""JSON-RPC 2.0 framing, sans-I/O: text in, requests or error responses out.

The ToolBus shell feeds each WebSocket text frame to ``parse`` and sends back what
``dispatch`` produced; nothing here touches a socket, so it is tested with plain strings.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from orchestrator.errors import INVALID_REQUEST, PARSE_ERROR, TOO_LARGE, RpcError


@dataclass(frozen=True)
class Request:
    method: str
    params: dict[str, Any]
    id: Any = None
    notification: bool = False


def error_response(id_: Any, err: RpcError) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id_, "error": err.to_dict()}


def result_response(id_: Any, result: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id_, "result": result}


def _one(obj: Any) -> Request | dict[str, Any]:
    if not isinstance(obj, dict):
        return error_response(None, RpcError(INVALID_REQUEST, "a request must be a JSON object"))
    id_ = obj.get("id")
    if id_ is not None and not isinstance(id_, str | int) or isinstance(id_, bool):
        return error_response(None, RpcError(INVALID_REQUEST, "id must be a string, a number or null"))
    if obj.get("jsonrpc") != "2.0":
        return error_response(id_, RpcError(INVALID_REQUEST, 'jsonrpc must be "2.0"'))
    method = obj.get("method")
    if not isinstance(method, str) or not method:
        return error_response(id_, RpcError(INVALID_REQUEST, "method must be a non-empty string"))
    params = obj.get("params", {})
    if isinstance(params, list):
        return error_response(id_, RpcError(INVALID_REQUEST, "params must be an object (by-name)"))
    if not isinstance(params, dict):
        return error_response(id_, RpcError(INVALID_REQUEST, "params must be an object"))
    return Request(method, params, id_, notification="id" not in obj)


def parse(text: str | bytes, max_bytes: int, max_batch: int) -> tuple[list[Request | dict[str, Any]], bool]:
    """Split a frame into requests (or ready error responses). Returns (items, is_batch)."""
    size = len(text)
    if isinstance(text, str) and size * 4 > max_bytes:  # only then can UTF-8 exceed the limit
        size = len(text.encode("utf-8", "surrogatepass"))
    if size > max_bytes:
        return [error_response(None, RpcError(TOO_LARGE, f"message of {size} bytes exceeds {max_bytes}"))], False
    try:
        obj = json.loads(text)
    except (ValueError, UnicodeDecodeError) as exc:
        return [error_response(None, RpcError(PARSE_ERROR, f"parse error: {exc}"))], False
    if isinstance(obj, list):
        if not obj:
            return [error_response(None, RpcError(INVALID_REQUEST, "empty batch"))], False
        if len(obj) > max_batch:
            return [error_response(None, RpcError(TOO_LARGE, f"batch of {len(obj)} exceeds {max_batch}"))], False
        return [_one(o) for o in obj], True
    return [_one(obj)], False


def encode(payload: Any) -> str:
    return json.dumps(payload, separators=(",", ":"), ensure_ascii=False)
