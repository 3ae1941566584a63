"""The solve planner: transform to a polynomial, collect candidates, check each in the original.

The chain never divides by an expression in the unknown (that loses roots): it moves every term
to one side, clears denominators (obligation: they are non-zero), removes radicals by squaring
(``sympy``'s ``unrad``) or logarithms by exponentiating (both may add extraneous roots), factors,
and then substitutes every candidate into the *original* equation with strict evaluation. A
candidate outside the domain, or one that fails the original, is listed in ``rejected`` with the
reason and the step that let it in.
"""

from __future__ import annotations

from typing import Any

import mpmath
import sympy
from sympy.solvers.solvers import unrad

from abilities.base import AbilityError
from abilities.crl_math import cas, numeric, report
from abilities.crl_math.domain import Cond, Contradiction, reduce_conds
from abilities.crl_math.parser import ParseError, evaluated, parse_equation, realify
from abilities.crl_math.request import Request, StoppedWithPartial, base_outputs, partial_outputs
from abilities.crl_math.trail import StepRec, Trail, show

IMPLICATION_RULES = ("SQUARE_BOTH_SIDES", "SQUARE_ABS", "EXPONENTIATE_LOGS", "CAS_SOLVE")


def _eq(lhs: sympy.Expr, rhs: sympy.Expr) -> sympy.Equality:
    return sympy.Eq(lhs, rhs, evaluate=False)


def _has_radical(f: sympy.Expr, x: sympy.Symbol) -> bool:
    return any(
        p.is_Pow and p.exp.is_Rational and not p.exp.is_Integer and p.base.has(x) for p in sympy.preorder_traversal(f)
    )


def _log_form(f: sympy.Expr, x: sympy.Symbol) -> sympy.Expr | None:
    """For sum(c_i*log(a_i)) + r = 0 with r free of x: the rational function prod(a_i^c_i) - exp(-r)."""
    logs: list[tuple[sympy.Expr, sympy.Expr]] = []
    rest = sympy.Integer(0)
    for t in sympy.Add.make_args(sympy.expand(f)):
        coeff, parts = t.as_coeff_mul()
        if len(parts) == 1 and isinstance(parts[0], sympy.log) and parts[0].has(x):
            logs.append((coeff, parts[0].args[0]))
        elif t.has(x):
            return None
        else:
            rest += t
    if not logs:
        return None
    product = sympy.Mul(*[a**c for c, a in logs])
    return sympy.together(product - sympy.exp(-rest))


def _square_abs(f: sympy.Expr, x: sympy.Symbol) -> sympy.Expr | None:
    """For f = c*|u| + r (c, r free of that |u|): the implied c^2*u^2 - r^2 = 0, else None."""
    even = f.replace(
        lambda e: e.is_Pow and isinstance(e.base, sympy.Abs) and e.exp.is_Integer and e.exp % 2 == 0,
        lambda e: e.base.args[0] ** e.exp,
    )
    atoms = sorted({a for a in sympy.preorder_traversal(even) if isinstance(a, sympy.Abs) and a.has(x)}, key=sympy.sstr)
    if not atoms:
        return sympy.expand(even) if even != f else None
    f = even
    a = atoms[0]
    t = sympy.Dummy("t")
    g = sympy.together(f.xreplace({a: t}))
    num, den = sympy.fraction(g)
    g = sympy.expand(num if den.has(t) else g)  # 1/|x| = 2: the numerator 1 - 2|x| (|x| != 0 is the domain)
    if g.has(a) or not g.is_polynomial(t) or sympy.degree(g, t) != 1:
        return None
    c, r = g.coeff(t, 1), g.coeff(t, 0)
    return sympy.expand(c**2 * a.args[0] ** 2 - r**2)


