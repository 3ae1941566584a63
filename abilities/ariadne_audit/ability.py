"""The ``ariadne_audit`` ability: a thin wrapper that wires the pure audit core to the context.

Checkpoints: ``plan_delta`` per item (step and intervention chosen, or why it was skipped),
``verifier_update`` per scored rerun, ``boundary_summary`` with the aggregates. Receipts:
``intervention`` and ``agent_rerun`` per item, ``http_egress`` per call to an HTTP agent.
Raw traces (the intervened trace and the agent's answer) go to ``ctx.trace`` only.
"""

from __future__ import annotations

import os
from typing import Any

import structlog

from abilities.ariadne_audit.agents import (
    AgentAnswerError,
    BuiltinAgent,
    ClientAgent,
    HttpAgent,
    sha256_json,
)
from abilities.ariadne_audit.audit import AuditConfig, AuditStopped, NotApplicable, Plan, aggregate, run_batch
from abilities.ariadne_audit.models import AriadneInputs, AriadneOutputs
from abilities.ariadne_audit.scoring import ScorerUnavailable, make_scorer
from abilities.base import Ability, AbilityError, ActionContext, BudgetExhausted, PartialResult

log = structlog.get_logger()

HTTP_URL_ENV = "METIS_ARIADNE_HTTP_URL"
HTTP_MODEL_ENV = "METIS_ARIADNE_HTTP_MODEL"
HTTP_KEY_ENV = "METIS_ARIADNE_HTTP_API_KEY"


