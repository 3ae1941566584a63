"""mathlas numeric core: the closed-form grammar, identify_constant (recovery and zero false
positives on the shared benchmark data), verify_numeric and conjecture_relation."""

from __future__ import annotations

import json
import random
from pathlib import Path

import mpmath
import pytest

from abilities.mathlas import closedform as cf
from abilities.mathlas.numeric import NumericInputError, identify_constant, parse_decimal, verify_numeric
from abilities.mathlas.ramanujan import conjecture_relation, gcf_value, simple_continued_fraction

DATA = json.loads((Path(__file__).parent / "data" / "mathlas" / "constants.json").read_text())


def digits_of(expr: str, digits: int) -> str:
    with mpmath.workdps(digits + 20):
        return mpmath.nstr(cf.eval_mpmath(cf.parse(expr), digits + 20), digits, strip_zeros=False)


def structureless(spec: dict) -> list[str]:
    rng = random.Random(spec["seed"])
    return [f"{rng.randint(1, 9)}.{''.join(str(rng.randint(0, 9)) for _ in range(spec['digits'] - 1))}"
            for _ in range(spec["count"])]


def same_number(a: str, b: str) -> bool:
    return abs(cf.eval_mpmath(cf.parse(a), 60) - cf.eval_mpmath(cf.parse(b), 60)) < mpmath.mpf(10) ** -50


@pytest.mark.parametrize(("text", "fn"), [("pi**2/6", lambda: mpmath.pi**2 / 6), ("(1+sqrt(5))/2", lambda: +mpmath.phi),
                                          ("-(1+e)^2", lambda: -(1 + mpmath.e) ** 2), ("zeta(3)", lambda: mpmath.zeta(3))])
def test_grammar_evaluates_in_two_libraries(text, fn):
    with mpmath.workdps(50):
        value = fn()
    node = cf.parse(text)
    assert abs(cf.eval_mpmath(node, 40) - value) < mpmath.mpf(10) ** -35
    assert abs(cf.eval_sympy(node, 40) - value) < mpmath.mpf(10) ** -35
    assert cf.to_text(cf.parse(cf.to_text(node))) == cf.to_text(node)


@pytest.mark.parametrize("bad", ["__import__('os')", "os.system", "foo", "1;2", "lambda: 1", "9" * 80, "2**9999",
                                 "exp(" * 50 + "1" + ")" * 50])
def test_grammar_rejects_anything_outside_the_whitelist(bad):
    with pytest.raises(cf.ClosedFormError):
        cf.parse(bad)


@pytest.mark.parametrize("bad", ["abc", "nan", "inf", "1e", "", "1." + "1" * 10_000, "0x10"])
def test_parse_decimal_rejects_non_numbers(bad):
    with pytest.raises(NumericInputError):
        parse_decimal(bad)


def test_cli_example_is_pi_squared_over_six():
    r = identify_constant("1.6449340668")
    assert r["identified"] and r["best"] == "pi**2/6"
    c = r["candidates"][0]
    assert c["verify"]["holdout_digits"] >= 3 and c["verify"]["libraries_agree_digits"] >= c["verify"]["dps"] - 8


def test_too_few_digits_is_an_honest_negative():
    r = identify_constant("3.1416")
    assert not r["identified"] and "digits" in r["unidentified_reason"]
    assert not identify_constant("1.000000000000000000001")["identified"]  # 1 is one unit off the last digit


def test_benchmark_recovery_and_zero_false_positives():
    """Same data as bench/mathlas_eval.py: >= 40 known constants, >= 20 structureless numbers."""
    known = DATA["known"]
    assert len(known) >= 40 and DATA["structureless"]["count"] >= 20
    recovered = 0
    for expr in known:
        r = identify_constant(digits_of(expr, DATA["digits"]))
        recovered += bool(r["identified"] and same_number(r["best"], expr))
    assert recovered / len(known) >= 0.95, f"recovered {recovered}/{len(known)}"
    noise = structureless(DATA["structureless"]) + structureless(DATA["structureless_short"])
    false_pos = [v for v in noise if identify_constant(v)["identified"]]
    assert false_pos == []


def test_verify_numeric_verdicts():
    assert verify_numeric("1.6449340668", "pi^2/6")["verdict"] == "VERIFIED"
    assert verify_numeric("1.6449340669", "pi^2/6")["verdict"] == "REFUTED"  # neither rounded nor truncated
    assert verify_numeric("-2.7182818284590", "-e")["verdict"] == "VERIFIED"
    assert verify_numeric("2.7182818284590", "-e")["verdict"] == "REFUTED"
    r = verify_numeric("1.6449340678", "pi^2/6")
    assert r["verdict"] == "REFUTED" and r["digits_agreed"] < 11
    assert verify_numeric("3.14", "pi", min_digits=10)["verdict"] == "UNDETERMINED"
    assert verify_numeric("1.0", "log(0)")["verdict"] == "UNDETERMINED"


def test_identify_is_deterministic():
    assert identify_constant("0.91596559417721901505") == identify_constant("0.91596559417721901505")


def test_conjecture_relation_finds_the_brouncker_fraction_for_pi():
    r = conjecture_relation("3.14159265358979323846")
    gcfs = [x for x in r["relations"] if x["kind"] == "generalized_continued_fraction"]
    assert gcfs and all(x["provenance"] == "conjectured_relation" for x in r["relations"])
    # 4/pi = 1 + 1^2/(3 + 2^2/(5 + ...)): a(n) = 1 + 2n, b(n) = n^2
    assert any(x["gcf"] == {"a": [1, 2], "b": [0, 0, 1]} for x in gcfs)
    with mpmath.workdps(30):
        assert abs(gcf_value((1, 2), (0, 0, 1), 4000, 30) - 4 / mpmath.pi) < mpmath.mpf(10) ** -25
    assert r["continued_fraction"]["terms"][:5] == [3, 7, 15, 1, 292]


def test_conjecture_relation_finds_a_nested_radical_and_the_e_pattern():
    r = conjecture_relation("1.8477590650225735123")  # sqrt(2 + sqrt(2))
    assert any(same_number(x["expr"], "sqrt(2 + sqrt(2))") for x in r["relations"] if "expr" in x)
    assert "e-like" in (simple_continued_fraction(parse_decimal("2.71828182845904523536"))["pattern"] or "")
    assert "periodic" in (simple_continued_fraction(parse_decimal("1.41421356237309504880"))["pattern"] or "")


def test_conjecture_relation_on_noise_finds_nothing():
    assert conjecture_relation(structureless(DATA["structureless"])[0])["relations"] == []
