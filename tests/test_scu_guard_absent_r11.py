"""Round 11: a plain minimum of a required thing is broken by the thing's absence, never a maximum."""
from abilities.scu_guard.absent import minimum_absent
from abilities.scu_guard.evaluate import judge
from tests.scu_guard_support import on_whole_claim

MIN_RULE = "Every night lecture must be recorded with a subtitle lag of at least 4 seconds."
MAX_RULE = "Every night lecture must be recorded with a subtitle lag of no more than 4 seconds."


def _absent(rule: str, claim: str) -> bool:
    return on_whole_claim(minimum_absent, rule, claim)


def test_no_thing_breaks_a_minimum() -> None:
    assert _absent(MIN_RULE, "The night lecture on tides was recorded with no subtitle lag.")
    assert _absent(MIN_RULE, "The night lecture on tides was recorded without any subtitle lag.")


def test_no_thing_keeps_a_maximum() -> None:
    assert not _absent(MAX_RULE, "The night lecture on tides was recorded with no subtitle lag.")


def test_a_question_states_nothing() -> None:
    assert not _absent(MIN_RULE, "Was the night lecture recorded with no subtitle lag?")


def _case(rule: str, claim: str) -> dict:
    return {"id": "t", "domain": "test", "kind": "require", "cause": "", "question": "How was it recorded?",
            "constraints": [rule], "chunks": [{"id": "c1", "text": "Log: " + claim}],
            "answer": {"claim": claim, "citations": ["c1"], "constraints_echo": [rule]},
            "expect": {"verdict": "OK", "reason": "ok"}}


def test_absent_minimum_is_a_contradiction() -> None:
    rule = "Every council meeting must be streamed with a broadcast delay of at least 30 seconds."
    claim = "Thursday's council meeting in the town hall was streamed live with no broadcast delay at all."
    assert judge(_case(rule, claim)).reason == "constraint_contradiction"


def test_absent_thing_under_a_maximum_is_no_contradiction() -> None:
    rule = "Radio call-ins must go out on a delay of no more than 10 seconds."
    claim = "The radio call-ins went out live with no delay at all."
    assert judge(_case(rule, claim)).reason != "constraint_contradiction"