def _solvable_or_raise(f: sympy.Expr, x: sympy.Symbol) -> None:
    """CAS_SOLVE only for x inside exponentials with linear exponents (a polynomial in e^(kx)).

    Trigonometric equations have infinite solution families and mixed equations such as
    x = cos(x) have no closed form: both are outside the MVP and fail fast instead of letting
    sympy search for a long time.
    """
    if f.has(sympy.sin, sympy.cos, sympy.tan):
        raise AbilityError("unsupported", "trigonometric equations (infinite solution families) are outside the MVP")
    exps = sorted({e for e in sympy.preorder_traversal(f) if isinstance(e, sympy.exp) and e.has(x)}, key=sympy.sstr)
    if not exps or any(not e.args[0].is_polynomial(x) or sympy.degree(e.args[0], x) != 1 for e in exps):
        raise AbilityError("unsupported", "no finite closed-form candidate set for this equation in the MVP")
    masked = f.xreplace({e: sympy.Dummy() for e in exps})
    if masked.has(x):
        raise AbilityError("unsupported", "x appears both inside and outside exponentials: no closed form")


def _common_denominator(f: sympy.Expr) -> tuple[sympy.Expr, sympy.Expr]:
    """(n, d) with f = n/d, without cancelling: x/(x-2) - 2/(x-2) keeps n = x - 2 (a candidate)."""
    parts = [sympy.fraction(sympy.together(t)) for t in sympy.Add.make_args(f)]
    d = sympy.Integer(1)
    for _n, di in parts:
        d = sympy.lcm(d, di)
    n = sympy.Add(*[ni * sympy.cancel(d / di) for ni, di in parts])
    return sympy.expand(n), sympy.factor(d)


def _roots(poly_expr: sympy.Expr, x: sympy.Symbol, real: bool) -> list[sympy.Expr]:
    cas.guard(poly_expr, "solve the polynomial")
    poly = sympy.Poly(poly_expr, x)
    if poly.degree() <= 0:
        return []
    found = sympy.roots(poly)
    if sum(found.values()) < poly.degree():
        found = {r: 1 for r in (sympy.real_roots(poly) if real else poly.all_roots())}
    vals = list(found)
    if real:
        vals = [r for r in vals if r.is_real is not False and sympy.im(r.evalf(30)) == 0]
    return vals


def _key(v: sympy.Expr) -> tuple[float, float, str]:
    c = complex(v.evalf(30))
    return (c.real, c.imag, sympy.sstr(v))


def as_mp(v: sympy.Expr) -> Any:
    with mpmath.workdps(numeric.DPS):
        c = v.evalf(60)
        re_, im_ = c.as_real_imag()
        if im_ == 0:
            return mpmath.mpf(str(sympy.Float(re_, 60)))
        return mpmath.mpc(str(sympy.Float(re_, 60)), str(sympy.Float(im_, 60)))


def _violated(conds: list[Cond], x: sympy.Symbol, value: sympy.Expr, real: bool) -> Cond | None:
    """The first domain condition the candidate breaks, decided exactly when the number is tiny."""
    env = {x.name: as_mp(value)}
    for c in conds:
        g = c.expr.xreplace({x: value})
        approx = complex(g.evalf(60)) if not g.free_symbols else None
        if approx is not None and abs(approx) < 1e-40:
            exact_zero = sympy.simplify(g) == 0
            if exact_zero and c.op in ("!=", ">"):
                return c
            if exact_zero:
                continue
        if not numeric.cond_holds(c, env, real):
            return c
    return None


def _values(
    lhs: sympy.Expr, rhs: sympy.Expr, x: sympy.Symbol, value: sympy.Expr, real: bool
) -> tuple[Any, Any, bool, bool]:
    """(lhs, rhs, equal) at the candidate: 50-digit strict evaluation, exact sympy when too close to call."""
    env = {x.name: as_mp(value)}
    try:
        lv = numeric.value_or_none(lhs, env, real)
        rv = numeric.value_or_none(rhs, env, real)
    except numeric.Unevaluable:
        diff = sympy.simplify((lhs - rhs).xreplace({x: value}))
        return None, None, diff == 0, True
    if lv is None or rv is None:
        return lv, rv, False, False
    return lv, rv, numeric.agree(lv, rv), False


