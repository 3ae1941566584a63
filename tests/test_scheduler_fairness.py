"""One tenant cannot stop everyone (issue 10 item 3): parked actions hold no slot, tenants share."""

from __future__ import annotations

import asyncio
import json
import re
import time

import httpx

from tests.support import ToolBus, answer_open_request


def _metric(text: str, name: str, tenant: str) -> float:
    m = re.search(rf'^{name}{{tenant="{tenant}"}} ([0-9.e+]+)$', text, re.M)
    assert m, f"{name} for {tenant} missing"
    return float(m.group(1))


async def test_parked_and_backlogged_tenant_leaves_room_for_another(server_factory, tmp_path):
    server = server_factory(tmp_path / "fair")  # 4 slots, tenants acme and globex
    async with ToolBus.connect(server, tenant="acme") as a, ToolBus.connect(server, tenant="globex") as b:
        # two wait on a person's answer, two on an approver's decision
        parked = [await a.start("t_ask", {"question": f"q{i}", "kind": "question" if i < 2 else "approval"})
                  for i in range(4)]
        for p in parked:
            await a.wait_status(p["action_id"], {"waiting_user"})
        hogs = [await a.start("t_sleep", {"seconds": 30}) for _ in range(6)]
        await asyncio.sleep(0.5)
        running = [h for h in hogs if (await a.call("actions.get", {"action_id": h["action_id"]}))["status"] == "running"]
        assert len(running) == 3  # acme alone: every slot but one (the parked ones hold none)

        t0 = time.monotonic()
        view, _ = await b.run("t_noop", {}, timeout=30)
        took = time.monotonic() - t0
        assert view["status"] == "completed" and took < 5.0, took

        metrics = httpx.get(server.http_url + "/metrics", timeout=5).text
        assert _metric(metrics, "metis_tenant_parked_actions", "acme") == 4
        assert _metric(metrics, "metis_tenant_running_actions", "acme") == 3
        assert _metric(metrics, "metis_tenant_queued_actions", "acme") == 3
        assert _metric(metrics, "metis_tenant_running_actions", "globex") == 0
        # the tenant label only ever names configured tenants
        tokens = json.loads((server.data_dir.parent / f"{server.data_dir.name}-tokens.json").read_text())
        assert set(re.findall(r'tenant="([^"]+)"', metrics)) <= {spec["tenant"] for spec in tokens.values()}

        # an answered one resumes ahead of its tenant's backlog as soon as a slot frees
        await answer_open_request(a, parked[0]["action_id"], "yes")
        await a.call("actions.cancel", {"action_id": running[0]["action_id"]})
        view = await a.wait_status(parked[0]["action_id"], {"completed"}, timeout=10)
        assert view["outputs"] == {"answer": "yes"}
        for h in (h for h in hogs if h is not running[0]):
            await a.call("actions.cancel", {"action_id": h["action_id"]})
