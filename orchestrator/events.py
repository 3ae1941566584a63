"""From a log record to what clients see: SSE frames and ``event`` notifications."""

from __future__ import annotations

import json
import re
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


#: The event's own keys anywhere in a payload's bytes (one scan, not one per key): then the
#: payload might repeat one of them at its top level and the dict path decides.
_OWN_KEY = re.compile(rb'"(?:action_id|topic|seq|ts|receipt_hash)":')
_FRAME = b'id: %d\nevent: %s\ndata: {"action_id":%s,"topic":%s,"seq":%d,"ts":"%s"%s%s,"receipt_hash":"%s"}\n\n'


def _frame_from_body(rec: Record) -> bytes | None:
    """The whole SSE frame with ``event_data`` as JSON, cut straight from the record's canonical
    body (no parse, no re-encode) in one formatting step. The body is ``{"action_id":A,"name":N,
    "payload":P,"prev":"H","ref":R,"seq":S,"tenant":T,"topic":TP,"ts":"TS","type":TY,"v":1}`` and
    a JSON string never holds an unescaped quote, so each ``,"key":`` found below is the top-level
    one (each search starts where the previous key was found: the order is checked by the search
    itself). None (use the dict path) when the payload may repeat one of the event's own keys."""
    body = rec.body
    n0 = body.find(b',"name":')
    p0 = body.find(b',"payload":{', n0)
    p1 = body.rfind(b',"prev":"', p0)
    t0 = body.rfind(b',"topic":', p1)
    s0 = body.rfind(b',"ts":"', t0)
    if (n0 < 0 or p0 < 0 or p1 < 0 or t0 < 0 or s0 < 0 or not body.startswith(b'{"action_id":')
            or _OWN_KEY.search(body, p0 + 11, p1) is not None):
        return None
    inner = body[p0 + 12:p1 - 1]
    return _FRAME % (rec.seq, rec.name.encode(), body[13:n0], body[t0 + 9:s0], rec.seq,
                     body[s0 + 7:body.index(b'"', s0 + 7)], b"," if inner else b"", inner, rec.hash.encode())


def _data_from_body(rec: Record) -> bytes | None:
    """``event_data`` as JSON, cut from the record's canonical body (see ``_frame_from_body``)."""
    frame = _frame_from_body(rec)
    return None if frame is None else frame[frame.index(b"\ndata: ") + 7:-2]


_json_str = json.encoder.encode_basestring_ascii  # a str as JSON, as ``json.dumps`` writes it (C)
_EVENT_MESSAGE = b'{"jsonrpc":"2.0","method":"event","params":{"subscription_id":%s,"id":%d,"event":%s,"data":%s}}'


def event_message(subscription_id: str, rec: Record) -> bytes | None:
    """The ToolBus ``event`` notification of ``rec`` as JSON bytes, its ``data`` cut from the
    record's canonical body (no parse, no re-encode: ``_data_from_body``); None when that path
    does not apply (then build it from ``event_data``)."""
    data = _data_from_body(rec)
    if data is None:
        return None
    return _EVENT_MESSAGE % (_json_str(subscription_id).encode(), rec.seq, _json_str(rec.name).encode(), data)


def sse_frame(rec: Record) -> bytes:
    """``id``/``event``/``data`` lines, encoded once per record and shared by all subscribers."""
    frame = rec.sse
    if frame is None:
        frame = _frame_from_body(rec)
        if frame is None:
            data = json.dumps(event_data(rec), separators=(",", ":"), ensure_ascii=False).encode()
            frame = b"id: %d\nevent: %s\ndata: %s\n\n" % (rec.seq, rec.name.encode(), data)
        rec.sse = frame
    return frame
