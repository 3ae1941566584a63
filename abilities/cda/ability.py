"""The thin ability wrapper: resolve Ken for the tenant, run the core, map failures cleanly."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from abilities import datasets
from abilities.base import Ability, AbilityError, PartialResult
from abilities.cda import metrics as cda_metrics
from abilities.cda import signals
from abilities.cda.models import CDAInputs, CDAOutputs, InlineObservation

if TYPE_CHECKING:  # the engine and Ken (z3, networkx) load in the worker, on the first run
    from abilities.cda.ken import Ken


def resolve_ken(ctx: Any, inputs: CDAInputs) -> Ken:
    """Inline graph, a dataset of the tenant (``datasets.put``), or both (inline added on top).
    The dataset version read is pinned for this revision and named in a ``dataset_read`` receipt."""
    from abilities.cda.ken import Ken, load_dataset_graph

    src = inputs.ken
    data: dict[str, Any] = {"nodes": [], "edges": []}
    if src is not None and src.dataset:
        base, read = load_dataset_graph(ctx.tenant, src.dataset, src.version, pin=datasets.pin_of(ctx))
        ctx.receipt("dataset_read", {**read, "refresh": "manual", "purpose": "ken"})
        if src.graph is None:
            return base
        data["nodes"] = [{"id": n, "attrs": a} for n, a in base.g.nodes(data=True)]
        data["edges"] = [{"src": u, "dst": v, "type": k, "attrs": {x: y for x, y in a.items() if x != "type"}}
                         for u, v, k, a in base.g.edges(keys=True, data=True)]
    if src is not None and src.graph is not None:
        data["nodes"] += [n.model_dump() for n in src.graph.nodes]
        data["edges"] += [e.model_dump() for e in src.graph.edges]
    return Ken.from_dict(data, max_edges=len(data["edges"]) + 1)


def early_draft(ctx: Any, inputs: CDAInputs) -> None:
    """The first boundary summary (TTFS), from the inline observations alone, before Ken loads."""
    from abilities.cda.engine import hyp_id_for

    first: dict[str, float] = {}
    preds = inputs.constraint_predicates()
    for o in inputs.observations:
        if isinstance(o, InlineObservation) and o.timestamp is not None and \
                signals.read_observation(o, preds).anomalous:
            first[o.entity] = min(first.get(o.entity, o.timestamp), o.timestamp)
    leading = [hyp_id_for(e) for e in sorted(first, key=lambda e: (first[e], e))[:3]]
    ctx.checkpoint("boundary_summary", {
        "stage": "draft", "observations": len(inputs.observations), "anomalies_reported": len(first),
        "leading_candidates": leading, "confidence_band": "low",
        "constraints": {"hard": len(inputs.constraints.hard or []), "soft": len(inputs.constraints.soft or [])},
        "note": "draft before evidence is verified; earliest anomalies first"})


class CdaAbility(Ability):
    """Constraint-Driven Abduction: best explanations under hard/soft constraints, with receipts."""

    name = "cda"
    version = "0.1.0"
    description = ("Constraint-Driven Abduction: bounded, seeded hypothesis search over observations and the "
                   "Ken graph under DSL constraints; verdicts with confidence, next-best tests, receipts.")
    Inputs = CDAInputs
    Outputs = CDAOutputs
    metrics = cda_metrics.METRICS  # spec §10 (abilities/cda/metrics.py)
    preload = ("abilities.cda.engine", "abilities.cda.ken")

    def constraints(self, inputs: CDAInputs) -> list[str] | None:
        """The hard clauses are the action's locked constraint set (service-wide lock and echo)."""
        return list(inputs.constraints.hard or []) or None

    def run(self, ctx: Any, inputs: CDAInputs) -> CDAOutputs:
        from abilities.cda.engine import CdaRun
        from abilities.cda.ken import KenError

        t0 = time.monotonic()
        early_draft(ctx, inputs)
        ctx.metric("time_to_first_summary_seconds", time.monotonic() - t0)
        try:
            ken = resolve_ken(ctx, inputs)
        except KenError as exc:
            raise AbilityError(exc.reason, exc.message) from None
        run = CdaRun(ctx, inputs, cda_metrics.timed_ken(ctx, ken))
        try:
            out = run.run()
        except KenError as exc:
            raise AbilityError(exc.reason, exc.message) from None
        except PartialResult:
            cda_metrics.report(ctx, run, partial=True)
            raise
        cda_metrics.report(ctx, run, partial=out.incomplete)
        return out
