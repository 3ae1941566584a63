"""scu_guard: misreadings behind false REJECTs on text the guard had not seen (round 11), each fixed in general
and tested with a contradicting wording beside it. Real spaCy parses; sentences written for these tests."""

from __future__ import annotations

import pytest

from abilities.scu_guard import measure
from abilities.scu_guard.forms import understand
from tests.scu_guard_support import OK, REJECT, REVIEW, verdict

CLEARANCE = "Nothing may be parked within 3 metres of the hydrant."
LAUNCHES = "No more than three launches may be made from the same slipway in one calendar day."
REPLIES = "Complaints must be answered within 2 business days of receipt."


def test_nothing_within_is_a_minimum_distance() -> None:
    """ "Nothing may be V-ed within N of X" forbids the near zone: the rule asks for at least N."""
    band = understand(CLEARANCE).quantity
    assert band is not None and band.low == 3.0 and band.high is None


@pytest.mark.parametrize("claim, expected", [
    ("The van was parked about 12 feet from the hydrant, well clear of it.", OK),
    ("The van was parked about 5 feet from the hydrant.", REJECT),
])
def test_clearance_from_a_thing(claim: str, expected: tuple[str, str]) -> None:
    assert verdict([CLEARANCE], claim) == expected


def test_the_window_of_a_count_is_no_amount() -> None:
    """ "in one calendar day" is what a count is taken over, not a length the rule bounds."""
    assert [a.text for a in measure.find_amounts(LAUNCHES)] == []
    band = understand(LAUNCHES).quantity
    assert band is not None and band.dimension == "count:launch" and band.high == 3.0
    assert [a.text for a in measure.find_amounts("Reports must be filed within one day of the fall.")] == ["one day"]


def test_count_per_day_not_a_duration() -> None:
    """A duration says nothing of a count per day; a count over the bound is still found (the day it is
    counted over is not matched to "Tuesday", so it is asked about rather than rejected)."""
    assert verdict([LAUNCHES], "The slipway's second launch of the day followed a six-hour wait for the tide.") == OK
    assert verdict([LAUNCHES], "Four launches were made from the east slipway on Tuesday.") == REVIEW


@pytest.mark.parametrize("claim, expected", [
    # Thu 24 Dec -> Tue 29 Dec is 3 working days on the calendar; with the holidays named, it may be 1
    ("The complaint received on Thursday 24 December 2026 was answered on Tuesday 29 December 2026, after "
     "the Christmas and Boxing Day holidays.", REVIEW),
    ("The complaint received on Thursday 24 December 2026 was answered on Tuesday 29 December 2026.", REJECT),
    # far past the bound whatever one holiday takes away
    ("The complaint received on Monday 2 November 2026 was answered on Friday 13 November 2026, after "
     "a bank holiday.", REJECT),
    # a denial of holidays names none
    ("The complaint received on Thursday 24 December 2026 was answered on Tuesday 29 December 2026; no "
     "holidays were observed that week.", REJECT),
])
def test_named_holidays_make_a_business_day_count_unsure(claim: str, expected: tuple[str, str]) -> None:
    assert verdict([REPLIES], claim) == expected


MATINEE = "Glass bottles must not be sold at matinee screenings."
CREW = "A boat crew may have no more than four rowers on the water at any one time."


def test_a_noun_told_apart_by_a_noun_modifier() -> None:
    """ "evening screening" is not a "matinee screening", even where the modifier's stem looks like a
    generic word ("evening" stems to "even")."""
    assert verdict([MATINEE], "Glass bottles were only sold at Saturday's 8 pm evening screening.") != REJECT
    assert verdict([MATINEE], "Glass bottles were sold at the evening screening on Friday.") != REJECT
    assert verdict([MATINEE], "Glass bottles were sold at Sunday's matinee screening.") == REJECT


def test_a_count_of_one_holder_needs_that_holder_named() -> None:
    """ "a boat crew may have at most four": eight rowers in all, with no crew named, may be two crews."""
    assert verdict([CREW], "All eight rowers signed the launch sheet before heading down to the water.") != REJECT
    assert verdict([CREW], "The boat crew had six rowers on the water at once during the morning outing.") == REJECT


SEEDS = "Seed lots must be dried at 15 °C or cooler before they are banked."


def test_or_cooler_after_an_amount_is_a_ceiling() -> None:
    """ "15 °C or cooler" bounds from above, "18 °C or warmer" from below, as "or less" / "or more" do."""
    assert understand(SEEDS).quantity.high is not None and understand(SEEDS).quantity.low is None
    warm = understand("The incubator must be held at 30 °C or warmer.").quantity
    assert warm is not None and warm.low is not None and warm.high is None
    assert verdict([SEEDS], "Lot 44 was dried at 50 °F before it was banked.") == OK  # 10 °C
    assert verdict([SEEDS], "Lot 45 was dried at 20 °C before it was banked.") == REJECT


PLATES = "Lab plates must be read before 16:00 on the day they are incubated."


def test_a_duty_due_before_a_time_forbids_the_hours_after_it() -> None:
    """ "must be read before 16:00": the forbidden window is after 16:00, not the morning."""
    w = understand(PLATES).window
    assert w is not None and (w.start, w.end) == (16 * 60, 24 * 60)
    assert verdict([PLATES], "Both plates were read on the day of incubation, at 11:20 and at 15:45.") == OK
    assert verdict([PLATES], "The second plate was read at 17:10 on the day of incubation.") != OK
