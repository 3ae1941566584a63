"""The cda spec's §10 metrics, reported through the plugin interface (``ctx.metric``); the server
exports them as ``metis_ability_cda_<name>``. Values are per run segment (a run resumed by replay
after an approval reports again). Ratios (verifier pass rate, partial ratio) are counters to divide
in PromQL, so they aggregate correctly across workers and servers."""

from __future__ import annotations

import time
from typing import Any

METRICS = (
    ("runs", "counter", "cda runs (segments) reported"),
    ("partial_runs", "counter", "cda runs ending partial; partial ratio = partial_runs / runs"),
    ("frontier_size", "histogram", "hypotheses scored in a run (the search frontier)"),
    ("constraints_satisfied", "counter", "hard clauses entailed by the evidence"),
    ("constraints_violated", "counter", "hard clauses violated by the evidence"),
    ("verifier_checks", "counter", "z3 hypothesis consistency checks"),
    ("verifier_passes", "counter", "z3 checks that found the hypothesis consistent; pass rate = passes / checks"),
    ("citation_coverage", "histogram", "share of a leading hypothesis' explained anomalies with a cited Ken path"),
    ("ken_query_seconds", "histogram", "Ken path query latency"),
    ("time_to_first_summary_seconds", "histogram", "run start to the first boundary summary (draft)"),
)


def timed_ken(ctx: Any, ken: Any) -> Any:
    """``ken`` with its path queries timed (reported by ``report``)."""
    path = ken.path
    ken.query_seconds = []

    def timed_path(*args: Any, **kwargs: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return path(*args, **kwargs)
        finally:
            ken.query_seconds.append(time.perf_counter() - t0)

    ken.path = timed_path
    return ken


def report(ctx: Any, run: Any, partial: bool) -> None:
    """One run's figures (never fails the run)."""
    try:
        ctx.metric("runs", 1)
        if partial:
            ctx.metric("partial_runs", 1)
        ctx.metric("frontier_size", len(run.scored))
        states = [s.get("status") for s in run.clause_states]
        ctx.metric("constraints_satisfied", states.count("entailed"))
        ctx.metric("constraints_violated", states.count("violated"))
        results = [r for rec in run.verifier_log if rec.get("op") == "hypothesis_consistency"
                   for r in rec.get("results", [])]
        ctx.metric("verifier_checks", len(results))
        ctx.metric("verifier_passes", sum(1 for r in results if r.get("consistent")))
        from abilities.cda.engine import _coverage

        for hid in run.beam[:3]:
            ctx.metric("citation_coverage", _coverage(run.scored[hid]))
        for seconds in getattr(run.ken, "query_seconds", []):
            ctx.metric("ken_query_seconds", seconds)
    except Exception:  # metrics are best effort: a run's outcome never depends on them
        return
