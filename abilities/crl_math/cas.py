"""Size guards for sympy calls and the CAS equivalence check "under the obligations".

sympy has no timeouts, so every potentially explosive call is preceded by a cheap estimate
(number of terms after expansion, degree): past the bound we fail fast with ``too_complex``
instead of letting a worker spin until the budget kills it.
"""

from __future__ import annotations

from math import comb

import sympy

from abilities.base import AbilityError
from abilities.crl_math.domain import Cond

MAX_EXPANDED_TERMS = 1500
MAX_DEGREE = 40
MAX_CAS_OPS = 250
MAX_SIMPLIFY_OPS = 60


def expanded_terms(expr: sympy.Basic) -> int:
    """Upper estimate of the number of terms of ``expand(expr)`` (no expansion is done)."""
    if expr.is_Add:
        return sum(expanded_terms(a) for a in expr.args)
    if expr.is_Mul:
        out = 1
        for a in expr.args:
            out *= expanded_terms(a)
        return out
    if expr.is_Pow and expr.exp.is_Integer and expr.base.is_Add:
        n = abs(int(expr.exp))
        k = len(expr.base.args)
        inner = expanded_terms(expr.base)
        return comb(n + inner - 1, inner - 1) if k > 1 else 1
    return 1


def degree_bound(expr: sympy.Basic) -> int:
    """Upper bound of the total degree of the polynomial parts of ``expr``."""
    if expr.is_Symbol:
        return 1
    if expr.is_Add:
        return max((degree_bound(a) for a in expr.args), default=0)
    if expr.is_Mul:
        return sum(degree_bound(a) for a in expr.args)
    if expr.is_Pow and expr.exp.is_Integer:
        return degree_bound(expr.base) * abs(int(expr.exp))
    if expr.args:
        return max(degree_bound(a) for a in expr.args)
    return 0


def guard(expr: sympy.Basic, what: str) -> None:
    """Raise ``AbilityError('too_complex')`` before ``what`` would blow up on ``expr``."""
    terms = expanded_terms(expr)
    if terms > MAX_EXPANDED_TERMS:
        raise AbilityError(
            "too_complex",
            f"{what}: the expression would expand to about {terms} terms (limit {MAX_EXPANDED_TERMS})",
            {"estimated_terms": terms, "limit": MAX_EXPANDED_TERMS},
        )
    deg = degree_bound(expr)
    if deg > MAX_DEGREE:
        raise AbilityError(
            "too_complex",
            f"{what}: degree about {deg} (limit {MAX_DEGREE})",
            {"degree": deg, "limit": MAX_DEGREE},
        )


def _substitution(conds: list[Cond], symbols: list[sympy.Symbol]) -> dict[sympy.Symbol, sympy.Expr]:
    """Encode one-sided bounds as positivity: ``x > c`` becomes ``x = c + t`` with ``t > 0``."""
    sub: dict[sympy.Symbol, sympy.Expr] = {}
    for s in symbols:
        lower = [c for c in conds if c.lhs == s and c.rhs.is_number and c.rel in (">", ">=")]
        upper = [c for c in conds if c.lhs == s and c.rhs.is_number and c.rel in ("<", "<=")]
        if lower:
            c = max(lower, key=lambda c: float(c.rhs))
            t = sympy.Symbol(f"{s.name}_t", positive=c.rel == ">", nonnegative=True)
            sub[s] = c.rhs + t
        elif upper:
            c = min(upper, key=lambda c: float(c.rhs))
            t = sympy.Symbol(f"{s.name}_t", positive=c.rel == "<", nonnegative=True)
            sub[s] = c.rhs - t
        else:
            sub[s] = sympy.Symbol(s.name, real=True)
    return sub


def _zero(d: sympy.Expr) -> str:
    if d == 0:
        return "proved"
    d1 = sympy.cancel(sympy.together(d))
    if d1 == 0:
        return "proved"
    # cheap normal forms first: deep factoring turns sqrt(x**2 - 2*x + 1) into |x - 1| for real x
    d2 = sympy.cancel(sympy.expand_log(sympy.factor(d1, deep=True)))
    if d2 == 0:
        return "proved"
    if sympy.count_ops(d1) <= MAX_SIMPLIFY_OPS:
        d2 = sympy.simplify(sympy.expand_log(d1))
        if d2 == 0:
            return "proved"
        if d2.is_number and d2 != 0 and d2.is_finite:
            return "refuted"
    return "inconclusive"


def cas_equivalent(a: sympy.Expr, b: sympy.Expr, conds: list[Cond], real: bool = True) -> str:
    """``proved`` / ``refuted`` / ``inconclusive``: is ``a == b`` wherever ``conds`` hold?

    One-sided bounds become positivity assumptions; Piecewise branches are checked one by one
    under their own (linear) conditions.
    """
    if sympy.count_ops(a) + sympy.count_ops(b) > 4 * MAX_CAS_OPS:
        return "inconclusive"
    for side, other in ((b, a), (a, b)):
        if isinstance(side, sympy.Piecewise):
            results = []
            for val, cond in side.args:
                extra = _branch_cond(cond)
                if extra is None:
                    return "inconclusive"
                results.append(cas_equivalent(other, val, [*conds, extra], real))
            if all(r == "proved" for r in results):
                return "proved"
            return "refuted" if "refuted" in results else "inconclusive"
    syms = sorted(a.free_symbols | b.free_symbols, key=lambda s: s.name)
    if real:
        sub = _substitution(conds, syms)
        d = (a - b).xreplace(sub)
    else:
        d = a - b
    try:
        return _zero(d)
    except (sympy.PolynomialError, TypeError, ValueError, RecursionError):
        return "inconclusive"


def _branch_cond(cond: sympy.Basic) -> Cond | None:
    if isinstance(cond, sympy.Gt | sympy.Lt | sympy.Ge | sympy.Le) and cond.lhs.is_Symbol and cond.rhs.is_number:
        rel = {sympy.Gt: ">", sympy.Lt: "<", sympy.Ge: ">=", sympy.Le: "<="}[type(cond)]
        return Cond(cond.lhs - cond.rhs, rel, cond.lhs, rel, cond.rhs)
    return None
