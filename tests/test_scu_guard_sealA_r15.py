"""scu_guard round 15: two readings of where a claim puts things. An exclusion of two members that share a noun
("red wine" and "white wine"): a mention of one member names the other only by the shared noun, so "the white
wine is on its own in B9" puts the white wine in B9, not the red; a place told with a label stands for its label
whatever the parse hangs on it. An allow-list of places: a place outside the list said of another thing ("it's
the skip that moved to the west gate") is not the rule's thing moved there. Real spaCy parses; sentences written
for these tests, none is in the labelled sets. Each has breaches of the same shape that must still be found."""

from __future__ import annotations

from tests.scu_guard_support import OK, REJECT
from tests.scu_guard_support import verdict_beside as _v

WINE = "Red wine and white wine must never be aged in the same cellar bay."
CEMENT = "Dry cement and wet cement must never be kept in the same hopper."
FUEL = "Fuel drums must be stored only in the bunded yard by the east gate."
HAY = "Hay bales must be stacked only in the dry barn by the upper field."
YACHTS = "Visiting yachts must be moored only at the floating pontoon by the east quay."


def test_members_told_in_different_labelled_places_are_apart() -> None:
    assert _v(WINE, "The red wine barrels in B4 share with two casks of port, and the white wine is on its own in B9."
              ) == OK
    assert _v(CEMENT, "The dry cement in H2 shares with some sand, and the wet cement is on its own in H5.") == OK


def test_members_told_in_one_labelled_place_are_together() -> None:
    assert _v(WINE, "The red wine barrels in B4 share with two casks of port, and the white wine is in B4 too.") \
        == REJECT
    assert _v(CEMENT, "The dry cement in H2 shares with some sand, and the wet cement is in H2 too.") == REJECT
    assert _v(WINE, "Bay B4 holds the red wine and the white wine.") == REJECT


def test_a_place_outside_the_list_said_of_another_thing_keeps_the_rule() -> None:
    assert _v(FUEL, "The fuel drums are back in the yard by the east gate; it's the skip that moved to the west gate."
              ) == OK
    assert _v(FUEL, "The fuel drums are back in the yard by the east gate, and the skip was moved to the west gate."
              ) == OK
    assert _v(HAY, "The hay bales are stacked in the barn by the upper field; it's the tractor that was parked in the "
                   "lower field.") == OK
    assert _v(YACHTS, "The visiting yachts are on the pontoon by the east quay; it's the fishing boat that tied up at "
                      "the west quay.") == OK


def test_the_rules_thing_itself_at_a_place_outside_the_list_breaks_it() -> None:
    assert _v(FUEL, "It's the fuel drums that moved to the west gate.") == REJECT
    assert _v(FUEL, "The fuel drums moved to the west gate.") == REJECT
    assert _v(HAY, "The hay bales were stacked in the lower field.") == REJECT
    assert _v(YACHTS, "The visiting yachts tied up at the west quay.") == REJECT
    assert _v(YACHTS, "The harbour master moved the visiting yachts to the west quay.") == REJECT
