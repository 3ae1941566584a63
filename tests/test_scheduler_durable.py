"""Durable execution (issue 11 items 1-2) on the embedded default, over real server subprocesses:
parked actions hold no process, a crash loses no work, replay is exact or fails loudly."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys

import httpx

from receipts.canonical import canonical_json
from tests.support import ROOT, ToolBus, answer_open_request, ended, open_request, run_action, sse_read


def _verify(data_dir) -> dict:
    out = subprocess.run([sys.executable, "-m", "orchestrator.cli", "receipts", "verify", "--data-dir", str(data_dir)],
                         capture_output=True, text=True, cwd=ROOT, timeout=60)
    report = json.loads(out.stdout)
    assert out.returncode == 0 and report["ok"], report
    return report


def _gauge(server, name: str) -> float:
    text = httpx.get(server.http_url + "/metrics", timeout=5).text
    return float(re.search(rf"^{name} ([0-9.e+]+)$", text, re.M).group(1))


async def test_kill9_resumes_running_by_replay_and_keeps_waiting_ones_waiting(server_factory, tmp_path):
    server = server_factory(tmp_path / "crash")
    emit_inputs, emit_seed = {"n": 12, "delay_s": 0.25}, {"purpose": "undisturbed-vs-resumed"}
    ask_seed = {"purpose": "two-questions"}
    async with ToolBus.connect(server) as tb:
        reference, ref_events = await tb.run("t_emit", emit_inputs, seed=emit_seed)
        ask_reference, _ = await tb.run("t_ask2", {"steps": 3}, answer=lambda p: p["question"].upper(), seed=ask_seed)
        assert reference["status"] == ask_reference["status"] == "completed"
        waiting = await tb.start("t_ask2", {"steps": 3}, seed=ask_seed)
        await answer_open_request(tb, waiting["action_id"], "FIRST?")
        second = await open_request(tb, waiting["action_id"])
        assert second["question"] == "second?"
        started = await tb.start("t_emit", emit_inputs, seed=emit_seed)
    _, early = await sse_read(server, started["topic"], max_events=5)  # a few checkpoints are durable
    assert sum(e["event"] == "action_checkpoint" for e in early) >= 3
    server.stop(kill=True)  # the server and its workers die mid-run

    restarted = server_factory(server.data_dir)  # the data-dir lock died with its holder
    async with ToolBus.connect(restarted) as tb:
        view = await tb.call("actions.get", {"action_id": waiting["action_id"]})
        assert view["status"] == "waiting_user"
        view = await tb.wait_status(started["action_id"], {"completed", "failed", "partial"}, timeout=60)
        assert view["status"] == "completed", view
        await asyncio.sleep(0.2)
        assert _gauge(restarted, "metis_workers_idle") == _gauge(restarted, "metis_workers")  # waiting on no process
        assert canonical_json(view["outputs"]) == canonical_json(reference["outputs"])  # byte for byte
        again = await answer_open_request(tb, waiting["action_id"], "SECOND?")
        assert again["request_id"] == second["request_id"]
        done = await tb.wait_status(waiting["action_id"], {"completed"}, timeout=30)
        assert canonical_json(done["outputs"]) == canonical_json(ask_reference["outputs"])
    _, events = await sse_read(restarted, started["topic"], until=ended(started["action_id"]))
    checkpoints = [e["data"]["payload"] for e in events if e["event"] == "action_checkpoint"]
    assert checkpoints == [e["data"]["payload"] for e in ref_events if e["event"] == "action_checkpoint"]
    retry = [e["data"]["payload"] for e in events if e["data"].get("kind") == "retry"]
    assert retry and retry[0]["attempt"] == 2 and retry[0]["reason"] == "interrupted"
    _, events = await sse_read(restarted, waiting["topic"], until=ended(waiting["action_id"]))
    assert sum(e["event"] == "action_checkpoint" for e in events) == 6  # each step once, none replayed twice
    restarted.stop()
    _verify(server.data_dir)


async def test_parked_actions_hold_no_worker_process(server_factory, tmp_path):
    # ONE worker process in all: the old scheduler could run only one waiting action, and a parent
    # waiting on its sub-action kept the only worker from the child
    server = server_factory(tmp_path / "park", env={"METIS_WARM_WORKERS": "1", "METIS_MAX_WORKERS": "1"})
    async with ToolBus.connect(server) as tb:
        asks = [await tb.start("t_ask", {"question": f"q{i}?"}) for i in range(6)]
        questions = [await open_request(tb, a["action_id"]) for a in asks]
        assert [q["question"] for q in questions] == [f"q{i}?" for i in range(6)]
        assert _gauge(server, "metis_workers") == 1
        assert _gauge(server, "metis_workers_idle") == 1  # no process held by the 6 waiting
        view, _ = await tb.run("t_spawn", {"ability": "t_emit", "inputs": {"n": 2}}, timeout=60)
        assert view["status"] == "completed" and view["outputs"]["child_status"] == "completed"
        assert len(view["outputs"]["child_outputs"]["values"]) == 2
        for i, a in enumerate(asks):
            await answer_open_request(tb, a["action_id"], {"n": i})
        for i, a in enumerate(asks):
            done = await tb.wait_status(a["action_id"], {"completed"}, timeout=30)
            assert done["outputs"] == {"answer": {"n": i}}


async def test_a_replay_that_diverges_fails_nondeterministic(metis_server):
    async with ToolBus.connect(metis_server) as tb:
        started = await tb.start("t_nondet", {})
        await answer_open_request(tb, started["action_id"], "go")
        view = await tb.wait_status(started["action_id"], {"completed", "failed"}, timeout=30)
    assert view["status"] == "failed" and view["error"]["reason"] == "nondeterministic", view
    assert "action_checkpoint" in view["error"]["message"]


async def test_worker_death_mid_run_is_retried_by_replay(metis_server, tmp_path):
    marker = tmp_path / "crashed-once"
    view, events = await run_action(metis_server, "t_crash_once", {"marker": str(marker)}, timeout=60)
    assert marker.exists()  # the first run's worker did die
    assert view["status"] == "completed" and len(view["outputs"]["values"]) == 6
    checkpoints = [e["data"]["payload"]["i"] for e in events if e["event"] == "action_checkpoint"]
    assert checkpoints == list(range(6))  # the replayed ones were not written again
    retry = [e["data"]["payload"] for e in events if e["data"].get("kind") == "retry"]
    assert len(retry) == 1 and retry[0]["reason"] == "worker_crashed" and retry[0]["attempt"] == 2