class _ContextObserver:
    """Reports the audit's progress through the action context and keeps what is done."""

    def __init__(self, ctx: ActionContext, total: int, agent_label: str) -> None:
        self.ctx = ctx
        self.total = total
        self.agent_label = agent_label
        self.audits: list[dict[str, Any]] = []
        self.skipped_items: list[dict[str, Any]] = []

    def planned(self, plan: Plan) -> None:
        self.ctx.checkpoint("plan_delta", {"item": plan.item, "step": plan.step, "type": plan.type,
                                           "source": plan.source, "strength": plan.strength,
                                           **({"steps": plan.steps} if plan.more else {})})
        self.ctx.receipt("intervention", {
            "item": plan.item, "step": plan.step, "type": plan.type, "source": plan.source,
            "original_thought": plan.original_thought, "intervened_thought": plan.intervened_thought,
            "strength": plan.strength,
            **({"more": [{"step": m[0], "original_thought": m[1], "intervened_thought": m[2]} for m in plan.more]}
               if plan.more else {}),
        })

    def skipped(self, item: int, reason: str) -> None:
        self.skipped_items.append({"item": item, "reason": reason})
        self.ctx.checkpoint("plan_delta", {"item": item, "skipped": reason})

    def rerun_done(self, plan: Plan, trace: list[dict[str, Any]], answer: str) -> None:
        self.ctx.trace({"item": plan.item, "step": plan.step, "type": plan.type,
                        "intervened_trace": trace, "answer": answer})
        self.ctx.receipt("agent_rerun", {"item": plan.item, "agent": self.agent_label,
                                         "trace_sha256": sha256_json(trace), "answer": answer})

    def scored(self, audit: dict[str, Any]) -> None:
        self.audits.append(audit)
        self.ctx.checkpoint("verifier_update", {
            "item": audit["item"], "type": audit["type"], "metrics": audit["metrics"],
            "faithfulness": audit["faithfulness"], "violation": audit["violation"],
        })
        done = len(self.audits) + len(self.skipped_items)
        self.ctx.progress(done / self.total, f"{done}/{self.total} items audited")
        # Outputs grow with the batch: remember them every ~5% (not every item) so a frozen worker
        # still ends partial with recent audits without quadratic traffic.
        if done % max(1, self.total // 20) == 0:
            self.ctx.save_partial({"audits": self.audits,
                                   "aggregate": aggregate(self.audits, self.skipped_items)})
        self.ctx.use(steps=1)

    def should_stop(self) -> bool:
        return self.ctx.should_stop()


class AriadneAuditAbility(Ability):
    """Causal faithfulness audit of agent reasoning traces (Project Ariadne, deterministic)."""

    name = "ariadne_audit"
    version = "1.0.0"
    description = ("Intervenes on a step of an agent's reasoning trace (logic flip, fact reversal, premise "
                   "negation, causal reversal), reruns the agent from there and scores whether its answer "
                   "changed: an unchanged answer is a faithfulness violation.")
    Inputs = AriadneInputs
    Outputs = AriadneOutputs

    def _agent(self, ctx: ActionContext, inputs: AriadneInputs) -> tuple[Any, str]:
        spec = inputs.agent
        if spec.kind == "builtin":
            return BuiltinAgent(spec.name), f"builtin:{spec.name}"
        if spec.kind == "client":
            return ClientAgent(ctx.ask, spec.timeout_s), "client"
        url = os.environ.get(HTTP_URL_ENV, "").strip()
        if not url:
            raise AbilityError("http_agent_not_configured",
                               f"agent.kind 'http' is off: the operator has not set {HTTP_URL_ENV} "
                               "(an OpenAI-compatible base URL)")
        model = spec.model or os.environ.get(HTTP_MODEL_ENV, "").strip()
        if not model:
            raise AbilityError("http_agent_not_configured",
                               f"agent.model is missing and the operator has not set {HTTP_MODEL_ENV}")

        def egress(record: dict[str, Any]) -> None:
            ctx.receipt("http_egress", record)

        agent = HttpAgent(url, model, os.environ.get(HTTP_KEY_ENV) or None, spec.timeout_s,
                          ctx.rng("http_agent"), egress, spec.max_tokens)
        return agent, f"http:{model}"

    def run(self, ctx: ActionContext, inputs: AriadneInputs) -> dict[str, Any]:
        """Audit every item; partial with the audits so far on budget, cancel or agent timeout."""
        try:
            scorer = make_scorer(inputs.scorer.kind)
        except ScorerUnavailable as exc:
            raise AbilityError("scorer_unavailable", f"scorer.kind 'embedding': {exc}") from exc
        agent, label = self._agent(ctx, inputs)
        config = AuditConfig(inputs.intervention.type, inputs.intervention.step,
                             inputs.intervention.intervened_thought, inputs.threshold, inputs.min_length,
                             tuple(inputs.intervention.steps or ()), inputs.intervention.dependency_graph)
        items = [item.model_dump(mode="json", exclude_none=True) for item in inputs.items]
        observer = _ContextObserver(ctx, len(items), label)
        ctx.checkpoint("plan_delta", {"items": len(items), "intervention": inputs.intervention.type,
                                      "step": inputs.intervention.step, "agent": label,
                                      "scorer": scorer.name, "threshold": inputs.threshold,
                                      "min_length": inputs.min_length})
        try:
            result = run_batch(items, config, agent, scorer, ctx.rng("intervention"), observer)
        except NotApplicable as exc:
            raise AbilityError("intervention_not_applicable", str(exc),
                               {"item": exc.item, "step": exc.step, "type": exc.kind}) from exc
        except AgentAnswerError as exc:
            raise AbilityError("bad_agent_answer", str(exc)) from exc
        except AuditStopped as stop:
            raise PartialResult(self._finish(ctx, stop.outputs, label, scorer.name, partial=stop.reason),
                                stop.reason) from stop
        except BudgetExhausted as exc:
            outputs = {"audits": observer.audits, "aggregate": aggregate(observer.audits, observer.skipped_items)}
            raise PartialResult(self._finish(ctx, outputs, label, scorer.name, partial="budget_exhausted"),
                                "budget_exhausted") from exc
        return self._finish(ctx, result, label, scorer.name)

    def _finish(self, ctx: ActionContext, outputs: dict[str, Any], agent: str, scorer: str,
                partial: str | None = None) -> dict[str, Any]:
        agg = outputs["aggregate"]
        ctx.checkpoint("boundary_summary", {"agent": agent, "scorer": scorer, "partial": partial, **agg})
        summary = {
            "agent": agent, "scorer": scorer, "partial": partial, "aggregate": agg,
            "audits": [{k: a[k] for k in ("item", "step", "type", "strength", "faithfulness", "violation",
                                          "severity")} for a in outputs["audits"]],
            **({"dependencies": outputs["dependencies"]} if outputs.get("dependencies") is not None else {}),
        }
        artifact_id = ctx.artifact("ariadne_summary", summary)
        return {**outputs, "summary_artifact_id": artifact_id}
