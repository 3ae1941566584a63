"""mathlas v2: the richer constant search (minimal polynomials, products, three-atom combinations,
continued-fraction patterns, new named atoms) keeps zero false positives; the signed and
number-theoretic sequences of the sample agree with an independent generator (sympy); integers of any
size travel as decimal strings."""

from __future__ import annotations

import gzip
import json
import math
from pathlib import Path

import mpmath
import pytest
import sympy
from sympy.functions.combinatorial.numbers import mobius, partition, stirling, totient

from abilities.mathlas import bigint
from abilities.mathlas import closedform as cf
from abilities.mathlas.numeric import identify_constant, verify_numeric
from abilities.mathlas.sequence import SAMPLE_DIR, identify_sequence

DATA = Path(__file__).parent / "data" / "mathlas"
CONSTANTS = json.loads((DATA / "eval_v2_constants.json").read_text())["constants"]
SEQUENCES = json.loads((DATA / "eval_v2_sequences.json").read_text())["sequences"]


def _first_of_each_kind() -> list[dict]:
    seen: dict[str, dict] = {}
    for case in CONSTANTS:
        if case["kind"] != "negative":
            seen.setdefault(case["kind"], case)
    return list(seen.values())


@pytest.mark.parametrize("case", _first_of_each_kind(), ids=lambda c: c["id"])
def test_each_new_kind_of_constant_is_identified_exactly(case):
    res = identify_constant(case["value"])
    assert res["identified"], res.get("unidentified_reason")
    got = cf.eval_mpmath(cf.parse(res["best"]), 70)
    with mpmath.workdps(70):
        assert abs(got - mpmath.mpf(case["truth60"])) < mpmath.mpf(10) ** -50
    assert res["candidates"][0]["verify"]["libraries_agree_digits"] >= res["candidates"][0]["verify"]["dps"] - 8


@pytest.mark.parametrize("case", [c for c in CONSTANTS if c["kind"] == "negative"][:5], ids=lambda c: c["id"])
def test_near_misses_and_noise_stay_unidentified_after_every_stage(case):
    res = identify_constant(case["value"])
    assert not res["identified"], res["best"]
    assert res["search"]["stages"][-1] == "atom_triples"  # every stage ran, none claimed a form
    assert res["search"]["occam_margin"] >= 7.5


def test_minimal_polynomial_display_and_grammar():
    res = identify_constant("1.3247179572447460260")  # the plastic number, real root of x^3 - x - 1
    best = res["candidates"][0]
    assert best["method"] == "minimal_polynomial" and best["relation"]["polynomial"] == [1, 0, -1, -1]
    assert best["display"] == "real root #1 (from the smallest) of x**3 - x - 1"
    assert verify_numeric("1.3247179572447460260", best["expr"])["verdict"] == "VERIFIED"
    for bad in ("polyroot(0, 1, 0, -1)", "polyroot(1, 1/2, 0, -1)", "polyroot(1, 0, 1, -1)", "polyroot(1, pi, 1, 1)"):
        with pytest.raises(cf.ClosedFormError):
            cf.parse(bad)
    assert verify_numeric("2.6220575542921198105", "lemniscate")["verdict"] == "VERIFIED"


def test_continued_fraction_pattern_gives_a_bessel_ratio():
    res = identify_constant("1.4331274267223117583")  # [1; 2, 3, 4, ...]
    assert res["identified"] and "besseli" in res["best"]
    assert res["candidates"][0]["method"] == "continued_fraction_pattern"


def test_every_eval_v2_sequence_window_is_found():
    missing = []
    for case in SEQUENCES:
        found = [m["a_number"] for m in identify_sequence([int(t) for t in case["terms"]], 50)["matches"]]
        if case["a_number"] not in found:
            missing.append(case["a_number"])
    assert missing == []


