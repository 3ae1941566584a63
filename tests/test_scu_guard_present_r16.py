"""scu_guard round 16: a thing or a doing a rule bans from a place ("Food and drink are not permitted in the reading
room", "Smoking is prohibited in the stables", "Visitors must not climb into the skips"), told as there by the
claim's own grammar: the rule's thing (or a kind of it by WordNet) as the subject or object of a verb told as a
fact or granted as a permission, or the rule's doing (or a manner of it) done by the rule's doer, in a phrase
that names the rule's place. Real WordNet 3.0 data and real spaCy parses; sentences written for these tests, none
is in the labelled sets. Near misses that must stay OK: the thing elsewhere or only near the place, denied,
removed, of another kind, or only possibly there; the doing elsewhere or by nobody."""

from __future__ import annotations

from abilities.scu_guard.present import read_ban
from tests.scu_guard_support import OK, REJECT
from tests.scu_guard_support import verdict_beside as _v

FOOD = "Food and drink are not permitted in the reading room."
GLASS = "Glass bottles are forbidden on the pool deck."
SMOKE = "Smoking is prohibited in the stables."
SWIM = "Swimming is not allowed in the reservoir."
CAMERA = "Cameras are not permitted in the courtroom."
PHONES = "Mobile phones must never be taken into the exam hall."
QUARRY = "No one may swim in the quarry lake."


def test_a_kind_of_the_banned_thing_left_in_the_place() -> None:
    # tea is a drink and a sandwich a food (WordNet); "in the reading room" is nested under "on desk 4"
    assert _v(FOOD, "A mug of tea and a sandwich were left on desk 4 in the reading room.") == REJECT


def test_the_thing_only_near_the_place_or_denied_or_removed_keeps_it() -> None:
    assert _v(FOOD, "A mug of tea and a sandwich were left on the bench outside the reading room.") == OK
    assert _v(FOOD, "No food or drink was found in the reading room.") == OK
    assert _v(FOOD, "A mug of tea was removed from the reading room.") == OK


def test_a_permission_of_the_banned_thing_in_the_place() -> None:
    assert _v(FOOD, "Staff may keep coffee in the reading room.") == REJECT


def test_a_thing_that_only_may_have_been_there_is_no_permission() -> None:
    assert _v(FOOD, "Someone may have left coffee in the reading room.") != REJECT


def test_the_banned_thing_with_the_rules_modifier_on_the_place() -> None:
    assert _v(GLASS, "A glass bottle of cola stood on a sunlounger on the pool deck.") == REJECT


def test_another_kind_of_the_thing_or_one_found_and_taken_away_is_not_rejected() -> None:
    assert _v(GLASS, "Plastic bottles of cola stood on the pool deck.") == OK
    assert _v(GLASS, "A glass bottle of cola was found on the pool deck and removed.") != REJECT


def test_a_banned_activity_done_in_the_place_by_its_verb_or_a_manner_of_it() -> None:
    assert _v(SMOKE, "A groom smoked a cigarette in the stables after evening feed.") == REJECT
    # "puff" is a manner of "smoke" in WordNet; the doing seen is told as a fact
    assert _v(SMOKE, "A groom was seen puffing on a cigarette in the stables.") == REJECT


def test_the_activity_elsewhere_or_by_nobody_keeps_it() -> None:
    assert _v(SMOKE, "A groom smoked a cigarette in the yard, well away from the stables.") == OK
    assert _v(SMOKE, "Nobody smoked in the stables.") == OK


def test_an_irregular_verb_of_the_activity() -> None:
    # the parser may leave "swam" unlemmatised; WordNet's exceptions give "swim"
    assert _v(SWIM, "Two teenagers swam in the reservoir on Sunday.") == REJECT
    assert _v(SWIM, "Two teenagers swam in the lido next to the reservoir on Sunday.") == OK


def test_a_thing_had_in_the_place_and_one_had_on_its_steps() -> None:
    assert _v(CAMERA, "A reporter had a camera in the courtroom during the verdict.") == REJECT
    assert _v(CAMERA, "A reporter had a camera on the court steps during the verdict.") == OK


def test_a_rule_of_putting_the_thing_in_a_place_read_as_a_ban() -> None:
    assert read_ban(PHONES) is not None
    assert _v(PHONES, "A candidate left her mobile phone in the lobby before entering the exam hall.") == OK


def test_a_doing_with_no_thing_banned_from_a_place() -> None:
    assert _v(QUARRY, "Three students swam in the quarry lake on Friday.") == REJECT
    assert _v(QUARRY, "Three students swam in the pool beside the quarry lake on Friday.") == OK


def test_rules_that_are_not_plain_bans_are_not_read() -> None:
    # an exclusion, a condition, a time named where a place would be
    assert read_ban("Oxygen cylinders must never be stored in the same cage as fuel containers.") is None
    assert read_ban("Swimming is not allowed in the lake when the red flag is up.") is None
    assert read_ban("Engine runs are not allowed on Sundays.") is None
