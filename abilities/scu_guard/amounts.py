"""Amounts a claim states in pieces, and amounts a rule does not measure but another rule does.

Why its own reading: once a ceiling is read with its direction ("must not exceed the auditorium's 1,450
seats"), "sold 1,412 seats online and another 51 over the counter" states no single count above it; the
sum of the two does. Such a sum is a guess about what the parts have in common (one performance, one
day), so it is never sure: it is REVIEW, never a REJECT on its own.

Why a duration can be cleared: "The visit ended after one hour and fifty minutes" was REVIEW against
"Visits must be booked at least 2 working days before the visit date" (the duration belongs to another
event than booking) although the locked list also says "A social visit must not last longer than 2 hours",
which measures that very duration and is kept. The claim's own words then keep the rules. Pure functions
over the cached parse.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from abilities.scu_guard import measure
from abilities.scu_guard.detect import Finding
from abilities.scu_guard.evidence import read_whole
from abilities.scu_guard.forms import Form
from abilities.scu_guard.judge import (
    Claim,
    _clause_at,
    _counted_noun,
    _finding,
    _outside,
    _overlap,
    sentence_span,
)
from abilities.scu_guard.nlp import key, parse

# "another 51", "a further 12", "an additional 3": more of what was counted just before, with no noun of its own
_MORE_BEFORE_RE = re.compile(r"\b(?:another|a further|an additional|an extra)\s*$", re.I)


def check_count_additions(forms: Sequence[Form], claim: Claim) -> list[Finding]:
    """A count of the rule's things continued in the same sentence by "another N" with no noun of its own,
    the sum above the rule's ceiling: suspected only (the parts may be of different events)."""

    out: list[Finding] = []
    rules = [f for f in forms if f.quantity is not None and f.quantity.dimension.startswith("count:")
             and f.quantity.high is not None and f.quantity.low is None]
    if not rules:
        return out
    text = claim.text
    doc = parse(text)
    for f in rules:
        band = f.quantity
        assert band is not None and band.high is not None
        noun = band.dimension[6:]
        counted: list[tuple[int, float]] = []  # (token index, value) of counts of the rule's noun
        for t in doc:
            if not t.like_num or re.fullmatch(r"\d+[:.]\d+", t.text):
                continue
            n = measure._number(t.text)
            if n is None or _clause_at(claim.clauses, t.idx).negated:
                continue
            target = _counted_noun(doc, t)
            if target is not None and key(target) == noun:
                counted.append((t.i, n))
                continue
            nxt = doc[t.i + 1] if t.i + 1 < len(doc) else None
            if counted and _MORE_BEFORE_RE.search(text[max(0, t.idx - 16) : t.idx]) and (
                    nxt is None or nxt.pos_ not in ("NOUN", "PROPN", "ADJ", "NUM")):
                first_i, first_n = counted[-1]
                first = doc[first_i]
                if sentence_span(text, first.idx, first.idx) != sentence_span(text, t.idx, t.idx):
                    continue
                total = first_n + n
                if total > band.high:
                    out.append(_finding(f, claim, first.idx, t.idx + len(t.text), "numeric_bound",
                                        f"{first.text} and another {t.text} {noun} add up to {total:g}, outside "
                                        f"what {f.text!r} allows", sure=False, arbitrable=False, basis="count"))
                    break
    return out


# doubts that say the rule's amount does not measure what the claim's amount measures
OTHER_THING_DOUBTS = ("the claim's duration belongs to another event than the rule's",
                      "the rule's amount is the window a count is taken over, not its bound")


def kept_by_its_own_rule(form: Form, finding: Finding, claim: Claim, forms: Sequence[Form]) -> bool:
    """Is the claim's amount, which this rule does not measure (its duration belongs to another event, or the
    rule's amount is the window of a count), what another locked rule bounds, and kept there ("The visit ended
    after one hour and fifty minutes" against "Visits must be booked at least 2 working days before the visit
    date" beside "A social visit must not last longer than 2 hours")? That rule must be read whole, name no
    event it counts from and share the claim clause's words at least as much: the amount is then about the
    thing it bounds, and the claim keeps it."""

    hit = next(((a, c) for a, c in claim.amounts if a.start == finding.start and a.end == finding.end), None)
    if hit is None:
        return False
    a, clause = hit
    mine = _overlap(form, clause)
    for g in forms:
        q = g.quantity
        if g.text == form.text or q is None or g.trigger is not None or q.reference or q.dimension != a.dim \
                or q.period != a.period or (q.low is None and q.high is None):
            continue
        if not read_whole(g.text, g.modality, False) or _overlap(g, clause) < max(1, mine):
            continue
        if not _outside(a, q):
            return True
    return False
