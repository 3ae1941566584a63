"""Round 12: short conjuncts (gapping, "did not", "so did", "too", "the former") rebuilt in full and read by every
reading, with real parses (sentences written for these tests)."""

from __future__ import annotations

from abilities.scu_guard.ellipsis import rebuilt, with_rebuilt
from tests.scu_guard_support import OK, REJECT, verdict

SKIS = "Rental skis must be waxed after every use."


def test_gapping_takes_the_first_clauses_verb() -> None:
    assert rebuilt("Loan L-93 went to Kew, L-94 to Naturalis, and L-95 to the Field Museum.") == (
        "L-94 went to Naturalis.", "L-95 went to the Field Museum.")
    assert rebuilt("Snacks were served in the café, and drinks in the exhibit hall.") == (
        "Drinks were served in the exhibit hall.",)
    assert rebuilt("Mensah's visits were on Tuesday, Kershaw's on Friday.") == ("Kershaw's visits were on Friday.",)


def test_an_auxiliary_with_a_denial_stands_for_the_verb_phrase() -> None:
    assert rebuilt("During the run Priya Shah wore a respirator; Dev Roy, at his desk, did not.") == (
        "Dev Roy did not wear a respirator.",)
    assert rebuilt("The morning tours each carried a sealed kit, the afternoon one not.") == (
        "The afternoon tour did not carry a sealed kit.",)


def test_the_former_keeps_one_thing_and_denies_the_other() -> None:
    assert rebuilt("Tina wore hairnets and beard nets; Karl, who has a full beard, only the former.") == (
        "Karl wore hairnets.", "Karl did not wear beard nets.")


def test_too_joins_a_doer_or_a_thing() -> None:
    assert rebuilt("Dale crossed to the mainland on the noon boat, and Kerr too.") == (
        "Dale and Kerr both crossed to the mainland on the noon boat.",)
    assert rebuilt("Ute 12 took the detonators up to bench 4, and the cast boosters too.") == (
        "Ute 12 took the detonators and the cast boosters up to bench 4.",)


def test_a_list_and_a_measure_are_no_short_clauses() -> None:
    assert rebuilt("Mara mixed the feldspar and silica with a respirator on 12 April.") == ()
    assert rebuilt("The crews were entered on Friday 22 May, three weeks and a day before the regatta.") == ()
    assert rebuilt("Ian planted the tree on 21 November, three feet in from the boundary.") == ()
    claim = "The sawyer wore chaps and a helmet."
    assert with_rebuilt(claim) == claim


def test_a_denied_gapped_clause_breaks_a_duty() -> None:
    claim = "Skis from rack A were waxed after each rental on Sunday, those from rack B not."
    assert rebuilt(claim) == ("Skis from rack B were not waxed after each rental on Sunday.",)
    assert verdict([SKIS], claim) == REJECT


def test_a_gapped_clause_that_keeps_the_duty_stays_ok() -> None:
    assert verdict([SKIS], "Skis from rack A were waxed after each rental on Sunday, and so were those from rack B.") \
        == OK
    assert verdict([SKIS], "Skis from rack A were waxed after each rental on Sunday, those from rack B on Monday.") \
        == OK


def test_so_did_puts_both_members_in_one_slot() -> None:
    rule = "The junior squad and the masters squad must be kept apart and must never share a launch slot."
    assert verdict([rule], "The junior squad had the 07:00 slot that Saturday, and so did the masters.") == REJECT
    assert verdict([rule], "The junior squad had the 07:00 slot that Saturday, and the masters the 09:00 slot.") == OK
