"""Hostile input on the ToolBus and SSE (issue: harden the service), over a real server.

Each test is a regression test for one class of the attack report: deep nesting, integers beyond
the bounds of the models, errors that lost their id, approval grants wider than requested,
reflect.verify showing other tenants' volume, and a subscription task dying silently.
"""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest

from orchestrator.hub import Hub
from orchestrator.jsonrpc import ID_SCAN_CHARS, MAX_DEPTH
from orchestrator.service import pump_events
from receipts.log import ReceiptLog
from schemas.toolbus import MAX_SEQ
from tests.support import MetisServer, RpcFailure, ToolBus, approved_reviewer, run_action

pytestmark = pytest.mark.timeout(180)


def nested(depth: int) -> object:
    value: object = 0
    for _ in range(depth):
        value = [value]
    return value


def deep_start(rid: int, depth: int) -> str:
    """An actions.start whose inputs nest ``depth`` lists deep, written without recursion."""
    inner = "[" * depth + "0" + "]" * depth
    head = '{"jsonrpc":"2.0","id":' + str(rid) + ',"method":"actions.start","params":{"ability":"t_noop","inputs":{"x":'
    return head + inner + "}}}"


async def raw_reply(tb: ToolBus, text: str, timeout: float = 20.0) -> dict:
    """Send a raw frame and wait for the unsolicited reply (its id is not one the client chose)."""
    await tb.send_raw(text)
    return await tb.next_unsolicited(timeout)


# -- item 6: nesting -----------------------------------------------------------------------------


@pytest.mark.parametrize("depth", [500, 900, 1000, 100_000])
async def test_deep_nesting_is_refused_naming_the_limit_and_the_socket_stays_open(metis_server, depth):
    async with ToolBus.connect(metis_server) as tb:
        reply = await raw_reply(tb, deep_start(9000 + depth, depth))
        assert reply["id"] == 9000 + depth
        assert reply["error"]["code"] == -32600
        assert str(MAX_DEPTH) in reply["error"]["message"] and reply["error"]["data"] == {"max_depth": MAX_DEPTH}
        assert (await tb.call("session.whoami"))["tenant"] == "acme"  # same connection, still served


async def test_nesting_within_the_limit_reaches_validation(metis_server):
    async with ToolBus.connect(metis_server) as tb:
        resp = await tb.request("actions.start", {"ability": "t_noop", "inputs": {"x": nested(MAX_DEPTH - 5)}})
        assert resp["error"]["code"] == -32602  # t_noop takes no inputs: the ability's own validation ran
        assert resp["error"]["data"]["errors"][0]["loc"][:2] == ["inputs", "x"]


# -- item 7: integer bounds ------------------------------------------------------------------------

HUGE = [2**63, 2**64 + 1, 10**30, -1]


@pytest.mark.parametrize("value", HUGE)
async def test_out_of_range_integers_are_invalid_params(metis_server, value):
    async with ToolBus.connect(metis_server) as tb:
        for method, params in [
            ("events.subscribe", {"topic": "t1", "last_event_id": value}),
            ("actions.start", {"ability": "t_noop", "inputs": {}, "budgets": {"tokens": value}}),
            ("actions.start", {"ability": "t_noop", "inputs": {}, "budgets": {"steps": value}}),
        ]:
            resp = await tb.request(method, params)
            assert resp["error"]["code"] == -32602, (method, params, resp)
        assert tb.notifications.empty()  # no subscription was created (and none died)
    async with ToolBus.connect(metis_server, "reviewer") as rv:
        for method, params in [
            ("reflect.proof", {"seq": value}),
            ("reflect.receipts", {"from_seq": value}),
            ("reflect.receipts", {"from_seq": 1, "to_seq": value}),
            ("reflect.verify", {"from_seq": value}),
            ("reflect.verify", {"to_seq": value}),
        ]:
            resp = await rv.request(method, params)
            assert resp["error"]["code"] == -32602, (method, params, resp)


async def test_largest_allowed_ids_are_answered_normally(metis_server):
    async with ToolBus.connect(metis_server) as tb:
        sub = await tb.call("events.subscribe", {"topic": "bounds", "last_event_id": MAX_SEQ})
        assert sub["subscription_id"].startswith("sub_")
        await tb.call("events.unsubscribe", sub)
    async with ToolBus.connect(metis_server, "reviewer") as rv:
        assert (await rv.request("reflect.proof", {"seq": MAX_SEQ}))["error"]["code"] == -32004


