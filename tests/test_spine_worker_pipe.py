"""The worker pipe's lines: written straight to bytes (orjson) and read back to the same values,
including what orjson alone would get wrong or refuse (integers beyond 64 bits, lone surrogates),
and through a real worker process."""

from __future__ import annotations

import asyncio
import json
import os

import pytest

from orchestrator.jsonrpc import loads
from orchestrator.workers import WorkerProc, encode_line

VALUES = [
    {"op": "run", "inputs": {}, "job": {"action_id": "act_1", "budgets": {"wall_s": 300.0, "steps": None}}},
    {"op": "reply", "call_id": 3, "value": {"big": 2**70, "neg": -(2**65), "edge": 2**64 - 1}},
    {"op": "reply", "call_id": 4, "value": "caf\u00e9 \u2603 \U0001f600"},
    {"op": "reply", "call_id": 5, "value": "lone \ud800 surrogate"},
    {"op": "reply", "call_id": 6, "value": [0.1, 1e21, 5e-324, -0.0, 123456789012345678]},
]


@pytest.mark.parametrize("msg", VALUES)
def test_a_line_reads_back_to_the_same_value(msg):
    line = encode_line(msg)
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    back = loads(line)
    assert back == msg
    assert json.dumps(back, sort_keys=True) == json.dumps(msg, sort_keys=True)  # ints stay ints


async def test_a_worker_process_reads_what_the_parent_writes():
    env = {**os.environ, "METIS_WORKER_PREIMPORT": "0",
           "METIS_EXTRA_ABILITIES": "tests.abilities_testing:ABILITIES"}
    worker = await asyncio.wait_for(WorkerProc.start(env), 60)
    try:
        job = {"action_id": "act_pipe", "topic": "t", "tenant": "acme", "ability": "t_noop", "revision": 1,
               "seed": "00" * 32, "seed_fingerprint": "hmac-v1:0", "budgets": {"wall_s": 30.0},
               "lock": None, "dependencies": {"act_dep": {"outputs": {"n": 2**70}}}, "risk_class": None}
        worker.send({"op": "run", "inputs": {}, "job": job})
        done = await asyncio.wait_for(worker.recv(), 60)
        assert done == {"op": "done", "status": "completed", "outputs": {"ok": True}}
    finally:
        worker.kill()
        await worker.proc.wait()


@pytest.mark.parametrize(("mode", "imported"), [("wait", True), ("0", False)])
async def test_preload_mode_decides_what_a_ready_worker_has_imported(mode, imported):
    env = {**os.environ, "METIS_WORKER_PREIMPORT": mode,
           "METIS_EXTRA_ABILITIES": "tests.abilities_testing:PRELOAD_ABILITIES"}
    worker = await asyncio.wait_for(WorkerProc.start(env), 60)
    try:
        job = {"action_id": "act_pre", "topic": "t", "tenant": "acme", "ability": "t_preloaded", "revision": 1,
               "seed": "00" * 32, "seed_fingerprint": "hmac-v1:0", "budgets": {"wall_s": 30.0},
               "lock": None, "dependencies": {}, "risk_class": None}
        worker.send({"op": "run", "inputs": {}, "job": job})
        done = await asyncio.wait_for(worker.recv(), 60)
        assert done == {"op": "done", "status": "completed", "outputs": {"imported": imported}}
    finally:
        worker.kill()
        await worker.proc.wait()
