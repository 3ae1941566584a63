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