@pytest.mark.parametrize("header", [str(2**63), str(2**64), "-1", str(MAX_SEQ + 1)])
async def test_sse_last_event_id_out_of_range_is_400(metis_server, header):
    async with httpx.AsyncClient(timeout=10) as client:
        resp = await client.get(f"{metis_server.http_url}/streams/bounds",
                                headers={"Authorization": "Bearer tok-acme-canvas", "Last-Event-ID": header})
        assert resp.status_code == 400 and "Last-Event-ID" in resp.json()["error"]
        resp = await client.get(f"{metis_server.http_url}/streams/bounds",
                                params={"token": "tok-acme-canvas", "last_event_id": header})
        assert resp.status_code == 400


async def test_failing_subscription_sends_an_error_notification(tmp_path):
    """The subscription task's failure (here the log refusing a 2^63 seq) reaches the client."""
    rlog = ReceiptLog(tmp_path / "log")
    rlog.open()
    try:
        hub = Hub(rlog)
        sub = hub.subscribe("acme", "t")
        sent: list[tuple[str, dict]] = []

        async def notify(method: str, params: dict) -> None:
            sent.append((method, params))

        await asyncio.wait_for(pump_events(rlog, sub, "sub_x", "acme", "t", 2**63, notify), 10)
        assert [m for m, _ in sent] == ["subscription_failed"]
        params = sent[0][1]
        assert params["subscription_id"] == "sub_x" and params["last_event_id"] == 2**63
        assert params["error"]["code"] == -32603 and "OverflowError" in params["error"]["message"]
    finally:
        rlog.close()


# -- item 12: errors keep the request's id ------------------------------------------------------


@pytest.fixture(scope="module")
def limited_server(tmp_path_factory):
    server = MetisServer(tmp_path_factory.mktemp("limited") / "data",
                         env={"METIS_RATE_PER_S": "1", "METIS_RATE_BURST": "3",
                              "METIS_MAX_MESSAGE_BYTES": str(2 * ID_SCAN_CHARS)}).start()
    yield server
    server.stop()


async def test_rate_limited_errors_carry_the_request_id(limited_server):
    async with ToolBus.connect(limited_server) as tb:
        ids = [f"req-{i}" for i in range(8)]
        for rid in ids:
            await tb.send_raw(json.dumps({"jsonrpc": "2.0", "id": rid, "method": "session.whoami", "params": {}}))
        replies = [await tb.next_unsolicited() for _ in ids]
    by_id = {r["id"]: r for r in replies}
    assert sorted(by_id) == sorted(ids)  # every reply names its request, none is null
    limited = [r for r in replies if "error" in r]
    assert limited and all(r["error"]["code"] == -32029 for r in limited)


async def test_oversize_errors_carry_the_id_when_it_comes_first(limited_server):
    await asyncio.sleep(3.5)  # refill the bucket
    pad = "x" * (3 * ID_SCAN_CHARS)
    async with ToolBus.connect(limited_server) as tb:
        reply = await raw_reply(tb, json.dumps({"jsonrpc": "2.0", "id": 77, "method": "actions.start",
                                                "params": {"ability": "t_noop", "inputs": {"p": pad}}}))
        assert reply["id"] == 77 and reply["error"]["code"] == -32013
        # an "id" nested in params is not the request's id
        reply = await raw_reply(tb, '{"jsonrpc":"2.0","params":{"id":5,"p":"' + pad + '"},"id":"top","method":"m"}')
        assert reply["error"]["code"] == -32013 and reply["id"] is None  # "top" is beyond the scanned prefix
        reply = await raw_reply(tb, '{"jsonrpc":"2.0","params":{"id":5},"id":"top","method":"m","p":"' + pad + '"}')
        assert reply["error"]["code"] == -32013 and reply["id"] == "top"


# -- item 8: an approval covers what it was requested for ------------------------------------------


@pytest.fixture(scope="module")
def approvals_server(tmp_path_factory):
    """A server of its own: the widest grants below would open reflect.* on a shared server for
    the other tests' reviewer (for an hour)."""
    server = MetisServer(tmp_path_factory.mktemp("approvals") / "data").start()
    yield server
    server.stop()


