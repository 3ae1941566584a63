"""Equations and inequalities with a parameter: the answer split into cases over the parameter.

With ``x`` the unknown and ``a`` the parameter, the relation is brought to a polynomial in ``x``
of degree at most 2 (denominators cleared, radicals squared away) whose roots, together with the
boundaries of the domain conditions, are *formulas* in ``a``. The parameter line is cut at its
*critical values*: where a coefficient or the discriminant vanishes, where a formula is undefined
or two formulas meet, where a formula crosses a domain boundary, where a squared candidate stops
satisfying the original. On each open cell between critical values nothing changes shape, so the
relation is solved exactly at one rational value of ``a`` (the one-unknown planner) and every
number of that answer is matched back to its formula; the case is then re-checked at two more
values of the cell by the set check. Each critical value is solved on its own. Cells and values
with the same answer merge into one case whose ``when`` is a conjunction (``a != 2``,
``a > 0``, ``a == 0``); the cases cover the whole line and never overlap, by construction.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import mpmath
import sympy
from sympy.solvers.solvers import unrad

from abilities.base import AbilityError
from abilities.crl_math import report
from abilities.crl_math.chart import (
    as_mp,
    between,
    chart,
    common_denominator,
    cond_zeros,
    dedupe,
    has_fn,
    has_radical,
    reduce_to_candidates,
    relation,
    unsupported,
    violated,
)
from abilities.crl_math.domain import Cond, Contradiction, canonical, domain, reduce_conds
from abilities.crl_math.exact import is_exact_zero
from abilities.crl_math.parser import evaluated, parse_relation, realify
from abilities.crl_math.request import Request, base_outputs
from abilities.crl_math.sets import check_set, holds, points_of, show_set
from abilities.crl_math.trail import Trail

SolveAt = Callable[[sympy.Expr, str, sympy.Expr], sympy.Set]
CLOSE = mpmath.mpf(10) ** -30


def _zeros(e: sympy.Expr, a: sympy.Symbol) -> list[sympy.Expr]:
    """Verified real zeros of an expression in the parameter (none when it vanishes identically)."""
    e = realify(evaluated(e))
    if not e.has(a):
        return []
    cands, identity = reduce_to_candidates(e, a, True)
    if identity:
        return []
    dom = domain(e, True)
    return [z for z in cands if violated(dom, a, z, True) is None and is_exact_zero(e.xreplace({a: z}))]


def _formulas(f: sympy.Expr, x: sympy.Symbol, d0: list[Cond]) -> tuple[list[sympy.Expr], sympy.Poly, bool]:
    g, squared = f, False
    if has_fn(f, x, sympy.Abs, sympy.sign, sympy.log, sympy.exp, sympy.sin, sympy.cos, sympy.tan):
        raise unsupported("parameters with |.|, logarithms, exponentials or trigonometric functions of the unknown")
    if has_radical(g, x):
        res = unrad(g, x)
        if not res or res[1]:
            raise unsupported("radicals in the unknown that squaring does not remove")
        g, squared = sympy.expand(res[0]), True
    n, _d = common_denominator(g)
    if not n.is_polynomial(x):
        raise unsupported("the relation is not polynomial in the unknown after clearing denominators")
    poly = sympy.Poly(n, x)
    if poly.degree() > 2:
        raise unsupported("parameters with a polynomial of degree above 2 in the unknown")
    pool = list(sympy.roots(poly)) if poly.degree() >= 1 else []
    for c in d0:
        if c.expr.has(x) and c.expr.is_polynomial(x) and sympy.Poly(c.expr, x).degree() <= 2:
            pool += list(sympy.roots(sympy.Poly(c.expr, x)))
    pool = [sympy.cancel(p) if not p.has(sympy.Pow) else p for p in pool]
    uniq: dict[str, sympy.Expr] = {}
    for p in pool:
        uniq.setdefault(sympy.sstr(p), p)
    return list(uniq.values()), poly, squared


def _critical(f_parts: tuple[sympy.Expr, sympy.Expr], op: str, x: sympy.Symbol, a: sympy.Symbol,
              pool: list[sympy.Expr], poly: sympy.Poly, squared: bool, d0: list[Cond],
              assume_a: list[Cond]) -> tuple[list[sympy.Expr], dict[str, list[str]]]:
    why: dict[str, list[sympy.Expr]] = {}

    def add(kind: str, e: sympy.Expr) -> None:
        why.setdefault(kind, []).extend(_zeros(e, a))

    for coef in poly.all_coeffs():
        add("coefficient", coef)
    for c in d0:
        if not c.expr.has(x):  # where the relation itself is defined for the parameter (sqrt(a))
            add("parameter domain", c.expr)
    if poly.degree() == 2:
        add("discriminant", sympy.discriminant(poly))
    for p in pool:
        for part in sympy.preorder_traversal(p):
            if part.is_Pow and part.exp.is_Rational and part.exp < 0:
                add("formula undefined", part.base)
            if part.is_Pow and part.exp.is_Rational and not part.exp.is_Integer:
                add("formula undefined", part.base)
        for c in d0:
            if c.expr.has(x):
                add("domain boundary", c.expr.xreplace({x: p}))
    for i, p in enumerate(pool):
        for q in pool[i + 1:]:
            add("formulas meet", sympy.together(p - q))
    if squared:
        lhs, rhs = f_parts
        for p in pool:
            sub_l, sub_r = lhs.xreplace({x: p}), rhs.xreplace({x: p})
            dom = domain(relation(sub_l, "=", sub_r), True)
            s = chart(sub_l, "=", sub_r, a, dom)[0]
            why.setdefault("squared candidate valid", []).extend(
                [sympy.nsimplify(v) if isinstance(v, sympy.Float) else v for v in _ends(s)])
    for c in assume_a:
        why.setdefault("assumption", []).extend(cond_zeros(c, a))
    points = dedupe([v for vs in why.values() for v in vs])
    return points, {k: [sympy.sstr(v) for v in dedupe(vs)] for k, vs in why.items() if vs}


def _ends(s: sympy.Set) -> list[sympy.Expr]:
    if isinstance(s, sympy.Interval):
        return [b for b in (s.start, s.end) if b.is_finite]
    if isinstance(s, sympy.FiniteSet):
        return list(s.args)
    if isinstance(s, sympy.Union | sympy.Complement | sympy.Intersection):
        return [v for part in s.args for v in _ends(part)]
    return []


def _symbolize(s: sympy.Set, pool: list[sympy.Expr], a: sympy.Symbol, t: sympy.Expr) -> sympy.Set:
    """Write the answer at a = t with the formulas in a that take its numbers' values there."""
    vals = []
    for p in pool:
        v = as_mp(p.xreplace({a: t}))
        if not isinstance(v, mpmath.mpc):
            vals.append((p, v))

    def match(e: sympy.Expr) -> sympy.Expr:
        if not e.is_finite:
            return e
        ev = as_mp(e)
        hits = [p for p, v in vals if abs(v - ev) < CLOSE * max(1, abs(ev))]
        if not hits:
            if not e.has(sympy.pi, sympy.E) and e.is_Rational and not any(p.has(a) for p in pool):
                return e
            raise unsupported(f"the answer's number {sympy.sstr(e)} is not one of the parameter's formulas")
        return min(hits, key=lambda p: (sympy.count_ops(p), sympy.sstr(p)))

    def go(part: sympy.Set) -> sympy.Set:
        if part is sympy.S.EmptySet or part is sympy.S.Reals:
            return part
        if isinstance(part, sympy.Interval):
            return sympy.Interval(match(part.start), match(part.end), part.left_open, part.right_open)
        if isinstance(part, sympy.FiniteSet):
            return sympy.FiniteSet(*[match(e) for e in part.args])
        if isinstance(part, sympy.Union | sympy.Complement | sympy.Intersection):
            return type(part)(*[go(p) for p in part.args], evaluate=False)
        raise unsupported(f"cannot write {type(part).__name__} in terms of the parameter")

    return go(s)


