"""cda reads every observation by a documented rule (abilities/cda/signals.py) or refuses it, naming
it: error-rate flags, latency metrics against thresholds or baselines, status values and anomaly
scores count as symptoms; nothing is silently dropped."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from abilities.cda import rca, signals
from abilities.cda.ability import CdaAbility
from abilities.cda.local import LocalContext
from abilities.cda.models import CDAInputs
from bench.cda_observations import mixed
from tests.support import expect_invalid, run_action


@pytest.mark.parametrize(("predicate", "value", "extra", "role", "rule"), [
    ("alert", True, {}, "symptom", "boolean_signal"),
    ("high_error_rate", True, {}, "symptom", "boolean_signal"),
    ("latency_spike", False, {}, "healthy", "boolean_signal"),
    ("healthy", False, {}, "symptom", "health_signal"),
    ("error_rate", 0.2, {"threshold": 0.05}, "symptom", "threshold:above"),
    ("error_rate", 0.01, {"threshold": 0.05}, "healthy", "threshold:above"),
    ("free_disk_gb", 2, {"threshold": 10, "direction": "below"}, "symptom", "threshold:below"),
    ("p99_latency_ms", 2300, {"baseline": 310}, "symptom", "baseline:above"),
    ("p99_latency_ms", 330, {"baseline": 310}, "healthy", "baseline:above"),
    ("throughput_rps", 40, {"baseline": 100, "direction": "below", "tolerance": 0.5}, "symptom", "baseline:below"),
    ("status", "degraded", {}, "symptom", "status"),
    ("db_status", "Operational", {}, "healthy", "status"),
    ("anomaly_score", 0.93, {}, "symptom", "anomaly_score"),
    ("anomaly_score", 0.1, {}, "healthy", "anomaly_score"),
    ("value", 1.3, {}, "fact", "constraint_fact"),
])
def test_documented_rules(predicate, value, extra, role, rule):
    reading = signals.read(predicate, value, **extra)
    assert (reading.role, reading.rule) == (role, rule)


@pytest.mark.parametrize(("obs", "needle"), [
    ({"predicate": "p99_latency_ms", "value": 2300}, "needs a 'threshold' or a 'baseline'"),
    ({"predicate": "status", "value": "purple"}, "is not a known status"),
    ({"predicate": "anomaly_score", "value": 7}, "must be a number in [0, 1]"),
    ({"predicate": "colour", "value": "red"}, "has no rule"),
    ({"predicate": "error_rate", "value": "high", "threshold": 0.05}, "needs a numeric value"),
])
def test_unreadable_observations_are_refused_naming_them(obs, needle):
    body = {"problem": "why?", "observations": [{"entity": "entity:a", "predicate": "alert"},
                                                {"entity": "entity:b", **obs}]}
    with pytest.raises(ValidationError) as info:
        CDAInputs.model_validate(body)
    assert "observations[1]" in str(info.value) and needle in str(info.value)


def test_a_predicate_a_constraint_uses_is_a_fact():
    CDAInputs.model_validate({"problem": "why?", "observations": [
        {"entity": "entity:a", "predicate": "deployed", "value": True}],
        "constraints": {"hard": ["not(deployed(entity:b))"]}})
    with pytest.raises(ValidationError):
        CDAInputs.model_validate({"problem": "why?", "observations": [
            {"entity": "entity:a", "predicate": "deployed", "value": True}]})


def test_mixed_forms_find_the_same_root_cause_as_plain_alerts():
    for seed in (7_005_000, 7_005_001, 7_005_002):
        p = rca.generate(50, seed)
        tops = []
        for obs in (p.observations, mixed(p.observations, p.graph)):
            inputs = CDAInputs.model_validate({"problem": "root cause?", "observations": obs,
                                               "ken": {"graph": p.graph}})
            ctx = LocalContext(seed=seed.to_bytes(32, "big"))
            out = CdaAbility().run(ctx, inputs)
            tops.append(rca.ranked_services([v.model_dump() for v in out.verdicts], p.graph)[:1])
            readings = [r for k, r in ctx.receipts if k == "observation_readings"][0]["readings"]
            assert len(readings) == len(obs)
        assert tops[0] == tops[1]


async def test_over_the_service_a_bare_metric_is_refused_and_a_status_counts(metis_server):
    await expect_invalid(metis_server, "cda", {"problem": "why is checkout slow?", "observations": [
        {"entity": "entity:checkout", "predicate": "p99_latency_ms", "value": 2300}]}, "observations[0]")
    view, _ = await run_action(metis_server, "cda", {
        "problem": "why is checkout slow?",
        "observations": [{"entity": "entity:checkout", "predicate": "status", "value": "degraded", "timestamp": 10},
                         {"entity": "entity:db", "predicate": "error_rate", "value": 0.4, "threshold": 0.05,
                          "timestamp": 5}],
        "ken": {"graph": {"nodes": [{"id": "entity:checkout"}, {"id": "entity:db"}],
                          "edges": [{"src": "entity:checkout", "dst": "entity:db", "type": "depends_on"}]}}})
    assert view["status"] == "completed", view.get("error")
    assert view["outputs"]["verdicts"]
