"""The solve planner: equations and inequalities in one unknown, over the reals, as sets.

Finite answers: the chain never divides by an expression in the unknown (that loses roots): it
moves every term to one side, clears denominators (obligation: they are non-zero), removes
radicals by squaring or logarithms by exponentiating (both may add extraneous roots), factors,
and then substitutes every candidate into the *original* equation with strict evaluation. A
candidate outside the domain or the assumptions, or one that fails the original, is listed in
``rejected`` with the reason and the step that let it in.

Interval answers (inequalities, equations that hold on a whole interval such as
``|x-1|/(x-1) = 1``, identities) come from the sign chart (``chart.py``); trigonometric ones
from the periodic planner (``periodic.py``); equations with parameters from ``params.py``.
Every answer carries ``solution_set`` and a set-check witness: points inside and outside the
set, the critical points and their neighbours, each judged by strict evaluation of the original.
"""

from __future__ import annotations

from typing import Any

import mpmath
import sympy

from abilities.base import AbilityError
from abilities.crl_math import numeric, periodic, report
from abilities.crl_math.chart import (
    as_mp,
    chart,
    order_key,
    reduce_to_candidates,
    relation,
    truth_at,
    values_at,
    violated,
)
from abilities.crl_math.domain import Cond, Contradiction, reduce_conds
from abilities.crl_math.exact import is_exact_zero
from abilities.crl_math.params import run_cases
from abilities.crl_math.parser import ParseError, evaluated, parse_solve_relation, realify
from abilities.crl_math.request import Chain, Request, base_outputs
from abilities.crl_math.rules import log_exp_inverse
from abilities.crl_math.sets import check_set, holds, show_set
from abilities.crl_math.trail import NullHooks, StepRec, Trail, show

IMPLICATION_RULES = ("SQUARE_BOTH_SIDES", "SQUARE_ABS", "EXPONENTIATE_LOGS", "CAS_SOLVE")
SQUARING_RULES = ("SQUARE_BOTH_SIDES", "SQUARE_ABS", "CAS_SOLVE", "SUBSTITUTE_EXP")  # the others are equivalences on the domain
TRIG = (sympy.sin, sympy.cos, sympy.tan)


def _unknown(req: Request, syms: list[sympy.Symbol]) -> sympy.Symbol:
    if req.variable:
        x = sympy.Symbol(req.variable)
        if x not in syms:
            raise AbilityError("invalid_variable", f"variable {req.variable!r} does not occur in the equation")
        return x
    if len(syms) == 1:
        return syms[0]
    raise AbilityError("invalid_variable", "name the unknown in 'variable' (the equation has several symbols)")


def run_solve(req: Request, trail: Trail) -> dict[str, Any]:
    real = trail.real
    text = req.equation or ""
    try:
        lhs_s, op, rhs_s = parse_solve_relation(text, complex_ok=not real)
    except ParseError as exc:
        raise AbilityError("invalid_equation", f"equation: {exc}", {"field": "equation", "position": exc.pos}) from None
    if op != "=" and not real:
        raise AbilityError("invalid_equation", "inequalities need the real domain")
    syms = sorted((lhs_s.free_symbols | rhs_s.free_symbols), key=lambda s: s.name)
    x = _unknown(req, syms)
    params = [s for s in syms if s != x]
    if params:
        if not real:
            raise AbilityError("unsupported", "parameters are handled over the reals only")
        return run_cases(req, trail, lhs_s, op, rhs_s, x, params,
                         lambda lhs, rel, rhs: solve_set(lhs, rel, rhs, x, trail.assumptions, trail.seed))
    e0 = trail.add_expr(relation(lhs_s, op, rhs_s), text)
    try:
        d0 = trail.domain_of(e0)
    except Contradiction as exc:
        raise AbilityError("undefined_everywhere", f"equation: {exc}") from None
    foreign = [c for c in trail.assumptions if not set(c.symbols()) <= {x.name}]
    if foreign:
        raise AbilityError("invalid_assumption", f"the assumption {foreign[0].text} names a symbol that is not in "
                                                 "the equation")
    chain, final, rejected, extra = _solve_chain(trail, req, e0, d0, x, lhs_s, op, rhs_s)
    return _finish(trail, req, chain, e0, d0, x, lhs_s, op, rhs_s, final, rejected, extra)


