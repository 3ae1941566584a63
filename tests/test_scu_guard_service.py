"""scu_guard through the real service: ToolBus actions.start -> events -> outputs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from abilities.lock import lock_constraints
from tests.support import RpcFailure, ToolBus, run_action

CONS = ["X rejects null keys.", "Only domain example.com is allowed."]
CHUNKS = [{"id": "p1#1", "text": "X is a constrained mapping used in the alpha protocol."},
          {"id": "p1#2", "text": "Constraints: X preserves ordering and rejects null keys."},
          {"id": "pB#1", "text": "Policy: Only emails from example.com are allowed."}]


def _inputs(claim: str | None = None, **over: object) -> dict:
    inputs: dict = {"constraints": CONS, "question": "Does X support null keys?", "chunks": CHUNKS}
    if claim is not None:
        inputs["answer"] = {"claim": claim, "citations": ["p1#2"], "constraints_echo": CONS}
    inputs.update(over)
    return inputs


def _checkpoints(events: list[dict], kind: str) -> list[dict]:
    return [e["data"]["payload"] for e in events
            if e["event"] == "action_checkpoint" and e["data"].get("kind") == kind]


async def test_ok_answer_completes_with_checks_and_summary(metis_server):
    view, events = await run_action(metis_server, "scu_guard", _inputs("No. X rejects null keys."))
    assert view["status"] == "completed", view
    out = view["outputs"]
    assert (out["verdict"], out["reason"]) == ("OK", "ok")
    assert out["lock"]["hash"] == lock_constraints(CONS)["hash"]
    assert out["ctx_ids"] == ["p1#1", "p1#2", "pB#1"] and out["contradictions"] == []
    checks = [p["check"] for p in _checkpoints(events, "verifier_update")]
    assert checks == ["json", "refusal", "citation_scope", "constraints_echo", "contradiction"]
    summary = _checkpoints(events, "boundary_summary")
    assert summary[-1]["verdict"] == "OK" and summary[-1]["lock_hash"] == out["lock"]["hash"]
    started = next(e for e in events if e["event"] == "action_started")
    assert started["data"]["payload"]["lock"]["hash"] == out["lock"]["hash"]  # the service-wide lock agrees


async def test_contradiction_rejects(metis_server):
    view, events = await run_action(metis_server, "scu_guard", _inputs("Yes, X supports null keys."))
    out = view["outputs"]
    assert view["status"] == "completed"
    assert (out["verdict"], out["reason"]) == ("REJECT", "constraint_contradiction")
    c = out["contradictions"][0]
    assert c["constraint"] == CONS[0] and c["rule"] == "forbid"
    assert c["claim_span"]["text"] == "X supports null keys"
    assert _checkpoints(events, "boundary_summary")[-1]["reason"] == "constraint_contradiction"


async def test_ask_flow_validates_the_client_answer(metis_server):
    asked: list[dict] = []

    def answer(payload: dict) -> str:
        asked.append(payload)
        body = json.dumps({"claim": "X permits empty keys", "citations": ["p1#2"], "constraints_echo": CONS})
        return "Here is my answer:\n" + body

    view, events = await run_action(metis_server, "scu_guard", _inputs(), answer=answer)
    assert view["status"] == "completed", view
    assert len(asked) == 1 and asked[0]["prompt"].startswith("LOCKED_CONSTRAINTS (hash=")
    assert asked[0]["lock"]["hash"] == lock_constraints(CONS)["hash"]
    assert any(e["event"] == "action_waiting_user" for e in events)
    out = view["outputs"]
    assert out["prompt"] == asked[0]["prompt"]
    assert (out["verdict"], out["reason"]) == ("REJECT", "constraint_contradiction")


async def test_ask_flow_raw_refusal(metis_server):
    view, _ = await run_action(metis_server, "scu_guard", _inputs(question="Who wrote alpha?"),
                               answer=lambda p: "not in context")
    assert (view["outputs"]["verdict"], view["outputs"]["reason"]) == ("REFUSAL", "not_in_context")


@pytest.mark.parametrize(
    ("over", "field"),
    [
        ({"constraints": []}, "constraints"),
        ({"chunks": [{"id": "a", "text": "x"}, {"id": "a", "text": "y"}]}, "chunks"),
        ({"chunks": [{"id": f"c{i}", "text": "x" * 333_334} for i in range(3)]}, "chunks"),  # > 1e6 chars, < 1 MiB
        ({"constraints": ["c"] * 101}, "constraints"),
    ],
)
async def test_bad_input_is_invalid_params_naming_the_field(metis_server, over, field):
    async with ToolBus.connect(metis_server) as tb:
        with pytest.raises(RpcFailure) as err:
            await tb.start("scu_guard", _inputs(**over))
    assert err.value.code == -32602
    assert field in str(err.value.data)


async def test_non_utf8_text_is_refused_and_nothing_crashes(metis_server):
    async with ToolBus.connect(metis_server) as tb:
        with pytest.raises(RpcFailure) as err:
            await tb.start("scu_guard", _inputs(question="bad \ud800 text"))
        assert err.value.code in (-32602, -32603)
        view, _ = await tb.run("scu_guard", _inputs("X rejects null keys."))
    assert view["outputs"]["verdict"] == "OK"


async def test_non_utf8_text_is_invalid_params(metis_server):
    async with ToolBus.connect(metis_server) as tb:
        with pytest.raises(RpcFailure) as err:
            await tb.start("scu_guard", _inputs(question="bad \ud800 text"))
    assert err.value.code == -32602 and "question" in str(err.value.data)


async def test_ten_megabytes_is_refused_and_the_connection_survives(metis_server):
    big = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "actions.start",
                      "params": {"ability": "scu_guard", "inputs": _inputs(question="x" * 10_000_000)}})
    async with ToolBus.connect(metis_server) as tb:
        await tb.send_raw(big)
        reply = await tb.next_unsolicited(timeout=30)
        assert reply["error"]["code"] == -32013
        view, _ = await tb.run("scu_guard", _inputs("X rejects null keys."))
    assert view["outputs"]["verdict"] == "OK"


async def test_same_inputs_same_outputs(metis_server):
    inputs = _inputs("X accepts null keys and gmail.com is allowed.")
    a, _ = await run_action(metis_server, "scu_guard", inputs)
    b, _ = await run_action(metis_server, "scu_guard", inputs)
    assert a["outputs"] == b["outputs"] and a["outputs"]["reason"] == "constraint_contradiction"


# ---- typed forms through the service -------------------------------------------------------------

EXAMPLE = Path(__file__).parent / "data" / "scu_guard" / "worked_example.json"
DOC = Path(__file__).resolve().parents[1] / "docs" / "abilities" / "scu_guard.md"


async def test_worked_example_of_the_docs(metis_server):
    inputs = json.loads(EXAMPLE.read_text())["inputs"]
    doc = DOC.read_text()
    assert inputs["answer"]["claim"] in doc and all(c in doc for c in inputs["constraints"])
    view, events = await run_action(metis_server, "scu_guard", inputs)
    out = view["outputs"]
    assert (out["verdict"], out["reason"]) == ("REJECT", "constraint_contradiction")
    spans = [(c["rule"], c["claim_span"]["text"]) for c in out["contradictions"]]
    assert spans == [("numeric_bound", "twice a week"), ("numeric_bound", "14 April")]
    assert out["unparsed_constraints"] == ["Be courteous to visitors."]
    understood = {f["text"]: f for f in out["understood"]}
    assert set(understood) == set(inputs["constraints"][:3])
    filters = understood[inputs["constraints"][0]]["quantity"]
    assert (filters["dimension"], filters["high"], filters["period"]) == ("[time]", 259200.0, True)
    lab = understood[inputs["constraints"][1]]["quantity"]
    assert lab["business_days"] is True and lab["reference"] == ["collect"]
    assert understood[inputs["constraints"][2]]["agents"] == ["operator"]
    for rule, text in spans:
        assert f'"rule":"{rule}"' in doc.replace(" ", "") and text in doc
    assert _checkpoints(events, "boundary_summary")[-1]["suspected"] == 0


async def test_typed_forms_are_accepted_in_place_of_parsing(metis_server):
    text = "Gate B stays shut at night."
    form = {"text": text, "modality": "must_not", "subject": ["gate"], "action": ["open"],
            "window": {"kind": "clock", "start": 1200, "end": 360}}
    inputs = {"constraints": [text], "question": "When can trucks come in?", "forms": [form],
              "chunks": [{"id": "g", "text": "Gate B is the north gate."}],
              "answer": {"claim": "Gate B opens at 23:00 for the late delivery.", "citations": ["g"],
                         "constraints_echo": [text]}}
    view, _ = await run_action(metis_server, "scu_guard", inputs)
    out = view["outputs"]
    # the client's window is checked; the event reading is the typed reading's alone (the word-level one
    # does not read a client's form), so it waits in REVIEW rather than rejecting on one reading
    assert (out["verdict"], out["reason"]) == ("REVIEW", "suspected_contradiction")
    assert out["suspected"][0]["rule"] == "temporal"
    assert out["understood"][0]["window"] == {"kind": "clock", "start": 1200, "end": 360}
    assert out["unparsed_constraints"] == []


@pytest.mark.parametrize(
    "form",
    [
        {"text": "Not a locked constraint.", "modality": "must"},
        {"text": CONS[0], "modality": "should"},
        {"text": CONS[0], "modality": "must", "colour": "red"},
        {"text": CONS[0], "modality": "must", "window": {"kind": "clock", "start": "noon", "end": 5}},
    ],
)
async def test_bad_typed_forms_are_invalid_params_naming_forms(metis_server, form):
    async with ToolBus.connect(metis_server) as tb:
        with pytest.raises(RpcFailure) as err:
            await tb.start("scu_guard", _inputs(forms=[form]))
    assert err.value.code == -32602
    assert "forms" in str(err.value.data)
