"""scu_guard: OK claims once rejected through a misreading, each kept, with a contradicting wording beside it
still rejected. Real spaCy parses; sentences written for these tests, none is in the labelled sets."""

from __future__ import annotations

import pytest

from abilities.scu_guard import measure
from tests.scu_guard_support import OK, REJECT, REVIEW, verdict

TODDLERS = "Children under 3 years of age are not allowed on the rope bridge."
ZIPLINE = "Children under 5 years old must never be taken onto the zip line."
SKIS = "Skis longer than 190 cm must not be loaded onto the gondola rack."
DOORS = "The sound check must be finished before the hall doors open."
SUNSCREEN = "Each swimmer's allergies must be checked before any sunscreen is applied."


def test_years_of_age_is_an_age() -> None:
    """ "3 years of age" is an age, so a rule's age condition is not met by a duration ("a fortnight")."""
    ages = [a for a in measure.find_amounts("a girl 2 years of age") if a.dim == "age"]
    assert [a.lo for a in ages] == [2.0]


@pytest.mark.parametrize("claim, expected", [
    ("A fortnight after the storm, on Monday 9 June, the rope bridge reopened to walkers.", OK),
    ("A 2-year-old was carried across the rope bridge on her father's back.", REJECT),
])
def test_age_rule_not_met_by_a_duration(claim: str, expected: tuple[str, str]) -> None:
    assert verdict([TODDLERS], claim) == expected


@pytest.mark.parametrize("claim, expected", [
    ("No child under five was taken onto the zip line on Sunday; the youngest rider was six, and a four-year-old "
     "brother waited at the picnic tables with his grandmother.", OK),
    ("A four-year-old brother was taken onto the zip line by his grandmother.", REJECT),
])
def test_rule_subject_denied_where_its_event_is_told(claim: str, expected: tuple[str, str]) -> None:
    assert verdict([ZIPLINE], claim) == expected


@pytest.mark.parametrize("claim, expected", [
    ("The 205 cm skis were kept off the gondola rack and carried up in the cabin.", OK),
    ("The 205 cm skis were loaded onto the gondola rack at the base station.", REJECT),
])
def test_forbidden_event_held_off(claim: str, expected: tuple[str, str]) -> None:
    assert verdict([SKIS], claim) == expected


@pytest.mark.parametrize("claim, expected", [
    ("Ushers kept the hall doors shut until 18:32, a minute after the sound check was finished.", OK),
    ("The hall doors opened at 18:20, ten minutes before the sound check was finished.", REJECT),
])
def test_state_held_until_a_point(claim: str, expected: tuple[str, str]) -> None:
    """A state held off "until" a point is the event done at that point, after what the sentence names."""
    assert verdict([DOORS], claim) == expected


def test_found_absent_is_no_skipped_step() -> None:
    """A denial inside "confirmed that ..." is what the check found, not the check left out (the word-level
    reading alone may still ask for a look; it cannot reject a rule the typed reading understood)."""
    kept = ("Having confirmed at 10:05 that the swimmer had no known sunscreen allergies, the lifeguard rubbed on "
            "the lotion a minute later.")
    assert verdict([SUNSCREEN], kept)[0] != "REJECT"
    assert verdict([SUNSCREEN], "The swimmer got sunscreen with no allergy check.") == REJECT


TRAM = "The brake test must be completed before a tram leaves the yard."


@pytest.mark.parametrize("claim, expected", [
    ("She walked round tram 12 and logged the brake test at 06:02, then drove out of the gate at 06:10.", OK),
    ("The tram left the yard at 06:00, and the brake test was completed at 06:15.", REJECT),
    ("Tram 12 pulled out of the yard at 06:00; the brake test was completed at 06:15.", REJECT),
])
def test_event_not_located_by_its_doer_in_another_role(claim: str, expected: tuple[str, str]) -> None:
    """The doer of the rule's second event names that event only as a subject, not as what someone walks round."""
    assert verdict([TRAM], claim) == expected


RACE = ["Race entries must be submitted no later than 14 days before the race date.",
        "Lap times must be entered in the team sheet within 2 business days of the session."]


@pytest.mark.parametrize("claim, expected", [
    ("The four runners were entered on Monday 3 August, two weeks and two days before the 19 August race.", OK),
    ("The four runners were entered on Monday 10 August, nine days before the 19 August race.", REJECT),
])
def test_lead_time_goes_to_the_rule_counted_from_the_named_event(claim: str, expected: tuple[str, str]) -> None:
    """Two rules tie on shared words; the amount told "before the race" belongs to the one counted back from it."""
    assert verdict(RACE, claim) == expected


CANOES = "Private canoe hires must be confirmed at least 2 business days before the trip date."


@pytest.mark.parametrize("claim, expected", [
    ("The last trip of Sunday went past the weir at 14:10 and spent three and a half hours on the water before "
     "coming back.", REVIEW),
    ("The private canoe hire was confirmed only three hours before the trip.", REJECT),
])
def test_duration_of_another_verb_is_no_lead_time(claim: str, expected: tuple[str, str]) -> None:
    """Hours spent on the water, under a clause that only goes somewhere, are no confirmation time: no REJECT."""
    assert verdict([CANOES], claim) == expected


RIDERS = "Paying riders may be carried only between 09:00 and 17:00."


@pytest.mark.parametrize("claim, expected", [
    ("The 18:40 run carried only three mechanics to pylon 2.", REVIEW),
    ("The 18:40 run carried twelve paying riders to the top station.", REJECT),
    ("At 18:40 the gondola carried a dozen riders up the hill.", REJECT),
])
def test_window_not_broken_by_the_verb_done_to_another_thing(claim: str, expected: tuple[str, str]) -> None:
    """Carrying mechanics is not carrying the riders the window is for (the word-level reading alone may still
    ask for a look)."""
    assert verdict([RIDERS], claim) == expected


HEATS = "Heat lists for each race must be posted at least 2 hours before the race starts."


@pytest.mark.parametrize("claim, expected", [
    ("Fifteen minutes after the heat 4 sheet went up, the starter corrected lane 6 because a swimmer had withdrawn.",
     OK),
    ("The heat lists for race 4 were posted only 30 minutes before the race started.", REJECT),
    ("The heat lists went up twenty minutes after the race started.", REJECT),
])
def test_time_after_another_event_is_no_lead_time(claim: str, expected: tuple[str, str]) -> None:
    """ "N minutes after the sheet went up" counts forward from the posting, not back from the race."""
    assert verdict([HEATS], claim) == expected