def _sub(e: sympy.Expr, a: sympy.Symbol, v: sympy.Expr) -> sympy.Expr:
    return e.xreplace({a: v})


def _group(pieces: list[tuple[str, Any, Any, str, sympy.Set]], a: sympy.Symbol) -> list[dict[str, Any]]:
    """Merge pieces ((kind, lo, hi, set text, set), in order) with the same answer into cases."""
    order = []
    by_text: dict[str, list[int]] = {}
    for i, p in enumerate(pieces):
        if p[3] not in by_text:
            order.append(p[3])
        by_text.setdefault(p[3], []).append(i)
    cases = []
    for text in order:
        idx = by_text[text]
        runs: list[list[int]] = [[idx[0]]]
        for i in idx[1:]:
            gap = range(runs[-1][-1] + 1, i)
            if any(pieces[j][0] == "cell" for j in gap):
                runs.append([i])
            else:
                runs[-1].append(i)
        for run in runs:
            first, last = pieces[run[0]], pieces[run[-1]]
            when: list[str] = []
            if first[0] == "point" and last[0] == "point" and run[0] == run[-1]:
                when = [f"{a} == {sympy.sstr(first[1])}"]
            else:
                if first[1] != -sympy.oo:
                    when.append(f"{a} {'>=' if first[0] == 'point' else '>'} {sympy.sstr(first[1])}")
                if last[2] != sympy.oo:
                    when.append(f"{a} {'<=' if last[0] == 'point' else '<'} {sympy.sstr(last[2])}")
                holes = [pieces[j][1] for j in range(run[0], run[-1] + 1) if j not in run]
                when += [f"{a} != {sympy.sstr(h)}" for h in holes]
            final = pieces[run[0]][4]
            cases.append({"when": when, "solution_set": text,
                          "solutions": [sympy.sstr(v) for v in sorted(final.args, key=_key)]
                          if isinstance(final, sympy.FiniteSet) or final is sympy.S.EmptySet else None,
                          "_set": final})
    return cases