async def test_grant_covers_exactly_the_requested_call_unless_widened_explicitly(approvals_server):
    metis_server = approvals_server
    a, _ = await run_action(metis_server, "t_emit", {"n": 1})
    b, _ = await run_action(metis_server, "t_emit", {"n": 1})
    async with ToolBus.connect(metis_server, "reviewer") as rv, ToolBus.connect(metis_server, "approver") as apr:
        # a grant for reflect.verify {} opens nothing else
        await approved_reviewer(metis_server, rv, "reflect.verify", {})
        for method, params in [("reflect.trace", {"action_id": a["action_id"]}),
                               ("reflect.verify", {"from_seq": 2}),
                               ("reflect.receipts", {"from_seq": 1})]:
            with pytest.raises(RpcFailure) as err:
                await rv.call(method, params)
            assert err.value.code == -32003 and err.value.data["method"] == method
            assert params.items() <= err.value.data["params"].items()  # as requested (defaults filled in)
        listed = {x["approval_id"]: x for x in (await apr.call("approvals.list"))["approvals"]}
        verify_grants = [x for x in listed.values() if x.get("method") == "reflect.verify"
                         and x["status"] == "granted" and x["params"] == {}]
        assert verify_grants and all(x["granted_scope"] == "call" for x in verify_grants)

        # widened on purpose to the action: every reflect method on action a, still not on b
        err = await rv.request("reflect.trace", {"action_id": a["action_id"]})
        approval_id = err["error"]["data"]["approval_id"]
        granted = await apr.call("approvals.grant", {"approval_id": approval_id, "scope": "action"})
        assert granted["granted_scope"] == "action" and granted["scope"] == f"action:{a['action_id']}"
        await rv.call("reflect.trace", {"action_id": a["action_id"]})
        await rv.call("reflect.receipts", {"action_id": a["action_id"]})
        assert (await rv.request("reflect.trace", {"action_id": b["action_id"]}))["error"]["code"] == -32003
        listed = {x["approval_id"]: x for x in (await apr.call("approvals.list"))["approvals"]}
        assert listed[approval_id]["granted_scope"] == "action"

        # "action" makes no sense for a log-wide request: refused, the approval stays pending
        err = await rv.request("reflect.proof", {"seq": 1})
        proof_id = err["error"]["data"]["approval_id"]
        bad = await apr.request("approvals.grant", {"approval_id": proof_id, "scope": "action"})
        assert bad["error"]["code"] == -32602
        # the widest scope, chosen explicitly, covers every reflect call of this reviewer
        await apr.call("approvals.grant", {"approval_id": proof_id, "scope": "log"})
        await rv.call("reflect.trace", {"action_id": b["action_id"]})
        await rv.call("reflect.verify", {"to_seq": 3})


# -- item 10: reflect.verify shows a tenant only its own volume ----------------------------------


async def test_verify_counts_only_the_callers_tenant_and_operators_see_the_log(server_factory):
    server = server_factory()
    await run_action(server, "t_emit", {"n": 2})
    async with ToolBus.connect(server, "reviewer") as rv:
        first = await approved_reviewer(server, rv, "reflect.verify", {})
        assert first["ok"] is True and first["scope"] == "tenant" and "tree_head" not in first
        await run_action(server, "t_emit", {"n": 6}, tenant="globex")  # another tenant's volume grows
        second = await rv.call("reflect.verify", {})
        assert second["checked"] == first["checked"] + 1  # only this call's own reflect record
        async with ToolBus.connect(server, token="tok-ops-operator") as op:
            whole = await op.call("reflect.verify", {})  # the operator role needs no approval
        assert whole["ok"] is True and whole["scope"] == "log"
        assert whole["checked"] == whole["tree_head"]["tree_size"] > second["checked"] + 6
        assert whole["tree_head"]["signed"]["tree_size"] >= second["checked"]


# -- issue 12: requests of one connection are handled concurrently -------------------------------


async def test_a_slow_request_does_not_hold_back_later_ones_on_the_same_connection(metis_server):
    view, _ = await run_action(metis_server, "t_sleep", {"seconds": 1.5})
    async with ToolBus.connect(metis_server, "reviewer") as rv:
        await approved_reviewer(metis_server, rv, "reflect.replay", {"action_id": view["action_id"]})
        order: list[str] = []

        async def timed(name: str, method: str, params: dict) -> None:
            await rv.call(method, params)
            order.append(name)

        replay = asyncio.create_task(timed("replay", "reflect.replay", {"action_id": view["action_id"]}))
        await asyncio.sleep(0.05)  # the replay's frame goes first
        await timed("whoami", "session.whoami", {})
        await replay
        assert order == ["whoami", "replay"]


# -- found by the fuzzer: non-ASCII tokens ------------------------------------------------------


async def test_non_ascii_tokens_are_refused_not_crashed_on(metis_server):
    async with ToolBus.connect(metis_server, auth=False) as tb:
        for token in ["¿e\x1e\x83", "tok-acme-partnér"]:
            resp = await tb.request("session.authenticate", {"token": token})
            assert resp["error"]["code"] == -32001, resp
        resp = await tb.request("session.authenticate", {"token": "\udc80"})  # not even a valid string
        assert resp["error"]["code"] == -32602, resp
        assert (await tb.call("session.authenticate", {"token": "tok-acme-partner"}))["tenant"] == "acme"
    async with httpx.AsyncClient(timeout=10) as client:
        for token in ["st_é.é", "tok-é"]:
            resp = await client.get(f"{metis_server.http_url}/streams/t1", params={"token": token})
            assert resp.status_code == 401
