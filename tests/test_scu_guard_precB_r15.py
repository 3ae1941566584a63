"""scu_guard round 15: durations, gaps and counts that measure something other than what the rule bounds.

Three readings, each checked both ways on sentences written for these tests (none is in the labelled sets):
a duration the claim spends in another place than the one a rule bounds the stay in ("rinsed in the yard tub
for 12 days" for "must not stay in the tanning drum for longer than 10 days"); a gap between two dates of
events that name neither the rule's place nor its doing (received .. collected), which is no stay in that
place; and a count over several of the units a rule bounds one by one ("three in run A and two in run B" for
"a kennel run may hold no more than 3 dogs"), each unit read against the bound, never the total. Real spaCy
parses and real WordNet data."""

from __future__ import annotations

from tests.scu_guard_support import OK, REJECT
from tests.scu_guard_support import verdict_beside as _v

DOUGH = "Dough must rest in the fridge for at least 8 hours before it is shaped."
HIDES = "Hides must not stay in the tanning drum for longer than 10 days."
CURING = "Concrete samples must remain in the curing tank for at least 28 days."
RAMP = "Cars must not be parked on the ramp for longer than 20 minutes."
FREEZER = "Samples must not remain in the freezer for longer than 14 days."
KENNEL = "A kennel run may hold no more than 3 dogs at a time."
LIFT = "Each lift car may carry no more than 8 passengers."
RACK = "A drying rack may hold no more than 20 trays at a time."


def test_a_duration_spent_in_another_place_is_not_the_rules_stay() -> None:
    assert _v(DOUGH, "Mia kneaded the dough on the bench for 10 minutes.") == OK
    assert _v(HIDES, "The hide was rinsed in the yard tub for 12 days.") == OK
    assert _v(CURING, "The samples were tested in the lab press for 5 minutes.") == OK
    assert _v(RAMP, "The van was washed in the bay for 45 minutes.") == OK


def test_a_stay_in_the_rules_own_place_still_breaks_it() -> None:
    assert _v(DOUGH, "The dough rested in the fridge for 2 hours before Mia shaped it.") == REJECT
    assert _v(HIDES, "The hide stayed in the tanning drum for 12 days.") == REJECT
    assert _v(CURING, "The samples remained in the curing tank for 14 days.") == REJECT
    assert _v(RAMP, "The van was parked on the ramp for 45 minutes.") == REJECT


def test_a_gap_between_other_events_of_the_thing_is_no_stay_in_the_place() -> None:
    assert _v(HIDES, "The hide was received on 2 March and the client collected the finished leather on 30 April.") \
        == OK
    assert _v(FREEZER, "The sample was registered on 3 May and the report was sent to the client on 2 July.") == OK


def test_a_gap_between_going_into_and_out_of_the_place_still_breaks_it() -> None:
    assert _v(HIDES, "The hide went into the tanning drum on 2 March and was taken out of the drum on 30 March.") \
        == REJECT
    assert _v(FREEZER, "The sample was put in the freezer on 3 May and thawed on 2 June.") == REJECT


def test_a_total_over_several_units_each_within_the_bound_keeps_it() -> None:
    assert _v(KENNEL, "Five dogs are boarding today, three in run A and two in run B.") == OK
    assert _v(LIFT, "Twelve passengers went up, six in car 1 and six in car 2.") == OK
    assert _v(RACK, "There are 30 trays drying, 15 on rack 1 and 15 on rack 2.") == OK


def test_one_unit_over_the_bound_still_breaks_it() -> None:
    assert _v(KENNEL, "Five dogs are boarding today, four in run A and one in run B.") == REJECT
    assert _v(LIFT, "Twelve passengers went up, ten in car 1 and two in car 2.") == REJECT
    assert _v(RACK, "There are 30 trays drying, 25 on rack 1 and 5 on rack 2.") == REJECT
    assert _v(RACK, "There are 30 trays drying on the rack.") == REJECT


VACCINE = "Vaccine fridges must be kept between 2 °C and 8 °C."
TANKS = "Aquarium tanks must not exceed 26 °C."
RAILS = "Guard rails must be at least 1.1 m high."


def test_an_amount_listed_for_another_thing_is_not_held_for_review() -> None:
    assert _v(VACCINE, "The staff-room kettle was at 95 °C and the vaccine fridge read 5 °C on the morning round.") == OK
    assert _v(TANKS, "The pump room was at 31 °C, while the reef tank held 25 °C all day.") == OK
    assert _v(RAILS, "The new plan sets the ladder at 4 m, the kick board at 15 cm and the guard rail at 1.2 m.") == OK


def test_an_amount_listed_for_the_rules_own_thing_is_still_not_ok() -> None:
    assert _v(VACCINE, "The staff-room kettle was at 95 °C and the vaccine fridge read 11 °C on the morning round.") != OK
    assert _v(TANKS, "The pump room was at 24 °C, while the reef tank held 28 °C all day.") != OK
    assert _v(RAILS, "The new plan sets the ladder at 4 m, the kick board at 15 cm and the guard rail at 0.9 m.") != OK
    assert _v(TANKS, "The reef tank read 25 °C in the morning and 28 °C in the afternoon.") != OK


def test_an_amount_whose_own_words_follow_it_is_not_cleared() -> None:
    # the words after an amount ("of steam pressure", "on the roof") and a noun it qualifies ("5 kg tins") are its
    assert _v("Steam pressure must never exceed 3 bar.",
              "After the repair the main boiler is delivering 4 bar of steam pressure, with the spare at 2 bar.") != OK
    assert _v("No roofer may stay on the roof for more than 6 hours in a shift.",
              "Ana spent 480 minutes on the roof, starting at 07:00 and coming down at 15:00.") != OK
    assert _v("No more than 50 kg of goods may be loaded on a trolley at once.",
              "The trolley was loaded with four crates of 5 kg tins weighing 60 kg altogether.") != OK


def test_an_amount_said_of_a_person_of_another_role_is_not_cleared() -> None:
    # a rule on people holds for every role: "the rigger" is a crew member whatever the rule calls him
    assert _v("No crew member may stand closer than 20 m to the charge when it fires.",
              "Nobody but the rigger, who was 12 m away, stood within 20 m of the charge when it fired.") != OK
