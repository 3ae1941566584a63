"""One connection pipelining more requests than it runs at once (``MAX_INFLIGHT``) gets every
answer, matched by id, and batches count against the same bound.

Over a real server and a real WebSocket client: the reading loop stops reading while the
connection is full and goes on as requests finish, so nothing is lost or answered twice.
"""

from __future__ import annotations

import asyncio
import json

import websockets

from orchestrator.toolbus import MAX_INFLIGHT
from tests.support import MetisServer


async def _connect(server: MetisServer):  # noqa: ANN202
    return await websockets.connect(server.ws_url, additional_headers={"Authorization": f"Bearer {server.token()}"},
                                    max_size=16 * 1024 * 1024)


async def test_more_pipelined_starts_than_run_at_once_are_all_answered_by_id(metis_server: MetisServer):
    n = 2 * MAX_INFLIGHT + 50
    ws = await _connect(metis_server)
    try:
        for i in range(n):
            await ws.send(json.dumps({"jsonrpc": "2.0", "id": i, "method": "actions.start",
                                      "params": {"ability": "t_noop", "inputs": {}, "topic": "pipelined"}}))
        answers: dict[int, dict] = {}
        while len(answers) < n:
            msg = json.loads(await asyncio.wait_for(ws.recv(), 120))
            if "id" in msg:
                assert msg["id"] not in answers, f"answered twice: {msg['id']}"
                answers[msg["id"]] = msg
        assert sorted(answers) == list(range(n))
        assert all("result" in m for m in answers.values()), [m for m in answers.values() if "result" not in m][:3]
        assert len({m["result"]["action_id"] for m in answers.values()}) == n
    finally:
        await ws.close()


async def test_batches_and_single_requests_share_the_bound_and_all_get_answers(metis_server: MetisServer):
    ws = await _connect(metis_server)
    try:
        batches = 4
        size = 90  # 4 x 90 requests in batches: more than MAX_INFLIGHT together
        for b in range(batches):
            await ws.send(json.dumps([{"jsonrpc": "2.0", "id": f"b{b}-{k}", "method": "actions.start",
                                       "params": {"ability": "t_noop", "inputs": {}, "topic": "batched"}}
                                      for k in range(size)]))
            await ws.send(json.dumps({"jsonrpc": "2.0", "id": f"s{b}", "method": "session.whoami", "params": {}}))
        arrays: list[list[dict]] = []
        singles: set[str] = set()
        while len(arrays) < batches or len(singles) < batches:
            msg = json.loads(await asyncio.wait_for(ws.recv(), 120))
            if isinstance(msg, list):
                arrays.append(msg)
            elif "id" in msg:
                singles.add(msg["id"])
        assert singles == {f"s{b}" for b in range(batches)}
        for arr in arrays:
            b = arr[0]["id"].split("-")[0]
            assert [m["id"] for m in arr] == [f"{b}-{k}" for k in range(size)]  # request order
            assert all("result" in m for m in arr)
    finally:
        await ws.close()
