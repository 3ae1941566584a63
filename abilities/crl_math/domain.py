"""Definedness of expressions as canonical side-conditions, and implication between them.

A ``Cond`` is one atomic side-condition ``g OP 0`` (OP in ``!=``, ``>``, ``>=``), kept in a
canonical form so that conditions compare as sets of strings: products are split into factors
(``(x-1)(x+2) != 0`` is ``x != 1`` and ``x != -2``), rational functions are cleared
(``(x+1)/x > 0`` is ``x*(x + 1) > 0``), and a linear condition in one variable is solved for it
(``x - 1 > 0`` prints ``x > 1``). Conditions that always hold over the domain are dropped here,
so they never reach the user; a condition that never holds is a ``Contradiction``.

Implication (does a set of conditions force another?) is decided with z3's nonlinear real
arithmetic for polynomial conditions, syntactically otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import sympy
import z3
from sympy import Integer
from sympy.solvers.solvers import unrad

from abilities.crl_math.exact import is_exact_zero
from abilities.crl_math.parser import evaluated, realify

OPS = ("!=", ">", ">=")
_FLIP = {">": "<", ">=": "<=", "!=": "!="}
Z3_RLIMIT = 2_000_000


class Contradiction(ValueError):
    """A condition that can never hold (e.g. a denominator that is identically zero)."""


@dataclass(frozen=True)
class Cond:
    """``expr OP 0`` in canonical form; ``lhs``/``rhs`` is how it prints (``x != -3``)."""

    expr: sympy.Expr
    op: str
    lhs: sympy.Expr
    rel: str
    rhs: sympy.Expr

    @property
    def text(self) -> str:
        return f"{sympy.sstr(self.lhs)} {self.rel} {sympy.sstr(self.rhs)}"

    @property
    def key(self) -> str:
        return self.text

    def symbols(self) -> list[str]:
        return sorted(s.name for s in self.expr.free_symbols)

    def as_relational(self) -> sympy.Basic:
        return {"!=": sympy.Ne, ">": sympy.Gt, ">=": sympy.Ge, "<": sympy.Lt, "<=": sympy.Le}[self.rel](
            self.lhs, self.rhs
        )

    def holds_at(self, value: sympy.Expr) -> bool:
        """Exact truth of ``value OP 0`` for a number (the condition's expr substituted)."""
        if self.op == "!=":
            return not bool(sympy.simplify(value) == 0)
        if self.op == ">":
            return bool(value > 0)
        return bool(value >= 0)


def sort_conds(conds: list[Cond]) -> list[Cond]:
    """Deterministic order: by the symbols involved, then by text; duplicates removed."""
    seen: dict[str, Cond] = {}
    for c in conds:
        seen.setdefault(c.key, c)
    return sorted(seen.values(), key=lambda c: (c.symbols(), c.text))


def reduce_conds(conds: list[Cond], real: bool = True, keep: list[Cond] | None = None) -> list[Cond]:
    """Merge ``x >= c`` with ``x != c`` into ``x > c`` and drop atoms the others imply.

    ``keep`` are extra premises (e.g. assumptions) that may make an atom redundant.
    """
    conds = sort_conds(conds)
    merged: list[Cond] = []
    strict = {(c.lhs, c.rhs) for c in conds if c.rel == "!=" and c.lhs.is_Symbol}
    used: set[tuple[sympy.Expr, sympy.Expr]] = set()
    for c in conds:
        if c.lhs.is_Symbol and c.rel in (">=", "<=") and (c.lhs, c.rhs) in strict:
            op = ">" if c.rel == ">=" else "<"
            merged.append(Cond(c.expr, ">" if c.op == ">=" else c.op, c.lhs, op, c.rhs))
            used.add((c.lhs, c.rhs))
        else:
            merged.append(c)
    merged = [c for c in merged if not (c.rel == "!=" and c.lhs.is_Symbol and (c.lhs, c.rhs) in used)]
    out = list(merged)
    for c in list(merged):
        rest = [o for o in out if o.key != c.key] + list(keep or [])
        if rest and implies(rest, c, real):
            out = [o for o in out if o.key != c.key]
    return sort_conds(out)


def _is_poly(expr: sympy.Expr) -> bool:
    syms = sorted(expr.free_symbols, key=lambda s: s.name)
    if not syms:
        return True
    try:
        return bool(expr.is_polynomial(*syms))
    except Exception:  # noqa: BLE001 - sympy raises assorted errors on odd input
        return False


def _primitive(expr: sympy.Expr) -> tuple[sympy.Expr, int]:
    """Scale a polynomial to integer coefficients with positive leading term; return (poly, sign)."""
    syms = sorted(expr.free_symbols, key=lambda s: s.name)
    if not syms:
        return expr, 1
    poly = sympy.Poly(expr, *syms)
    content, prim = poly.primitive()
    # primitive() may move the sign into the content: keep the original sign of the polynomial
    sign = 1 if content > 0 else -1
    return sympy.expand(sign * prim.as_expr()), 1


def _solve_linear(g: sympy.Expr) -> tuple[sympy.Symbol, sympy.Expr, int] | None:
    syms = list(g.free_symbols)
    if len(syms) != 1:
        return None
    x = syms[0]
    poly = sympy.Poly(g, x)
    if poly.degree() != 1:
        return None
    a, b = poly.all_coeffs()
    return x, -b / a, (1 if a > 0 else -1)


def _make(expr: sympy.Expr, op: str) -> Cond:
    lin = _solve_linear(expr) if _is_poly(expr) else None
    if lin:
        x, value, sign = lin
        rel = op if sign > 0 else _FLIP[op]
        return Cond(expr, op, x, rel, value)
    return Cond(expr, op, expr, op, Integer(0))


def canonical(expr: sympy.Expr, op: str, real: bool = True) -> list[Cond]:
    """Canonical atoms equivalent to ``expr OP 0``; always-true ones are dropped (memoised)."""
    return list(_canonical_cached(expr, op, real))


@lru_cache(maxsize=4096)
def _canonical_cached(expr: sympy.Expr, op: str, real: bool) -> tuple[Cond, ...]:
    return tuple(_canonical(expr, op, real))


def _canonical(expr: sympy.Expr, op: str, real: bool = True) -> list[Cond]:
    if expr.free_symbols == set():
        value = sympy.nsimplify(expr) if expr.is_Float else expr
        truth = (value != 0) if op == "!=" else (value > 0 if op == ">" else value >= 0)
        if truth in (sympy.true, True):
            return []
        if truth in (sympy.false, False):
            raise Contradiction(f"{sympy.sstr(expr)} {op} 0 never holds")
        return [Cond(expr, op, expr, op, Integer(0))]
    if real and isinstance(expr, sympy.log):
        # log(u) OP 0 with u > 0 tracked separately: compare u with 1
        return canonical(expr.args[0] - 1, op, real)
    if real and isinstance(expr, sympy.exp):
        return []
    if real and expr.is_Mul:
        # multiplicative context: constants of known sign scale out; u^(p/q) has the sign of u
        # where it is defined (u >= 0 is tracked separately), so it can stand in for its base
        sign, kept, changed = 1, [], False
        for f in expr.args:
            if not f.free_symbols:
                if f.is_positive:
                    changed = True
                    continue
                if f.is_negative:
                    sign, changed = -sign, True
                    continue
            if f.is_Pow and f.exp.is_Rational and not f.exp.is_Integer:
                kept.append(f.base)
                changed = True
                continue
            kept.append(f)
        if changed and kept:
            # continue below with the simplified product (no recursion: the sign stays explicit)
            expr = sympy.Mul(sign, *kept)
            if expr.free_symbols == set():
                return canonical(expr, op, real)
    if real and isinstance(expr, sympy.Abs):
        return [] if op == ">=" else canonical(expr.args[0], "!=", real)
    if real and expr.is_Pow and expr.exp.is_Rational and expr.exp > 0 and not expr.exp.is_Integer:
        # u^(p/q) with u >= 0 tracked separately: positive exactly where u is
        return [] if op == ">=" else canonical(expr.base, "!=", real)
    num, den = sympy.fraction(sympy.together(expr))
    if not (_is_poly(num) and _is_poly(den)):
        if op == "!=" and den.free_symbols:
            # n/d != 0 is n != 0 (d != 0 is a domain atom of its own): 27/tan(x) != 0 always holds
            if not num.free_symbols:
                return [] if num != 0 else canonical(num, op, real)
            if _is_poly(num):
                return canonical(num, op, real)
            expr = num
        if _always(expr, op, real):
            return []
        if op == "!=" and real:
            zeros = _radical_zeros(expr)
            if zeros is not None:
                x = next(iter(expr.free_symbols))
                return [Cond(x - z, "!=", x, "!=", z) for z in zeros]
        return [_make(expr, op)]
    if op == "!=":
        if num == 0:
            raise Contradiction(f"{sympy.sstr(expr)} is identically zero")
        out: list[Cond] = []
        _c, factors = sympy.factor_list(sympy.expand(num))
        for f, _m in factors:
            if not f.free_symbols:
                continue
            g, _s = _primitive(f)
            if sympy.Poly(g, *sorted(g.free_symbols, key=lambda s: s.name)).LC() < 0:
                g = -g
            out.extend(_split_roots(g, real))
        return [c for c in out if not _always(c.expr, "!=", real)]
    if not real:
        return []
    g = sympy.expand(num * den)
    if g == 0:
        if op == ">":
            raise Contradiction(f"{sympy.sstr(expr)} > 0 never holds")
        return []
    g, _sign = _primitive(g)
    if op == ">":
        # even-multiplicity factors only need to be non-zero: x**2*(x - 1) > 0 is x != 0, x > 1
        _c, factors = sympy.factor_list(g)
        even = [f for f, m in factors if m % 2 == 0 and f.free_symbols]
        if even:
            odd = sympy.Mul(_c, *[f**m for f, m in factors if m % 2 == 1])
            out = [c for f in even for c in canonical(f, "!=", real)]
            return out + canonical(sympy.expand(odd), ">", real)
    if op in (">", ">="):
        # an odd power has the sign of its base: x**3 > 0 is x > 0
        _c, factors = sympy.factor_list(g)
        if all(m % 2 == 1 for _f, m in factors) and any(m > 1 for _f, m in factors):
            return canonical(sympy.expand(sympy.Mul(_c, *[f for f, _m in factors])), op, real)
    if _always(g, op, real):
        return []
    if _never(g, op):
        raise Contradiction(f"{sympy.sstr(expr)} {op} 0 never holds")
    return [_make(g, op)]


def _split_roots(g: sympy.Expr, real: bool) -> list[Cond]:
    """``g != 0`` for a univariate quadratic with irrational real roots prints as ``x != r`` each."""
    syms = list(g.free_symbols)
    if len(syms) == 1 and sympy.Poly(g, syms[0]).degree() == 2:
        x = syms[0]
        rts = sympy.roots(sympy.Poly(g, x))
        vals = [r for r in rts if (r.is_real or not real)]
        if real and not vals:
            return []
        if len(vals) == 2:
            vals = sorted(vals, key=lambda r: (complex(r).real, complex(r).imag))
            return [Cond(x - r, "!=", x, "!=", r) for r in vals]
    return [_make(g, "!=")]


# -- z3 bridge -----------------------------------------------------------------------------


class _NotPoly(Exception):
    pass


def _to_z3(expr: sympy.Expr, env: dict[str, z3.ArithRef], side: list[z3.BoolRef]) -> z3.ArithRef:
    if expr.is_Symbol:
        if expr.name not in env:
            env[expr.name] = z3.Real(expr.name)
        return env[expr.name]
    if expr.is_Integer:
        return z3.RealVal(int(expr))
    if expr.is_Rational:
        return z3.RealVal(f"{expr.p}/{expr.q}")
    if expr.is_Add:
        return z3.Sum([_to_z3(a, env, side) for a in expr.args])
    if expr.is_Mul:
        out = _to_z3(expr.args[0], env, side)
        for a in expr.args[1:]:
            out = out * _to_z3(a, env, side)
        return out
    if expr.is_Pow and expr.exp.is_Integer and expr.exp > 0:
        base = _to_z3(expr.base, env, side)
        out = base
        for _ in range(int(expr.exp) - 1):
            out = out * base
        return out
    if expr.is_Pow and expr.exp == sympy.Rational(1, 2) and expr.base.is_Rational and expr.base > 0:
        name = f"__sqrt_{expr.base.p}_{expr.base.q}"
        if name not in env:
            env[name] = z3.Real(name)
            b = _to_z3(expr.base, env, side)
            side.extend([env[name] * env[name] == b, env[name] > 0])
        return env[name]
    raise _NotPoly(sympy.sstr(expr))


def _z3_cond(c: Cond, env: dict[str, z3.ArithRef], side: list[z3.BoolRef]) -> z3.BoolRef:
    lhs = _to_z3(c.lhs, env, side)
    rhs = _to_z3(c.rhs, env, side)
    return {"!=": lhs != rhs, ">": lhs > rhs, ">=": lhs >= rhs, "<": lhs < rhs, "<=": lhs <= rhs}[c.rel]


def _unsat(formulas: list[z3.BoolRef]) -> bool:
    s = z3.Solver()
    # a resource limit, not a timeout: the verdict must not depend on machine load (determinism)
    s.set("rlimit", Z3_RLIMIT)
    s.add(*formulas)
    return s.check() == z3.unsat


def _always(expr: sympy.Expr, op: str, real: bool) -> bool:
    """True when ``expr OP 0`` holds wherever ``expr`` is defined (a z3 or sympy proof)."""
    if not real:
        return False
    env: dict[str, z3.ArithRef] = {}
    side: list[z3.BoolRef] = []
    try:
        e = _to_z3(sympy.expand(expr), env, side)
    except _NotPoly:
        return _always_abstract(expr, op)
    neg = {"!=": e == 0, ">": e <= 0, ">=": e < 0}[op]
    return _unsat([*side, neg])


def _always_abstract(expr: sympy.Expr, op: str) -> bool:
    """Prove ``expr OP 0`` with every non-polynomial atom replaced by a variable ranging over a
    superset of its values (sin, cos in [-1, 1] with sin^2 + cos^2 = 1, exp > 0, roots and |.|
    >= 0, anything else free): unsatisfiable negation there means it always holds. Then sympy's
    sign assumptions with the symbols declared real."""
    atoms: dict[sympy.Expr, sympy.Symbol] = {}
    side_conds: list[tuple[str, sympy.Symbol, sympy.Expr | None]] = []

    def fresh(node: sympy.Expr, kind: str) -> sympy.Symbol:
        if node not in atoms:
            atoms[node] = sympy.Symbol(f"__atom{len(atoms)}")
            side_conds.append((kind, atoms[node], node.args[0] if node.args else None))
        return atoms[node]

    def abstract(node: sympy.Expr) -> sympy.Expr:
        if isinstance(node, sympy.sin | sympy.cos):
            return fresh(node, type(node).__name__)
        if isinstance(node, sympy.exp) or (node.is_Pow and node.base == sympy.E):
            return fresh(node, "pos")
        if isinstance(node, sympy.Abs) or (node.is_Pow and node.exp.is_Rational and not node.exp.is_Integer
                                           and node.exp > 0):
            return fresh(node, "nonneg")
        if isinstance(node, sympy.Function) or (node.is_Pow and not node.exp.is_Integer):
            return fresh(node, "free")
        if node.args:
            return node.func(*[abstract(a) for a in node.args])
        return node

    try:
        poly = abstract(sympy.expand(expr))
        env: dict[str, z3.ArithRef] = {}
        side: list[z3.BoolRef] = []
        e = _to_z3(sympy.expand(poly), env, side)
        for kind, sym, arg in side_conds:
            v = _to_z3(sym, env, side)
            if kind in ("sin", "cos"):
                side += [v >= -1, v <= 1]
                other = atoms.get((sympy.cos if kind == "sin" else sympy.sin)(arg))
                if other is not None:
                    w = _to_z3(other, env, side)
                    side.append(v * v + w * w == 1)
            elif kind == "pos":
                side.append(v > 0)
            elif kind == "nonneg":
                side.append(v >= 0)
        neg = {"!=": e == 0, ">": e <= 0, ">=": e < 0}[op]
        if _unsat([*side, neg]):
            return True
    except (_NotPoly, sympy.PolynomialError, TypeError, ValueError):
        pass
    reals = {s: sympy.Symbol(s.name, real=True) for s in expr.free_symbols}
    r = expr.xreplace(reals)
    if op == ">":
        return r.is_positive is True
    if op == ">=":
        return r.is_nonnegative is True
    return r.is_positive is True or r.is_negative is True


def _radical_zeros(g: sympy.Expr) -> list[sympy.Expr] | None:
    """Exact real zeros of a one-variable expression with square roots (e.g. sqrt(x) - 2), so
    that ``g != 0`` prints as ``x != 4``; None when that cannot be done exactly."""
    syms = list(g.free_symbols)
    if len(syms) != 1 or g.has(sympy.log, sympy.exp, sympy.sin, sympy.cos, sympy.tan, sympy.Abs):
        return None
    x = syms[0]
    try:
        res = unrad(sympy.numer(sympy.together(g)), x)
        if not res or res[1]:
            return None
        poly = sympy.Poly(res[0], x)
        if poly.degree() > 8:
            return None
        roots = [r for r in sympy.real_roots(poly)]
    except (sympy.PolynomialError, NotImplementedError, ValueError, TypeError):
        return None
    out = []
    for r in sorted(set(roots), key=lambda v: float(v)):
        v = g.xreplace({x: r})
        try:
            if v.has(sympy.I) or not v.is_real:
                continue
        except TypeError:
            continue
        if is_exact_zero(v):
            out.append(r)
    return out


def _never(expr: sympy.Expr, op: str) -> bool:
    env: dict[str, z3.ArithRef] = {}
    side: list[z3.BoolRef] = []
    try:
        e = _to_z3(sympy.expand(expr), env, side)
    except _NotPoly:
        return False
    pos = {"!=": e != 0, ">": e > 0, ">=": e >= 0}[op]
    return _unsat([*side, pos])


def implies(premises: list[Cond], goal: Cond, real: bool = True) -> bool:
    """True when ``premises`` force ``goal`` (z3 for polynomial atoms, else syntactic)."""
    if any(p.key == goal.key for p in premises):
        return True
    uniq = {p.key: p for p in premises}
    return _implies_cached(tuple(uniq[k] for k in sorted(uniq)), goal, real)


@lru_cache(maxsize=8192)
def _implies_cached(premises: tuple[Cond, ...], goal: Cond, real: bool) -> bool:
    if not real:
        return False
    env: dict[str, z3.ArithRef] = {}
    side: list[z3.BoolRef] = []
    try:
        target = _z3_cond(goal, env, side)
    except _NotPoly:
        return False
    fs: list[z3.BoolRef] = []
    for p in premises:
        try:
            fs.append(_z3_cond(p, env, side))
        except _NotPoly:
            continue
    return _unsat([*side, *fs, z3.Not(target)])


def satisfiable(conds: list[Cond], real: bool = True) -> bool:
    """False only when the conditions provably exclude every point (z3, polynomial atoms)."""
    if not real:
        return True
    env: dict[str, z3.ArithRef] = {}
    side: list[z3.BoolRef] = []
    fs = []
    for c in conds:
        try:
            fs.append(_z3_cond(c, env, side))
        except _NotPoly:
            continue
    return not _unsat([*side, *fs])


# -- domains of expressions ----------------------------------------------------------------


def raw_domain(expr: sympy.Basic, real: bool = True) -> list[tuple[sympy.Expr, str]]:
    """Where ``expr`` (possibly an unevaluated tree) is defined, as raw ``(g, op)`` pairs.

    Piecewise conditions are not domain facts: only the branch values are inspected, so a
    Piecewise never "carries" its gaps (they are surfaced as explicit conditions instead).
    """
    out: list[tuple[sympy.Expr, str]] = []

    def walk(e: sympy.Basic) -> None:
        if isinstance(e, sympy.Piecewise):
            for val, _cond in e.args:
                walk(val)
            return
        if isinstance(e, sympy.Pow):
            b, x = e.args
            walk(b)
            walk(x)
            if x.is_Number:
                if x.is_negative:
                    out.append((b, "!="))
                if x.is_Rational and not x.is_Integer:
                    if real:
                        out.append((b, ">" if x.is_negative else ">="))
                    elif x.is_negative:
                        pass
            elif x.free_symbols and b != sympy.E and not (b.is_Number and b.is_positive):
                out.append((b, ">") if real else (b, "!="))
            return
        if isinstance(e, sympy.log):
            walk(e.args[0])
            out.append((e.args[0], ">" if real else "!="))
            return
        if isinstance(e, sympy.tan):
            walk(e.args[0])
            out.append((sympy.cos(e.args[0]), "!="))
            return
        if isinstance(e, sympy.asin | sympy.acos) and real:
            walk(e.args[0])
            out.append((1 - e.args[0] ** 2, ">="))
            return
        for a in e.args:
            walk(a)

    walk(expr)
    return out


def domain(expr: sympy.Basic, real: bool = True) -> list[Cond]:
    """Canonical definedness conditions of ``expr``; raises Contradiction if it is nowhere defined."""
    conds: list[Cond] = []
    for g, op in raw_domain(expr, real):
        # the atom's own inner denominators are separate atoms, so g itself may be evaluated
        g = evaluated(g)
        if real:
            g = realify(g)
        conds.extend(canonical(sympy.expand(g) if _is_poly(g) else g, op, real))
    return reduce_conds(conds, real)


def from_relation(lhs: sympy.Expr, op: str, rhs: sympy.Expr, real: bool = True) -> list[Cond]:
    """Canonical atoms for a user relation (assumption or stated condition)."""
    diff = sympy.expand(lhs - rhs) if _is_poly(lhs - rhs) else lhs - rhs
    if op in ("<", "<="):
        diff, op = -diff, {"<": ">", "<=": ">="}[op]
    if op == "==":
        raise ValueError("equalities are not accepted as conditions; substitute the value instead")
    return canonical(diff, op, real)


def probe_values(conds: list[Cond]) -> dict[str, list[sympy.Expr]]:
    """Boundary points of univariate conditions (``x != 1`` gives 1): numeric tests visit them."""
    out: dict[str, list[sympy.Expr]] = {}
    for c in conds:
        if c.lhs.is_Symbol and c.rhs.is_number:
            out.setdefault(c.lhs.name, []).append(c.rhs)
    return {k: sorted(set(v), key=lambda r: (complex(r).real, complex(r).imag)) for k, v in sorted(out.items())}
