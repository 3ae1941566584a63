"""Round 17: two ways a claim names what a prohibition forbids without asserting it (word-level forbid reading).

A permission granted on the very event the rule's "until" clause waits for ("may fly again once the flight
surgeon signed her off in writing") agrees with the rule; so does a claim that names the forbidden thing only under
a "non-" / "un-" prefix ("given non-supervisory positions" for "not placed in supervisory positions"). The breaks
beside them stay rejected.
"""

from __future__ import annotations

import pytest

from tests.scu_guard_support import OK, REJECT, verdict_beside

PILOT = "A pilot who has reported fatigue does not fly again until the flight surgeon has signed them off in writing."
INTERNS = "Interns don't access the production database until their supervisor has approved the request."
TRAINEES = "Trainees are not placed in supervisory positions; clerical and technical posts are open to them."
VOLUNTEERS = "Volunteers are not put in paid roles; unpaid and advisory roles are open to them."


@pytest.mark.parametrize(
    ("rule", "claim", "want"),
    [
        # released by the event the rule waits for
        (PILOT, "Ana was told she may fly again once the flight surgeon signed her off in writing; she flew the "
                "next day.", OK),
        (INTERNS, "Interns may access the production database before their supervisor approved the request.",
         REJECT),
        # the banned word only under a denying prefix
        (TRAINEES, "The trainees were given non-supervisory positions: filing and data entry.", OK),
        (TRAINEES, "The trainees were given supervisory positions on the night desk.", REJECT),
        (VOLUNTEERS, "The volunteers were given non-paid roles at the front desk.", OK),
        (VOLUNTEERS, "The volunteers were given paid roles at the front desk.", REJECT),
        ("Guests are not given smoking rooms.", "Guests were given smoking rooms on the fourth floor.", REJECT),
        ("Visitors are never given unescorted access to the vault.",
         "Visitors were given unescorted access to the vault.", REJECT),
    ],
)
def test_lifted_bans(rule: str, claim: str, want: tuple[str, str]) -> None:
    assert verdict_beside(rule, claim) == want


def test_release_after_the_awaited_event_is_no_longer_a_sure_break() -> None:
    claim = "Interns may access the production database after their supervisor approved the request."
    assert verdict_beside(INTERNS, claim) != REJECT
