"""ToolBus method behaviour that clients page and wait on (real server)."""

from __future__ import annotations

import secrets

from tests.support import ToolBus


async def test_actions_list_pages_by_cursor_in_creation_order(metis_server):
    topic = "paging-" + secrets.token_hex(4)
    async with ToolBus.connect(metis_server) as tb:
        ids = [(await tb.start("t_noop", {}, topic=topic))["action_id"] for _ in range(5)]
        seen: list[str] = []
        after = None
        while True:
            params = {"topic": topic, "limit": 2, **({"after": after} if after else {})}
            page = await tb.call("actions.list", params)
            seen += [a["action_id"] for a in page["actions"]]
            assert len(page["actions"]) <= 2
            after = page.get("next")
            if after is None:
                break
            assert after == seen[-1]
        assert seen == ids
        exact = await tb.call("actions.list", {"topic": topic, "limit": 5})
        assert "next" not in exact and len(exact["actions"]) == 5
        missing = await tb.request("actions.list", {"topic": topic, "after": "act_00000000000000000000"})
        assert missing["error"]["code"] == -32004


async def test_subscribe_answer_precedes_its_events_and_events_keep_seq_order(metis_server):
    """Pipelined subscribes on one connection: each answer comes before that subscription's first
    event, and each subscription's events arrive in seq order."""
    import json

    import websockets

    async with ToolBus.connect(metis_server) as tb:
        view, _ = await tb.run("t_emit", {"n": 30})
    headers = {"Authorization": f"Bearer {metis_server.token()}"}
    async with websockets.connect(metis_server.ws_url, additional_headers=headers) as ws:
        for i in range(8):
            await ws.send(json.dumps({"jsonrpc": "2.0", "id": i, "method": "events.subscribe",
                                      "params": {"topic": view["topic"], "last_event_id": i}}))
        answered: dict[str, int] = {}  # subscription id -> request id
        seqs: dict[str, list[int]] = {}
        while len(answered) < 8 or any(len(s) < 1 for s in seqs.values()) or len(seqs) < 8:
            msg = json.loads(await ws.recv())
            if "result" in msg:
                answered[msg["result"]["subscription_id"]] = msg["id"]
            elif msg.get("method") == "event":
                sid = msg["params"]["subscription_id"]
                assert sid in answered, "an event came before its subscription's answer"
                seqs.setdefault(sid, []).append(msg["params"]["id"])
        for sid, got in seqs.items():
            assert got == sorted(got) and got[0] > answered[sid]
