"""Datasets live in the receipt log, so on PostgreSQL every replica has them: a version put on one
replica is listed, read and used by cda on another (which never saw the upload)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

from tests.support import ROOT, MetisServer, ToolBus, run_action

SHOP = json.loads((ROOT / "tests/data/cda/checkout.json").read_text())


async def test_a_version_put_on_one_replica_is_read_on_another(pg_url, tmp_path):
    keys = tmp_path / "keys"
    subprocess.run([sys.executable, "-m", "orchestrator.cli", "keys", "init", "--keys-dir", str(keys)], cwd=ROOT,
                   check=True, capture_output=True, timeout=60)
    args = ["--database", pg_url, "--keys-dir", str(keys), "--workers", "1"]
    one, two = MetisServer(tmp_path / "one", extra_args=args), MetisServer(tmp_path / "two", extra_args=args)
    with ThreadPoolExecutor(2) as pool:
        list(pool.map(MetisServer.start, (one, two)))
    try:
        async with ToolBus.connect(one) as tb:
            put = await tb.call("datasets.put", {"kind": "ken", "name": "shop", "content": SHOP})
        async with ToolBus.connect(two) as tb:
            for _ in range(100):  # the other replica learns it from the log (LISTEN/NOTIFY or its poll)
                listed = (await tb.call("datasets.list", {}))["datasets"]
                if listed:
                    break
                await asyncio.sleep(0.1)
            assert listed[0]["latest"]["sha256"] == put["sha256"]
            got = await tb.call("datasets.get", {"kind": "ken", "name": "shop"})
            assert got["content"] == SHOP and got["dataset"]["receipt"] == put["receipt"]
        view, _ = await run_action(two, "cda", {
            "problem": "Why are checkout alerts firing?", "ken": {"dataset": "shop"},
            "observations": [{"entity": "entity:payments", "predicate": "alert", "timestamp": 1000},
                             {"entity": "entity:checkout", "predicate": "alert", "timestamp": 1040}]}, timeout=90)
        assert view["status"] == "completed", view.get("error")
        assert (tmp_path / "two" / "datasets" / "acme" / "ken" / "shop" / "v1.json").is_file()
    finally:
        one.stop()
        two.stop()
