"""scu_guard: misreadings behind false REJECTs on the sets sealed during round 11, fixed in general after
their first run. Real spaCy parses; sentences written for these tests."""

from __future__ import annotations

from abilities.scu_guard.forms import understand
from tests.scu_guard_support import OK, REJECT, verdict

HARNESS = "Harnesses must be retired after 10 years in service or immediately after arresting a fall."
PERMIT = "A hot-work permit is valid for 8 hours from issue; no hot work may be done on an expired permit."
KICKOFF = "No match may start after 20:15."
ESCORT = "Every visitor under 14 must be escorted by a parent or guardian."


def test_end_of_service_and_validity_are_longest_lengths() -> None:
    """ "retired after 10 years in service", "valid for 8 hours": how long a thing may last, at most."""
    retire = understand(HARNESS).quantity
    valid = understand(PERMIT).quantity
    assert retire is not None and retire.high is not None and retire.low is None
    assert valid is not None and valid.high is not None and valid.low is None


def test_a_denied_occasion_is_no_dropped_duty() -> None:
    """ "with no falls arrested" denies what sets the duty off, not the duty; the length decides."""
    assert verdict([HARNESS], "Harness H-7 had been in service for nine years, with no falls arrested, "
                              "when it was used on Friday.") == OK
    assert verdict([HARNESS], "Harness H-7 had been in service for twelve years when it was used on Friday.") \
        == REJECT


def test_times_of_the_rules_own_verb() -> None:
    """ "started at 20:05 and ended at 21:50": only the starting time speaks of the rule."""
    assert verdict([KICKOFF], "The last match started at 20:05 and ended at 21:50.") != REJECT
    assert verdict([KICKOFF], "The last match started at 20:40 and ended at 22:20.") == REJECT


def test_a_doer_said_to_hold_the_reserved_role() -> None:
    """ "his aunt Rosa, who is his legal guardian" is a guardian; "who is not his guardian" is not."""
    assert verdict([ESCORT], "Twelve-year-old Leo was escorted all afternoon by his aunt Rosa, who is his legal "
                             "guardian.") == OK
    assert verdict([ESCORT], "Twelve-year-old Leo was escorted all afternoon by his aunt Rosa, who is not his "
                             "guardian.") != OK
