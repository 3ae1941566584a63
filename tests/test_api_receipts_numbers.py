"""Verification recomputes exactly the bytes that were hashed, whatever numbers a payload holds.

RFC 8785 writes a float such as 1e20 as the digits 100000000000000000000; reading them back as an
exact integer used to make `metis receipts verify` crash. Property tests check the round trip
canonical -> parse_canonical -> canonical over such numbers; a real server and the real CLI check a log
holding them.
"""

from __future__ import annotations

import json
import subprocess
import sys

import rfc8785
from hypothesis import given, settings
from hypothesis import strategies as st

from receipts.canonical import canonical_json, parse_canonical
from tests.support import ROOT, ToolBus

BIG_FLOATS = st.floats(min_value=2.0**53, max_value=1e21, allow_nan=False, allow_infinity=False)
FLOATS = st.one_of(BIG_FLOATS, BIG_FLOATS.map(lambda f: -f), st.floats(allow_nan=False, allow_infinity=False))
SAFE_INTS = st.integers(min_value=-(2**53 - 1), max_value=2**53 - 1)
SCALARS = st.one_of(st.none(), st.booleans(), SAFE_INTS, FLOATS, st.text(max_size=8))
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=4)), max_leaves=20)


@settings(max_examples=400, deadline=None)
@given(BIG_FLOATS)
def test_big_floats_round_trip_through_their_canonical_digits(value):
    body = canonical_json({"x": value})
    again = parse_canonical(body)
    assert canonical_json(again) == body
    assert again["x"] == value  # the same double, not a different number


@settings(max_examples=400, deadline=None)
@given(VALUES)
def test_canonical_parse_canonical_is_the_identity_on_bytes(value):
    body = canonical_json(value)
    assert body == rfc8785.dumps(value)  # the project's canonicaliser is the reference's bytes
    assert canonical_json(parse_canonical(body)) == body


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=2**53 + 1, max_value=10**22))
def test_non_canonical_integer_digits_are_caught_not_crashed_on(value):
    """Digits no canonical writer produces (a double prints differently) are a mismatch, not an error."""
    body = ('{"x":' + str(value) + "}").encode()
    reparsed = canonical_json(parse_canonical(body))
    assert (reparsed == body) == (rfc8785.dumps(float(value)).decode() == str(value))


async def test_receipts_verify_handles_payload_floats_beyond_2_53(metis_server):
    value = {"x": 1e20, "y": [2.0**60, -3.5e19, 9.007199254740993e15, 123456789012345680000.0], "z": 1.5}
    async with ToolBus.connect(metis_server) as tb:
        done, _ = await tb.run("t_ask", {"question": "a big number?"}, answer=lambda payload: value)
    assert done["outputs"]["answer"]["x"] == 1e20
    proc = subprocess.run([sys.executable, "-m", "orchestrator.cli", "receipts", "verify", "--data-dir",
                           str(metis_server.data_dir)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    report = json.loads(proc.stdout)
    assert report["ok"] is True and report["checked"] >= 1
    async with ToolBus.connect(metis_server, token="tok-ops-operator") as op:
        whole = await op.call("reflect.verify", {})
    assert whole["ok"] is True and whole["checked"] >= report["checked"]
