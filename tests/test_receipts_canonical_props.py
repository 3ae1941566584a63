"""Property tests: the orjson fast path of ``canonical_json`` against the ``rfc8785`` package.

Byte for byte, over generated JSON values with floats of every kind (including 2^53..1e21, where
JCS writes integers, and exponent forms), integers up to and beyond the 53-bit limit, non-ASCII
and astral keys and strings, escapes, and nesting. Where the reference refuses a value (lone
surrogates, integers beyond 2^53, NaN), ``canonical_json`` must refuse it too with ValueError.
"""

from __future__ import annotations

import math

import rfc8785
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from receipts.canonical import canonical_json, jcs_float, reference_json

SAFE = 2**53 - 1
TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=12)  # every code point but surrogates
KEYS = st.one_of(TEXT, st.sampled_from(["a", "b", "é", "\u00ff", "\ue000", "\uffff", "😀", "𝄞", "\U0010ffff",
                                        "\x00", "\x1f", "\x7f", '"', "\\", "A", "aa", ""]))
FLOATS = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False),
    st.floats(min_value=2.0**53, max_value=1e21),
    st.floats(min_value=-1e21, max_value=-(2.0**53)),
    st.floats(min_value=1e-8, max_value=1e-5),
    st.sampled_from([0.0, -0.0, 1e21, 1e-7, 1e-6, 5e-324, 1.7976931348623157e308, 9.999999999999999e20, 0.1]),
)
INTS = st.one_of(st.integers(-SAFE, SAFE), st.sampled_from([SAFE, -SAFE, 0, 2**31, -(2**31), 2**32]))
SCALARS = st.one_of(st.none(), st.booleans(), INTS, FLOATS, TEXT)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=5), st.dictionaries(KEYS, inner, max_size=5)),
    max_leaves=40,
)
PROPS = settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPS
@given(VALUES)
def test_fast_path_matches_rfc8785(value) -> None:
    assert canonical_json(value) == rfc8785.dumps(value)


@PROPS
@given(FLOATS)
def test_float_text_matches_rfc8785(f: float) -> None:
    assert jcs_float(f).encode() == rfc8785.dumps(f)
    assert canonical_json({"x": [f]}) == rfc8785.dumps({"x": [f]})


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.integers(min_value=SAFE + 1), st.integers(max_value=-SAFE - 1)), VALUES)
def test_integers_beyond_53_bits_are_refused_like_the_reference(big: int, other) -> None:
    for value in (big, [other, big], {"k": other, "z": {"big": big}}):
        try:
            rfc8785.dumps(value)
        except rfc8785.CanonicalizationError:
            pass
        else:  # pragma: no cover - the reference refuses them all
            raise AssertionError("reference accepted a big integer")
        try:
            canonical_json(value)
        except ValueError:
            continue
        raise AssertionError(f"canonical_json accepted {value!r}")


@settings(max_examples=300, deadline=None)
@given(st.text(min_size=0, max_size=4), st.integers(0xD800, 0xDFFF), st.booleans())
def test_lone_surrogates_are_refused(prefix: str, code: int, as_key: bool) -> None:
    s = prefix + chr(code)
    value = {s: 1} if as_key else {"k": [s]}
    for fn in (canonical_json, reference_json):
        try:
            fn(value)
        except ValueError:
            continue
        raise AssertionError(f"{fn.__name__} accepted a lone surrogate")


def test_non_finite_floats_are_refused() -> None:
    for f in (math.nan, math.inf, -math.inf):
        for fn in (canonical_json, reference_json):
            try:
                fn({"x": f})
            except ValueError:
                continue
            raise AssertionError(f"{fn.__name__} accepted {f}")


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(KEYS, SCALARS, min_size=2, max_size=12))
def test_non_ascii_key_order_is_utf16(d: dict) -> None:
    assert canonical_json(d) == rfc8785.dumps(d)
