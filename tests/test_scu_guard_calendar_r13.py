"""Round 13, calendar: days the calendar names without a day number ("Boxing Day", "Good Friday", "the second
Thursday of October", "the last working day of May", "the end of April") read as dates, so date windows and
gaps see them; a day that moves with the year is a range when the year is unknown; a date is firm only when it
is said of the rule's own verb. Real parses; sentences written for these tests."""

from __future__ import annotations

import datetime as dt

from abilities.scu_guard import calendar_days
from abilities.scu_guard.evaluate import judge
from tests.scu_guard_support import OK, REJECT, logged_case, verdict


def _days(text: str, year: int | None = None) -> list[tuple[dt.date, dt.date, bool]]:
    return [(dt.date.fromordinal(d.first), dt.date.fromordinal(d.last), d.year_known)
            for d in calendar_days.named_dates(text, year)]


def test_fixed_named_days() -> None:
    assert _days("The hamper went out on Boxing Day 2026.") == [(dt.date(2026, 12, 26), dt.date(2026, 12, 26), True)]
    assert _days("We closed early on New Year's Eve.") == [(dt.date(2000, 12, 31), dt.date(2000, 12, 31), False)]
    assert _days("The fireworks were stored until Bonfire Night.")[0][0] == dt.date(2000, 11, 5)


def test_easter_is_one_day_in_a_known_year_and_a_range_otherwise() -> None:
    assert _days("The kiln was fired on Good Friday.", 2027)[0][:2] == (dt.date(2000, 3, 26), dt.date(2000, 3, 26))
    assert _days("The kiln was fired on Good Friday 2027.")[0] == (dt.date(2027, 3, 26), dt.date(2027, 3, 26), True)
    first, last, known = _days("The kiln was fired on Easter Monday.")[0]
    assert (first, last, known) == (dt.date(2000, 3, 23), dt.date(2000, 4, 26), False)


def test_nth_weekday_and_working_day_of_a_month() -> None:
    assert _days("Stock was counted on the second Thursday of October 2026.")[0][0] == dt.date(2026, 10, 8)
    assert _days("Stock was counted on the last working day of May", 2026)[0][0] == dt.date(2000, 5, 29)
    first, last, _ = _days("Stock was counted on the first working day of June.")[0]
    assert (first, last) == (dt.date(2000, 6, 1), dt.date(2000, 6, 3))
    first, last, _ = _days("Stock was counted at the end of April.")[0]
    assert (first, last) == (dt.date(2000, 4, 21), dt.date(2000, 4, 30))


def test_a_year_said_once_places_the_named_day() -> None:
    assert calendar_days.context_year(["The 2026 regatta was moved."]) == 2026
    assert calendar_days.context_year(["We pumped 2000 litres."]) is None
    assert calendar_days.context_year(["Moved from 2025 to 2026."]) is None


RULE = "Junior archery camps may only run between 1 June and 31 August."


def test_a_named_day_outside_the_season_breaks_the_rule() -> None:
    assert verdict([RULE], "The junior archery camp ran on the first Monday of May.") != OK
    assert verdict([RULE], "The junior archery camp ran over the Easter weekend.") != OK


def test_a_named_day_inside_the_season_stays_ok() -> None:
    assert verdict([RULE], "The junior archery camp ran on the last Friday of July.") == OK


def test_a_named_day_as_a_name_is_no_date_of_the_event() -> None:
    claim = "The Halloween booking was for a junior archery camp that ran on 14 July."
    assert verdict([RULE], claim) != REJECT
    assert judge(logged_case(RULE, claim)).verdict != "REJECT"


def test_a_due_period_names_the_allowed_days() -> None:
    rule = ["The annual boiler service must be carried out between 1 April and 30 September."]
    assert verdict(rule, "The 2026 boiler service was carried out on the second Tuesday of October.") != OK
    assert verdict(rule, "The 2026 boiler service was carried out on the second Tuesday of June.") == OK


def test_a_gap_to_a_named_day() -> None:
    rule = ["A refund must be paid within 10 days of the return."]
    assert verdict(rule, "The return arrived on 2 December 2026 and the refund was paid on Christmas Eve.") != OK
    assert verdict(rule, "The return arrived on 20 December 2026 and the refund was paid on Christmas Eve.") == OK


def test_a_whole_date_window_said_of_the_rules_verb_is_rejected() -> None:
    assert verdict([RULE], "This year's junior archery camp ran on Good Friday 2026.") == REJECT


def test_a_stretch_counted_on_from_a_date_dates_the_later_event() -> None:
    from abilities.scu_guard import measure, reldates

    def later(text: str) -> list[tuple[dt.date, dt.date]]:
        return [(dt.date.fromordinal(d.first), dt.date.fromordinal(d.last))
                for d in reldates.later_dates(text, measure.find_dates(text))]

    assert later("The hoist was inspected on 4 May and again a fortnight later.") == [
        (dt.date(2000, 5, 18), dt.date(2000, 5, 18))]
    assert later("The hoist was inspected on Thursday 4 May and again the week after.") == [
        (dt.date(2000, 5, 8), dt.date(2000, 5, 14))]
    assert later("The hoist was inspected on 4 May and a week later, on 11 May, again.") == []
    assert later("The hoist was greased on 4 May and inspected the week after the greasing.") == []


def test_two_dates_of_one_thing_told_twice_are_no_gap_of_the_rule() -> None:
    rule = ["Written booking queries must be answered within 2 business days."]
    claim = "Forty walkers stayed in the bunkhouse on Boxing Day and fifty on New Year's Eve."
    assert verdict(rule, claim) != REJECT


SPRING = "Lambing-shed open days may only run between 1 April and 30 April."


def test_easter_in_a_year_it_falls_inside_the_window_stays_ok() -> None:
    assert verdict([SPRING], "The lambing-shed open day ran on Easter Monday 2025.") == OK


def test_easter_without_its_year_is_no_sure_break() -> None:
    # Easter Monday falls in March in some years and in April in others: the year decides, and none is given
    assert verdict([SPRING], "The lambing-shed open day ran on Easter Monday.") != REJECT


def test_easter_in_a_year_it_falls_outside_the_window_is_not_ok() -> None:
    assert verdict([SPRING], "The lambing-shed open day ran on Good Friday 2024.") != OK


def test_a_state_kept_over_a_period_is_no_sure_window() -> None:
    rule = ["The paddling pool must remain open from 1 June to 31 August."]
    assert verdict(rule, "The paddling pool remained open on the first Sunday of July.") != REJECT
    rule = ["Verges must be kept mown from 1 April to 30 September."]
    assert verdict(rule, "The verges were kept mown on the last Monday of May.") != REJECT


def test_easter_as_a_modifier_names_no_day() -> None:
    assert _days("The Easter rota was posted on 2 June.") == []
    assert _days("The Easter-themed trail ran on 2 June.") == []
    assert _days("The trail was shut over Easter.")[0][2] is False