def _solve_chain(trail: Trail, req: Request, e0: str, d0: list[Cond], x: sympy.Symbol, lhs_s: sympy.Expr, op: str,
                 rhs_s: sympy.Expr) -> tuple[Chain, sympy.Set, list[dict[str, Any]], list[sympy.Expr]]:
    """Pick the planner (periodic, finite candidates, sign chart) and run it on the trail."""
    real = trail.real
    lhs, rhs = evaluated(lhs_s), evaluated(rhs_s)
    if real:
        lhs, rhs = realify(lhs), realify(rhs)
    chain = Chain(trail, req, e0)
    if real and any(isinstance(a, TRIG) and a.has(x) for a in sympy.preorder_traversal(lhs - rhs)):
        final, extra = periodic.solve_periodic(chain, lhs_s, op, rhs_s, x, d0, trail.assumptions)
        return chain, final, [], extra
    mark = trail.snapshot()
    if op == "=":
        try:
            final, rejected, extra = _finite(chain, lhs_s, rhs_s, lhs, rhs, x, d0)
            return chain, final, rejected, extra
        except AbilityError as exc:
            if exc.reason != "unsupported" or not real:
                raise
            trail.retract(mark, f"no finite candidate set ({exc.message}); solving by the sign chart")
            chain = Chain(trail, req, e0)
    final, points = _by_chart(chain, lhs_s, op, rhs_s, lhs, rhs, x, d0)
    return chain, final, [], points


def solve_set(lhs_s: sympy.Expr, op: str, rhs_s: sympy.Expr, x: sympy.Symbol, assumptions: list[Cond],
              seed: bytes) -> sympy.Set:
    """The solution set alone, on a scratch trail (parameter cases solve one value at a time)."""
    trail = Trail(NullHooks(), seed, True, [c for c in assumptions if set(c.symbols()) <= {x.name}], [], 10)
    e0 = trail.add_expr(relation(lhs_s, op, rhs_s))
    try:
        d0 = trail.domain_of(e0)
    except Contradiction:
        return sympy.S.EmptySet  # defined nowhere (log(a) at a = -1): nothing solves it
    return _solve_chain(trail, Request(goal="solve"), e0, d0, x, lhs_s, op, rhs_s)[1]


def _moved(chain: Chain, lhs: sympy.Expr, rhs: sympy.Expr, op: str) -> sympy.Expr:
    f = sympy.expand(lhs - rhs) if not (lhs - rhs).has(sympy.Pow) else lhs - rhs
    f = evaluated(f)
    if rhs != 0:
        chain.step("MOVE_TERMS", relation(f, op, sympy.Integer(0)))
    if chain.trail.real:
        rw = log_exp_inverse(f, True)
        if rw is not None:
            f = evaluated(rw.expr)
            chain.step(rw.rule, relation(f, op, sympy.Integer(0)))
    return f


