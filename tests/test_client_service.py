"""metis_client against a real server: start, follow, answer, result; errors; many calls in flight;
subscriptions; reconnect and resume after a restart; timeouts; the synchronous wrapper."""

from __future__ import annotations

import asyncio
import json
import time

import pytest
import websockets

from metis_client import CallTimeout, Client, ConnectionLost, MetisError, SyncClient
from tests.support import free_port, sse_read


async def test_start_follow_answer_and_result(metis_server):
    async with Client(metis_server.http_url, token=metis_server.token()) as c:
        assert c.principal == {"tenant": "acme", "roles": ["partner"]}
        act = await c.start("t_ask", {"question": "colour?"}, seed_purpose="client-test")
        seen, pending = [], None
        async for ev in act.events():
            seen.append(ev)
            if ev.event == "action_waiting_user":
                pending = (await act.get()).get("pending")
                await act.answer(ev.data["payload"]["request_id"], {"claim": "blue"})
        view = await act.result()
    assert seen[-1].event == "action_completed" and seen[-1].action_id == act.action_id
    assert [e.id for e in seen] == sorted({e.id for e in seen})
    assert pending and pending[0]["request_id"] == seen[[e.event for e in seen].index("action_waiting_user")].payload["request_id"]
    assert pending[0]["question"] == "colour?"
    assert view["status"] == "completed" and view["outputs"] == {"answer": {"claim": "blue"}}
    assert "pending" not in view


async def test_result_waits_for_the_end_and_errors_carry_code_and_data(metis_server):
    async with Client(metis_server.ws_url, token=metis_server.token()) as c:
        act = await c.start("t_emit", {"n": 3, "delay_s": 0.05})
        view = await act.result(timeout=60)
        assert view["status"] == "completed" and len(view["outputs"]["values"]) == 3
        with pytest.raises(MetisError) as err:
            await c.start("t_emit", {"n": -1})
        assert err.value.code == -32602
        assert err.value.data["errors"][0]["loc"] == ["inputs", "n"]
        with pytest.raises(MetisError) as err:
            await c.call("no.such.method")
        assert err.value.code == -32601
        failed = await (await c.start("t_fail", {"reason": "nope"})).result(timeout=60)
        assert failed["status"] == "failed" and failed["error"]["reason"] == "nope"


async def test_many_calls_in_flight_on_one_connection(metis_server):
    async with Client(metis_server.http_url, token=metis_server.token()) as c:
        acts = await asyncio.gather(*[c.start("t_noop", {}) for _ in range(10)])
        views = await asyncio.gather(*[c.call("actions.get", {"action_id": a.action_id}) for a in acts],
                                     *[c.call("session.whoami") for _ in range(30)])
    assert [v["action_id"] for v in views[:10]] == [a.action_id for a in acts]
    assert all(v == {"tenant": "acme", "roles": ["partner"]} for v in views[10:])


async def test_a_refused_token_says_so(metis_server):
    with pytest.raises(MetisError) as err:
        async with Client(metis_server.http_url, token="bogus"):
            pass
    assert err.value.code == -32001 and "refused the token" in err.value.message


async def test_an_unreachable_server_fails_fast():
    t0 = time.monotonic()
    with pytest.raises(ConnectionLost) as err:
        async with Client(f"http://127.0.0.1:{free_port()}", token="t"):
            pass
    assert time.monotonic() - t0 < 5 and "connection refused" in err.value.message


async def test_a_silent_server_times_out():
    async def silent(ws):
        await ws.wait_closed()

    async with websockets.serve(silent, "127.0.0.1", 0) as server:
        port = server.sockets[0].getsockname()[1]
        c = Client(f"ws://127.0.0.1:{port}", token="t", timeout=0.5)
        t0 = time.monotonic()
        with pytest.raises(CallTimeout) as err:
            await c.connect()
        assert err.value.code == -2 and "session.whoami: no answer in 0.5 s" in err.value.message
        assert time.monotonic() - t0 < 3
        await c.close()
        server.close()


async def test_subscriptions_get_their_own_events(metis_server):
    async with Client(metis_server.http_url, token=metis_server.token()) as c:
        a = await c.start("t_emit", {"n": 2})
        b = await c.start("t_emit", {"n": 3})
        sa, sb = await c.subscribe(a.topic), await c.subscribe(b.topic)
        got: dict[str, list] = {a.action_id: [], b.action_id: []}
        for sub, act in ((sa, a), (sb, b)):
            while True:
                ev = await sub.get(timeout=30)
                got[act.action_id].append(ev)
                if ev.terminal:
                    break
            await sub.close()
    assert {e.action_id for e in got[a.action_id]} == {a.action_id}
    assert {e.action_id for e in got[b.action_id]} == {b.action_id}
    assert sum(e.kind == "plan_delta" for e in got[b.action_id]) == 3


