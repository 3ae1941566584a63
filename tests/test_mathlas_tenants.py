"""mathlas live findings are per tenant: one tenant's add_finding is invisible to another."""

from __future__ import annotations

from tests.support import run_action


async def test_findings_do_not_cross_tenants(metis_server):
    finding = {"name": "Zorbulon quasi-lemma", "statement": "Every zorbulon admits a quasi-splitting.",
               "field": "test", "source": "tenant isolation test"}
    view, _ = await run_action(metis_server, "mathlas", {"tool": "add_finding", "args": finding})
    assert view["status"] == "completed" and view["outputs"]["result"]["added"] is True
    query = {"tool": "search_existing_math", "args": {"query": "zorbulon quasi-splitting", "k": 3}}
    mine, _ = await run_action(metis_server, "mathlas", query)
    theirs, _ = await run_action(metis_server, "mathlas", query, tenant="globex")
    assert any("Zorbulon" in r.get("name", "") for r in mine["outputs"]["result"]["results"])
    assert not any("Zorbulon" in r.get("name", "") for r in theirs["outputs"]["result"]["results"])
