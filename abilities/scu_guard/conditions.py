"""Conditional rules whose condition the claim's own words show unmet.

A rule that holds only "if green mould (Trichoderma) is found" or only for "riders under 16" says nothing of a
claim that states the condition does not hold ("the growth was mycelial overlay, not Trichoderma"; "sixteen-year-old
Ella and seventeen-year-old Tom"). A suspected finding on such a rule carries no evidence of a contradiction and
should not cost a person's time, so it is cleared. Findings that already stand are left alone.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from abilities.scu_guard import measure, wordnet
from abilities.scu_guard.forms import Form, _condition_clause, keys
from abilities.scu_guard.nlp import key, parse

_NEGATORS = frozenset({"not", "no", "never", "without", "nor", "neither"})


@lru_cache(maxsize=4096)
def condition_keys(text: str) -> frozenset[str]:
    """Keys of the words of a rule's when/if condition (its whole clause)."""
    verb = _condition_clause(parse(text))
    return frozenset(keys(verb.subtree)) if verb is not None else frozenset()


@lru_cache(maxsize=4096)
def trigger_keys(text: str) -> frozenset[str]:
    """Words of what sets a duty off ("retired ... immediately after arresting a major fall", "once a leak is
    found"): denied in a claim ("with no fall arrests"), they deny the occasion, not the duty."""
    out: set[str] = set()
    for t in parse(text):
        if t.lower_ in ("after", "once", "when", "whenever", "if", "upon", "following") and t.dep_ in ("prep", "mark"):
            sub = t.subtree if t.dep_ == "prep" else t.head.subtree
            out |= {key(x) for x in sub if x.pos_ in ("NOUN", "VERB", "PROPN")}
    return frozenset(out)


@lru_cache(maxsize=4096)
def _condition_nouns(text: str) -> frozenset[str]:
    """Keys of the nouns of a rule's when/if condition that its duty does not name again ("green mould",
    "Trichoderma" in "If green mould (Trichoderma) is found in a room, that room must be ..."; not "room")."""
    doc = parse(text)
    verb = _condition_clause(doc)
    if verb is None:
        return frozenset()
    inside = {t.i for t in verb.subtree}
    main = {key(t) for t in doc if t.i not in inside}
    return frozenset(key(t) for t in verb.subtree if t.pos_ in ("NOUN", "PROPN") and key(t) not in main)


@lru_cache(maxsize=4096)
def reading_nouns(text: str) -> frozenset[str]:
    """The thing a when/if condition's amount is read on ("the river gauge" in "If the river gauge reads above
    1.8 metres, no boat is locked through"): the condition's own nouns, less its units. Empty when the rule's
    amount does not sit in such a clause."""
    doc = parse(text)
    verb = _condition_clause(doc)
    if verb is None:
        return frozenset()
    lo, hi = min(t.idx for t in verb.subtree), max(t.idx + len(t) for t in verb.subtree)
    spans = [(a.start, a.end) for a in measure.find_amounts(text) if lo <= a.start < hi]
    if not spans:
        return frozenset()
    nouns = _condition_nouns(text)
    return frozenset(k for t in verb.subtree if (k := key(t)) in nouns
                     and not any(s <= t.idx < e for s, e in spans) and t.lower_ not in measure.UNIT_WORDS)


def reading_unnamed(rule: str, claim: str) -> bool:
    """Does a claim's amount fall outside what a rule's condition reads? The condition reads a thing of its own
    ("the river gauge"), and every claim amount of its dimension gives the size of some other thing ("Kingfisher,
    21.9 m overall", "the 38 m barge") while the claim never names the read thing, by its word or a word WordNet
    puts with it ("a 70 km/h gust" is a reading of "the wind speed"). A bare reading ("the depot thermometer at
    84 °F", "gusts of 30 mph") is left to count."""
    nouns = reading_nouns(rule)
    if not nouns:
        return False
    dims = {a.dim for a in measure.find_amounts(rule)}
    mine = [a for a in measure.find_amounts(claim) if a.dim in dims]
    if not mine:
        return False
    doc = parse(claim)
    if nouns & {key(t) for t in doc} or not all(_sized(doc, a.end) for a in mine):
        return False
    words = _reading_words(rule)
    # a verb too: the parser takes "gust" in "the 70 km/h gust" for one
    said = {t.lemma_.lower() for t in doc if t.pos_ in ("NOUN", "PROPN", "VERB") and t.lower_ not in measure.UNIT_WORDS}
    return not any(wordnet.related(s, w) for s in said for w in words)


