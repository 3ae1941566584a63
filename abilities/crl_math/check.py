"""Check mode: verify a client's derivation step by step (the client plays SDS-007's Planner).

For expression derivations a step ``A -> B`` (under the client's stated conditions and the
obligations so far) is accepted when, wherever A is defined, B is defined and equal. Points
where B is defined but A is not are fine: the domain condition is added as an obligation
(``added_by: verifier`` when the client forgot it). A step that changes values breaks I3 (I3b
when it turned sqrt(u^2) into u); one that loses definedness breaks I2; a new symbol breaks I1.

For equation derivations a step may keep or enlarge the solution set (squaring is allowed, its
extra candidates must be rejected by the end); a step that loses a root (dividing by a factor
that can vanish) breaks I2, and the last equation must have exactly the original's solutions.
"""

from __future__ import annotations

from typing import Any

import sympy

from abilities.base import AbilityError
from abilities.crl_math import cas, numeric, report
from abilities.crl_math.domain import Cond, Contradiction, from_relation, implies, reduce_conds
from abilities.crl_math.models import is_equation
from abilities.crl_math.parser import (
    ParseError,
    evaluated,
    parse_equation,
    parse_expr_safe,
    parse_relation,
    realify,
)
from abilities.crl_math.request import (
    Request,
    StoppedWithPartial,
    base_outputs,
    parse_assumptions,
    partial_outputs,
)
from abilities.crl_math.rules import CATALOG
from abilities.crl_math.solve import run_solve
from abilities.crl_math.trail import NullHooks, StepRec, Trail, show


def _parse_any(text: str, where: str, real: bool) -> sympy.Basic:
    try:
        if is_equation(text):
            lhs, rhs = parse_equation(text, complex_ok=not real)
            return sympy.Eq(lhs, rhs, evaluate=False)
        return parse_expr_safe(text, complex_ok=not real)
    except ParseError as exc:
        raise AbilityError("invalid_expression", f"{where}: {exc}", {"field": where, "position": exc.pos}) from None


def _stated(texts: list[str], where: str, real: bool) -> list[Cond]:
    out: list[Cond] = []
    for j, t in enumerate(texts):
        try:
            lhs, op, rhs = parse_relation(t, complex_ok=not real)
            out.extend(from_relation(lhs, op, rhs, real))
        except (ParseError, Contradiction, ValueError) as exc:
            raise AbilityError("invalid_condition", f"{where}.conditions[{j}]: {exc}") from None
    return out


def _looks_like_sqrt_square(a: sympy.Basic) -> bool:
    for p in sympy.preorder_traversal(a):
        if p.is_Pow and p.exp.is_Rational and not p.exp.is_Integer:
            b = p.base
            if (b.is_Pow and b.exp.is_Integer and b.exp % 2 == 0) or (
                b.is_Add and b.free_symbols and _is_square(b)
            ):
                return True
    return False


def _is_square(b: sympy.Expr) -> bool:
    syms = sorted(b.free_symbols, key=lambda s: s.name)
    try:
        if not b.is_polynomial(*syms):
            return False
        cas.guard(b, "factor")
        c, fs = sympy.factor_list(b)
    except (sympy.PolynomialError, AbilityError):
        return False
    return bool(fs) and c > 0 and all(m % 2 == 0 for _f, m in fs)


def _solutions(eq: sympy.Equality, var: str | None, real: bool, assumptions: list[str]) -> tuple[set[str], list[str]]:
    """Verified solutions of one equation (by the solve planner), as canonical numeric keys."""
    text = show(eq)
    req = Request(goal="solve", equation=text, variable=var, domain="real" if real else "complex",
                  assumptions=assumptions, tests_per_step=10)
    trail = Trail(NullHooks(), b"check-mode", real, parse_assumptions(assumptions, real), assumptions, 10)
    out = run_solve(req, trail)
    keys = {_num_key(s) for s in out["solutions"]}
    return keys, out["solutions"]


def _num_key(s: str) -> str:
    from abilities.crl_math.parser import parse_expr_safe as p

    try:
        v = complex(evaluated(p(s, complex_ok=True)).evalf(30))
        return f"{v.real:.12g},{v.imag:.12g}"
    except (ParseError, TypeError, ValueError):
        return s