def _finite(chain: Chain, lhs_s: sympy.Expr, rhs_s: sympy.Expr, lhs: sympy.Expr, rhs: sympy.Expr,
            x: sympy.Symbol, d0: list[Cond]) -> tuple[sympy.Set, list[dict[str, Any]], list[sympy.Expr]]:
    """Equations with finitely many candidates (or an identity): candidates checked one by one."""
    trail, real = chain.trail, chain.trail.real
    f = _moved(chain, lhs, rhs, "=")
    candidates, identity = reduce_to_candidates(f, x, real, chain.record)
    domain_conds = [*d0, *trail.assumptions]
    implication = next((s for s in chain.steps if s.rule in IMPLICATION_RULES), None)
    solutions: list[sympy.Expr] = []
    rejected: list[dict[str, Any]] = []
    checks: list[dict[str, Any]] = []
    via = implication.step_id if implication else (chain.steps[-1].step_id if chain.steps else "")
    rule = implication.rule if implication else "the transformation"
    for c in sorted(set(candidates), key=order_key):
        bad = violated(domain_conds, x, c, real)
        if bad is not None:
            origin = next((o.origin_step_id for o in trail.obligations if o.cond.key == bad.key), None)
            where = "the assumptions" if bad in trail.assumptions else "the domain"
            rejected.append({"value": sympy.sstr(c), "reason": f"outside {where}: violates {bad.text}",
                             "invariant": "I2", "step_id": origin or (chain.steps[-1].step_id if chain.steps else "")})
            checks.append({"candidate": sympy.sstr(c), "verdict": "outside domain", "condition": bad.text})
            continue
        lv, rv, equal, exact = values_at(lhs_s, rhs_s, x, c, real)
        if equal:
            solutions.append(c)
            checks.append({"candidate": sympy.sstr(c), "verdict": "solution",
                           "lhs": "exact" if exact or lv is None else mpmath.nstr(lv, 15)})
        elif exact or lv is None or rv is None:
            why = "the original does not hold there (exact check)" if exact else "a side is undefined there"
            rejected.append({"value": sympy.sstr(c), "invariant": "I2", "step_id": via,
                             "reason": f"extraneous (from {rule}): {why}"})
            checks.append({"candidate": sympy.sstr(c), "verdict": "extraneous" if exact else "undefined"})
        else:
            rejected.append(
                {"value": sympy.sstr(c),
                 "reason": f"extraneous (from {rule}): the original gives {mpmath.nstr(lv, 10)} = {mpmath.nstr(rv, 10)}",
                 "invariant": "I2", "step_id": via})
            checks.append({"candidate": sympy.sstr(c), "verdict": "extraneous", "lhs": mpmath.nstr(lv, 15),
                           "rhs": mpmath.nstr(rv, 15)})
    if identity:  # f vanishes wherever it is defined: the answer is the domain (within the assumptions)
        zero = sympy.Integer(0)
        final, extra = chart(zero, "=", zero, x, domain_conds)[0], []
    else:
        final, extra = (sympy.FiniteSet(*solutions) if solutions else sympy.S.EmptySet), list(candidates)
    last = chain.step("CHECK_CANDIDATES", final, note=f"{len(solutions)} kept, {len(rejected)} rejected",
                      surface=f"{x} in {show_set(final)}", domain_obligations=False)
    payload = {"check": "candidates substituted into the original (strict, 50 digits)", "results": checks}
    w = trail.add_witness(last.step_id, "CAS", payload, f"{len(checks)} candidates checked", True)
    last.witness_ids.append(w.wit_id)
    return final, rejected, extra


def _by_chart(chain: Chain, lhs_s: sympy.Expr, op: str, rhs_s: sympy.Expr, lhs: sympy.Expr, rhs: sympy.Expr,
              x: sympy.Symbol, d0: list[Cond]) -> tuple[sympy.Set, list[sympy.Expr]]:
    trail = chain.trail
    _moved(chain, lhs, rhs, op)
    final, crit = chart(lhs_s, op, rhs_s, x, [*d0, *trail.assumptions])
    points = sorted({p for ps in crit.values() for p in ps}, key=order_key)
    note = "; ".join(f"{k.replace('_', ' ')}: {sympy.sstr(sympy.FiniteSet(*v))}" for k, v in crit.items() if v)
    s = chain.step("CRITICAL_POINTS", sympy.FiniteSet(*points) if points else sympy.S.EmptySet,
                   note=note or "no critical point: the relation has one truth value on the whole line",
                   surface=f"critical points {show_set(sympy.FiniteSet(*points))}", domain_obligations=False)
    conds = [*d0, *trail.assumptions]
    rows = [{"point": sympy.sstr(p), "holds": truth_at(lhs_s, op, rhs_s, x, p, conds)} for p in points]
    w = trail.add_witness(s.step_id, "CAS", {"check": "the relation at each critical point (exact when close)",
                                             "rows": rows, **{k: [sympy.sstr(p) for p in v] for k, v in crit.items()}},
                          f"{len(rows)} critical points judged", True)
    s.witness_ids.append(w.wit_id)
    chain.step("SIGN_CHART", final, note="one test point per cell between critical points",
               surface=f"{x} in {show_set(final)}", domain_obligations=False)
    return final, points


