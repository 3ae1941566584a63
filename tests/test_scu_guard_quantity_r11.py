"""Round 11: quantities told in other words: shares as fractions, flows, ceilings under a floor, "of any kind"."""

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


def test_flow_rates_are_measured() -> None:
    flows = [a for a in measure.find_amounts("The pumps moved 40 litres per second, about 2.4 m3/s less than usual.")]
    assert [a.dim for a in flows] == ["[length] ** 3 / [time]"] * 2
    assert round(flows[0].lo, 3) == 0.04


def test_a_ceiling_under_the_rule_floor_is_a_contradiction() -> None:
    rule = "Dissolved oxygen in the holding tank must not fall below 6 mg/l."
    assert _verdict(rule, "Dissolved oxygen in the holding tank stayed below 5 mg/l all week.") == (
        "REJECT", "constraint_contradiction")
    assert _verdict(rule, "Dissolved oxygen in the holding tank stayed below 9 mg/l all week.") == ("OK", "ok")


def test_a_one_compound_is_no_second_amount_of_the_rule() -> None:
    from abilities.scu_guard.evidence import read_whole

    assert read_whole("A one-way permit must be requested at least 5 days before the move.", "must")
    assert not read_whole("Two permits must be requested at least 5 days before the move.", "must")


def test_an_amount_the_typed_form_left_unread_is_reviewed_not_cleared() -> None:
    rule = "Seed lots must be dried at 35 °C or cooler for at least 48 hours before they are sealed."
    assert _verdict(rule, "The seed lots were dried at 30 °C for a day and a half and then sealed.") == (
        "REVIEW", "suspected_contradiction")
    assert _verdict(rule, "The seed lots were dried at 30 °C for three days and then sealed.") == ("OK", "ok")


def test_a_half_dozen_written_with_a_hyphen_is_six() -> None:
    from abilities.scu_guard.counts import read_counts

    for text in ("They loaded a half-dozen crates onto the lift.", "They loaded half-dozen crates onto the lift."):
        assert [[n for _, n in c.counts] for c in read_counts(text)] == [[6.0]]
