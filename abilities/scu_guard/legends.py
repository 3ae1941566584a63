"""A cited legend that says what a code or a short name stands for: "B14 = Andrology lab", "T-4: wardrobe
trailer", "Barn B — cellar", "Room 2 - ringing chamber".

A site plan, a floor-plan key, a rack map or a trailer list names places by codes and gives each a line of
its own (or a part of a line between semicolons or full stops): the code or name, a sign that defines it
("=", ":", a dash) and a description. A chunk counts as a legend only when it gives at least two such entries
with the same sign: one "Note: ..." is no definition. A code the claim gives ("Room B14", "B-07-1", a bay of
rack B-07) is read as the place the legend describes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

# one entry: a short name (a code, or up to three words opening with a capital) or a code, a sign, a description
_ENTRY_RE = re.compile(
    r"(?:^|(?<=[;\n])|(?<=[.:—–]\s))(?=\s*(?P<key>(?:[A-Z][\w'-]*|\d[\w-]*)(?: [\w'-]+){0,2}?)\s*"
    r"(?P<sign>=|:|—|–| - )\s*(?P<desc>[^;\n]+?)(?:;|\n|\.\s|\.$|$))")  # a lookahead: entries may nest
_SIGNS = {"=": "=", ":": ":", "—": "-", "–": "-", " - ": "-"}


@dataclass(frozen=True)
class Entry:
    """One entry of a legend: its key as written and its description (up to a comma or a bracket)."""

    key: str
    desc: str


@lru_cache(maxsize=1024)
def entries(text: str) -> tuple[Entry, ...]:
    """The entries of a chunk that reads as a legend (two entries or more with one sign), else none."""
    found: dict[str, list[Entry]] = {}
    for m in _ENTRY_RE.finditer(text):
        key, desc = m.group("key").strip(), m.group("desc").strip()
        if len(key) > 30 or not desc:
            continue
        found.setdefault(_SIGNS[m.group("sign")], []).append(Entry(key, desc))
    best = max(found.values(), key=len, default=[])
    return tuple(best) if len(best) >= 2 else ()


def _norm(s: str) -> str:
    return re.sub(r"^(?:the|a|an)\s+", "", s.strip().lower())


def names_of(phrase: str) -> set[str]:
    """What a place phrase may be looked up under: the phrase without its article, each code in it, and a code
    with its last part dropped (a bay "B-07-1" of the rack "B-07")."""
    out = {_norm(phrase)}
    for word in phrase.split():
        code = word.strip(".,;:()'\"")
        if any(ch.isdigit() for ch in code) or (len(code) == 1 and code.isupper()):
            out.add(code.lower())
            rack = code.rsplit("-", 1)[0]
            if "-" in code and any(ch.isdigit() for ch in rack):
                out.add(rack.lower())
    words = _norm(phrase).split()
    if len(words) >= 2:
        out.add(" ".join(words[-2:]))  # "the label Room 2" -> "room 2"
    return out


def lookup(phrase: str, chunk_texts: tuple[str, ...] | list[str]) -> tuple[Entry, tuple[Entry, ...]] | None:
    """The legend entry a place phrase names (its key equal to one of the phrase's names), with the other entries
    of that legend; None when no cited legend names it."""
    names = names_of(phrase)
    for text in chunk_texts:
        es = entries(text)
        for e in es:
            if _norm(e.key) in names:
                return e, tuple(x for x in es if x is not e)
    return None


def head_of(desc: str) -> str:
    """A description cut to the place it names: up to a comma or a bracket ("wardrobe trailer, unlocked ...")."""
    return re.split(r"[,(]", desc, maxsplit=1)[0].strip()