def set_witness(trail: Trail, step: StepRec, lhs: sympy.Expr, op: str, rhs: sympy.Expr, x: sympy.Symbol,
                final: sympy.Set, extra: list[sympy.Expr], env: dict[str, Any] | None = None) -> bool:
    """SET_CHECK: membership in the answer equals the truth of the original at the probes."""
    assume = [c for c in trail.assumptions if set(c.symbols()) <= {x.name, *(env or {})}]
    pts = []
    for p in extra:
        try:
            v = p.xreplace({sympy.Symbol(k): sympy.Float(str(val), 50) for k, val in (env or {}).items()})
            pts.append(as_mp(v))
        except (TypeError, ValueError):
            continue
    chk = check_set(lhs, op, rhs, x, final, assume, trail.rng(f"set_check/{step.step_id}"),
                    max(20, trail.tests_per_step), env=env, extra=[p for p in pts if not isinstance(p, mpmath.mpc)])
    payload = {"check": "points inside and outside the set judged by strict evaluation of the original",
               "set": show_set(final), "relation": f"{sympy.sstr(lhs)} {op} {sympy.sstr(rhs)}",
               "parameters": {k: mpmath.nstr(v, 20) for k, v in (env or {}).items()}, **chk.payload()}
    w = trail.add_witness(step.step_id, "RandomTest", payload,
                          f"set check: {chk.tested} points, {chk.inside} inside, {chk.outside} outside", chk.ok)
    step.witness_ids.append(w.wit_id)
    return chk.ok


def _finish(trail: Trail, req: Request, chain: Chain, e0: str, d0: list[Cond], x: sympy.Symbol,
            lhs_s: sympy.Expr, op: str, rhs_s: sympy.Expr, final: sympy.Set, rejected: list[dict[str, Any]],
            extra: list[sympy.Expr]) -> dict[str, Any]:
    real = trail.real
    last = chain.steps[-1]
    for s in chain.steps:
        _witness_step(trail, s, x, final)
    if real and not set_witness(trail, last, lhs_s, op, rhs_s, x, final, extra):
        w = trail.witnesses[-1]
        raise AbilityError("unsupported", f"the set check refuted the computed set {show_set(final)} "
                                          f"(witness {w.wit_id}); no answer is given rather than a wrong one")
    conditions = reduce_conds([*d0, *(o.cond for o in trail.required())], real, keep=trail.assumptions)
    trail.final_conditions = conditions
    trail.final_sets = [final]
    for o in trail.required():
        o.status, o.note = "discharged", f"the solution set satisfies it; violating points excluded ({o.note})"
    mode = "no_solution" if final is sympy.S.EmptySet else ("conditional" if conditions else "identical")
    finite = isinstance(final, sympy.FiniteSet) or final is sympy.S.EmptySet
    solutions = sorted(final.args, key=order_key) if isinstance(final, sympy.FiniteSet) else []
    closing = f"Solution set: {show_set(final)}"
    if rejected:
        closing += f"; rejected {', '.join(r['value'] for r in rejected)}"
    expl = report.explanation(trail, closing, [last.step_id])
    out = base_outputs(trail, "solve")
    out.update(
        {
            "result": show_set(final),
            "solution_set": show_set(final),
            "variable": x.name,
            "relation": op,
            "solutions": [sympy.sstr(s) for s in solutions] if finite else None,
            "rejected": rejected,
            "equivalence_mode": mode,
            "conditions": [c.text for c in conditions],
            "explanation": expl,
            "invariants": report.audit(trail, [e0], final, conditions, mode, expl, None),
            "latex": {"solution_set": sympy.latex(final), "solutions": [sympy.latex(s) for s in solutions],
                      "conditions": [sympy.latex(c.as_relational()) for c in conditions]},
            "graph": report.graph_summary(report.graph(trail)),
        }
    )
    return out


