"""Where a duration is spent: the place a time rule bounds a stay in, and whether a claim's time is spent there.

Why its own reading: a rule that bounds how long a thing stays somewhere ("must stay on the block for at least
12 hours", "must not remain in the brine tank for longer than 7 days") bounds the time spent in that place, not
any time the thing takes. A claim's duration said of a doing in another place ("dried in the oven for 50
minutes") measures the stay there; and a gap between two of the claim's dates that name neither the rule's
place nor its doing ("logged in on 30 January ... collected on 14 April") measures the thing's whole stay with
the claimant, of which the stay in the rule's place is one part. Read by grammar: the place is the object of a
preposition of place ("in", "on", "at", ...) on the verb the duration hangs from; a time ("in the morning",
"at night") or an amount ("at 140 °F") is no place; two places are one when they share a word or WordNet
relates them ("the cold store" may be "the freezer").
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from abilities.scu_guard import wordnet
from abilities.scu_guard.nlp import governing_verb, key, parse

_PLACE_PREPS = frozenset({"in", "on", "at", "inside", "into", "onto", "aboard", "under"})
_GENERIC_PLACES = frozenset({"place", "area", "spot", "site", "location", "position"})


@lru_cache(maxsize=1)
def _physical() -> frozenset[int]:
    sense = wordnet.sense_of("physical_entity")
    return frozenset({sense}) if sense is not None else frozenset()


def _physical_senses(lemma: str) -> tuple[bool, ...]:
    """For each of the noun's first senses, is it a physical thing (a place, a vessel, a stand) by WordNet?"""
    targets = _physical()
    return wordnet.under(lemma, targets) if targets else ()


def _places(verb: Any) -> list[Any]:
    """The nouns the verb puts its doing in, by a preposition of place: not a time, not an amount, a noun one of
    whose first senses WordNet calls physical ("in a shift", "on a delay" name no place)."""
    out = []
    for prep in (c for c in verb.children if c.dep_ == "prep" and c.lower_ in _PLACE_PREPS):
        for obj in (c for c in prep.children if c.dep_ == "pobj" and c.pos_ == "NOUN"):
            if any(c.dep_ == "nummod" or c.like_num for c in obj.children) or obj.lower_ in _GENERIC_PLACES:
                continue
            if wordnet.is_a(obj.lemma_.lower(), "time_period") is True:
                continue  # "in the morning", "at night"
            if not any(_physical_senses(obj.lemma_.lower())):
                continue
            out.append(obj)
    return out


def _place_keys(t: Any) -> frozenset[str]:
    """The place's head and the nouns that name it with it ("the pickle bath")."""
    return frozenset({key(t)} | {key(c) for c in t.children if c.dep_ == "compound" and c.pos_ in ("NOUN", "PROPN")})


def _amount_token(doc: Any, start: int, end: int) -> Any:
    """The last word of an amount's span (its unit, "hours"), or None."""
    toks = [t for t in doc if start <= t.idx < end]
    return toks[-1] if toks else None


@lru_cache(maxsize=2048)
def rule_place(rule: str, band_text: str) -> tuple[frozenset[str], str, str] | None:
    """(keys of the place the rule's duration is spent in, the place's head lemma, the key of the verb), or None:
    "stay on the block for at least 12 hours" -> ({block}, block, stay). Only one place, and only on the verb
    the duration hangs from."""
    at = rule.find(band_text) if band_text else -1
    if at < 0:
        return None
    doc = parse(rule)
    tok = _amount_token(doc, at, at + len(band_text))
    verb = governing_verb(tok) if tok is not None else None
    if verb is None:
        return None
    places = _places(verb)
    if len(places) != 1 or not _physical_senses(places[0].lemma_.lower())[:1] == (True,):
        return None  # the stay is bounded in a place by the word's first sense ("the block", not "a shift")
    return _place_keys(places[0]), places[0].lemma_.lower(), key(verb)


def _same_place(claim_place: Any, keys: frozenset[str], lemma: str, _verb: str = "") -> bool:
    return bool(_place_keys(claim_place) & keys) or wordnet.related(claim_place.lemma_.lower(), lemma)


def spent_elsewhere(rule: str, band_text: str, claim: str, start: int, end: int) -> bool:
    """Is the claim's duration at [start, end) spent in another place than the one the rule bounds the stay in
    ("dried in the oven for 50 minutes" for "must stay on the block for at least 12 hours")? Only when the verb
    the duration hangs from names a place, and none of its places is the rule's."""
    place = rule_place(rule, band_text)
    if place is None:
        return False
    doc = parse(claim)
    tok = _amount_token(doc, start, end)
    verb = governing_verb(tok) if tok is not None else None
    if verb is None:
        return False
    places = _places(verb)
    return bool(places) and not any(_same_place(p, *place) for p in places)


def place_unnamed(rule: str, band_text: str, claim: str) -> bool:
    """Does the claim name neither the place the rule bounds a stay in nor the verb the rule's duration hangs
    from, so that a gap between its dates measures some other stretch of the thing's time ("logged in on 30
    January ... collected on 14 April" for "must not remain in the pickle bath for longer than 7 days")?"""
    place = rule_place(rule, band_text)
    if place is None:
        return False
    keys, lemma, verb = place
    said = {key(t) for t in parse(claim)}
    if keys & said or verb in said:
        return False
    return not any(t.pos_ == "NOUN" and wordnet.related(t.lemma_.lower(), lemma) for t in parse(claim)
                   if t.dep_ == "pobj" and t.head.lower_ in _PLACE_PREPS)
