"""A reading tied to the rule's measured thing (``amount_ties.py``): a cited record that gives the claim's number
where it names the rule's thing, and, among several amounts of the rule's dimension, the one no other amount
outranks by the rule's words. Sentences written for these tests, in domains of their own."""

from __future__ import annotations

import pytest

from abilities.scu_guard.amount_ties import outranked, own_reading, record_ties, rule_thing
from abilities.scu_guard.forms import understand
from tests.scu_guard_support import OK, REJECT, verdict_beside

# (rule, claim, cited record): contradictions the guard now rejects
REJECTED = [
    # a pronoun's reading: the record names the mash tun for the very number the claim reports
    ("The mash tun temperature must not exceed 78 °C.",
     "It peaked at 176 °F around 10:00 and was back to 160 °F by 11:00.",
     "Brewhouse log, mash tun MT-1: 09:00 150 °F; 10:00 176 °F (peak); 11:00 160 °F."),
    # a tank known by its code only: the record's heading names the rule's tanks
    ("Quarantine tanks must be kept at or below 26 °C.",
     "Q2 read 77 °F at 08:00, rose to 82 °F by 14:00 and was back at 78 °F by 20:00.",
     "Quarantine tank Q2 log: 08:00 77 °F; 14:00 82 °F; 20:00 78 °F."),
    # a van known by its fleet code: the record's line names the van with the clocked speed
    ("Delivery vans must not exceed 15 km/h on the depot apron.",
     "DV-14 was clocked at 14 mph between bay 3 and the exit at 07:10.",
     "Apron speed log, 07:10: van DV-14 (bakery run), recorded 14 mph, bay 3 to exit."),
    # a bare number under the unit its list gives once
    ("The proofing cabinet temperature must not exceed 38 °C.",
     "It held 95 °F at the start and climbed to 104 °F by the last check.",
     "Night bake sheet: proofing cabinet (°F) 22:00 95; 01:00 99; 04:00 104."),
    # two amounts in one clause: the claim's own word gives the peak, the other is the set point
    ("The oven core temperature must not exceed 250 °C.",
     "Oven 4 peaked at 500 °F at 13:20, a little above its 480 °F set point.",
     "Oven 4 bake record: peak 500 °F at 13:20; set point 480 °F."),
    # two amounts in one clause: the rule's thing is named in the amount's own phrase, the other's in none
    ("Boat speed through the water must not exceed 5 knots during sampling.",
     "Against the ebb she did 4 kn over the ground and 6 kn through the water during sampling.",
     "Survey notes."),
]

# near misses: the guard must not reject them
KEPT = [
    # the record gives the number for another thing than the rule's
    ("Guest room temperature must not exceed 24 °C.",
     "It ran at 75 °C all morning.",
     "Boiler house log: boiler B2 flow 75 °C."),
    # another amount of the claim is told of the rule's own thing
    ("The freezer aisle must be kept at or below -18 °C.",
     "The chiller aisle climbed to -10 °C at noon, while the freezer aisle held at -20 °C.",
     "Store log: chiller aisle -10 °C at 12:00; freezer aisle -20 °C."),
    # two amounts in one clause and no word of the claim sets either apart
    ("Storage racks must not exceed 3 m in height.",
     "The 5 m mezzanine rack and the 2.5 m floor rack were both inspected.",
     "Rack register: mezzanine rack 5 m; floor rack 2.5 m."),
    # an item of a list that gives its own unit reads its own thing, not the thing the list opened with
    ("Archive boxes in cold storage must be held at or below 5 °C.",
     "The reading room store sits at around 19 °C.",
     "Store summary: boxes in cold storage at 3 °C; the reading room collection store at 19 °C."),
    # in one clause, the rule's thing is in the other amount's phrase
    ("Boat speed through the water must not exceed 5 knots during sampling.",
     "Against the ebb she did 6 kn over the ground but only 4 kn through the water during sampling.",
     "Survey notes."),
    # the record's number is a date's or a time's part, not a reading
    ("Kiln shelves must not exceed 40 kg each.",
     "It took 12 kg more than planned.",
     "Kiln shelf log 12/05: loaded at 12:40."),
]


@pytest.mark.parametrize(("rule", "claim", "record"), REJECTED)
def test_reading_tied_to_the_rules_thing_rejects(rule: str, claim: str, record: str) -> None:
    assert verdict_beside(rule, claim, record) == REJECT


@pytest.mark.parametrize(("rule", "claim", "record"), KEPT)
def test_reading_of_another_thing_is_not_rejected(rule: str, claim: str, record: str) -> None:
    assert verdict_beside(rule, claim, record) != REJECT


def test_rule_thing_is_the_subject_or_what_its_measure_is_of() -> None:
    # a thing: its noun; a measure ("temperature"): the words of what it measures
    assert rule_thing("Delivery vans must not exceed 15 km/h on the depot apron.") == {"van"}
    assert {"mash", "tun"} <= rule_thing("The mash tun temperature must not exceed 78 °C.")
    assert "temperature" not in rule_thing("The mash tun temperature must not exceed 78 °C.")


def test_record_ties_needs_the_same_number_and_the_thing() -> None:
    form = understand("The mash tun temperature must not exceed 78 °C.")
    assert form is not None
    assert record_ties(form, "176 °F", "[temperature]", ["Brewhouse log, mash tun MT-1: 10:00 176 °F."])
    assert not record_ties(form, "176 °F", "[temperature]", ["Brewhouse log, mash tun MT-1: 10:00 170 °F."])
    assert not record_ties(form, "176 °F", "[temperature]", ["Boiler log: flow 176 °F."])


def test_own_reading_outranked_by_an_amount_told_of_the_rules_words() -> None:
    form = understand("The freezer aisle must be kept at or below -18 °C.")
    assert form is not None
    claim = "The chiller aisle climbed to -10 °C at noon, while the freezer aisle held at -20 °C."
    assert own_reading(form, claim, claim.index("-10"))[1] is False


# OK claims no longer held for review: another reading, inside the band, is told of the rule's own words
CLEARED = [
    ("The walk-in freezer must be kept at or below -18 °C.",
     "The ice-cream display cabinet had drifted up to -12 °C, so Tom moved the tubs into the walk-in freezer, "
     "which was holding at -21 °C.",
     "Shift note: display cabinet -12 °C; walk-in freezer -21 °C."),
    ("Tractors must not exceed 10 km/h inside the packing yard.",
     "T-7 reached 25 km/h on the farm track to the orchard and kept to 8 km/h once inside the packing yard.",
     "Tractor telematics T-7: farm track max 25 km/h; packing yard max 8 km/h."),
    ("Amplified music at the marquee must not exceed 90 dB, measured at the neighbour's wall.",
     "The band's PA was rated at 120 dB, but the readings at the neighbour's wall peaked at 86 dB.",
     "Event sheet: PA rated 120 dB; neighbour's wall readings 82, 86 dB."),
]


@pytest.mark.parametrize(("rule", "claim", "record"), CLEARED)
def test_amount_of_another_thing_beside_the_rules_kept_reading_is_ok(rule: str, claim: str, record: str) -> None:
    assert verdict_beside(rule, claim, record) == OK


def test_outranked_needs_the_other_reading_inside_the_band() -> None:
    form = understand("The walk-in freezer must be kept at or below -18 °C.")
    assert form is not None
    kept = "The display cabinet drifted up to -12 °C while the walk-in freezer was holding at -21 °C."
    broken = "The display cabinet drifted up to -12 °C while the walk-in freezer was holding at -15 °C."
    assert outranked(form, kept, kept.index("-12"))
    assert not outranked(form, broken, broken.index("-12"))
