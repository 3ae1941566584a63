"""The data directory: one server at a time (issue 10 item 11), secrets 0600 (item 1)."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time

import httpx

from tests.support import ROOT, MetisServer, ToolBus, free_port, write_tokens


def _mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_second_server_on_same_data_dir_refuses_naming_the_holder(server_factory, tmp_path):
    first = server_factory(tmp_path / "shared")
    tokens = write_tokens(tmp_path / "tokens2.json")
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    second = subprocess.run(
        [sys.executable, "-m", "orchestrator.cli", "serve", "--port", str(port), "--data-dir", str(first.data_dir),
         "--tokens", str(tokens)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=90)
    assert second.returncode != 0
    assert f"pid {first.proc.pid}" in second.stderr, second.stderr[-2000:]
    assert "in use" in second.stderr
    # the first server is untouched (a restart after its kill -9: tests/test_scheduler_durable.py)
    assert httpx.get(first.http_url + "/healthz", timeout=5).json()["status"] == "ok"


async def test_secrets_and_log_files_are_created_0600(tmp_path):
    server = MetisServer(tmp_path / "fresh", tokens_file=False, env={"METIS_TREE_HEAD_INTERVAL_S": "0.2"})
    server.start()
    try:
        d = server.data_dir
        token = next(t for t, spec in json.loads((d / "tokens.json").read_text()).items()
                     if "partner" in spec["roles"])
        async with ToolBus.connect(server, token=token) as tb:
            view, _ = await tb.run("t_noop", {})
            assert view["status"] == "completed"
        deadline = time.monotonic() + 10
        while not (d / "tree_head.json").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        for name in ("tokens.json", "server.key", "signing_key.pem", "receipts.sqlite3", "receipts.sqlite3-wal",
                     "receipts.sqlite3-shm", "tree_head.json", "metis.lock"):
            assert _mode(d / name) == 0o600, (name, oct(_mode(d / name)))
    finally:
        server.stop()
    # files an older version left readable are tightened at the next start
    for name in ("receipts.sqlite3", "server.key", "tree_head.json", "tokens.json"):
        os.chmod(d / name, 0o644)
    server = MetisServer(d, tokens_file=False).start()
    try:
        for name in ("receipts.sqlite3", "server.key", "tree_head.json", "tokens.json"):
            assert _mode(d / name) == 0o600, name
    finally:
        server.stop()
