"""Round 12 readings of allowed places, on real parses: a cited legend that says what a code stands for, the
scale of places from WordNet, material words and open air, "outside" the allowed place, and the rules read as
place rules ("in P only", "must be stored in P"). Each contradicting wording sits beside one that must stay."""

from __future__ import annotations

import pytest

from abilities.scu_guard import legends, place_scale
from abilities.scu_guard.places import read_places
from tests.scu_guard_support import OK, REJECT, REVIEW, verdict

SAMPLES = "Frozen samples may be stored only in Lab 3."
LEGEND = "Floor key: C10 = Lab 3 (freezer lab); C12 = Histology lab; C14 = Seminar room."
CANS = "Paint cans may be stored only in the paint shed."
RAGS = "Greasy rags must be placed only in the steel bin by the workshop door."
CRATES = "Beehive frames may be stored only in the honey house."
TACK = "Saddles may be kept in the tack room only."
SEEDS = "Seed trays must be kept in the potting shed."
BALLS = "Match balls may be kept only in the indoor store."
JARS = "Spice jars may be stored in the pantry only."


def test_a_legend_is_two_entries_with_one_sign() -> None:
    es = legends.entries(LEGEND)
    assert [e.key for e in es] == ["C10", "C12", "C14"]
    assert legends.head_of(es[0].desc) == "Lab 3"
    assert legends.entries("Note: samples moved to the freezer at 09:00.") == ()
    assert {"b-07-1", "b-07"} <= legends.names_of("bay B-07-1")


def test_scales_from_wordnet() -> None:
    assert place_scale.scale("shed") == "building" and place_scale.scale("kitchen") == "room"
    assert place_scale.scale("bin") == "small" and place_scale.scale("meadow") == "land"
    assert place_scale.other_site("barn", "shed")
    assert not place_scale.other_site("bin", "crate")  # a box may stand in a box
    assert not place_scale.other_site("meadow", "reserve")  # land nests: a maybe
    assert place_scale.room_in_building("meadow", "reserve") or place_scale.scale("reserve") != "land"
    assert place_scale.larger("warehouse", "kitchen")
    assert place_scale.other_materials(frozenset({"plastic"}), frozenset({"steel"}))
    assert not place_scale.other_materials(frozenset({"steel"}), frozenset({"metal"}))


def test_place_rules_read() -> None:
    tack = read_places(TACK)
    assert tack is not None and tack.places == ("the tack room",)
    seeds = read_places(SEEDS)
    assert seeds is not None and seeds.places == ("the potting shed",)
    lab = read_places(SAMPLES)
    assert lab is not None and lab.places == ("Lab 3",)
    assert read_places("Seed trays must not be kept in the potting shed.") is None
    assert read_places("Paint must be kept between 5 and 25 °C.") is None


@pytest.mark.parametrize(("rule", "claim", "chunks", "want"), [
    # a cited legend describes the claim's code as another place
    (SAMPLES, "The frozen samples were stored in Room C12 overnight.", {"c1": LEGEND}, REJECT),
    (SAMPLES, "The frozen samples were stored in Room C10 overnight.", {"c1": LEGEND}, OK),
    # another building, another room of the same scale
    (CANS, "The paint cans were stored in the barn over the winter.", None, REJECT),
    (CANS, "The paint cans were stored in the paint shed over the winter.", None, OK),
    (JARS, "The spice jars were stored in the kitchen for the weekend.", None, REJECT),
    (JARS, "The spice jars were stored in the pantry for the weekend.", None, OK),
    # a smaller place may stand inside the allowed one
    (CANS, "The paint cans were stored in a cupboard on Friday.", None, OK),
    # a larger place may hold it: a maybe
    (CRATES, "The beehive frames were stored in the meadow.", None, REVIEW),
    # what a place is made of
    (RAGS, "The greasy rags were put in the plastic bin.", None, REJECT),
    (RAGS, "The greasy rags were put in the steel bin.", None, OK),
    # in the open against under a roof
    (BALLS, "The match balls were kept in the outdoor store.", None, REJECT),
    (BALLS, "The match balls were kept in the indoor store.", None, OK),
    # a duty to keep a thing somewhere
    (SEEDS, "The seed trays were kept in the garage.", None, REJECT),
    (SEEDS, "The seed trays were kept in the potting shed.", None, OK),
    # "outside" the allowed place
    (TACK, "The saddles were kept outside the tack room overnight.", None, REJECT),
    (TACK, "The saddles were kept in the tack room, outside the main house.", None, OK),
])
def test_verdicts(rule: str, claim: str, chunks: dict[str, str] | None, want: tuple[str, str]) -> None:
    assert verdict([rule], claim, chunks) == want
