"""cda's spec §10 metrics through the plugin interface (``ctx.metric``), in-process with the local
context: each figure is checked against what the run itself recorded in its receipts."""

from __future__ import annotations

import json
from pathlib import Path

from abilities.cda.ability import CdaAbility
from abilities.cda.local import LocalContext
from abilities.cda.models import CDAInputs

GRAPH = json.loads((Path(__file__).parent / "data" / "cda" / "checkout.json").read_text())
ALERTS = [
    {"entity": "entity:payments", "predicate": "alert", "timestamp": 1000},
    {"entity": "entity:checkout", "predicate": "alert", "timestamp": 1040},
    {"entity": "entity:web", "predicate": "alert", "timestamp": 1090},
]


def test_cda_reports_its_section_10_metrics_matching_its_receipts():
    ctx = LocalContext(seed=b"\x01" * 32)
    inputs = CDAInputs.model_validate({
        "problem": "Why are checkout alerts firing?", "ken": {"graph": GRAPH}, "observations": ALERTS,
        "constraints": {"hard": ["not(root_cause(event:deploy-payments))"]}})
    out = CdaAbility().run(ctx, inputs)
    m = ctx.metrics
    declared = {name for name, _, _ in CdaAbility.metrics}
    assert set(m) <= declared and m["runs"] == [1] and "partial_runs" not in m
    assert m["time_to_first_summary_seconds"][0] > 0
    assert m["frontier_size"][0] >= len(out.verdicts) >= 1
    checks = [r for k, p in ctx.receipts if k == "verifier" and p["op"] == "hypothesis_consistency"
              for r in p["results"]]
    assert m["verifier_checks"] == [len(checks)] and checks
    assert m["verifier_passes"] == [sum(1 for r in checks if r["consistent"])]
    assert m["verifier_passes"][0] < len(checks)  # the hard clause refutes the deploy hypothesis
    states = [s["status"] for k, p in ctx.receipts if k == "verifier" and p["op"] == "satisfiability"
              for s in p["clauses"]]
    assert m["constraints_satisfied"] == [states.count("entailed")]
    assert m["constraints_violated"] == [states.count("violated")]
    assert m["citation_coverage"] and all(0.0 <= c <= 1.0 for c in m["citation_coverage"])
    assert len(m["ken_query_seconds"]) >= 1 and all(s >= 0 for s in m["ken_query_seconds"])
