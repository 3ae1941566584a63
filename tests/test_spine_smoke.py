"""End to end over the real service: start -> events -> completed, through ToolBus and SSE."""

from __future__ import annotations

from tests.support import ToolBus, run_action


async def test_start_events_completed(metis_server):
    view, events = await run_action(metis_server, "t_emit", {"n": 3})
    assert view["status"] == "completed"
    names = [e["event"] for e in events]
    assert names[0] == "action_started" and names[-1] == "action_completed"
    assert [e["data"]["kind"] for e in events if e["event"] == "action_checkpoint"] == ["plan_delta"] * 3 + [
        "boundary_summary"]
    seqs = [e["id"] for e in events]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
    assert all(len(e["data"]["receipt_hash"]) == 64 for e in events)
    assert len(view["outputs"]["values"]) == 3


async def test_whoami_and_abilities(metis_server):
    async with ToolBus.connect(metis_server, "partner", "globex") as tb:
        assert await tb.call("session.whoami") == {"tenant": "globex", "roles": ["partner"]}
        names = {a["name"] for a in (await tb.call("abilities.list"))["abilities"]}
        assert {"t_emit", "t_noop"} <= names
