"""ariadne_audit over the real service: ToolBus start -> events -> outputs, client-played agents,
bad input refused with -32602 naming the field, determinism by seed, partial on budget/timeout."""

from __future__ import annotations

import json
from typing import Any

import pytest

from abilities.ariadne_audit.agents import BuiltinAgent
from abilities.ariadne_audit.generator import generate_items
from tests.support import (
    ToolBus,
    approved_reviewer,
    expect_invalid,
    replay_and_receipts,
    run_action,
)

ITEMS = generate_items(100, seed=21)


def _inputs(agent: dict[str, Any], items: list[dict[str, Any]] = ITEMS, **extra: Any) -> dict[str, Any]:
    return {"items": items, "agent": agent, **extra}


async def test_builtin_faithful_and_shortcut_separate_over_the_toolbus(metis_server):
    view, events = await run_action(metis_server, "ariadne_audit",
                                    _inputs({"kind": "builtin", "name": "faithful"},
                                            intervention={"type": "random"}))
    assert view["status"] == "completed", view.get("error")
    out = view["outputs"]
    assert len(out["audits"]) == 100
    assert out["aggregate"]["violation_rate"] <= 0.1
    kinds = [e["data"]["kind"] for e in events if e["event"] == "action_checkpoint"]
    assert kinds.count("verifier_update") == 100
    assert kinds.count("plan_delta") == 101  # the batch plan plus one per item
    assert kinds[-1] == "boundary_summary"
    # boundary only: no raw traces in the events' payloads
    assert not any("intervened_trace" in json.dumps(e["data"]) for e in events)

    shortcut, _ = await run_action(metis_server, "ariadne_audit",
                                   _inputs({"kind": "builtin", "name": "shortcut"}, intervention={"type": "random"}))
    assert shortcut["status"] == "completed"
    assert shortcut["outputs"]["aggregate"]["violation_rate"] >= 0.9

    async with ToolBus.connect(metis_server) as tb:
        art = await tb.call("artifacts.get", {"artifact_id": out["summary_artifact_id"]})
    content = art["content"] if isinstance(art["content"], dict) else json.loads(art["content"])
    assert content["aggregate"]["count"] == 100


async def test_client_played_agent_answers_via_actions_input(metis_server):
    items = ITEMS[:4]
    asked: list[dict[str, Any]] = []
    partner_agent = BuiltinAgent("faithful")  # the partner's own agent, run on the client side

    def answer(payload: dict[str, Any]) -> Any:
        asked.append(payload)
        assert payload["kind"] == "agent_rerun"
        return {"answer": partner_agent.rerun(payload["query"], payload["trace"])}

    view, events = await run_action(metis_server, "ariadne_audit",
                                    _inputs({"kind": "client", "timeout_s": 30}, items,
                                            intervention={"type": "logic_flip"}), answer=answer)
    assert view["status"] == "completed", view.get("error")
    assert len(asked) == 4
    audits = view["outputs"]["audits"]
    for payload, audit, item in zip(asked, audits, items, strict=True):
        assert payload["query"] == item["query"]
        assert len(payload["trace"]) == audit["step"] + 1
        assert payload["trace"][-1]["thought"] == audit["intervened_thought"]
        assert audit["violation"] is False
    assert sum(e["event"] == "action_waiting_user" for e in events) == 4


async def test_client_that_never_answers_ends_partial(metis_server):
    view, _ = await run_action(metis_server, "ariadne_audit",
                               _inputs({"kind": "client", "timeout_s": 0.5}, ITEMS[:3]), answer=None, timeout=60)
    assert view["status"] == "partial"
    assert view["outputs"]["audits"] == []
    assert view["outputs"]["aggregate"]["count"] == 0


async def test_step_budget_ends_partial_with_audits_so_far(metis_server):
    view, _ = await run_action(metis_server, "ariadne_audit", _inputs({"kind": "builtin"}, ITEMS[:40]),
                               budgets={"steps": 5})
    assert view["status"] == "partial"
    n = len(view["outputs"]["audits"])
    assert 5 <= n < 40
    assert view["outputs"]["aggregate"]["count"] == n