def run_solve(req: Request, trail: Trail) -> dict[str, Any]:
    real = trail.real
    text = req.equation or ""
    try:
        lhs_s, rhs_s = parse_equation(text, complex_ok=not real)
    except ParseError as exc:
        raise AbilityError("invalid_equation", f"equation: {exc}", {"field": "equation", "position": exc.pos}) from None
    syms = sorted((lhs_s.free_symbols | rhs_s.free_symbols), key=lambda s: s.name)
    if req.variable:
        x = sympy.Symbol(req.variable)
        if x not in syms:
            raise AbilityError("invalid_variable", f"variable {req.variable!r} does not occur in the equation")
    elif len(syms) == 1:
        x = syms[0]
    else:
        raise AbilityError("invalid_variable", "name the unknown in 'variable' (the equation has several symbols)")
    if set(syms) - {x}:
        raise AbilityError("unsupported", "solve handles one unknown; parameters are outside the MVP scope")
    e0 = trail.add_expr(_eq(lhs_s, rhs_s), text)
    try:
        d0 = trail.domain_of(e0)
    except Contradiction as exc:
        raise AbilityError("undefined_everywhere", f"equation: {exc}") from None
    lhs, rhs = evaluated(lhs_s), evaluated(rhs_s)
    if real:
        lhs, rhs = realify(lhs), realify(rhs)
    chain: list[StepRec] = []

    def step(rule: str, cur: str, new: sympy.Basic, note: str = "", surface: str | None = None) -> str:
        if trail.hooks.should_stop():
            raise StoppedWithPartial(partial_outputs(trail, req))
        s = trail.add_step(rule, cur, new, note=note, surface=surface)
        chain.append(s)
        return s.output_expr_id

    cur = e0
    f = sympy.expand(lhs - rhs) if not (lhs - rhs).has(sympy.Pow) else lhs - rhs
    f = evaluated(f)
    if rhs != 0:
        cur = step("MOVE_TERMS", cur, _eq(f, sympy.Integer(0)))
    candidates: list[sympy.Expr] | None = None
    identity = False
    for _ in range(6):
        cas.guard(f, "transform the equation")
        squared = _square_abs(f, x) if real else None
        if squared is not None:
            f = squared
            cur = step("SQUARE_ABS", cur, _eq(f, sympy.Integer(0)), "isolate |u| and square: |u|^2 = u^2")
            continue
        if _has_radical(f, x):
            res = unrad(f, x)
            if res and not res[1]:
                f = sympy.expand(res[0])
                cur = step("SQUARE_BOTH_SIDES", cur, _eq(f, sympy.Integer(0)), "radicals removed by squaring")
                continue
            break
        if f.has(sympy.log):
            g = _log_form(f, x)
            if g is not None:
                f = g
                cur = step("EXPONENTIATE_LOGS", cur, _eq(f, sympy.Integer(0)), "logs combined and exponentiated")
                continue
            break
        break
    if not f.has(sympy.log, sympy.exp, sympy.sin, sympy.cos, sympy.tan, sympy.Abs) and not _has_radical(f, x):
        n, d = _common_denominator(f)
        if d.has(x):
            cur = step("CLEAR_DENOMINATORS", cur, _eq(n, sympy.Integer(0)))
        n = sympy.expand(n)
        if n == 0:
            identity = True
            candidates = []
        elif not n.has(x):
            candidates = []
        else:
            fn = sympy.factor(n)
            if fn != n:
                cur = step("FACTOR_POLYNOMIAL", cur, _eq(fn, sympy.Integer(0)))
            candidates = []
            for fac, _m in sympy.factor_list(n)[1]:
                if fac.has(x):
                    candidates.extend(_roots(fac, x, real))
            cur = step(
                "ZERO_PRODUCT",
                cur,
                sympy.FiniteSet(*candidates) if candidates else sympy.S.EmptySet,
                surface=f"{x} in {sympy.sstr(sympy.FiniteSet(*sorted(candidates, key=_key)))}",
            )
    if candidates is None:
        _solvable_or_raise(f, x)
        cas.guard(f, "solve")
        if sympy.count_ops(f) > cas.MAX_CAS_OPS:
            raise AbilityError("too_complex", "the equation is too large for the solver")
        try:
            found = sympy.solve(f, x, check=False, dict=False)
        except (NotImplementedError, sympy.PolynomialError, ValueError) as exc:
            raise AbilityError("unsupported", f"no finite candidate set: {exc}") from None
        candidates = [c for c in found if not c.free_symbols]
        if real:
            candidates = [c for c in candidates if sympy.im(c.evalf(30)) == 0]
        cur = step(
            "CAS_SOLVE",
            cur,
            sympy.FiniteSet(*candidates) if candidates else sympy.S.EmptySet,
            surface=f"{x} in {sympy.sstr(sympy.FiniteSet(*sorted(candidates, key=_key)))}",
            note="sympy.solve(check=False); may include extraneous candidates",
        )
    # -- CHECK_CANDIDATES: strict substitution into the original -----------------------------
    domain_conds = [*d0, *trail.assumptions]
    implication = next((s for s in chain if s.rule in IMPLICATION_RULES), None)
    solutions: list[sympy.Expr] = []
    rejected: list[dict[str, Any]] = []
    checks: list[dict[str, Any]] = []
    for c in sorted(set(candidates), key=_key):
        bad = _violated(domain_conds, x, c, real)
        if bad is not None:
            origin = next((o.origin_step_id for o in trail.obligations if o.cond.key == bad.key), None)
            rejected.append(
                {"value": sympy.sstr(c), "reason": f"outside the domain: violates {bad.text}",
                 "invariant": "I2", "step_id": origin or (chain[-1].step_id if chain else "")}
            )
            checks.append({"candidate": sympy.sstr(c), "verdict": "outside domain", "condition": bad.text})
            continue
        lv, rv, equal, exact = _values(lhs_s, rhs_s, x, c, real)
        via = implication.step_id if implication else (chain[-1].step_id if chain else "")
        rule = implication.rule if implication else "the transformation"
        if equal:
            solutions.append(c)
            checks.append({"candidate": sympy.sstr(c), "verdict": "solution",
                           "lhs": "exact" if exact else mpmath.nstr(lv, 15)})
        elif exact:
            rejected.append({"value": sympy.sstr(c), "invariant": "I2", "step_id": via,
                             "reason": f"extraneous (from {rule}): the original does not hold there (exact check)"})
            checks.append({"candidate": sympy.sstr(c), "verdict": "extraneous", "check": "exact"})
        elif lv is None or rv is None:
            rejected.append({"value": sympy.sstr(c), "reason": "a side is undefined there", "invariant": "I2",
                             "step_id": chain[-1].step_id if chain else ""})
            checks.append({"candidate": sympy.sstr(c), "verdict": "undefined"})
        else:
            rejected.append(
                {"value": sympy.sstr(c),
                 "reason": f"extraneous (from {rule}): the original gives {mpmath.nstr(lv, 10)} = {mpmath.nstr(rv, 10)}",
                 "invariant": "I2", "step_id": via}
            )
            checks.append({"candidate": sympy.sstr(c), "verdict": "extraneous", "lhs": mpmath.nstr(lv, 15),
                           "rhs": mpmath.nstr(rv, 15)})
    final_set = sympy.FiniteSet(*solutions) if solutions else sympy.S.EmptySet
    if identity:
        if implication is not None and not _holds_everywhere(lhs_s, rhs_s, d0, trail):
            raise AbilityError(
                "unsupported",
                f"after {implication.rule} every x is a candidate, but the original holds only on part of its "
                "domain: interval solution sets are outside the MVP",
            )
        final_set = _domain_set(d0, x, real)
    last = trail.add_step(
        "CHECK_CANDIDATES", cur, final_set, note=f"{len(solutions)} kept, {len(rejected)} rejected",
        surface=f"{x} in {sympy.sstr(final_set)}", domain_obligations=False,
    )
    chain.append(last)
    # -- witnesses for the equation steps --------------------------------------------------
    for s in chain:
        _witness_equation_step(trail, s, x, solutions, checks if s is last else None)
    conditions = reduce_conds([*d0, *(o.cond for o in trail.required())], real, keep=trail.assumptions)
    trail.final_conditions = conditions
    for o in trail.required():
        o.status, o.note = "discharged", f"every kept solution satisfies it; violating candidates rejected ({o.note})"
    if identity:
        mode = "conditional" if conditions else "identical"
    else:
        mode = "no_solution" if not solutions else ("conditional" if conditions else "identical")
    closing = f"Solutions: {sympy.sstr(final_set)}"
    if rejected:
        closing += f"; rejected {', '.join(r['value'] for r in rejected)}"
    expl = report.explanation(trail, closing, [last.step_id])
    out = base_outputs(trail, "solve")
    out.update(
        {
            "result": sympy.sstr(final_set),
            "variable": x.name,
            "solutions": [sympy.sstr(s) for s in solutions],
            "rejected": rejected,
            "equivalence_mode": mode,
            "conditions": [c.text for c in conditions],
            "explanation": expl,
            "invariants": report.audit(trail, [e0], final_set, conditions, mode, expl, None),
            "latex": {"solutions": [sympy.latex(s) for s in solutions],
                      "conditions": [sympy.latex(c.as_relational()) for c in conditions]},
            "graph": report.graph_summary(report.graph(trail)),
        }
    )
    return out


