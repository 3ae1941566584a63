"""cda escalates to the real `research` and `sandbox` abilities through the orchestrator (spec §4,
§7.1): bound sub-actions, `action_linked` events, receipts, and spec §12 scenario 2 end to end:
a re-put corpus re-runs the research action as a new revision, cda is offered the update, and
`actions.accept_update` re-runs cda on the new evidence."""

from __future__ import annotations

import asyncio
import copy
import json

from tests.support import ROOT, ToolBus, approved_reviewer, notices, replay_and_receipts

GRAPH = json.loads((ROOT / "tests/data/cda/checkout.json").read_text())
CHECK = {"code": "def pool_size(cores):\n    return cores * 2\n", "function": "pool_size",
         "tests": [{"name": "small", "args": [2], "expected": 8}, {"name": "large", "args": [8], "expected": 32}]}
NOTES = [
    {"doc_id": "ops-1", "title": "payments deploy", "text": "payments deploy 1.4.2 changed the connection pool. "
                                                           "Payments errors started right after it."},
    {"doc_id": "ops-2", "title": "db", "text": "The orders database config change was rolled out on Monday."},
    {"doc_id": "ops-3", "title": "checkout", "text": "Checkout depends on payments and inventory."},
]
INPUTS = {
    "problem": "Why are checkout alerts firing?",
    "observations": [{"entity": "entity:payments", "predicate": "alert", "timestamp": 1000},
                     {"entity": "entity:checkout", "predicate": "alert", "timestamp": 1040},
                     {"entity": "entity:web", "predicate": "alert", "timestamp": 1090}],
    "ken": {"dataset": "shop-esc"},
    "research": {"corpus": "ops-notes", "top_k": 2},
}


def graph_with_check() -> dict:
    g = copy.deepcopy(GRAPH)
    for n in g["nodes"]:
        if n["id"] == "event:deploy-payments":
            n["attrs"]["check"] = CHECK
    return g


async def receipts(server, action_id: str) -> list[dict]:
    async with ToolBus.connect(server, "reviewer") as rv:
        return (await approved_reviewer(server, rv, "reflect.receipts", {"action_id": action_id}))["receipts"]


async def wait_for(pred, timeout: float = 90.0):
    for _ in range(int(timeout / 0.1)):
        got = await pred()
        if got:
            return got
        await asyncio.sleep(0.1)
    raise AssertionError("condition not reached")


async def test_cda_spawns_research_and_sandbox_and_takes_a_revised_research_result(metis_server):
    async with ToolBus.connect(metis_server) as tb:
        await tb.call("datasets.put", {"kind": "ken", "name": "shop-esc", "content": graph_with_check()})
        await tb.call("datasets.put", {"kind": "corpus", "name": "ops-notes", "content": NOTES})
        view, events = await tb.run("cda", INPUTS, budgets={"wall_s": 120}, timeout=150)
        assert view["status"] == "completed", view.get("error")
        linked = [e["data"]["payload"] for e in events
                  if e["event"] == "action_linked" and e["data"]["action_id"] == view["action_id"]]
        children = {}
        for link in linked:
            child = await tb.call("actions.get", {"action_id": link["action_id"]})
            children[child["ability"]] = child
            assert link["edge"] == "bind" and child["parent_id"] == view["action_id"]
            assert child["status"] == "completed" and child["topic"] == view["topic"]
        assert set(children) == {"research", "sandbox"}
        assert children["sandbox"]["outputs"]["verdict"] == "failed"
        assert children["research"]["outputs"]["spans"][0]["doc_id"] == "ops-1"
        assert {e["kind"] for e in view["edges"]} == {"bind"}
        updates = [e["data"]["payload"] for e in events if e["data"].get("kind") == "verifier_update"
                   and e["data"]["payload"].get("stage") == "next_test"]
        assert {u["ability"] for u in updates} == {"research", "sandbox"}
        assert any("failed in the sandbox" in c for c in view["outputs"]["caveats"])
        recs = await receipts(metis_server, view["action_id"])
        decisions = [r["payload"] for r in recs if r["name"] == "escalation" and r["payload"].get("stage") == "next_test"]
        assert {d["ability"] for d in decisions if d["decision"] == "spawn"} == {"research", "sandbox"}
        subs = {r["payload"]["ability"]: r["payload"] for r in recs if r["name"] == "sub_action"
                and r["payload"]["ability"] in ("research", "sandbox")}
        assert subs["sandbox"]["result"] == "fail" and subs["research"]["result"] == "pass"
        assert subs["research"]["revision"] == 1 and subs["research"]["spans"][0]["doc_id"] == "ops-1"

        # scenario 2: a later revision of the evidence
        research = children["research"]
        newer = NOTES + [{"doc_id": "ops-9", "title": "payments rollback",
                          "text": "Payments errors stopped when payments deploy 1.4.2 was rolled back: "
                                  "the payments change in that deploy caused the payments errors."}]
        await tb.call("datasets.put", {"kind": "corpus", "name": "ops-notes", "content": newer})

        async def revised():
            r = await tb.call("actions.get", {"action_id": research["action_id"]})
            return r if r["revision"] == 2 and r["status"] == "completed" else None

        research2 = await revised() or await wait_for(revised)
        assert research2["outputs"]["corpus"]["version"] == 2
        assert research2["outputs"]["spans"][0]["doc_id"] == "ops-9"

        async def offered():
            return await notices(tb, view["topic"], view["action_id"], "update_available", 1.0)

        notes = await wait_for(offered, 30)
        assert notes[-1]["dependency_id"] == research["action_id"]
        assert (notes[-1]["revision"], notes[-1]["held_revision"]) == (2, 1)
        accepted = await tb.call("actions.accept_update", {"action_id": view["action_id"],
                                                           "dependency_id": research["action_id"]})
        assert accepted["revision"] == 2
        again = await tb.wait_status(view["action_id"], {"completed", "failed"}, timeout=120)
        assert again["status"] == "completed" and again["revision"] == 2, again.get("error")
    replay, recs = await replay_and_receipts(metis_server, view["action_id"])
    assert replay["identical"] is True  # the revision re-runs the same from its log: bound results, pinned Ken
    recs2 = recs["receipts"]
    bound = [r["payload"] for r in recs2 if r["name"] == "bound_dependency"
             and r["payload"]["dependency_id"] == research["action_id"]]
    assert bound and bound[-1]["revision"] == 2
    reused = [r["payload"] for r in recs2 if r["name"] == "sub_action" and r["payload"]["ability"] == "research"]
    assert reused[-1]["reused"] and reused[-1]["revision"] == 2 and reused[-1]["spans"][0]["doc_id"] == "ops-9"


async def test_a_small_budget_does_not_escalate(metis_server):
    async with ToolBus.connect(metis_server) as tb:
        await tb.call("datasets.put", {"kind": "ken", "name": "shop-esc", "content": graph_with_check()})
        await tb.call("datasets.put", {"kind": "corpus", "name": "ops-notes", "content": NOTES})
        view, events = await tb.run("cda", INPUTS, budgets={"wall_s": 8}, timeout=60)
    assert view["status"] in ("completed", "partial")
    assert not [e for e in events if e["event"] == "action_linked"]
    recs = await receipts(metis_server, view["action_id"])
    skipped = [r["payload"] for r in recs if r["name"] == "escalation" and r["payload"].get("stage") == "next_test"]
    assert skipped and all(s["decision"] == "skip" for s in skipped)
    worth = [s for s in skipped if s["expected_discriminative_power"] >= 0.05]
    assert worth and all("wall budget 8.0 s below" in s["reason"] for s in worth)
