"""A prohibition's verb and place done to another thing is another event (``events.does_to_other_thing``)."""

from __future__ import annotations

import pytest

from abilities.scu_guard.evaluate import judge

OTHER = ["Visitors must sign in at reception.", "Staff must wear badges on site."]


def _verdict(rule: str, claim: str) -> str:
    cons = [rule, *OTHER]
    case = {"constraints": cons, "question": "What happened?", "chunks": [{"id": "c1", "text": claim}],
            "answer": {"claim": claim, "citations": ["c1"], "constraints_echo": cons}}
    return judge(case).verdict


@pytest.mark.parametrize(("rule", "claim"), [
    ("Dogs may not be walked on the beach.", "A pony was walked on the beach."),
    ("Drones may not be flown over the dam.", "A helicopter was flown over the dam."),
    ("No knives may be carried on the bus.", "A violin was carried on the bus."),
])
def test_another_thing_is_never_rejected(rule: str, claim: str) -> None:
    assert _verdict(rule, claim) != "REJECT"


@pytest.mark.parametrize(("rule", "claim"), [
    ("Dogs may not be walked on the beach.", "A dog was walked on the beach."),
    ("Drones may not be flown over the dam.", "A drone was flown over the dam."),
    ("Lasers must never be aimed at the audience.", "A laser sweep was aimed at the audience in the finale."),
])
def test_the_rules_own_thing_still_breaks_it(rule: str, claim: str) -> None:
    assert _verdict(rule, claim) == "REJECT"
