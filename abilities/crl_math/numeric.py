"""Strict numeric evaluation (mpmath) and seeded random testing of two expressions.

"Strict" means the real-valued reading a careful mathematician uses: ``sqrt`` of a negative,
``log`` of a non-positive number, a zero denominator, or a Piecewise with no true branch is
*undefined*, never a complex number or ``nan``. Two expressions agree at a point when both are
undefined there, or both are defined with equal values. Test points avoid the values that the
side-conditions exclude, and include the boundary points of those conditions (``x = 1`` for
``x != 1``) so that a missing condition is caught, not sampled around.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import mpmath
import sympy

from abilities.crl_math.domain import Cond, probe_values

DPS = 50
ZERO = mpmath.mpf(10) ** -25


class Undefined(ArithmeticError):
    """The expression has no (real) value at this point."""


class Unevaluable(ArithmeticError):
    """The value exists but is out of numeric range (overflow): the point is skipped, not judged."""


def _is_zero(v: Any) -> bool:
    return abs(v) < ZERO


def _singular(v: Any) -> bool:
    """True at an exact zero (where the expression is undefined). A value that is tiny but not
    exactly zero (exp(-1000), or 3x - 1 at an inexact x = 1/3) cannot be judged at this
    precision: the point is skipped (Unevaluable) rather than called undefined."""
    if v == 0:
        return True
    if abs(v) < ZERO:
        raise Unevaluable("too close to a singularity to judge numerically")
    return False


def strict_eval(expr: sympy.Basic, env: dict[str, Any], real: bool = True) -> Any:
    """Value of ``expr`` at ``env`` (name -> mpf/mpc); raises ``Undefined`` outside its domain."""
    with mpmath.workdps(DPS):
        return _ev(expr, env, real)


def _ev(e: sympy.Basic, env: dict[str, Any], real: bool) -> Any:
    if e.is_Symbol:
        return env[e.name]
    if e.is_Integer:
        return mpmath.mpf(int(e))
    if e.is_Rational:
        return mpmath.mpf(e.p) / e.q
    if e.is_Float:
        return mpmath.mpf(str(e))
    if e is sympy.pi:
        return +mpmath.pi
    if e is sympy.E:
        return mpmath.e + 0
    if e is sympy.I:
        if real:
            raise Undefined("imaginary unit in the real domain")
        return mpmath.mpc(0, 1)
    if e.is_Add:
        return mpmath.fsum(_ev(a, env, real) for a in e.args)
    if e.is_Mul:
        out = mpmath.mpf(1)
        for a in e.args:
            out *= _ev(a, env, real)
        return out
    if e.is_Pow:
        return _pow(e, env, real)
    if isinstance(e, sympy.exp):
        v = _ev(e.args[0], env, real)
        if abs(v) > 10**6:
            raise Unevaluable("overflow")
        return mpmath.exp(v)
    if isinstance(e, sympy.log):
        v = _ev(e.args[0], env, real)
        if _singular(v) or (real and _real(v) < 0):
            raise Undefined("log of a non-positive number")
        return mpmath.log(v)
    if isinstance(e, sympy.Abs):
        return abs(_ev(e.args[0], env, real))
    if isinstance(e, sympy.sign):
        v = _ev(e.args[0], env, real)
        return mpmath.mpf(0) if _is_zero(v) else (v / abs(v))
    if isinstance(e, sympy.sin):
        return mpmath.sin(_ev(e.args[0], env, real))
    if isinstance(e, sympy.cos):
        return mpmath.cos(_ev(e.args[0], env, real))
    if isinstance(e, sympy.tan):
        v = _ev(e.args[0], env, real)
        if _singular(mpmath.cos(v)):
            raise Undefined("tan at a pole")
        return mpmath.tan(v)
    if isinstance(e, sympy.atan):
        return mpmath.atan(_ev(e.args[0], env, real))
    if isinstance(e, sympy.asin | sympy.acos):
        v = _ev(e.args[0], env, real)
        if real and (isinstance(v, mpmath.mpc) or abs(v) > 1):
            raise Undefined("asin/acos outside [-1, 1]")
        return mpmath.asin(v) if isinstance(e, sympy.asin) else mpmath.acos(v)
    if isinstance(e, sympy.Piecewise):
        for val, cond in e.args:
            if _truth(cond, env, real):
                return _ev(val, env, real)
        raise Undefined("no Piecewise branch applies")
    raise Undefined(f"cannot evaluate {type(e).__name__}")


def _real(v: Any) -> Any:
    return v.real if isinstance(v, mpmath.mpc) else v


def _pow(e: sympy.Pow, env: dict[str, Any], real: bool) -> Any:
    b = _ev(e.base, env, real)
    x = e.exp
    if x.is_Integer:
        n = int(x)
        if n < 0 and _singular(b):
            raise Undefined("division by zero")
        return mpmath.power(b, n)
    xv = _ev(x, env, real)
    if b == 0:
        if _real(xv) > 0:
            return mpmath.mpf(0)
        raise Undefined("zero to a non-positive power")
    if abs(b) < ZERO:
        # a radicand within rounding of 0 (x + 1/3 at an inexact x = -1/3): continuous there for
        # a positive exponent, not judgeable for a negative one
        if _real(xv) > 0:
            return mpmath.mpf(0)
        raise Unevaluable("too close to a singularity to judge numerically")
    if real:
        if isinstance(b, mpmath.mpc) or b < 0:
            raise Undefined("non-integer power of a negative number")
        v = mpmath.power(b, xv)
        if abs(v) > mpmath.mpf(10) ** 300:
            raise Unevaluable("overflow")
        return v
    return mpmath.power(b, xv)


def _truth(c: sympy.Basic, env: dict[str, Any], real: bool) -> bool:
    if c is sympy.true or c is True:
        return True
    if c is sympy.false or c is False:
        return False
    if isinstance(c, sympy.And):
        return all(_truth(a, env, real) for a in c.args)
    if isinstance(c, sympy.Or):
        return any(_truth(a, env, real) for a in c.args)
    if isinstance(c, sympy.Not):
        return not _truth(c.args[0], env, real)
    full = _ev(c.lhs, env, real) - _ev(c.rhs, env, real)
    if isinstance(c, sympy.Unequality):
        return not _is_zero(full)
    if isinstance(c, sympy.Equality):
        return _is_zero(full)
    d = _real(full)
    if isinstance(c, sympy.StrictGreaterThan):
        return d > ZERO
    if isinstance(c, sympy.StrictLessThan):
        return d < -ZERO
    if isinstance(c, sympy.GreaterThan):
        return d > -ZERO
    if isinstance(c, sympy.LessThan):
        return d < ZERO
    if isinstance(c, sympy.Unequality):
        return not _is_zero(d)
    if isinstance(c, sympy.Equality):
        return _is_zero(d)
    raise Undefined(f"cannot evaluate condition {type(c).__name__}")


def cond_holds(c: Cond, env: dict[str, Any], real: bool = True) -> bool:
    """Truth of a side-condition at a point; a condition that is itself undefined there fails."""
    try:
        with mpmath.workdps(DPS):  # the point may be an irrational bound given to 50 digits
            return _truth(c.as_relational(), env, real)
    except (Undefined, ZeroDivisionError, ValueError):
        return False


def agree(a: Any, b: Any) -> bool:
    """Equal up to a relative 1e-20 (50-digit arithmetic)."""
    scale = max(mpmath.mpf(1), abs(a), abs(b))
    return abs(a - b) <= scale * mpmath.mpf(10) ** -20


def value_or_none(expr: sympy.Basic, env: dict[str, Any], real: bool = True) -> Any:
    try:
        return strict_eval(expr, env, real)
    except (Undefined, ZeroDivisionError, ValueError, OverflowError):
        return None


@dataclass
class Comparison:
    """Outcome of comparing ``a`` and ``b`` at admissible points."""

    tested: int = 0
    skipped: int = 0
    equal: int = 0
    both_undefined: int = 0
    only_a: list[dict[str, str]] = field(default_factory=list)  # a defined, b not
    only_b: list[dict[str, str]] = field(default_factory=list)  # b defined, a not
    differ: list[dict[str, str]] = field(default_factory=list)
    points: list[dict[str, str]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not (self.only_a or self.only_b or self.differ) and self.tested > 0

    def payload(self) -> dict[str, Any]:
        return {
            "tested": self.tested,
            "skipped": self.skipped,
            "equal": self.equal,
            "both_undefined": self.both_undefined,
            "only_input_defined": self.only_a[:5],
            "only_output_defined": self.only_b[:5],
            "differ": self.differ[:5],
            "points": self.points,
        }


def _fmt(v: Any) -> str:
    return mpmath.nstr(v, 15)


def sample_points(
    names: list[str], rng: random.Random, conds: list[Cond], count: int, real: bool = True
) -> Iterator[dict[str, sympy.Expr]]:
    """Up to ``count`` exact rational points, lazily: boundary probes first, then seeded random ones."""
    probes = probe_values(conds)
    for name in sorted(probes):
        # a boundary and its near neighbours: x = 1 and x = 1 +- 1/1000
        probes[name] = [q for r in probes[name] for q in (r, r + sympy.Rational(1, 1000), r - sympy.Rational(1, 1000))]
    made = 0
    for name in names:
        for r in probes.get(name, []):
            if r.is_Rational or (not real and all(p.is_Rational for p in r.as_real_imag())):
                base = {n: sympy.Rational(rng.randint(-40, 40), 7) for n in names}
                base[name] = r
                made += 1
                yield base
    while made < count:
        pt: dict[str, sympy.Expr] = {}
        for n in names:
            kind = rng.random()
            if kind < 0.2:
                pt[n] = sympy.Integer(rng.randint(-6, 6))
            elif kind < 0.35:
                pt[n] = sympy.Rational(rng.randint(1, 400), 100)
            else:
                f = Fraction(round(rng.uniform(-12, 12), 4)).limit_denominator(10**4)
                pt[n] = sympy.Rational(f.numerator, f.denominator)
            if not real:
                pt[n] = pt[n] + sympy.I * sympy.Rational(rng.randint(-800, 800), 100)
        made += 1
        yield pt


def _mpnum(v: sympy.Rational) -> Any:
    return mpmath.mpf(v.p) / v.q


def to_env(pt: dict[str, sympy.Expr], real: bool = True) -> dict[str, Any]:
    with mpmath.workdps(DPS):
        out: dict[str, Any] = {}
        for k, v in pt.items():
            if v.is_Rational:
                out[k] = _mpnum(v)
            else:
                re_, im_ = v.as_real_imag()
                out[k] = mpmath.mpc(_mpnum(re_), _mpnum(im_))
        return out


def compare(
    a: sympy.Basic,
    b: sympy.Basic,
    conds: list[Cond],
    rng: random.Random,
    count: int = 20,
    real: bool = True,
    max_tries: int = 400,
    probe_from: list[Cond] | None = None,
) -> Comparison:
    """Evaluate ``a`` and ``b`` at ``count`` admissible points (those satisfying ``conds``).

    ``probe_from`` adds boundary points (e.g. of the input's own domain) to visit first.
    """
    names = sorted({s.name for s in a.free_symbols | b.free_symbols} | {s for c in conds for s in c.symbols()})
    out = Comparison()
    candidates: Iterable[dict[str, sympy.Expr]] = (
        sample_points(names, rng, [*conds, *(probe_from or [])], max_tries, real) if names else [{}]
    )
    for pt in candidates:
        if out.tested >= count:
            break
        env = to_env(pt, real)
        if not all(cond_holds(c, env, real) for c in conds):
            out.skipped += 1
            continue
        try:
            va = value_or_none(a, env, real)
            vb = value_or_none(b, env, real)
        except Unevaluable:
            out.skipped += 1
            continue
        out.tested += 1
        shown = {k: str(v) for k, v in pt.items()}
        out.points.append(shown)
        if va is None and vb is None:
            out.both_undefined += 1
        elif vb is None:
            out.only_a.append(shown)
        elif va is None:
            out.only_b.append(shown)
        elif agree(va, vb):
            out.equal += 1
        else:
            out.differ.append({**shown, "input": _fmt(va), "output": _fmt(vb)})
    return out