def _sized(doc: Any, end: int) -> bool:
    """Does the amount ending at ``end`` give a thing's size: a size word after it ("21.9 m overall", "38 m
    long") or the thing's noun ("a 13.5 m trailer")?"""
    nxt = next((t for t in doc if t.idx >= end and t.text not in ("-",)), None)
    return nxt is not None and nxt.pos_ in ("NOUN", "PROPN", "ADJ") and nxt.lower_ not in measure.UNIT_WORDS


@lru_cache(maxsize=4096)
def _reading_words(text: str) -> tuple[str, ...]:
    """The lemmas of the nouns a rule's condition reads (``reading_nouns``), for WordNet."""
    nouns = reading_nouns(text)
    return tuple(dict.fromkeys(t.lemma_.lower() for t in parse(text) if t.pos_ == "NOUN" and key(t) in nouns))


def _phrase_head(t: Any) -> Any:
    """The head noun of the phrase holding ``t`` ("green" -> "mould"; "illness" in "signs of illness" -> "signs")."""
    while True:
        if t.dep_ in ("compound", "amod", "appos") and t.head.pos_ in ("NOUN", "PROPN"):
            t = t.head
        elif t.dep_ == "pobj" and t.head.lower_ == "of" and t.head.head.pos_ in ("NOUN", "PROPN"):
            t = t.head.head
        else:
            return t


def _negated_mention(t: Any) -> bool:
    """Is this noun mentioned as absent: "not Trichoderma", "no green mould", "no mould was found", "without X"?"""
    doc = t.doc
    for w in (t, _phrase_head(t)):
        if w.i > 0 and doc[w.i - 1].lower_ in _NEGATORS:
            return True
        if any(c.dep_ in ("det", "neg") and c.lower_ in _NEGATORS for c in w.children):
            return True
        if w.dep_ == "pobj" and w.head.lower_ == "without":
            return True
        if w.dep_ in ("nsubj", "nsubjpass", "dobj") and any(c.dep_ == "neg" for c in w.head.children):
            return True
    return False


def condition_denied(form: Form, claim: str) -> bool:
    """Does the claim name the state a rule's condition names only to deny it, every time it names it?"""
    nouns = _condition_nouns(form.text)
    if not nouns:
        return False
    mentions = [t for t in parse(claim) if key(t) in nouns]  # "not blight" may be tagged a verb
    return bool(mentions) and all(_negated_mention(t) for t in mentions)


def trigger_unmet(form: Form, claim: str) -> bool:
    """Does the claim state amounts of the dimension that switches the rule on, none of them inside its band
    ("sixteen-year-old Ella and seventeen-year-old Tom" for "Riders under 16 may ride only when ...")?"""
    band = form.trigger
    if band is None:
        return False
    own = [a for a in measure.find_amounts(claim) if a.dim == band.dimension and a.direction == "eq"]
    return bool(own) and not any(_inside(a, band) for a in own)


def _inside(a: measure.Amount, band: Any) -> bool:
    lo_ok = band.low is None or (a.hi > band.low if band.strict else a.hi >= band.low)
    hi_ok = band.high is None or (a.lo < band.high if band.strict else a.lo <= band.high)
    return lo_ok and hi_ok


def unmet(form: Form, claim: str) -> bool:
    """Is the rule's condition shown unmet by the claim's own words?"""
    return condition_denied(form, claim) or trigger_unmet(form, claim)
