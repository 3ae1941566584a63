"""The sans-I/O Server-Sent Events parser and the event type every stream yields."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

TERMINAL_EVENTS = frozenset({"action_completed", "action_partial", "action_failed"})
TERMINAL_STATUSES = frozenset({"completed", "partial", "failed", "cancelled"})


@dataclass(frozen=True)
class Event:
    """One event of a topic: ``id`` is the record's seq (unique, increasing), ``event`` its name,
    ``data`` the contract's event data (action_id, topic, seq, ts, ability, revision, kind?,
    payload, receipt_hash)."""

    id: int
    event: str
    data: dict[str, Any] = field(default_factory=dict)

    @property
    def action_id(self) -> str | None:
        return self.data.get("action_id")

    @property
    def kind(self) -> str | None:
        return self.data.get("kind")

    @property
    def payload(self) -> dict[str, Any]:
        p = self.data.get("payload")
        return p if isinstance(p, dict) else {}

    @property
    def terminal(self) -> bool:
        """True for the events that end an action."""
        return self.event in TERMINAL_EVENTS

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "event": self.event, "data": self.data}


class SSEParser:
    """Feed it lines (without the newline); it returns an Event at each blank line that ends one.

    Comments (``: ping``) and fields other than id/event/data are ignored; several ``data`` lines
    are joined with newlines as the SSE spec says."""

    def __init__(self) -> None:
        self._id: str | None = None
        self._event: str | None = None
        self._data: list[str] = []

    def feed(self, line: str) -> Event | None:
        if line.endswith("\r"):
            line = line[:-1]
        if not line:
            return self._dispatch()
        if line.startswith(":"):
            return None
        name, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if name == "id":
            self._id = value
        elif name == "event":
            self._event = value
        elif name == "data":
            self._data.append(value)
        return None

    def _dispatch(self) -> Event | None:
        ident, name, data = self._id, self._event, self._data
        self._id, self._event, self._data = None, None, []
        if not data or ident is None:
            return None
        try:
            seq = int(ident)
            body = json.loads("\n".join(data))
        except ValueError:
            return None
        return Event(seq, name or "message", body if isinstance(body, dict) else {"value": body})
