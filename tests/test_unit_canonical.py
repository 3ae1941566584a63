"""Canonical JSON (receipts/canonical.py) against the reference ``rfc8785`` package."""

from __future__ import annotations

import json
import math
import random
import struct

import pytest
import rfc8785

from receipts.canonical import canonical_json

ALPHABET = (
    ["a", "b", "Z", "0", " ", "_", "é", "ß", "Ω", "中", "\u00ff", "\u0100", "\u2028", "\u2029", "\ufeff",
     "\ue000", "\uffff", "😀", "𝄞", "\U0010ffff"]
    + ['"', "\\", "/", "\b", "\f", "\n", "\r", "\t", "\x00", "\x01", "\x1f", "\x7f", "\u0080"]
)


def rand_str(rng: random.Random, max_len: int = 8) -> str:
    return "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, max_len)))


def rand_float(rng: random.Random) -> float:
    pick = rng.random()
    if pick < 0.3:
        while True:  # any finite double, bit pattern uniform
            f = struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))[0]
            if math.isfinite(f):
                return f
    if pick < 0.5:
        return rng.choice([0.0, -0.0, 1.0, -1.0, 0.1, 1e21, 1e-7, 1e-6, 9.999999999999999e20, 5e-324,
                           1.7976931348623157e308, 2.0**53, 123456789012345680.0, 4.35, 0.000001, 1e22])
    if pick < 0.75:
        return rng.uniform(-1e6, 1e6)
    return rng.randint(-(10**6), 10**6) / rng.choice([1, 10, 100, 1000, 3, 7])


def rand_value(rng: random.Random, depth: int = 0) -> object:
    kinds = ["null", "bool", "int", "bigsafe", "float", "str"] + (["list", "dict"] * 2 if depth < 4 else [])
    k = rng.choice(kinds)
    if k == "null":
        return None
    if k == "bool":
        return rng.random() < 0.5
    if k == "int":
        return rng.randint(-1000, 1000)
    if k == "bigsafe":
        return rng.choice([1, -1]) * rng.randint(2**40, 2**53 - 1)
    if k == "float":
        return rand_float(rng)
    if k == "str":
        return rand_str(rng, 12)
    if k == "list":
        return [rand_value(rng, depth + 1) for _ in range(rng.randint(0, 5))]
    return {rand_str(rng, 5): rand_value(rng, depth + 1) for _ in range(rng.randint(0, 6))}


@pytest.mark.parametrize("seed", range(8))
def test_matches_rfc8785_on_random_values(seed):
    rng = random.Random(seed)
    for _ in range(400):
        v = rand_value(rng)
        assert canonical_json(v) == rfc8785.dumps(v), v


def test_fast_path_values_match_reference():
    # no floats, safe ints, BMP keys below the surrogates: the json.dumps path is taken
    rng = random.Random(99)
    for _ in range(500):
        v = {rand_str(rng, 4).encode("utf-16", "surrogatepass").decode("utf-16"): rng.randint(-5, 5)
             for _ in range(rng.randint(0, 8))}
        v = {k: v[k] for k in v if all(ord(c) < 0xD800 for c in k)}
        v["s"] = rand_str(rng, 20)
        v["n"] = [None, True, False, 2**53 - 1, -(2**53 - 1)]
        assert canonical_json(v) == rfc8785.dumps(v)


def test_key_order_is_utf16_code_units():
    # U+E000 (one unit 0xE000) sorts after U+1F600 (surrogates 0xD83D 0xDE00) in UTF-16 order,
    # though it is smaller as a code point: a plain sort_keys would get this wrong
    v = {"\ue000": 1, "😀": 2, "a": 3}
    out = canonical_json(v)
    assert out == rfc8785.dumps(v)
    assert out.decode().index("😀") < out.decode().index("\ue000")


def test_escapes():
    v = {"s": '"\\/\b\f\n\r\t\x00\x1f\x7f\u2028é😀'}
    out = canonical_json(v)
    assert out == rfc8785.dumps(v)
    assert out == '{"s":"\\"\\\\/\\b\\f\\n\\r\\t\\u0000\\u001f\x7f\u2028é😀"}'.encode()


@pytest.mark.parametrize("value,text", [
    (0.0, b"0"), (-0.0, b"0"), (1.0, b"1"), (1e21, b"1e+21"), (1e-7, b"1e-7"), (0.1, b"0.1"),
    (123456789012345680.0, b"123456789012345680"), (5e-324, b"5e-324"),
])
def test_number_serialisation(value, text):
    assert canonical_json(value) == text == rfc8785.dumps(value)


@pytest.mark.parametrize("big", [2**53, -(2**53), 2**64, -(10**30), 10**100])
def test_big_ints_are_rejected(big):
    with pytest.raises(ValueError):
        canonical_json(big)
    with pytest.raises(ValueError):
        canonical_json({"a": [1, {"b": big}]})


def test_largest_safe_ints_pass():
    assert canonical_json([2**53 - 1, -(2**53 - 1)]) == b"[9007199254740991,-9007199254740991]"


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf"), {1: "x"}, {"a": {1, 2}}, b"x", object()])
def test_non_json_is_rejected_with_value_error(bad):
    with pytest.raises(ValueError):
        canonical_json(bad)


def test_output_is_utf8_and_round_trips():
    rng = random.Random(5)
    for _ in range(200):
        v = rand_value(rng)
        out = canonical_json(v)
        # JCS writes every number as an IEEE double: parse them back as floats (safe ints are exact)
        assert json.loads(out.decode("utf-8"), parse_int=float) == v or _has_negzero(v)
        assert canonical_json(json.loads(out, parse_int=float)) == out


def _has_negzero(v: object) -> bool:
    if isinstance(v, float):
        return v == 0.0 and math.copysign(1.0, v) < 0
    if isinstance(v, list):
        return any(_has_negzero(x) for x in v)
    if isinstance(v, dict):
        return any(_has_negzero(x) for x in v.values())
    return False


def test_deep_nesting_falls_back_and_still_matches():
    v: object = "leaf"
    for _ in range(100):
        v = {"k": [v]}
    assert canonical_json(v) == rfc8785.dumps(v)
