"""metis_client's sans-I/O parts: JSON-RPC framing, the SSE parser, URLs, tokens, text rendering."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from metis_client import Event, MetisError, SSEParser, split_url
from metis_client.config import token_from_file
from metis_client.errors import CONFIG_ERROR
from metis_client.render import document, event_line, progress_bar, result_text, summary_artifact_id
from metis_client.rpc import Garbage, Notification, Response, RpcCore


def test_requests_get_increasing_ids_and_valid_frames():
    core = RpcCore()
    ids = []
    for i in range(3):
        rid, frame = core.request("session.whoami", {"i": i} if i else None)
        msg = json.loads(frame)
        assert msg == {"jsonrpc": "2.0", "id": rid, "method": "session.whoami", "params": {"i": i} if i else {}}
        ids.append(rid)
    assert ids == sorted(set(ids))


def test_frames_sort_into_responses_notifications_and_garbage():
    batch = json.dumps([{"jsonrpc": "2.0", "id": 2, "result": {"ok": True}},
                        {"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "bad", "data": {"errors": []}}}])
    got = RpcCore.receive(batch)
    assert got == [Response(2, {"ok": True}, None), Response(1, None, {"code": -32602, "message": "bad", "data": {"errors": []}})]
    note = RpcCore.receive('{"jsonrpc":"2.0","method":"event","params":{"subscription_id":"s","id":4}}')
    assert note == [Notification("event", {"subscription_id": "s", "id": 4})]
    assert isinstance(RpcCore.receive("not json")[0], Garbage)
    assert isinstance(RpcCore.receive("[1]")[0], Garbage)
    assert isinstance(RpcCore.receive('{"jsonrpc":"2.0","id":3}')[0], Garbage)


def test_error_objects_become_metis_errors():
    err = MetisError.from_error({"code": -32009, "message": "conflict", "data": {"action_id": "a"}})
    assert (err.code, err.message, err.data) == (-32009, "conflict", {"action_id": "a"})
    assert not err.retryable
    assert MetisError.from_error({"code": -32053, "message": "disk", "data": {"retryable": True}}).retryable
    assert MetisError.from_error("nonsense").code == -32603


def test_sse_parser_follows_the_spec():
    p = SSEParser()
    lines = [": ping", "id: 7", "event: action_checkpoint", 'data: {"action_id": "a", "kind": "plan_delta",',
             'data:  "payload": {"i": 1}}', "retry: 10", "", "id: 8", "data: [1]", "", "event: x", "data: {}", ""]
    out = [ev for line in lines if (ev := p.feed(line)) is not None]
    assert out[0] == Event(7, "action_checkpoint", {"action_id": "a", "kind": "plan_delta", "payload": {"i": 1}})
    assert out[0].kind == "plan_delta" and out[0].payload == {"i": 1} and not out[0].terminal
    assert out[1] == Event(8, "message", {"value": [1]})
    assert len(out) == 2  # the last block has no id: not a log event
    assert Event(9, "action_failed", {"action_id": "a"}).terminal


def test_urls_accept_http_ws_and_toolbus_forms():
    assert split_url("http://h:1") == ("ws://h:1/toolbus", "http://h:1")
    assert split_url("ws://h:1/toolbus") == ("ws://h:1/toolbus", "http://h:1")
    assert split_url("https://h/base/") == ("wss://h/base/toolbus", "https://h/base")
    with pytest.raises(MetisError) as err:
        split_url("h:1")
    assert err.value.code == CONFIG_ERROR and "not a Metis URL" in err.value.message


def test_token_from_file_picks_the_role(tmp_path):
    f = tmp_path / "tokens.json"
    f.write_text(json.dumps({"a": {"tenant": "t", "roles": ["canvas"]}, "b": {"tenant": "t", "roles": ["partner"]}}))
    assert token_from_file(f, "partner") == "b" and token_from_file(f, "canvas") == "a"
    assert token_from_file(f, "reviewer") is None
    assert token_from_file(tmp_path / "missing.json", "partner") is None
    f.write_text("{oops")
    with pytest.raises(MetisError) as err:
        token_from_file(f, "partner")
    assert "cannot read tokens file" in err.value.message


def test_a_question_line_is_never_cut():
    ev = Event(5, "action_waiting_user", {"action_id": "a", "payload": {
        "request_id": "req_123", "kind": "question", "question": "q" * 500, "context": {"x": "y" * 400}}})
    text = event_line(ev, width=80, main_action="a")
    assert "req_123" in text and "q" * 500 in text


def test_progress_bar_and_lines():
    assert progress_bar(0.5, 10) == "[#####·····]  50%"
    assert progress_bar(3, 4).endswith("100%") and progress_bar(-1, 4).startswith("[····]")
    ev = Event(3, "action_checkpoint", {"action_id": "b", "kind": "plan_delta", "payload": {"step": "S1", "big": list(range(99))}})
    line = event_line(ev, width=60, main_action="a")
    assert line.startswith("#3 [b] checkpoint plan_delta") and "big=[99 items]" in line and len(line) <= 60


def test_document_renders_a_summary_for_people():
    summary = {"goal": "simplify", "result": "x - 3", "conditions": ["x != -3"],
               "decisions": [{"hypothesis_id": "h1", "status": "supported", "confidence": 0.77}], "empty": []}
    text = document(summary, width=80)
    assert "Goal: simplify" in text and "Conditions: x != -3" in text
    assert "- Hypothesis id: h1" in text and "  Status: supported" in text and "Empty: (none)" in text
    assert "{" not in text
    view = {"action_id": "act_1", "ability": "crl_math", "status": "failed", "usage": {"wall_s": 1.5},
            "error": {"reason": "boom", "message": "it broke"}}
    out = result_text(view, summary, 80)
    assert out.splitlines()[0] == "✘ crl_math act_1 failed in 1.50 s"
    assert "Error: boom: it broke" in out and "Summary:" in out and "Summary document" not in out
    view["outputs"] = {"summary_artifact_id": "art_1"}
    assert summary_artifact_id(view, {"x": 1}) == "art_1" and summary_artifact_id(view, {"summary_artifact_id": "a2"}) == "a2"
    out = result_text(view, None, 80, doc={"title": "Plan", "steps": ["a", "b"]})
    assert "Summary document:\n  Title: Plan\n  Steps: a, b" in out


def test_the_client_imports_without_the_server():
    code = ("import sys, metis_client, metis_client.render, metis_client.terminal; "
            "bad = [m for m in ('orchestrator', 'abilities', 'receipts', 'schemas', 'pydantic', 'starlette') "
            "if m in sys.modules]; print(bad)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
