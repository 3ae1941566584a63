"""A claim that tells an allowed place or means as out of use, so that what was done instead was done elsewhere.

"With the extraction booth down for a filter change, the panels were cut on table 2", "While the mechanics'
room is repainted, the spare pins are stacked in the cupboard", "Because the north paddock was being mowed,
the flight was over the south meadow instead", "with the Vitra-Clean out of stock, the windscreen was cleaned
with Windex", "rather than waiting for the depot to open". A place the text cannot tell apart from the
allowed one ("a cupboard" may stand in the mechanics' room) is surely another when the same sentence says the
allowed one could not be used: the English of it is a subject, or the object of an absolute "with", whose
predicate says it is shut, full, taken, broken, away, out of stock or being worked on; or the object of
"instead of", "in place of", "rather than".

The words of being out of use are a closed class of English (states and their verbs), not of any domain.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

# states that keep a place or a means from use ("closed", "full", "down", "out of stock", "off the road")
_STATES = frozenset({"closed", "shut", "down", "full", "blocked", "locked", "busy", "occupied", "unavailable",
                     "crammed", "flooded", "broken", "booked", "away", "offline", "backordered", "jammed", "empty",
                     "unusable", "unserviceable", "inaccessible", "unopened", "taken", "exhausted", "depleted"})
# verbs whose passive or whose subject tells the same ("the booth was closed", "the stock had run out")
_STATE_VERBS = frozenset({"close", "shut", "block", "lock", "occupy", "cram", "flood", "break", "book", "tie", "fill",
                          "jam", "snow", "run", "fail", "clog", "obstruct", "overflow", "condemn", "cordon", "fence",
                          "barricade", "freeze", "ice"})
# verbs of work done on a place or a thing: out of use while the work goes on ("while the room is repainted",
# "was being mowed"), not once it is done ("after the room was repainted")
_WORK_VERBS = frozenset({"repair", "repaint", "paint", "renovate", "refurbish", "service", "retile", "decorate",
                         "sand", "mow", "resurface", "clean", "rebuild", "refit", "reline", "overhaul", "fix",
                         "inspect", "replace", "recalibrate", "calibrate", "fumigate", "disinfect", "modify"})
# "run" tells it only with "out" ("the stock ran out"), "tie" only with "up"
_WITH_PARTICLE = {"run": "out", "tie": "up", "snow": "in", "ice": "up", "cordon": "off", "fence": "off"}
# the nouns after "out of", "off", "under" that keep a thing from use ("out of action", "off the road", "under
# repair")
_OUT_OF = frozenset({"action", "use", "service", "stock", "order", "commission", "reach", "supply"})
_OFF = frozenset({"road", "line", "site", "air"})
_UNDER = frozenset({"repair", "repairs", "maintenance", "construction", "renovation", "refurbishment", "water"})
# words that put a thing in another's stead: "instead of X", "in place of X", "rather than X"
_STEAD = (("instead", "of"), ("in", "place", "of"), ("rather", "than"))


def _state_word(t: Any) -> bool:
    """Does a word tell a state out of use ("closed", "down", "full")?"""
    return t.lower_ in _STATES


def _phrase_out(p: Any) -> bool:
    """Is a preposition phrase one of being out of use ("out of action", "off the road", "under repair")?"""
    objs = [c for c in p.children if c.dep_ == "pobj"]
    inner = [g for c in p.children if c.dep_ == "prep" for g in c.children if g.dep_ == "pobj"]
    low = p.lower_
    if low == "out":
        return any(o.lower_ in _OUT_OF for o in objs + inner)
    if low == "off":
        return any(o.lower_ in _OFF for o in objs)
    if low == "under":
        return any(o.lower_ in _UNDER for o in objs)
    if low == "of" and p.i > 0 and p.doc[p.i - 1].lower_ == "out":
        return any(o.lower_ in _OUT_OF for o in objs)
    return False


def _out_of_use(pred: Any) -> bool:
    """Does a predicate (a verb, an adjective or the words after an absolute "with X") say its subject is out of
    use: a state word, a verb of the class in its passive or with its particle ("ran out", "tied up"), a passive
    in progress ("was being mowed"), or a phrase of being out ("out of stock")?"""
    kids = list(pred.children)
    if pred.dep_ == "neg" or any(c.dep_ == "neg" for c in kids):
        return False  # "the booth was not closed"
    if _state_word(pred) or any(c.dep_ in ("acomp", "advmod", "prt", "oprd") and _state_word(c) for c in kids):
        return True
    lemma = pred.lemma_.lower()
    if lemma in _STATE_VERBS:
        need = _WITH_PARTICLE.get(lemma)
        if need is None and (pred.tag_ == "VBN" or any(c.dep_ == "auxpass" for c in kids)):
            return True
        if need is not None and any(c.dep_ in ("prt", "advmod", "prep") and c.lower_ == need for c in kids):
            return True
    if pred.tag_ == "VBN" and any(c.lower_ == "being" for c in kids):
        return True  # "was being mowed": work on it under way
    if any(c.dep_ == "auxpass" and c.lower_ in ("is", "are") for c in kids) and (
            lemma in _WORK_VERBS or any(c.dep_ == "mark" and c.lower_ == "while" for c in kids)):
        return True  # "while the mechanics' room is repainted", "while the boathouse is reroofed"
    return any(c.dep_ in ("prep", "advmod", "prt") and _phrase_out(c) for c in kids)


def _said_out(noun: Any) -> bool:
    """Is the noun told out of use: the subject of such a predicate, or the object of an absolute "with" whose
    words after it say so ("With Pad B tied up", "with the isopropyl alcohol out of stock")?"""
    head = noun.head
    if noun.dep_ in ("nsubj", "nsubjpass") and _out_of_use(head):
        return True
    if noun.dep_ == "pobj" and head.lower_ == "of" and head.head.lower_ == "out" and \
            head.head.head.lemma_.lower() in ("run", "be"):
        return True  # "the merchant had run out of copper nails"
    if noun.dep_ == "pobj" and head.lower_ == "with":
        # the words after it hang from the noun or, in a poor parse, from "with" itself
        after = [c for c in [*noun.children, *head.children]
                 if c.i > noun.i and c.dep_ in ("acl", "amod", "prep", "advmod", "relcl")]
        if any(_out_of_use(c) if c.dep_ != "prep" else _phrase_out(c) for c in after):
            return True
        nxt = noun.doc[noun.i + 1] if noun.i + 1 < len(noun.doc) else None
        return nxt is not None and _state_word(nxt)
    return False


def _in_stead(noun: Any) -> bool:
    """Is the noun the one set aside by "instead of", "in place of" or "rather than" (a gerund may come between:
    "rather than waiting for the depot")?"""
    doc = noun.doc
    start = noun.left_edge.i
    for words in _STEAD:
        n = len(words)
        for gap in range(0, 4):
            i = start - gap - n
            if i >= 0 and tuple(t.lower_ for t in doc[i: i + n]) == words:
                between = doc[i + n: start]
                if all(t.pos_ in ("VERB", "ADP", "DET", "PART", "AUX") for t in between):
                    return True
    return False


def set_aside(doc: Any, start: int, end: int, names: Callable[[Any], bool]) -> bool:
    """Does the claim's sentence (characters ``start``-``end``) tell a noun that ``names`` picks out as out of
    use, or as the one something was done instead of?"""
    for t in doc:
        if not (start <= t.idx < end) or (t.pos_ not in ("NOUN", "PROPN") and t.dep_ != "pobj") or not names(t):
            continue
        if _said_out(t) or _in_stead(t):
            return True
        # a noun joined to a subject out of use shares its predicate ("the base and the van were closed")
        own = [c for c in t.children if c.i > t.i and c.dep_ in ("prep", "acl", "amod", "advmod", "relcl")]
        if t.dep_ == "conj" and (any(c.dep_ == "prep" and _phrase_out(c) for c in own) or not own and
                                 _said_out(t.head)):
            return True
    return False