def run_check(req: Request, trail: Trail) -> dict[str, Any]:
    real = trail.real
    start_text = req.expression or req.equation or ""
    start = _parse_any(start_text, "expression" if req.expression else "equation", real)
    equation_mode = isinstance(start, sympy.Equality)
    e0 = trail.add_expr(start if equation_mode else _real(evaluated(start), real), start_text)
    try:
        trail.domain_of(e0)
    except Contradiction as exc:
        raise AbilityError("undefined_everywhere", str(exc)) from None
    allowed = {s.name for s in start.free_symbols} | {n for c in trail.assumptions for n in c.symbols()}
    cur = e0
    renames: dict[sympy.Symbol, sympy.Symbol] = {}
    rejected_any = False
    base_sols: set[str] | None = None
    base_list: list[str] = []
    if equation_mode:
        base_sols, base_list = _solutions(start, req.variable, real, req.assumptions)
    for i, raw in enumerate(req.steps):
        if trail.hooks.should_stop():
            raise StoppedWithPartial(partial_outputs(trail, req))
        where = f"steps[{i}]"
        nxt = _parse_any(raw["expression"], f"{where}.expression", real)
        if isinstance(nxt, sympy.Equality) != equation_mode:
            raise AbilityError("invalid_step", f"{where}: mixes equations and expressions")
        stated = _stated(raw.get("conditions") or [], where, real)
        rule = raw.get("rule") or "CLIENT_STEP"
        before = {o.obl_id for o in trail.obligations}
        for c in stated:
            trail.add_obligation(c, f"S{len(trail.steps) + 1}", "stated", "stated by the client", "client")
        shown = nxt if equation_mode else _real(evaluated(nxt), real)
        try:
            step = trail.add_step(rule, cur, shown, note="" if rule in CATALOG else "rule not in the catalog",
                                  surface=raw["expression"])
        except Contradiction as exc:
            raise AbilityError("undefined_everywhere", f"{where}: {exc}") from None
        step.obligations_added = sorted(
            set(step.obligations_added) | ({o.obl_id for o in trail.obligations} - before), key=lambda s: int(s[1:])
        )
        for oid in step.obligations_added:
            o = next(o for o in trail.obligations if o.obl_id == oid)
            if o.added_by == "rule":
                o.added_by = "verifier" if not implies(stated, o.cond, real) else "client"
        new_syms = sorted({s.name for s in nxt.free_symbols} - allowed)
        prev = trail.exprs[step.input_expr_ids[0]].expr
        if new_syms:
            renamed = None if equation_mode else _alpha_rename(trail, step, prev, shown, new_syms)
            if renamed is None:
                trail.witness(step)
                _reject(step, "I1", f"new symbols {new_syms} appear: a variable was invented (or renamed unfaithfully)")
            else:
                allowed |= {renamed[1]}
                renames[sympy.Symbol(renamed[0])] = sympy.Symbol(renamed[1])
        elif equation_mode:
            _check_equation_step(trail, step, trail.exprs[step.input_expr_ids[0]].expr, nxt, req, base_sols,
                                 last=i == len(req.steps) - 1)
        else:
            _check_expression_step(trail, step, trail.exprs[step.input_expr_ids[0]].expr, shown, rule)
        rejected_any = rejected_any or step.status == "rejected"
        cur = step.output_expr_id
    originals = [e0]
    if renames:  # the audit compares against the original under the same alpha-renaming
        first = trail.exprs[e0].expr
        originals.append(trail.add_expr(first.xreplace(renames), f"{show(first.xreplace(renames))} (alpha-renamed input)"))
    trail.discharge(cur)
    conditions = reduce_conds([o.cond for o in trail.required()], real, keep=trail.assumptions)
    trail.final_conditions = conditions
    final = trail.exprs[cur].expr
    if rejected_any:
        mode = "not_equivalent"
    elif equation_mode:
        mode = "conditional" if conditions else "identical"
    else:
        mode = "piecewise" if final.has(sympy.Piecewise) else ("conditional" if conditions else "identical")
    bad = [s.step_id for s in trail.steps if s.status == "rejected"]
    closing = "The derivation is " + ("rejected at " + ", ".join(bad) if bad else "accepted")
    if conditions and not bad:
        closing += f" under {', '.join(c.text for c in conditions)}"
    expl = report.explanation(trail, closing, bad or [trail.steps[-1].step_id])
    out = base_outputs(trail, "check")
    out.update(
        {
            "result": show(final),
            "equivalence_mode": mode,
            "conditions": [c.text for c in conditions],
            "explanation": expl,
            "invariants": report.audit(trail, originals[-1:], None if equation_mode else final, conditions, mode, expl, None),
            "latex": report.latex(None if equation_mode else final, conditions),
            "graph": report.graph_summary(report.graph(trail)),
            "verdicts": [{"step_id": s.step_id, "status": s.status, "violation": s.violation} for s in trail.steps],
        }
    )
    if equation_mode:
        out["solutions"] = base_list
    return out


def _real(e: sympy.Basic, real: bool) -> sympy.Basic:
    return realify(e) if real else e


def _capture(a: sympy.Basic, b: sympy.Basic, conds: list[Cond], trail: Trail) -> tuple[str, str] | None:
    """A non-equivalent step that becomes equivalent when one variable is identified with another."""
    syms = sorted(a.free_symbols, key=lambda s: s.name)
    for u in syms:
        for v in syms:
            if u == v or u in b.free_symbols:
                continue
            cmp = numeric.compare(a.xreplace({u: v}), b, [], trail.rng(f"capture/{u}/{v}"), 12, trail.real)
            if cmp.ok and cmp.equal >= 6:
                return u.name, v.name
    return None


