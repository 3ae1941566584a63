"""A rule that names the allowed way beside the forbidden one ("Clay scraps must be reclaimed only in the reclaim
room and must never go down the sinks", "The deck must be treated with brine, never with rock salt").

Why: the parser reads such a rule as one prohibition whose thing holds the words of both alternatives, so a claim
that does the rule's act in the allowed place or with the allowed means ("taken to the reclaim room", "treated with
brine only") matches it by its verb and its thing, and waited for review. English marks the forbidden alternative
with a negator on the second phrase only ("..., never on the production floor"); the first phrase, a preposition
with its object, is what the rule allows. A claim whose clause puts the act in a phrase that names the whole allowed
alternative, and that names nothing of the forbidden one outside a denied clause, keeps the rule.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from abilities.scu_guard.lexicon import STOP
from abilities.scu_guard.nlp import key, parse

_NEGATORS = frozenset({"never", "not", "n't"})
_CONTENT = frozenset({"NOUN", "PROPN", "ADJ", "ADV", "NUM"})


@dataclass(frozen=True)
class Alternatives:
    """The keys of the allowed phrase's object and of the forbidden phrase's words (not the allowed ones)."""

    allowed: frozenset[str]
    forbidden: frozenset[str]


def _content_keys(tokens: Any) -> frozenset[str]:
    return frozenset(key(t) for t in tokens if t.pos_ in _CONTENT and t.lower_ not in STOP and t.lower_ != "only"
                     and t.lower_ not in _NEGATORS)


@lru_cache(maxsize=1024)
def alternatives(rule: str) -> Alternatives | None:
    """The rule's allowed and forbidden alternatives, when a negator heads a later phrase of its own (not the
    main verb's denial): "in the sensory room, never on the production floor". None for any other shape."""
    doc = parse(rule)
    for n in doc:
        if n.lower_ not in _NEGATORS or n.dep_ != "neg" or n.head.dep_ == "ROOT" or n.head.i < n.i:
            continue
        alt = n.head
        alt_ids = {t.i for t in alt.subtree}
        preps = [p for p in doc if p.dep_ == "prep" and p.i < n.i and p.i not in alt_ids
                 and any(c.dep_ == "pobj" for c in p.children)]
        if not preps:
            return None
        # the allowed phrase: the one "only" marks, else the last before the negator
        p = next((p for p in preps if any(c.lower_ == "only" for c in p.children)
                  or (p.i > 0 and doc[p.i - 1].lower_ == "only")), preps[-1])
        obj = next(c for c in p.children if c.dep_ == "pobj")
        allowed = _content_keys(t for t in obj.subtree if t.i not in alt_ids and t.i != n.i)
        forbidden = _content_keys(t for t in alt.subtree if t.i != n.i) - allowed
        if allowed and forbidden:
            return Alternatives(allowed, forbidden)
        return None
    return None


def done_the_allowed_way(rule: str, claim: str, start: int, end: int, denied_spans: list[tuple[int, int]]) -> bool:
    """Does the claim's clause at [start, end) do the rule's act through a phrase that names every word of the
    allowed alternative's object ("to the reclaim room", "in B10, the sensory room"), while the claim names the
    forbidden alternative's words nowhere but in the ``denied_spans`` (its negated clauses)?"""
    alt = alternatives(rule)
    if alt is None:
        return False
    doc = parse(claim)
    allowed_here = any(
        p.dep_ in ("prep", "agent") and start <= p.idx < end
        and alt.allowed <= _content_keys(t for c in p.children if c.dep_ == "pobj" for t in c.subtree)
        for p in doc)
    if not allowed_here:
        return False
    for t in doc:
        if t.pos_ in _CONTENT and key(t) in alt.forbidden and not any(s <= t.idx < e for s, e in denied_spans):
            return False
    return True
