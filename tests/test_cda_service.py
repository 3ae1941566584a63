"""cda over the real service: ToolBus start -> events -> outputs, the §12 QA scenarios, bad input."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import pytest
import websockets

from tests.support import (
    RpcFailure,
    ToolBus,
    approved_reviewer,
    expect_invalid,
    replay_and_receipts,
    run_action,
    sse_read,
)

GRAPH = json.loads((Path(__file__).parent / "data" / "cda" / "checkout.json").read_text())


def _span(i: int, text: str) -> dict[str, Any]:
    return {"doc_id": "alerts-1", "start": 80 * i, "end": 80 * i + 40, "excerpt": text}


ALERTS = [
    {"entity": "entity:payments", "predicate": "alert", "timestamp": 1000, "source": _span(0, "payments 5xx")},
    {"entity": "entity:checkout", "predicate": "alert", "timestamp": 1040, "source": _span(1, "checkout errors")},
    {"entity": "entity:web", "predicate": "alert", "timestamp": 1090, "source": _span(2, "web latency")},
]


def _inputs(**extra: Any) -> dict[str, Any]:
    return {"problem": "Why are checkout alerts firing?", "observations": ALERTS, "ken": {"graph": GRAPH}, **extra}




async def test_rca_over_the_toolbus_streams_checkpoints_and_artifacts(metis_server):
    view, events = await run_action(metis_server, "cda", _inputs(constraints={
        "hard": ["value(metric:Cost) <= 5000"], "soft": [{"clause": "prefer(before(event:config-db, entity:web))"}]}))
    assert view["status"] == "completed", view.get("error")
    out = view["outputs"]
    assert out["verdicts"][0] == {"hypothesis_id": "hyp:ev.deploy-payments", "status": "supported",
                                  "confidence": out["verdicts"][0]["confidence"]}
    assert out["display"]["primary"] == {"kind": "summary", "id_ref": "summary_artifact_id"}
    kinds = [e["data"]["kind"] for e in events if e["event"] == "action_checkpoint"]
    assert kinds[0] == "boundary_summary" and kinds[-1] == "boundary_summary"
    assert {"verifier_update", "plan_delta", "context_delta"} <= set(kinds)
    async with ToolBus.connect(metis_server) as tb:
        summary = await tb.call("artifacts.get", {"artifact_id": out["summary_artifact_id"]})
        plan = await tb.call("artifacts.get", {"artifact_id": out["plan_bundle_id"]})
        ev = await tb.call("artifacts.get", {"artifact_id": out["evidence_bundle_id"]})
    content = summary["content"] if isinstance(summary["content"], dict) else json.loads(summary["content"])
    assert content["decisions"][0]["hypothesis_id"] == "hyp:ev.deploy-payments"
    assert content["residual_uncertainty"]["citation_coverage"] == 1.0
    assert plan["kind"] == "cda_plan" and ev["kind"] == "cda_evidence"
    # boundary only
    assert '"llr"' not in json.dumps([e["data"] for e in events]) + json.dumps(out)


async def test_no_public_cda_namespace(metis_server):
    async with ToolBus.connect(metis_server) as tb:
        with pytest.raises(RpcFailure) as err:
            await tb.call("cda.run", {"problem": "x"})
    assert err.value.code == -32601


async def test_same_seed_same_outputs_receipts_and_replay(metis_server):
    a, _ = await run_action(metis_server, "cda", _inputs(work_unit_id="wu-9"), seed={"purpose": "cda-det"})
    b, _ = await run_action(metis_server, "cda", _inputs(work_unit_id="wu-9"), seed={"purpose": "cda-det"})
    assert a["status"] == b["status"] == "completed"
    assert json.dumps(a["outputs"], sort_keys=True) == json.dumps(b["outputs"], sort_keys=True)
    replay, receipts = await replay_and_receipts(metis_server, a["action_id"])
    async with ToolBus.connect(metis_server, "reviewer") as rv:
        trace = await approved_reviewer(metis_server, rv, "reflect.trace", {"action_id": a["action_id"]})
    assert replay["identical"] is True
    text = json.dumps(receipts)
    assert "ken_query" in text and "seed_fingerprint" in text and "wu-9" in text
    assert "candidates" in json.dumps(trace)


@pytest.mark.parametrize(("inputs", "needle"), [
    (_inputs(constraints={"hard": ["before(event:X event:Y)"]}), "line 1, column 16"),
    (_inputs(constraints={"soft": [{"clause": "prefer(root_cause(entity:db)"}]}), "unexpected end of clause"),
    (_inputs(constraints={"hard": ["holds(alert(server:x))"]}), "unknown node type 'server'"),
    (_inputs(ken={"graph": {"nodes": [{"id": "person:bob"}], "edges": []}}), "unknown node type"),
    (_inputs(goals={"kind": "guess"}), "kind"),
    (_inputs(surprise=1), "surprise"),
])
async def test_bad_input_is_refused_naming_the_field(metis_server, inputs, needle):
    await expect_invalid(metis_server, "cda", inputs, needle)


async def test_a_million_edge_graph_is_refused_quickly(metis_server):
    """Over the ToolBus a huge inline graph never reaches cda: the frame is refused (too large)."""
    edges = [{"src": "entity:a", "dst": "entity:b", "type": "r"}] * 1_000_000
    msg = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "actions.start",
                      "params": {"ability": "cda", "inputs": _inputs(ken={"graph": {"nodes": [], "edges": edges}})}})
    t0 = time.monotonic()
    async with ToolBus.connect(metis_server) as tb:
        try:
            await tb.send_raw(msg)
        except websockets.ConnectionClosedError as exc:  # the server may refuse the frame mid-send
            assert exc.rcvd is not None and exc.rcvd.code == 1009
        while tb.ws.close_code is None and not tb.unsolicited and time.monotonic() - t0 < 30:
            await asyncio.sleep(0.05)
        if tb.unsolicited:
            assert tb.unsolicited[0]["error"]["code"] == -32013
        else:
            assert tb.ws.close_code == 1009  # message too big
    assert time.monotonic() - t0 < 30
    mid = [{"src": f"entity:s{i}", "dst": f"entity:s{i + 1}", "type": "depends_on"} for i in range(30_000)]
    async with ToolBus.connect(metis_server) as tb:
        await tb.send_raw(json.dumps({"jsonrpc": "2.0", "id": 7, "method": "actions.start", "params": {
            "ability": "cda", "inputs": _inputs(ken={"graph": {"nodes": [], "edges": mid}})}}))
        reply = await tb.next_unsolicited(timeout=20)
        assert reply["error"]["code"] == -32013
        assert (await tb.call("session.whoami"))["tenant"] == "acme"


async def test_contradictory_hard_constraints_fail_cleanly(metis_server):
    view, events = await run_action(metis_server, "cda", _inputs(constraints={"hard": [
        "before(event:a, event:b)", "before(event:b, event:a)"]}))
    assert view["status"] == "failed"
    assert view["error"]["reason"] == "contradictory_constraints"
    assert "hard[0]" in view["error"]["message"] and "hard[1]" in view["error"]["message"]


async def test_qa1_ambiguous_claim(metis_server):
    obs = [ALERTS[1], {"entity": "entity:checkout", "predicate": "ok", "value": True, "timestamp": 1041,
                       "source": _span(3, "checkout healthy")}, ALERTS[2]]
    view, events = await run_action(metis_server, "cda", _inputs(observations=obs))
    assert view["status"] == "completed"
    kinds = [e["data"]["kind"] for e in events if e["event"] == "action_checkpoint"]
    first_verifier, first_plan = kinds.index("verifier_update"), kinds.index("plan_delta")
    assert first_verifier < first_plan
    final = [e for e in events if e["event"] == "action_checkpoint" and e["data"]["kind"] == "boundary_summary"][-1]
    assert final["data"]["payload"]["confidence_bands"]["top"] in ("low", "medium")
    out = view["outputs"]
    assert all(v["status"] != "supported" for v in out["verdicts"])
    assert out["next_tests"][0]["expected_discriminative_power"] > 0


async def test_qa2_bind_bump_gives_a_structure_revision_with_updated_receipts(metis_server):
    async with ToolBus.connect(metis_server) as tb:
        producer = await tb.start("t_publish", {"revisions": 2, "hold_s": 2.5})
        consumer = await tb.start("cda", _inputs(), topic="cda-bind-" + producer["action_id"],
                                  edges=[{"kind": "bind", "action_id": producer["action_id"]}])
        first = await tb.wait_status(consumer["action_id"], {"completed", "failed"})
        assert first["status"] == "completed", first.get("error")
        _, evs = await sse_read(metis_server, consumer["topic"],
                                until=lambda e: e["data"].get("kind") == "update_available")
        assert evs[-1]["data"]["payload"]["dependency_id"] == producer["action_id"]
        view = await tb.call("actions.accept_update", {"action_id": consumer["action_id"],
                                                       "dependency_id": producer["action_id"]})
        assert view["revision"] == 2
        second = await tb.wait_status(consumer["action_id"], {"completed", "failed"})
        assert second["status"] == "completed" and second["revision"] == 2
    _, evs = await sse_read(metis_server, consumer["topic"], until=lambda e: e["event"] == "action_completed"
                            and e["data"]["revision"] == 2)
    assert any(e["data"].get("kind") == "structure_revision" for e in evs)
    async with ToolBus.connect(metis_server, "reviewer") as rv:
        receipts = await approved_reviewer(metis_server, rv, "reflect.receipts", {"action_id": consumer["action_id"]})
    deps = [r for r in _records(receipts) if r.get("name") == "bound_dependency" or
            (isinstance(r.get("payload"), dict) and r["payload"].get("dependency_id") == producer["action_id"])]
    revs = sorted({(r.get("payload") or {}).get("revision") for r in deps} - {None})
    assert revs == [1, 2]


def _records(receipts: Any) -> list[dict[str, Any]]:
    if isinstance(receipts, dict):
        for key in ("receipts", "records", "items"):
            if isinstance(receipts.get(key), list):
                return receipts[key]
    return receipts if isinstance(receipts, list) else []


async def test_qa3_denied_egress_gives_a_conservative_summary(metis_server):
    async with ToolBus.connect(metis_server) as tb, ToolBus.connect(metis_server, "approver") as apr:
        started = await tb.start("cda", _inputs(constraints={"hard": ["value(metric:FxRate) <= 1.2"]}))
        await tb.wait_status(started["action_id"], {"waiting_user"})
        pending = []
        for _ in range(100):
            pending = [a for a in (await apr.call("approvals.list"))["approvals"]
                       if a.get("action_id") == started["action_id"] and a["status"] == "pending"]
            if pending:
                break
            await asyncio.sleep(0.05)
        assert pending
        await apr.call("approvals.deny", {"approval_id": pending[0]["approval_id"], "note": "no external calls"})
        view = await tb.wait_status(started["action_id"], {"completed", "failed", "partial"})
        ev = await tb.call("artifacts.get", {"artifact_id": view["outputs"]["evidence_bundle_id"]})
    assert view["status"] == "completed"
    out = view["outputs"]
    assert all(v["status"] != "supported" for v in out["verdicts"])
    assert any("conservative" in c for c in out["caveats"])
    content = ev["content"] if isinstance(ev["content"], dict) else json.loads(ev["content"])
    assert any(s["reason"] == "egress_denied" for s in content["receipt_stubs"])


async def test_qa4_budget_reserve_exhausted_is_a_terminal_partial(metis_server):
    view, events = await run_action(metis_server, "cda", _inputs(risk_class="hard"), budgets={"wall_s": 10})
    assert view["status"] == "partial"
    out = view["outputs"]
    assert out["incomplete"] is True and out["next_tests"]
    assert any("reserved" in c for c in out["caveats"])
    assert events[-1]["event"] == "action_partial"


async def test_qa5_cursor_resume_is_consistent(metis_server):
    view, events = await run_action(metis_server, "cda", _inputs())
    topic = events[0]["data"]["topic"]
    ids = [e["id"] for e in events if e["data"]["action_id"] == view["action_id"]]
    _, full = await sse_read(metis_server, topic, last_event_id=ids[0] - 1,
                             until=lambda e: e["event"] == "action_completed" and e["data"]["action_id"] == view["action_id"])
    mid = ids[len(ids) // 2]
    headers, resumed = await sse_read(metis_server, topic, last_event_id=mid,
                                      until=lambda e: e["event"] == "action_completed" and e["data"]["action_id"] == view["action_id"])
    assert [e["id"] for e in resumed] == [e["id"] for e in full if e["id"] > mid]
    assert headers.get("metis-resumed-after") == str(mid)


async def test_crl_math_sub_action_is_bound(metis_server):
    graph = json.loads(json.dumps(GRAPH))
    graph["nodes"].append({"id": "metric:Area", "attrs": {"value": 9, "identity": "(a+b)**2 = a**2 + 2*a*b + b**2"}})
    view, events = await run_action(metis_server, "cda", _inputs(ken={"graph": graph},
                                                                 constraints={"hard": ["value(metric:Area) >= 0"]}))
    assert view["status"] == "completed", view.get("error")
    linked = [e for e in events if e["event"] == "action_linked"]
    assert linked and linked[0]["data"]["payload"]["edge"] == "bind"
    subs = [e for e in events if e["event"] == "action_checkpoint" and e["data"]["payload"].get("stage") == "sub_action"]
    assert subs and subs[0]["data"]["payload"]["ability"] == "crl_math"
    assert subs[0]["data"]["payload"]["result"] == "pass"


async def test_step_budget_breach_is_partial_with_provisional_verdicts(metis_server):
    from abilities.cda import rca

    p = rca.generate(300, 11)
    view, events = await run_action(metis_server, "cda", {"problem": "root cause?", "observations": p.observations,
                                                          "ken": {"graph": p.graph}}, budgets={"steps": 1})
    assert view["status"] == "partial"
    assert view["outputs"]["incomplete"] is True and view["outputs"]["verdicts"]
    assert any("partial" in c or "budget" in c for c in view["outputs"]["caveats"])


async def test_ken_dataset_from_the_tenant_data_dir(server_factory, tmp_path):
    data = tmp_path / "kdata"
    (data / "ken" / "acme").mkdir(parents=True)
    (data / "ken" / "acme" / "shop.json").write_text(json.dumps(GRAPH))
    server = server_factory(data)  # workers see the server data dir as METIS_DATA_DIR
    view, _ = await run_action(server, "cda", {"problem": "why?", "observations": ALERTS, "ken": {"dataset": "shop"}})
    assert view["status"] == "completed", view.get("error")
    assert view["outputs"]["verdicts"][0]["hypothesis_id"] == "hyp:ev.deploy-payments"
    other, _ = await run_action(server, "cda", {"problem": "why?", "observations": ALERTS, "ken": {"dataset": "shop"}},
                                tenant="globex")
    assert other["status"] == "failed" and other["error"]["reason"] == "unknown_dataset"


async def test_mathlas_and_scu_guard_sub_actions_are_bound(metis_server):
    obs = [*ALERTS, {"doc_id": "policy-7", "start": 0, "end": 60,
                     "excerpt": "Payments traffic must only use approved providers; raw card data never leaves."}]
    view, events = await run_action(metis_server, "cda", _inputs(observations=obs, constraints={
        "hard": ["value(metric:Budget) >= 5000"]}))
    assert view["status"] == "completed", view.get("error")
    subs = {e["data"]["payload"]["ability"]: e["data"]["payload"] for e in events
            if e["event"] == "action_checkpoint" and e["data"]["payload"].get("stage") == "sub_action"}
    assert subs["mathlas"] == {"stage": "sub_action", "ability": "mathlas", "clause": "hard[0]",
                               "result": "pass", "stub": False}
    assert subs["scu_guard"]["stub"] is False and subs["scu_guard"]["result"] in ("pass", "fail", "unknown")
    linked = [e["data"]["payload"] for e in events if e["event"] == "action_linked"]
    assert len(linked) == 2 and all(x["edge"] == "bind" for x in linked)
