"""From a log record to what clients see: SSE frames and ``event`` notifications."""

from __future__ import annotations

import json
from typing import Any

from receipts.log import Record


def event_data(rec: Record) -> dict[str, Any]:
    """The contract's event ``data``: action, topic, seq, ts, ability, revision, kind?, payload,
    receipt_hash (the record's hash, which reflect.proof proves)."""
    body = rec.payload
    data: dict[str, Any] = {"action_id": rec.action_id, "topic": rec.topic, "seq": rec.seq, "ts": rec.ts}
    data.update(body)
    data["receipt_hash"] = rec.hash
    return data


def sse_frame(rec: Record) -> bytes:
    """``id``/``event``/``data`` lines, encoded once per record and shared by all subscribers."""
    if rec.sse is None:
        data = json.dumps(event_data(rec), separators=(",", ":"), ensure_ascii=False)
        rec.sse = f"id: {rec.seq}\nevent: {rec.name}\ndata: {data}\n\n".encode()
    return rec.sse
