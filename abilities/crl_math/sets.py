"""Solution sets over the reals: a whitelisted reader, strict numeric membership, and the set check.

A solve answer is a sympy set (``Interval``, ``Union``, ``FiniteSet``, ``EmptySet``, ``Reals``,
``Complement``, ``Intersection`` and ``ImageSet(Lambda(n, r + T*n), Integers)`` for periodic
families). Clients read our strings back, and the grader reads both ours and the expected ones,
so the set grammar has its own small reader (leaves go through the expression parser; nothing is
ever passed to ``sympify``).

The set check is the witness of a set answer: at seeded points, at every endpoint and finite
point of the set (and just beside them), and at family members, a point must be in the set
exactly when the relation holds there under strict real evaluation (an undefined side means the
relation does not hold) and the assumptions hold.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

import mpmath
import sympy
from sympy.printing.str import StrPrinter

from abilities.crl_math import numeric
from abilities.crl_math.domain import Cond
from abilities.crl_math.parser import ParseError, evaluated, parse_expr_safe

FAMILY_VAR = "n"
TOL = mpmath.mpf(10) ** -25
_OPS = {"=": "==", "==": "=="}


class BadSet(ValueError):
    """A set string outside the grammar, or a set whose elements are not real numbers."""


# -- reading ------------------------------------------------------------------------------


def _split_args(text: str, pos: int) -> list[tuple[str, int]]:
    """Top-level comma-separated arguments of ``text`` (the inside of one pair of parentheses)."""
    out: list[tuple[str, int]] = []
    depth, start = 0, 0
    for i, ch in enumerate(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append((text[start:i], pos + start))
            start = i + 1
    if text.strip():
        out.append((text[start:], pos + start))
    return out


def _call(text: str, pos: int) -> tuple[str, list[tuple[str, int]]]:
    t = text.strip()
    if "(" not in t:
        return t, []
    head = t[: t.index("(")].strip()
    if not t.endswith(")"):
        raise BadSet(f"expected ')' at the end of {head}(...) (position {pos})")
    inner_start = t.index("(") + 1
    return head, _split_args(t[inner_start:-1], pos + inner_start)


def _bound(text: str, pos: int, names: dict[str, sympy.Symbol]) -> sympy.Expr:
    t = text.strip()
    if t in ("oo", "+oo"):
        return sympy.oo
    if t == "-oo":
        return -sympy.oo
    return _expr(t, pos, names)


def _expr(text: str, pos: int, names: dict[str, sympy.Symbol]) -> sympy.Expr:
    try:
        e = evaluated(parse_expr_safe(text))
    except ParseError as exc:
        raise BadSet(f"{exc.reason} at position {pos + exc.pos}") from None
    return e.xreplace({s: names.get(s.name, s) for s in e.free_symbols})


_INTERVALS = {"Interval": (False, False), "Interval.open": (True, True), "Interval.Lopen": (True, False),
              "Interval.Ropen": (False, True)}


def parse_set(text: str, names: dict[str, sympy.Symbol] | None = None, _pos: int = 0) -> sympy.Set:
    """Read a printed set back into a sympy Set (our grammar only; evaluate=False keeps its shape)."""
    names = names or {}
    if len(text) > 4000:
        raise BadSet("set string longer than 4000 characters")
    head, args = _call(text, _pos)
    if head == "EmptySet" and not args:
        return sympy.S.EmptySet
    if head == "Reals" and not args:
        return sympy.S.Reals
    if head in _INTERVALS:
        if len(args) != 2:
            raise BadSet(f"{head} takes two bounds (position {_pos})")
        lo, hi = (_bound(a, p, names) for a, p in args)
        lopen, ropen = _INTERVALS[head]
        return sympy.Interval(lo, hi, lopen or lo == -sympy.oo, ropen or hi == sympy.oo)
    if head == "FiniteSet":
        return sympy.FiniteSet(*[_expr(a, p, names) for a, p in args])
    if head in ("Union", "Intersection", "Complement"):
        parts = [parse_set(a, names, p) for a, p in args]
        if head == "Complement" and len(parts) != 2:
            raise BadSet("Complement takes two sets")
        cls = {"Union": sympy.Union, "Intersection": sympy.Intersection, "Complement": sympy.Complement}[head]
        return cls(*parts, evaluate=False)
    if head == "ImageSet":
        if len(args) != 2 or args[1][0].strip() != "Integers":
            raise BadSet("ImageSet must be ImageSet(Lambda(n, expr), Integers)")
        lam, lpos = args[0]
        lhead, largs = _call(lam, lpos)
        if lhead != "Lambda" or len(largs) != 2:
            raise BadSet("ImageSet must be ImageSet(Lambda(n, expr), Integers)")
        var = largs[0][0].strip()
        n = sympy.Symbol(var)
        body = _expr(largs[1][0], largs[1][1], {**names, var: n})
        return sympy.ImageSet(sympy.Lambda(n, body), sympy.S.Integers)
    raise BadSet(f"unknown set {head!r} (position {_pos})")


class _SetPrinter(StrPrinter):
    """sympy's str printer, except that a FiniteSet prints by name with its elements in numeric order."""

    def _print_FiniteSet(self, s: sympy.FiniteSet) -> str:
        def key(e: sympy.Expr) -> tuple[int, float, str]:
            if e.is_number:
                v = complex(e.evalf(30))
                return (0, v.real, sympy.sstr(e))
            return (1, 0.0, sympy.sstr(e))

        return "FiniteSet(" + ", ".join(self._print(a) for a in sorted(s.args, key=key)) + ")"


