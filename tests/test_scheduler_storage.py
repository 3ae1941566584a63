"""A full disk shows nothing that did not happen (issue 10 item 5), on a real full filesystem.

The data directory is a small tmpfs mounted for the test (needs root; skipped with the reason
otherwise). A filler file takes every free byte; then:
- ``actions.start`` answers -32053 (retryable) and leaves no phantom action in lists or views;
- an action that ends meanwhile is not shown ``completed`` while its end record cannot be written;
- ``/readyz`` answers 503 naming the storage problem;
and once the filler is gone the service recovers by itself: ready, the action completed, new starts
work, and the log verifies after a restart.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.support import ROOT, MetisServer, RpcFailure, ToolBus


@pytest.fixture
def small_fs(tmp_path: Path):
    mnt = tmp_path / "srv" / "data"
    mnt.mkdir(parents=True)
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=24m,mode=0700", "tmpfs", str(mnt)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], capture_output=True)


def fill(directory: Path) -> Path:
    """Take every free byte of the filesystem with one file; returns its path."""
    path = directory / "filler.bin"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        for size in (1 << 20, 1 << 16, 1 << 12, 1 << 9, 1):
            while True:
                try:
                    os.write(fd, b"\xff" * size)
                except OSError as exc:
                    assert exc.errno == errno.ENOSPC, exc
                    break
    finally:
        os.close(fd)
    return path


async def _ready(server: MetisServer) -> httpx.Response:
    async with httpx.AsyncClient() as client:
        return await client.get(server.http_url + "/readyz", timeout=5)


async def _eventually(predicate, timeout: float = 20.0):
    deadline = time.monotonic() + timeout
    while True:
        value = await predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        await asyncio.sleep(0.1)


async def test_full_disk_refuses_cleanly_shows_nothing_undurable_and_recovers(small_fs):
    server = MetisServer(small_fs, env={"METIS_TREE_HEAD_INTERVAL_S": "0.5"}).start()
    try:
        async with ToolBus.connect(server) as tb:
            view, _ = await tb.run("t_noop", {})
            assert view["status"] == "completed"
            assert (await _ready(server)).status_code == 200
            sleeper = await tb.start("t_sleep", {"seconds": 1.5})
            await tb.wait_status(sleeper["action_id"], {"running"})
            before = {a["action_id"] for a in (await tb.call("actions.list", {"limit": 500}))["actions"]}
            filler = fill(small_fs)

            refused = 0
            for _ in range(5):
                with pytest.raises(RpcFailure) as err:
                    await tb.start("t_noop", {})
                assert err.value.code == -32053, err.value
                assert err.value.data["retryable"] is True
                refused += 1
            after = {a["action_id"] for a in (await tb.call("actions.list", {"limit": 500}))["actions"]}
            assert after == before, "a refused start left a phantom action"

            ready = await _ready(server)
            assert ready.status_code == 503 and "storage" in ready.json()["reason"]

            await asyncio.sleep(3.0)  # the sleeper has finished computing; its end cannot be written
            view = await tb.call("actions.get", {"action_id": sleeper["action_id"]})
            assert view["status"] == "running", view
            listed = [a for a in (await tb.call("actions.list", {"limit": 500}))["actions"]
                      if a["action_id"] == sleeper["action_id"]]
            assert listed[0]["status"] == "running"
            assert (await _ready(server)).status_code == 503

            filler.unlink()  # space returns: the service recovers by itself

            async def ready_again():
                return (await _ready(server)).status_code == 200

            await _eventually(ready_again)
            done = await tb.wait_status(sleeper["action_id"], {"completed"}, timeout=20)
            assert done["outputs"]["ticks"] > 0
            view, _ = await tb.run("t_noop", {})
            assert view["status"] == "completed"
            count = len((await tb.call("actions.list", {"limit": 500}))["actions"])
            assert count == len(before) + 1
    finally:
        server.stop()
    restarted = MetisServer(small_fs).start()
    try:
        async with ToolBus.connect(restarted) as tb:
            view = await tb.call("actions.get", {"action_id": sleeper["action_id"]})
            assert view["status"] == "completed"
            assert len((await tb.call("actions.list", {"limit": 500}))["actions"]) == count
    finally:
        restarted.stop()
    out = subprocess.run([sys.executable, "-m", "orchestrator.cli", "receipts", "verify", "--data-dir", str(small_fs)],
                         capture_output=True, text=True, cwd=ROOT, timeout=60)
    with contextlib.suppress(ValueError):
        report = json.loads(out.stdout)
        assert report["ok"], report
    assert out.returncode == 0, out.stdout + out.stderr
