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
from abilities.crl_math.chart import as_mp
from abilities.crl_math.domain import Cond, from_relation
from abilities.crl_math.parser import (
    ParseError,
    evaluated,
    parse_equation,
    parse_expr_safe,
    parse_relation,
    parse_solve_relation,
)
from abilities.crl_math.rules import simplicity
from abilities.crl_math.sets import BadSet, check_set, holds, parse_set, points_of, show_set


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


# -- capability problems: set answers, parameter cases, outcomes ----------------------------

OUTCOMES = ("correct", "imprecise", "wrong", "refused")


@dataclass
class Outcome:
    """``correct``; ``imprecise`` (true, but an extra condition or a less simple form); ``wrong``
    (a false claim: a point misjudged, a needed condition dropped); ``refused`` (no answer)."""

    status: str
    notes: list[str] = field(default_factory=list)


def solve_relation(problem: dict[str, Any]) -> tuple[sympy.Expr, str, sympy.Expr, sympy.Symbol, list[sympy.Symbol]]:
    """(lhs, op, rhs, unknown, parameters) of a solve problem, as parsed: unevaluated, so that
    strict evaluation sees every root and denominator the problem wrote (sqrt(x)^2 needs x >= 0)."""
    lhs, op, rhs = parse_solve_relation(problem["equation"])
    syms = sorted(lhs.free_symbols | rhs.free_symbols, key=lambda s: s.name)
    x = next((s for s in syms if s.name == problem.get("variable")), syms[0] if syms else sympy.Symbol("x"))
    return lhs, op, rhs, x, [s for s in syms if s != x]


def _when_holds(texts: list[str], env: dict[str, Any]) -> bool:
    for t in texts:
        lhs, op, rhs = parse_relation(t)
        if not holds(evaluated(lhs), "=" if op == "==" else op, evaluated(rhs), env):
            return False
    return True


def parameter_points(problem: dict[str, Any], rng: Any, count: int = 16) -> list[Any]:
    """Parameter values to test: the boundary values named in the expected cases, their
    neighbours, small integers and seeded random rationals."""
    import mpmath

    pts = [mpmath.mpf(k) for k in range(-3, 4)]
    for case in problem.get("cases", []):
        for t in case["when"]:
            _l, _op, rhs = parse_relation(t)
            r = evaluated(rhs)
            if r.is_number:
                v = as_mp(r)
                pts += [v, v + mpmath.mpf(1) / 1000, v - mpmath.mpf(1) / 1000]
    pts += [mpmath.mpf(rng.randint(-6000, 6000)) / 1000 for _ in range(count)]
    return pts


def _defined_at(s: sympy.Set, env: dict[str, Any]) -> bool:
    try:
        points_of(s, env)
    except BadSet:
        return False
    return True


def check_cases(problem: dict[str, Any], cases: list[dict[str, Any]], seed: bytes, expected: bool = False) -> Outcome:
    """Exactly one case must hold at every tested parameter value, and its set must be right there."""
    lhs, op, rhs, x, params = solve_relation(problem)
    _a, assume = cond_set(problem.get("assumptions", []))
    rng = derive_rng(seed, f"grade/cases/{problem['id']}")
    parsed = []
    try:
        for c in cases:
            parsed.append((c["when"], parse_set(c["solution_set"])))
    except (BadSet, KeyError) as exc:
        return Outcome("wrong", [f"case set does not parse: {exc}"])
    others = [] if expected else [parse_set(c["solution_set"]) for c in problem["cases"]]
    names = [p.name for p in params]
    if len(names) != 1:
        return Outcome("refused", ["only one parameter is graded"])
    for v in parameter_points(problem, rng):
        env = {names[0]: v}
        try:
            holding = [s for w, s in parsed if _when_holds(w, env)]
        except (ValueError, ParseError) as exc:
            return Outcome("wrong", [f"a 'when' does not parse: {exc}"])
        if len(holding) != 1:
            return Outcome("wrong", [f"{len(holding)} cases hold at {names[0]} = {v}"])
        sub_others = [o for o in others if _defined_at(o, env)]
        chk = check_set(lhs, op, rhs, x, holding[0], assume, rng, 30, env=env, others=sub_others)
        if not chk.ok:
            return Outcome("wrong", [f"at {names[0]} = {v}: {chk.payload()}"])
    return Outcome("correct")


def grade_set(problem: dict[str, Any], set_text: str | None, seed: bytes = b"grade") -> Outcome:
    """A solve answer's set against the relation (strict evaluation), probing the expected set too."""
    if set_text is None:
        return Outcome("refused", ["no solution set"])
    lhs, op, rhs, x, _params = solve_relation(problem)
    _a, assume = cond_set(problem.get("assumptions", []))
    try:
        got = parse_set(set_text)
    except BadSet as exc:
        return Outcome("wrong", [f"set does not parse: {exc}"])
    others = [parse_set(problem["solution_set"])] if "solution_set" in problem else []
    chk = check_set(lhs, op, rhs, x, got, assume, derive_rng(seed, f"grade/set/{problem['id']}"), 60, others=others)
    if not chk.ok:
        return Outcome("wrong", [f"set check: {chk.payload()}"])
    return Outcome("correct")


