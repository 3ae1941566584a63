"""Ages a cited record gives a named person: "Rider list: Amy is 12; Josh is 16", "Client card: Ellie Moss,
age 14", "Junior list: Liam (15) shoots with ...", "Maisie Clarke (child, age 6)".

Why: many rules switch on a person's age ("Riders under 14 must wear a body protector when jumping"); the
claim names the person ("Amy jumped the course without a body protector") and only the record gives the age,
often as a bare number after the name. A bare number is read as an age only in these shapes, right after a
person's name (capitalised words, no digits: "Room 4 is 12" names no person), and only for a name the claim
uses, so only rules whose condition is an age can use it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from abilities.scu_guard import measure

_NAME = r"(?<![\w-])(?P<name>[A-Z][a-z'\-]+(?:\s+[A-Z][a-z'\-]+)?)"
_YEARS = r"(?:\s*(?:years?\s+old|years?|yrs?|y/o))?"
_AGE_RES = (
    # "Amy is 12;", "Zoe is 19.", "Ellie Moss, age 14;", "Jo Kemp, aged 15,", "Cody Marsh - age 14 -"
    re.compile(rf"{_NAME}(?:\s+(?:is|was)\s+(?:aged\s+)?|\s*[,\u2013\u2014-]\s*aged?\s+)(?P<n>\d{{1,3}}){_YEARS}(?=\s*(?:[;,.)\u2013\u2014-]|$))"),
    # "Liam (15)", "Maisie Clarke (child, age 6)", "Tom Clarke (brother, age 14)"
    re.compile(rf"{_NAME}\s*\((?:[^()]*?\baged?\s+)?(?P<n>\d{{1,3}}){_YEARS}\s*(?:[,;][^()]*)?\)"),
)


def named_ages(text: str) -> Iterator[tuple[str, float, int, int]]:
    """(name, age in years, start, end) of each person a record gives an age."""
    for r in _AGE_RES:
        for m in r.finditer(text):
            n = int(m.group("n"))
            if 0 < n <= 120:
                yield m.group("name"), float(n), m.start(), m.end()


def _named_in(name: str, claim: str) -> bool:
    """Does the claim name the person: the whole name, or its first word alone ("Maisie" for "Maisie Clarke")?"""
    return any(re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", claim) for n in (name, name.split()[0]))


def claim_ages(claim: str, chunk_texts: Sequence[str]) -> list[tuple[str, measure.Amount]]:
    """(the name as the claim uses it, the age as an amount) for each person the claim names whom exactly one
    age in the cited records fits (two people sharing a first name give none)."""
    found: dict[str, set[float]] = {}
    spans: dict[str, str] = {}
    for text in chunk_texts:
        for name, n, s, e in named_ages(text):
            if _named_in(name, claim):
                used = name if re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", claim) else name.split()[0]
                found.setdefault(used, set()).add(n)
                spans[used] = text[s:e]
    out = []
    for used, ages in found.items():
        if len(ages) == 1:
            n = next(iter(ages))
            out.append((used, measure.Amount(n, n, "age", "eq", False, 0, 0, spans[used])))
    return out