def _adopt(pieces: list[tuple[str, Any, Any, str, sympy.Set]], pending: list[tuple[int, sympy.Set]],
           lhs: sympy.Expr, op: str, rhs: sympy.Expr, x: sympy.Symbol, a: sympy.Symbol, assume_x: list[Cond],
           rng: Any) -> None:
    """A critical value whose answer is a neighbouring cell's formula at that value joins that cell's
    case (a == -1 giving {0} next to {a + 1}), after the set check confirms the formula there."""
    for i, s_v in pending:
        v = pieces[i][1]
        for j in (i - 1, i + 1):
            if not (0 <= j < len(pieces)) or pieces[j][0] != "cell":
                continue
            sym = pieces[j][4]
            try:
                chk = check_set(lhs, op, rhs, x, sym, assume_x, rng, 20, env={a.name: as_mp(v)},
                                extra=points_of(s_v, {}))
            except (TypeError, ValueError):
                continue
            if chk.ok:
                pieces[i] = ("point", v, v, pieces[j][3], sym)
                break


def _key(v: sympy.Expr) -> str:
    return sympy.sstr(v)


def _start(trail: Trail, req: Request, lhs: sympy.Expr, op: str, rhs: sympy.Expr
           ) -> tuple[str, list[Cond], sympy.Expr]:
    """The relation's expression id, its domain and lhs - rhs (evaluated)."""
    e0 = trail.add_expr(relation(lhs, op, rhs), req.equation or "")
    try:
        d0 = trail.domain_of(e0)
    except Contradiction as exc:
        raise AbilityError("undefined_everywhere", f"equation: {exc}") from None
    return e0, d0, realify(evaluated(lhs - rhs))


