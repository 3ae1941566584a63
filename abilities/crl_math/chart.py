"""Exact real zeros and the sign chart: how relations with interval answers are solved.

``reduce_to_candidates`` turns ``f = 0`` into a polynomial (squaring away radicals and |.|,
exponentiating logs, clearing denominators) and returns a finite *superset* of its real zeros,
or says that ``f`` vanishes identically after the transformation. ``real_zeros`` keeps the
candidates that satisfy the original under strict evaluation (exactly, with sympy, when the
value is too close to zero to call).

The sign chart relies on one fact: an expression built from the grammar's functions is
continuous where it is defined, so between two consecutive *critical points* (the zeros of the
relation's two sides' difference, the boundaries of its domain and of the assumptions, and the
points where an |.| argument changes sign) the relation is either true everywhere or nowhere.
One rational test point per cell and an exact check at every critical point decide the answer.
Everything that cannot be decided this way (no finite zero set, a value too close to zero to
prove) is refused as ``unsupported``, never guessed.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

import mpmath
import sympy
from sympy.solvers.solvers import unrad

from abilities.base import AbilityError
from abilities.crl_math import cas, numeric
from abilities.crl_math.domain import Cond, domain
from abilities.crl_math.exact import is_exact_zero
from abilities.crl_math.parser import evaluated, realify
from abilities.crl_math.rules import bottom_up, quadratic_to_square, sqrt_of_square
from abilities.crl_math.sets import holds

Record = Callable[[str, sympy.Basic, str, str | None], None]
ZERO_EPS = mpmath.mpf(10) ** -30


RELATIONS = {"=": sympy.Eq, "<": sympy.Lt, "<=": sympy.Le, ">": sympy.Gt, ">=": sympy.Ge}


def relation(lhs: sympy.Expr, op: str, rhs: sympy.Expr) -> sympy.Basic:
    """``lhs OP rhs`` as an unevaluated sympy relational (OP one of =, <, <=, >, >=)."""
    return RELATIONS[op](lhs, rhs, evaluate=False)


def unsupported(what: str) -> AbilityError:
    return AbilityError("unsupported", what)


def has_fn(f: sympy.Expr, x: sympy.Symbol, *kinds: type) -> bool:
    """A function of the unknown (log(3) or sin(1) are just numbers)."""
    return any(isinstance(a, kinds) and a.has(x) for a in sympy.preorder_traversal(f))


def has_radical(f: sympy.Expr, x: sympy.Symbol) -> bool:
    return any(
        p.is_Pow and p.exp.is_Rational and not p.exp.is_Integer and p.base.has(x) for p in sympy.preorder_traversal(f)
    )


def _log_form(f: sympy.Expr, x: sympy.Symbol) -> sympy.Expr | None:
    """For sum(c_i*log(a_i)) + r = 0 (c_i, r free of x): the rational function prod(a_i^q_i) - exp(-r/K).

    The coefficients may carry a common constant factor K (``log(x)/log(3)`` is ``log(x)`` times
    ``1/log(3)``: a change of base); dividing by K leaves rational q_i, so the exponentiated form
    is an equivalence where every a_i > 0.
    """
    logs: list[tuple[sympy.Expr, sympy.Expr]] = []
    rest = sympy.Integer(0)
    for t in sympy.Add.make_args(sympy.expand(f)):
        parts = [p for p in sympy.Mul.make_args(t) if p.has(x)]
        coeff = sympy.Mul(*[p for p in sympy.Mul.make_args(t) if not p.has(x)])
        if len(parts) == 1 and isinstance(parts[0], sympy.log):
            logs.append((coeff, parts[0].args[0]))
        elif t.has(x):
            return None
        else:
            rest += t
    if not logs:
        return None
    merged: dict[sympy.Expr, sympy.Expr] = {}
    for c, a in logs:  # log(x)/log(2) - log(x)/log(3): one log(x) with coefficient 1/log(2) - 1/log(3)
        merged[a] = merged.get(a, sympy.Integer(0)) + c
    logs = [(c, a) for a, c in merged.items() if not is_exact_zero(c)]
    if not logs:
        return None
    k = logs[0][0]
    qs = []
    for c, _a in logs:
        q = sympy.nsimplify(sympy.expand_log(c / k, force=True))
        if not q.is_Rational or abs(complex((c - k * q).evalf(60))) > 1e-45:
            return None
        qs.append(q)
    scale = sympy.ilcm(1, *[q.q for q in qs])  # integer exponents: x^2 * (x^2)^-1, not x * (x^2)^(-1/2)
    k, qs = k / scale, [q * scale for q in qs]
    product = sympy.Mul(*[a**q for q, (_c, a) in zip(qs, logs, strict=True)])
    target = sympy.expand_log(-rest / k, force=True)
    return sympy.together(product - sympy.exp(target))


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
    """CAS_SOLVE only for x inside exponentials with linear exponents (a polynomial in e^(kx))."""
    if has_fn(f, x, sympy.sin, sympy.cos, sympy.tan):
        raise unsupported("x both inside and outside trigonometric functions: no closed form")
    exps = sorted({e for e in sympy.preorder_traversal(f) if isinstance(e, sympy.exp) and e.has(x)}, key=sympy.sstr)
    if not exps or any(not e.args[0].is_polynomial(x) or sympy.degree(e.args[0], x) != 1 for e in exps):
        raise unsupported("no finite closed-form candidate set for this equation")
    masked = f.xreplace({e: sympy.Dummy() for e in exps})
    if masked.has(x):
        raise unsupported("x appears both inside and outside exponentials: no closed form")


def _exp_substitution(f: sympy.Expr, x: sympy.Symbol) -> tuple[sympy.Expr, sympy.Expr, list[sympy.Expr]] | None:
    """x only in exp(s*x + b) with rational s: with y = exp(x/q) > 0 the equation is rational in y,
    so every real zero is q*log(y) for a positive root y (a complete candidate set)."""
    exps = sorted({e for e in sympy.preorder_traversal(f) if isinstance(e, sympy.exp) and e.has(x)}, key=sympy.sstr)
    slopes = [sympy.expand(e.args[0]).coeff(x, 1) for e in exps]
    if not exps:
        return None
    k = slopes[0]  # a common factor of the slopes (log(2) for 2^x = exp(x*log(2)))
    ratios = [sympy.nsimplify(sympy.expand_log(s / k, force=True)) for s in slopes]
    if any(not r.is_Rational or abs(complex((s - k * r).evalf(60))) > 1e-45 for r, s in zip(ratios, slopes,
                                                                                             strict=True)):
        return None
    q = int(sympy.ilcm(1, 1, *[r.q for r in ratios]))
    y = sympy.Dummy("y", positive=True)
    g = f.xreplace({e: sympy.exp(sympy.expand(e.args[0]) - s * x) * y ** int(r * q)
                    for e, s, r in zip(exps, slopes, ratios, strict=True)})
    if g.has(x):
        return None
    n, _d = common_denominator(g)
    if not n.is_polynomial(y) or n == 0:
        return None
    ys = []
    for fac, _m in sympy.factor_list(n)[1]:
        if fac.has(y):
            ys += [r for r in poly_roots(fac, y, True) if r.is_positive is not False and complex(r.evalf(30)).real > 0]
    return n, q / k, ys


def common_denominator(f: sympy.Expr) -> tuple[sympy.Expr, sympy.Expr]:
    """(n, d) with f = n/d, without cancelling: x/(x-2) - 2/(x-2) keeps n = x - 2 (a candidate)."""
    parts = [sympy.fraction(sympy.together(t)) for t in sympy.Add.make_args(f)]
    d = sympy.Integer(1)
    for _n, di in parts:
        d = sympy.lcm(d, di)
    n = sympy.Add(*[ni * sympy.cancel(d / di) for ni, di in parts])
    return sympy.expand(n), sympy.factor(d)


def poly_roots(poly_expr: sympy.Expr, x: sympy.Symbol, real: bool) -> list[sympy.Expr]:
    cas.guard(poly_expr, "solve the polynomial")
    poly = sympy.Poly(poly_expr, x)
    if poly.degree() <= 0:
        return []
    if poly.degree() >= 3 and not all(c.is_Rational for c in poly.all_coeffs()) and not poly.free_symbols - {x}:
        # closed forms of cubics and quartics with coefficients such as cos(1) grow beyond use
        raise unsupported("a polynomial of degree 3 or more with irrational coefficients")
    found = sympy.roots(poly)
    if sum(found.values()) < poly.degree():
        found = {r: 1 for r in (sympy.real_roots(poly) if real else poly.all_roots())}
    vals = list(found)
    if real:
        vals = [r for r in vals if r.is_real is not False and sympy.im(r.evalf(30)) == 0]
    return vals


def order_key(v: sympy.Expr) -> tuple[float, float, str]:
    c = complex(v.evalf(30))
    return (c.real, c.imag, sympy.sstr(v))


def _eq(lhs: sympy.Expr, rhs: sympy.Expr) -> sympy.Equality:
    return sympy.Eq(lhs, rhs, evaluate=False)


def reduce_to_candidates(
    f: sympy.Expr, x: sympy.Symbol, real: bool, record: Record | None = None
) -> tuple[list[sympy.Expr], bool]:
    """(candidates, identity): a finite superset of the zeros of ``f``, or identity=True when the
    transformed equation holds for every x. ``record(rule, new, note, surface)`` logs each step."""

    def rec(rule: str, new: sympy.Basic, note: str = "", surface: str | None = None) -> None:
        if record is not None:
            record(rule, new, note, surface)

    zero = sympy.Integer(0)
    implied = ""
    if real:  # b^u with a positive number b is exp(u*log(b)): one kind of exponential
        f = f.replace(lambda e: e.is_Pow and e.exp.has(x) and e.base.is_number and e.base.is_positive,
                      lambda e: sympy.exp(e.exp * sympy.log(e.base)))
    for _ in range(6):
        cas.guard(f, "transform the equation")
        squared = _square_abs(f, x) if real else None
        if squared is not None:
            f, implied = squared, "SQUARE_ABS"
            rec("SQUARE_ABS", _eq(f, zero), "isolate |u| and square: |u|^2 = u^2")
            continue
        if has_radical(f, x):
            res = unrad(f, x)
            if res and not res[1]:
                f, implied = sympy.expand(res[0]), "SQUARE_BOTH_SIDES"
                rec("SQUARE_BOTH_SIDES", _eq(f, zero), "radicals removed by squaring")
                continue
            break
        if has_fn(f, x, sympy.log):
            g = _log_form(f, x)
            if g is not None:
                f = g
                rec("EXPONENTIATE_LOGS", _eq(f, zero), "logs combined and exponentiated")
                continue
            break
        break
    if not has_fn(f, x, sympy.log, sympy.exp, sympy.sin, sympy.cos, sympy.tan, sympy.Abs, sympy.sign) \
            and not has_radical(f, x):
        n, d = common_denominator(f)
        if d.has(x):
            rec("CLEAR_DENOMINATORS", _eq(n, zero))
        n = sympy.expand(n)
        if n == 0:
            if implied:  # squaring made it hold everywhere: the original may hold on part of the line only
                raise unsupported(f"after {implied} every x is a candidate")
            return [], True
        if not n.has(x):
            return [], False
        fn = sympy.factor(n)
        if fn != n:
            rec("FACTOR_POLYNOMIAL", _eq(fn, zero))
        candidates: list[sympy.Expr] = []
        for fac, _m in sympy.factor_list(n)[1]:
            if fac.has(x):
                candidates.extend(poly_roots(fac, x, real))
        shown = sympy.FiniteSet(*candidates) if candidates else sympy.S.EmptySet
        rec("ZERO_PRODUCT", shown, "", f"{x} in {sympy.sstr(sympy.FiniteSet(*sorted(candidates, key=order_key)))}")
        return candidates, False
    _solvable_or_raise(f, x)
    if real:
        found_y = _exp_substitution(f, x)
        if found_y is not None:
            y_poly, q, ys = found_y
            candidates = [sympy.expand_log(q * sympy.log(v), force=True) for v in ys]
            rec("SUBSTITUTE_EXP", sympy.FiniteSet(*candidates) if candidates else sympy.S.EmptySet,
                f"y = exp(x/({sympy.sstr(q)})) > 0: {sympy.sstr(y_poly)} = 0",
                f"{x} in {sympy.sstr(sympy.FiniteSet(*sorted(candidates, key=order_key)))}")
            return candidates, False
    cas.guard(f, "solve")
    if sympy.count_ops(f) > cas.MAX_CAS_OPS:
        raise AbilityError("too_complex", "the equation is too large for the solver")
    try:
        found = sympy.solve(f, x, check=False, dict=False)
    except (NotImplementedError, sympy.PolynomialError, ValueError) as exc:
        raise unsupported(f"no finite candidate set: {exc}") from None
    candidates = [c for c in found if not c.free_symbols]
    if real:
        candidates = [c for c in candidates if sympy.im(c.evalf(30)) == 0]
    shown = sympy.FiniteSet(*candidates) if candidates else sympy.S.EmptySet
    rec("CAS_SOLVE", shown, "sympy.solve(check=False); may include extraneous candidates",
        f"{x} in {sympy.sstr(sympy.FiniteSet(*sorted(candidates, key=order_key)))}")
    return candidates, False


# -- exact values at points --------------------------------------------------------------


def as_mp(v: sympy.Expr) -> Any:
    with mpmath.workdps(numeric.DPS):
        c = v.evalf(60)
        re_, im_ = c.as_real_imag()
        if im_ == 0:
            return mpmath.mpf(str(sympy.Float(re_, 60)))
        return mpmath.mpc(str(sympy.Float(re_, 60)), str(sympy.Float(im_, 60)))


def violated(conds: list[Cond], x: sympy.Symbol, value: sympy.Expr, real: bool) -> Cond | None:
    """The first condition the point breaks, decided exactly when the number is tiny."""
    env = {x.name: as_mp(value)}
    for c in conds:
        g = c.expr.xreplace({x: value})
        if g.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo):
            return c  # the condition's own expression is undefined at the point (27/tan(pi))
        approx = complex(g.evalf(60)) if not g.free_symbols else None
        if approx is not None and abs(approx) < 1e-40:
            exact_zero = is_exact_zero(g)
            if exact_zero and c.op in ("!=", ">"):
                return c
            if exact_zero:
                continue
        if not numeric.cond_holds(c, env, real):
            return c
    return None


def values_at(
    lhs: sympy.Expr, rhs: sympy.Expr, x: sympy.Symbol, value: sympy.Expr, real: bool
) -> tuple[Any, Any, bool, bool]:
    """(lhs, rhs, equal, exact) at a point: 50-digit strict evaluation, exact sympy when too close to call."""
    env = {x.name: as_mp(value)}
    try:
        lv = numeric.value_or_none(lhs, env, real)
        rv = numeric.value_or_none(rhs, env, real)
    except numeric.Unevaluable:
        diff = (lhs - rhs).xreplace({x: value})
        return None, None, is_exact_zero(diff), True
    if lv is None or rv is None:
        return lv, rv, False, False
    if abs(lv - rv) < ZERO_EPS * max(1, abs(lv)) and lv != rv:
        return lv, rv, is_exact_zero((evaluated(lhs) - evaluated(rhs)).xreplace({x: value})), True
    return lv, rv, numeric.agree(lv, rv), False


def truth_at(lhs: sympy.Expr, op: str, rhs: sympy.Expr, x: sympy.Symbol, value: sympy.Expr,
             conds: list[Cond]) -> bool:
    """Exact truth of the relation (and of the domain/assumption conditions) at an exact point."""
    if violated(conds, x, value, True) is not None:
        return False
    lv, rv, equal, _exact = values_at(lhs, rhs, x, value, True)
    if equal:
        return op in ("=", "<=", ">=")
    if lv is None or rv is None:
        return False
    return {"=": False, "<": lv < rv, "<=": lv < rv, ">": lv > rv, ">=": lv > rv}[op]


def dedupe(points: list[sympy.Expr]) -> list[sympy.Expr]:
    """Sorted, each number once (two forms of one number are merged after an exact check)."""
    out: list[sympy.Expr] = []
    for p in sorted(points, key=order_key):
        if out and abs(complex((p - out[-1]).evalf(60))) < 1e-40 and is_exact_zero(p - out[-1]):
            continue
        out.append(p)
    return out


def between(a: sympy.Expr, b: sympy.Expr) -> sympy.Rational:
    """A rational test point strictly inside (a, b) (either end may be infinite), well inside."""
    if a == -sympy.oo and b == sympy.oo:
        return sympy.Integer(0)
    if a == -sympy.oo:
        return sympy.Integer(int(sympy.floor(b.evalf(30)))) - 1
    if b == sympy.oo:
        return sympy.Integer(int(sympy.ceiling(a.evalf(30)))) + 1
    with mpmath.workdps(numeric.DPS):
        lo, hi = as_mp(a), as_mp(b)
        mid, width = (lo + hi) / 2, hi - lo
        for den in (2, 10, 100, 10**4, 10**8, 10**16, 10**30):
            fr = Fraction(int(mpmath.nint(mid * den)), den)
            if abs(mpmath.mpf(fr.numerator) / fr.denominator - mid) < width / 4:
                return sympy.Rational(fr.numerator, fr.denominator)
    raise unsupported("two critical points too close to separate")


def cond_zeros(c: Cond, x: sympy.Symbol) -> list[sympy.Expr]:
    """Where a (univariate) side-condition's expression vanishes: its boundary points."""
    zs, identity = reduce_to_candidates(c.expr, x, True)
    if identity:
        raise unsupported(f"the condition {c.text} has no finite boundary")
    dom = domain(c.expr, True)
    return [z for z in zs if violated(dom, x, z, True) is None and is_exact_zero(c.expr.xreplace({x: z}))]


