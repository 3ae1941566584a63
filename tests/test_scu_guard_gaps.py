"""scu_guard: time and date arithmetic a claim states, read on real parses (spaCy, no mocks): gaps between
successive dates of one repeated event, start + duration against a window, a duration stated as "N minutes
later", "the Friday before". Each reading is tested with the contradicting wording and a kept wording beside
it. Sentences here are written for these tests; none is in the labelled sets."""

from __future__ import annotations

import pytest

from abilities.lock import lock_constraints
from abilities.scu_guard.check import run_checks
from abilities.scu_guard.combined import forms_for


def verdict(constraints: list[str], claim: str, chunks: dict[str, str] | None = None) -> str:
    """The verdict of the whole check pipeline for a claim citing every chunk given."""
    chunks = chunks or {"c1": "Context."}
    lock = lock_constraints(constraints)
    answer = {"claim": claim, "citations": list(chunks), "constraints_echo": constraints}
    return run_checks(lock, list(chunks), answer, forms=forms_for(constraints)[0], chunk_texts=chunks).verdict


SEALS = ["The warden must check the boiler valves at least every 14 days."]


@pytest.mark.parametrize(("claim", "want"), [
    ("The warden checked the boiler valves on 1 July and next checked them on 19 July.", "REJECT"),
    ("The warden checked the boiler valves on 1 July and next checked them on 12 July.", "OK"),
    ("The boiler valves were checked on 3 May, 10 May and 29 May.", "REJECT"),
    ("The boiler valves were checked on 3 May, 10 May and 17 May.", "OK"),
    ("After the 4 June check, the next check of the boiler valves came on 25 June.", "REJECT"),
    ("The valves were checked on 2 February and looked at again on 28 February.", "REJECT"),
    ("The valves were checked on 2 February and looked at again on 9 February.", "OK"),
])
def test_gap_between_successive_dates_of_a_repeated_event(claim: str, want: str) -> None:
    assert verdict(SEALS, claim) == want


@pytest.mark.parametrize("claim", [
    # dates of several things, alternatives, a range: no succession of one event
    "The east valve was checked on 1 July and the west valve on 19 July, respectively.",
    "The boiler valves will be checked on 1 July or 19 July.",
    "The boiler valves were delivered on 1 July and first checked on 29 July.",
])
def test_dates_that_are_not_one_event_repeated_are_no_gap(claim: str) -> None:
    assert verdict(SEALS, claim) == "OK"


def test_a_sequence_without_years_runs_forward_and_borrows_a_later_year() -> None:
    rule = ["Each kiln must be serviced at least every 45 days."]
    assert verdict(rule, "Kiln 4 was serviced on 2 January and again on 15 March 2024.") == "REJECT"
    assert verdict(rule, "Kiln 4 was serviced on 20 December and again on 10 January.") == "OK"
    assert verdict(rule, "Kiln 4 was serviced on 1 December and again on 20 February.") == "REJECT"


HAUL = ["Chrome shavings must be collected by a licensed hauler no later than 30 days after they are bagged."]


@pytest.mark.parametrize(("claim", "want"), [
    ("The S-4 shavings, bagged on 2 May, stayed in the yard until the hauler collected them on 6 June.", "REJECT"),
    ("The S-4 shavings, bagged on 2 May, stayed in the yard until the hauler collected them on 28 May.", "OK"),
])
def test_the_claim_restating_the_reference_date_is_measured_by_its_other_date(claim: str, want: str) -> None:
    assert verdict(HAUL, claim, {"c1": "Waste yard: chrome shavings lot S-4 bagged 2 May."}) == want


NOTICE = ["Repair notices must be issued within 3 business days of the inspection."]


@pytest.mark.parametrize(("claim", "want"), [
    ("The notice for the 5 June inspection went out on Wednesday 11 June.", "REJECT"),
    ("The notice for the 5 June inspection went out on Tuesday 10 June.", "OK"),
])
def test_business_days_count_on_the_weekday_the_claim_names(claim: str, want: str) -> None:
    # no year anywhere: "Tuesday 10 June" puts the days on their weekdays (5 June a Thursday)
    assert verdict(NOTICE, claim, {"c1": "Inspection of unit 4: Thursday 5 June."}) == want


BOOKING = ["Group bookings must be confirmed at least 2 business days before the tour date."]


@pytest.mark.parametrize(("claim", "want"), [
    ("The Ridgeway group's tour for Monday 9 September 2024 was confirmed on the Friday before.", "REJECT"),
    ("The Ridgeway group's tour for Monday 9 September 2024 was confirmed on the Thursday before.", "OK"),
])
def test_the_weekday_before_a_date(claim: str, want: str) -> None:
    chunks = {"c1": "Booking RG-2: group tour, tour date Mon 9 Sep 2024."}
    assert verdict(BOOKING, claim, chunks) == want


SAW = ["The power press may be run only between 08:00 and 19:00."]


@pytest.mark.parametrize(("claim", "want"), [
    ("The power press was started at 18:20 and ran for fifty minutes.", "REJECT"),
    ("The power press was started at 18:00 and ran for fifty minutes.", "OK"),
    ("The power press was switched on at 18:30 and ran for forty-five minutes.", "REJECT"),
    ("The power press was switched on at 18:10 and ran for forty-five minutes.", "OK"),
])
def test_a_start_and_a_duration_end_inside_the_forbidden_window(claim: str, want: str) -> None:
    assert verdict(SAW, claim) == want


def test_a_duration_of_another_event_does_not_extend_the_rule_s_event() -> None:
    claim = "The power press was started at 18:20 and the crew rested for fifty minutes."
    assert verdict(SAW, claim) == "OK"


DEPOT = ["No bus may leave the depot before 04:30."]


@pytest.mark.parametrize(("claim", "want"), [
    ("Bus 12 left the depot ten minutes before half past four.", "REJECT"),
    ("Bus 12 left the depot ten minutes after half past four.", "OK"),
])
def test_a_time_placed_by_a_duration_before_or_after_a_clock_time(claim: str, want: str) -> None:
    assert verdict(DEPOT, claim) == want
