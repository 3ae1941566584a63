"""Amounts a claim states in more than one piece: a count continued by "another 51", read whole.

Why its own reading: once a ceiling is read with its direction ("must not exceed the auditorium's 1,450
seats"), "sold 1,412 seats online and another 51 over the counter" states no single count above it; the
sum of the two does. Such a sum is a guess about what the parts have in common (one performance, one
day), so it is never sure: it is REVIEW, never a REJECT on its own. Pure functions over the cached parse.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from abilities.scu_guard import measure
from abilities.scu_guard.detect import Finding
from abilities.scu_guard.forms import Form
from abilities.scu_guard.nlp import key, parse

if TYPE_CHECKING:
    from abilities.scu_guard.judge import Claim

# "another 51", "a further 12", "an additional 3": more of what was counted just before, with no noun of its own
_MORE_BEFORE_RE = re.compile(r"\b(?:another|a further|an additional|an extra)\s*$", re.I)


def check_count_additions(forms: Sequence[Form], claim: Claim) -> list[Finding]:
    """A count of the rule's things continued in the same sentence by "another N" with no noun of its own,
    the sum above the rule's ceiling: suspected only (the parts may be of different events)."""
    from abilities.scu_guard.judge import _clause_at, _counted_noun, _finding, sentence_span

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

