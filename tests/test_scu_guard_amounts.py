"""Amounts read whole (compound fractions, mixed units), bounds read with their direction past a holder,
counts continued by "another N", retention verbs, and durations kept by the rule that bounds them; real
spaCy parses, sentences of our own, each contradicting wording beside a kept one."""

from __future__ import annotations

import pytest

from abilities.scu_guard import measure
from tests.scu_guard_support import OK, REJECT, REVIEW, verdict


@pytest.mark.parametrize(("text", "seconds"), [
    ("The ferry crossing took three and three-quarter hours.", 13500.0),
    ("The ferry crossing took an hour and three quarters.", 6300.0),
    ("The ferry crossing took 2¾ hours.", 9900.0),
    ("The ferry crossing took two hours and twenty minutes.", 8400.0),
    ("The ferry crossing took 1 h 5 min.", 3900.0),
])
def test_compound_durations_are_one_amount(text: str, seconds: float) -> None:
    found = [a for a in measure.find_amounts(text) if a.dim == "[time]"]
    assert [(a.lo, a.hi) for a in found] == [(seconds, seconds)]


def test_separate_amounts_stay_apart() -> None:
    # a larger second part, a "fraction of" something else, and a comma list are not one amount
    assert len(measure.find_amounts("The pump ran 1 hour and 90 minutes.")) == 2
    # (the "third of the fuel" is a share of its own, no part of the hour)
    assert [a.text for a in measure.find_amounts("It took an hour and a third of the fuel.")
            if a.dim == "[time]"] == ["an hour"]
    assert len(measure.find_amounts("Drive within 3 hours, 20 minutes after loading.")) == 2


FERRY = ["A ferry crossing must not last longer than 3 hours.", "Deck crew must wear life jackets on deck."]


def test_compound_fraction_breaks_and_keeps_a_duration() -> None:
    assert verdict(FERRY, "The ferry crossing lasted three and three-quarter hours.") == REJECT
    assert verdict(FERRY, "The ferry crossing lasted two and three-quarter hours.") == OK


def test_mixed_units_break_and_keep_a_duration() -> None:
    assert verdict(FERRY, "The ferry crossing lasted three hours and ten minutes.") == REJECT
    assert verdict(FERRY, "The ferry crossing lasted two hours and fifty minutes.") == OK


HALL = ["Admissions to any concert must not exceed the hall's 800 places.", "Food must not be taken into the hall."]


def test_bound_after_a_holder_is_a_ceiling() -> None:
    text = "must not exceed the hall's 800 places"
    assert measure.direction_info(text, text.find("800"), text.find("800") + 3)[0] == "max"
    # 750 admissions keep a ceiling of 800 (read as "exactly 800" it was a contradiction)
    assert verdict(HALL, "The Friday concert had 750 admissions.") == OK


def test_count_continued_by_another_is_only_suspected() -> None:
    assert verdict(HALL, "The Friday concert sold 790 places online and another 30 at the door.") == REVIEW
    assert verdict(HALL, "The Friday concert sold 700 places online and another 30 at the door.") == OK


RECORDS = ["Visitor logs must not be retained for more than 6 months.", "Visitors must sign in at reception."]


def test_retention_read_through_another_verb_of_keeping() -> None:
    assert verdict(RECORDS, "Visitor logs are held for a year before they are shredded.") == REJECT
    assert verdict(RECORDS, "Visitor logs are held for three months before they are shredded.") == OK


def test_holding_at_a_temperature_is_not_withholding() -> None:
    rules = ["Eggs from treated hens must be withheld for at least 7 days after the last dose.",
             "Eggs must be stored below 20 °C."]
    assert verdict(rules, "The eggs were held at 15 °C for 3 days.") != REJECT


CLINIC = ["Appointments must be booked at least 3 working days before the appointment date.",
          "A physiotherapy appointment must not last longer than 1 hour.",
          "Patients may have at most 4 appointments in any 30-day period."]


def test_duration_kept_by_the_rule_that_bounds_it() -> None:
    # the length of the appointment is what the second rule bounds; the booking lead time and the count
    # window do not measure it
    assert verdict(CLINIC, "The physiotherapy appointment ended after fifty minutes.") == OK
    assert verdict(CLINIC, "The physiotherapy appointment lasted one hour and twenty minutes.") == REJECT