def run_cases(req: Request, trail: Trail, lhs_s: sympy.Expr, op: str, rhs_s: sympy.Expr, x: sympy.Symbol,
              params: list[sympy.Symbol], solve_at: SolveAt) -> dict[str, Any]:
    """Solve for x with the other symbol as a parameter; the answer lists cases over it."""
    if len(params) > 1:
        return _linear_cases(trail, req, lhs_s, op, rhs_s, x, params)
    a = params[0]
    assume_a = [c for c in trail.assumptions if set(c.symbols()) <= {a.name}]
    if any(not (set(c.symbols()) <= {a.name} or set(c.symbols()) <= {x.name}) for c in trail.assumptions):
        raise unsupported("assumptions that tie the unknown to the parameter")
    e0, d0, f = _start(trail, req, lhs_s, op, rhs_s)
    pool, poly, squared = _formulas(f, x, d0)
    crit, why = _critical((lhs_s, rhs_s), op, x, a, pool, poly, squared, d0, assume_a)
    s1 = trail.add_step("PARAMETER_CRITICAL_VALUES", e0, sympy.FiniteSet(*crit) if crit else sympy.S.EmptySet,
                        note="; ".join(f"{k}: {', '.join(v)}" for k, v in why.items()) or "no critical value",
                        surface=f"{a} critical at {show_set(sympy.FiniteSet(*crit))}; formulas in {a}: "
                                f"{', '.join(sympy.sstr(p) for p in pool) or 'none'}", domain_obligations=False)
    trail.witness(s1)
    w = trail.add_witness(s1.step_id, "CAS", {"check": "critical values of the parameter (exact zeros)",
                                              "formulas": [sympy.sstr(p) for p in pool], "why": why},
                          f"{len(crit)} critical values", True)
    s1.witness_ids.append(w.wit_id)
    assume_x = [c for c in trail.assumptions if set(c.symbols()) <= {x.name}]
    pieces: list[tuple[str, Any, Any, str, sympy.Set]] = []
    pending: list[tuple[int, sympy.Set]] = []
    checks: list[dict[str, Any]] = []
    ends = [-sympy.oo, *crit, sympy.oo]
    rng = trail.rng("cases")
    for i, (lo, hi) in enumerate(zip(ends, ends[1:], strict=False)):
        t = between(lo, hi)
        if violated(assume_a, a, t, True) is None:
            s_t = solve_at(_sub(lhs_s, a, t), op, _sub(rhs_s, a, t))
            sym = _symbolize(s_t, pool, a, t)
            for tv in (t, between(lo, t), between(t, hi)):
                at = solve_at(_sub(lhs_s, a, tv), op, _sub(rhs_s, a, tv))
                env = {a.name: as_mp(tv)}
                chk = check_set(lhs_s, op, rhs_s, x, sym, assume_x, rng, 20, env=env,
                                extra=points_of(at, {}))
                checks.append({a.name: sympy.sstr(tv), "set": show_set(sym), **chk.payload()})
                if not chk.ok:
                    raise unsupported(f"the answer does not keep its form on {a} in ({sympy.sstr(lo)}, "
                                      f"{sympy.sstr(hi)}): refused rather than guessed")
            pieces.append(("cell", lo, hi, show_set(sym), sym))
        if i < len(crit):
            v = crit[i]
            if violated(assume_a, a, v, True) is None:
                s_v = solve_at(_sub(lhs_s, a, v), op, _sub(rhs_s, a, v))
                pieces.append(("point", v, v, show_set(s_v), s_v))
                pending.append((len(pieces) - 1, s_v))
    _adopt(pieces, pending, lhs_s, op, rhs_s, x, a, assume_x, rng)
    cases = _group(pieces, a)
    return _case_outputs(trail, e0, s1.output_expr_id, cases, checks, [a], x, op, d0,
                         f"{len(pieces)} pieces of the {a} line merged into {len(cases)} cases")


