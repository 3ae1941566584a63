"""scu_guard round 14: a thing the claim names only by a code or a name, whose sort only a cited record gives
("tram 3011", "G-4 = diesel generator", "H-21 is a chain hoist", "Nala (golden retriever)"). Real WordNet 3.0 data
and real spaCy parses; sentences written for these tests, none is in the labelled sets. Each break has near
misses that must stay OK: a record that gives no sort or another sort, two sorts for one code, a claim that
names its own noun, the step done."""

from __future__ import annotations

from abilities.scu_guard.named import labels, with_labels
from tests.scu_guard_support import REJECT
from tests.scu_guard_support import verdict_beside as _v

FORKLIFT = "Every forklift must have its pre-shift check signed before it is used."
KILN = "Every kiln must be inspected before it is fired."
GENERATOR = "Every generator must be earthed before it is started."
HOIST = "Every hoist must be inspected before it is used."
BARGE = "Every barge must be pumped out before it is moored."



def test_the_shapes_a_record_labels_a_name_in() -> None:
    """The noun before a code, the noun in brackets after a name, a key's sign (=, :, a dash), a copula with an
    article; a number after the noun ("fermentation vessel 3") and words after the noun are no part of the sort."""
    got = labels(("Depot log: 05:12 tram 3011 out.", "Kofi (golden retriever), owner J. Fenwick.",
                  "Store map: B-07: general dry goods rack; B-12: allergen cage",
                  "Cellar key: FV3 = fermentation vessel 3; FV4 = fermentation vessel 4.",
                  "Biscuit — eagle owl, hand-reared.", "Site note: C-9 is a tower crane hired from Lift Ltd."))
    assert got == {"3011": "tram", "kofi": "golden retriever", "b-07": "general dry goods rack",
                   "b-12": "allergen cage", "fv3": "fermentation vessel", "fv4": "fermentation vessel",
                   "biscuit": "eagle owl", "c-9": "tower crane"}


def test_no_label_for_people_amounts_records_or_two_sorts() -> None:
    """A person's post is read from rosters elsewhere; an amount, a record's own title or an abstract noun is no
    sort of thing; a code given two sorts is left unread."""
    assert labels(("Crew: R. Shah (pilot); M. Dua (winchman).",)) == {}
    assert labels(("Scale: weight 250 lb at check-in; tap 115 °F.",)) == {}
    assert labels(("Tank history T-4: cleaned Nov; load plan ULD-22: six parcels; maximum occupancy 200.",)) == {}
    assert labels(("Plant register: G-4 = diesel generator; G-4 = water pump.",)) == {}


def test_the_claim_keeps_its_own_noun() -> None:
    """A claim that puts its own noun before the code ("Unit A-31") or names the sort already is left as it is."""
    record = ["Fleet list: ambulance A-31; rapid car R-2."]
    assert with_labels("Unit A-31 was used on Friday.", record) == "Unit A-31 was used on Friday."
    assert with_labels("The ambulance, A-31, left at six.", record) == "The ambulance, A-31, left at six."
    assert with_labels("A-31 left at six.", record) == "Ambulance A-31 left at six."


def test_a_code_the_record_calls_the_rules_thing_breaks_the_duty() -> None:
    assert _v(FORKLIFT, "FL-7 was used from 06:10 with its pre-shift check left blank.",
              "Shift log, Mon: forklift FL-7 out 06:10, operator J. Reyes. Pre-shift check: blank.") == REJECT
    assert _v(KILN, "K-12 was fired on Monday without being inspected.",
              "Firing log: kiln K-12 fired Mon 09:00; inspection: none recorded.") == REJECT
    assert _v(GENERATOR, "G-4 was started at 07:00 without being earthed.",
              "Plant register: G-4 = diesel generator; P-2 = water pump.") == REJECT
    assert _v(HOIST, "H-21 was used on Tuesday without being inspected.",
              "Yard note: H-21 is a chain hoist on loan from Brooks.") == REJECT
    assert _v(BARGE, "The 7702 was moored at Lock 4 without being pumped out.",
              "Mooring log: barge 7702 in at 18:00; pump-out: not done.") == REJECT


def test_near_misses_stay_unrejected() -> None:
    # the record gives no sort
    assert _v(FORKLIFT, "FL-7 was used from 06:10 with its pre-shift check left blank.",
              "Shift log, Mon: FL-7 out 06:10, operator J. Reyes. Pre-shift check: blank.") != REJECT
    # the step was done
    assert _v(FORKLIFT, "FL-7 was used from 06:10 with its pre-shift check signed by Reyes.",
              "Shift log, Mon: forklift FL-7 out 06:10, operator J. Reyes. Pre-shift check: signed.") != REJECT
    assert _v(GENERATOR, "G-4 was started at 07:00 after being earthed by Sam.",
              "Plant register: G-4 = diesel generator; P-2 = water pump.") != REJECT
    # another sort of thing
    assert _v(KILN, "K-12 was fired on Monday without being inspected.",
              "Firing log: oven K-12 fired Mon 09:00; inspection: none recorded.") != REJECT
    assert _v(GENERATOR, "P-2 was started at 07:00 without being earthed.",
              "Plant register: G-4 = diesel generator; P-2 = water pump.") != REJECT
    assert _v(HOIST, "H-21 was used on Tuesday without being inspected.",
              "Yard note: H-21 is a pallet truck on loan from Brooks.") != REJECT
    # two sorts for one code
    assert _v(GENERATOR, "G-4 was started at 07:00 without being earthed.",
              "Plant register: G-4 = diesel generator; G-4 = water pump.") != REJECT
    # the claim names its own noun, another than the record's
    assert _v("Every ambulance must be cleaned before it is used.", "Unit A-31 was used on Friday without being "
              "cleaned.", "Fleet list: ambulance A-31; rapid car R-2.") != REJECT
