"""scu_guard round 16: rules that allow a thing only in some places. Three readings: a vessel named by what it holds
("the two bleach bottles") is the rule's thing where the rule names the content ("Bleach must be stored only in
..."), unless the vessel is said to be empty; a claim whose sentence tells an allowed place out of use ("Because the
charging room was locked, ...") takes its thing for one the rule sends there, though it names the thing without
the rule's narrowing words; a doing the rule names by a noun ("Welding may be carried out only in Bay C") done in
a claim by its verb ("welded the bracket in Bay F"); and a rule that names its place twice, in apposition ("the haematology laboratory,
Room 4.12"), is kept by a claim that uses the second name. Real WordNet 3.0 data and real spaCy parses; sentences
written for these tests, none is in the labelled sets. Near misses that must stay OK: an empty vessel, a device
named after the content, the content put back in the allowed place, the allowed place named by its room number,
a match postponed rather than moved, a thing not done at all while the allowed place was shut, the doing done in
the allowed place with a place in the sentence said of another act or person."""

from __future__ import annotations

from tests.scu_guard_support import OK, REJECT
from tests.scu_guard_support import verdict_beside as _v

BLEACH = "Bleach must be stored only in the cleaning cupboard in Block D."
SCOOTER = "Electric scooters may be charged only in the charging room in Block B."
NETBALL = "Junior netball matches may be played only in the sports hall."
KILN = "Pottery kilns may be fired only in the kiln room."
FILMS = "Blood films may be stained only in the haematology laboratory, Room 4.12."
BLOCKS = "Tissue blocks may be cut only in the histology laboratory, Room 3.08."
WELD = "Welding may be carried out only in Bay C."
SPRAY = "Spray painting may be done only in the paint booth in Shed C."


def test_a_vessel_named_by_its_content_is_the_rules_thing() -> None:
    claim = "The two bleach bottles were left in the cleaning cupboard in Block F over the weekend."
    assert _v(BLEACH, claim) == REJECT


def test_an_empty_vessel_holds_none_of_the_thing() -> None:
    claim = "The empty bleach bottles were left in the cleaning cupboard in Block F for recycling."
    assert _v(BLEACH, claim) == OK


def test_a_device_named_after_the_content_is_no_vessel_of_it() -> None:
    assert _v(BLEACH, "The bleach pump was repaired in the workshop in Block F.") == OK


def test_the_vessel_in_the_allowed_place_keeps_it() -> None:
    assert _v(BLEACH, "The two bleach bottles were put back in the cleaning cupboard in Block D.") == OK


def test_an_allowed_room_said_locked_makes_the_thing_the_rules() -> None:
    claim = "Because the charging room was locked, the scooter was charged overnight in the bike shed."
    assert _v(SCOOTER, claim) == REJECT


def test_an_allowed_hall_said_flooded() -> None:
    claim = "With the sports hall flooded, the Under-11s' match was played in the church hall."
    assert _v(NETBALL, claim) == REJECT


def test_an_allowed_room_under_work() -> None:
    claim = "With the kiln room being repainted, the kiln was fired in the garage."
    assert _v(KILN, claim) == REJECT


def test_the_thing_not_done_while_the_allowed_place_was_shut_keeps_it() -> None:
    claim = "Because the charging room was locked, the scooter was not charged at all that night."
    assert _v(SCOOTER, claim) == OK
    assert _v(NETBALL, "With the sports hall flooded, the Under-11s' match was postponed to Saturday.") == OK


def test_the_allowed_place_used_once_it_was_back_keeps_it() -> None:
    claim = "Once the sports hall had dried out, the Under-11s' match was played there."
    assert _v(NETBALL, claim) == OK


def test_the_allowed_place_named_by_its_room_number_keeps_it() -> None:
    assert _v(FILMS, "All of Monday's blood films were stained in Room 4.12.") == OK
    assert _v(BLOCKS, "All of Monday's tissue blocks were cut in Room 3.08.") == OK


def test_another_room_number_is_another_place() -> None:
    assert _v(FILMS, "Monday's blood films were stained in Room 4.15.") == REJECT
    assert _v(BLOCKS, "Monday's tissue blocks were cut in Room 3.11.") == REJECT


def test_another_battery_while_the_cabinet_was_full_is_another_thing() -> None:
    rule = "E-bike batteries may be charged only in the fire-safe cabinet in the back room."
    claim = "Because the fire-safe cabinet was full, the drill batteries were charged on the front counter."
    assert _v(rule, claim) == OK


def test_a_doing_named_by_a_noun_done_by_its_verb_elsewhere() -> None:
    assert _v(WELD, "Dev welded the bracket in Bay F.") == REJECT
    assert _v(SPRAY, "The gate was spray painted in the yard of Shed F.") == REJECT


def test_the_doing_in_the_allowed_place_with_other_places_for_other_acts_keeps_it() -> None:
    assert _v(WELD, "Dev, who works in Bay F, welded the bracket in Bay C.") == OK
    assert _v(WELD, "Dev welded the bracket in Bay C and then took it to Bay F for painting.") == OK
    assert _v(WELD, "Dev did not weld anything in Bay F.") == OK
    claim = "The gate was spray painted in the paint booth in Shed C and left to dry in Shed F."
    assert _v(SPRAY, claim) == OK


def test_a_verb_named_like_a_substance_is_no_doing_of_the_rule() -> None:
    # "Heating oil" is a thing, not a doing: oiling hinges elsewhere does not store oil there
    rule = "Heating oil must be stored only in the tank room."
    assert _v(rule, "The caretaker oiled the gate hinges in the boiler house.") == OK


def test_a_home_inside_an_allowed_district_keeps_it() -> None:
    rule = "Mobile signings may be performed only within Kent County."
    assert _v(rule, "The lease was signed at the tenant's home in Dover, Kent.") == OK
    # someone's own device against a server nobody owns is still another place
    rule = "Patient files may be kept only on the clinic's records server."
    assert _v(rule, "The physio copied the patient files onto her own laptop.") == REJECT