def _sample() -> dict[str, list[int]]:
    with gzip.open(SAMPLE_DIR / "stripped.gz", "rt") as fh:
        lines = [ln for ln in fh.read().splitlines() if ln and not ln.startswith("#")]
    return {ln.split(" ")[0]: [int(t) for t in ln.split(" ", 1)[1].strip(",").split(",")] for ln in lines}


def _tau(n: int) -> list[int]:
    """Coefficients of q * prod (1 - q^m)^24 in sympy's polynomial ring, truncated at q^n."""
    ring, q = sympy.ring("q", sympy.ZZ)
    acc = ring(1)
    for m in range(1, n + 1):
        for _ in range(24):
            acc = ring({k: v for k, v in (acc * (1 - q**m)).items() if k[0] < n})
    return [int(acc.coeff(q**k)) if k else int(acc.coeff(1)) for k in range(n)]


def _signed_stirling1(n: int, k: int) -> int:
    return int((-1) ** (n - k) * stirling(n, k, kind=1))


# A second, independent generator for the signed and number-theoretic classics: sympy's own functions.
INDEPENDENT = {
    "A000594": lambda: _tau(12),
    "A010815": lambda: [int(c) for c in sympy.Poly(sympy.prod([1 - sympy.Symbol("q") ** m for m in range(1, 16)]),
                                                   sympy.Symbol("q")).all_coeffs()[::-1][:16]],
    "A053120": lambda: [int(sympy.chebyshevt(n, sympy.Symbol("x")).coeff(sympy.Symbol("x"), k))
                        for n in range(8) for k in range(n + 1)],
    "A038608": lambda: [n * (-1) ** n for n in range(20)],
    "A181983": lambda: [(-1) ** (n + 1) * n for n in range(20)],
    "A001057": lambda: [0] + [v for k in range(1, 10) for v in (k, -k)],
    "A008275": lambda: [_signed_stirling1(n, k) for n in range(1, 9) for k in range(1, n + 1)],
    "A048994": lambda: [_signed_stirling1(n, k) if n else 1 for n in range(9) for k in range(n + 1)],
    "A023900": lambda: [math.prod(1 - p for p in sympy.primefactors(n)) for n in range(1, 40)],
    "A039834": lambda: [int((-1) ** (k + 1) * sympy.fibonacci(k)) for k in range(-2, 20)],
    "A000587": lambda: [int(sum((-1) ** k * stirling(n, k) for k in range(n + 1))) for n in range(15)],
    "A014963": lambda: [sympy.primefactors(n)[0] if len(sympy.primefactors(n)) == 1 else 1 for n in range(1, 40)],
    "A034444": lambda: [2 ** len(sympy.primefactors(n)) for n in range(1, 40)],
    "A000688": lambda: [math.prod(int(partition(e)) for e in sympy.factorint(n).values()) for n in range(1, 40)],
    "A008683": lambda: [int(mobius(n)) for n in range(1, 40)],
    "A000010": lambda: [int(totient(n)) for n in range(1, 40)],
}


@pytest.mark.parametrize("anum", sorted(INDEPENDENT))
def test_sample_terms_agree_with_an_independent_generator(anum):
    expected = INDEPENDENT[anum]()
    got = _sample()[anum]
    n = min(len(expected), len(got))
    assert n >= 10 and got[:n] == expected[:n]


def test_big_integers_travel_as_decimal_strings():
    assert bigint.json_int(2**53 - 1) == 2**53 - 1 and bigint.json_int(2**53) == str(2**53)
    assert bigint.json_int(-(2**60)) == str(-(2**60))
    assert bigint.parse_int_term("-" + "9" * 1000, 1000) == -int("9" * 1000)
    for bad in ("1e5", "0x10", "1.0", " ", "9" * 1001, True, 1.5):
        with pytest.raises(ValueError):
            bigint.parse_int_term(bad, 1000)
    window = [math.factorial(n) for n in range(19, 24)]  # past 2^64
    res = identify_sequence(window)
    assert res["matches"][0]["a_number"] == "A000142"
    assert res["query"] == [str(v) if v > 2**53 - 1 else v for v in window]
