"""Pair cda's raw confidences with the truth on generated RCA problems (calibration data).

Used by ``bench/cda_calibrate.py`` (fit), ``bench/cda_rca_bench.py`` (report) and the tests.
A verdict is "correct" when the service it blames (``rca.service_of``) is the injected root.
The raw confidence comes from the run's internal trace (stage ``verdicts``), so the same run
yields the identity ("before") and the calibrated ("after") figures.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from abilities.cda import rca
from abilities.cda.ability import CdaAbility
from abilities.cda.local import LocalContext
from abilities.cda.models import CDAInputs, CDAOutputs


@dataclass
class Samples:
    """Raw confidence, shipped confidence and 0/1 truth, for top verdicts and for all ranked verdicts."""

    top_raw: list[float] = field(default_factory=list)
    top_conf: list[float] = field(default_factory=list)
    top_y: list[int] = field(default_factory=list)
    all_raw: list[float] = field(default_factory=list)
    all_conf: list[float] = field(default_factory=list)
    all_y: list[int] = field(default_factory=list)


def raw_confidences(ctx: LocalContext) -> dict[str, float]:
    """The raw (uncalibrated) confidence per ranked hypothesis from the final ``verdicts`` trace."""
    for t in reversed(ctx.traces):
        if t.get("stage") == "verdicts":
            return {h: float(r) for h, r in t["raw_confidence"]}
    return {}


def add_run(s: Samples, p: rca.RcaProblem, ctx: LocalContext, out: CDAOutputs) -> None:
    """Append the run's ranked (non-refuted) verdicts, the first one per blamed service, to the samples.

    ``hyp:rc.X`` and ``hyp:ev.deploy-X`` both blame X; as in AC@k only the first counts, so a
    runner-up that repeats the top's service does not look like a second, independent hit.
    """
    raw = raw_confidences(ctx)
    first, seen = True, set()
    for v in out.verdicts:
        if v.status == "refuted" or v.hypothesis_id not in raw:
            continue
        svc = rca.service_of(v.hypothesis_id, p.graph)
        if svc in seen:
            continue
        seen.add(svc)
        y = int(svc == p.root)
        s.all_raw.append(raw[v.hypothesis_id])
        s.all_conf.append(v.confidence)
        s.all_y.append(y)
        if first:
            s.top_raw.append(raw[v.hypothesis_id])
            s.top_conf.append(v.confidence)
            s.top_y.append(y)
            first = False


def run_problem(p: rca.RcaProblem, seed: int) -> tuple[LocalContext, CDAOutputs]:
    """The full ability core in-process on one generated problem (no wall budget: deterministic)."""
    inputs = CDAInputs.model_validate({"problem": "Which service is the root cause of these alerts?",
                                       "observations": p.observations, "ken": {"graph": p.graph}})
    ctx = LocalContext(seed=seed.to_bytes(32, "big"))
    return ctx, CdaAbility().run(ctx, inputs)


def collect(plan: list[tuple[int, int]], base: int) -> Samples:
    """Samples over ``plan`` = [(services, problems)], seeds ``base + services*1000 + i``."""
    s = Samples()
    for n, k in plan:
        for i in range(k):
            seed = base + n * 1000 + i
            p = rca.generate(n, seed)
            ctx, out = run_problem(p, seed)
            add_run(s, p, ctx, out)
    return s


def figures(raw: list[float], conf: list[float], y: list[int]) -> dict[str, Any]:
    """ECE and Brier of identity (raw, rounded as the identity table would ship it) vs shipped."""
    from abilities.cda.calibration import brier, ece

    ident = [round(min(1.0, max(0.0, r)), 4) for r in raw]
    return {"n": len(y), "base_rate": round(sum(y) / len(y), 4) if y else None,
            "identity": {"ece": round(ece(ident, y), 4), "brier": round(brier(ident, y), 4)},
            "calibrated": {"ece": round(ece(conf, y), 4), "brier": round(brier(conf, y), 4)}}
