"""Numbers and time read whole, on real parses: two events placed in order by weekdays, parts of a day and
the end of a period; a count's window that is no time bound; dates counted from a weekday; counts of the
doer of a passive and of people by any person noun. Each contradicting wording beside a kept one."""

from __future__ import annotations

from abilities.scu_guard import forms, judge, nlp, windows
from tests.scu_guard_support import OK, REJECT, verdict

PAINT = ["The hull must be sanded before it is painted."]
BACKUP = ["The router configuration must be saved before any firmware update is flashed."]


def test_parts_of_one_day_put_two_events_in_order() -> None:
    """"on Monday morning ... that afternoon": the afternoon event came later; kept in the other order."""
    claim = "The firmware update was flashed on Monday morning; the configuration was saved that afternoon."
    assert verdict(BACKUP, claim) == REJECT
    claim = "The configuration was saved on Monday morning; the firmware update was flashed that afternoon."
    assert verdict(BACKUP, claim) == OK


def test_clock_time_before_a_part_of_the_day() -> None:
    """"at 08:15 ... at lunchtime": the lunchtime event is the later one."""
    claim = "The hull was painted at 08:15; the sanding crew went over it at lunchtime."
    assert verdict(PAINT, claim) == REJECT
    claim = "The hull was sanded at 08:15; the painters started on it at lunchtime."
    assert verdict(PAINT, claim) == OK


def test_a_later_part_of_the_day_told_first_is_not_read() -> None:
    """"in the evening ..., then in the morning" may be the next morning: no order is read from the parts."""
    claim = "The hull was sanded in the evening, and the painters started on it in the morning."
    assert verdict(PAINT, claim) == OK


def test_weekdays_told_in_calendar_order() -> None:
    """"painted and varnished on Tuesday, sanded on Thursday": one week, told in its order."""
    claim = "The hull was painted and varnished on Tuesday, sanded on Thursday, and launched today."
    assert verdict(PAINT, claim) == REJECT
    claim = "The hull was sanded and filled on Tuesday, painted on Thursday, and launched today."
    assert verdict(PAINT, claim) == OK


def test_weekdays_against_the_calendar_order_are_not_read() -> None:
    """"painted on Friday, sanded on Monday" may cross a weekend either way: no sure order."""
    claim = "The hull was painted on Friday, sanded on Monday, and launched today."
    assert verdict(PAINT, claim) != REJECT


def test_coordinated_participles_split_into_their_stretches() -> None:
    """"was rounded and backed on 8 April and sewn ... the following day": a participle the parser takes for an
    adjective still heads its own stretch, so the date is the first event's and "the following day" the
    second's; two verbs side by side ("hardened and tempered on Tuesday") share what follows."""
    text = "The block was rounded and backed on 8 April and sewn on five cords the following day."
    stretches = [text[a:b] for a, b in judge._segments(nlp.parse(text))]
    sewn = next(x for x in stretches if "sewn" in x)
    assert "8 April" not in sewn and "following day" in sewn
    text = "The blades were hardened and tempered on Tuesday, then ground on Friday."
    stretches = [text[a:b] for a, b in judge._segments(nlp.parse(text))]
    assert any("hardened and tempered on Tuesday" in x for x in stretches)


def test_the_end_of_a_period_is_later() -> None:
    """"straight away ... at the end of the week": the second event came later."""
    claim = "The hull was painted straight away and sanded at the end of the week."
    assert verdict(PAINT, claim) == REJECT
    claim = "The hull was sanded straight away and painted at the end of the week."
    assert verdict(PAINT, claim) != REJECT


def test_a_count_window_is_no_time_bound() -> None:
    """"at most 4 lessons in a single day" counts lessons in a day: it bounds no length of time."""
    form = forms.understand("An instructor may teach at most 4 lessons in any 24-hour period.")
    assert form is not None and windows.count_window(form)
    form = forms.understand("An instructor may teach at most 4 lessons in a single day.")  # no amount at all
    assert form is not None and form.quantity is not None and form.quantity.dimension == "count:lesson"
    form = forms.understand("A lesson must not last longer than 1 day.")
    assert form is not None and not windows.count_window(form)
    rule = ["An instructor may teach at most 4 lessons in a single day.", "Lockers must be emptied every week."]
    assert verdict(rule, "Maya taught the 09:00 lesson and then the 16:30 one.") == OK


def test_how_often_before_an_event_is_no_lead_time() -> None:
    """"weighed each day before it is flown" keeps the order of weighing and flying."""
    form = forms.understand("Every parcel must be weighed each day before it is shipped.")
    assert form is not None and form.order is not None and "day" not in form.order.first
    claim = "The parcel was shipped at 10:00 and had its first weighing of the day at 10:40."
    assert verdict(["Every parcel must be weighed each day before it is shipped."], claim) == REJECT


def test_previous_and_following_weekday_dates() -> None:
    """"Friday 13 June ... the previous Tuesday" is 10 June; "the following Monday, 16 June" tells its date."""
    claim = judge.read_claim("The lot was sold on Friday 13 June, its last inspection on the previous Tuesday.")
    assert [d.first - claim.dates[0].first for d in claim.dates] == [0, -3]
    claim = judge.read_claim("The valve was tested on 2 June 2025 and again the following Monday.")
    assert [d.first - claim.dates[0].first for d in claim.dates] == [0, 7]
    claim = judge.read_claim("The valve was tested on Monday 2 June and next the following Monday, 16 June.")
    assert len(claim.dates) == 2


def test_a_log_of_another_labelled_thing_dates_nothing() -> None:
    """A cited log of "Pump P-4" does not date "Pump P-7": no gap from it."""
    rule = ["Every sump pump must be serviced at least every 30 days."]
    chunks = {"c1": "Pump P-4 service log: 2 January, 30 January, 25 February."}
    assert verdict(rule, "Pump P-7 was serviced on 20 April.", chunks) == OK


def test_the_doer_of_a_passive_is_counted() -> None:
    """"signed by a single clerk" against "by at least two officers"; two clerks keep it."""
    rule = ["Cash receipts must be signed by at least two officers."]
    assert verdict(rule, "Yesterday's cash receipts were signed by a single clerk.") == REJECT
    assert verdict(rule, "Yesterday's cash receipts were signed by two clerks.") == OK


def test_people_counted_by_any_person_noun() -> None:
    """"No more than 10 people in the sauna" counts "a dozen swimmers" there, not chairs or people elsewhere."""
    rule = ["No more than 10 people may be in the sauna at any one time."]
    assert verdict(rule, "A dozen swimmers were in the sauna together after the gala.") == REJECT
    assert verdict(rule, "Eight swimmers were in the sauna together after the gala.") == OK
    assert verdict(rule, "A dozen swimmers queued outside the sauna after the gala.") == OK
