"""Durable execution (issue 11 items 1-2) on the embedded default, over real server subprocesses:
parked actions hold no process, a crash loses no work, replay is exact or fails loudly."""

from __future__ import annotations

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


async def test_kill9_mid_run_resumes_by_replay_with_identical_outputs(server_factory, tmp_path):
    server = server_factory(tmp_path / "crash")
    inputs, seed = {"n": 12, "delay_s": 0.25}, {"purpose": "undisturbed-vs-resumed"}
    async with ToolBus.connect(server) as tb:
        reference, ref_events = await tb.run("t_emit", inputs, seed=seed)
        assert reference["status"] == "completed"
        started = await tb.start("t_emit", inputs, seed=seed)
    _, early = await sse_read(server, started["topic"], max_events=5)  # a few checkpoints are durable
    assert sum(e["event"] == "action_checkpoint" for e in early) >= 3
    server.stop(kill=True)  # the server and its workers die mid-run

    restarted = server_factory(server.data_dir)
    async with ToolBus.connect(restarted) as tb:
        view = await tb.wait_status(started["action_id"], {"completed", "failed", "partial"}, timeout=60)
    assert view["status"] == "completed", view
    assert canonical_json(view["outputs"]) == canonical_json(reference["outputs"])  # byte for byte
    _, events = await sse_read(restarted, started["topic"], until=ended(started["action_id"]))
    checkpoints = [e["data"]["payload"] for e in events if e["event"] == "action_checkpoint"]
    assert checkpoints == [e["data"]["payload"] for e in ref_events if e["event"] == "action_checkpoint"]
    retry = [e["data"]["payload"] for e in events if e["data"].get("kind") == "retry"]
    assert retry and retry[0]["attempt"] == 2 and retry[0]["reason"] == "interrupted"
    restarted.stop()
    _verify(server.data_dir)


async def test_parked_actions_release_their_workers_and_resume_on_input(server_factory, tmp_path):
    # two worker processes at most: the old scheduler could not even start a third waiting action
    server = server_factory(tmp_path / "park", env={"METIS_WARM_WORKERS": "2", "METIS_MAX_WORKERS": "2"})
    async with ToolBus.connect(server) as tb:
        asks = [await tb.start("t_ask", {"question": f"q{i}?"}) for i in range(6)]
        questions = [await open_request(tb, a["action_id"]) for a in asks]
        assert [q["question"] for q in questions] == [f"q{i}?" for i in range(6)]
        assert _gauge(server, "metis_workers") <= 2
        assert _gauge(server, "metis_workers_idle") == _gauge(server, "metis_workers")  # no process held
        view, _ = await tb.run("t_emit", {"n": 3}, timeout=30)  # others keep completing
        assert view["status"] == "completed"
        for i, a in enumerate(asks):
            await answer_open_request(tb, a["action_id"], {"n": i})
        for i, a in enumerate(asks):
            done = await tb.wait_status(a["action_id"], {"completed"}, timeout=30)
            assert done["outputs"] == {"answer": {"n": i}}


async def test_restart_while_waiting_stays_waiting_and_completes_identically(server_factory, tmp_path):
    server = server_factory(tmp_path / "wait")
    seed = {"purpose": "two-questions"}
    async with ToolBus.connect(server) as tb:
        reference, _ = await tb.run("t_ask2", {"steps": 3}, answer=lambda p: p["question"].upper(), seed=seed)
        assert reference["status"] == "completed"
        started = await tb.start("t_ask2", {"steps": 3}, seed=seed)
        await answer_open_request(tb, started["action_id"], "FIRST?")
        second = await open_request(tb, started["action_id"])
        assert second["question"] == "second?"
    server.stop(kill=True)

    restarted = server_factory(server.data_dir)
    async with ToolBus.connect(restarted) as tb:
        view = await tb.call("actions.get", {"action_id": started["action_id"]})
        assert view["status"] == "waiting_user"
        assert _gauge(restarted, "metis_workers_idle") == _gauge(restarted, "metis_workers")
        again = await answer_open_request(tb, started["action_id"], "SECOND?")
        assert again["request_id"] == second["request_id"]
        done = await tb.wait_status(started["action_id"], {"completed"}, timeout=30)
    assert canonical_json(done["outputs"]) == canonical_json(reference["outputs"])
    _, events = await sse_read(restarted, started["topic"], until=ended(started["action_id"]))
    assert sum(e["event"] == "action_checkpoint" for e in events) == 6  # each step once, none replayed twice
    restarted.stop()
    _verify(server.data_dir)


async def test_a_replay_that_diverges_fails_nondeterministic(metis_server):
    async with ToolBus.connect(metis_server) as tb:
        started = await tb.start("t_nondet", {})
        await answer_open_request(tb, started["action_id"], "go")
        view = await tb.wait_status(started["action_id"], {"completed", "failed"}, timeout=30)
    assert view["status"] == "failed" and view["error"]["reason"] == "nondeterministic", view
    assert "action_checkpoint" in view["error"]["message"]


async def test_parent_waiting_on_a_sub_action_holds_no_worker(server_factory, tmp_path):
    server = server_factory(tmp_path / "spawn", env={"METIS_WARM_WORKERS": "1", "METIS_MAX_WORKERS": "1"})
    async with ToolBus.connect(server) as tb:
        # one worker process in all: the child can only run if the parent let go of it
        view, events = await tb.run("t_spawn", {"ability": "t_emit", "inputs": {"n": 2}}, timeout=60)
    assert view["status"] == "completed" and view["outputs"]["child_status"] == "completed"
    assert len(view["outputs"]["child_outputs"]["values"]) == 2


async def test_worker_death_mid_run_is_retried_by_replay(metis_server, tmp_path):
    marker = tmp_path / "crashed-once"
    view, events = await run_action(metis_server, "t_crash_once", {"marker": str(marker)}, timeout=60)
    assert marker.exists()  # the first run's worker did die
    assert view["status"] == "completed" and len(view["outputs"]["values"]) == 6
    checkpoints = [e["data"]["payload"]["i"] for e in events if e["event"] == "action_checkpoint"]
    assert checkpoints == list(range(6))  # the replayed ones were not written again
    retry = [e["data"]["payload"] for e in events if e["data"].get("kind") == "retry"]
    assert len(retry) == 1 and retry[0]["reason"] == "worker_crashed" and retry[0]["attempt"] == 2