def _reject(step: StepRec, invariant: str, detail: str) -> None:
    step.status = "rejected"
    step.violation = {"invariant": invariant, "detail": detail}


def _alpha_rename(
    trail: Trail, step: StepRec, a: sympy.Basic, b: sympy.Basic, new_syms: list[str]
) -> tuple[str, str] | None:
    """Accept ``x -> t`` when it is a faithful bijective renaming (I1 allows alpha-renaming).

    The obligations in force are carried over to the new name; the old ones are discharged.
    """
    gone = sorted({s.name for s in a.free_symbols} - {s.name for s in b.free_symbols})
    if len(new_syms) != 1 or len(gone) != 1:
        return None
    old, new = sympy.Symbol(gone[0]), sympy.Symbol(new_syms[0])
    conds = [*trail.conditions_in_force()]
    renamed_conds = [Cond(c.expr.xreplace({old: new}), c.op, c.lhs.xreplace({old: new}), c.rel,
                          c.rhs.xreplace({old: new})) for c in conds]
    cmp = numeric.compare(a.xreplace({old: new}), b, renamed_conds, trail.rng(f"rename/{step.step_id}"), 30, trail.real)
    payload = {"check": "alpha-renaming", "from": old.name, "to": new.name, **cmp.payload()}
    w = trail.add_witness(step.step_id, "RandomTest", payload, f"renaming {old} -> {new}", cmp.ok)
    step.witness_ids.append(w.wit_id)
    if not cmp.ok:
        return None
    for o in list(trail.required()):
        if old.name in o.cond.symbols():
            o.status, o.note = "discharged", f"renamed to {new} at {step.step_id}"
            rc = Cond(o.cond.expr.xreplace({old: new}), o.cond.op, o.cond.lhs.xreplace({old: new}), o.cond.rel,
                      o.cond.rhs.xreplace({old: new}))
            trail.add_obligation(rc, step.step_id, o.kind, f"{o.cond.text} renamed", "verifier")
    step.note = f"alpha-renaming {old} -> {new}"
    return old.name, new.name


def _check_expression_step(trail: Trail, step: StepRec, a: sympy.Basic, b: sympy.Basic, rule: str) -> None:
    conds = trail.conditions_in_force()
    cmp = numeric.compare(a, b, conds, trail.rng(f"check/{step.step_id}"), 30, trail.real)
    trail.witness(step)
    verdict = cas.cas_equivalent(a, b, conds, trail.real)
    if cmp.differ or verdict == "refuted":
        at = cmp.differ[0] if cmp.differ else {}
        capture = _capture(a, b, conds, trail)
        if capture:
            _reject(step, "I1", f"variable capture: {capture[0]} was replaced by the existing {capture[1]}")
        elif _looks_like_sqrt_square(a) and not b.has(sympy.Abs) and not b.has(sympy.Piecewise):
            _reject(step, "I3b", f"sqrt(u^2) was rewritten as u without the condition u >= 0 (differs at {at})")
        else:
            _reject(step, "I3", f"the output is not equal to the input (at {at})")
    elif cmp.only_a:
        _reject(step, "I2", f"the output is undefined where the input is defined (e.g. at {cmp.only_a[0]}): "
                            "state the side-condition this rule needs")
    elif cmp.tested == 0:
        _reject(step, "I4", "no admissible test point: the stated conditions exclude everything")


def _check_equation_step(
    trail: Trail, step: StepRec, a: sympy.Equality, b: sympy.Equality, req: Request, base: set[str] | None, last: bool
) -> None:
    trail.witness(step)
    try:
        sa, la = _solutions(a, req.variable, trail.real, req.assumptions)
        sb, lb = _solutions(b, req.variable, trail.real, req.assumptions)
    except AbilityError as exc:
        _reject(step, "I4", f"could not solve to compare: {exc.message}")
        return
    lost = sorted(sa - sb)
    extra = sorted(sb - sa)
    payload = {"check": "solution sets of input and output equations", "input": show(a), "output": show(b),
               "input_solutions": la, "output_solutions": lb}
    w = trail.add_witness(step.step_id, "CAS", payload, f"lost {len(lost)}, gained {len(extra)}", not lost)
    step.witness_ids.append(w.wit_id)
    if lost:
        names = [s for s in la if _num_key(s) in lost]
        _reject(step, "I2", f"the step loses the root(s) {names}: dividing by an expression that can be zero "
                            "needs the obligation that it is non-zero and a separate case for its roots")
    elif last and base is not None and sb != base:
        names = [s for s in lb if _num_key(s) not in base]
        _reject(step, "I2", f"the final equation admits {names}, which fail(s) the original equation (extraneous)")
