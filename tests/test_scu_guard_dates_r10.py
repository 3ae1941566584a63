"""Dates of repeated events and lead times, on real parses: each contradicting wording beside a kept one."""

from __future__ import annotations

from abilities.scu_guard import forms, recurrence
from abilities.scu_guard.measure import find_dates
from tests.scu_guard_support import verdict

WEEKLY = ["The cold room door seals must be checked at least once every 7 days."]
LOG = {"c1": "Cold room door seal check log 2026: Tue 3 Feb - M. Ode; Tue 10 Feb - M. Ode; "
              "Mon 23 Feb - R. Lin; Fri 27 Feb - R. Lin."}
LOG_OK = {"c1": "Cold room door seal check log 2026: Tue 3 Feb - M. Ode; Tue 10 Feb - M. Ode; "
                 "Mon 16 Feb - R. Lin; Sun 22 Feb - R. Lin."}


def test_day_list_under_one_month() -> None:
    """"3 and 10 February" is two dates; "platform 3 and 10 February" is not a list of days."""
    text = "The seals were looked at on 3 and 10 February."
    days = recurrence.listed_dates(text, find_dates(text))
    assert [text[d.start : d.end].strip(".") for d in days] == ["3", "10 February"]
    text = "Trains left platform 3 and 10 February was quiet."
    assert len(recurrence.listed_dates(text, find_dates(text))) == 1


def test_gap_in_a_day_list_with_a_cited_register() -> None:
    """Successive dates the claim lists, each in a cited register of the rule's event: a 13-day gap breaks a
    weekly rule; gaps of 7, 6 and 6 days keep it."""
    claim = "Staff went round the door seals on 3 and 10 February, then not again until Monday 23 February."
    assert verdict(WEEKLY, claim, LOG)[1] == "constraint_contradiction"
    claim = "Staff went round the door seals on Tuesday 3, Tuesday 10, Monday 16 and Sunday 22 February."
    assert verdict(WEEKLY, claim, LOG_OK)[0] == "OK"


def test_weekday_names_between_listed_dates() -> None:
    """"then on Wednesday 11 March" joins a sequence as "then on 11 March" does."""
    rule = ["Fire doors must be tested at least once every 7 days."]
    claim = "The fire doors were tested on Monday 2 March, then on Thursday 12 March and Monday 16 March."
    assert verdict(rule, claim)[1] == "constraint_contradiction"
    claim = "The fire doors were tested on Monday 2 March, then on Monday 9 March and Monday 16 March."
    assert verdict(rule, claim)[0] == "OK"


def test_register_restated_is_no_gap_from_its_first_entry() -> None:
    """A claim restating a register's entries is not read as the first entry followed by the last date."""
    claim = "Yes: on Tuesday 3, Tuesday 10, Monday 16 and Sunday 22 February the door seals were checked."
    assert verdict(WEEKLY, claim, LOG_OK)[0] == "OK"


def test_no_later_than_before_is_a_minimum_lead() -> None:
    """"no later than 14 days before the fair" asks for 14 days' lead at least; "no earlier than" caps it."""
    q = forms.understand("Stall bookings must be made no later than 14 days before the fair.").quantity
    assert q is not None and q.low == 14 * 86400 and q.high is None
    q = forms.understand("Stall bookings must be made no earlier than 14 days before the fair.").quantity
    assert q is not None and q.high == 14 * 86400 and q.low is None
    rule = ["Stall bookings must be made no later than 14 days before the fair."]
    assert verdict(rule, "Our stall was booked on 1 May, nine days before the fair on 10 May.")[0] != "OK"
    assert verdict(rule, "Our stall was booked on 1 May for the fair on 30 May.")[0] == "OK"


def test_two_dates_of_other_events_are_no_gap() -> None:
    """A rule counting from an event the claim never names is not broken by the time between two dates said
    of other events; a date said through a light verb may be that event and keeps the reading."""
    rule = ["Damage reports must be filed within 2 business days of the inspection."]
    claim = "The crates were filed away on Monday 4 May, well before the 20 May auction."
    assert verdict(rule, claim)[0] == "OK"
    claim = "The damage report came in on Monday 4 May and was filed on Monday 11 May."
    assert verdict(rule, claim)[0] != "OK"