def _holds_everywhere(lhs: sympy.Expr, rhs: sympy.Expr, conds: list[Cond], trail: Trail) -> bool:
    """Seeded numeric test that lhs = rhs wherever the equation is defined."""
    cmp = numeric.compare(lhs, rhs, [*conds, *trail.assumptions], trail.rng("identity"), 30, trail.real)
    return cmp.ok and cmp.equal >= 10


def _domain_set(conds: list[Cond], x: sympy.Symbol, real: bool) -> sympy.Set:
    """The set where univariate conditions hold (an identity's solution set)."""
    out: sympy.Set = sympy.S.Reals if real else sympy.S.Complexes
    for c in conds:
        if c.lhs == x and c.rhs.is_number:
            rel = c.rel
            if rel == "!=":
                out = out - sympy.FiniteSet(c.rhs)
            elif real:
                lo, hi = (c.rhs, sympy.oo) if rel in (">", ">=") else (-sympy.oo, c.rhs)
                out = out & sympy.Interval(lo, hi, left_open=rel in (">", "<") or lo == -sympy.oo,
                                           right_open=rel in (">", "<") or hi == sympy.oo)
    return out


def _residual(e: sympy.Basic, x: sympy.Symbol, v: sympy.Expr, real: bool) -> Any:
    if not isinstance(e, sympy.Equality):
        return None
    env = {x.name: as_mp(v)}
    try:
        a = numeric.value_or_none(e.lhs, env, real)
        b = numeric.value_or_none(e.rhs, env, real)
    except numeric.Unevaluable:
        return abs(complex(sympy.simplify((e.lhs - e.rhs).xreplace({x: v})).evalf(30)))
    if a is None or b is None:
        return None
    return abs(a - b)


