"""Integers of any size on the wire.

The receipt log stores canonical JSON (RFC 8785), whose numbers are IEEE doubles: an integer beyond
2^53 - 1 cannot be written as a JSON number without losing digits. mathlas therefore accepts such
integers as decimal strings wherever a tool takes integers, and writes every integer beyond the safe
range as a decimal string in its outputs.
"""

from __future__ import annotations

import re
from typing import Any

MAX_SAFE_INT = 2**53 - 1
INT_TEXT_RE = re.compile(r"^[+-]?[0-9]+$")


def parse_int_term(value: Any, max_digits: int) -> int:
    """An int, or a decimal string of at most ``max_digits`` digits, as a Python int."""
    if isinstance(value, bool):
        raise ValueError("a term must be an integer or a decimal string, not a boolean")
    if isinstance(value, int):
        text = str(abs(value))
    elif isinstance(value, str):
        text = value.strip()
        if not INT_TEXT_RE.match(text):
            raise ValueError(f"a term given as a string must be a decimal integer, got {value[:40]!r}")
        text = text.lstrip("+-")
    else:
        raise ValueError(f"a term must be an integer or a decimal string, got {type(value).__name__}")
    if len(text.lstrip("0")) > max_digits:
        raise ValueError(f"a term has more than {max_digits} digits")
    return int(value)


def json_int(value: int) -> int | str:
    """The value as a JSON-safe int, or as a decimal string when it lies beyond +-(2^53 - 1)."""
    return value if -MAX_SAFE_INT <= value <= MAX_SAFE_INT else str(value)
