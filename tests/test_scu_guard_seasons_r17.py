"""scu_guard round 17: a season told as running ("The ferry season runs from Saturday, May 3, 2025 through Sunday,
September 28, 2025; there are no sailings outside it") is the open period, so the forbidden window is the rest of
the year; a repeated duty's months ("cleared at least every 14 days from October through December") bound when it
holds and forbid nothing; a US date after a weekday ("Saturday, June 14, 2025") is read to the day. Real spaCy
parses; sentences written for these tests, none is in the labelled sets."""

from __future__ import annotations

import datetime as dt

from abilities.scu_guard import measure
from tests.scu_guard_support import OK
from tests.scu_guard_support import verdict_beside as _v

FERRY = ("The ferry season runs from Saturday, May 3, 2025 through Sunday, September 28, 2025; there are no "
         "sailings outside it.")
CAMP = "Camping season runs from Friday, June 6, 2025 to Sunday, August 31, 2025; there is no camping outside those dates."
GUTTERS = "Gutters are cleared at least every 14 days from October through December."
BURN = "Burning is banned from 1 June to 30 September."


def test_a_weekday_before_a_us_date_keeps_the_day() -> None:
    found = measure.find_dates("runs from Saturday, June 14, 2025 through Sunday, August 3, 2025")
    days = [(dt.date.fromordinal(d.first), dt.date.fromordinal(d.last)) for d in found]
    assert days == [(dt.date(2025, 6, 14), dt.date(2025, 6, 14)), (dt.date(2025, 8, 3), dt.date(2025, 8, 3))]
    assert measure.find_dates("in mid-August")[0].last - measure.find_dates("in mid-August")[0].first == 9


def test_a_day_inside_the_running_season_is_no_break() -> None:
    assert _v(FERRY, "The ferry sailed on Tuesday, July 8, 2025.") == OK
    assert _v(CAMP, "The Wilsons camped by the lake on Saturday, July 12, 2025.") == OK


def test_a_day_after_the_season_is_never_cleared() -> None:
    # the window's other side is read; whether the claim's act is the rule's is a doubt the guard holds
    assert _v(CAMP, "The Wilsons camped by the lake on Saturday, September 13, 2025.") != OK


def test_a_repeated_duty_in_its_months_is_no_forbidden_period() -> None:
    assert _v(GUTTERS, "The gutters were cleared on 3 November and again on 14 November.") == OK
    assert _v(GUTTERS, "The gutters have been cleared every Monday since early October.") == OK


def test_a_ban_of_a_period_still_forbids_it() -> None:
    assert _v(BURN, "We burned the brash pile on 12 July.") != OK
    assert _v(BURN, "We burned the brash pile on 12 October.") == OK
