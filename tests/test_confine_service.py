"""The sandbox through the real server: a FunSearch candidate sent over the ToolBus (mathlas
``funsearch``) runs in a worker's confined runner. The walk-out of the hardening issue reaches
neither the tokens file nor the receipt database, and a score forged on stdout is not stored."""

from __future__ import annotations

import json
import os
import stat

from tests.support import ToolBus, run_action
from tests.test_mathlas_sandbox import GADGET, walk_out_program


def funsearch(action: str, program: str) -> dict:
    return {"tool": "funsearch", "args": {"action": action, "problem": "cap_set", "program": program,
                                          "timeout_s": 5}}


async def test_walk_out_through_the_server_reads_no_tokens_and_no_receipts(metis_server):
    data = metis_server.data_dir
    tokens = data.parent / f"{data.name}-tokens.json"
    targets = [str(tokens), str(data / "receipts.sqlite3"), str(data / "receipts.sqlite3-wal")]
    assert tokens.is_file() and (data / "receipts.sqlite3").is_file()
    program = walk_out_program(*targets)
    view, _ = await run_action(metis_server, "mathlas", funsearch("evaluate", program))
    assert view["status"] == "completed", view.get("error")
    res = view["outputs"]["result"]
    text = json.dumps(view["outputs"])
    assert res["status"] == "error" and res["score"] is None
    assert "tok-acme" not in text and "SQLite format" not in text
    assert "'read': ['FileNotFoundError', 'FileNotFoundError', 'FileNotFoundError']" in res["error"]
    assert "'steps': [-1, -1, -1, -1]" in res["error"]
    assert res["isolation"]["pid_in_namespace"] == 1
    # behind the sandbox: the receipt log is readable by its owner only
    assert stat.S_IMODE(os.stat(data / "receipts.sqlite3").st_mode) == 0o600


async def test_a_score_forged_on_stdout_is_not_registered(metis_server):
    forged = GADGET + ("def priority(el, n):\n"
                       "    G['write'](1, b'\\n{\"status\":\"ok\",\"result\":{\"score\":1e9}}\\n')\n"
                       "    G['_exit'](0)\n")
    view, events = await run_action(metis_server, "mathlas", funsearch("register", forged), tenant="globex")
    assert view["status"] == "completed", view.get("error")
    res = view["outputs"]["result"]
    assert res["registered"] is False and res["evaluation"]["score"] is None
    assert res["evaluation"]["status"] == "killed" and "without a result" in res["evaluation"]["error"]
    status, _ = await run_action(metis_server, "mathlas", {"tool": "funsearch", "args": {
        "action": "status", "problem": "cap_set"}}, tenant="globex")
    best = status["outputs"]["result"]["best"]
    assert best is None or best["score"] < 1e9
    scores = [e["data"]["payload"].get("score") for e in events
              if e["event"] == "action_checkpoint" and e["data"].get("kind") == "verifier_update"]
    assert scores == [None]


async def test_a_candidate_cannot_signal_the_server_or_its_worker(metis_server):
    server_pid = metis_server.proc.pid
    program = GADGET + ("def priority(el, n):\n    out = []\n"
                        f"    for pid in (-1, {server_pid}, G['getppid']()):\n"
                        "        try:\n            G['kill'](pid, 9)\n            out.append('SENT')\n"
                        "        except OSError as exc:\n            out.append(type(exc).__name__)\n"
                        "    raise RuntimeError(repr([G['getppid']()] + out))\n")
    view, _ = await run_action(metis_server, "mathlas", funsearch("evaluate", program))
    assert view["status"] == "completed", view.get("error")
    # its parent is outside its PID namespace (ppid 0, and kill(0) would only reach its own group)
    assert view["outputs"]["result"]["error"].endswith("[0, 'ProcessLookupError', 'ProcessLookupError', 'SENT']")
    assert metis_server.proc.poll() is None
    async with ToolBus.connect(metis_server) as tb:
        assert (await tb.call("session.whoami"))["tenant"] == "acme"
