"""scu_guard readings of the claim added in round 10: the order of two events told by the times the claim
gives each (``judge._timed_order``: two stretches of the claim, each with its own clock time, date or
"later", whatever the parser made of the clauses), and permission words that only describe a noun. Real
spaCy parses; sentences written for these tests, none is in the labelled sets."""

from __future__ import annotations

import pytest

from abilities.scu_guard.judge import read_clauses
from tests.scu_guard_support import OK, REJECT, verdict

LIFT = "The brake test must be completed before the first public ride of the day."
DRUG = "The patient's weight must be recorded before any sedative is given."
BOARD = "The harness check must be done before any climber leaves the platform."


@pytest.mark.parametrize(("rule", "claim", "want"), [
    # the second event told first, each with its own clock time (the parser reads one clause here)
    (LIFT, "On 4 June the first public ride left at 09:05, and the brake test was completed at 09:40.", REJECT),
    (LIFT, "On 4 June the brake test was completed at 08:40, and the first public ride left at 09:05.", OK),
    (BOARD, "On 3 May climbers left the platform at 10:20, and the harness check was done at 10:26.", REJECT),
    (BOARD, "On 3 May the harness check was done at 10:14, and climbers left the platform at 10:20.", OK),
    # the rule's first event told as later
    (DRUG, "The sedative was given at 11:02, and the patient's weight was recorded ten minutes later.", REJECT),
    (DRUG, "The patient's weight was recorded at 11:02, and the sedative was given ten minutes later.", OK),
    # one of the rule's events is not told: nothing to order
    (LIFT, "On 4 June the first public ride left at 09:05, and the kiosk opened at 09:40.", OK),
])
def test_the_times_of_two_events_order_them(rule: str, claim: str, want: tuple[str, str]) -> None:
    assert verdict([rule], claim) == want


def test_a_permission_word_that_describes_a_noun_grants_nothing() -> None:
    """"free-flight", "open day": the adjective names a kind of thing; "are free to" grants."""
    assert not any(c.permissive for c in read_clauses("The free-flight display ran at noon."))
    assert not any(c.permissive for c in read_clauses("It was an open day with an acceptable crowd."))
    assert any(c.permissive for c in read_clauses("Visitors are free to leave early."))
