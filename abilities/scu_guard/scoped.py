"""A duty scoped to a place, and a claim's act told at another place.

"Every client on the ice must wear a helmet" binds on the ice only. A claim that has two clients take their
helmets off "back at the car park", and says in another clause what happened "on the ice", tells the two places
apart itself: the act it reports is outside the place the rule binds, so it drops nothing the rule requires.
The rule's place is the object of a preposition of place ("on", "in", "at", "inside", "aboard", "within") that
hangs from the rule's subject or its verb. The claim's act is elsewhere when its clause names none of the rule's
place, puts the act at another place (a preposition of place, its object no time and no person), and either the
claim says in another of its clauses what everyone did at the rule's place ("out on the ice everyone kept them
on": the act's doers were not there; "the rest kept them on" would leave them there), or the two places are
surely other by ``places`` (a label with another code, a place of another kind of the same scale, open air
against a roof).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from abilities.scu_guard import places, wordnet
from abilities.scu_guard.nlp import key, parse

_LOCATIVE = frozenset({"on", "in", "at", "inside", "aboard", "within"})


@lru_cache(maxsize=1024)
def _rule_place(text: str) -> tuple[str, int] | None:
    """(the key of the place a rule binds in, the token index of its noun), or None."""
    doc = parse(text)
    for t in doc:
        if t.dep_ != "prep" or t.lower_ not in _LOCATIVE:
            continue
        head = t.head
        if not (head.dep_ in ("nsubj", "nsubjpass") or head.dep_ == "ROOT"):
            continue
        obj = next((c for c in t.children if c.dep_ == "pobj" and c.pos_ in ("NOUN", "PROPN")), None)
        if obj is not None and not places.names_time(obj):
            return key(obj), obj.i
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


def act_elsewhere(rule: str, doc: Any, start: int, end: int) -> bool:
    """Is the act the claim tells in doc[start:end] (characters) surely at another place than the one the rule
    binds in? See the module's docstring."""
    found = _rule_place(rule)
    if found is None:
        return False
    scope, at = found
    if any(key(t) == scope and t.dep_ not in ("compound", "amod") for t in doc if start <= t.idx < end):
        return False  # the rule's place named in the act's own clause ("lab coats" names no lab)
    mine = [o for o in _places_in(doc, start, end) if key(o) != scope]
    if not mine:
        return False
    if any(key(o) == scope and _all_there(o, start, end)
           for o in _places_in(doc, 0, start) + _places_in(doc, end, len(doc.text))):
        return True  # the claim itself tells the two places apart
    allowed = places.place_of(parse(rule)[at])
    return any(places.surely_other(places.place_of(o), allowed) or places.other_site(places.place_of(o), allowed)
               for o in mine)
