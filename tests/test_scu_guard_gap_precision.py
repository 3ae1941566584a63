"""scu_guard: a gap between two times the claim gives is a sure contradiction only where it can measure the
rule's own bound. Read on real parses (spaCy, no mocks); each wording that was wrongly rejected is tested beside
a contradicting wording that is still rejected. Sentences here are written for these tests; none is in the
labelled sets."""

from __future__ import annotations

import pytest

from tests.scu_guard_support import OK, REJECT, REVIEW, verdict

REPORTS = ["Incident reports must be filed within 3 business days of the incident."]


@pytest.mark.parametrize(("claim", "want"), [
    # Thursday 5 March 2026 .. Tuesday 10 March: 3 business days, though 5 calendar days
    ("The incident happened on Thursday 5 March 2026 and the report was filed on Tuesday 10 March.", OK),
    ("The incident happened on Thursday 5 March 2026 and the report was filed on Friday 13 March.", REJECT),
])
def test_business_days_between_two_claim_dates(claim: str, want: tuple[str, str]) -> None:
    assert verdict(REPORTS, claim) == want


OVENS = ["The kiln must be relined at least once every four months."]


@pytest.mark.parametrize(("claim", "want"), [
    # the date after "following" is the earlier one: 9 February .. 28 April is under four months
    ("The kiln was last relined on 28 April, following its 9 February relining.", OK),
    ("The kiln was relined on 9 February and next relined on 30 August.", REJECT),
])
def test_following_puts_its_date_first(claim: str, want: tuple[str, str]) -> None:
    assert verdict(OVENS, claim) == want


CLAIMS = ["Insurance claims must be settled within 30 days of the damage report."]


@pytest.mark.parametrize(("claim", "want"), [
    # dates of one repeated event: its period, neither end of the rule's gap
    ("The premiums are reviewed twice a year, in March and September.", OK),
    ("The fire drill is held every October - most recently on 6 October 2025, the one before on 7 October 2024.",
     OK),
    # the rule's own two events, dated by the claim
    ("The damage report came in on 2 March 2026 and the claim was settled on 20 May 2026.", REJECT),
])
def test_dates_of_one_repeated_event(claim: str, want: tuple[str, str]) -> None:
    assert verdict(CLAIMS, claim) == want


INVOICES = ["Invoices must be sent within 5 business days of a job's final visit."]


@pytest.mark.parametrize(("claim", "want"), [
    # from the rule's reference to another thing's event: a guess, not a reading
    ("The client's old drawings were archived on 3 August 2026, after their final visit on 2 June 2026.", REVIEW),
    ("The invoice was sent on 3 August 2026, after the job's final visit on 2 June 2026.", REJECT),
])
def test_gap_from_the_reference_to_another_event(claim: str, want: tuple[str, str]) -> None:
    assert verdict(INVOICES, claim) == want


@pytest.mark.parametrize(("rules", "claim", "want"), [
    # a time word, not a length: "overnight" says when
    (["Boats may be moored overnight only at the north jetty."],
     "The boat left the slipway at 06:10 and the first tour set off at 09:30.", REVIEW),
    # a total over a period: one session's length says nothing of the month's
    (["Every coach must complete at least 3 hours of safeguarding training each calendar month."],
     "The junior session ran from 10:00 to 11:00 with a coach on each court.", REVIEW),
    # an exact lead to another event, its direction unsaid: 40 minutes before keeps "closes 20 minutes before"
    (["Boarding closes 20 minutes before scheduled departure."],
     "The van checked in at 09:20 for the 10:00 departure.", REVIEW),
    # a length between events, stated with a direction, is still measured
    (["Each rest break must last at least 9 hours."], "The rest break lasted from 13:00 to 17:00.", REJECT),
])
def test_bounds_that_are_no_length_between_events(rules: list[str], claim: str, want: tuple[str, str]) -> None:
    assert verdict(rules, claim) == want
