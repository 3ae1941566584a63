"""Allowed places ("X may be kept only in P"): a claim that puts the rule's thing in a place surely not P, on
real parses. Each contradicting wording sits beside a kept one."""

from __future__ import annotations

import pytest

from abilities.scu_guard.forms import understand
from abilities.scu_guard.places import read_places
from tests.scu_guard_support import OK, REJECT, REVIEW, verdict

NOTEBOOKS = "Lab notebooks may be kept only in the department's fireproof archive room."
SOLVENTS = "Solvent cans may be stored only in the flammables locker in Block D."
GOATS = "Goats may graze only in the west pasture."
FILES = "Patient files may be saved only on the hospital's encrypted file server."
KAYAKS = "Sea kayaks may be stored only in the boathouse."


def test_rule_places_are_read() -> None:
    r = read_places(GOATS)
    assert r is not None and r.places == ("the west pasture",) and r.prep == "in"
    two = read_places("Free climbs may take place only in the north hall or the bouldering cave.")
    assert two is not None and two.places == ("the north hall", "the bouldering cave")
    form = understand(FILES)
    assert form is not None and form.places == ["the hospital's encrypted file server"]


@pytest.mark.parametrize("rule", [
    "Deliveries may be received only on weekdays.",
    "If it is snowing, the ponies may be ridden only in the covered school.",
])
def test_times_and_conditions_are_no_places(rule: str) -> None:
    assert read_places(rule) is None


@pytest.mark.parametrize(("rule", "claim", "want"), [
    # someone's own place against the institution's
    (FILES, "Dr Ames saved the patient files on his personal tablet.", REJECT),
    (FILES, "Dr Ames saved the patient files on the encrypted file server.", OK),
    (NOTEBOOKS, "Priya kept her lab notebooks in her own desk drawer over the summer.", REJECT),
    # the same kind of place, told apart by its use, its position, its label
    (NOTEBOOKS, "Priya kept her lab notebooks in the seminar room over the summer.", REJECT),
    (NOTEBOOKS, "Priya kept her lab notebooks in the fireproof archive room over the summer.", OK),
    (GOATS, "The goats grazed in the east pasture all week.", REJECT),
    (GOATS, "The goats grazed in the west pasture all week.", OK),
    (SOLVENTS, "The solvent cans were stored in the flammables locker in Block F.", REJECT),
    (SOLVENTS, "The solvent cans were stored in the flammables locker in Block D.", OK),
    (KAYAKS, "The sea kayaks were stored in the clubhouse loft over winter.", OK),
    (KAYAKS, "The sea kayaks were stored in the boathouse over winter.", OK),
])
def test_place_told_apart(rule: str, claim: str, want: tuple[str, str]) -> None:
    assert verdict([rule], claim) == want


@pytest.mark.parametrize("claim", [
    # another head noun may stand inside the allowed place: nothing to say
    "Priya kept her lab notebooks in a locked cabinet over the summer.",
    # denied
    "The goats never grazed in the east pasture.",
    # another thing of the rule's noun ("river kayaks" are not "sea kayaks")
    "The river kayaks were stored in the clubhouse over winter.",
])
def test_nothing_against_the_rule(claim: str) -> None:
    assert verdict([NOTEBOOKS, GOATS, KAYAKS], claim) == OK


def test_thing_without_the_rules_words_is_review() -> None:
    # "drums" of some liquid may or may not be the rule's "solvent" cans' kind: the rule narrows its thing
    rule = "Solvent drums may be stored only in the flammables store in Block D."
    assert verdict([rule], "Two full drums spent the night in the loading bay of Block B.") == REVIEW
    assert verdict([rule], "Two solvent drums spent the night in the loading bay of Block B.") == REJECT
