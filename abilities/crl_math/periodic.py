"""Trigonometric equations and inequalities: one period solved exactly, then families or a window.

Every trigonometric argument must be ``a*x + b`` with a rational ``a``; with ``q`` the common
denominator of the ``a``'s, everything is a rational function of ``sin(u)``, ``cos(u)`` for
``u = x/q`` (``expand_trig``), and ``P = 2*pi*q`` is a period. The half-angle substitution
``t = tan(u/2)`` (``sin u = 2t/(1+t^2)``, ``cos u = (1-t^2)/(1+t^2)``) is a bijection from
``(-pi, pi)`` onto the reals, so the zeros in one period are the images of the real zeros in
``t`` plus possibly ``u = pi``: a finite superset that is then checked point by point in the
original. With the zeros of the relation and of its domain conditions in hand, the sign chart of
``chart.py`` decides the window: the interval the assumptions give, or one period, whose answer
is then repeated as families ``ImageSet(Lambda(n, r + T*n), Integers)`` (the smallest period T
that maps the set onto itself). A periodic union of intervals (``sin(x) > 1/2`` on all of R)
has no form in the set grammar: it is refused, and an interval in ``assumptions`` solves it.
"""

from __future__ import annotations

import sympy

from abilities.crl_math import numeric
from abilities.crl_math.chart import (
    ZERO_EPS,
    as_mp,
    between,
    cond_zeros,
    dedupe,
    order_key,
    reduce_to_candidates,
    sweep,
    truth_at,
    unsupported,
    values_at,
    violated,
)
from abilities.crl_math.domain import Cond, domain
from abilities.crl_math.exact import is_exact_zero
from abilities.crl_math.parser import evaluated, realify
from abilities.crl_math.request import Chain
from abilities.crl_math.sets import family, holds, show_set

TRIG = (sympy.sin, sympy.cos, sympy.tan)
MAX_POINTS = 400


def _atoms(f: sympy.Expr, x: sympy.Symbol) -> list[sympy.Expr]:
    return sorted({a for a in sympy.preorder_traversal(f) if isinstance(a, TRIG) and a.has(x)}, key=sympy.sstr)


def base_period(f: sympy.Expr, x: sympy.Symbol) -> sympy.Integer:
    """q such that every trigonometric argument is (integer)*x/q + constant; refuses anything else."""
    atoms = _atoms(f, x)
    masked = f.xreplace({a: sympy.Dummy() for a in atoms})
    if masked.has(x):
        raise unsupported("x appears both inside and outside trigonometric functions: no closed form")
    dens = []
    for a in atoms:
        arg = sympy.expand(a.args[0])
        if not arg.is_polynomial(x) or sympy.degree(arg, x) != 1:
            raise unsupported(f"trigonometric argument {sympy.sstr(a.args[0])} is not linear in {x}")
        slope = arg.coeff(x, 1)
        if not slope.is_Rational:
            raise unsupported(f"trigonometric argument {sympy.sstr(a.args[0])} has an irrational frequency")
        dens.append(slope.q)
    return sympy.Integer(sympy.ilcm(1, 1, *dens))


def _half_angle(g: sympy.Expr, x: sympy.Symbol, q: sympy.Integer, t: sympy.Symbol) -> sympy.Expr:
    """g as a function of t = tan(u/2), u = x/q."""
    u = sympy.Dummy("u")
    rep = {}
    for a in _atoms(g, x):
        arg = sympy.expand(a.args[0]).xreplace({x: q * u})
        s, c = sympy.expand_trig(sympy.sin(arg)), sympy.expand_trig(sympy.cos(arg))
        rep[a] = {sympy.sin: s, sympy.cos: c, sympy.tan: s / c}[type(a)]
    h = g.xreplace(rep)
    h = h.xreplace({sympy.sin(u): 2 * t / (1 + t**2), sympy.cos(u): (1 - t**2) / (1 + t**2)})
    if h.has(u):
        raise unsupported("could not express the equation through sin and cos of one angle")
    return h


def _nice_angle(tv: sympy.Expr) -> sympy.Expr:
    """The angle 2*atan(tv) in [0, 2*pi), written as simply as an exact identity allows."""
    s = sympy.radsimp(2 * tv / (1 + tv**2))
    c = sympy.radsimp((1 - tv**2) / (1 + tv**2))
    forms = [2 * sympy.atan(tv)]
    sv, cv = complex(s.evalf(40)).real, complex(c.evalf(40)).real
    forms.append(sympy.asin(s) if cv >= 0 else sympy.pi - sympy.asin(s))
    forms.append(sympy.acos(c) if sv >= 0 else -sympy.acos(c))
    if abs(cv) > 1e-30:
        forms.append(sympy.atan(sympy.radsimp(s / c)) + (0 if cv > 0 else sympy.pi))
    target = as_mp(2 * sympy.atan(tv))
    good = []
    for fm in forms:
        fm = sympy.nsimplify(fm) if fm.is_Float else fm
        v = as_mp(fm)
        k = round(float((v - target) / as_mp(2 * sympy.pi)))
        if abs(v - target - k * as_mp(2 * sympy.pi)) < 1e-40:
            good.append(fm)
    best = min(good, key=lambda e: (sympy.count_ops(e), len(sympy.sstr(e))))
    return _mod(best, 2 * sympy.pi)


