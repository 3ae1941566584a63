"""The sans-I/O JSON-RPC core: numbers requests and sorts incoming frames into responses and
notifications. No sockets here, so it is tested with plain strings."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Response:
    id: Any
    result: Any = None
    error: dict[str, Any] | None = None


@dataclass(frozen=True)
class Notification:
    method: str
    params: dict[str, Any]


@dataclass(frozen=True)
class Garbage:
    """A frame that is neither: kept so the caller can log it; never raised."""

    text: str
    reason: str


Incoming = Response | Notification | Garbage


class RpcCore:
    """Request ids and frame decoding for one connection."""

    def __init__(self) -> None:
        self._next = 0

    def request(self, method: str, params: dict[str, Any] | None = None) -> tuple[int, str]:
        """A new request: its id and the frame to send."""
        self._next += 1
        frame = {"jsonrpc": "2.0", "id": self._next, "method": method, "params": params or {}}
        return self._next, json.dumps(frame, separators=(",", ":"), ensure_ascii=False)

    @staticmethod
    def receive(text: str | bytes) -> list[Incoming]:
        """Every message of one frame (a batch answer holds several)."""
        try:
            msg = json.loads(text)
        except ValueError as exc:
            return [Garbage(str(text)[:200], f"not JSON: {exc}")]
        items = msg if isinstance(msg, list) else [msg]
        out: list[Incoming] = []
        for item in items:
            if not isinstance(item, dict):
                out.append(Garbage(json.dumps(item)[:200], "not an object"))
            elif "method" in item and "id" not in item:
                params = item.get("params")
                out.append(Notification(str(item["method"]), params if isinstance(params, dict) else {}))
            elif "id" in item and ("result" in item or "error" in item):
                error = item.get("error")
                out.append(Response(item["id"], item.get("result"), error if error is not None else None))
            else:
                out.append(Garbage(json.dumps(item)[:200], "neither a response nor a notification"))
        return out
