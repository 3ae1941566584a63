"""A duty scoped to a place, and a claim's act told at another place.

"Every client on the ice must wear a helmet" binds on the ice only. A claim that has two clients take their
helmets off "back at the car park", and says in another clause what happened "on the ice", tells the two places
apart itself: the act it reports is outside the place the rule binds, so it drops nothing the rule requires.
The rule's place is the object of a preposition of place ("on", "in", "at", "inside", "aboard", "within") that
hangs from the rule's subject or its verb. The claim's act is elsewhere when its clause names none of the rule's
place, puts the act at another place (a preposition of place, its object no time and no person), and the claim
says in another of its clauses what everyone did at the rule's place ("out on the ice everyone kept them on":
the act's doers were not there; "the rest kept them on" would leave them there). Without that, the claim's
place may lie inside the rule's ("at the bench" in the lab), so the act is read as before.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from abilities.scu_guard import places, wordnet
from abilities.scu_guard.nlp import key, parse

_LOCATIVE = frozenset({"on", "in", "at", "inside", "aboard", "within"})


@lru_cache(maxsize=1024)
def _rule_place(text: str) -> str | None:
    """The key of the place a rule binds in, or None."""
    doc = parse(text)
    for t in doc:
        if t.dep_ != "prep" or t.lower_ not in _LOCATIVE:
            continue
        head = t.head
        if not (head.dep_ in ("nsubj", "nsubjpass") or head.dep_ == "ROOT"):
            continue
        obj = next((c for c in t.children if c.dep_ == "pobj" and c.pos_ in ("NOUN", "PROPN")), None)
        if obj is not None and not places.names_time(obj):
            return key(obj)
    return None


def _places_in(doc: Any, start: int, end: int) -> list[Any]:
    """The objects of prepositions of place in doc[start:end] (characters) that name a place, not a time or a
    person."""
    out = []
    for t in doc:
        if not (start <= t.idx < end) or t.dep_ != "prep" or t.lower_ not in _LOCATIVE:
            continue
        for o in t.children:
            if o.dep_ == "pobj" and o.pos_ in ("NOUN", "PROPN") and not places.names_time(o) and \
                    wordnet.names_person(o.lemma_.lower()) is not True:
                out.append(o)
    return out


# words that speak of everyone at a place ("out on the ice everyone kept them on", "no one took them off on deck")
_EVERYONE = frozenset({"everyone", "everybody", "all", "each", "every", "nobody", "none", "no"})


def _all_there(place: Any, start: int, end: int) -> bool:
    """Does the clause that names ``place`` (outside the act's own span) speak of everyone there? Then the
    act's doers, said to do otherwise elsewhere, were not there: "the rest kept them on in the lab" leaves
    the two in the lab."""
    verb = next((a for a in place.ancestors if a.pos_ in ("VERB", "AUX")), None)
    if verb is None:
        return False
    return any(t.lower_ in _EVERYONE and not (start <= t.idx < end) for t in verb.subtree)


def act_elsewhere(rule: str, claim: str, start: int, end: int) -> bool:
    """Is the act the claim tells in claim[start:end] surely at another place than the one the rule binds in?
    See the module's docstring."""
    return _rule_place(rule) is not None and _act_elsewhere(rule, claim, start, end)


@lru_cache(maxsize=1024)
def _scope_words(claim: str, scope: str) -> tuple[int, ...]:
    """The claim's tokens (indices) that name the rule's place, read once per claim."""
    return tuple(t.i for t in parse(claim) if t.pos_ in ("NOUN", "PROPN") and key(t) == scope)


@lru_cache(maxsize=4096)
def _act_elsewhere(rule: str, claim: str, start: int, end: int) -> bool:
    scope = _rule_place(rule)
    assert scope is not None
    found = _scope_words(claim, scope)
    if not found:
        return False
    doc = parse(claim)
    toks = [doc[i] for i in found]
    # the claim itself tells the two places apart: another clause says what everyone did at the rule's place
    told = any(t.dep_ == "pobj" and t.head.lower_ in _LOCATIVE and not (start <= t.idx < end) and
               _all_there(t, start, end) for t in toks)
    if not told or any(start <= t.idx < end and t.dep_ not in ("compound", "amod") for t in toks):
        return False  # the rule's place named in the act's own clause ("lab coats" names no lab)
    return any(key(o) != scope for o in _places_in(doc, start, end))