def grade_simplify_outcome(problem: dict[str, Any], result: str | None, conditions: list[str],
                           seed: bytes = b"grade") -> Outcome:
    """Wrong when the result disagrees with the input anywhere its own conditions allow."""
    if result is None:
        return Outcome("refused", ["no result"])
    original = parse_expr_safe(problem["expression"])
    try:
        got = evaluated(parse_expr_safe(result))
        got_set, got_conds = cond_set(conditions)
    except ValueError as exc:
        return Outcome("wrong", [f"answer does not parse: {exc}"])
    exp_set, exp_conds = cond_set(problem["conditions"])
    _a, assume = cond_set(problem.get("assumptions", []))
    rng = derive_rng(seed, f"grade/outcome/{problem['id']}")
    c1 = numeric.compare(original, got, [*got_conds, *assume], rng, 40, probe_from=exp_conds)
    if not c1.ok:
        return Outcome("wrong", [f"result vs input under its conditions: {c1.payload()['differ'][:1]}"
                                 f" {c1.only_a[:1]} {c1.only_b[:1]}"])
    notes = []
    if got_set != exp_set:
        notes.append(f"conditions {sorted(got_set)} != expected {sorted(exp_set)}")
    expected = evaluated(parse_expr_safe(problem["expected"]))
    if sympy.sstr(got) != sympy.sstr(expected) and simplicity(got) > simplicity(expected):
        notes.append(f"less simple: {sympy.sstr(got)} vs {sympy.sstr(expected)}")
    return Outcome("imprecise" if notes else "correct", notes)


def verify_expected(problem: dict[str, Any], seed: bytes = b"verify") -> Outcome:
    """Machine check of a hand-written expected answer with the strict real evaluator."""
    if problem["goal"] == "simplify":
        out = grade_simplify_outcome(problem, problem["expected"], problem["conditions"], seed)
        if out.status != "correct":
            return out
        # each expected condition must be needed where it can be probed (a boundary of one variable)
        original = parse_expr_safe(problem["expression"])
        expected = evaluated(parse_expr_safe(problem["expected"]))
        _s, conds = cond_set(problem["conditions"])
        _a, assume = cond_set(problem.get("assumptions", []))
        for c in conds:
            if expected.has(sympy.Piecewise) or not (c.lhs.is_Symbol and c.rhs.is_number):
                continue
            rest = [o for o in conds if o.key != c.key]
            cmp = numeric.compare(original, expected, [*rest, *assume], derive_rng(seed, c.text), 40, probe_from=[c])
            if cmp.ok:
                return Outcome("wrong", [f"condition {c.text} is not needed"])
        return out
    if "cases" in problem:
        return check_cases(problem, problem["cases"], seed, expected=True)
    return grade_set(problem, problem["solution_set"], seed)


def answer_set(out: dict[str, Any]) -> str | None:
    """The set a solve output claims: ``solution_set``, else its finite ``solutions``."""
    if out.get("solution_set") is not None:
        return out["solution_set"]
    if out.get("solutions") is not None:
        if out.get("result") and not out["result"].startswith("{"):
            return out["result"]  # an identity's domain printed as a set
        return show_set(sympy.FiniteSet(*[evaluated(parse_expr_safe(s)) for s in out["solutions"]]))
    return None


def grade_capability(problem: dict[str, Any], out: dict[str, Any] | None, seed: bytes = b"grade") -> Outcome:
    """Outcome of one answer (``None``: the ability refused)."""
    if out is None:
        return Outcome("refused", ["failed"])
    if problem["goal"] == "simplify":
        return grade_simplify_outcome(problem, out.get("result"), out.get("conditions", []), seed)
    if "cases" in problem:
        if out.get("cases") is None:
            if out.get("solution_set") is None and out.get("solutions") is None:
                return Outcome("refused", ["no cases"])
            return check_cases(problem, [{"when": [], "solution_set": answer_set(out)}], seed)
        return check_cases(problem, out["cases"], seed)
    return grade_set(problem, answer_set(out), seed)


def anchor_capability(problem: dict[str, Any]) -> dict[str, Any] | None:
    """Plain sympy over the reals: ``simplify`` (symbols real) or ``solveset`` on the relation,
    intersected with the assumptions' region; ``None`` when it returns no usable set."""
    if problem["goal"] == "simplify":
        out = anchor(problem)
        try:
            parse_expr_safe(out["result"])
        except ParseError:
            return None  # sympy answered with a function outside the grammar (cosh): not gradable
        return out
    lhs, op, rhs, x, params = solve_relation(problem)
    real = {s: sympy.Symbol(s.name, real=True) for s in [x, *params]}
    back = {v: k for k, v in real.items()}
    rel = {"=": sympy.Eq, "<": sympy.Lt, "<=": sympy.Le, ">": sympy.Gt, ">=": sympy.Ge}[op]
    xr = real[x]
    dom: sympy.Set = sympy.S.Reals
    for t in problem.get("assumptions", []):
        al, aop, ar = parse_relation(t)
        arel = {"<": sympy.Lt, "<=": sympy.Le, ">": sympy.Gt, ">=": sympy.Ge, "!=": sympy.Ne}[aop]
        dom = dom & sympy.solveset(arel(evaluated(al).xreplace(real), evaluated(ar).xreplace(real)), xr, sympy.S.Reals)
    sol = sympy.solveset(rel(evaluated(lhs).xreplace(real), evaluated(rhs).xreplace(real)), xr, dom)
    if sol.has(sympy.ConditionSet):
        return None
    text = show_set(sol.xreplace(back))
    try:
        parse_set(text)
    except BadSet:
        return None
    return {"solution_set": text}