def _witness_equation_step(
    trail: Trail, s: StepRec, x: sympy.Symbol, solutions: list[sympy.Expr], checks: list[dict[str, Any]] | None
) -> None:
    """Tool witness of an equation step: every verified solution still satisfies its output."""
    trail.witness(s)
    if checks is not None:
        payload = {"check": "candidates substituted into the original (strict, 50 digits)", "results": checks}
        w = trail.add_witness(s.step_id, "CAS", payload, f"{len(checks)} candidates checked", True)
        s.witness_ids.append(w.wit_id)
        return
    out = trail.exprs[s.output_expr_id].expr
    rows = []
    ok = True
    for v in solutions:
        if isinstance(out, sympy.Equality):
            r = _residual(out, x, v, trail.real)
            held = r is not None and r < mpmath.mpf(10) ** -20
        else:
            held = any(abs(complex((v - m).evalf(30))) < 1e-20 for m in out.args) if hasattr(out, "args") else False
        rows.append({"solution": sympy.sstr(v), "still_satisfied": bool(held)})
        ok = ok and bool(held)
    payload = {"check": "verified solutions satisfy the step's output (no root lost)", "x": x.name,
               "output": show(out), "rows": rows}
    w = trail.add_witness(s.step_id, "RandomTest", payload, f"{len(rows)} solutions carried through", ok)
    s.witness_ids.append(w.wit_id)
