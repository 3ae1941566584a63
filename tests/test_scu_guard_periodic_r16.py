"""scu_guard round 16: repeated events. Two readings: days of the month told by their ordinal alone ("next on
Monday the 9th", "in October ... on the 2nd and 6th, then on the 15th") are read in the month told before them
(the month after, when the number is smaller), so the gap between two occurrences of a periodic duty is
measured; and a gap between dates of an event a deadline rule does not name ("serviced on 3 March and again
on 17 March" against "an injury must be reported within 1 working day") is no reason for review. Real spaCy
parses; sentences written for these tests, none is in the labelled sets. Near misses that must stay OK: the
interval kept, a day that rolls into the next month, an ordinal that ranks a thing ("the 8th floor"), a
deadline whose own event the claim names."""

from __future__ import annotations

import datetime as dt

from abilities.scu_guard import measure
from abilities.scu_guard.bare_days import with_bare_days
from abilities.scu_guard.foreign_gaps import is_deadline, unnamed_deadline_gap
from abilities.scu_guard.forms import understand
from tests.scu_guard_support import OK, REJECT, verdict
from tests.scu_guard_support import verdict_beside as _v

SUMP = "The aquarium sump filter must be rinsed at least every 5 days."
KILN = "Kiln shelves must be vacuumed at least every 7 days."
HIVE = "Beehive frames must be checked at least every 7 days."
POND = "The pond pump must be cleaned at least every 3 days."


def _days(text: str) -> list[tuple[str, str]]:
    found = with_bare_days(text, measure.find_dates(text))
    return [(text[d.start:d.end], dt.date.fromordinal(d.first).strftime("%d %b")) for d in found]


def test_a_bare_day_after_a_dated_day_is_in_its_month() -> None:
    assert _v(SUMP, "The sump filter was rinsed on Tuesday 3 June and next on Monday the 9th.") == REJECT


def test_a_bare_day_inside_the_interval_keeps_it() -> None:
    assert _v(SUMP, "The sump filter was rinsed on Tuesday 3 June and next on Saturday the 7th.") == OK


def test_days_listed_under_a_month_named_alone() -> None:
    claim = "In October the kiln shelves were vacuumed on the 2nd and 6th, then on the 15th."
    assert _v(KILN, claim) == REJECT


def test_days_listed_under_a_month_inside_the_interval_keep_it() -> None:
    claim = "In October the kiln shelves were vacuumed on the 2nd and 6th, then on the 12th."
    assert _v(KILN, claim) == OK


def test_a_smaller_day_is_in_the_next_month() -> None:
    # 27 April .. 2 May is five days, not a day 25 days back
    assert _v(HIVE, "The beehive frames were checked on 27 April and next on the 2nd.") == OK
    assert _days("checked on 27 April and next on the 2nd.")[-1] == ("2nd", "02 May")
    assert _v(HIVE, "The beehive frames were checked on 27 April and next on the 6th.") == REJECT


def test_days_with_no_month_at_all_run_in_one_month() -> None:
    assert _v(POND, "The pond pump was cleaned on Monday the 2nd, next on Friday the 6th.") == REJECT
    assert _v(POND, "The pond pump was cleaned on Monday the 2nd, next on Wednesday the 4th.") == OK
    # a day that turns back without a month has an unknown month length between: not read
    assert [d for d, _ in _days("cleaned on the 28th and next on the 3rd")] == ["28th"]


def test_an_ordinal_that_ranks_a_thing_is_no_day() -> None:
    assert [d for d, _ in _days("On 3 May the 8th floor was painted and the 2nd coat went on.")] == ["3 May"]
    assert [d for d, _ in _days("She finished 2nd on 3 May; the 3rd of the runners fell.")] == ["3 May"]


def test_a_stretch_that_is_not_a_whole_month_gives_no_month() -> None:
    assert [d for d, _ in _days("Checked in mid-August and again on the 20th.")] == ["mid-August"]


KILN_RULES = ["Every pottery kiln must have an element check at least every 28 days.",
              "Glaze spills reported by students must be cleaned up by the technician within 3 working days.",
              "Students must never fire the kiln alone."]


def test_a_gap_of_an_event_the_deadline_does_not_name_is_no_review() -> None:
    claim = "Kiln 2 was looked over on 1 June, 29 June, 27 July and 24 August - four weeks apart each time."
    assert verdict(KILN_RULES, claim, {"c1": "Log: " + claim}) == OK


def test_a_deadline_whose_event_the_claim_names_still_breaks() -> None:
    rules = ["Every hot tub must have a full drain-down at least every 30 days.",
             "Any guest complaint must be answered by the manager within 2 working days."]
    claim = "A guest complained on 2 March and the manager answered on 9 March."
    assert verdict(rules, claim, {"c1": "Log: " + claim}) == REJECT


def test_what_counts_as_a_deadline() -> None:
    assert is_deadline(understand("Any needle-stick injury must be reported to occupational health within 1 working day."))
    assert is_deadline(understand("Any discrepancy in a till count must be reported to the office within 2 hours."))
    # a duration and a period are no deadlines: a claim may time that very thing without naming it
    assert not is_deadline(understand("A tasting session must last no longer than 45 minutes."))
    assert not is_deadline(understand("Gutters must be cleared at least every 14 days."))


def test_a_word_of_the_deadline_in_the_claim_keeps_the_finding() -> None:
    form = understand("Any needle-stick injury must be reported to occupational health within 1 working day.")
    assert unnamed_deadline_gap(form, "The autoclave was serviced on 3 March and again on 17 March.")
    assert not unnamed_deadline_gap(form, "The injury log was checked on 3 March and again on 17 March.")
    assert not unnamed_deadline_gap(form, "Occupational health came on 3 March and again on 17 March.")
