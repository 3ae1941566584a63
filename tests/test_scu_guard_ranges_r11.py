"""Round 11: the second time of a dashed range is the range's end, not a moment of the event."""
from abilities.scu_guard import measure
from abilities.scu_guard.evaluate import judge


def test_dashed_range_end_is_until() -> None:
    roles = [c.role for c in measure.find_clock_times("Mia covered the 06:00-14:00 till on Sunday.")]
    assert roles == ["at", "until"]
    roles = [c.role for c in measure.find_clock_times("The kiosk was staffed 9 am – 5 pm.")]
    assert roles == ["at", "until"]


def test_no_range_without_a_first_time() -> None:
    assert [c.role for c in measure.find_clock_times("Gate 4-10:30 boarding")] == ["at"]


RULE = "Volunteers must not work any shift that ends after 23:00."


def _case(claim: str) -> dict:
    return {"id": "t", "domain": "test", "kind": "exclusion", "cause": "", "question": "Did she work late?",
            "constraints": [RULE],
            "chunks": [{"id": "c1", "text": "Rota: " + claim}],
            "answer": {"claim": claim, "citations": ["c1"], "constraints_echo": [RULE]},
            "expect": {"verdict": "OK", "reason": "ok"}}


def test_shift_ending_at_the_bound_is_kept() -> None:
    g = judge(_case("Nora worked the 15:00-23:00 shift on Friday."))
    assert g.reason == "ok"


def test_shift_ending_past_the_bound_is_still_found() -> None:
    g = judge(_case("Nora worked the 15:00-23:30 shift on Friday."))
    assert g.reason != "ok"