def show_set(s: sympy.Set) -> str:
    """The printed set (sympy syntax, FiniteSet spelled out), readable by ``parse_set``."""
    return _SetPrinter().doprint(s)


def family(rep: sympy.Expr, period: sympy.Expr) -> sympy.Set:
    """``{rep + period*n : n in Z}`` printed as ``ImageSet(Lambda(n, ...), Integers)``."""
    n = sympy.Symbol(FAMILY_VAR)
    return sympy.ImageSet(sympy.Lambda(n, period * n + rep), sympy.S.Integers)


# -- numeric membership -------------------------------------------------------------------


def _num(e: sympy.Expr, env: dict[str, Any]) -> Any:
    if e == sympy.oo:
        return mpmath.inf
    if e == -sympy.oo:
        return -mpmath.inf
    try:
        v = numeric.strict_eval(e, env, True)
    except (numeric.Undefined, ZeroDivisionError, ValueError, OverflowError, KeyError) as exc:
        raise BadSet(f"{sympy.sstr(e)} is not a real number here ({exc})") from None
    if isinstance(v, mpmath.mpc):
        raise BadSet(f"{sympy.sstr(e)} is not real")
    return v


def _close(a: Any, b: Any) -> bool:
    if mpmath.isinf(a) or mpmath.isinf(b):
        return bool(a == b)
    return abs(a - b) <= TOL * max(mpmath.mpf(1), abs(a), abs(b))


def member(s: sympy.Set, v: Any, env: dict[str, Any]) -> bool:
    """Is the real number ``v`` in ``s`` (parameters from ``env``)? Strict: BadSet if undecidable."""
    with mpmath.workdps(numeric.DPS):
        return compile_set(s, env)(v)


def compile_set(s: sympy.Set, env: dict[str, Any]) -> Any:
    """A membership test with the set's numbers evaluated once (at 50 digits) for these parameters."""
    if s is sympy.S.EmptySet:
        return lambda v: False
    if s is sympy.S.Reals:
        return lambda v: True
    if isinstance(s, sympy.Interval):
        lo, hi = _num(s.start, env), _num(s.end, env)
        if lo > hi:
            raise BadSet("an interval with its bounds reversed")
        lopen, ropen = s.left_open, s.right_open

        def interval(v: Any) -> bool:
            left = (v > lo and not _close(v, lo)) or (_close(v, lo) and not lopen)
            return left and ((v < hi and not _close(v, hi)) or (_close(v, hi) and not ropen))

        return interval
    if isinstance(s, sympy.FiniteSet):
        elems = [_num(e, env) for e in s.args]
        return lambda v: any(_close(v, e) for e in elems)
    if isinstance(s, sympy.Union | sympy.Intersection | sympy.Complement):
        parts = [compile_set(a, env) for a in s.args]
        if isinstance(s, sympy.Union):
            return lambda v: any(p(v) for p in parts)
        if isinstance(s, sympy.Intersection):
            return lambda v: all(p(v) for p in parts)
        return lambda v: parts[0](v) and not parts[1](v)
    if isinstance(s, sympy.ImageSet):
        lam = s.lamda
        n = lam.variables[0]
        slope = sympy.diff(lam.expr, n)
        if slope.has(n) or slope == 0:
            raise BadSet("only families r + T*n (linear in n) are supported")
        r, t = _num(lam.expr.xreplace({n: 0}), env), _num(slope, env)

        def fam(v: Any) -> bool:
            k = int(mpmath.nint((v - r) / t))
            return any(_close(v, r + t * j) for j in (k - 1, k, k + 1))

        return fam
    raise BadSet(f"unsupported set kind {type(s).__name__}")


def points_of(s: sympy.Set, env: dict[str, Any], span: int = 3) -> list[Any]:
    """The set's own special points: finite elements, interval ends, family members for |n| <= span."""
    out: list[Any] = []
    with mpmath.workdps(numeric.DPS):
        if isinstance(s, sympy.Interval):
            out += [_num(b, env) for b in (s.start, s.end) if b.is_finite is not False and abs(b) != sympy.oo]
        elif isinstance(s, sympy.FiniteSet):
            out += [_num(e, env) for e in s.args]
        elif isinstance(s, sympy.Union | sympy.Intersection | sympy.Complement):
            for a in s.args:
                out += points_of(a, env, span)
        elif isinstance(s, sympy.ImageSet):
            n = s.lamda.variables[0]
            out += [_num(s.lamda.expr.xreplace({n: j}), env) for j in range(-span, span + 1)]
    return out


