"""JSON-RPC 2.0 framing, sans-I/O: text in, requests or error responses out.

The ToolBus shell feeds each WebSocket text frame to ``parse`` and sends back what
``dispatch`` produced; nothing here touches a socket, so it is tested with plain strings.

Two bounds are enforced before a message reaches a method: its size (``max_bytes``, checked
before parsing) and its nesting depth (``MAX_DEPTH`` containers, checked while parsing), so a
hostile frame costs a bounded amount of work and is answered, never dropped. When a frame cannot
be parsed in full (too large, too deep, rate limited), ``scan_id`` reads the request's ``id`` from
its first ``ID_SCAN_CHARS`` characters so the error still reaches the caller waiting for it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from orchestrator.errors import INVALID_REQUEST, PARSE_ERROR, TOO_LARGE, RpcError

try:
    import orjson
except ImportError:  # pragma: no cover - platforms without an orjson wheel
    orjson = None  # type: ignore[assignment]

MAX_DEPTH = 64  # containers, counting a batch's array and the request object itself
ID_SCAN_CHARS = 4096

# orjson reads integers beyond 64 bits as floats; a frame with such a literal takes the stdlib path
# (ASCII digits only: no other digit can be part of a JSON number; ``[0-9]`` searches twice as fast)
_LONG_DIGITS = re.compile(r"[0-9][0-9]{18}")
_LONG_DIGITS_B = re.compile(rb"\d{19}")
_TOKEN = re.compile(r'\s*(?:("(?:[^"\\]|\\.)*")|([{}\[\]:,])|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null))')


@dataclass(slots=True)
class Request:
    """One parsed request (not ``frozen``: a frozen dataclass's ``__init__`` costs 3x, per request)."""

    method: str
    params: dict[str, Any]
    id: Any = None
    notification: bool = False


def error_response(id_: Any, err: RpcError) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id_, "error": err.to_dict()}


def result_response(id_: Any, result: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id_, "result": result}


def loads(text: str | bytes) -> Any:
    """``json.loads`` semantics, faster: orjson where it gives the same value, else the stdlib
    (lone surrogate escapes, NaN/Infinity, huge integers, nesting beyond orjson's limit)."""
    if orjson is not None:
        long_digits = _LONG_DIGITS.search(text) if isinstance(text, str) else _LONG_DIGITS_B.search(text)
        if long_digits is None:
            try:
                return orjson.loads(text)
            except orjson.JSONDecodeError:
                pass  # the stdlib decides, with its own messages
    return json.loads(text)


def valid_id(id_: Any) -> bool:
    return id_ is None or (isinstance(id_, str | int) and not isinstance(id_, bool))


def scan_id(text: str | bytes, limit: int = ID_SCAN_CHARS) -> Any:
    """The top-level ``"id"`` of a single request, read from its first ``limit`` characters
    without parsing the rest; None when it is absent, not there yet, or not a valid id."""
    if isinstance(text, bytes):
        text = text[:limit].decode("utf-8", "ignore")
    text = text[:limit]
    depth, pos, after_id_colon, last_string = 0, 0, False, None
    while True:
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            return None
        pos = m.end()
        string, punct, scalar = m.groups()
        if after_id_colon:
            if string is None and scalar is None:
                return None
            try:
                value = json.loads(string if string is not None else scalar)
            except ValueError:
                return None
            return value if valid_id(value) and not isinstance(value, float) else None
        if punct in ("{", "["):
            if depth == 0 and punct == "[":
                return None  # a batch: its errors carry the members' ids, not one id
            depth += 1
        elif punct in ("}", "]"):
            depth -= 1
            if depth <= 0:
                return None
        elif punct == ":" and depth == 1 and last_string == '"id"':
            after_id_colon = True
        last_string = string


def too_deep(obj: Any, limit: int = MAX_DEPTH) -> bool:
    """True when containers nest more than ``limit`` deep (iterative: no recursion to exhaust)."""
    stack = [(obj, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return True
        if isinstance(node, dict):
            stack.extend((v, depth + 1) for v in node.values() if isinstance(v, dict | list))
        elif isinstance(node, list):
            stack.extend((v, depth + 1) for v in node if isinstance(v, dict | list))
    return False


def _depth_error(text: str | bytes) -> dict[str, Any]:
    return error_response(scan_id(text), RpcError(
        INVALID_REQUEST, f"nesting deeper than {MAX_DEPTH} levels (the limit for any message)",
        {"max_depth": MAX_DEPTH}))


def _one(obj: Any) -> Request | dict[str, Any]:
    if not isinstance(obj, dict):
        return error_response(None, RpcError(INVALID_REQUEST, "a request must be a JSON object"))
    id_ = obj.get("id")
    if not valid_id(id_):
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
        return [error_response(scan_id(text), RpcError(TOO_LARGE, f"message of {size} bytes exceeds {max_bytes}",
                                                       {"max_bytes": max_bytes}))], False
    try:
        obj = loads(text)
    except RecursionError:  # nested beyond the interpreter's own limit: certainly beyond ours
        return [_depth_error(text)], False
    except (ValueError, UnicodeDecodeError) as exc:
        return [error_response(None, RpcError(PARSE_ERROR, f"parse error: {exc}"))], False
    # Only a frame with more openers than the limit can be too deep: skips the walk for nearly all.
    openers = text.count("[") + text.count("{") if isinstance(text, str) else text.count(b"[") + text.count(b"{")
    if openers > MAX_DEPTH and too_deep(obj):
        return [_depth_error(text)], False
    if isinstance(obj, list):
        if not obj:
            return [error_response(None, RpcError(INVALID_REQUEST, "empty batch"))], False
        if len(obj) > max_batch:
            return [error_response(None, RpcError(TOO_LARGE, f"batch of {len(obj)} exceeds {max_batch}",
                                                  {"max_batch": max_batch}))], False
        return [_one(o) for o in obj], True
    return [_one(obj)], False


def encode(payload: Any) -> str:
    """Compact JSON text that is valid UTF-8 whatever the payload holds (a lone surrogate echoed
    from bad input is escaped)."""
    if orjson is not None:
        try:
            return orjson.dumps(payload).decode()
        except (TypeError, orjson.JSONEncodeError):
            pass  # huge integers, lone surrogates: the stdlib below
    return _encode_stdlib(payload)


def encode_bytes(payload: Any) -> bytes:
    """``encode`` as UTF-8 bytes (what a WebSocket text frame carries), without a str in between."""
    if orjson is not None:
        try:
            return orjson.dumps(payload)
        except (TypeError, orjson.JSONEncodeError):
            pass
    return _encode_stdlib(payload).encode("utf-8")


def _encode_stdlib(payload: Any) -> str:
    text = json.dumps(payload, separators=(",", ":"), ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(payload, separators=(",", ":"), ensure_ascii=True)
    return text
