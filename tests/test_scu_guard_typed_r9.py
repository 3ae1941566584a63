"""scu_guard typed readings of round 9, each a mechanism of the grammar: a doer of another role tied by
grammar to the reserved verb and its thing. Real spaCy parses; sentences written for these tests, none is
in the labelled sets."""

from __future__ import annotations

import pytest

from abilities.lock import lock_constraints
from abilities.scu_guard.check import run_checks
from abilities.scu_guard.combined import forms_for
from abilities.scu_guard.judge import read_claim


def verdict(constraints: list[str], claim: str, chunks: dict[str, str] | None = None) -> tuple[str, str]:
    chunks = chunks or {"k0": "Log of the day."}
    lock = lock_constraints(constraints)
    answer = {"claim": claim, "citations": list(chunks), "constraints_echo": constraints}
    r = run_checks(lock, list(chunks), answer, forms=forms_for(constraints)[0], chunk_texts=chunks)
    return r.verdict, r.reason


REJECT = ("REJECT", "constraint_contradiction")
REVIEW = ("REVIEW", "suspected_contradiction")
KILN = "Only the kiln supervisor may fire the glaze kiln."
WASH = "Only staff who have completed affineur training may apply rind washes."


def test_a_doer_is_tied_to_the_verb_it_is_the_subject_or_agent_of() -> None:
    """The reading records, per doer, the verb it does and that verb's own objects."""
    c = read_claim("The glaze kiln was fired by a glazer, and the potter trimmed the bowls.").clauses
    doers = {t: (v, things, role) for cl in c for t, (v, things, role) in cl.doers.items()}
    assert doers["a glazer"][0] == "fir" and "kiln" in doers["a glazer"][1] and doers["a glazer"][2]
    assert doers["the potter"][0] == "trim" and "bowl" in doers["the potter"][1]
    named = read_claim("Mira Holt fired the glaze kiln.").clauses[0].doers
    assert [r for _, _, r in named.values()] == [False]  # a bare name gives no role


@pytest.mark.parametrize(("rule", "claim", "want"), [
    # another role, subject or passive agent of the reserved verb, acting on the rule's thing
    (KILN, "The glaze kiln was fired by a glazer on Sunday.", REJECT),
    (KILN, "A studio assistant fired the glaze kiln overnight.", REJECT),
    ("Only a qualified burn boss may ignite a prescribed burn.",
     "The prescribed burn was ignited by a seasonal firefighter.", REJECT),
    # the credential denied outright where the rule reserves the action for "staff" with a credential
    (WASH, "A non-trained seasonal worker applied the cider wash.", REJECT),
])
def test_another_role_doing_the_reserved_action_is_rejected(rule: str, claim: str, want: tuple[str, str]) -> None:
    assert verdict([rule], claim) == want


@pytest.mark.parametrize(("rule", "claim", "chunks"), [
    # another thing than the rule's ("its control panel" is not "a service door")
    ("Only couriers with a locker key card may open a service door.",
     "The engineer opened the locker's control panel.", None),
    # a light verb names no doer: things that "went" somewhere
    ("Only steel, aluminium and copper may go in the metals skip.",
     "Cans and copper pipe went into the metals skip.", None),
    # the doer holds the reserved description under another head noun
    ("Only licensed electricians may rewire the switchboard.",
     "A licensed electrical contractor rewired the switchboard.", None),
    # "staff" with a credential: a doer of another noun may hold it
    (WASH, "Kitchen staff applied the cider wash.", None),
    # the reserved noun with another modifier may be the reserved doer
    (KILN, "The night supervisor fired the glaze kiln.", None),
    # the doer's verb is not the reserved one ("stayed on set from arming")
    ("Only a pyrotechnician may arm a pyrotechnic device.",
     "The fire safety officer stayed on set from arming until every device had been made safe.", None),
    # a cited chunk speaks of the doer's role and the reserved one together
    (KILN, "The glaze kiln was fired by the studio manager.",
     {"k1": "The studio manager is also our kiln supervisor this term."}),
])
def test_a_doer_that_may_hold_the_role_is_not_rejected(rule: str, claim: str, chunks: dict[str, str] | None) -> None:
    assert verdict([rule], claim, chunks)[0] != "REJECT"


def test_the_reserved_doer_keeps_the_rule() -> None:
    assert verdict([KILN], "The glaze kiln was fired by the kiln supervisor.") == ("OK", "ok")
