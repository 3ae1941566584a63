"""A duty the claim says was done ("Each of the five repairs taken in on Saturday was photographed by Sophie" beside
"Every customer repair must be photographed at drop-off").

Why: the word-level reading of prohibitions also reads a duty's own wording ("must be photographed at drop-off",
"before it leaves") as something forbidden, and matches a claim by the duty's words alone, so a claim that tells
the duty done waited for review. Where the typed reading understood the rule as a plain duty (no prohibition in it)
and a clause of the claim at the finding tells, as a plain fact, the duty's own verb done to the duty's own thing
(its subject, or its object where it has none), with no denial (also of a noun: "not the car"), undoing, permission or word of omission, the claim states the duty kept;
a time or an order the duty adds is the typed reading's to check, and it found nothing broken.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from abilities.scu_guard.forms import HAVE, Form
from abilities.scu_guard.judge import NEGATING, Clause
from abilities.scu_guard.negated_acts import OMISSION

_LIGHT = frozenset({HAVE})
# any denial in the clause, also one on a noun ("the damage form, not the car"): the duty may be the thing denied
_DENIAL_RE = re.compile(r"\b(?:not|never|no|nobody|none|nothing|neither|nor)\b|n't\b", re.I)


def tells_duty_done(form: Form, clauses: Sequence[Clause], start: int, end: int) -> bool:
    """Does a clause overlapping [start, end) tell the plain duty ``form`` done (see the module docstring)?"""
    if form.modality != "must" or not form.action or set(form.action) & (_LIGHT | NEGATING):
        return False
    if form.quantity or form.trigger or form.window or form.exclusion or form.agents or form.order:
        return False
    thing = set(form.subject) or set(form.object)  # the duty's bearer ("every customer repair"), else its thing
    if not thing:
        return False
    for c in clauses:
        if c.end <= start or c.start >= end:
            continue
        if c.negated or c.negverb or c.optional or c.permissive or c.denied or (c.keys | c.verbs) & OMISSION \
                or _DENIAL_RE.search(c.text):
            return False
        if set(form.action) & c.verbs and thing & c.keys:
            return True
    return False
