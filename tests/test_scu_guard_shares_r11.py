"""Round 11: shares told as English fractions ("a fifth of the weight") read as percentages."""

from __future__ import annotations

from abilities.scu_guard import measure
from abilities.scu_guard.evaluate import judge
from abilities.scu_guard.shares import find_shares

OTHER = "Visitors must sign in at the front desk."


def _verdict(rule: str, claim: str) -> tuple[str, str]:
    case = {"constraints": [rule, OTHER], "question": "What was done?",
            "chunks": [{"id": "c1", "text": "Record."}],
            "answer": {"claim": claim, "citations": ["c1"], "constraints_echo": [rule, OTHER]}}
    got = judge(case)
    return got.verdict, got.reason


def test_counted_fraction_of_a_whole_is_a_share() -> None:
    assert [round(s[0], 3) for s in find_shares("Nuts make up a fifth of the mix.")] == [0.2]
    assert [round(s[0], 3) for s in find_shares("two thirds of their seats were sold")] == [0.667]
    shares = [a for a in measure.find_amounts("Filler was three quarters of each bag.") if a.dim == "dimensionless"]
    assert [round(a.lo, 2) for a in shares] == [0.75]


def test_ordinals_and_fractions_of_one_thing_are_no_share() -> None:
    assert find_shares("the fifth of the runs was cancelled") == []
    assert find_shares("It opened on the third of May.") == []
    assert find_shares("The note was a fifth of a tone sharp.") == []
    assert not [a for a in measure.find_amounts("They waited a quarter of an hour.") if a.dim == "dimensionless"]


def test_share_above_a_percent_cap_is_a_contradiction() -> None:
    rule = "Recycled fibre must not exceed 15% of a sheet's weight."
    assert _verdict(rule, "Recycled fibre makes up a fifth of the sheet's weight.") == (
        "REJECT", "constraint_contradiction")
    assert _verdict(rule, "Recycled fibre makes up one tenth of the sheet's weight.") == ("OK", "ok")


def test_of_any_kind_stresses_its_noun_and_is_no_universal_subject() -> None:
    from abilities.scu_guard.detect import find_contradictions
    from abilities.scu_guard.rules import parse_rule

    rule = "Ladders of any kind are forbidden in the server room."
    read = parse_rule(rule)
    assert not read.subject_universal and read.subject_head != "kind"
    assert find_contradictions("The nightly backup finished at 02:00.", [rule]) == []
    assert find_contradictions("A ladder was allowed in the server room.", [rule]) != []
