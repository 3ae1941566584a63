"""Record bodies spliced from the appender's pre-encoded parts (``body_parts``, ``splice_body``)
against the ``rfc8785`` package, byte for byte: the same record the general path writes.

Header strings of every kind (non-ASCII, astral, escapes, lone surrogates, which only the general
path may decide), None in the optional fields, payloads with floats, large integers and
non-ASCII keys, and seqs up to and beyond 2^53. Also through the log itself: what ``append``
writes is what the reference makes of the record's fields."""

from __future__ import annotations

import hashlib

import pytest
import rfc8785
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from receipts.log import GENESIS_HASH, SAFE_SEQ, Entry, ReceiptLog, body_parts, build_body, utc_now
from receipts.verify import verify_data_dir
from tests.test_receipts_canonical_props import KEYS, VALUES

HEADER = st.one_of(st.text(max_size=10), st.sampled_from(["é", "😀", '"', "\\", "\x00", "\ud800", "a\udfffb", ""]))
OPTIONAL = st.one_of(st.none(), HEADER)
SEQS = st.one_of(st.integers(0, 10**6), st.sampled_from([SAFE_SEQ - 1, SAFE_SEQ, SAFE_SEQ + 1, 2**63 - 1]))
PREVS = st.one_of(st.just(GENESIS_HASH), st.binary(min_size=1, max_size=8).map(lambda b: hashlib.sha256(b).hexdigest()))
PROPS = settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def reference(seq: int, ts: str, e: Entry, prev: str) -> bytes | None:
    """What RFC 8785 makes of the record's fields; None where it refuses them."""
    fields = {"v": 1, "seq": seq, "ts": ts, "type": e.type, "name": e.name, "tenant": e.tenant, "topic": e.topic,
              "action_id": e.action_id, "ref": e.ref, "prev": prev, "payload": e.payload}
    try:
        return rfc8785.dumps(fields)
    except (rfc8785.CanonicalizationError, UnicodeEncodeError):
        return None


@PROPS
@given(HEADER, HEADER, HEADER, OPTIONAL, OPTIONAL, OPTIONAL, st.dictionaries(KEYS, VALUES, max_size=4), SEQS, PREVS)
def test_spliced_bodies_match_rfc8785(kind, name, tenant, topic, action_id, ref, payload, seq, prev) -> None:
    e = Entry(kind, name, tenant, payload, topic=topic, action_id=action_id, ref=ref)
    ts = utc_now()
    want = reference(seq, ts, e, prev)
    if want is None:  # the reference refuses the record: so does the log, on every path
        with pytest.raises(ValueError):
            build_body(seq, ts, e, prev)
        return
    assert build_body(seq, ts, e, prev) == want
    parts = body_parts(e)
    assert build_body(seq, ts, e, prev, parts) == want
    # parts are given up only where a header string needs the reference (a lone surrogate)
    assert (parts is None) == any(isinstance(v, str) and any("\ud800" <= c <= "\udfff" for c in v)
                                  for v in (kind, name, tenant, topic, action_id, ref))


def test_appended_bodies_are_the_reference_bytes(tmp_path) -> None:
    entries = [Entry("event", "progress", "acme", {"f": 0.1 * i, "big": SAFE_SEQ - i, "ключ": "é😀"}, topic="t",
                     action_id=f"act_{i}", ref=None if i % 2 else f"ref_{i}", stream=True) for i in range(20)]
    entries.append(Entry("event", "odd\ud800", "acme", {"i": 1}))  # lone surrogate: the reference refuses it
    log = ReceiptLog(tmp_path)
    log.open()
    try:
        recs = log.append_sync(entries[:20])
        with pytest.raises(ValueError, match="not appendable"):
            log.append_sync(entries[20:])
    finally:
        log.close()
    prev = GENESIS_HASH
    for r, e in zip(recs, entries, strict=False):
        assert r.body == reference(r.seq, r.ts, e, prev)
        prev = r.hash


def test_a_payload_that_is_not_json_is_refused_by_the_appender_and_nothing_of_its_append_is_queued(tmp_path):
    log = ReceiptLog(tmp_path)
    log.open()
    try:
        log.append_sync([Entry("event", "ok", "acme", {"i": 0})])
        bad = [Entry("event", "ok", "acme", {"i": 1}), Entry("event", "bad", "acme", {"x": {1, 2}})]
        log.submit(bad)  # no caller to tell: logged, nothing of it queued
        with pytest.raises(ValueError, match="record not appendable"):
            log.append_sync(bad)
        rec = log.append_sync([Entry("event", "ok", "acme", {"i": 2})])[0]
        assert rec.seq == 2 and rec.fields["prev"] == log.get(1).hash
    finally:
        log.close()
    report = verify_data_dir(tmp_path)
    assert report.ok and report.checked == 2
