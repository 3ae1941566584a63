"""scu_guard round 14: rules that reserve an action for a role ("Only vets may inject antibiotics"). Three readings:
a doer of another role who does the rule's action to a thing WordNet calls a kind of the rule's thing ("penicillin"
for "antibiotics"); a doer named by the reserved noun under a post below it ("the assistant chef" for "the head
chef"); and a roster entry whose later comma parts say what the person lacks ("N. Quist, seasonal picker, no
forklift licence"). Real WordNet 3.0 data and real spaCy parses; sentences written for these tests, none is in the
labelled sets. Each break has near misses that must stay OK: the reserved doer doing it, a role the rule itself
names, an entry that says the person holds the credential."""

from __future__ import annotations

from tests.scu_guard_support import OK, REJECT
from tests.scu_guard_support import verdict_beside as _v

VETS = "Only vets may inject antibiotics."
CHEF = "Only the head chef may change the menu."
ENGINEER = "Only the chief engineer may sign the logbook."
FORKLIFT = "Only staff holding a forklift licence may drive the forklift."
VAULT = "Only security-cleared staff may open the vault."
BAILIFF = "Only sworn bailiffs holding a warrant may seize goods."



def test_another_role_does_it_to_a_kind_of_the_rules_thing() -> None:
    assert _v(VETS, "The kennel assistant injected penicillin into the spaniel.") == REJECT


def test_the_reserved_doer_doing_it_to_a_kind_keeps_the_rule() -> None:
    assert _v(VETS, "The vet injected penicillin into the spaniel.") == OK
    assert _v("Only pharmacists may dispense opioids.", "The pharmacist dispensed codeine to the patient in bed 4.") == OK


def test_a_post_under_the_reserved_one_breaks_the_rule() -> None:
    assert _v(CHEF, "The assistant chef changed the dessert list on the menu.") == REJECT
    assert _v(ENGINEER, "The deputy engineer signed the logbook at noon.") == REJECT
    assert _v("Only the senior curator may approve a loan.", "The assistant curator approved the loan of the vase.") \
        == REJECT


def test_the_reserved_post_itself_or_a_rule_without_a_top_keeps_it() -> None:
    assert _v(CHEF, "The head chef changed the dessert list on the menu.") == OK
    assert _v(ENGINEER, "The chief engineer signed the logbook at noon.") == OK
    assert _v("Only a curator may approve a loan.", "The assistant curator approved the loan of the vase.") == OK


def test_a_roster_entry_whose_later_part_denies_the_credential() -> None:
    claim = "The pallet was moved by forklift, driven by Nora Quist."
    assert _v(FORKLIFT, claim, "Yard roster: N. Quist, seasonal picker, no forklift licence.") == REJECT
    assert _v(VAULT, "The vault was opened at 06:10 by Ivo Brandt.",
              "Clearance list: I. Brandt, contractor, clearance pending.") == REJECT
    assert _v(BAILIFF, "The van was seized on Monday by Petra Lund.",
              "Officer list - Petra Lund, staff no. 412: office clerk, no warrant.") == REJECT


def test_a_roster_entry_that_gives_the_credential_keeps_the_rule() -> None:
    claim = "The pallet was moved by forklift, driven by Nora Quist."
    assert _v(FORKLIFT, claim, "Yard roster: N. Quist, seasonal picker, forklift licence valid to 2027.") == OK
    assert _v(VAULT, "The vault was opened at 06:10 by Ivo Brandt.",
              "Clearance list: I. Brandt, contractor, cleared March 2025.") != REJECT
    assert _v(BAILIFF, "The van was seized on Monday by Petra Lund.",
              "Officer list - Petra Lund, staff no. 412: sworn bailiff, warrant 2291.") != REJECT
    # a later part that denies something else says nothing of the credential
    assert _v(FORKLIFT, "Nora Quist drove the forklift to bay 3.",
              "Yard roster: N. Quist, seasonal picker, reported no faults.") != REJECT
