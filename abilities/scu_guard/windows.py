"""Whether a rule's length of time is the window a count is bounded over, not a bound on a length of time.

Why: "A guide may lead at most 3 tours in a single day" and "No more than 2 rounds may be scheduled on any
one day" bound a number of events; "a single day" is the stretch they are counted in. Read as the rule's
amount, the day becomes a bound on how long something lasts or how far apart two events are, and any two
times the claim gives ("the 14:00 tour", "paid at 09:20") are measured against it. English marks the window
by a preposition of extent before the period ("in", "on", "per", "during", "within", "over") with a
determiner of one ("a", "one", "any one", "a single", "each", "every", "the same") and a count of things or
of times in the same rule ("at most 3 tours", "more than twice"). Pure function over the rule's text.
"""

from __future__ import annotations

import re
from functools import lru_cache

from abilities.scu_guard import measure
from abilities.scu_guard.forms import Form

_NUMBER_WORDS = "|".join(sorted((w for w in measure.NUMBER_WORDS if " " not in w), key=len, reverse=True))
# the window: "in a single day", "on any one day", "per shift", "during each week", "in any 24-hour period"
_WINDOW_RE = re.compile(r"\b(?:in|on|per|during|within|over|for)\s+(?:(?:any|each|every|a|one|the same)\s+)?"
                        r"(?:(?:single|one|given|calendar|working|rolling)\s+)?(?:(?:\d+|" + _NUMBER_WORDS +
                        r")[- ])?(?:minute|hour|day|night|shift|week|fortnight|month|year|season)s?"
                        r"(?:\s+(?:period|window))?\b", re.I)
# a count the rule bounds: "at most 3 tours", "no more than 2 rounds", "more than twice", "up to four lifts"
_COUNT_RE = re.compile(r"\b(?:at most|at least|no more than|not more than|more than|fewer than|less than|up to|"
                       r"maximum of|minimum of|exceed)\s+(?:(?:\d+|" + _NUMBER_WORDS + r")\s+(?:[a-z-]+\s+)?"
                       r"(?!(?:second|minute|hour|day|night|week|fortnight|month|year)s?\b)[a-z-]+s\b|once|twice|"
                       r"thrice|(?:\d+|" + _NUMBER_WORDS + r")\s+times)", re.I)


@lru_cache(maxsize=2048)
def _window_text(text: str, band_text: str) -> bool:
    at = text.find(band_text)
    if at < 0 or not _COUNT_RE.search(text):
        return False
    return any(m.start() <= at < m.end() for m in _WINDOW_RE.finditer(text))


def count_window(form: Form) -> bool:
    """Is the rule's time band the window its count is taken over (see the module docstring)?"""
    band = form.quantity
    return bool(band is not None and band.dimension == "[time]" and band.text and
                _window_text(form.text, band.text))
