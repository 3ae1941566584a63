"""What a cited record says a named thing is: "tram 3011", "Nala (golden retriever)", "Biscuit — eagle owl",
"T-4: wardrobe trailer", "Lot 57 is a carved figure".

Why: a claim often names a thing only by its code, number or proper name ("3011 pulled out with its checklist
left blank", "FV3 was refilled"), and only the record it cites tells what sort of thing that is. A rule is
about the sort ("Every tram ...", "Every fermentation vessel ..."), so the claim's mention counts as the
record's common noun for the typed reading. The record says so in a handful of English shapes: the noun
before the code ("tram 3011", "fermentation vessel FV3"), the noun in brackets after the name ("Nala (golden
retriever)"), the noun after a sign of a list or key ("Biscuit — eagle owl", "B-07: general dry goods rack",
"FV3 = fermentation vessel"), and a copula with an article ("Lot 57 is a carved figure").

Only an unambiguous label counts: every cited shape that names the thing gives the same head noun, and that
noun is a common noun WordNet knows that names no person (who a person is, is read from rosters elsewhere).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from abilities.scu_guard import legends, measure, wordnet
from abilities.scu_guard.nlp import parse

# a code: letters and digits with a digit in it ("3011", "FV3", "GH-2291", "B-07"), not a time or a decimal
_CODE = r"(?:[A-Z]{1,4}-?\d\w*(?:-\w+)*|(?!(?:19|20)\d\d\b)\d{3,}(?:-\w+)*)(?![:.,]\d)"
# a name: one to three capitalised words, or a code
_NAME = rf"(?:{_CODE}|[A-Z][a-z]+(?: [A-Z][a-z]+){{0,2}})"
_BEFORE_RE = re.compile(rf"(?:(?<![\w'-])([a-z]+(?: [a-z]+)?)|(?:^|(?<=[.:;—–-] ))([A-Z][a-z]+(?: [a-z]+)?)) ({_CODE})\b")
_BRACKET_RE = re.compile(rf"(?<![\w-])['‘]?({_NAME})['’]? \(([a-z][a-z -]*?)\)")
_DASH_RE = re.compile(rf"(?:^|(?<=[.:;] ))['‘]?({_NAME})['’]? [—–] ([a-z][a-z -]*?)(?=[,.;(]|$)")
_COPULA_RE = re.compile(rf"(?<![\w-])({_NAME}) is an? ([a-z][a-z -]*?)(?=[,.;(]| (?:in|on|at|with|from|for|of|that|"
                        r"which|who|and|but|by|to)\b|$)")
# nouns that name a record or a mark rather than the thing itself ("log 12", "note 4580", "page 3")
_RECORD_WORDS = frozenset({"log", "note", "entry", "sheet", "record", "register", "page", "ref", "reference",
                           "item", "line", "number", "no", "code", "id", "form", "list", "report", "ticket",
                           "version", "rev", "week", "day", "year", "step", "round", "stage", "phase", "type",
                           "class", "grade", "level", "size", "model", "part", "section", "table", "figure"})
_STOP = frozenset({"and", "or", "the", "a", "an", "of", "to", "with", "from", "at", "on", "in", "by", "for", "per",
                   "than", "about", "after", "before", "until", "since", "out", "up", "off", "over", "under"})


@lru_cache(maxsize=1)
def _kinds() -> tuple[frozenset[int], frozenset[int]]:
    """WordNet's physical entity (a thing, an animal, a place, a substance) and person."""
    return frozenset(wordnet.senses("physical entity")[:1]), frozenset(wordnet.senses("person")[:1])


def _thing(phrase: str) -> bool:
    """Is the phrase's first sense a physical thing that is no person (its second sense will do for a phrase
    whose first is abstract: "yarn" is a story first)?"""
    physical, person = _kinds()
    firsts = wordnet.under(phrase, physical, 2)
    return bool(firsts) and any(firsts) and not any(wordnet.under(phrase, person, 1)) and \
        wordnet.names_person(phrase) is not True


def _label(phrase: str) -> str | None:
    """The phrase up to its last common noun that names a thing ("tower crane hired from ..." -> "tower crane"),
    its narrowing words kept ("locked cabinet", "stern gas locker"), or None."""
    words = phrase.lower().split()
    if not words or len(words) > 6 or any(w in _STOP for w in words):
        return None
    for end in range(len(words), 0, -1):
        if words[end - 1] in _RECORD_WORDS:
            continue
        for i in range(end):
            tail = " ".join(words[i:end])
            if wordnet.senses(tail):
                return " ".join(words[:end]) if _thing(tail) else None
    return None