async def test_stream_and_calls_resume_across_a_server_restart(server_factory):
    server = server_factory(extra_args=["--workers", "1"], env={"METIS_WORKER_PREIMPORT": "0"})
    async with Client(server.http_url, token=server.token(), reconnect_for=60) as c:
        act = await c.start("t_emit", {"n": 40, "delay_s": 0.05}, topic="restart-topic")
        sub = await c.subscribe("restart-topic")
        got = []
        async for ev in act.events():
            got.append(ev)
            if len(got) == 5:
                server.stop()
                server.start()
        # the restart interrupted the action: the stream resumed and delivered its end
        assert got[-1].terminal and got[-1].action_id == act.action_id
        ids = [e.id for e in got]
        assert ids == sorted(set(ids))
        _, everything = await sse_read(server, "restart-topic", token=server.token(), until=lambda e: e["event"] == got[-1].event)
        assert ids == [e["id"] for e in everything]
        # the ToolBus connection came back too, and the subscription resumed without a duplicate
        assert (await c.call("session.whoami"))["tenant"] == "acme"
        sub_ids = []
        while not sub_ids or sub_ids[-1] != ids[-1]:
            sub_ids.append((await sub.get(timeout=30)).id)
        assert sub_ids == ids


def test_sync_client(metis_server, monkeypatch, tmp_path):
    (tmp_path / "tokens.json").write_text(json.dumps({metis_server.token(): {"tenant": "acme", "roles": ["partner"]}}))
    monkeypatch.setenv("METIS_URL", metis_server.http_url)
    monkeypatch.delenv("METIS_TOKEN", raising=False)
    monkeypatch.setenv("METIS_DATA_DIR", str(tmp_path))
    with SyncClient.from_env() as c:
        assert c.whoami()["tenant"] == "acme"
        act = c.start("t_ask", {"question": "sync?"})
        names = []
        for ev in act.events():
            names.append(ev.event)
            if ev.event == "action_waiting_user":
                act.answer(ev.payload["request_id"], 42)
        assert act.result()["outputs"] == {"answer": 42}
        assert names[-1] == "action_completed"
        with pytest.raises(MetisError) as err:
            c.call("actions.get", {"action_id": "act_missing"})
        assert err.value.code == -32004


async def test_a_dropped_connection_fails_calls_in_flight_then_reconnects_or_gives_up():
    """Against a small real WebSocket peer: whoami answers, 'drop' closes the connection."""
    connections = []

    async def peer(ws):
        connections.append(ws)
        async for raw in ws:
            msg = json.loads(raw)
            if msg["method"] == "drop":
                await ws.close()
                return
            await ws.send(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": {"tenant": "t", "roles": ["partner"]}}))

    server = await websockets.serve(peer, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    c = Client(f"ws://127.0.0.1:{port}", token="t", reconnect_for=1.0, timeout=5)
    await c.connect()
    with pytest.raises(ConnectionLost):
        await c.call("drop")
    assert (await c.call("session.whoami"))["tenant"] == "t"  # reconnected in the background
    assert len(connections) == 2
    server.close()
    await server.wait_closed()
    with pytest.raises(ConnectionLost):
        await c.call("drop")
    t0 = time.monotonic()
    with pytest.raises(ConnectionLost) as err:
        await c.call("session.whoami")
    assert time.monotonic() - t0 < 3
    assert "cannot reach" in err.value.message or "could not reconnect" in err.value.message
    await c.close()


async def test_a_stream_token_opens_a_stream_the_bearer_token_may_not_read(metis_server):
    async with Client(metis_server.http_url, token=metis_server.token()) as c:
        act = await c.start("t_emit", {"n": 1})
        await act.result(timeout=60)
    async with Client(metis_server.http_url, token=metis_server.token("reviewer")) as rv:
        with pytest.raises(MetisError) as err:
            async for _ in rv.stream(act.topic):
                pass
        assert err.value.code == -32001 and "refused the token" in err.value.message
        names = []
        async for ev in rv.stream(act.topic, stream_token=act.stream_token):
            names.append(ev.event)
            if ev.terminal:
                break
    assert names[0] == "action_started" and names[-1] == "action_completed"
