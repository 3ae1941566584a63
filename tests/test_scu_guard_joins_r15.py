"""scu_guard round 15: a claim that names a place or a stock item only by its code, read with what a cited record
lists under that code ("D2 cooked rice", "K7 — fireworks for the finale", "Tank 2 — PG 58-28"). Two readings: a rule
that keeps two things out of one holder, broken when the claim puts one in a coded holder and the record lists the
other there; and the claim read with the record's entry beside its code, for allow-lists of names, codes and places.
Real WordNet 3.0 data and real spaCy parses; sentences written for these tests, none is in the labelled sets. Near
misses must stay OK: a code whose entry holds allowed things, a place the record or the claim says was emptied, a
record made after the claim's date."""

from __future__ import annotations

from abilities.scu_guard import joins
from tests.scu_guard_support import OK, REJECT
from tests.scu_guard_support import verdict_beside as _v

SOLVENTS = "Solvents must never be stored in the same cabinet as oxidisers."
CABINETS = ("Cabinet list: C3 - dry reagents (salts, sugars); C4 - oxidisers (potassium permanganate, hydrogen "
            "peroxide); C5 - glassware.")
FISH = "Raw fish must never be kept in the same drawer as cooked rice."
DRAWERS = "Fridge drawer map: D1 cucumbers, D2 cooked rice, D3 pickled ginger"
BATTERIES = "Lithium batteries must never be stored in the same crate as fireworks."
CRATES = "Crate manifest: K6 — stage cables, adapters; K7 — fireworks for the finale; K8 — costumes."
BINDER = "Surface courses may use only PG 64-22 binder."
TANKS = "Tank list: Tank 1 — PG 64-22; Tank 2 — PG 58-28."
TEA = "Guests may be served only Ceylon or Assam tea."
CADDIES = "Tea caddies: T1 — Assam tea; T2 — Lapsang tea; T3 — Ceylon tea."
CHARGING = "Electric buses may be charged only in the North Charging Hall."
CHARGERS = "Charger list: C3 — North Charging Hall; C4 — South Workshop; C5 — North Charging Hall."


def test_a_record_reads_as_a_list_of_codes_of_one_shape() -> None:
    assert joins.entries(DRAWERS) == (("D1", "cucumbers"), ("D2", "cooked rice"), ("D3", "pickled ginger"))
    assert dict(joins.entries(TANKS)) == {"Tank 1": "PG 64-22", "Tank 2": "PG 58-28"}
    assert joins.entries("Tank 3 was cleaned on Monday.") == ()


def test_the_other_member_listed_in_the_coded_holder_breaks_the_rule() -> None:
    assert _v(SOLVENTS, "The technician stored the acetone in cabinet C4 on Monday.", CABINETS) == REJECT
    assert _v(FISH, "The sushi chef put the leftover raw salmon into drawer D2 overnight.", DRAWERS) == REJECT
    assert _v(BATTERIES, "The spare lithium batteries were packed in crate K7 for the tour.", CRATES) == REJECT


def test_a_holder_listing_other_things_keeps_the_rule() -> None:
    assert _v(SOLVENTS, "The technician stored the acetone in cabinet C5 on Monday.", CABINETS) == OK
    assert _v(FISH, "The sushi chef put the leftover raw salmon into drawer D3 overnight.", DRAWERS) == OK
    assert _v(BATTERIES, "The spare lithium batteries were packed in crate K8 for the tour.", CRATES) == OK


def test_a_holder_said_emptied_keeps_the_rule() -> None:
    emptied = "Cabinet list: C3 - dry reagents; C4 - empty, cleared for inspection; C5 - glassware."
    assert _v(SOLVENTS, "The technician stored the acetone in cabinet C4 on Monday.", emptied) == OK
    assert _v(FISH, "After D2 was emptied, the sushi chef put the leftover raw salmon into drawer D2 overnight.",
              DRAWERS) == OK


def test_a_record_made_after_the_claims_date_keeps_the_rule() -> None:
    later = "Cabinet list (updated 20 June): C3 - dry reagents; C4 - oxidisers (peroxides); C5 - glassware."
    assert _v(SOLVENTS, "The technician stored the acetone in cabinet C4 on 3 May.", later) == OK
    assert _v(SOLVENTS, "The technician stored the acetone in cabinet C4 on 3 July.", later) == REJECT


def test_a_coded_source_of_a_thing_not_on_the_list_breaks_it() -> None:
    assert _v(BINDER, "The surface course used binder from tank 2.", TANKS) == REJECT
    assert _v(TEA, "The guests were served tea from caddy T2.", CADDIES) == REJECT
    assert _v(CHARGING, "Bus 905 charged overnight at charger C4.", CHARGERS) == REJECT


def test_a_coded_source_of_an_allowed_thing_keeps_it() -> None:
    assert _v(BINDER, "The surface course used binder from tank 1.", TANKS) == OK
    assert _v(TEA, "The guests were served tea from caddy T1.", CADDIES) == OK
    assert _v(CHARGING, "Bus 905 charged overnight at charger C5.", CHARGERS) == OK


def test_the_joined_words_stand_beside_the_code() -> None:
    joined, spans = joins.with_contents("The guests were served tea from caddy T2.", [CADDIES])
    assert joined == "The guests were served tea from caddy T2, Lapsang tea."
    assert [joined[s:e] for s, e in spans] == [", Lapsang tea"]
    # an entry that states an amount is not set in: it would be read as the claim's own
    assert joins.with_contents("The chamber MH-4 was entered.", ["MH-4 chamber, depth 6 m; MH-5 chamber, depth 2 m"])[1] \
        == []