def _mod(v: sympy.Expr, period: sympy.Expr) -> sympy.Expr:
    k = int(sympy.floor((v / period).evalf(40)))
    out = v - k * period
    if abs(as_mp(out - period)) < 1e-30 and is_exact_zero(out - period):
        return sympy.Integer(0)
    return out


def period_zeros(g: sympy.Expr, x: sympy.Symbol, q: sympy.Integer) -> tuple[list[sympy.Expr], bool]:
    """Exact zeros of g in [0, 2*pi*q) (identity=True when g vanishes wherever it is defined)."""
    t = sympy.Dummy("t", real=True)
    h = _half_angle(realify(evaluated(g)), x, q, t)
    cands, identity = reduce_to_candidates(h, t, True)
    if identity:
        return [], True
    period = 2 * sympy.pi * q
    xs = [q * _nice_angle(c) for c in cands if c.is_real is not False] + [q * sympy.pi]
    dom = domain(g, True)
    out = []
    for v in dedupe([_mod(v, period) for v in xs]):
        if violated(dom, x, v, True) is None and is_exact_zero(g.xreplace({x: v})):
            out.append(v)
    return out, False


def _window(assumptions: list[Cond], x: sympy.Symbol) -> tuple[sympy.Expr, sympy.Expr]:
    lo, hi = -sympy.oo, sympy.oo
    for c in assumptions:
        if c.lhs == x and c.rhs.is_number:
            if c.rel in (">", ">=") and (lo == -sympy.oo or order_key(c.rhs) > order_key(lo)):
                lo = c.rhs
            if c.rel in ("<", "<=") and (hi == sympy.oo or order_key(c.rhs) < order_key(hi)):
                hi = c.rhs
    return lo, hi


