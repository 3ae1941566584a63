"""Shares told as English fractions: "a fifth of the weight", "one quarter of the seats", "two thirds of its
staff".

Why: a rule bounds a share in percent ("must not exceed 15% of a product's weight") while a claim tells it as
a fraction of a whole ("make up a fifth of the weight"). A fraction word with its count, followed by "of" and
a determiner of the whole, is that share of it: 1/5 is 20 %. Only a counted fraction ("a", "one", "two" ...)
before "of" and a determiner of a whole is read, so an ordinal ("the fifth of the runs", "on the third of
May") is not; a fraction of one thing ("a fifth of a semitone", "a quarter of an hour") is a measure of that
thing, not a share, and is left to the unit readings (the caller also skips a unit after "of the"). Pure
function over the text.
"""

from __future__ import annotations

import re

_DENOMINATORS = {"half": 2, "halves": 2, "third": 3, "quarter": 4, "fifth": 5, "sixth": 6, "seventh": 7,
                 "eighth": 8, "ninth": 9, "tenth": 10}
_COUNTS = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
           "nine": 9}
_SHARE_RE = re.compile(
    r"(?<![\w-])(?P<k>a|one|two|three|four|five|six|seven|eight|nine)[\s-]+"
    r"(?P<d>halves|half|thirds?|quarters?|fifths?|sixths?|sevenths?|eighths?|ninths?|tenths?)"
    r"\s+of\s+(?P<det>the|its|their|his|her|our|each|every|all|this|that|these|those)\s+(?P<noun>[\w-]+)",
    re.I)


def find_shares(text: str) -> list[tuple[float, int, int, str]]:
    """(share as a fraction of one, start, end, the word after the determiner) of each counted fraction of a
    whole in ``text``; "a half"/"one half" is left out (the number readings read "half" already)."""
    out = []
    for m in _SHARE_RE.finditer(text):
        d = m.group("d").lower()
        k = _COUNTS[m.group("k").lower()]
        den = _DENOMINATORS.get(d) or _DENOMINATORS.get(d[:-1])
        if den is None or den == 2 or k >= den:
            continue
        out.append((k / den, m.start(), m.end("d"), m.group("noun").lower()))
    return out
