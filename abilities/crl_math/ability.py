"""The thin ability wrapper: validated inputs in, the core's outputs out, hooks to the context."""

from __future__ import annotations

from typing import Any, ClassVar

from abilities.base import Ability, ActionContext, PartialResult
from abilities.crl_math.models import Inputs, Outputs


class CrlMathAbility(Ability):
    """Simplify, solve or check algebra so that no side-condition is ever lost (SDS-007)."""

    name: ClassVar[str] = "crl_math"
    version: ClassVar[str] = "0.1.0"
    description: ClassVar[str] = (
        "Algebra with tracked side-conditions: simplify / solve / check a derivation; every unsafe "
        "step emits an obligation, every step carries witnesses (CAS + seeded numeric tests)."
    )
    Inputs: ClassVar[type[Inputs]] = Inputs
    Outputs: ClassVar[type[Outputs]] = Outputs
    preload: ClassVar[tuple[str, ...]] = ("abilities.crl_math.core", "abilities.crl_math.request")

    def run(self, ctx: ActionContext, inputs: Any) -> dict[str, Any]:
        from abilities.crl_math.core import run_problem  # the CAS core: in the worker only
        from abilities.crl_math.request import Request, StoppedWithPartial

        data = inputs if isinstance(inputs, Inputs) else Inputs.model_validate(inputs)
        req = Request(
            goal=data.goal,
            expression=data.expression,
            equation=data.equation,
            variable=data.variable,
            domain=data.domain,
            assumptions=list(data.assumptions),
            steps=[s.model_dump() for s in data.steps or []],
            tests_per_step=data.tests_per_step,
        )
        ctx.progress(0.0, f"crl_math {data.goal}")
        try:
            out = run_problem(req, ctx.seed, ctx)
        except StoppedWithPartial as stop:
            raise PartialResult(stop.outputs, "budget_exhausted") from None
        ctx.progress(1.0, "done")
        return out