def _residual(e: sympy.Basic, x: sympy.Symbol, v: sympy.Expr, real: bool) -> Any:
    if not isinstance(e, sympy.Equality):
        return None
    env = {x.name: as_mp(v)}
    try:
        a = numeric.value_or_none(e.lhs, env, real)
        b = numeric.value_or_none(e.rhs, env, real)
    except numeric.Unevaluable:
        g = (e.lhs - e.rhs).xreplace({x: v})
        return 0 if is_exact_zero(g) else abs(complex(g.evalf(30)))
    if a is None or b is None:
        return None
    return abs(a - b)


def _same_truth(trail: Trail, s: StepRec, a: sympy.Rel, b: sympy.Rel, x: sympy.Symbol) -> None:
    """An equivalence step: both relations hold at the same points (where the conditions hold)."""
    conds = trail.conditions_in_force()
    ops = {sympy.Eq: "=", sympy.Lt: "<", sympy.Le: "<=", sympy.Gt: ">", sympy.Ge: ">="}
    oa, ob = ops[type(a)], ops[type(b)]
    tested, differ = 0, []
    for pt in numeric.sample_points([x.name], trail.rng(f"witness/{s.step_id}"), conds, 200):
        if tested >= trail.tests_per_step:
            break
        env = numeric.to_env(pt)
        if not all(numeric.cond_holds(c, env) for c in conds):
            continue
        try:
            ta, tb = holds(a.lhs, oa, a.rhs, env), holds(b.lhs, ob, b.rhs, env)
        except numeric.Unevaluable:
            continue
        tested += 1
        if ta != tb:
            differ.append({k: str(v) for k, v in pt.items()})
    payload = {"check": "both relations have the same truth value at seeded points under the conditions",
               "a": show(a), "b": show(b), "conditions": [c.text for c in conds], "tested": tested,
               "differ": differ[:5]}
    ok = tested > 0 and not differ
    w = trail.add_witness(s.step_id, "RandomTest", payload, f"{tested} points, same truth value", ok)
    s.witness_ids.append(w.wit_id)


def _witness_step(trail: Trail, s: StepRec, x: sympy.Symbol, final: sympy.Set) -> None:
    """Every step: the rule; an equation step also: each verified solution still satisfies it."""
    trail.witness(s)
    out = trail.exprs[s.output_expr_id].expr
    inp = trail.exprs[s.input_expr_ids[0]].expr
    if isinstance(inp, sympy.Rel) and isinstance(out, sympy.Rel) and s.rule not in SQUARING_RULES:
        _same_truth(trail, s, inp, out, x)
    finite = isinstance(final, sympy.FiniteSet) or final is sympy.S.EmptySet
    listed = isinstance(out, sympy.FiniteSet) or out is sympy.S.EmptySet
    if not finite or not (isinstance(out, sympy.Equality) or listed) or s.rule == "CHECK_CANDIDATES":
        return
    rows = []
    ok = True
    for v in sorted(final.args, key=order_key) if final.args else []:
        if listed:  # a candidate list: the solution must be one of them
            held = any(abs(complex((v - m).evalf(30))) < 1e-20 for m in out.args)
        else:
            r = _residual(out, x, v, trail.real)
            held = r is not None and r < mpmath.mpf(10) ** -20
        rows.append({"solution": sympy.sstr(v), "still_satisfied": bool(held)})
        ok = ok and bool(held)
    payload = {"check": "verified solutions satisfy the step's output (no root lost)", "x": x.name,
               "output": show(out), "rows": rows}
    w = trail.add_witness(s.step_id, "RandomTest", payload, f"{len(rows)} solutions carried through", ok)
    s.witness_ids.append(w.wit_id)
