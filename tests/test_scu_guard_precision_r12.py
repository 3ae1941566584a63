"""Round 12, precision: grammatical shapes that were misread into a REJECT (a duration word describing a
noun, a date in a clause that names the rule's words only inside a name or a counted unit, a bare share of an
unnamed quantity, "neither ... nor", the same part of another owner, the later event of a reserved action's
order), each with a break that must stay and a near miss that must not be rejected. Real parses; sentences
written for these tests in domains other than the cases that showed the shapes."""

from __future__ import annotations

from abilities.scu_guard import attributive, measure
from abilities.scu_guard.nlp import parse
from abilities.scu_guard.text import polarity, tokenize
from tests.scu_guard_support import OK, REJECT, REVIEW, verdict


def _stated(text: str) -> list[str]:
    return [a.text for a in attributive.stated_amounts(text)]


# a number-less duration word before a noun names a kind of thing, not a length

def test_a_duration_word_before_a_noun_states_no_amount() -> None:
    assert _stated("Only overnight campers may use the showers after 21:00.") == []
    assert _stated("The pallets were left overnight on the dock.") == ["overnight"]
    assert _stated("A monthly inspection of the pumps is enough.") == ["monthly"]  # how often, of the event
    doc = parse("Only overnight campers may use the showers after 21:00.")
    assert attributive.describes_noun(doc, measure.find_amounts("Only overnight campers may use the showers")[0])


def test_a_kind_of_guest_bounds_no_stay() -> None:
    rule = ["After 23:00, only registered overnight campers may be inside the shower block."]
    assert verdict(rule, "The shower block was closed for an hour and a half for cleaning.") != REJECT
    assert verdict(rule, "Two day visitors were still in the shower block at 23:40.") != OK


# a date in a clause that names the rule's word only inside a name or a counted unit dates another event

def test_a_word_inside_a_name_does_not_date_the_rules_event() -> None:
    rule = ["Parking fines must be issued within 10 business days of the offence."]
    assert verdict(rule, "The new tariff was approved by the Parking Standards Board on 3 March and "
                         "applies from 2 April.") != REJECT


def test_a_counted_unit_does_not_date_the_rules_event() -> None:
    rule = ["Returned parcels must be held for at least 10 business days before disposal."]
    assert verdict(rule, "No extra shift was booked on Monday, so the 3,000-parcel queue carried over to "
                         "Tuesday.") != REJECT


def test_a_gap_between_the_rules_own_events_still_breaks() -> None:
    rule = ["Written complaints must be answered within 2 business days."]
    assert verdict(rule, "The written complaint arrived on Monday 5 January and was answered on Friday "
                         "9 January.") != OK


# a bare share is the rule's quantity only where the claim names what the rule measures

def test_a_share_of_something_else_is_a_guess() -> None:
    rule = ["Relative humidity in a curing room must never drop below 80%."]
    assert verdict(rule, "Tuesday's wash of the curing racks used a quaternary ammonium disinfectant at "
                         "0.5%.") != REJECT


def test_a_share_of_the_measured_thing_still_breaks() -> None:
    rule = ["Relative humidity in a curing room must never drop below 80%."]
    assert verdict(rule, "Relative humidity in curing room 2 fell to 62% on Tuesday.") == REJECT
    assert verdict(["Methane concentration at the heading must not exceed 1.0 percent."],
                   "Methane at the heading reached 1.4 percent and drilling went on.") == REJECT


# "neither ... nor" and "not ..., nor" deny once

def test_neither_nor_denies_once() -> None:
    assert polarity(tokenize("Neither the driver nor his mate was allowed into the yard")) == -1
    assert polarity(tokenize("The driver was not allowed in, nor was his mate")) == -1
    assert polarity(tokenize("The driver was allowed into the yard")) == 1
    rule = ["Anyone who appears intoxicated is not to be allowed into the climbing hall."]
    assert verdict(rule, "Neither the man who smelled of whisky nor his brother was allowed into the climbing "
                         "hall; both got refunds.") != REJECT


# the same part of another owner is another event

def test_the_same_part_of_another_owner_is_another_event() -> None:
    rule = ["Second-hand brake pads must never be fitted to the front wheels of a school bus."]
    assert verdict(rule, "Second-hand brake pads were fitted to the front wheels of a delivery van.") != REJECT
    assert verdict(rule, "Second-hand brake pads were fitted to the front wheels of a school bus.") == REJECT


# a reserved action's thing is not the later event of its order

def test_a_clause_of_the_later_event_is_no_reserved_action() -> None:
    rule = ["A flight log must be signed by the captain before each departure."]
    assert verdict(rule, "The seven-year-old stayed at the gate with his aunt, while Ms Ortiz and her son "
                         "went on the departure.") in (OK, REVIEW)
    assert verdict(rule, "The flight log was signed by the dispatcher before the departure.") != OK


# a bound on a stretch between repeated steps is no order of two events

def test_a_stretch_between_breaks_is_no_sure_order() -> None:
    rule = ["Lifeguards must not sit on the tower for more than 60 minutes without a break of at least 10 minutes."]
    assert verdict(rule, "Ana sat on the tower for three-quarters of an hour, took a break for a quarter of an "
                         "hour, then went back up for another fifty minutes.") != REJECT
    assert verdict(rule, "Ana sat on the tower for 95 minutes without a break.") != OK


# a rule that opens with a place holds there only

def test_a_window_rule_of_one_place_needs_the_place() -> None:
    rule = ["At the Riverside depot, no lorry may be loaded between 23:00 and 06:00."]
    chunks = {"c1": "Rota: Night 3 - Riverside depot. Night 4 - Hill Street yard."}
    assert verdict(rule, "On Night 4 the last lorry was loaded at 23:40.", chunks) != REJECT
    assert verdict(rule, "On Night 3 the last lorry was loaded at 23:40.", chunks) == REJECT
    assert verdict(rule, "At the Riverside depot the last lorry was loaded at 23:40.") == REJECT


# an amount set off beside another noun is that thing's

def test_an_amount_in_apposition_describes_its_noun() -> None:
    rule = ["The safety perimeter must extend at least 200 metres from the launch pad."]
    assert verdict(rule, "The control van, just 40 m from the launch pad, logged the countdown.") != REJECT
    assert verdict(rule, "The safety perimeter extended only 40 m from the launch pad.") == REJECT
