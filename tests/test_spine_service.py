"""The spine over the real service: ToolBus, scheduler, SSE, receipt log, reflect."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

import httpx
import pytest

from receipts.merkle import verify_inclusion
from receipts.signing import verify_tree_head
from tests.support import ROOT, RpcFailure, ToolBus, approved_reviewer, ended, run_action, sse_read

# -- resume --------------------------------------------------------------------------------------


async def test_sse_resume_at_several_points_no_gap_no_duplicate(metis_server):
    async with ToolBus.connect(metis_server) as tb:
        started = await tb.start("t_emit", {"n": 20})
        aid, topic = started["action_id"], started["topic"]
        headers, full = await sse_read(metis_server, topic, until=ended(aid))
    assert headers["metis-resumed-after"] == "0"
    ids = [e["id"] for e in full]
    assert ids == sorted(set(ids)) and full[-1]["event"] == "action_completed"
    assert all(e["data"]["seq"] == e["id"] for e in full)
    for k in (0, 1, len(ids) // 2, len(ids) - 2):
        headers, rest = await sse_read(metis_server, topic, last_event_id=ids[k], until=ended(aid))
        assert headers["metis-resumed-after"] == str(ids[k])
        assert [e["id"] for e in rest] == ids[k + 1:]
        assert [e["data"] for e in rest] == [e["data"] for e in full[k + 1:]]
    # the query form, for a first connection with a stream token
    _, rest = await sse_read(metis_server, topic, query={"token": started["stream"]["token"],
                                                          "last_event_id": str(ids[3])}, until=ended(aid))
    assert [e["id"] for e in rest] == ids[4:]


async def test_sse_resume_while_live(metis_server):
    """Disconnect mid-action and resume: the union is every event exactly once."""
    async with ToolBus.connect(metis_server) as tb:
        started = await tb.start("t_emit", {"n": 30, "delay_s": 0.03})
        aid, topic = started["action_id"], started["topic"]
        _, first = await sse_read(metis_server, topic, max_events=8)
        _, second = await sse_read(metis_server, topic, last_event_id=first[-1]["id"], until=ended(aid))
        _, whole = await sse_read(metis_server, topic, until=ended(aid))
    assert [e["id"] for e in first + second] == [e["id"] for e in whole]


async def test_sse_bad_last_event_id_and_auth(metis_server):
    async with httpx.AsyncClient() as client:
        r = await client.get(f"{metis_server.http_url}/streams/x", headers={
            "Authorization": "Bearer tok-acme-canvas", "Last-Event-ID": "abc"})
        assert r.status_code == 400 and "Last-Event-ID" in r.text
        r = await client.get(f"{metis_server.http_url}/streams/x")
        assert r.status_code == 401
        r = await client.get(f"{metis_server.http_url}/streams/x", params={"token": "st_forged.sig"})
        assert r.status_code == 401


async def test_events_subscribe_resume_over_toolbus(metis_server):
    async with ToolBus.connect(metis_server) as tb:
        view, events = await tb.run("t_emit", {"n": 5})
        ids = [e["id"] for e in events]
        again = await tb.follow(view["topic"], view["action_id"], last_event_id=ids[2])
        assert [e["id"] for e in again] == ids[3:]


# -- lifecycle -----------------------------------------------------------------------------------


async def test_budget_breach_uncooperative_ends_partial(metis_server):
    view, events = await run_action(metis_server, "t_hang", {}, budgets={"wall_s": 1})
    assert view["status"] == "partial"
    assert view["outputs"] == {"started": True, "incomplete": True}
    assert view["error"]["reason"] == "budget_exhausted"
    notices = [e["data"] for e in events if e["event"] == "action_notice"]
    assert notices and notices[0]["kind"] == "budget_grace"
    assert events[-1]["event"] == "action_partial"


async def test_budget_breach_cooperative_and_steps(metis_server):
    view, _ = await run_action(metis_server, "t_sleep", {"seconds": 30, "cooperative": True}, budgets={"wall_s": 1})
    assert view["status"] == "partial" and view["outputs"]["incomplete"] is True
    assert view["outputs"]["ticks"] > 5
    view, _ = await run_action(metis_server, "t_steps", {"steps": 100}, budgets={"steps": 10})
    assert view["status"] == "partial"
    assert 10 <= view["outputs"]["done"] <= 13


async def test_cancel(metis_server):
    async with ToolBus.connect(metis_server) as tb:
        started = await tb.start("t_sleep", {"seconds": 60})
        await tb.wait_status(started["action_id"], {"running"})
        view = await tb.call("actions.cancel", {"action_id": started["action_id"], "reason": "test"})
        assert view["status"] == "cancelled"
        with pytest.raises(RpcFailure) as err:
            await tb.call("actions.cancel", {"action_id": started["action_id"]})
        assert err.value.code == -32009
        # the service still runs actions afterwards
        view, _ = await tb.run("t_noop", {})
        assert view["status"] == "completed"


async def test_failures_clean_and_worker_crash(metis_server):
    view, events = await run_action(metis_server, "t_fail", {"reason": "bad_thing"})
    assert view["status"] == "failed" and view["error"]["reason"] == "bad_thing"
    assert events[-1]["event"] == "action_failed"
    view, _ = await run_action(metis_server, "t_fail", {"crash": True})
    assert view["status"] == "failed" and view["error"]["reason"] == "worker_crashed"
    view, _ = await run_action(metis_server, "t_noop", {})
    assert view["status"] == "completed"


async def test_waiting_user_and_input(metis_server):
    async with ToolBus.connect(metis_server) as tb:
        view, events = await tb.run("t_ask", {"question": "colour?"}, answer=lambda p: {"colour": "blue"})
        assert view["status"] == "completed" and view["outputs"] == {"answer": {"colour": "blue"}}
        waiting = [e for e in events if e["event"] == "action_waiting_user"][0]["data"]["payload"]
        assert waiting["kind"] == "question" and waiting["question"] == "colour?"
        with pytest.raises(RpcFailure) as err:
            await tb.call("actions.input", {"action_id": view["action_id"], "request_id": "req_nope", "value": 1})
        assert err.value.code == -32009


async def test_client_that_never_answers_ends_partial(metis_server):
    view, _ = await run_action(metis_server, "t_ask", {"timeout_s": 0.5})
    assert view["status"] == "partial" and view["error"]["reason"] == "input_timeout"


async def test_idempotency_key(metis_server):
    async with ToolBus.connect(metis_server) as tb:
        a = await tb.start("t_noop", {}, idempotency_key="k-1")
        b = await tb.start("t_noop", {}, idempotency_key="k-1")
        assert a["action_id"] == b["action_id"]
        with pytest.raises(RpcFailure) as err:
            await tb.start("t_emit", {"n": 1}, idempotency_key="k-1")
        assert err.value.code == -32009
    async with ToolBus.connect(metis_server, tenant="globex") as other:
        c = await other.start("t_noop", {}, idempotency_key="k-1")
        assert c["action_id"] != a["action_id"]


# -- edges ---------------------------------------------------------------------------------------


async def test_depends_on_passes_outputs_and_unknown_edges_refused(metis_server):
    async with ToolBus.connect(metis_server) as tb:
        a, _ = await tb.run("t_emit", {"n": 2})
        view, events = await tb.run("t_deps", {}, edges=[{"kind": "dependsOn", "action_id": a["action_id"]}])
        assert view["outputs"]["deps"] == {a["action_id"]: a["outputs"]}
        assert events[0]["event"] == "action_linked" or any(e["event"] == "action_linked" for e in events)
        with pytest.raises(RpcFailure) as err:
            await tb.start("t_deps", {}, edges=[{"kind": "dependsOn", "action_id": "act_doesnotexist"}])
        assert err.value.code == -32004
        with pytest.raises(RpcFailure) as err:
            await tb.start("t_deps", {}, edges=[{"kind": "sideways", "action_id": a["action_id"]}])
        assert err.value.code == -32602
    async with ToolBus.connect(metis_server, tenant="globex") as other:
        with pytest.raises(RpcFailure) as err:
            await other.start("t_deps", {}, edges=[{"kind": "waitFor", "action_id": a["action_id"]}])
        assert err.value.code == -32004


async def test_waiting_on_failed_dependency_fails_and_notify(metis_server):
    async with ToolBus.connect(metis_server) as tb:
        slow = await tb.start("t_sleep", {"seconds": 0.5})
        waiter = await tb.start("t_deps", {}, edges=[{"kind": "dependsOn", "action_id": slow["action_id"]},
                                                     {"kind": "notify", "action_id": slow["action_id"]}])
        assert (await tb.call("actions.get", {"action_id": waiter["action_id"]}))["status"] == "waiting"
        await tb.wait_status(waiter["action_id"], {"completed"})
        bad = await tb.start("t_fail", {})
        dep = await tb.start("t_deps", {}, edges=[{"kind": "dependsOn", "action_id": bad["action_id"]}])
        view = await tb.wait_status(dep["action_id"], {"failed"})
        assert view["error"]["reason"] == "dependency_failed"
        after = await tb.start("t_deps", {}, edges=[{"kind": "waitFor", "action_id": bad["action_id"]}])
        await tb.wait_status(after["action_id"], {"completed"})
        _, evs = await sse_read(metis_server, slow["topic"], until=ended(slow["action_id"]))
        _, notes = await sse_read(metis_server, slow["topic"], last_event_id=evs[-1]["id"] - 1, max_events=1)
        assert notes[0]["event"] == "action_completed"


async def test_bind_bump_update_available_and_accept_update(metis_server):
    async with ToolBus.connect(metis_server) as tb:
        producer = await tb.start("t_publish", {"revisions": 2, "hold_s": 1.0})
        consumer = await tb.start("t_deps", {}, topic="bind-test-" + producer["action_id"],
                                  edges=[{"kind": "bind", "action_id": producer["action_id"]}])
        first = await tb.wait_status(consumer["action_id"], {"completed"})
        assert first["outputs"]["deps"][producer["action_id"]] == {"evidence": 1}
        _, evs = await sse_read(metis_server, consumer["topic"],
                                until=lambda e: e["data"].get("kind") == "update_available")
        assert evs[-1]["data"]["payload"]["dependency_id"] == producer["action_id"]
        view = await tb.call("actions.accept_update", {"action_id": consumer["action_id"],
                                                       "dependency_id": producer["action_id"]})
        assert view["revision"] == 2
        second = await tb.wait_status(consumer["action_id"], {"completed"})
        assert second["revision"] == 2 and second["outputs"]["deps"][producer["action_id"]] == {"evidence": 2}
        with pytest.raises(RpcFailure) as err:
            await tb.call("actions.accept_update", {"action_id": consumer["action_id"],
                                                    "dependency_id": producer["action_id"]})
        assert err.value.code == -32009


async def test_spawn_sub_action(metis_server):
    view, events = await run_action(metis_server, "t_spawn", {"ability": "t_emit", "inputs": {"n": 2}})
    assert view["status"] == "completed" and view["outputs"]["child_status"] == "completed"
    assert len(view["outputs"]["child_outputs"]["values"]) == 2
    linked = [e for e in events if e["event"] == "action_linked"]
    assert linked and linked[0]["data"]["payload"]["action_id"] == view["outputs"]["child"]
    # the child streams on the parent's topic
    assert {e["data"]["action_id"] for e in events} == {view["action_id"], view["outputs"]["child"]}


# -- service-wide lock and echo ------------------------------------------------------------------


async def test_lock_recorded_and_carried_on_checkpoints(metis_server):
    view, events = await run_action(metis_server, "t_emit", {"n": 2, "constraints": [" only example.com ", "at most 3"]})
    started = events[0]["data"]["payload"]
    assert started["lock"]["constraints"] == ["only example.com", "at most 3"]
    lock_hash = started["lock"]["hash"]
    assert view["lock_hash"] == lock_hash
    assert all(e["data"]["lock"] == lock_hash for e in events if e["event"] == "action_checkpoint")


async def test_unlock_fails_constraint_violation(metis_server):
    view, _ = await run_action(metis_server, "t_unlock", {"constraints": ["a", "b"]})
    assert view["status"] == "failed" and view["error"]["reason"] == "CONSTRAINT_VIOLATION"
    view, _ = await run_action(metis_server, "t_spawn", {"constraints": ["a", "b"], "tamper": True})
    assert view["error"]["reason"] == "CONSTRAINT_VIOLATION"
    view, _ = await run_action(metis_server, "t_spawn", {"constraints": ["a", "b"], "ability": "t_emit",
                                                         "inputs": {"n": 1, "constraints": ["a"]}})
    assert view["error"]["reason"] == "CONSTRAINT_VIOLATION"
    view, _ = await run_action(metis_server, "t_spawn", {"constraints": ["a", "b"], "ability": "t_emit",
                                                         "inputs": {"n": 1, "constraints": ["b", "a", "c"]}})
    assert view["status"] == "completed"  # adding a constraint is fine; dropping one is not
    view, events = await run_action(metis_server, "t_spawn", {"constraints": ["a", "b"], "ability": "t_emit",
                                                              "inputs": {"n": 1}})
    assert view["status"] == "completed"
    child_ckpts = [e for e in events if e["data"]["action_id"] == view["outputs"]["child"]
                   and e["event"] == "action_checkpoint"]
    assert child_ckpts and all(e["data"]["lock"] == view["lock_hash"] for e in child_ckpts)


# -- bad input -----------------------------------------------------------------------------------


async def test_bad_messages_get_errors_and_connection_survives(metis_server):
    async with ToolBus.connect(metis_server) as tb, ToolBus.connect(metis_server, tenant="globex") as other:
        await tb.send_raw("{not json")
        assert (await tb.next_unsolicited())["error"]["code"] == -32700
        await tb.send_raw(json.dumps({"jsonrpc": "1.0", "id": 5, "method": "x"}))
        assert (await tb.next_unsolicited())["error"]["code"] == -32600
        await tb.send_raw("[]")
        assert (await tb.next_unsolicited())["error"]["code"] == -32600
        assert (await tb.request("no.such"))["error"]["code"] == -32601
        resp = await tb.request("actions.start", {"ability": "t_emit", "inputs": {"n": "many"}})
        assert resp["error"]["code"] == -32602
        assert resp["error"]["data"]["errors"][0]["loc"] == ["inputs", "n"]
        resp = await tb.request("actions.start", {"ability": "nope", "inputs": {}})
        assert resp["error"]["code"] == -32602 and "nope" in resp["error"]["message"]
        resp = await tb.request("actions.get", {"action_id": "act_x", "bogus": 1})
        assert resp["error"]["code"] == -32602 and resp["error"]["data"]["errors"][0]["loc"] == ["bogus"]
        big = json.dumps({"jsonrpc": "2.0", "id": 9, "method": "session.whoami", "params": {"pad": "x" * 2_000_000}})
        await tb.send_raw(big)
        assert (await tb.next_unsolicited())["error"]["code"] == -32013
        await tb.send_raw(b"\xff\xfe")
        assert (await tb.next_unsolicited())["error"]["code"] == -32700
        batch = await tb.batch([("session.whoami", {}), ("no.such", {})])
        assert sorted("result" in r for r in batch) == [False, True]
        assert (await tb.call("session.whoami"))["tenant"] == "acme"
        assert (await other.call("session.whoami"))["tenant"] == "globex"


async def test_flood_is_rate_limited_others_unaffected(metis_server):
    async with ToolBus.connect(metis_server) as tb, ToolBus.connect(metis_server, tenant="globex") as other:
        msg = json.dumps({"jsonrpc": "2.0", "method": "session.whoami", "params": {}})  # notifications
        for _ in range(3000):
            await tb.send_raw(msg)
        limited = await tb.next_unsolicited(timeout=20)
        assert limited["error"]["code"] == -32029
        assert (await other.call("session.whoami"))["tenant"] == "globex"
        await asyncio.sleep(2.5)  # the bucket refills
        assert (await tb.call("session.whoami"))["tenant"] == "acme"


async def test_unauthenticated_and_roles(metis_server):
    async with ToolBus.connect(metis_server, auth=False) as anon:
        assert (await anon.request("session.whoami"))["error"]["code"] == -32001
        assert (await anon.request("session.authenticate", {"token": "wrong"}))["error"]["code"] == -32001
        who = await anon.call("session.authenticate", {"token": metis_server.token("partner")})
        assert who == {"tenant": "acme", "roles": ["partner"]}
    async with ToolBus.connect(metis_server, "reviewer") as rev:
        assert (await rev.request("actions.start", {"ability": "t_noop"}))["error"]["code"] == -32003
    async with ToolBus.connect(metis_server, "partner") as tb:
        assert (await tb.request("approvals.list"))["error"]["code"] == -32003
        assert (await tb.request("reflect.verify"))["error"]["code"] == -32003


# -- tenants -------------------------------------------------------------------------------------


async def test_tenant_isolation_calls_and_streams(metis_server):
    view, events = await run_action(metis_server, "t_emit", {"n": 2}, topic="shared-name")
    async with ToolBus.connect(metis_server, tenant="globex") as other:
        for method in ("actions.get", "actions.cancel"):
            assert (await other.request(method, {"action_id": view["action_id"]}))["error"]["code"] == -32004
        listed = await other.call("actions.list", {"topic": "shared-name"})
        assert listed["actions"] == []
        art = view["outputs"]["summary_artifact_id"]
        assert (await other.request("artifacts.get", {"artifact_id": art}))["error"]["code"] == -32004
        g_view, _ = await other.run("t_noop", {}, topic="shared-name")
    async with ToolBus.connect(metis_server) as tb:
        got = await tb.call("artifacts.get", {"artifact_id": art})
        assert got["content"] == {"count": 2} and got["kind"] == "summary"
    # same topic name, two tenants: each sees only its own events
    _, acme_events = await sse_read(metis_server, "shared-name", token="tok-acme-canvas", until=ended(view["action_id"]))
    assert {e["data"]["action_id"] for e in acme_events} == {view["action_id"]}
    _, globex_events = await sse_read(metis_server, "shared-name", token="tok-globex-canvas",
                                      until=ended(g_view["action_id"]))
    assert {e["data"]["action_id"] for e in globex_events} == {g_view["action_id"]}


# -- reflect, approvals, proofs, replay ----------------------------------------------------------


async def test_reflect_requires_approval_and_is_recorded(metis_server):
    view, _ = await run_action(metis_server, "t_emit", {"n": 2}, _meta={"traceparent": "00-" + "a" * 32 + "-" + "b" * 16 + "-01"})
    aid = view["action_id"]
    async with ToolBus.connect(metis_server, "reviewer") as rev, ToolBus.connect(metis_server, "approver") as apr:
        with pytest.raises(RpcFailure) as err:
            await rev.call("reflect.trace", {"action_id": aid})
        assert err.value.code == -32003
        approval_id = err.value.data["approval_id"]
        pending = (await apr.call("approvals.list"))["approvals"]
        assert any(a["approval_id"] == approval_id and a["status"] == "pending" for a in pending)
        with pytest.raises(RpcFailure):  # still refused before the grant
            await rev.call("reflect.trace", {"action_id": aid})
        await apr.call("approvals.grant", {"approval_id": approval_id, "note": "incident 42", "scope": "action"})
        with pytest.raises(RpcFailure) as err:
            await apr.call("approvals.grant", {"approval_id": approval_id})
        assert err.value.code == -32009
        trace = await rev.call("reflect.trace", {"action_id": aid})
        assert [t["thought"] for t in trace["trace"]] == ["step 0", "step 1"]
        receipts = (await rev.call("reflect.receipts", {"action_id": aid}))["receipts"]
        kinds = {(r["type"], r["name"]) for r in receipts}
        assert ("receipt", "tool_call") in kinds and ("state", "completed") in kinds
        assert any(r["type"] == "reflect" and r["name"] == "reflect.trace" for r in receipts)
        assert all(r["payload"].get("traceparent", "").startswith("00-aaaa") for r in receipts if r["type"] == "receipt")
    async with ToolBus.connect(metis_server, "reviewer", "globex") as other_rev:
        assert (await other_rev.request("reflect.trace", {"action_id": aid}))["error"]["code"] == -32004


async def test_approval_deny_keeps_refusing(metis_server):
    view, _ = await run_action(metis_server, "t_noop", {})
    async with ToolBus.connect(metis_server, "reviewer") as rev, ToolBus.connect(metis_server, "approver") as apr:
        err = await rev.request("reflect.trace", {"action_id": view["action_id"]})
        approval_id = err["error"]["data"]["approval_id"]
        denied = await apr.call("approvals.deny", {"approval_id": approval_id, "note": "no"})
        assert denied["status"] == "denied"
        again = await rev.request("reflect.trace", {"action_id": view["action_id"]})
        assert again["error"]["code"] == -32003 and again["error"]["data"]["approval_id"] != approval_id


async def test_proof_verify_and_replay(metis_server):
    view, events = await run_action(metis_server, "t_emit", {"n": 3}, seed={"purpose": "replay-test"})
    seq = events[-1]["id"]
    async with ToolBus.connect(metis_server, "reviewer") as rev:
        proof = await approved_reviewer(metis_server, rev, "reflect.proof", {"seq": seq})
        sth = proof["tree_head"]
        pub = (metis_server.data_dir / "signing_key.pub.pem").read_text()
        verify_tree_head({k: v for k, v in sth.items() if k != "public_key"}, pub)
        verify_inclusion(bytes.fromhex(proof["leaf_hash"]), proof["leaf_index"], proof["tree_size"],
                         [bytes.fromhex(p) for p in proof["proof"]], bytes.fromhex(sth["root_hash"]))
        assert proof["record_hash"] == events[-1]["data"]["receipt_hash"]
        report = await approved_reviewer(metis_server, rev, "reflect.verify", {})
        assert report["ok"] is True and report["checked"] >= len(events)
        replay = await approved_reviewer(metis_server, rev, "reflect.replay", {"action_id": view["action_id"]})
        assert replay["identical"] is True and replay["outputs_hash"] == replay["replay_hash"]
        asked, _ = await run_action(metis_server, "t_ask", {}, answer=lambda p: "forty-two")
        replay = await approved_reviewer(metis_server, rev, "reflect.replay", {"action_id": asked["action_id"]})
        assert replay["identical"] is True
    # same purpose, same inputs: byte-identical outputs
    again, _ = await run_action(metis_server, "t_emit", {"n": 3}, seed={"purpose": "replay-test"})
    assert again["outputs"] == view["outputs"] and again["seed_fingerprint"] == view["seed_fingerprint"]


# -- operations ----------------------------------------------------------------------------------


async def test_healthz_and_metrics(metis_server):
    await run_action(metis_server, "t_noop", {})
    async with httpx.AsyncClient() as client:
        health = (await client.get(metis_server.http_url + "/healthz")).json()
        assert health["status"] == "ok" and health["log_records"] > 0
        text = (await client.get(metis_server.http_url + "/metrics")).text
    assert 'metis_actions_started_total{ability="t_noop"}' in text
    assert "metis_toolbus_requests_total" in text and "metis_log_records" in text
    assert "action_id" not in text  # no per-action labels
    page = httpx.get(metis_server.http_url + "/canvas/")
    assert page.status_code == 200 and "EventSource" in page.text


# -- crash and tamper ----------------------------------------------------------------------------


def _verify_cli(data_dir) -> tuple[int, dict]:
    out = subprocess.run([sys.executable, "-m", "orchestrator.cli", "receipts", "verify", "--data-dir", str(data_dir)],
                         capture_output=True, text=True, cwd=ROOT, timeout=60)
    return out.returncode, json.loads(out.stdout)


async def test_kill9_mid_action_then_restart(server_factory, tmp_path):
    server = server_factory(tmp_path / "crash")
    async with ToolBus.connect(server) as tb:
        done, _ = await tb.run("t_emit", {"n": 3})
        running = await tb.start("t_sleep", {"seconds": 60})
        waiter = await tb.start("t_deps", {}, edges=[{"kind": "dependsOn", "action_id": running["action_id"]}])
        await tb.wait_status(running["action_id"], {"running"})
    _, before = await sse_read(server, running["topic"], max_events=1)
    _, done_before = await sse_read(server, done["topic"], until=ended(done["action_id"]))
    server.stop(kill=True)
    rc, report = _verify_cli(server.data_dir)
    assert rc == 0 and report["ok"], report
    restarted = server_factory(server.data_dir)
    async with ToolBus.connect(restarted) as tb:
        view = await tb.call("actions.get", {"action_id": running["action_id"]})
        assert view["status"] == "running"  # resumed by replay after the crash (durable execution)
        await tb.call("actions.cancel", {"action_id": running["action_id"]})
        w = await tb.wait_status(waiter["action_id"], {"failed"})
        assert w["error"]["reason"] == "dependency_failed"
        assert (await tb.call("actions.get", {"action_id": done["action_id"]}))["outputs"] == done["outputs"]
    _, after = await sse_read(restarted, running["topic"], until=ended(running["action_id"]))
    assert after[0] == before[0] and after[-1]["event"] == "action_failed"
    _, done_after = await sse_read(restarted, done["topic"], until=ended(done["action_id"]))
    assert done_after == done_before
    restarted.stop()
    rc, report = _verify_cli(server.data_dir)
    assert rc == 0 and report["ok"]


async def test_tampering_detected(server_factory, tmp_path):
    import sqlite3

    server = server_factory(tmp_path / "tamper")
    await run_action(server, "t_emit", {"n": 3})
    server.stop()
    db = server.data_dir / "receipts.sqlite3"
    conn = sqlite3.connect(db)
    conn.execute("DROP TRIGGER records_no_update")
    body = conn.execute("SELECT body FROM records WHERE seq = 5").fetchone()[0]
    conn.execute("UPDATE records SET body = ? WHERE seq = 5", (bytes(body).replace(b'"v":1', b'"v":2'),))
    conn.commit()
    conn.close()
    rc, report = _verify_cli(server.data_dir)
    assert rc == 1 and report["first_bad_seq"] == 5 and "hash" in report["reason"]


async def test_thousand_sse_subscribers_receive_every_event(metis_server):
    """1,000 concurrent SSE connections on one topic (raw HTTP/1.1 over asyncio sockets)."""
    topic = "fanout-1000"
    n_subs = 1000
    ready = 0
    all_ready = asyncio.Event()

    async def subscriber() -> list[int]:
        nonlocal ready
        reader, writer = await asyncio.open_connection("127.0.0.1", metis_server.port)
        writer.write(f"GET /streams/{topic} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer tok-acme-canvas\r\n\r\n".encode())
        await writer.drain()
        await reader.readuntil(b"\r\n\r\n")
        ready += 1
        if ready == n_subs:
            all_ready.set()
        ids: list[int] = []
        buf = b""
        finished = False
        while not finished:
            chunk = await reader.read(65536)
            if not chunk:
                break
            buf += chunk
            *frames, buf = buf.split(b"\n\n")
            for frame in frames:
                for line in frame.split(b"\n"):
                    if line.startswith(b"id: "):
                        ids.append(int(line[4:]))
                    elif line == b"event: action_completed":
                        finished = True
        writer.close()
        return ids

    tasks = [asyncio.create_task(subscriber()) for _ in range(n_subs)]
    await asyncio.wait_for(all_ready.wait(), 60)
    view, events = await run_action(metis_server, "t_emit", {"n": 20}, topic=topic)
    results = await asyncio.wait_for(asyncio.gather(*tasks), 120)
    expected = [e["id"] for e in events]
    assert len(expected) == 23
    assert all(r == expected for r in results), sum(r != expected for r in results)


async def test_concurrency_limit_queues_and_queued_actions_survive_a_crash(server_factory, tmp_path):
    server = server_factory(tmp_path / "queue", env={"METIS_MAX_CONCURRENT": "1"})
    async with ToolBus.connect(server) as tb:
        hog = await tb.start("t_sleep", {"seconds": 60})
        await tb.wait_status(hog["action_id"], {"running"})
        queued = await tb.start("t_noop", {})
        await asyncio.sleep(0.3)
        assert (await tb.call("actions.get", {"action_id": queued["action_id"]}))["status"] == "queued"
        assert (await tb.call("session.whoami"))["tenant"] == "acme"  # the loop is not blocked
    server.stop(kill=True)
    restarted = server_factory(server.data_dir, env={"METIS_MAX_CONCURRENT": "1"})
    async with ToolBus.connect(restarted) as tb:
        assert (await tb.call("actions.get", {"action_id": hog["action_id"]}))["status"] == "running"  # resumed
        view = await tb.wait_status(queued["action_id"], {"completed"})
        assert view["outputs"] == {"ok": True}


async def test_approval_as_input_granted_by_approver(metis_server):
    async with ToolBus.connect(metis_server) as tb, ToolBus.connect(metis_server, "approver") as apr:
        started = await tb.start("t_ask", {"kind": "approval", "question": "egress to partner API"})
        await tb.wait_status(started["action_id"], {"waiting_user"})
        for _ in range(100):
            pending = [a for a in (await apr.call("approvals.list"))["approvals"]
                       if a.get("action_id") == started["action_id"] and a["status"] == "pending"]
            if pending:
                break
            await asyncio.sleep(0.05)
        assert pending and pending[0]["kind"] == "action_input"
        await apr.call("approvals.grant", {"approval_id": pending[0]["approval_id"], "note": "ok"})
        view = await tb.wait_status(started["action_id"], {"completed"})
        assert view["outputs"]["answer"]["granted"] is True


async def test_shutdown_closes_streams_cleanly(server_factory, tmp_path):
    server = server_factory(tmp_path / "shutdown")
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    writer.write(b"GET /streams/idle HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer tok-acme-canvas\r\n\r\n")
    await writer.drain()
    head = await reader.readuntil(b"\r\n\r\n")
    assert b"200" in head.split(b"\r\n")[0] and b"metis-resumed-after: 0" in head.lower()
    started = asyncio.get_running_loop().time()
    await asyncio.to_thread(server.stop)
    rest = await asyncio.wait_for(reader.read(), 20)  # EOF: the server closed the stream
    assert asyncio.get_running_loop().time() - started < 15
    assert isinstance(rest, bytes)
    writer.close()
    # uvicorn re-raises SIGTERM after its graceful shutdown; the lifespan's last line proves it ran
    server_log = (server.data_dir.parent / f"{server.data_dir.name}-server.log").read_text()
    assert '"event": "stopped"' in server_log


async def test_legacy_wu_event_aliases_only_behind_the_flag(metis_server, server_factory, tmp_path):
    _, plain = await sse_read(metis_server, "wu-test", query={"aliases": "wu", "token": "tok-acme-canvas"})
    assert plain[0]["status"] == 400
    server = server_factory(tmp_path / "wu", extra_args=["--wu-event-aliases"])
    view, _ = await run_action(server, "t_noop", {}, topic="wu-test")
    _, events = await sse_read(server, "wu-test", query={"aliases": "wu", "token": "tok-acme-canvas"},
                               until=lambda e: e["event"] == "wu_completed")
    assert [e["event"] for e in events] == ["wu_started", "wu_completed"]
    _, normal = await sse_read(server, "wu-test", until=ended(view["action_id"]))
    assert [e["event"] for e in normal] == ["action_started", "action_completed"]
