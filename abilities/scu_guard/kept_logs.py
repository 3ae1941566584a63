"""A claim that an interval was kept, against the cited log of that very event.

Why: a rule sets the longest time between two occurrences of an event ("Every overflow weir must be inspected
at least every 14 days"); the claim says the interval was kept ("Weir W-3 has been inspected within the required
interval right through March") and cites the log ("Weir W-3 inspection log: 1 March, 13 March, 29 March, 10
April"). The claim gives no date of its own, so no gap can be read from it; but it vouches for the log, and the
log's own successive dates leave a gap longer than the rule allows (13 to 29 March, 16 days). The claim then
states what the record it cites refutes.

Sure only where every link is plain: the claim asserts the interval or frequency was kept (not denied, not a
plan); the log entry names a thing the claim names (its code: "W-3", "Hood 2", "console 3") or, with none,
shares two of the rule's words for its event; the entry lists two or more dates; and one gap between successive
dates exceeds the rule's period however the dates are read (a month alone counts from its last day).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from abilities.scu_guard import measure
from abilities.scu_guard.forms import GENERIC, Form
from abilities.scu_guard.nlp import light_keys

# the claim says the interval was kept: "within the required interval", "kept to its required interval", "kept
# pace with the required interval", "has kept to the required frequency"
_KEPT_RE = re.compile(r"\b(?:within|kept to|kept pace with|kept up with|stayed within|in line with|met)\s+(?:the\s+|its\s+|their\s+)?"
                      r"(?:[\w-]+\s+){0,3}(?:interval|frequency|schedule)\b", re.I)
# a denial, a doubt or a lapse the claim admits: then it does not vouch for the log
_NOT_KEPT_RE = re.compile(r"\b(?:not|n't|never|no|except|apart from|but|missed|lapsed|overdue|late|behind|until|"
                          r"will|would|should|plan(?:ned|s)?|aim|expect(?:ed|s)?)\b", re.I)
_ENTRY_SPLIT_RE = re.compile(r"(?<=[.;])\s+(?=[A-Z])")


def kept_claim(claim: str) -> re.Match[str] | None:
    """Where the claim says the rule's interval was kept, when it says so plainly."""
    m = _KEPT_RE.search(claim)
    if m is None or _NOT_KEPT_RE.search(claim):
        return None
    return m


def _log_entry(form: Form, claim: str, chunk_texts: Sequence[str],
               entities: Callable[[str], set[str]]) -> str | None:
    """The one cited entry that is the log of the rule's event for the claim's thing."""
    names = {n for n in entities(claim) if re.search(r"\d", n) or len(n.split()) >= 2}
    words = (set(form.action) | set(form.subject) | set(form.object)) - GENERIC
    found = []
    for text in chunk_texts:
        for part in _ENTRY_SPLIT_RE.split(text):
            if len(measure.find_dates(part)) < 2:
                continue
            named = names & entities(part)
            shared = words & set(light_keys(part)) & set(light_keys(claim))
            if named or (not names and len(shared) >= 2):
                found.append(part)
    return found[0] if len(found) == 1 else None


def log_lapse(form: Form, claim: str, chunk_texts: Sequence[str],
              entities: Callable[[str], set[str]]) -> tuple[float, int, int] | None:
    """(longest gap in seconds, start, end of the claim's words that vouch for the interval) when the claim says
    the rule's interval was kept and the cited log of that event leaves a longer gap; else None."""
    band = form.quantity
    if band is None or not band.period or band.dimension != "[time]" or band.high is None or band.low is not None:
        return None
    m = kept_claim(claim)
    if m is None:
        return None
    entry = _log_entry(form, claim, chunk_texts, entities)
    if entry is None:
        return None
    years = [int(y) for y in re.findall(r"\b((?:19|20)\d\d)\b", " ".join(chunk_texts))]
    dates = measure.find_dates(entry, years[0] if years else 2000)
    if len(dates) < 2:
        return None
    days = sorted((d.first, d.last) for d in dates)
    worst = max(b_first - a_last for (_, a_last), (b_first, _) in zip(days, days[1:], strict=False))
    gap = worst * 86400.0
    return (gap, m.start(), m.end()) if gap > band.high + 1e-9 else None