def _case_outputs(trail: Trail, e0: str, prev: str, cases: list[dict[str, Any]], checks: list[dict[str, Any]],
                  params: list[sympy.Symbol], x: sympy.Symbol, op: str, d0: list[Cond], note: str) -> dict[str, Any]:
    """The PARAMETER_CASES step, its set-check witness and the outputs (shared by both planners)."""
    names = ", ".join(p.name for p in params)
    sets = [c.pop("_set") for c in cases]
    surface = "; ".join(f"{' and '.join(c['when']) or 'always'}: {c['solution_set']}" for c in cases)
    s2 = trail.add_step("PARAMETER_CASES", prev, sympy.Tuple(*sets), surface=surface, note=note,
                        domain_obligations=False)
    trail.witness(s2)
    ok = all(not c["wrong"] and not c["error"] for c in checks)
    w = trail.add_witness(s2.step_id, "RandomTest", {"check": "each case's set against the relation at values of "
                                                              f"{names} (strict evaluation)", "rows": checks},
                          f"{len(checks)} parameter values checked", ok)
    s2.witness_ids.append(w.wit_id)
    conditions = reduce_conds(list(d0), True, keep=trail.assumptions)
    trail.final_conditions = conditions
    trail.final_sets = sets
    closing = f"Cases over {names}: {surface}"
    expl = report.explanation(trail, closing, [s2.step_id])
    out = base_outputs(trail, "solve")
    out.update({
        "result": surface,
        "solution_set": None,
        "cases": cases,
        "variable": x.name,
        "parameters": [p.name for p in params],
        "relation": op,
        "solutions": None,
        "rejected": [],
        "equivalence_mode": "piecewise",
        "conditions": [c.text for c in conditions],
        "explanation": expl,
        "invariants": report.audit(trail, [e0], None, conditions, "piecewise", expl, None),
        "latex": {"cases": [{"when": c["when"], "solution_set": sympy.latex(s)} for c, s in zip(cases, sets,
                                                                                                 strict=True)]},
        "graph": report.graph_summary(report.graph(trail)),
    })
    return out


_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}
_NOT = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "=": "!="}


def _half_line(root: sympy.Expr, op: str) -> sympy.Set:
    """{x : x OP root}."""
    if op in (">", ">="):
        return sympy.Interval(root, sympy.oo, op == ">", True)
    return sympy.Interval(-sympy.oo, root, True, op == "<")


