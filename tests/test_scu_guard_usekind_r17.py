"""scu_guard round 17: a banned kind named by a brand or a word WordNet does not know, its kind read from the
claim's own grammar. A ban of a thing ("Food and drink are not permitted in the darkroom") or of a doing
("Smoking is prohibited in the hayloft") is broken by a thing named only by a brand when the claim does to it, to
its container or to "it" after them, a verb WordNet derives to a thing of the ban's kind ("sipped from it": drink
-> beverage; "snacked on a packet of ...": snack, a food), or a verb of the banned doing ("puffing on ...", "a lit
...": lighting up entails smoking); a thing beside another that stands in the place is in the place too ("beside
the enlarger in the darkroom"). A ban stated by "no" and its things alone ("No food or drink on the bandstand")
is read the same way, and two places joined by "and" are each the ban's place. Real spaCy parses; sentences written for these tests, none is in the labelled sets.
Near misses that must stay OK: the brand outside the rule's place, an empty can, a sealed bottle only carried,
a drink against a ban of alcohol, a denied act, a verb that tells nothing of the thing ("toasted ... with")."""

from __future__ import annotations

from tests.scu_guard_support import OK, REJECT
from tests.scu_guard_support import verdict_beside as _v

DARKROOM = "Food and drink are not permitted in the darkroom."
CLEAN = "Food is not permitted in the clean room."
ARCHIVE = "Alcohol is forbidden in the archive reading room."
HAYLOFT = "Smoking is prohibited in the hayloft."
FERRY = "Smoking is forbidden on the ferry's car deck."
SERVERS = "Drinks are not allowed in the server room."


def test_a_brand_drunk_or_eaten_in_the_place_breaks_a_ban_of_its_kind() -> None:
    assert _v(DARKROOM, "Priya had a can of Tango beside the enlarger in the darkroom and sipped from it while "
                        "the prints dried.") == REJECT
    assert _v(DARKROOM, "Priya was snacking on a bag of Wotsits at the sink in the darkroom.") == REJECT
    assert _v(CLEAN, "Tom snacked on a packet of Hula Hoops in the clean room.") == REJECT
    assert _v(SERVERS, "The night engineer gulped from a bottle of Lucozade at rack 4 in the server room.") == REJECT


def test_a_brand_smoked_in_the_place_breaks_a_ban_of_smoking() -> None:
    assert _v(HAYLOFT, "Declan had a lit Rothmans in the hayloft while stacking bales.") == REJECT
    assert _v(HAYLOFT, "Declan was puffing on a Vuse in the hayloft while stacking bales.") == REJECT
    assert _v(FERRY, "A lorry driver was puffing on a Lost Mary on the car deck during the crossing.") == REJECT


def test_the_brand_elsewhere_or_not_taken_in_keeps_the_ban() -> None:
    assert _v(DARKROOM, "Priya had a can of Tango in her locker outside the darkroom and sipped from it at "
                        "lunch.") == OK
    assert _v(DARKROOM, "Priya put an empty can of Tango in the recycling bin in the darkroom.") == OK
    assert _v(DARKROOM, "Priya carried a sealed bottle of Volvic through the darkroom.") == OK
    assert _v(HAYLOFT, "Declan had a lit Rothmans in the yard behind the hayloft.") == OK
    assert _v(SERVERS, "The contractor toasted the migration with Irn-Bru in the server room.") == OK


def test_a_drink_against_a_ban_of_alcohol_or_a_denied_act_keeps_the_ban() -> None:
    assert _v(ARCHIVE, "The visiting professor sipped from a bottle of Evian at his desk in the archive reading "
                       "room.") == OK
    assert _v(HAYLOFT, "Nobody lit a Rothmans in the hayloft that night.") == OK
    assert _v(HAYLOFT, "Declan never lit a Rothmans in the hayloft.") == OK


BANDSTAND = "No food or drink on the bandstand."
ASSAY = "No eating or drinking in the assay lab."
JETTY = "Alcohol is forbidden in the clubhouse and on the jetty."


def test_a_ban_stated_by_no_and_its_things_alone() -> None:
    assert _v(BANDSTAND, "The trumpeter kept a can of Vimto under his chair on the bandstand and sipped from it "
                         "between sets.") == REJECT
    assert _v(ASSAY, "Imran was snacking on a bag of Quavers at bench 2 in the assay lab.") == REJECT
    assert _v(ASSAY, "Imran sipped his tea in the assay lab.") == REJECT
    assert _v(BANDSTAND, "The trumpeter kept a can of Vimto in his car and sipped from it between sets.") == OK
    assert _v(ASSAY, "Imran carried a sealed bottle of Volvic through the assay lab.") == OK


def test_a_ban_of_two_places_joined_by_and_holds_in_each() -> None:
    assert _v(JETTY, "After the race the crews drank beer on the jetty.") == REJECT
    assert _v(JETTY, "After the race the crews drank lemonade on the jetty.") == OK


def test_a_ban_by_no_anywhere_in_a_place() -> None:
    rule = "No smoking or vaping anywhere on the factory floor."
    assert _v(rule, "A fitter was puffing on a Vuse at the lathe on the factory floor.") == REJECT
    assert _v(rule, "A fitter was puffing on a Vuse in the car park behind the factory.") == OK