def _abs_args(f: sympy.Expr, x: sympy.Symbol) -> list[sympy.Expr]:
    return sorted({a.args[0] for a in sympy.preorder_traversal(f) if isinstance(a, sympy.Abs | sympy.sign)
                   and a.args[0].has(x)}, key=sympy.sstr)


def _unabs(f: sympy.Expr, x: sympy.Symbol, t: sympy.Rational) -> sympy.Expr:
    """f on one cell: each |u| becomes u or -u and sign(u) becomes 1 or -1, by the sign of u at t."""
    env = {x.name: as_mp(t)}

    def fn(n: sympy.Basic, _acc: list[Cond]) -> sympy.Basic | None:
        if isinstance(n, sympy.Abs | sympy.sign) and n.args[0].has(x):
            v = numeric.value_or_none(n.args[0], env, True)
            if v is None:
                return None
            if abs(v) < ZERO_EPS:
                raise unsupported("an absolute value argument vanishes at a test point")
            s = 1 if v > 0 else -1
            return n.args[0] * s if isinstance(n, sympy.Abs) else sympy.Integer(s)
        return None

    return bottom_up(f, fn)[0]


def _le(p: sympy.Expr, q: sympy.Expr) -> bool:
    if p == -sympy.oo or q == sympy.oo:
        return True
    if p == sympy.oo or q == -sympy.oo:
        return False
    return order_key(p) <= order_key(q)


