"""What every goal shares: the validated request, clean stops with partial outputs, assumptions.

Kept in its own module so that the planners (simplify in ``core``, ``solve``, ``check``) import it
and ``core`` imports the planners, with no import cycle between them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import sympy

from abilities.base import AbilityError
from abilities.crl_math import report
from abilities.crl_math.domain import Cond, Contradiction, from_relation, reduce_conds, satisfiable
from abilities.crl_math.parser import ParseError, parse_relation
from abilities.crl_math.trail import StepRec, Trail, show


@dataclass
class Request:
    """Validated inputs (the ability's pydantic model converts to this)."""

    goal: str
    expression: str | None = None
    equation: str | None = None
    variable: str | None = None
    domain: str = "real"
    assumptions: list[str] = field(default_factory=list)
    steps: list[dict[str, Any]] = field(default_factory=list)
    tests_per_step: int = 20


class StoppedWithPartial(Exception):
    """Raised when the host asked to stop; carries the outputs built so far."""

    def __init__(self, outputs: dict[str, Any]) -> None:
        super().__init__("stopped")
        self.outputs = outputs


def parse_assumptions(texts: list[str], real: bool) -> list[Cond]:
    out: list[Cond] = []
    for i, t in enumerate(texts):
        try:
            lhs, op, rhs = parse_relation(t, complex_ok=not real)
            out.extend(from_relation(lhs, op, rhs, real))
        except ParseError as exc:
            raise AbilityError("invalid_assumption", f"assumptions[{i}]: {exc}", {"index": i}) from None
        except (Contradiction, ValueError) as exc:
            raise AbilityError("invalid_assumption", f"assumptions[{i}]: {exc}", {"index": i}) from None
    if not satisfiable(out, real):
        raise AbilityError("inconsistent_assumptions", "the assumptions exclude every point")
    return out


def base_outputs(trail: Trail, goal: str) -> dict[str, Any]:
    return {
        "goal": goal,
        "domain": "real" if trail.real else "complex",
        "expressions": [e.out() for e in trail.exprs.values()],
        "steps": [s.out(trail) for s in trail.steps],
        "obligations": [o.out() for o in trail.obligations],
        "witnesses": [w.out() for w in trail.witnesses],
    }


def partial_outputs(trail: Trail, req: Request) -> dict[str, Any]:
    out = base_outputs(trail, req.goal)
    if trail.steps:
        out["result"] = show(trail.exprs[trail.steps[-1].output_expr_id].expr)
    elif trail.exprs:
        out["result"] = show(next(iter(trail.exprs.values())).expr)
    # until the audit runs, the honest conditions are the input's whole domain plus what was dropped
    first = next(iter(trail.exprs)) if trail.exprs else None
    conds = [o.cond for o in trail.required()] + (trail.domain_of(first) if first else [])
    out["conditions"] = [c.text for c in reduce_conds(conds, trail.real, keep=trail.assumptions)]
    out["equivalence_mode"] = "conditional" if out["conditions"] else "identical"
    out["explanation"] = report.explanation(trail, "", [])
    out["invariants"] = {k: {"ok": False, "detail": "not audited: stopped early"} for k in ("I1", "I2", "I3", "I4", "I5")}
    return out


def save_partial(trail: Trail, req: Request, _cur_id: str) -> None:
    """Hand the outputs so far to the host (a frozen worker still ends partial with them)."""
    trail.hooks.save_partial(partial_outputs(trail, req))


class Chain:
    """The steps of one solve, recorded on the trail (stop requests honoured between steps)."""

    def __init__(self, trail: Trail, req: Request, start: str) -> None:
        self.trail, self.req, self.cur = trail, req, start
        self.steps: list[StepRec] = []

    def step(self, rule: str, new: sympy.Basic, note: str = "", surface: str | None = None,
             domain_obligations: bool = True) -> StepRec:
        if self.trail.hooks.should_stop():
            raise StoppedWithPartial(partial_outputs(self.trail, self.req))
        s = self.trail.add_step(rule, self.cur, new, note=note, surface=surface,
                                domain_obligations=domain_obligations)
        self.steps.append(s)
        self.cur = s.output_expr_id
        return s

    def record(self, rule: str, new: sympy.Basic, note: str, surface: str | None) -> None:
        self.step(rule, new, note, surface)