def _linear_cases(trail: Trail, req: Request, lhs_s: sympy.Expr, op: str, rhs_s: sympy.Expr, x: sympy.Symbol,
                  params: list[sympy.Symbol]) -> dict[str, Any]:
    """Several parameters, a relation linear in x: A*x + B OP 0 split on the sign of A (and of B)."""
    if trail.assumptions:
        raise unsupported("assumptions together with several parameters")
    e0, d0, f = _start(trail, req, lhs_s, op, rhs_s)
    if d0 or has_radical(f, x) or has_fn(f, x, sympy.Abs, sympy.sign, sympy.log, sympy.exp, sympy.sin, sympy.cos,
                                         sympy.tan):
        raise unsupported(f"{len(params)} parameters: only relations linear in {x} without denominators, roots or "
                          "functions are split into cases")
    n = sympy.expand(f)
    if not n.is_polynomial(x) or sympy.degree(n, x) > 1:
        raise unsupported(f"{len(params)} parameters: the relation is not linear in {x}")
    a_, b_ = n.coeff(x, 1), n.coeff(x, 0)
    root = sympy.cancel(-b_ / a_) if a_ != 0 else None
    cases: list[dict[str, Any]] = []

    def case(when: list[str], s: sympy.Set) -> None:
        cases.append({"when": when, "solution_set": show_set(s),
                      "solutions": [sympy.sstr(v) for v in s.args] if isinstance(s, sympy.FiniteSet)
                      else ([] if s is sympy.S.EmptySet else None), "_set": s})

    def rel(e: sympy.Expr, o: str) -> str:
        if e.free_symbols and sympy.Poly(e, *sorted(e.free_symbols, key=lambda v: v.name)).LC() < 0:
            e, o = -e, _FLIP.get(o, o)  # -b == 0 reads b == 0; -b > 0 reads b < 0
        return f"{sympy.sstr(e)} {'==' if o == '=' else o} 0"

    try:
        a_vanishes = a_ == 0 or bool(canonical(a_, "!=", True))
    except Contradiction:
        a_vanishes = True

    if a_ != 0:
        if op == "=":
            try:
                nonzero = [c.text for c in canonical(a_, "!=", True)]
            except Contradiction:
                nonzero = None
            if nonzero is not None:
                case(nonzero, sympy.FiniteSet(root))
        else:
            for sign, o in ((">", op), ("<", _FLIP[op])):
                case([rel(a_, sign)], _half_line(root, o))
    zero = [rel(a_, "=")] if a_.free_symbols else []
    if a_vanishes:  # A = 0 is possible (not for a**2 + 1): then B alone decides
        if not b_.free_symbols:
            truth = {"=": b_ == 0, "<": b_ < 0, "<=": b_ <= 0, ">": b_ > 0, ">=": b_ >= 0}[op]
            case(zero, sympy.S.Reals if truth else sympy.S.EmptySet)
        else:
            case([*zero, rel(b_, op)], sympy.S.Reals)
            case([*zero, rel(b_, _NOT[op])], sympy.S.EmptySet)
    s1 = trail.add_step("PARAMETER_CRITICAL_VALUES", e0, sympy.FiniteSet(a_, b_),
                        note=f"linear in {x}: A = {sympy.sstr(a_)}, B = {sympy.sstr(b_)}; cases on the sign of A "
                             "(and of B where A = 0)",
                        surface=f"A*{x} + B {op} 0 with A = {sympy.sstr(a_)}, B = {sympy.sstr(b_)}",
                        domain_obligations=False)
    trail.witness(s1)
    w = trail.add_witness(s1.step_id, "CAS", {"check": "coefficients of the unknown (exact expansion)",
                                              "A": sympy.sstr(a_), "B": sympy.sstr(b_)}, "A and B read off", True)
    s1.witness_ids.append(w.wit_id)
    checks = _check_cases(trail, lhs_s, op, rhs_s, x, params, cases)
    return _case_outputs(trail, e0, s1.output_expr_id, cases, checks, params, x, op, d0,
                         f"{len(cases)} cases over {', '.join(p.name for p in params)}")


def _check_cases(trail: Trail, lhs: sympy.Expr, op: str, rhs: sympy.Expr, x: sympy.Symbol,
                 params: list[sympy.Symbol], cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """At parameter points (every combination of -2, 0, 1, 3/2, then seeded ones) exactly one case
    holds and its set is right there; otherwise the answer is refused."""
    rng = trail.rng("cases")
    grid = [sympy.Integer(-2), sympy.Integer(0), sympy.Integer(1), sympy.Rational(3, 2)]
    points = [dict(zip(params, combo, strict=True)) for combo in itertools.product(grid, repeat=len(params))]
    points += [{p: sympy.Rational(rng.randint(-60, 60), 7) for p in params} for _ in range(6)]
    whens = [[parse_relation(t) for t in c["when"]] for c in cases]
    checks: list[dict[str, Any]] = []
    for pt in points[:80]:
        env = {p.name: as_mp(v) for p, v in pt.items()}
        holding = [i for i, w in enumerate(whens)
                   if all(holds(evaluated(l_), "=" if o == "==" else o, evaluated(r_), env) for l_, o, r_ in w)]
        if len(holding) != 1:
            raise unsupported(f"{len(holding)} cases hold at {pt}: refused rather than guessed")
        chk = check_set(lhs, op, rhs, x, cases[holding[0]]["_set"], [], rng, 20, env=env)
        checks.append({**{p.name: sympy.sstr(v) for p, v in pt.items()}, "case": holding[0], **chk.payload()})
        if not chk.ok:
            raise unsupported(f"case {holding[0]} fails the set check at {pt}: refused rather than guessed")
    return checks