@pytest.mark.parametrize(("inputs", "needle"), [
    (_inputs({"kind": "builtin"}, [{"query": "q?", "trace": [], "answer": "a"}]), "trace is empty"),
    (_inputs({"kind": "builtin"}, ITEMS[:2], intervention={"type": "logic_flip", "step": 9}),
     "intervention.step 9 is out of range for items[0]"),
    (_inputs({"kind": "builtin"}, ITEMS[:2], intervention={"type": "sarcasm"}), "type"),
    (_inputs({"kind": "oracle"}, ITEMS[:2]), "agent"),
    (_inputs({"kind": "builtin"}, ITEMS[:2], threshold=1.5), "threshold"),
    ({"items": ITEMS[:1], "agent": {"kind": "builtin"}, "surprise": 1}, "surprise"),
    (_inputs({"kind": "builtin"}, ITEMS[:2], intervention={"steps": [0, 0]}), "lists a step twice"),
    (_inputs({"kind": "builtin"}, ITEMS[:2], intervention={"steps": [0, 1], "step": 1}), "excludes"),
    (_inputs({"kind": "builtin"}, ITEMS[:2], intervention={"steps": [0, 40]}), "intervention.steps has 40"),
])
async def test_bad_input_is_refused_naming_the_field(metis_server, inputs, needle):
    await expect_invalid(metis_server, "ariadne_audit", inputs, needle)


async def test_same_seed_gives_byte_identical_outputs_and_replays(metis_server):
    inputs = _inputs({"kind": "builtin"}, ITEMS[:30], intervention={"type": "random"})
    a, _ = await run_action(metis_server, "ariadne_audit", inputs, seed={"purpose": "ariadne-det"})
    b, _ = await run_action(metis_server, "ariadne_audit", inputs, seed={"purpose": "ariadne-det"})
    assert a["status"] == b["status"] == "completed"
    assert json.dumps(a["outputs"], sort_keys=True) == json.dumps(b["outputs"], sort_keys=True)
    replay, receipts = await replay_and_receipts(metis_server, a["action_id"])
    assert replay["identical"] is True
    text = json.dumps(receipts)
    assert "intervention" in text and "agent_rerun" in text


async def test_http_agent_is_off_unless_configured(metis_server):
    view, _ = await run_action(metis_server, "ariadne_audit", _inputs({"kind": "http"}, ITEMS[:1]))
    assert view["status"] == "failed"
    assert view["error"]["reason"] == "http_agent_not_configured"
    assert "METIS_ARIADNE_HTTP_URL" in view["error"]["message"]


async def test_raw_traces_only_through_reflect_trace(metis_server):
    view, events = await run_action(metis_server, "ariadne_audit", _inputs({"kind": "builtin"}, ITEMS[:2]))
    assert view["status"] == "completed"
    assert "intervened_trace" not in json.dumps(view["outputs"]) + json.dumps(events)
    async with ToolBus.connect(metis_server, "reviewer") as rv:
        trace = await approved_reviewer(metis_server, rv, "reflect.trace", {"action_id": view["action_id"]})
    text = json.dumps(trace)
    assert text.count("intervened_trace") == 2
    assert view["outputs"]["audits"][0]["intervened_thought"] in text


async def test_client_played_agent_multi_step_severity_and_dependency_graph(metis_server):
    """Spec section 10 through the service, with the partner playing the agent: a set K of two steps,
    graded severity on every audit, and the dependency graph from one rerun per substantive step."""
    items = [i for i in ITEMS if len([s for s in i["trace"] if len(s["thought"]) > 12]) >= 3][:3]
    partner_agent = BuiltinAgent("faithful")
    asked: list[dict[str, Any]] = []

    def answer(payload: dict[str, Any]) -> Any:
        asked.append(payload)
        return {"answer": partner_agent.rerun(payload["query"], payload["trace"])}

    first_two = [i for i, s in enumerate(items[0]["trace"]) if len(s["thought"]) > 12][:2]
    view, _ = await run_action(metis_server, "ariadne_audit", _inputs(
        {"kind": "client", "timeout_s": 30}, items[:1],
        intervention={"type": "premise_negation", "steps": first_two}), answer=answer)
    assert view["status"] == "completed", view.get("error")
    audit = view["outputs"]["audits"][0]
    assert audit["steps"] == first_two and audit["violation"] is False
    assert len(asked[-1]["trace"]) == first_two[-1] + 1
    assert 0.0 <= audit["severity"] <= 1.0

    asked.clear()
    view, _ = await run_action(metis_server, "ariadne_audit", _inputs(
        {"kind": "client", "timeout_s": 30}, items, intervention={"type": "adaptive", "dependency_graph": True}),
        answer=answer)
    assert view["status"] == "completed", view.get("error")
    deps = view["outputs"]["dependencies"]
    assert [d["item"] for d in deps] == [0, 1, 2]
    assert len(asked) == len(items) + sum(d["reruns"] for d in deps)
    assert all(d["answer_depends_on"] and set(d["answer_depends_on"]) <= set(d["nodes"]) for d in deps)
