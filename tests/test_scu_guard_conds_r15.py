"""scu_guard round 15: a duty a rule's condition sets off, to be done the same day (or at once), that the claim
dates to another day than the event that set it off ("If a pupil's temperature is 38 °C or higher, the parents
must be phoned the same day" against "... 101.3 °F on Tuesday; her parents were phoned on Thursday"). The
condition is met in the rule's own terms (an amount inside its band, or two of its own words); the act is the
rule's verb or one of its kind by WordNet ("emailed", "telephoned" for "notified"). Real spaCy parses and real
WordNet 3.0 data; sentences written for these tests, none is in the labelled sets. Near misses that must stay OK:
the act done that same day, the condition not met, an act told without a day of its own, a rule with no
condition."""

from __future__ import annotations

from tests.scu_guard_support import OK, REJECT, verdict

# an unrelated second rule that measures no time: a claim is read against a lock of several rules
BESIDE = "Visitors must sign in at reception."


def _v(rule: str, claim: str) -> tuple[str, str]:
    return verdict([rule, BESIDE], claim)

FEVER = "If a pupil's temperature is 38 °C or higher, the parents must be contacted the same day."
LEAK = "If a gas meter's casing is found cracked during a visit, the network operator must be notified the same day."
SPILL = "When a reagent bottle is dropped and broken in the store, the safety officer must be informed immediately."
CHILLER = "If the chiller's temperature rises above 8 °C, the duty manager must be called the same day."


def test_the_act_on_a_later_date_than_the_met_condition_breaks_the_rule() -> None:
    assert _v(FEVER, "Mia ran 101.3 °F on Tuesday 4 March, and her parents were phoned on Thursday 6 March.") == REJECT
    assert _v(LEAK, "The cracked casing on gas meter M-12 was found during the visit on Friday 9 May, and the "
                    "network operator was emailed about it on Monday 12 May.") == REJECT
    assert _v(CHILLER, "The chiller reached 9.5 °C on Saturday 14 June; the duty manager was telephoned on "
                       "Monday 16 June.") == REJECT


def test_two_weekdays_and_a_next_morning_tell_another_day() -> None:
    assert _v(FEVER, "Leo ran 38.6 °C on Monday afternoon, and his parents were rung on Wednesday.") == REJECT
    assert _v(SPILL, "A reagent bottle was dropped and broken in the store on 3 April; the safety officer was "
                     "informed the next morning.") == REJECT


def test_the_act_done_that_same_day_keeps_the_rule() -> None:
    assert _v(FEVER, "Mia ran 101.3 °F on Tuesday 4 March, and her parents were phoned at 16:00 that same "
                     "Tuesday.") == OK
    assert _v(LEAK, "The cracked casing on gas meter M-12 was found during the visit on Friday 9 May, and the "
                    "network operator was emailed about it on Friday 9 May.") == OK


def test_the_condition_not_met_keeps_the_rule() -> None:
    assert _v(FEVER, "Mia ran 37.4 °C on Tuesday 4 March, and her parents were phoned on Thursday 6 March.") == OK
    assert _v(CHILLER, "The chiller held 6 °C on Saturday 14 June; the duty manager was telephoned on Monday "
                       "16 June about the rota.") == OK


def test_an_act_without_a_day_of_its_own_keeps_the_rule() -> None:
    assert _v(LEAK, "The cracked casing on gas meter M-12 was found during the visit on Friday 9 May; the network "
                    "operator was notified, and a fitter came on Monday 12 May.") == OK


def test_a_duty_without_a_condition_is_not_read_as_a_deadline() -> None:
    assert _v("Parcels must be scanned the same day.", "Parcel 88 arrived on Monday 2 June and was weighed on "
                                                       "Wednesday 4 June.") == OK


def test_a_condition_met_only_in_part_keeps_the_rule() -> None:
    assert _v(LEAK, "Gas meter M-12 was read during the visit on Friday 9 May, and the network operator was "
                    "emailed on Monday 12 May.") == OK


def test_an_act_only_planned_or_permitted_for_later_is_not_read_as_done() -> None:
    assert _v(FEVER, "Mia ran 101.3 °F on Tuesday 4 March; her parents may be phoned on Thursday 6 March.") == OK


WITHIN = "If a hired tool is returned damaged, the hirer must be invoiced within 24 hours."


def test_a_deadline_in_hours_is_broken_only_by_dates_far_enough_apart() -> None:
    assert _v(WITHIN, "The hired tool was returned damaged on 2 June, and the hirer was invoiced on 5 June.") == REJECT
    assert _v(WITHIN, "The hired tool was returned damaged on 2 June, and the hirer was invoiced on 3 June.") == OK


def test_the_rules_things_found_without_its_state_keep_the_rule() -> None:
    assert _v(LEAK, "The casing on gas meter M-12 was found sound during the visit on Friday 9 May, and the "
                    "network operator was emailed on Monday 12 May.") == OK
