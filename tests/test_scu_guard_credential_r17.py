"""scu_guard round 17: a doer the claim's own words rule out for a reserved act. Three readings: a doer the claim
names by a noun WordNet puts under "beginner" ("a trainee welder", "the weekend apprentice") or by a phrase that
denies the rule's own credential word ("a non-certified porter", "a groom without a licence"), with no name a
roster could settle; a doer in the rule's reserved act while the claim says, in a clause set beside it, that the
rule's holder was away ("while the duty pharmacist was on her lunch break", "while Mr. Okafor was on leave"),
where the doer is called by another role or the rule names its one holder by name; and a relative clause that
only sets the holder beside the doer ("who was covering while the harbourmaster took a break") no longer says the
doer is the holder. Real spaCy parses; sentences written for these tests, none is in the labelled sets. Near
misses that must stay OK: the holder did the act, the beginner only watched, a beginner doing an act the rule does
not reserve, the holder away while another holder did it, a doer said to hold the credential."""

from __future__ import annotations

from tests.scu_guard_support import OK, REJECT
from tests.scu_guard_support import verdict_beside as _v

WELD = "Only certified welders may weld pressure vessels."
CRANE = "Only licensed crane operators may operate the tower crane."
DISPENSE = "Only the duty pharmacist may dispense controlled drugs."
HARBOUR = "Only the harbourmaster may assign a berth to a visiting yacht."
CURATOR = "Only the archivist, Mr. Okafor, may approve the loan of a manuscript."
SCAN = "Only registered radiographers may operate the CT scanner."


def test_a_beginner_named_by_a_noun_breaks_a_reserved_act() -> None:
    assert _v(WELD, "The pressure vessels on bay 2 were welded by a trainee fabricator.") == REJECT
    assert _v(CRANE, "On Monday the tower crane was operated by the site apprentice.") == REJECT


def test_a_phrase_denying_the_rules_credential_breaks_it() -> None:
    assert _v(CRANE, "The tower crane was operated by an unlicensed labourer during the lunch hour.") == REJECT


def test_a_beginner_who_only_watched_or_did_another_act_keeps_it() -> None:
    assert _v(WELD, "A certified welder welded the pressure vessels while a trainee fabricator watched.") == OK
    assert _v(WELD, "The trainee fabricator swept the workshop floor on Friday.") == OK
    assert _v(CRANE, "The tower crane was operated by a licensed crane operator, with the apprentice as banksman.") == OK


def test_a_stand_in_while_the_holder_was_away_breaks_it() -> None:
    assert _v(DISPENSE, "The controlled drugs for ward 6 were dispensed by the pharmacy porter while the duty "
                        "pharmacist was on her lunch break.") == REJECT
    assert _v(HARBOUR, "The visiting yacht Kestrel was assigned a berth by the boatyard foreman while the "
                       "harbourmaster was away.") == REJECT
    assert _v(CURATOR, "The loan of the Dunmore manuscript was approved by Ms. Reyes while Mr. Okafor was on "
                       "leave.") == REJECT


def test_a_relative_clause_setting_the_holder_beside_the_doer_is_no_holding() -> None:
    assert _v(HARBOUR, "A berth was assigned to the visiting yacht by P. Lowe, the marina clerk, who was covering "
                       "while the harbourmaster took a break.") == REJECT


def test_the_holder_away_but_the_act_done_by_a_holder_keeps_it() -> None:
    assert _v(DISPENSE, "The controlled drugs were dispensed by the locum duty pharmacist while the regular duty "
                        "pharmacist was on leave.") == OK
    assert _v(DISPENSE, "The duty pharmacist dispensed the controlled drugs while the pharmacy porter was on his "
                        "break.") == OK
    assert _v(SCAN, "The CT scanner was operated by a registered radiographer while the senior radiographer was "
                    "away.") == OK
    assert _v(HARBOUR, "The boatyard foreman moved the dinghies while the harbourmaster was away.") == OK


def test_a_stand_in_with_the_holder_held_up_breaks_it() -> None:
    assert _v(HARBOUR, "With the harbourmaster stuck in traffic, a berth was assigned to the visiting yacht by the "
                       "café owner.") == REJECT
    assert _v(SCAN, "The CT scanner was operated by the ward clerk, J. Amos, who is unregistered.") == REJECT
