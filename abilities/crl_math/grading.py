"""Grading of crl_math outputs (and of a plain-sympy anchor) against the evaluation corpus.

Used by the corpus test and by ``bench/crl_math_eval.py``. A simplify answer is correct when
(1) its conditions equal the expected ones as a set of canonical conditions, (2) numerically,
under strict real evaluation at seeded points that satisfy the expected conditions, the
original is defined exactly where the result is and agrees with it and with the expected form,
and (3) symbolically the result equals the expected form (same text, or sympy proves the
difference zero under the conditions). A solve answer is correct when its solution set, its
conditions and the expected rejected candidates match, and every solution satisfies the
original equation under strict evaluation.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import sympy

from abilities.base import derive_rng
from abilities.crl_math import cas, numeric
from abilities.crl_math.domain import Cond, from_relation
from abilities.crl_math.parser import evaluated, parse_equation, parse_expr_safe, parse_relation
from abilities.crl_math.solve import as_mp


@dataclass
class Grade:
    correct: bool
    numeric_ok: bool
    symbolic_ok: bool
    conditions_ok: bool
    notes: list[str] = field(default_factory=list)


def cond_set(texts: list[str]) -> tuple[set[str], list[Cond]]:
    """Canonical condition texts (so 'x>0' and 'x > 0' compare equal) and the Cond objects."""
    conds: list[Cond] = []
    for t in texts:
        lhs, op, rhs = parse_relation(t)
        conds.extend(from_relation(lhs, op, rhs))
    return {c.text for c in conds}, conds


def _value_key(v: sympy.Expr) -> str:
    c = complex(v.evalf(30))
    return f"{round(c.real, 12):.12g},{round(c.imag, 12):.12g}"


def grade_simplify(problem: dict[str, Any], result: str | None, conditions: list[str], seed: bytes = b"grade") -> Grade:
    notes: list[str] = []
    if result is None:
        return Grade(False, False, False, False, ["no result"])
    original = parse_expr_safe(problem["expression"])
    expected = evaluated(parse_expr_safe(problem["expected"]))
    try:
        got = evaluated(parse_expr_safe(result))
    except ValueError as exc:
        return Grade(False, False, False, False, [f"result does not parse: {exc}"])
    exp_set, exp_conds = cond_set(problem["conditions"])
    try:
        got_set, _ = cond_set(conditions)
    except ValueError as exc:
        return Grade(False, False, False, False, [f"conditions do not parse: {exc}"])
    _a, assume = cond_set(problem.get("assumptions", []))
    conditions_ok = got_set == exp_set
    if not conditions_ok:
        notes.append(f"conditions {sorted(got_set)} != expected {sorted(exp_set)}")
    admissible = [*exp_conds, *assume]
    rng = derive_rng(seed, f"grade/{problem['id']}")
    c1 = numeric.compare(original, got, admissible, rng, 30)
    c2 = numeric.compare(expected, got, admissible, rng, 30)
    numeric_ok = c1.ok and c2.ok and c1.equal >= 10
    if not numeric_ok:
        notes.append(f"numeric: original/result {c1.payload()['differ'][:1] or c1.only_a[:1] or c1.only_b[:1]}, "
                     f"expected/result {c2.differ[:1]}, tested {c1.tested}, equal {c1.equal}")
    symbolic_ok = sympy.sstr(got) == sympy.sstr(expected) or cas.cas_equivalent(got, expected, admissible) == "proved"
    if not symbolic_ok:
        notes.append(f"symbolic: {sympy.sstr(got)} vs {sympy.sstr(expected)}")
    return Grade(conditions_ok and numeric_ok and symbolic_ok, numeric_ok, symbolic_ok, conditions_ok, notes)


def grade_solve(
    problem: dict[str, Any], solutions: list[str] | None, conditions: list[str], rejected: list[str] | None
) -> Grade:
    notes: list[str] = []
    if solutions is None:
        return Grade(False, False, False, False, ["no solutions"])
    lhs, rhs = parse_equation(problem["equation"])
    try:
        got = [evaluated(parse_expr_safe(s)) for s in solutions]
    except ValueError as exc:
        return Grade(False, False, False, False, [f"solution does not parse: {exc}"])
    expected = [evaluated(parse_expr_safe(s)) for s in problem["solutions"]]
    symbolic_ok = {_value_key(v) for v in got} == {_value_key(v) for v in expected} and all(
        any(sympy.simplify(g - e) == 0 for g in got) for e in expected
    )
    if not symbolic_ok:
        notes.append(f"solutions {solutions} != expected {problem['solutions']}")
    numeric_ok = True
    syms = sorted(lhs.free_symbols | rhs.free_symbols, key=lambda s: s.name)
    for v in got:
        env = {syms[0].name: as_mp(v)} if syms else {}
        try:
            a = numeric.value_or_none(lhs, env)
            b = numeric.value_or_none(rhs, env)
            holds = a is not None and b is not None and numeric.agree(a, b)
        except numeric.Unevaluable:
            holds = sympy.simplify((lhs - rhs).xreplace({syms[0]: v})) == 0
        if not holds:
            numeric_ok = False
            notes.append(f"solution {sympy.sstr(v)} fails the original under strict evaluation")
    exp_set, _ = cond_set(problem["conditions"])
    got_set, _ = cond_set(conditions)
    conditions_ok = got_set == exp_set
    if not conditions_ok:
        notes.append(f"conditions {sorted(got_set)} != expected {sorted(exp_set)}")
    if problem.get("rejected"):
        want = {_value_key(evaluated(parse_expr_safe(r))) for r in problem["rejected"]}
        have = {_value_key(evaluated(parse_expr_safe(r))) for r in (rejected or [])}
        if not want <= have:
            symbolic_ok = False
            notes.append(f"rejected {rejected} lacks expected {problem['rejected']}")
    return Grade(conditions_ok and numeric_ok and symbolic_ok, numeric_ok, symbolic_ok, conditions_ok, notes)


def grade_check(problem: dict[str, Any], verdicts: list[dict[str, Any]]) -> Grade:
    got = [v["status"] if v["status"] == "accepted" else f"rejected:{v['violation']['invariant']}" for v in verdicts]
    ok = got == problem["verdicts"]
    return Grade(ok, ok, ok, ok, [] if ok else [f"verdicts {got} != expected {problem['verdicts']}"])


def grade_outputs(problem: dict[str, Any], out: dict[str, Any]) -> Grade:
    """Grade one crl_math output dict for a corpus problem."""
    if problem["goal"] == "simplify":
        return grade_simplify(problem, out.get("result"), out.get("conditions", []))
    if problem["goal"] == "solve":
        return grade_solve(problem, out.get("solutions"), out.get("conditions", []),
                           [r["value"] for r in out.get("rejected") or []])
    return grade_check(problem, out.get("verdicts", []))


def anchor(problem: dict[str, Any]) -> dict[str, Any]:
    """Plain sympy on the same problem, symbols declared real: simplify / solveset, no conditions."""
    if problem["goal"] == "simplify":
        e = evaluated(parse_expr_safe(problem["expression"]))
        real = {s: sympy.Symbol(s.name, real=True) for s in e.free_symbols}
        back = {v: k for k, v in real.items()}
        r = sympy.simplify(e.xreplace(real)).xreplace(back)
        return {"result": sympy.sstr(r), "conditions": []}
    if problem["goal"] == "solve":
        lhs, rhs = parse_equation(problem["equation"])
        lhs, rhs = evaluated(lhs), evaluated(rhs)
        x = sorted(lhs.free_symbols | rhs.free_symbols, key=lambda s: s.name)[0]
        xr = sympy.Symbol(x.name, real=True)
        sol = sympy.solveset((lhs - rhs).xreplace({x: xr}), xr, sympy.S.Reals)
        if isinstance(sol, sympy.FiniteSet):
            return {"solutions": [sympy.sstr(s.xreplace({xr: x})) for s in sol], "conditions": [], "rejected": []}
        return {"solutions": None, "conditions": [], "rejected": [], "note": sympy.sstr(sol)}
    return {"verdicts": []}
