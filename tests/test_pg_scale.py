"""Parked actions cost nothing on PostgreSQL either: 1,000 actions waiting on a person with 2
worker processes, while 200 other actions complete; then a parked one is answered and
completes, and the log verifies offline. A real server subprocess on the throwaway database."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys

import httpx

from tests.support import ROOT, MetisServer, ToolBus, answer_open_request

PARKED, OTHERS = 1000, 200


def gauge(server: MetisServer, name: str) -> float:
    text = httpx.get(server.http_url + "/metrics", timeout=30).text
    return sum(float(v) for v in re.findall(rf"^{name}(?:{{[^}}]*}})? ([0-9.e+]+)$", text, re.M))


async def start_many(tb: ToolBus, ability: str, inputs: dict, n: int, chunk: int = 100) -> list[dict]:
    started: list[dict] = []
    for k in range(0, n, chunk):
        started += await asyncio.gather(*(tb.start(ability, inputs) for _ in range(min(chunk, n - k))))
    return started


def test_thousand_parked_with_two_workers_while_others_complete(pg_url, tmp_path):
    server = MetisServer(tmp_path / "data", extra_args=["--database", pg_url],
                         env={"METIS_WARM_WORKERS": "2", "METIS_MAX_WORKERS": "2",
                              # one client drives it all: lift the per-connection frame rate limit
                              "METIS_RATE_PER_S": "1000000", "METIS_RATE_BURST": "1000000"})
    server.start()
    try:
        async def go() -> None:
            async with ToolBus.connect(server) as tb:
                asks = await start_many(tb, "t_ask", {"question": "ok?"}, PARKED)
                for _ in range(600):
                    if gauge(server, "metis_tenant_parked_actions") >= PARKED:
                        break
                    await asyncio.sleep(0.1)
                assert gauge(server, "metis_tenant_parked_actions") == PARKED
                others = await start_many(tb, "t_noop", {}, OTHERS)
                done = await asyncio.gather(*(tb.wait_status(o["action_id"], {"completed"}, timeout=240)
                                              for o in others))
                assert all(v["status"] == "completed" for v in done)
                health = httpx.get(server.http_url + "/healthz", timeout=30).json()
                assert health["workers"] <= 2  # the parked thousand hold no process
                await answer_open_request(tb, asks[0]["action_id"], "yes")
                view = await tb.wait_status(asks[0]["action_id"], {"completed"}, timeout=120)
                assert view["status"] == "completed"
                assert (await tb.call("actions.get", {"action_id": asks[-1]["action_id"]}))["status"] == "waiting_user"

        asyncio.run(go())
    finally:
        server.stop()
    out = subprocess.run([sys.executable, "-m", "orchestrator.cli", "receipts", "verify", "--database", pg_url,
                          "--keys-dir", str(server.data_dir)], capture_output=True, text=True, cwd=ROOT, timeout=300)
    report = json.loads(out.stdout)
    assert out.returncode == 0 and report["ok"], report
    assert report["checked"] >= 3 * PARKED + 3 * OTHERS  # created, running, waiting_user... each durable
