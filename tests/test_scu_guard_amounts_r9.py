"""scu_guard round 9, amounts: units the reader did not know, "once every N" with its direction, and a
duration tied to the rule by grammar though its clause does something else.

The sentences are written for these tests, in domains of their own; each reading has a case that keeps
the rule and a case that still only suspects (REVIEW) when the tie is missing.
"""

from __future__ import annotations

import pytest

from abilities.scu_guard import measure
from abilities.scu_guard.evidence import read_whole
from tests.scu_guard_support import OK, REJECT, REVIEW, verdict


@pytest.mark.parametrize(
    ("text", "dim", "value"),
    [
        ("the hose ran at 2,400 psi", "[mass] / [length] / [time] ** 2", 2400 * 6894.757),
        ("the boiler held 3 bar", "[mass] / [length] / [time] ** 2", 300000.0),
        ("vibration of 14 mm/s at the wall", "[length] / [time]", 0.014),
        ("a tank of 20 litres", "[length] ** 3", 0.02),
        ("dust at 3 mg/m³ in the booth", "[mass] / [length] ** 3", 3e-06),
        ("filters of 5 µm", "[length]", 5e-06),
        ("noise of 85 dB(A) at the gate", "[sound_level]", 85.0),
        ("a 230 V socket", "[mass] * [length] ** 2 / [time] ** 3 / [current]", 230.0),
    ],
)
def test_units_the_reader_knows_now(text: str, dim: str, value: float) -> None:
    (a,) = measure.find_amounts(text)
    assert a.dim == dim
    assert a.lo == pytest.approx(value, rel=1e-6)


@pytest.mark.parametrize(
    ("text", "direction"),
    [
        ("no more than once every 90 days", "min"),  # at most once per 90 days: an interval of at least 90 days
        ("at least once every 30 days", "max"),      # at least once per 30 days: an interval of at most 30 days
        ("once every 2 weeks", "eq"),
        ("at least every 7 days", "max"),
    ],
)
def test_once_every_reads_the_direction_before_once(text: str, direction: str) -> None:
    (a,) = measure.find_amounts(text)
    assert a.period and a.direction == direction


def test_at_most_once_every_n_days_is_kept_by_a_longer_interval() -> None:
    rule = ["Boat fees may be changed no more than once every 90 days."]
    assert verdict(rule, "Boat fees are changed twice a year.") == OK
    assert verdict(rule, "Boat fees are changed every month.")[0] != "OK"


@pytest.mark.parametrize(
    ("constraint", "claim", "want"),
    [
        # a retention rule, and the disposal of the very thing it keeps
        ("Loan files must be kept for at least 6 years.", "Loan files are shredded after 4 years.", REJECT),
        ("Visitor logs must be retained for at least 2 years.", "Visitor logs are deleted after 9 months.", REJECT),
        ("Visitor logs must be retained for at least 2 years.", "Visitor logs are deleted after 3 years.", OK),
        # the disposal of something else is no reading of the rule (since round 14 nothing to review: the
        # sentence names nothing of the rule but the duration's unit)
        ("Visitor logs must be retained for at least 2 years.", "Broken badges are recycled after 9 months.", OK),
        # counted from the very event the rule counts from
        ("Lettuce must not be harvested within 10 days of the last slug pellet application.",
         "The lettuce can be picked a week after the last slug pellet application.", REJECT),
        ("Lettuce must not be harvested within 10 days of the last slug pellet application.",
         "The lettuce can be picked a week after the rain.", REVIEW),
        ("Cattle must not be slaughtered within 28 days of the last wormer dose.",
         "The steers can be sold ten days after the last wormer dose.", REJECT),
        # (since round 14 nothing to review: neither the sale nor the show is the rule's slaughter or dose)
        ("Cattle must not be slaughtered within 28 days of the last wormer dose.",
         "The steers can be sold ten days after the show.", OK),
    ],
)
def test_a_duration_tied_to_the_rule_by_grammar(constraint: str, claim: str, want: tuple[str, str]) -> None:
    assert verdict([constraint], claim) == want


@pytest.mark.parametrize(
    ("text", "dim", "value"),
    [
        ("the rope line stood 90 yards from the rack", "[length]", 82.296),
        ("the store held 60 US gallons of petrol", "[length] ** 3", 0.2271247),
        ("a peak of 0.5 in/s at the farmhouse", "[length] / [time]", 0.0127),
        ("a 7 oz cloth", "[mass]", 0.1984467),
    ],
)
def test_imperial_units(text: str, dim: str, value: float) -> None:
    (a,) = measure.find_amounts(text)
    assert a.dim == dim
    assert a.lo == pytest.approx(value, rel=1e-6)


def test_dozens_are_multiplied() -> None:
    assert measure._number("two dozen") == 24
    assert measure.NUMBER_WORDS["four dozen"] == 48
    rule = ["No more than 30 pupils may be in the pottery studio at one time."]
    assert verdict(rule, "The pottery studio held three dozen pupils on Friday.")[0] != "OK"
    assert verdict(rule, "The pottery studio held two dozen pupils on Friday.") == OK


@pytest.mark.parametrize(
    ("text", "minutes"),
    [
        ("opened at half past ten, as usual", 630),
        ("started at half past seven in the evening", 1170),
        ("closed at a quarter to six", 345),
        ("began at ten o'clock at night", 1320),
        ("half past 10 pm", 1350),
    ],
)
def test_times_of_day_told_in_words(text: str, minutes: int) -> None:
    (c,) = measure.find_clock_times(text)
    assert c.minutes == minutes