# -- the relation at a point ------------------------------------------------------------


def holds(lhs: sympy.Expr, op: str, rhs: sympy.Expr, env: dict[str, Any]) -> bool:
    """Strict truth of ``lhs OP rhs`` at a real point: an undefined side makes it false."""
    try:
        a = numeric.strict_eval(lhs, env, True)
        b = numeric.strict_eval(rhs, env, True)
    except (numeric.Undefined, ZeroDivisionError, ValueError, OverflowError):
        return False
    if isinstance(a, mpmath.mpc) or isinstance(b, mpmath.mpc):
        return False
    with mpmath.workdps(numeric.DPS):
        eq = _same_value(a, b)
        if op in ("=", "=="):
            return eq
        if op == "!=":
            return not eq
        if op == "<":
            return a < b and not eq
        if op == "<=":
            return a < b or eq
        if op == ">":
            return a > b and not eq
        if op == ">=":
            return a > b or eq
    raise ValueError(f"unknown relation {op!r}")


NOISE = mpmath.mpf(10) ** -45  # rounding noise of 50-digit arithmetic on values of moderate size
TINY = mpmath.mpf(10) ** -20


def _same_value(a: Any, b: Any) -> bool:
    """Equal at 50 digits. Two tiny values are compared relatively (2^-100 is not 3^-100); a tiny
    value against zero or noise cannot be judged (exp(-60) vs 0): Unevaluable, so it is skipped."""
    m = max(abs(a), abs(b))
    if a == b or m < NOISE:
        return True
    if m < TINY:
        if min(abs(a), abs(b)) < NOISE:
            raise numeric.Unevaluable("a tiny value against zero cannot be judged at 50 digits")
        return abs(a - b) <= TINY * m
    return _close(a, b)


@dataclass
class SetCheck:
    """Outcome of checking a set against the relation it claims to solve."""

    tested: int = 0
    inside: int = 0
    outside: int = 0
    skipped: int = 0
    wrong: list[dict[str, str]] = field(default_factory=list)
    error: str = ""

    @property
    def ok(self) -> bool:
        return not self.wrong and not self.error and self.tested > 0

    def payload(self) -> dict[str, Any]:
        return {"tested": self.tested, "inside": self.inside, "outside": self.outside, "skipped": self.skipped,
                "wrong": self.wrong[:5], "error": self.error}


def probe_points(sets: list[sympy.Set], env: dict[str, Any], rng: random.Random, count: int,
                 extra: list[Any] | None = None) -> list[Any]:
    """Seeded sample points: random rationals, integers, the sets' own points and their neighbours."""
    pts: list[Any] = []
    with mpmath.workdps(numeric.DPS):
        specials = list(extra or [])
        for s in sets:
            specials += points_of(s, env)
        for p in specials:
            if mpmath.isinf(p):
                continue
            pts += [p, p + mpmath.mpf(10) ** -6, p - mpmath.mpf(10) ** -6, p + mpmath.mpf(1) / 1000,
                    p - mpmath.mpf(1) / 1000]
        pts += [mpmath.mpf(k) for k in range(-6, 7)] + [mpmath.mpf(k) for k in (-100, -40, 40, 100)]
        for _ in range(count):
            pts.append(mpmath.mpf(rng.randint(-240000, 240000)) / 20000)
    return pts


def check_set(
    lhs: sympy.Expr, op: str, rhs: sympy.Expr, x: sympy.Symbol, s: sympy.Set, assumptions: list[Cond],
    rng: random.Random, count: int = 40, env: dict[str, Any] | None = None, extra: list[Any] | None = None,
    others: list[sympy.Set] | None = None,
) -> SetCheck:
    """Membership in ``s`` must equal the truth of the relation (and assumptions) at every probe."""
    env = dict(env or {})
    out = SetCheck()
    try:
        pts = probe_points([s, *(others or [])], env, rng, count, extra)
    except BadSet as exc:
        out.error = str(exc)
        return out
    try:
        with mpmath.workdps(numeric.DPS):
            test = compile_set(s, env)
    except BadSet as exc:
        out.error = str(exc)
        return out
    for v in pts:
        at = {**env, x.name: v}
        with mpmath.workdps(numeric.DPS):
            inside = test(v)
        try:
            truth = all(numeric.cond_holds(c, at, True) for c in assumptions) and holds(lhs, op, rhs, at)
        except numeric.Unevaluable:
            out.skipped += 1
            continue
        out.tested += 1
        out.inside += inside
        out.outside += not inside
        if inside != truth:
            out.wrong.append({x.name: mpmath.nstr(v, 20), "in_set": str(inside), "relation_holds": str(truth)})
    return out


__all__ = ["BadSet", "SetCheck", "check_set", "family", "holds", "member", "parse_set", "show_set"]
