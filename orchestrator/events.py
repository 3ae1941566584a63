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


_OWN_KEYS = (b'"action_id":', b'"topic":', b'"seq":', b'"ts":', b'"receipt_hash":')


def _data_from_body(rec: Record) -> bytes | None:
    """``event_data`` as JSON, cut straight from the record's canonical body (no parse, no
    re-encode). The body is ``{"action_id":A,"name":N,"payload":P,"prev":"H","ref":R,"seq":S,
    "tenant":T,"topic":TP,"ts":"TS","type":TY,"v":1}`` and a JSON string never holds an
    unescaped quote, so each ``,"key":`` found below is the top-level one. None (use the dict
    path) when the payload may repeat one of the event's own keys."""
    body = rec.body
    p0 = body.find(b',"payload":{')
    p1 = body.rfind(b',"prev":"')
    t0 = body.rfind(b',"topic":')
    s0 = body.rfind(b',"ts":"')
    n0 = body.find(b',"name":')
    if not body.startswith(b'{"action_id":') or min(p0, p1, t0, s0, n0) < 0 or not n0 < p0 < p1 < t0 < s0:
        return None
    payload = body[p0 + 11:p1]
    if any(k in payload for k in _OWN_KEYS):
        return None
    inner = payload[1:-1]
    ts = body[s0 + 7:body.index(b'"', s0 + 7)]
    return b"".join((b'{"action_id":', body[13:n0], b',"topic":', body[t0 + 9:s0], b',"seq":', b"%d" % rec.seq,
                     b',"ts":"', ts, b'"', b"," if inner else b"", inner, b',"receipt_hash":"', rec.hash.encode(),
                     b'"}'))


def sse_frame(rec: Record) -> bytes:
    """``id``/``event``/``data`` lines, encoded once per record and shared by all subscribers."""
    if rec.sse is None:
        data = _data_from_body(rec)
        if data is None:
            data = json.dumps(event_data(rec), separators=(",", ":"), ensure_ascii=False).encode()
        rec.sse = b"id: %d\nevent: %s\ndata: %s\n\n" % (rec.seq, rec.name.encode(), data)
    return rec.sse