def test_a_time_in_words_against_a_closing_window() -> None:
    rule = ["The sauna must be closed between 22:00 and 07:00."]
    # a time told in words reads as the same time in digits
    assert verdict(rule, "The sauna was open until half past eleven at night.") == verdict(
        rule, "The sauna was open until 23:30.")
    assert verdict(rule, "The sauna was open until half past nine in the evening.") == verdict(
        rule, "The sauna was open until 21:30.")


def test_one_as_the_unit_a_bound_counts_over_is_no_second_amount() -> None:
    assert read_whole("No more than 30 pupils may be in the pottery studio at one time.", "may")
    assert read_whole("Patients must not receive more than 7 cartridges in a single visit.", "must_not")
    assert not read_whole("Drivers must take a break of at least 30 minutes after 5 hours of driving.", "must")


def test_a_pitch_raise_amount_in_the_rule_subject_is_no_bound() -> None:
    # "of more than 20 cents" says which raises need the inspection; a 15-cent raise is not outside a bound
    rule = ["A lens regrind of more than 3 microns requires a flatness check beforehand."]
    assert verdict(rule, "A 2-micron regrind was done without a flatness check.")[0] != "REJECT"


def test_at_the_end_of_each_day_is_daily() -> None:
    (a,) = measure.find_amounts("The kiln is swept at the end of each day.")
    assert a.period and a.lo == 86400.0
    # "each day" after a set of clock times is the base of the set, not an interval
    assert not [a for a in measure.find_amounts("Logged at 06:00, 14:00 and 22:00 each day.") if a.period]


@pytest.mark.parametrize(
    ("text", "hours"),
    [
        ("fridges are checked twice daily", 12.0),       # was read as "daily": once a day
        ("a three-weekly inspection cycle", 504.0),      # was read as "weekly"
        ("a 6-monthly service", 4383.0),
        ("three times weekly", 56.0),
    ],
)
def test_counted_period_adverbs(text: str, hours: float) -> None:
    (a,) = measure.find_amounts(text)
    assert a.period and a.lo / 3600 == pytest.approx(hours)


def test_twice_daily_keeps_a_twice_a_day_rule() -> None:
    rule = ["Fridge temperatures must be recorded at least twice a day."]
    assert verdict(rule, "Fridge temperatures are recorded twice daily.") == OK
    assert verdict(rule, "Fridge temperatures are recorded three-weekly.")[0] != "OK"


def test_the_day_after_counts_whole_days() -> None:
    (a,) = measure.find_amounts("The notice can wait until the second day after the result.")
    assert a.lo == 2 * 86400.0
    (b,) = measure.find_amounts("The bins were emptied the day after the fair.")
    assert b.lo == 86400.0
    assert not measure.find_amounts("It rained on the second day of the fair.")


def test_until_before_the_amount_is_no_circumstance() -> None:
    rule = ["Spill reports must be filed within 24 hours of the spill."]
    # "until" introduces the amount itself; "until the tank was empty" would be a circumstance
    assert verdict(rule, "A spill report can wait until the third day after the spill.") == REJECT


def test_in_any_24_hour_period_is_the_window_a_bound_counts_over() -> None:
    assert read_whole("The dredger must not remove more than 300 t in any 24-hour period.", "must_not")
    rule = ["The dredger must not remove more than 300 t in any 24-hour period."]
    assert verdict(rule, "The dredger removed 420 t between Monday 06:00 and Tuesday 06:00.") == REJECT
    # a rule whose only amount is the window itself is not read as a bound on durations
    rule = ["A member may book at most 3 courts in any 7-day period."]
    assert verdict(rule, "The match lasted two hours.")[0] != "REJECT"


@pytest.mark.parametrize(
    ("chunk", "claim", "want"),
    [
        # the chunk states the amount of the very thing the claim names, and the claim denies the consequence
        ("Pit 6 is 1.8 m deep.", "Pit 6 is being dug without fencing.", REJECT),
        ("Pit 6 is 1.8 m deep.", "Pit 6 was not fenced.", REJECT),
        # the chunk's amount is outside the trigger: the rule is not switched on
        ("Pit 6 is 0.6 m deep.", "Pit 6 is being dug without fencing.", OK),
        # the chunk speaks of another pit
        ("Pit 6 is 1.8 m deep.", "Pit 2 is being dug without fencing.", OK),
    ],
)
def test_a_chunk_amount_of_the_named_thing_switches_the_rule_on(chunk: str, claim: str,
                                                                 want: tuple[str, str]) -> None:
    assert verdict(["Pits deeper than 1 m must be fenced."], claim, {"c1": chunk}) == want


def test_a_chunk_trigger_with_an_order_in_the_rule_stays_a_guess() -> None:
    rule = ["Work on a job quoted above £300 must not start before the customer approves the quote in writing."]
    chunks = {"c1": "Job 88: quote £450 for a new lock; written approval arrived on Thursday 14 May."}
    assert verdict(rule, "Work on job 88 started on Friday 15 May.", chunks)[0] != "REJECT"


def test_an_amount_tied_to_the_rule_by_its_unit_alone_is_a_guess() -> None:
    rule = ["The blast exclusion zone must extend at least 500 metres from the blast site."]
    # the sentence speaks of a crusher pad, not of the zone: the length is the rule's only by its unit
    assert verdict(rule, "The crusher pad lies just 80 m from the pit edge.") == REVIEW
    assert verdict(rule, "The exclusion zone extended only 80 m from the blast site.") == REJECT
