"""scu_guard round 16: counts and conditional duties read the way English states them. Five readings: a
conditional rule's condition met in one half of a sentence and its duty's fate told in the other half, after a
semicolon; a prohibition whose main clause denies its whole subject ("If ..., no fresh-cut flower stock may be
loaded"), however many words that subject has; "any one" in a count rule picks each unit in turn ("to any one
jetty cleat"), so it is no second amount; a predicate adjective names the rule's event ("may be responsible for
more than 30 candidates"), and a time span ("between 09:00 and 11:00") spreads nothing over places; number words
joined by a hyphen or written apart are one number ("forty-three", "a hundred and fifty-six"). Real spaCy parses;
sentences written for these tests, none is in the labelled sets. Near misses that must stay OK: the condition not
met, the duty done, a count within the bound, counts spread over several units, a count of another thing."""

from __future__ import annotations

from abilities.scu_guard.counts import read_counts
from tests.scu_guard_support import OK, REJECT
from tests.scu_guard_support import verdict_beside as _v

GAUGE = "If the river gauge reads above 3 m, the towpath must be closed to cyclists."
KILN = "If the kiln temperature rises above 1,200 °C, the glaze trials must be stopped."
FROST = "If the frost index is below -2 °C, no fresh-cut flower stock may be loaded onto the open trailers."
CLEAT = "No more than 3 kayaks may be tied to any one jetty cleat."
SHELF = "No visitor may borrow more than 4 books from any one shelf per week."
EXAM = "No invigilator may be responsible for more than 30 candidates at the same time."
SHUTTLE = "No more than 40 passengers may be carried on the shuttle bus."
BALLROOM = "No more than 150 guests may be seated in the ballroom."


def test_a_condition_met_and_the_duty_left_undone_across_a_semicolon() -> None:
    assert _v(GAUGE, "The gauge at Wenford read 3.4 m at dawn; the towpath stayed open to cyclists all day.") == REJECT
    # 2,250 °F is about 1,232 °C
    assert _v(KILN, "The kiln touched 2,250 °F on Friday; the glaze trials were not stopped.") == REJECT


def test_a_condition_not_met_or_the_duty_done_across_a_semicolon_keeps_it() -> None:
    assert _v(GAUGE, "The gauge at Wenford read 2.6 m at dawn; the towpath stayed open to cyclists all day.") == OK
    assert _v(GAUGE, "The gauge at Wenford read 3.4 m at dawn; the towpath was closed to cyclists by seven.") == OK
    # 2,100 °F is about 1,149 °C: under the rule's 1,200 °C
    assert _v(KILN, "The kiln touched 2,100 °F on Friday; the glaze trials were not stopped.") == OK


def test_a_prohibition_that_denies_a_long_subject_under_a_condition() -> None:
    claim = "We loaded the fresh-cut flower stock onto the open trailers at six; the yard thermometer showed 25 °F."
    assert _v(FROST, claim) == REJECT


def test_the_long_subject_kept_off_or_the_frost_not_reached_keeps_it() -> None:
    claim = "We loaded the fresh-cut flower stock onto the open trailers at six; the yard thermometer showed 34 °F."
    assert _v(FROST, claim) == OK
    claim = "The yard thermometer showed 25 °F at six; no fresh-cut flower stock was loaded onto the open trailers."
    assert _v(FROST, claim) == OK


def test_any_one_unit_is_the_unit_a_count_is_bounded_in() -> None:
    assert _v(CLEAT, "All five kayaks from the sea-school were tied to cleat 4 overnight.") == REJECT


def test_counts_within_the_bound_per_unit_keep_it() -> None:
    assert _v(CLEAT, "Three kayaks were tied to cleat 4 and two to cleat 5 overnight.") == OK
    assert _v(SHELF, "Mr Aydin borrowed two books from the poetry shelf this week.") == OK


def test_a_predicate_adjective_names_the_rules_event() -> None:
    assert _v(EXAM, "Ms Rowe was responsible for thirty-four candidates in the main hall.") == REJECT
    # a span of time spreads nothing over places
    assert _v(EXAM, "Between 09:00 and 11:00, Ms Rowe was responsible for 34 candidates in the main hall.") == REJECT


def test_a_count_within_the_bound_under_the_adjective_keeps_it() -> None:
    assert _v(EXAM, "Ms Rowe was responsible for twenty-eight candidates in the main hall.") == OK
    assert _v(EXAM, "Between 09:00 and 11:00, Ms Rowe was responsible for 28 candidates in the main hall.") == OK


def test_number_words_joined_by_a_hyphen_are_one_number() -> None:
    assert [c.counts for c in read_counts("The van took eighty-two parcels and three sacks.")] == [
        (("parcel", 82.0),), (("sack", 3.0),)]
    assert [c.counts for c in read_counts("A hundred and fifty-two chairs were set out.")] == [(("chair", 152.0),)]
    assert [c.counts for c in read_counts("Thirty five runners started.")] == [(("runner", 35.0),)]
    assert _v(SHUTTLE, "The shuttle bus carried forty-three passengers on the 08:10 run.") == REJECT
    assert _v(BALLROOM, "A hundred and fifty-six guests were seated in the ballroom for the dinner.") == REJECT


def test_hyphenated_counts_within_the_bound_keep_it() -> None:
    assert _v(SHUTTLE, "The shuttle bus carried thirty-eight passengers on the 08:10 run.") == OK
    assert _v(SHUTTLE, "The shuttle bus carried twenty-two passengers and a driver on the 08:10 run.") == OK
    assert _v(BALLROOM, "A hundred and forty-two guests were seated in the ballroom for the dinner.") == OK


def test_a_count_of_another_thing_keeps_it() -> None:
    # forty-three bags are no passengers
    assert _v(SHUTTLE, "The shuttle bus carried forty-three bags and thirty passengers on the 08:10 run.") == OK