def _in_window(zs: list[sympy.Expr], period: sympy.Expr, lo: sympy.Expr, hi: sympy.Expr) -> list[sympy.Expr]:
    out = []
    plo, phi = float(lo.evalf(30)), float(hi.evalf(30))
    pv = float(period.evalf(30))
    for z in zs:
        zv = float(z.evalf(30))
        n0, n1 = int((plo - zv) // pv) - 1, int((phi - zv) // pv) + 2
        if (n1 - n0) * max(1, len(zs)) > MAX_POINTS:
            raise unsupported("the interval holds too many periods to list every solution")
        out += [z + k * period for k in range(n0, n1)]
    return dedupe(out)


def _contains(points: list[sympy.Expr], v: sympy.Expr) -> bool:
    return any(abs(as_mp(v) - as_mp(r)) < 1e-30 and is_exact_zero(v - r) for r in points)


def _shrink(points: list[sympy.Expr], period: sympy.Expr) -> tuple[list[sympy.Expr], sympy.Expr]:
    """Representatives and the smallest period P/k that maps the point set onto itself."""
    n = len(points)
    for k in range(n, 1, -1):
        if n % k:
            continue
        step = period / k
        if all(_contains(points, _mod(p + step, period)) for p in points):
            reps = [p for p in points if order_key(p) < order_key(step) or is_exact_zero(p)]
            return reps, step
    return points, period


def _families(points: list[sympy.Expr], period: sympy.Expr) -> sympy.Set:
    if not points:
        return sympy.S.EmptySet
    reps, step = _shrink(points, period)
    fams = [family(r, step) for r in sorted(reps, key=order_key)]
    return fams[0] if len(fams) == 1 else sympy.Union(*fams, evaluate=False)


def solve_periodic(chain: Chain, lhs: sympy.Expr, op: str, rhs: sympy.Expr, x: sympy.Symbol,
                   d0: list[Cond], assumptions: list[Cond]) -> tuple[sympy.Set, list[sympy.Expr]]:
    """The answer set and the points its set check must probe."""
    f = realify(evaluated(lhs - rhs))
    q = base_period(f, x)
    period = 2 * sympy.pi * q
    if rhs != 0:
        chain.step("MOVE_TERMS", sympy.Rel(f, 0, op if op != "=" else "==", evaluate=False))
    zeros, identity = period_zeros(f, x, q)
    zeros = [z for z in zeros if values_at(lhs, rhs, x, z, True)[2]]
    domain_zeros: list[sympy.Expr] = []
    trig_conds = [c for c in d0 if c.expr.has(*TRIG)]
    for c in trig_conds:
        zs, ident = period_zeros(c.expr, x, q)
        if ident:
            raise unsupported(f"the condition {c.text} vanishes on whole intervals")
        domain_zeros += zs
    plain = [c for c in [*d0, *assumptions] if not c.expr.has(*TRIG)]
    conds = [*d0, *assumptions]
    s = chain.step("HALF_ANGLE_SUBSTITUTION", sympy.FiniteSet(*dedupe(zeros + domain_zeros)) if zeros or domain_zeros
                   else sympy.S.EmptySet,
                   note=f"u = x/{q}, t = tan(u/2); one period [0, {sympy.sstr(period)}): "
                        f"zeros {sympy.sstr(zeros)}, domain boundaries {sympy.sstr(domain_zeros)}"
                        + ("; the relation's two sides agree wherever defined" if identity else ""),
                   surface=f"in [0, {sympy.sstr(period)}): zeros {show_set(sympy.FiniteSet(*zeros))}, "
                           f"undefined at {show_set(sympy.FiniteSet(*domain_zeros))}", domain_obligations=False)
    rows = [{"point": sympy.sstr(z), "kind": "zero"} for z in zeros]
    rows += [{"point": sympy.sstr(z), "kind": "domain boundary"} for z in domain_zeros]
    w = chain.trail.add_witness(s.step_id, "CAS", {"check": "each point verified exactly in the original",
                                                   "rows": rows, "period": sympy.sstr(period)},
                                f"{len(rows)} points in one period", True)
    s.witness_ids.append(w.wit_id)

    def in_cell(a: sympy.Expr, b: sympy.Expr) -> bool:
        t = between(a, b)
        if violated(conds, x, t, True) is not None:
            return False
        if op == "=":
            return identity and holds(lhs, "=", rhs, {x.name: as_mp(t)})
        env = {x.name: as_mp(t)}
        lv, rv = numeric.value_or_none(lhs, env, True), numeric.value_or_none(rhs, env, True)
        if lv is not None and rv is not None and abs(lv - rv) < ZERO_EPS * max(1, abs(lv)):
            raise unsupported("the relation is too close to equality at a test point to decide")
        return holds(lhs, op, rhs, env)

    def at(p: sympy.Expr) -> bool:
        return truth_at(lhs, op, rhs, x, p, conds)

    lo, hi = _window(assumptions, x)
    extra_plain = [z for c in plain for z in cond_zeros(c, x)]
    if lo != -sympy.oo and hi != sympy.oo:
        pts = dedupe(_in_window(dedupe(zeros + domain_zeros), period, lo, hi) + extra_plain + [lo, hi])
        inner = sweep(pts, lo, hi, at, in_cell)
        ends = [sympy.FiniteSet(e) for e in (lo, hi) if at(e)]
        final = sympy.Union(inner, *ends) if ends else inner
        note = f"solved on the window [{sympy.sstr(lo)}, {sympy.sstr(hi)}]"
        chain.step("SIGN_CHART", final, note=note, surface=f"{x} in {show_set(final)}", domain_obligations=False)
        return final, pts
    if lo != -sympy.oo or hi != sympy.oo or extra_plain:
        raise unsupported("a periodic solution set restricted to a half-line or by non-interval assumptions")
    pts = dedupe(zeros + domain_zeros + [sympy.Integer(0)])
    pts = [p for p in pts if order_key(p) < order_key(period) and not is_exact_zero(p - period)]
    cells = [in_cell(a, b) for a, b in zip([*pts], [*pts[1:], period], strict=True)]
    truth = [at(p) for p in pts]
    if all(cells):
        holes = [p for p, ok in zip(pts, truth, strict=True) if not ok]
        final = sympy.S.Reals if not holes else sympy.Complement(sympy.S.Reals, _families(holes, period),
                                                                 evaluate=False)
    elif not any(cells):
        final = _families([p for p, ok in zip(pts, truth, strict=True) if ok], period)
    else:
        raise unsupported("the answer is a periodic union of intervals, which the set grammar cannot write: "
                          "give an interval in 'assumptions' (e.g. x >= 0, x < 2*pi)")
    note = f"one period [0, {sympy.sstr(period)}) solved, then repeated"
    chain.step("GENERAL_SOLUTION", final, note=note, surface=f"{x} in {show_set(final)}", domain_obligations=False)
    probe = [p + k * period for p in pts for k in (-1, 0, 1)]
    return final, probe


__all__ = ["base_period", "period_zeros", "solve_periodic"]
