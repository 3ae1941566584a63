"""Round 11: a duty's bare "while V-ing" scope met by the claim's own telling of the activity, and a subject
opened by "neither" denying its verb."""
from abilities.scu_guard.evaluate import judge
from abilities.scu_guard.nlp import parse
from abilities.scu_guard.while_scope import bare_while, scope_told

RULE = "Goggles must be worn at all times while welding."


def _case(claim: str) -> dict:
    return {"id": "t", "domain": "test", "kind": "require", "cause": "", "question": "Were goggles worn?",
            "constraints": [RULE], "chunks": [{"id": "c1", "text": "Shop note: " + claim}],
            "answer": {"claim": claim, "citations": ["c1"], "constraints_echo": [RULE]},
            "expect": {"verdict": "OK", "reason": "ok"}}


def test_bare_while_is_read() -> None:
    scope = bare_while(RULE)
    assert scope is not None and scope[0] == "while welding"
    assert bare_while("Gloves must be worn while handling raw fish.") is None


def test_scope_told_only_alongside() -> None:
    told = "Neither Ann nor Bo was wearing goggles when they welded the gate hinge."
    assert scope_told(RULE, parse(told), 0, len(told))
    after = "Neither Ann nor Bo was wearing goggles after they welded the gate hinge."
    assert not scope_told(RULE, parse(after), 0, len(after))
    elsewhere = "Neither Ann nor Bo was wearing goggles in the canteen."
    assert not scope_told(RULE, parse(elsewhere), 0, len(elsewhere))


def test_duty_dropped_in_scope_is_a_contradiction() -> None:
    g = judge(_case("Neither Ann nor Bo was wearing goggles when they welded the gate hinge on Monday."))
    assert g.reason == "constraint_contradiction"


def test_scope_not_told_is_no_contradiction() -> None:
    g = judge(_case("Neither Ann nor Bo was wearing goggles in the canteen on Monday."))
    assert g.reason != "constraint_contradiction"
