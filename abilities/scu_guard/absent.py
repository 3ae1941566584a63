"""A minimum of a required thing broken by the thing's absence.

"Live phone-ins must run on a delay of at least 7 seconds" is broken by "went out live with no delay at all":
no delay is a delay of zero, under any positive minimum. A maximum ("a delay of no more than 5 seconds") is
kept by the same claim, and a minimum of something else (a period, a time before another event) says nothing
of the thing's absence, so only a plain lower bound told of the noun itself ("a delay of at least ...") counts.
"""
from __future__ import annotations

from typing import Any

from abilities.scu_guard.forms import Form
from abilities.scu_guard.nlp import key, parse

# the words that deny a thing outright where the claim names it: "no delay", "without (any) delay"
_ABSENT_DETS = frozenset({"no"})
_WITHOUT = frozenset({"without"})


def _measured_nouns(form: Form) -> frozenset[str]:
    """Keys of the rule's nouns its minimum measures: "delay" in "on a delay of at least 7 seconds"."""
    q = form.quantity
    if q is None:
        return frozenset()
    doc = parse(form.text)
    at = form.text.find(q.text)
    if at < 0:
        return frozenset()
    out = set()
    for t in doc:
        if t.pos_ != "NOUN" or t.i + 1 >= len(doc) or doc[t.i + 1].lower_ != "of":
            continue
        of = doc[t.i + 1]
        if any(x.idx <= at < x.idx + len(x.text) for x in of.subtree) and key(t) in form.object:
            out.add(key(t))
    return frozenset(out)


def minimum_absent(form: Form, doc: Any, start: int, end: int) -> bool:
    """Does the stretch (``start``..``end`` of the claim ``doc``) deny outright the thing a plain minimum of
    the rule measures ("with no stream delay", "without any delay")?"""
    q = form.quantity
    if q is None or q.low is None or q.low <= 0 or q.high is not None or q.period or q.reference:
        return False
    nouns = _measured_nouns(form)
    if not nouns:
        return False
    for t in doc:
        if not (start <= t.idx < end) or key(t) not in nouns or t.sent.text.rstrip().endswith("?"):
            continue
        if any(c.dep_ == "det" and c.lower_ in _ABSENT_DETS for c in t.children):
            return True
        if t.dep_ == "pobj" and t.head.lower_ in _WITHOUT:
            return True
    return False
