"""The cda core end to end in-process (LocalContext): search, verification, gating, escalation."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from abilities.base import AbilityError, PartialResult
from abilities.cda import escalation, rca
from abilities.cda.ability import CdaAbility
from abilities.cda.engine import search_params
from abilities.cda.ken import KenError, load_tenant_graph
from abilities.cda.local import LocalContext
from abilities.cda.models import CDAInputs
from abilities.cda.scoring import information_gain

GRAPH = json.loads((Path(__file__).parent / "data" / "cda" / "checkout.json").read_text())


def _span(i: int, text: str) -> dict[str, Any]:
    return {"doc_id": "alerts-1", "start": 80 * i, "end": 80 * i + 40, "excerpt": text}


ALERTS = [
    {"entity": "entity:payments", "predicate": "alert", "timestamp": 1000, "source": _span(0, "payments 5xx")},
    {"entity": "entity:checkout", "predicate": "alert", "timestamp": 1040, "source": _span(1, "checkout errors")},
    {"entity": "entity:web", "predicate": "alert", "timestamp": 1090, "source": _span(2, "web latency")},
]


def _run(inputs: dict[str, Any], ctx: LocalContext | None = None) -> tuple[Any, LocalContext]:
    ctx = ctx or LocalContext(seed=b"\x01" * 32)
    model = CDAInputs.model_validate({"problem": "Why are checkout alerts firing?", "ken": {"graph": GRAPH},
                                      **inputs})
    return CdaAbility().run(ctx, model), ctx


def test_finds_the_deploy_with_citations_checkpoints_and_artifacts() -> None:
    out, ctx = _run({"observations": ALERTS})
    top = out.verdicts[0]
    assert top.hypothesis_id == "hyp:ev.deploy-payments"
    assert top.status == "supported" and top.confidence >= 0.6
    kinds = [k for e, k, _ in ctx.events if e == "checkpoint"]
    assert kinds[0] == "boundary_summary" and kinds[-1] == "boundary_summary"
    assert {"verifier_update", "plan_delta", "context_delta"} <= set(kinds)
    assert ctx.checkpoints("boundary_summary")[0]["stage"] == "draft"
    summary = ctx.artifacts[out.summary_artifact_id][1]
    assert summary["decisions"][0]["hypothesis_id"] == top.hypothesis_id
    assert summary["residual_uncertainty"]["citation_coverage"] == 1.0
    m = summary["metrics"]
    assert m["rounds"] == len(m["frontier_size"]) >= 1 and m["ken_queries"] == len(
        [k for k, _ in ctx.receipts if k == "ken_query"])
    assert ctx.checkpoints("boundary_summary")[-1]["metrics"] == m
    evidence = ctx.artifacts[out.evidence_bundle_id][1]
    cited = [c for c in evidence["citations"] if c["hypothesis_id"] == top.hypothesis_id]
    assert {c["entity"] for c in cited} == {"entity:payments", "entity:checkout", "entity:web"}
    assert all(c["spans"] and c["ken_path"][0] == "event:deploy-payments" for c in cited)
    plan = ctx.artifacts[out.plan_bundle_id][1]
    assert set(plan["files"]) == {"hypotheses.json", "constraints.json", "plan_graph.json", "verifiers.json",
                                  "receipts/"}
    # boundary only: internal candidate tables live in the trace, never in artifacts or checkpoints
    assert ctx.traces and "candidates" in ctx.traces[0]
    public = json.dumps([ctx.artifacts[a][1] for a in ctx.artifacts]) + json.dumps(ctx.events)
    assert '"llr"' not in public and '"candidates"' not in public
    kq = [p for k, p in ctx.receipts if k == "ken_query"]
    assert kq and all({"op", "caps", "result_ids", "seed_fingerprint"} <= set(p) for p in kq)


def test_same_seed_same_bytes_and_seed_drives_search_params() -> None:
    a, ctx_a = _run({"observations": ALERTS})
    b, ctx_b = _run({"observations": ALERTS})
    assert a.model_dump_json() == b.model_dump_json()
    assert json.dumps(ctx_a.artifacts, sort_keys=True) == json.dumps(ctx_b.artifacts, sort_keys=True)
    assert ctx_a.receipts == ctx_b.receipts
    params = {json.dumps(search_params(bytes([i]) * 32, "", None, False)) for i in range(16)}
    assert len(params) > 1
    assert search_params(b"\x05" * 32, "", 5.0, False)["beam_width"] < search_params(b"\x05" * 32, "", None, False)[
        "beam_width"]


def test_rca_beats_pagerank_on_small_graphs() -> None:
    cda1 = cda3 = pr1 = pr3 = 0
    for seed in range(16):
        p = rca.generate(60, seed)
        ctx = LocalContext(seed=seed.to_bytes(32, "big"))
        out = CdaAbility().run(ctx, CDAInputs.model_validate({
            "problem": "root cause?", "observations": p.observations, "ken": {"graph": p.graph}}))
        ranked = rca.ranked_services([v.model_dump() for v in out.verdicts], p.graph)
        base = rca.pagerank_rank(p)
        cda1 += ranked[:1] == [p.root]
        cda3 += p.root in ranked[:3]
        pr1 += base[:1] == [p.root]
        pr3 += p.root in base[:3]
    assert cda1 > pr1 and cda1 >= 8
    assert cda3 >= pr3


def test_contradictory_hard_constraints_fail_with_the_core() -> None:
    with pytest.raises(AbilityError) as info:
        _run({"observations": ALERTS, "constraints": {"hard": [
            "before(event:deploy-payments, event:config-db)", "value(metric:Cost) <= 5000"]}})
    assert info.value.reason == "contradictory_constraints"
    assert "hard[0]" in info.value.details["core"]
    assert info.value.details["kind"] == "constraints_contradict_evidence"
    with pytest.raises(AbilityError) as info:
        _run({"observations": ALERTS, "constraints": {"hard": ["xor(hyp:rc.db, hyp:rc.web)", "not(root_cause(entity:db))",
                                                                 "not(root_cause(entity:web))"]}})
    assert info.value.details["kind"] == "constraints_contradict_each_other"


def test_hard_constraints_prune_and_soft_clauses_penalise() -> None:
    out, ctx = _run({"observations": ALERTS,
                     "constraints": {"hard": ["not(root_cause(event:deploy-payments))"],
                                     "soft": [{"clause": "prefer(root_cause(entity:db))", "weight": 0.3}]}})
    by_id = {v.hypothesis_id: v for v in out.verdicts}
    assert by_id["hyp:ev.deploy-payments"].status == "refuted"
    assert out.verdicts[0].hypothesis_id == "hyp:rc.payments"
    z3_receipts = [p for k, p in ctx.receipts if k == "verifier" and p["op"] == "hypothesis_consistency"]
    assert any(not r["consistent"] for p in z3_receipts for r in p["results"])


def test_denied_egress_gives_a_conservative_summary_with_stubs() -> None:
    asked: list[tuple[str, dict[str, Any]]] = []

    def deny(kind: str, payload: dict[str, Any]) -> Any:
        asked.append((kind, payload))
        return {"decision": "deny"}

    ctx = LocalContext(seed=b"\x01" * 32, answer=deny)
    out, ctx = _run({"observations": ALERTS, "constraints": {"hard": ["value(metric:FxRate) <= 1.2"]}}, ctx)
    assert asked and asked[0][0] == "approval" and asked[0][1]["egress_class"] == "external"
    assert all(v.status != "supported" and v.confidence <= 0.59 for v in out.verdicts)
    assert any("conservative" in c for c in out.caveats)
    summary = ctx.artifacts[out.summary_artifact_id][1]
    assert summary["confidence_bands"]["top"] != "high"  # the band follows the capped confidence
    assert [p["top_band"] for p in ctx.checkpoints("verifier_update") if "top_band" in p][-1] != "high"
    stubs = [p for k, p in ctx.receipts if k == "receipt_stub"]
    assert any(s["reason"] == "egress_denied" and s["missing"] == ["metric:FxRate"] for s in stubs)
    assert ctx.artifacts[out.evidence_bundle_id][1]["receipt_stubs"]
    assert any("withheld" in t.question for t in out.next_tests)

    granted, gctx = _run({"observations": ALERTS, "constraints": {"hard": ["value(metric:FxRate) <= 1.2"]}},
                         LocalContext(seed=b"\x01" * 32, answer=lambda k, p: True))
    assert granted.verdicts[0].status == "supported"
    assert any(k == "egress" and p["approved"] for k, p in gctx.receipts)


def test_pii_posture_gates_predicates_over_personal_data() -> None:
    clause = "exists path(entity:customer-42 ->related_to-> entity:checkout within 1 hops)"
    out, ctx = _run({"observations": ALERTS, "constraints": {"hard": [clause]}})
    assert any(p["reason"] == "pii_posture_on" for k, p in ctx.receipts if k == "receipt_stub")
    assert not any(k == "ken_query" and "customer-42" in json.dumps(p) for k, p in ctx.receipts)
    out, ctx = _run({"observations": ALERTS, "constraints": {"hard": [clause]}, "policies": {"pii_posture": "off"}})
    assert any(k == "ken_query" and p["op"] == "path" and p["result_ids"] == ["entity:customer-42", "entity:checkout"]
               for k, p in ctx.receipts)
    consent = LocalContext(seed=b"\x01" * 32, answer=lambda k, p: "granted")
    _run({"observations": ALERTS, "constraints": {"hard": [clause]}, "policies": {"pii_posture": "consent"}}, consent)
    assert consent.asks[0][0] == "consent"
    assert any(k == "pii_consent" for k, _ in consent.receipts)


def test_ambiguous_conflicting_observations_give_bands_and_next_tests() -> None:
    obs = [
        {"entity": "entity:checkout", "predicate": "alert", "timestamp": 1040, "source": _span(0, "checkout errors")},
        {"entity": "entity:checkout", "predicate": "ok", "value": True, "timestamp": 1041,
         "source": _span(1, "checkout healthy")},
        {"entity": "entity:web", "predicate": "alert", "timestamp": 1090, "source": _span(2, "web slow")},
    ]
    out, ctx = _run({"observations": obs})
    assert all(v.status != "supported" for v in out.verdicts)
    assert out.next_tests and out.next_tests[0].expected_discriminative_power > 0
    powers = [t.expected_discriminative_power for t in out.next_tests]
    assert powers == sorted(powers, reverse=True)
    summary = ctx.artifacts[out.summary_artifact_id][1]
    assert summary["residual_uncertainty"]["conflicting_reports"] == 1
    assert summary["confidence_bands"]["top"] in ("low", "medium")
    kinds = [k for e, k, _ in ctx.events if e == "checkpoint"]
    assert kinds.count("verifier_update") >= 1 and kinds.count("plan_delta") >= 1
    esc = [p for k, p in ctx.receipts if k == "escalation"][0]
    assert "contradictions" in esc["signals"]


def test_escalation_policy_and_reserve() -> None:
    assert escalation.decide({"high_doubt": True}, "low", 100).escalate is False
    e = escalation.decide({"high_doubt": True, "policy_risk": True}, "low", 100)
    assert e.escalate and e.reserve_s == 20.0
    assert escalation.decide({}, "hard", 300).reserve_s == 60.0
    assert not escalation.can_proceed(escalation.decide({}, "hard", 10.0), 9.0)


def test_hard_risk_with_too_little_wall_is_a_terminal_partial() -> None:
    ctx = LocalContext(seed=b"\x01" * 32, wall_s=10.0)
    with pytest.raises(PartialResult) as info:
        _run({"observations": ALERTS, "risk_class": "hard"}, ctx)
    assert info.value.reason == "escalation_budget_reserve"
    outs = info.value.outputs
    assert outs["incomplete"] is True and outs["next_tests"] and outs["summary_artifact_id"]
    assert any("reserved" in c for c in outs["caveats"])
    assert ctx.checkpoints("boundary_summary")[-1]["stage"] == "partial"


def test_budget_stop_mid_search_is_partial_with_saved_outputs() -> None:
    ctx = LocalContext(seed=b"\x01" * 32)
    ctx.stop = True
    p = rca.generate(200, 3)
    with pytest.raises(PartialResult) as info:
        CdaAbility().run(ctx, CDAInputs.model_validate({"problem": "rc", "observations": p.observations,
                                                        "ken": {"graph": p.graph}}))
    assert info.value.reason == "budget_exhausted"
    assert info.value.outputs["incomplete"] and info.value.outputs["verdicts"]
    assert ctx.partial is not None and ctx.partial["incomplete"]


def test_sub_checks_degrade_to_stubs_without_an_orchestrator() -> None:
    out, ctx = _run({"observations": ALERTS, "constraints": {"hard": ["value(metric:Budget) >= 5000"]}})
    subs = [p for k, p in ctx.receipts if k == "receipt_stub" and p["reason"].startswith("sub_action_")]
    assert subs and subs[0]["ability"] == "mathlas"
    assert out.verdicts[0].status == "supported"


def test_legacy_work_unit_id_is_kept_in_receipts() -> None:
    out, ctx = _run({"observations": ALERTS, "work_unit_id": "wu-77"})
    assert all(p["legacy"]["aliases"] == [{"work_unit_id": "wu-77", "action_id": "act_local"}] for _, p in ctx.receipts)


def test_span_observations_link_through_ken_search_and_artifacts_are_stubbed() -> None:
    obs = [{"doc_id": "ticket-9", "start": 0, "end": 30, "excerpt": "payments service throws errors"},
           {"artifact_id": "art_unknown"}]
    out, ctx = _run({"observations": obs})
    assert any(k == "ken_query" and p["op"] == "search" and p["result_ids"][0] == "entity:payments"
               for k, p in ctx.receipts)
    assert any(p["reason"] == "artifact_content_unavailable_to_worker" for k, p in ctx.receipts if k == "receipt_stub")
    assert out.verdicts


def test_information_gain() -> None:
    assert information_gain([0.5, 0.5], [1.0, 0.0]) == pytest.approx(1.0)
    assert information_gain([0.5, 0.5], [0.5, 0.5]) == pytest.approx(0.0)


def test_tenant_graph_files(tmp_path: Path) -> None:
    d = tmp_path / "ken" / "acme"
    d.mkdir(parents=True)
    (d / "shop.json").write_text(json.dumps(GRAPH))
    ken = load_tenant_graph("acme", "shop", base=tmp_path)
    assert "entity:checkout" in ken
    with pytest.raises(KenError):
        load_tenant_graph("acme", "../etc", base=tmp_path)
    with pytest.raises(KenError):
        load_tenant_graph("globex", "shop", base=tmp_path)


def test_prove_and_disprove_goals_are_checked_against_the_top_hypothesis() -> None:
    out, ctx = _run({"observations": ALERTS,
                     "goals": {"kind": "prove", "success_criteria": ["holds(fault(entity:payments))"]}})
    goal = [v for v in out.verdicts if v.hypothesis_id == "goal:criterion[0]"][0]
    assert goal.status == "supported"
    plan = ctx.artifacts[out.plan_bundle_id][1]
    assert plan["files"]["plan_graph.json"]["converged"] == "success_criteria_met"
    out, _ = _run({"observations": ALERTS,
                   "goals": {"kind": "disprove", "success_criteria": ["holds(fault(entity:payments))"]}})
    assert [v for v in out.verdicts if v.hypothesis_id == "goal:criterion[0]"][0].status == "refuted"
    out, _ = _run({"observations": ALERTS, "goals": {"kind": "prove", "success_criteria": ["holds(fault(entity:db))"]}})
    assert [v for v in out.verdicts if v.hypothesis_id == "goal:criterion[0]"][0].status == "refuted"


def test_exported_json_schemas_match_the_models() -> None:
    from abilities.cda import schema

    for name, text in schema.render().items():
        assert (schema.DIR / name).read_text() == text, f"run python -m abilities.cda.schema ({name} is stale)"
    inputs = json.loads(schema.render()["cda_inputs.schema.json"])
    assert {"problem", "observations", "goals", "constraints", "policies", "budgets", "risk_class", "seed"} <= set(
        inputs["properties"])
    assert inputs["additionalProperties"] is False


def test_structure_revision_reuses_bound_sub_action_outputs_by_shape() -> None:
    deps = {"act_b": {"kind": "bind", "revision": 3, "outputs": {"evidence": 2}},
            "act_a": {"kind": "bind", "revision": 2, "outputs": {"tool": "verify_numeric",
                                                                  "result": {"verdict": "VERIFIED"}}}}
    ctx = LocalContext(seed=b"\x01" * 32, dependencies=deps, revision=2)
    out, ctx = _run({"observations": ALERTS, "constraints": {"hard": ["value(metric:Budget) >= 5000"]}}, ctx)
    subs = [p for k, p in ctx.receipts if k == "sub_action"]
    assert subs == [{**subs[0], "ability": "mathlas", "child_action_id": "act_a", "revision": 2, "reused": True,
                     "result": "pass"}]
    bound = sorted((p["dependency_id"], p["revision"]) for k, p in ctx.receipts if k == "bound_dependency")
    assert bound == [("act_a", 2), ("act_b", 3)]


def test_clauses_naming_a_root_cause_seed_that_candidate() -> None:
    out, _ = _run({"observations": ALERTS, "constraints": {"hard": ["holds(root_cause(entity:db))"]}})
    by_id = {v.hypothesis_id: v.status for v in out.verdicts}
    assert out.verdicts[0].hypothesis_id == "hyp:rc.db"
    assert by_id["hyp:ev.deploy-payments"] == "refuted" and by_id["hyp:rc.payments"] == "refuted"
    out, _ = _run({"observations": ALERTS, "constraints": {"hard": ["xor(entity:db, entity:inventory)"]}})
    assert {v.hypothesis_id for v in out.verdicts if v.status != "refuted"} == {"hyp:rc.db", "hyp:rc.inventory"}


def test_many_clauses_stay_within_a_small_wall_budget() -> None:
    p = rca.generate(300, 3)
    ents = sorted({o["entity"] for o in p.observations})
    soft = [{"clause": f"prefer(root_cause({e}))", "weight": 0.1} for e in (ents * 10)[:64]]
    hard = [f"within({a}, 2h of {b})" for a, b in zip(ents, ents[1:], strict=False)][:60]
    ctx = LocalContext(seed=b"\x02" * 32, wall_s=1.5)
    t0 = time.perf_counter()
    try:
        out = CdaAbility().run(ctx, CDAInputs.model_validate({
            "problem": "rc", "observations": p.observations, "ken": {"graph": p.graph},
            "constraints": {"hard": hard, "soft": soft}}))
        assert out.verdicts
    except PartialResult as partial:
        assert partial.outputs["incomplete"] is True
    assert time.perf_counter() - t0 < 6.0
