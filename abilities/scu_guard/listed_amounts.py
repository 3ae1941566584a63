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


_TRAILING_PREPS = frozenset({"of", "on", "in", "at", "inside"})


def _said_of(claim: str, doc: object, a: measure.Amount, prev_end: int) -> tuple[set[str], bool, int]:
    """(keys of the words naming what the amount measures, whether they name a thing, where its words end): the
    words since the previous amount's own words (or the sentence's start), a noun the amount qualifies right
    after it, by the parse or right after it ("a 31 °C afternoon", "8 oz Dacron"), and the phrases of place or of "of" that follow it up to a
    stop ("4 inches of wind pressure", "750 minutes on the hill")."""
    s0 = max(prev_end, sentence_span(claim, a.start, a.end)[0])
    toks = [t for t in doc if s0 <= t.idx < a.start]  # type: ignore[attr-defined]
    after = [t for t in doc if t.idx >= a.end]  # type: ignore[attr-defined]
    end = a.end
    # a person is no other thing: a rule on people holds for every role ("the camera operator, who was 10 m
    # away" for "no crew member may be closer than 15 m"), whatever words name it
    thing = any(t.pos_ in ("NOUN", "PROPN") and wordnet.is_a(t.lemma_.lower(), "time_period") is not True
                for t in toks) and not any(t.pos_ == "NOUN" and wordnet.names_person(t.lemma_.lower()) is not False
                                           or t.lower_ in ("who", "whom") for t in toks)
    if after and (after[0].pos_ == "NOUN" and any(a.start <= c.idx < a.end for c in after[0].children)
                  or after[0].pos_ in ("NOUN", "PROPN") and after[0].idx <= a.end + 1):
        toks.append(after[0])  # "a 31 °C afternoon"
        thing, end = True, after[0].idx + len(after[0].text)
        after = after[1:]
    if after and after[0].lower_ in _TRAILING_PREPS:
        for t in after:
            if t.is_punct or t.pos_ in ("VERB", "AUX", "CCONJ", "SCONJ"):
                break
            toks.append(t)
            end = t.idx + len(t.text)
    words = {word_key(t.lower_) for t in toks if t.pos_ in _THING_POS | {"VERB"} and not t.is_stop and t.is_alpha}
    return words, thing, end


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
        words, thing, prev_end = _said_of(claim, doc, a, prev_end)
        named = bool(words & rule)
        if a.start <= start < a.end:
            target = (named, thing)
        if named and _outside(a, band):
            return False  # an amount said of the rule's thing breaks it: that is for review
        keeps = keeps or named and not _outside(a, band)
    return target is not None and not target[0] and target[1] and keeps