def _noun_at(text: str, end: int) -> bool:
    """Is the word ending at ``end`` of the text a common noun in its parse (not a verb: "use AES-256"; the tagger
    reads a lowercase "tram" before a number as a name, so a name counts too)?"""
    return any(t.idx + len(t) == end and t.pos_ in ("NOUN", "PROPN") for t in parse(text))


def _pairs(text: str) -> list[tuple[str, str]]:
    """(name, label) pairs a record text states in any of the shapes."""
    out: list[tuple[str, str]] = []
    amounts = [(a.start, a.end) for a in measure.find_amounts(text)]
    for m in _BEFORE_RE.finditer(text):
        noun = m.group(1) or m.group(2)  # lowercase anywhere, or capitalised opening an entry ("Lateral L-77")
        if any(s <= m.start(3) < e for s, e in amounts) or not _noun_at(text, m.end(3) - len(m.group(3)) - 1):
            continue  # "weight 250 lb", "tap 115 °F": an amount; "use AES-256": a verb
        words = noun.lower().split()
        lab = _label(" ".join(words)) or (_label(words[1]) if len(words) == 2 else None)
        if lab:
            out.append((m.group(3), lab))
    for m in _BRACKET_RE.finditer(text):
        lab = _label(m.group(2))
        if lab:
            out.append((m.group(1), lab))
    for m in _DASH_RE.finditer(text):
        lab = _label(m.group(2))
        if lab:
            out.append((m.group(1), lab))
    for e in legends.entries(text):
        desc = re.sub(r"\s+\d+$", "", legends.head_of(e.desc))  # "fermentation vessel 3" is a vessel
        lab = _label(desc) if re.fullmatch(r"[a-z][a-z -]*", desc) else None
        if lab:
            out.append((e.key, lab))
    for m in _COPULA_RE.finditer(text):
        lab = _label(m.group(2))
        if lab:
            out.append((m.group(1), lab))
    return out


def _numbered_noun(name: str) -> bool:
    """A common noun with a number or letter ("Cave 3", "Bin 7", "Room B"): the name says its own sort already."""
    words = name.split()
    return len(words) == 2 and bool(re.fullmatch(r"\d+|[A-Z]", words[1])) and bool(wordnet.senses(words[0].lower()))


@lru_cache(maxsize=1024)
def labels(chunk_texts: tuple[str, ...]) -> dict[str, str]:
    """Name -> the one common noun the cited records give it; a name given two head nouns is left out."""
    found: dict[str, set[str]] = {}
    for text in chunk_texts:
        for name, lab in _pairs(text):
            if not _numbered_noun(name):
                found.setdefault(name.lower(), set()).add(lab)
    out: dict[str, str] = {}
    for name, labs in found.items():
        heads = {lab.split()[-1] for lab in labs}
        if len(heads) == 1:
            out[name] = max(labs, key=len)
    return out


def _is_code(name: str) -> bool:
    """A code is one word with a digit in it ("3011", "FV3"); "Cave 3" is a noun with a number."""
    return " " not in name and any(ch.isdigit() for ch in name)


def with_labels(claim: str, chunk_texts: Sequence[str]) -> str:
    """The claim with each name a cited record labels preceded by the record's noun ("3011 pulled out" ->
    "tram 3011 pulled out"), unless the claim already puts a noun of its own before the name ("bay B-07-1",
    "the tram 3011"); the claim unchanged when nothing is labelled."""
    texts = tuple(chunk_texts)
    low = " ".join(texts).lower()
    if not any(w.lower() in low for w in re.findall(rf"{_CODE}|\b[A-Z][a-z]+", claim)):
        return claim  # the claim names nothing a record names: no parse of the records
    known = labels(texts)
    if not known:
        return claim
    edits: list[tuple[int, str]] = []
    for name, lab in known.items():
        flags = re.I if _is_code(name) else 0
        for m in re.finditer(rf"(?<![\w-]){re.escape(name)}(?![\w-])", claim, flags):
            if not _is_code(name) and (not claim[m.start()].isupper() or m.start() == 0 and wordnet.senses(name)):
                continue  # a capitalised word opening the claim may be a common noun ("Biscuits were ...")
            before = claim[:m.start()].rstrip().split()
            prev = before[-1].lower().strip("'\"(") if before else ""
            if prev.isalpha() and prev not in _STOP and wordnet.senses(prev):
                continue  # "bay B-07-1", "kart 21": the claim says its own noun
            if re.search(rf"\b{re.escape(lab.split()[-1])}", claim, re.I):
                continue  # the claim already names the sort ("the tram, 3011")
            edits.append((m.start(), lab + " "))
    if not edits:
        return claim
    out = claim
    for at, word in sorted(set(edits), reverse=True):
        if at == 0:
            out = word[0].upper() + word[1:] + out
        else:
            out = out[:at] + word + out[at:]
    return out
