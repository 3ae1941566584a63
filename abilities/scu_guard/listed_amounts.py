"""Readings listed thing by thing: which of a claim's amounts is the rule's.

Why its own reading: a claim that gives several amounts of one dimension, each after the thing it measures
("the glue fridge at 6 °C and the workroom at 19 °C; the specimen chest read -21 °C"), was held for review
against "Specimen freezers must be kept at or below -18 °C" because the reader cannot be sure which amount the
rule bounds. The claim's own order of words settles it: each amount measures the thing named before it (since
the previous amount), or the noun it qualifies ("a 31 °C afternoon"). When the amount outside the band is said
of a thing that shares no word with the rule, and an amount said of a thing the rule names is inside the band,
the claim keeps the rule: the outside amount measures something else.
"""

from __future__ import annotations

from functools import lru_cache

from abilities.scu_guard import measure, wordnet
from abilities.scu_guard.forms import GENERIC, Form
from abilities.scu_guard.judge import _outside, sentence_span
from abilities.scu_guard.nlp import parse, word_key

_THING_POS = frozenset({"NOUN", "PROPN", "ADJ"})


@lru_cache(maxsize=2048)
def _rule_things(rule: str) -> frozenset[str]:
    """The keys of the nouns and describing words of the rule, less units and generic words."""
    doc = parse(rule)
    spans = [(a.start, a.end) for a in measure.find_amounts(rule)]
    return frozenset(word_key(t.lower_) for t in doc if t.pos_ in _THING_POS and not t.is_stop and t.is_alpha
                     and not any(s <= t.idx < e for s, e in spans)) - GENERIC


def _said_of(claim: str, doc: object, a: measure.Amount, prev_end: int) -> tuple[set[str], bool]:
    """(keys of the words naming what the amount measures, whether they name a thing): the words since the
    previous amount (or the sentence's start) and a noun the amount qualifies right after it."""
    s0 = max(prev_end, sentence_span(claim, a.start, a.end)[0])
    toks = [t for t in doc if s0 <= t.idx < a.start]  # type: ignore[attr-defined]
    after = [t for t in doc if t.idx >= a.end][:1]  # type: ignore[attr-defined]
    if after and after[0].pos_ == "NOUN" and any(
            a.start <= c.idx < a.end for c in after[0].children):
        toks.append(after[0])  # "a 31 °C afternoon"
    words = {word_key(t.lower_) for t in toks if t.pos_ in _THING_POS | {"VERB"} and not t.is_stop and t.is_alpha}
    thing = any(t.pos_ in ("NOUN", "PROPN") and wordnet.is_a(t.lemma_.lower(), "time_period") is not True
                for t in toks) or bool(after and toks and toks[-1] is after[0])
    return words, thing


def listed_elsewhere(claim: str, form: Form, start: int) -> bool:
    """Is the claim's amount at ``start`` (outside the rule's band) said of a thing the rule does not name,
    while another amount of the rule's dimension, said of a thing the rule names, is inside the band, and no
    amount said of the rule's thing is outside it?"""
    band = form.quantity
    if band is None:
        return False
    rule = _rule_things(form.text)
    own = [a for a in measure.find_amounts(claim) if a.dim == band.dimension and a.period == band.period]
    doc = parse(claim)
    target = None
    keeps = False
    prev_end = 0
    for a in own:
        words, thing = _said_of(claim, doc, a, prev_end)
        prev_end = a.end
        named = bool(words & rule)
        if a.start <= start < a.end:
            target = (named, thing)
        if named and _outside(a, band):
            return False  # an amount said of the rule's thing breaks it: that is for review
        keeps = keeps or named and not _outside(a, band)
    return target is not None and not target[0] and target[1] and keeps
