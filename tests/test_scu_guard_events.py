"""Exclusion rules read by grammar on real parses: one member put in a labelled place by the claim's own
verb, the other put there by a cited chunk (and the wordings that keep the members apart)."""

from __future__ import annotations

from tests.scu_guard_support import OK, REJECT, verdict

PAINT = "Solvent paint and welding gas must never be kept in the same bay."


def test_member_placed_where_a_chunk_keeps_the_other_is_rejected() -> None:
    chunks = {"c1": "Yard plan: Bay 4 holds the welding gas."}
    assert verdict([PAINT], "The solvent paint tins were stacked in Bay 4 last week.", chunks) == REJECT


def test_member_placed_in_another_bay_is_kept() -> None:
    chunks = {"c1": "Yard plan: Bay 4 holds the welding gas."}
    assert verdict([PAINT], "The solvent paint tins were stacked in Bay 6 last week.", chunks) == OK


def test_member_moved_out_of_the_place_is_not_rejected() -> None:
    chunks = {"c1": "Yard plan: Bay 4 holds the welding gas."}
    assert verdict([PAINT], "The solvent paint tins were taken out of Bay 4 last week.", chunks) != REJECT


def test_negated_placement_is_not_rejected() -> None:
    chunks = {"c1": "Yard plan: Bay 4 holds the welding gas."}
    assert verdict([PAINT], "The solvent paint tins were never stacked in Bay 4.", chunks) != REJECT


def test_label_as_subject_of_the_verb_is_read() -> None:
    chunks = {"c1": "Bay 4 holds the welding gas."}
    assert verdict([PAINT], "Bay 4 now also keeps the solvent paint.", chunks) == REJECT


def test_chunk_that_places_both_members_is_no_firm_reading() -> None:
    # the chunk does not tell the other member's place apart from the claim's member
    chunks = {"c1": "Bay 4 holds the welding gas and the solvent paint was moved away."}
    assert verdict([PAINT], "The solvent paint tins were stacked in Bay 4 last week.", chunks) != REJECT


def test_claim_naming_both_members_is_no_firm_place_reading() -> None:
    chunks = {"c1": "Bay 4 holds the welding gas."}
    got = verdict([PAINT], "The solvent paint went to Bay 9 once the welding gas arrived in Bay 4.", chunks)
    assert got != REJECT


def test_a_date_is_no_place() -> None:
    rule = "The kiln firing and the glaze mixing must never happen on the same day."
    chunks = {"c1": "Glaze mixing is booked on Monday 14."}
    assert verdict([rule], "The kiln firing took place on Monday 14 as planned.", chunks) != REJECT
