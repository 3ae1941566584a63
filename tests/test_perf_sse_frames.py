"""SSE frames are cut straight from a record's canonical bytes (no parse, no re-encode); they must
carry exactly the contract's event data, in the same key order, for any payload. Numbers are
written as in the receipt (RFC 8785: a float of 2^53 or more is written as its integer digits)."""

from __future__ import annotations

import hashlib
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from orchestrator.events import _data_from_body, event_data, sse_frame
from receipts.canonical import parse_canonical
from receipts.log import Entry, Record, build_body, stream_key

TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=10)
JSONV = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(-(2**53) + 1, 2**53 - 1), TEXT,
                               st.floats(allow_nan=False, allow_infinity=False)),
                     lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(TEXT, inner, max_size=4)),
                     max_leaves=20)
KEYS = st.one_of(TEXT, st.sampled_from(["seq", "ts", "topic", "action_id", "receipt_hash", "prev", "payload", "v"]))


def record(payload: dict, topic: str, action_id: str | None, seq: int) -> Record:
    e = Entry("event", "action_checkpoint", "acme", payload, topic=topic, action_id=action_id, stream=True)
    body = build_body(seq, "2026-11-22T10:00:00.123456Z", e, "ab" * 32)
    return Record(seq, e.type, e.name, e.tenant, topic, action_id, None, stream_key("acme", topic), body,
                  hashlib.sha256(body).hexdigest())


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(KEYS, JSONV, max_size=6), TEXT, st.one_of(st.none(), TEXT), st.integers(1, 2**40))
def test_frame_data_equals_event_data(payload: dict, topic: str, action_id: str | None, seq: int) -> None:
    rec = record(payload, topic, action_id, seq)
    frame = sse_frame(rec)
    head, _, data = frame.partition(b"\ndata: ")
    assert head == b"id: %d\nevent: action_checkpoint" % seq and data.endswith(b"\n\n")
    assert b"\n" not in data[:-2]
    want = event_data(record(payload, topic, action_id, seq))
    got = parse_canonical(data)  # numbers as RFC 8785 writes them (1e20 as digits): the receipt's own form
    assert got == want and list(got) == list(want)


def test_fast_path_is_taken_for_ordinary_payloads() -> None:
    rec = record({"ability": "b", "revision": 1, "kind": "plan_delta", "payload": {"t": 1.5, "s": ',"prev":"'}}, "t",
                 "act_1", 9)
    data = _data_from_body(rec)
    assert data is not None and json.loads(data) == event_data(rec)
    assert _data_from_body(record({"seq": 1}, "t", None, 3)) is None  # own keys repeated: the dict path
