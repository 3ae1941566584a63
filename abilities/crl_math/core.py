"""The socket-free core: one function per goal, returning boundary-only outputs.

``run_problem(request, seed, hooks)`` is what the ability calls inside its worker; tests and
the benchmark call it directly with ``NullHooks``. All randomness derives from ``seed``.
"""

from __future__ import annotations

from typing import Any

import sympy

from abilities.base import AbilityError
from abilities.crl_math import numeric, report
from abilities.crl_math.check import run_check
from abilities.crl_math.domain import Cond, Contradiction, domain, satisfiable
from abilities.crl_math.parser import ParseError, evaluated, parse_expr_safe, realify
from abilities.crl_math.request import (
    Request,
    StoppedWithPartial,
    base_outputs,
    parse_assumptions,
    partial_outputs,
    save_partial,
)
from abilities.crl_math.simplify import SYMPY_ERRORS, Stopped, plan
from abilities.crl_math.solve import run_solve
from abilities.crl_math.trail import Hooks, Trail, show


def _parse(text: str, field_name: str, real: bool) -> sympy.Basic:
    try:
        return parse_expr_safe(text, complex_ok=not real)
    except ParseError as exc:
        raise AbilityError("invalid_expression", f"{field_name}: {exc}", {"field": field_name, "position": exc.pos}) from None


def _mode(result: sympy.Basic, conditions: list[Cond]) -> str:
    if result.has(sympy.Piecewise):
        return "piecewise"
    return "conditional" if conditions else "identical"


def run_simplify(req: Request, trail: Trail) -> dict[str, Any]:
    real = trail.real
    surface = _parse(req.expression or "", "expression", real)
    try:
        if trail.assumptions and not satisfiable([*trail.assumptions, *domain(surface, real)], real):
            raise AbilityError("undefined_under_assumptions",
                               "the expression is undefined at every point the assumptions allow")
        e0, final_id = plan(trail, surface, req.expression or "", partial=lambda cid: save_partial(trail, req, cid))
    except Stopped:
        raise StoppedWithPartial(partial_outputs(trail, req)) from None
    except Contradiction as exc:
        raise AbilityError("undefined_everywhere", f"expression: {exc}") from None
    trail.discharge(final_id)
    conditions = trail.conditions()
    trail.final_conditions = conditions
    final = evaluated(trail.exprs[final_id].expr)
    if real:
        final = realify(final)
    original = trail.exprs[e0].expr
    cmp = report.end_to_end(trail, original, final, conditions, max(10, min(50, 2 * req.tests_per_step)))
    last = trail.steps[-1]
    w = trail.add_witness(
        last.step_id,
        "RandomTest",
        {"check": "end to end: original vs result under the conditions", "a": show(original), "b": show(final),
         "conditions": [c.text for c in conditions], **cmp.payload()},
        f"end to end: {cmp.tested} points agree" if cmp.ok else "end to end: disagreement",
        cmp.ok,
    )
    last.witness_ids.append(w.wit_id)
    mode = _mode(final, conditions)
    closing = f"Result: {show(final)}"
    closing += f", valid where {', '.join(c.text for c in conditions)}" if conditions else ", valid wherever the input is defined"
    cites = sorted({o.origin_step_id for o in trail.required()}, key=lambda s: int(s[1:])) or [last.step_id]
    expl = report.explanation(trail, closing, cites)
    out = base_outputs(trail, "simplify")
    out.update(
        {
            "result": show(final),
            "equivalence_mode": mode,
            "conditions": [c.text for c in conditions],
            "explanation": expl,
            "invariants": report.audit(trail, [e0], final, conditions, mode, expl, cmp.ok),
            "latex": report.latex(final, conditions),
            "graph": report.graph_summary(report.graph(trail)),
        }
    )
    return out


def _printed(trail: Trail, out: dict[str, Any]) -> list[tuple[str, Any]]:
    """(text, object) pairs of the printed expressions and conditions, for the round-trip check."""
    items: list[tuple[str, Any]] = []
    for e in trail.exprs.values():
        if isinstance(e.expr, sympy.Expr) and e.surface == show(e.expr):
            items.append((e.surface, e.expr))
    for text, cond in zip(out["conditions"], trail.final_conditions, strict=False):
        items.append((text, cond))
    texts = [c["solution_set"] for c in out["cases"]] if out.get("cases") else [out.get("solution_set")]
    for text, s in zip(texts, trail.final_sets, strict=False):
        items.append((text, s))
    return items


def _dispatch(req: Request, trail: Trail) -> dict[str, Any]:
    if req.goal == "simplify":
        return run_simplify(req, trail)
    if req.goal == "solve":
        return run_solve(req, trail)
    if req.goal == "check":
        return run_check(req, trail)
    raise AbilityError("invalid_goal", f"unknown goal {req.goal!r}")


def run_problem(req: Request, seed: bytes, hooks: Hooks) -> dict[str, Any]:
    """Dispatch on the goal; raises AbilityError for clean failures, StoppedWithPartial on stop."""
    real = req.domain == "real"
    assumptions = parse_assumptions(req.assumptions, real)
    trail = Trail(hooks, seed, real, assumptions, list(req.assumptions), req.tests_per_step)
    try:
        out = _dispatch(req, trail)
    except Contradiction as exc:
        raise AbilityError("undefined_everywhere", str(exc)) from None
    except numeric.Unevaluable as exc:
        raise AbilityError("unsupported", f"a value needed for the answer cannot be judged numerically: {exc}") from None
    except SYMPY_ERRORS as exc:
        raise AbilityError("unsupported", f"sympy could not process this input: {type(exc).__name__}: {exc}") from None
    out["round_trip"] = report.round_trip(_printed(trail, out), real)
    hooks.checkpoint(
        "boundary_summary",
        {
            "goal": req.goal,
            "result": out.get("result"),
            "solutions": out.get("solutions"),
            "equivalence_mode": out["equivalence_mode"],
            "conditions": out["conditions"],
            "steps": len(out["steps"]),
            "invariants_ok": all(v["ok"] for v in out["invariants"].values()),
        },
    )
    return out
