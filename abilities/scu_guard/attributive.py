"""Amount words that only describe a noun.

A duration said by a word rather than a number ("overnight", "tomorrow") can stand before a noun as an
adjective: "registered overnight guests", "an overnight bag", "overnight parking". There it names a kind of
guest, bag or parking, not how long anything lasts, so neither a rule nor a claim states an amount by it.
"""

from __future__ import annotations

from typing import Any

from abilities.scu_guard import measure
from abilities.scu_guard.nlp import parse


def describes_noun(doc: Any, a: measure.Amount) -> bool:
    """Is ``a`` a number-less amount word that modifies a noun ("overnight guests")?"""
    if a.period or any(ch.isdigit() for ch in a.text):
        return False  # "a monthly inspection", "a 30-day hold": how often or how long, said of the event
    toks = [t for t in doc if a.start <= t.idx < a.end]
    return len(toks) == 1 and toks[0].dep_ in ("amod", "compound") and toks[0].head.pos_ in ("NOUN", "PROPN") \
        and toks[0].head.i > toks[0].i


def stated_amounts(text: str) -> list[measure.Amount]:
    """The amounts of ``text`` less the words that only describe a noun."""
    found = measure.find_amounts(text)
    if not any(not any(ch.isdigit() for ch in a.text) for a in found):
        return found  # no parse needed: every amount has a number
    doc = parse(text)
    return [a for a in found if not describes_noun(doc, a)]