def sweep(points: list[sympy.Expr], lo: sympy.Expr, hi: sympy.Expr,
          at_point: Callable[[sympy.Expr], bool], in_cell: Callable[[sympy.Expr, sympy.Expr], bool]) -> sympy.Set:
    """The set of the window (lo, hi) where the relation holds, from the cells and the points."""
    inner = [p for p in points if (lo == -sympy.oo or order_key(p) > order_key(lo))
             and (hi == sympy.oo or order_key(p) < order_key(hi))]
    ends = [lo, *inner, hi]
    pieces: list[sympy.Set] = []
    for a, b in zip(ends, ends[1:], strict=False):
        if in_cell(a, b):
            pieces.append(sympy.S.Reals if (a, b) == (-sympy.oo, sympy.oo) else sympy.Interval.open(a, b))
    for p in inner:
        if at_point(p):
            pieces.append(sympy.FiniteSet(p))
    return sympy.Union(*pieces) if pieces else sympy.S.EmptySet


def chart(lhs: sympy.Expr, op: str, rhs: sympy.Expr, x: sympy.Symbol, conds: list[Cond]
          ) -> tuple[sympy.Set, dict[str, list[sympy.Expr]]]:
    """Solve a univariate real relation by the sign chart; returns the set and its critical points."""
    f = realify(evaluated(lhs - rhs))
    for rewrite in (quadratic_to_square, sqrt_of_square):  # sqrt(u^2) = |u|: then split at u = 0
        rw = rewrite(f, True)
        if rw is not None:
            f = realify(evaluated(rw.expr))
    bounds: list[sympy.Expr] = []
    for c in conds:
        bounds += cond_zeros(c, x)
    kinks: list[sympy.Expr] = []
    for u in _abs_args(f, x):
        zs, identity = reduce_to_candidates(u, x, True)
        if identity:
            raise unsupported("an absolute value whose argument vanishes on an interval")
        kinks += [z for z in zs if is_exact_zero(u.xreplace({x: z}))]
    outer = dedupe(bounds + kinks)
    zeros: list[sympy.Expr] = []
    identity_cells: list[tuple[sympy.Expr, sympy.Expr]] = []
    ends = [-sympy.oo, *outer, sympy.oo]
    for a, b in zip(ends, ends[1:], strict=False):
        t = between(a, b)
        if violated(conds, x, t, True) is not None:
            continue
        g = _unabs(f, x, t)
        cands, identity = reduce_to_candidates(g, x, True)
        if identity:
            identity_cells.append((a, b))
            continue
        for z in cands:
            if (a == -sympy.oo or order_key(z) > order_key(a)) and (b == sympy.oo or order_key(z) < order_key(b)):
                _l, _r, equal, _e = values_at(lhs, rhs, x, z, True)
                if equal and violated(conds, x, z, True) is None:
                    zeros.append(z)
    points = dedupe(outer + zeros)

    def in_cell(a: sympy.Expr, b: sympy.Expr) -> bool:
        if any(_le(ia, a) and _le(b, ib) for ia, ib in identity_cells):
            return op in ("=", "<=", ">=")
        t = between(a, b)
        if violated(conds, x, t, True) is not None:
            return False
        env = {x.name: as_mp(t)}
        lv = numeric.value_or_none(lhs, env, True)
        rv = numeric.value_or_none(rhs, env, True)
        if lv is not None and rv is not None and abs(lv - rv) < ZERO_EPS * max(1, abs(lv)):
            raise unsupported("the relation is too close to equality at a test point to decide")
        return holds(lhs, op, rhs, env)

    result = sweep(points, -sympy.oo, sympy.oo, lambda p: truth_at(lhs, op, rhs, x, p, conds), in_cell)
    return result, {"domain_boundaries": dedupe(bounds), "abs_kinks": dedupe(kinks), "zeros": dedupe(zeros)}
