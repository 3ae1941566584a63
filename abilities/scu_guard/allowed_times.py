"""A time of day the word-level reading flags that the rule's own window allows ("'14:00' falls in a forbidden
time window" for "Public shows may not start before 10:00").

Why: the word-level reading of windows flags a time it cannot place against the rule's band (a start, an end, a
time told of another event), and where the typed reading measured the claim's times for the same rule and found
them kept, the finding was held for review. A time the typed window itself allows cannot break that window,
whatever event it is told of: the flagged time, read as a clock, falls outside every forbidden minute of the
rule's window. A time inside the window, or one that cannot be read as a clock, keeps the doubt.
"""

from __future__ import annotations

import re

from abilities.scu_guard.forms import Form
from abilities.scu_guard.judge import _in_clock
from abilities.scu_guard.measure import find_clock_times

_QUOTED_RE = re.compile(r"'([^']{1,60})'")


def flagged_time_allowed(form: Form, detail: str) -> bool:
    """Does every clock time the word-level finding quotes in ``detail`` lie outside the rule's forbidden clock
    window? False for a rule without a clock window, or a detail that quotes no time."""
    w = form.window
    m = _QUOTED_RE.search(detail)
    if w is None or w.kind != "clock" or m is None:
        return False
    clocks = find_clock_times(m.group(1))
    if not clocks:
        return False
    return not any(_in_clock(w.start, w.end, c.minutes, end_point=c.role == "until") for c in clocks)
