"""Canonical JSON (RFC 8785, JCS) for hashing records.

The ``rfc8785`` package is the reference; it is pure Python and slow (~30 us for a small record
holding a float). The fast path is ``orjson`` with sorted keys and the 53-bit integer limit,
which writes exactly the JCS bytes for strings (same escapes), integers, booleans and null, and
sorts keys like JCS as long as no key holds a character at or above U+D800 (UTF-16 order and
code-point order differ only there). Floats are the one thing orjson formats differently, so
each float is handed to orjson as a ready ``orjson.Fragment`` holding its JCS text (ECMAScript
number formatting, as ``rfc8785`` does). Anything the fast path cannot vouch for (such keys,
very deep nesting, a type or value orjson refuses) goes to ``rfc8785``, which decides. Without
orjson (a platform with no wheel) everything goes to ``rfc8785``. Property tests check the fast
path against ``rfc8785`` byte for byte.
"""

from __future__ import annotations

import json
import re
from typing import Any

import rfc8785

try:
    import orjson
except ImportError:  # pragma: no cover - platforms without an orjson wheel
    orjson = None  # type: ignore[assignment]

_OPTIONS = (orjson.OPT_SORT_KEYS | orjson.OPT_STRICT_INTEGER) if orjson is not None else 0
_MAX_DEPTH = 200  # orjson's own limit is 254; deeper values take the reference path
_SLOW = object()  # marker: this value needs the reference implementation


def jcs_float(f: float) -> str:
    """ECMAScript/JCS text of a finite float: shortest round-trip digits, no exponent between
    1e-7 and 1e21, no trailing ``.0``. Raises ValueError for NaN and infinities."""
    r = repr(f)
    if "e" not in r and "n" not in r:  # plain decimal: repr already has the shortest digits
        if f == 0:
            return "0"
        return r[:-2] if r.endswith(".0") else r
    return reference_json(f).decode()  # exponent forms, NaN and infinities: rfc8785's own formatter


def _prepare(obj: Any, depth: int = 0) -> Any:
    """``obj`` with every float replaced by its JCS text as a Fragment (containers are copied
    only where a float was replaced), or ``_SLOW``."""
    t = type(obj)
    if t is float:
        return orjson.Fragment(jcs_float(obj))
    if t is dict:
        items: Any = obj.items()
    elif t is list or t is tuple:
        items = enumerate(obj)
    else:
        return obj  # str, int, bool, None; anything else: orjson refuses it and the reference decides
    if depth > _MAX_DEPTH:
        return _SLOW
    out = None
    for k, v in items:
        if type(k) is str and not k.isascii() and max(k) >= "\ud800":  # (list indices are ints)
            return _SLOW
        tv = type(v)
        if tv is str or tv is int or tv is bool or v is None:
            continue
        nv = _prepare(v, depth + 1)
        if nv is _SLOW:
            return _SLOW
        if nv is not v:
            if out is None:
                out = dict(obj) if t is dict else list(obj)
            out[k] = nv
    return obj if out is None else out


def reference_json(obj: Any) -> bytes:
    """The pure-Python path (``rfc8785``), also used where the fast path is not sure."""
    try:
        return rfc8785.dumps(obj)
    except (rfc8785.CanonicalizationError, TypeError, RecursionError) as exc:
        raise ValueError(f"not canonicalizable JSON: {exc}") from exc


def canonical_json(obj: Any) -> bytes:
    """RFC 8785 canonical UTF-8 bytes of a JSON value. Raises ValueError for non-JSON input."""
    if orjson is not None:
        prepared = _prepare(obj)
        if prepared is not _SLOW:
            try:
                return orjson.dumps(prepared, option=_OPTIONS)
            except orjson.JSONEncodeError:
                pass  # out-of-range integer, surrogate, non-string key, unknown type: the reference decides
    return reference_json(obj)


_PLAIN = frozenset((str, int, bool, type(None)))


def _plain_header(fields: dict[str, Any]) -> bool:
    """ASCII string keys and str/int/bool/None values: what orjson writes exactly as JCS does."""
    try:
        return _PLAIN.issuperset(map(type, fields.values())) and "".join(fields).isascii()
    except TypeError:  # a key that is not a string
        return False


def canonical_record(fields: dict[str, Any], key: str, value: Any) -> bytes:
    """``canonical_json({**fields, key: value})`` for a record header: ``value`` is canonicalised
    on its own and spliced in as a fragment, so the header (ASCII keys, plain str/int/None values,
    checked here in C-level passes: this runs once per record) costs one orjson call instead of a walk."""
    if orjson is not None and _plain_header(fields):
        inner = orjson.Fragment(canonical_json(value))
        try:
            return orjson.dumps({**fields, key: inner}, option=_OPTIONS)
        except orjson.JSONEncodeError:
            pass  # a surrogate or an out-of-range integer in the header: the reference decides
    return canonical_json({**fields, key: value})


def canonical_text(value: str | None) -> bytes | None:
    """JCS bytes of a string or null, or None where the fast path cannot vouch for them (not a
    str, a lone surrogate, no orjson): the pieces a record header is spliced from."""
    if value is None:
        return b"null"
    if type(value) is not str or orjson is None:
        return None
    try:
        return orjson.dumps(value)
    except orjson.JSONEncodeError:  # a lone surrogate: the reference decides
        return None


_SAFE_INT = 2**53 - 1
_LONG_DIGITS = re.compile(rb"\d{16}")  # 2^53 has 16 digits: shorter integer literals are always exact


def _number(text: str) -> int | float:
    value = int(text)
    return value if -_SAFE_INT <= value <= _SAFE_INT else float(text)


def parse_canonical(body: bytes | str) -> Any:
    """Parse canonical JSON so that ``canonical_json`` of the result gives back the same bytes.

    RFC 8785 writes every number as an IEEE-754 double's shortest form: the float 1e20 is stored
    as the digits ``100000000000000000000``. Plain ``json.loads`` reads those as an exact int that
    canonical JSON then refuses (beyond 2^53); here integer literals beyond 2^53 are the doubles
    they were written from. Digits no canonical writer produces still fail a byte comparison."""
    raw = body.encode() if isinstance(body, str) else body
    if _LONG_DIGITS.search(raw) is None:
        return json.loads(body)
    return json.loads(body, parse_int=_number)
