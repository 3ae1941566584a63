"""The contradiction decision: the typed forms (grammar, units, dates) and the lexicon detector together.

Why two: the typed reading checks what it understood exactly (numbers with units, periods,
business days, windows, order of events), and the lexicon detector still covers wording the forms
do not reach. Typed findings stand; a lexicon finding stands too, unless the typed reading measured
that constraint against the claim (an amount of its dimension, a time or date for its window, both
of its events) and found it kept: there the two disagree, and the finding is ``suspected``,
reported apart, not rejected. Where the claim names exactly the doer a rule reserves the action for
("Priya, a licensed operator"), that positive evidence settles it and a lexicon guess is dropped.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from abilities.scu_guard.detect import Finding, find_contradictions
from abilities.scu_guard.forms import Form, understand
from abilities.scu_guard.judge import assess


@lru_cache(maxsize=4096)
def understood(constraint: str) -> Form | None:
    """The typed form of a constraint, parsed once (cached by text)."""
    return understand(constraint)


def forms_for(constraints: Sequence[str], given: Sequence[Form] = ()) -> tuple[list[Form], list[str]]:
    """(forms, unparsed constraints): a client's typed form replaces the parsed one for its text."""
    by_text = {f.text: f for f in given}
    forms, unparsed = [], []
    for c in constraints:
        f = by_text.get(c) or understood(c)
        if f is None:
            unparsed.append(c)
        else:
            forms.append(f)
    return forms, unparsed


def detect(claim: str, constraints: Sequence[str], forms: Sequence[Form],
           chunk_texts: Sequence[str] = ()) -> tuple[list[Finding], list[Finding]]:
    """(contradictions, suspected): typed findings plus lexicon findings they do not overrule."""
    typed, measured, kept = assess(claim, forms, chunk_texts)
    lexical = find_contradictions(claim, list(constraints))
    found: list[Finding] = []
    suspected: list[Finding] = []
    seen: set[str] = set()
    for f in typed:
        seen.add(f.constraint)
        found.append(f)
    for f in lexical:  # the lexicon alone where the typed reading measured the claim and found it kept
        if f.constraint in seen or f.constraint in kept:
            continue  # kept: the reserved doer named with its qualifier is positive evidence
        seen.add(f.constraint)
        (suspected if f.constraint in measured else found).append(f)
    return found, suspected
