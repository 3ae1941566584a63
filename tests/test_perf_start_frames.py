"""The ToolBus writes a connection's frames of one event-loop turn in one socket write, and sends
``event`` notifications cut from the record's canonical bytes. Both must leave what a client sees
unchanged: one JSON-RPC message per WebSocket frame, every answer matched by id, every
notification equal to the one built from ``event_data`` (same keys, same order, same values)."""

from __future__ import annotations

import asyncio
import json

import websockets
from hypothesis import given, settings
from hypothesis import strategies as st

from orchestrator.events import event_data, event_message
from receipts.canonical import parse_canonical
from tests.support import MetisServer
from tests.test_perf_sse_frames import JSONV, KEYS, TEXT, record


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(KEYS, JSONV, max_size=6), TEXT, st.one_of(st.none(), TEXT), st.integers(1, 2**40),
       st.text(max_size=12))
def test_event_message_equals_the_notification_built_from_event_data(payload: dict, topic: str,
                                                                      action_id: str | None, seq: int,
                                                                      sid: str) -> None:
    rec = record(payload, topic, action_id, seq)
    message = event_message(sid, rec)
    want = {"jsonrpc": "2.0", "method": "event",
            "params": {"subscription_id": sid, "id": seq, "event": rec.name, "data": event_data(rec)}}
    if message is None:  # the payload may repeat one of the event's own keys: the caller builds it
        assert any(f'"{k}":' in json.dumps(payload) for k in ("action_id", "topic", "seq", "ts", "receipt_hash"))
        return
    got = parse_canonical(message)  # numbers as the receipt writes them (RFC 8785)
    assert got == want
    assert list(got) == list(want) and list(got["params"]) == list(want["params"])
    assert list(got["params"]["data"]) == list(want["params"]["data"])


def test_event_message_escapes_the_subscription_id_and_name() -> None:
    rec = record({"ability": "a", "revision": 1, "payload": {}}, "t", "act_1", 7)
    message = event_message('sub_"\\\u2028é', rec)
    assert message is not None
    assert json.loads(message)["params"]["subscription_id"] == 'sub_"\\\u2028é'


async def test_a_burst_of_answers_and_events_arrives_one_message_per_frame(metis_server: MetisServer):
    """300 pipelined starts on a subscribed topic: answers released together by one commit are
    written together, yet each arrives as its own frame, once, and each action's events arrive in
    log order with the notification's id equal to the record's seq."""
    n = 300
    ws = await websockets.connect(metis_server.ws_url, max_size=16 * 1024 * 1024,
                                  additional_headers={"Authorization": f"Bearer {metis_server.token()}"})
    try:
        await ws.send(json.dumps({"jsonrpc": "2.0", "id": "sub", "method": "events.subscribe",
                                  "params": {"topic": "frames-burst"}}))
        while True:
            msg = json.loads(await asyncio.wait_for(ws.recv(), 60))
            if msg.get("id") == "sub":
                sid = msg["result"]["subscription_id"]
                break
        for i in range(n):
            await ws.send(json.dumps({"jsonrpc": "2.0", "id": i, "method": "actions.start",
                                      "params": {"ability": "t_noop", "inputs": {}, "topic": "frames-burst"}}))
        answers: dict[int, dict] = {}
        ended: set[str] = set()
        seqs: list[int] = []
        while len(answers) < n or len(ended) < n:
            msg = json.loads(await asyncio.wait_for(ws.recv(), 120))  # one frame: one whole message
            if "id" in msg:
                assert msg["id"] not in answers, f"answered twice: {msg['id']}"
                assert "result" in msg, msg
                answers[msg["id"]] = msg["result"]
                continue
            assert msg["method"] == "event"
            params = msg["params"]
            assert list(params) == ["subscription_id", "id", "event", "data"]
            assert params["subscription_id"] == sid and params["data"]["seq"] == params["id"]
            assert params["data"]["topic"] == "frames-burst" and len(params["data"]["receipt_hash"]) == 64
            seqs.append(params["id"])
            if params["event"] == "action_completed":
                ended.add(params["data"]["action_id"])
        assert sorted(answers) == list(range(n))
        assert ended == {r["action_id"] for r in answers.values()}
        assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)  # log order, none twice
    finally:
        await ws.close()
