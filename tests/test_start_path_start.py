"""``actions.start`` on a real server: the unknown-ability error names every ability, and starts of
an ability with empty inputs keep working once its empty inputs are validated (and reused)."""

from __future__ import annotations

import pytest

from abilities import registry
from tests.support import MetisServer, RpcFailure, ToolBus, ended


async def test_unknown_ability_lists_every_name(metis_server: MetisServer):
    async with ToolBus.connect(metis_server) as tb:
        with pytest.raises(RpcFailure) as info:
            await tb.start("no_such_ability", {})
    assert info.value.code == -32602
    (error,) = info.value.data["errors"]
    assert error["loc"] == ["ability"] and "no_such_ability" in error["msg"]
    known = error["known"]
    assert known == sorted(known)
    assert set(registry.BUILTIN) <= set(known)  # built-ins by name, none imported to list them
    assert {"t_noop", "t_emit"} <= set(known)  # and the extra abilities the server was given


async def test_repeated_empty_input_starts_each_run(metis_server: MetisServer):
    async with ToolBus.connect(metis_server) as tb:
        started = [await tb.start("t_noop", {}) for _ in range(3)]
        assert len({s["action_id"] for s in started}) == 3
        assert len({s["seed_fingerprint"] for s in started}) == 3  # each action its own seed
        for s in started:
            events = await tb.follow(s["topic"], s["action_id"])
            assert ended(s["action_id"])(events[-1]), events[-1]
            view = await tb.call("actions.get", {"action_id": s["action_id"]})
            assert view["status"] == "completed" and view["seed_fingerprint"] == s["seed_fingerprint"]
