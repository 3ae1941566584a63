"""Canonical JSON (RFC 8785, JCS) for hashing records.

The ``rfc8785`` package is the reference; it is pure Python and ~3x slower than the stdlib
encoder. For the common case (no floats, integers within the IEEE-754 safe range, object keys in
the Basic Multilingual Plane below the surrogates) ``json.dumps(sort_keys=True,
ensure_ascii=False)`` produces exactly the JCS bytes: same escapes, same key order. We take that
fast path when a walk shows it is safe, and fall back to ``rfc8785`` otherwise.
"""

from __future__ import annotations

import json
from typing import Any

import rfc8785

_SAFE_INT = 2**53 - 1
_dumps = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
).encode


def _fast_path_ok(obj: Any, depth: int = 0) -> bool:
    if depth > 64:
        return False
    t = type(obj)
    if t is str or t is bool or obj is None:
        return True
    if t is int:
        return -_SAFE_INT <= obj <= _SAFE_INT
    if t is dict:
        for k, v in obj.items():
            if type(k) is not str or not (k.isascii() or max(k) < "\ud800"):
                return False
            if not _fast_path_ok(v, depth + 1):
                return False
        return True
    if t is list or t is tuple:
        return all(_fast_path_ok(v, depth + 1) for v in obj)
    return False


def canonical_json(obj: Any) -> bytes:
    """RFC 8785 canonical UTF-8 bytes of a JSON value. Raises ValueError for non-JSON input."""
    if _fast_path_ok(obj):
        return _dumps(obj).encode("utf-8")
    try:
        return rfc8785.dumps(obj)
    except (rfc8785.CanonicalizationError, TypeError) as exc:
        raise ValueError(f"not canonicalizable JSON: {exc}") from exc
