"""Gaps between occurrences of a repeated event a deadline rule does not name.

A deadline ("must be reported within 2 working days", "within 2 hours of its discovery") bounds the time
from one event to the duty it sets: two different events. A claim that dates one repeated event of its own
("calibrated the balance again on 3 June", "topped on 2, 14 and 27 March", "every twelve days from 1 March")
gives gaps between occurrences of that event, and the typed reading may measure them against any rule of
time, by dimension alone. When the claim tells its dates as one event's repeats and names nothing of the
deadline rule (its event, its duty, whom it binds or whom it tells), the gap is another event's interval:
no evidence against the deadline and no reason for review. Two different events told in a row ("cut his
shin on Wednesday, and we emailed the insurer the following Tuesday") are no repeats: such a gap may be the
deadline's, told in other words, and stays for review.
"""

from __future__ import annotations

import re

from abilities.scu_guard import measure
from abilities.scu_guard.bare_days import with_bare_days
from abilities.scu_guard.forms import GENERIC, Form
from abilities.scu_guard.lexicon import GENERIC as LEX_GENERIC
from abilities.scu_guard.nlp import light_keys
from abilities.scu_guard.recurrence import listed_dates, without_weekdays

# the bound of a deadline: a time counted up to a limit from an event ("within 3 working days")
_WITHIN_RE = re.compile(r"\bwithin\s+$", re.I)
# between two dates (or two times) of one event told again: a list ("1 June, 29 June and 27 July", "on the 3rd
# and on the 10th") or the event's own word for a repeat ("again", "its next check"); "then", "following" and
# "the next day" also join two different events ("cut on Monday, then reported on Friday", "signed on 27
# February and posted the next day") and are left out
_REPEAT_JOINT_RE = re.compile(
    r"^[\s,]*(?:and\s+)?(?:on\s+|at\s+)?(?:the\s+)?$|\bagain\b|"
    r"\bnext\b(?!\s+(?:day|morning|afternoon|evening|night|week|weekend|month|year|time)\b)", re.I)


def is_deadline(form: Form) -> bool:
    """Is the rule's bound a deadline: an upper bound of time, not a period, said "within" or counted from a
    named event? A duration ("a session must last no longer than 45 minutes") is not one: a claim may time
    that very thing without naming it."""
    band = form.quantity
    if band is None or band.dimension != "[time]" or band.period or band.high is None or band.low is not None:
        return False
    if band.reference:
        return True
    at = form.text.find(band.text) if band.text else -1
    return at > 0 and bool(_WITHIN_RE.search(form.text[:at]))


def _rule_words(form: Form) -> set[str]:
    """Keys of the rule's content words less those of its bound ("3 working days") and generic words."""
    band = form.quantity
    bound = light_keys(band.text) if band is not None and band.text else frozenset()
    return set(light_keys(form.text)) - bound - GENERIC - LEX_GENERIC


def _shares(words: set[str], present: frozenset[str]) -> bool:
    """Does any word meet a present word, or its derivation by a shared stem of five letters or more
    ("report"/"reporting", "inspect"/"inspection")? Loose on purpose: any hint of the rule keeps the finding."""
    return any(w in present or any(len(w) >= 5 and len(p) >= 5 and w[:5] == p[:5] for p in present)
               for w in words)


def tells_repeats(claim: str) -> bool:
    """Does the claim tell one event more than once: a period of its own ("every twelve days", "fortnightly"),
    or two successive dates or times joined as a list or by "again"/"next" (weekday names aside)?"""
    if any(a.period for a in measure.find_amounts(claim)):
        return True
    days = [(d.start, d.end) for d in with_bare_days(claim, listed_dates(claim, measure.find_dates(claim)))]
    clocks = [(c.start, c.end) for c in measure.find_clock_times(claim)]
    # dates with dates, times with times: "at 07:55 on 3 September" is one moment, not two
    return any(_REPEAT_JOINT_RE.search(without_weekdays(claim[a_end:b_start]))
               for marks in (sorted(days), sorted(clocks))
               for (_, a_end), (b_start, _) in zip(marks, marks[1:], strict=False) if a_end <= b_start)


def unnamed_deadline_gap(form: Form, claim: str) -> bool:
    """Is a gap finding on this rule one between repeats of another event: the rule is a deadline, the claim
    tells its event more than once and shares none of the rule's content words? Then the claim's dates or
    times measure the interval of something the rule does not bound."""
    if not is_deadline(form):
        return False
    words = _rule_words(form)
    return bool(words) and not _shares(words, light_keys(claim)) and tells_repeats(claim)
