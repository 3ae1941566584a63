"""The ``sandbox`` ability through the real server: per-test results judged by trusted code with
hashes of the code and of each outcome, receipts per sandbox process and per run, hostile code
contained (network denied), killed tests replaced by fresh sandboxes, -32602 naming the field,
budgets, determinism by seed, and the worked example of docs/abilities/sandbox.md."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from tests.support import ToolBus, expect_invalid, replay_and_receipts, run_action

ROOT = Path(__file__).resolve().parents[1]
CODE = ("def add(a, b=0):\n"
        "    if a is None:\n"
        "        raise ValueError('a is required')\n"
        "    return a + b\n")


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def canon(obj) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def check(code: str, function: str, tests: list[dict], **extra) -> dict:
    return {"code": code, "function": function, "tests": tests, **extra}


async def test_results_hashes_checkpoints_and_receipts(metis_server):
    tests = [{"name": "adds", "args": [2, 3], "expected": 5},
             {"name": "keyword", "args": [2], "kwargs": {"b": 40}, "expected": 42},
             {"name": "float", "args": [0.1, 0.2], "expected": 0.3, "tolerance": 1e-9},
             {"name": "wrong", "args": [2, 2], "expected": 5},
             {"name": "raises", "args": [None], "raises": "ValueError"},
             {"name": "bool_is_not_int", "args": [True, 0], "expected": True}]
    view, events = await run_action(metis_server, "sandbox", check(CODE, "add", tests))
    assert view["status"] == "completed", view.get("error")
    out = view["outputs"]
    assert out["code_sha256"] == sha(CODE)
    by = {r["name"]: r for r in out["results"]}
    assert [by[n]["status"] for n in ("adds", "keyword", "float", "wrong", "raises", "bool_is_not_int")] == [
        "passed", "passed", "passed", "failed", "passed", "failed"]  # True + 0 is the int 1, not True
    assert by["adds"]["output_sha256"] == sha(canon({"value": 5})) and by["adds"]["returned_json"] == "5"
    assert by["wrong"]["message"] == "returned 4, expected 5"
    assert by["raises"]["raised"] == "ValueError: a is required"
    assert (out["verdict"], out["total"], out["passed"], out["failed"], out["sessions"]) == ("failed", 6, 4, 2, 1)
    assert out["sandbox"]["capabilities"] == "none" and "every socket call refused" in out["sandbox"]["network"]
    updates = [e["data"]["payload"] for e in events
               if e["event"] == "action_checkpoint" and e["data"].get("kind") == "verifier_update"]
    assert [u["test"] for u in updates] == [t["name"] for t in tests]
    assert all(u["output_sha256"] == by[u["test"]]["output_sha256"] for u in updates)
    _, receipts = await replay_and_receipts(metis_server, view["action_id"])
    text = json.dumps(receipts)
    assert text.count('"sandbox_session"') == 1 and text.count('"sandbox_run"') == 1
    assert sha(CODE) in text


async def test_hostile_code_is_contained_and_has_no_network(metis_server, tcp_listener):
    port = tcp_listener.getsockname()[1]
    data = metis_server.data_dir
    code = ("import os, socket, urllib.request\n"
            "def attack(kind):\n"
            f"    if kind == 'connect':\n        socket.create_connection(('127.0.0.1', {port}), timeout=2)\n"
            f"    if kind == 'http':\n        urllib.request.urlopen('http://127.0.0.1:{port}/', timeout=2)\n"
            f"    if kind == 'tokens':\n        return open({str(data.parent / (data.name + '-tokens.json'))!r}).read()\n"
            f"    if kind == 'receipts':\n        return open({str(data / 'receipts.sqlite3')!r}, 'rb').read(16).hex()\n"
            "    if kind == 'fork':\n        return os.fork()\n"
            "    if kind == 'env':\n        return sorted(os.environ)\n")
    tests = [{"name": k, "args": [k], "raises": e} for k, e in (
        ("connect", "PermissionError"), ("http", "URLError"), ("tokens", "FileNotFoundError"),
        ("receipts", "FileNotFoundError"), ("fork", "PermissionError"))]
    tests.append({"name": "env", "args": ["env"], "expected": ["LC_CTYPE", "PYTHONDONTWRITEBYTECODE",
                                                                 "PYTHONHASHSEED", "PYTHONIOENCODING"]})
    view, _ = await run_action(metis_server, "sandbox", check(code, "attack", tests))
    with pytest.raises(TimeoutError):
        tcp_listener.accept()
    out = view["outputs"]
    assert out["verdict"] == "passed", [r for r in out["results"] if r["status"] != "passed"]
    assert "tok-acme" not in json.dumps(view)


async def test_a_test_that_kills_its_sandbox_is_an_error_and_a_fresh_one_runs_the_rest(metis_server):
    code = ("import time\n"
            "def f(kind):\n"
            "    if kind == 'spin':\n        while True:\n            pass\n"
            "    if kind == 'sleep':\n        time.sleep(30)\n"
            "    if kind == 'flood':\n        while True:\n            print('x' * 1000)\n"
            "    if kind == 'exit':\n        import os\n        os._exit(3)\n"
            "    return kind\n")
    tests = [{"name": k, "args": [k], "expected": k} for k in ("spin", "sleep", "flood", "exit", "ok")]
    tests[0]["timeout_s"] = 20  # the CPU limit (1 s) stops it first, even on a busy machine
    view, _ = await run_action(metis_server, "sandbox", check(code, "f", tests,
                                                              limits={"cpu_s": 1, "test_timeout_s": 1.5}))
    out = view["outputs"]
    msgs = {r["name"]: (r["status"], r["message"]) for r in out["results"]}
    assert msgs["spin"] == ("error", "killed: CPU time limit exceeded (RLIMIT_CPU)")
    assert msgs["sleep"] == ("error", "timeout: wall-clock limit of 1.5 s exceeded; the sandbox was killed")
    assert msgs["flood"][0] == "error" and "output size limit" in msgs["flood"][1]
    assert msgs["exit"] == ("error", "killed: exited with code 3 without a result")
    assert msgs["ok"] == ("passed", "")
    assert out["sessions"] == 5 and out["verdict"] == "failed"


async def test_code_that_fails_while_loading(metis_server):
    view, _ = await run_action(metis_server, "sandbox", check("def f():\n    return 1\nraise RuntimeError('boom')\n",
                                                              "f", [{"expected": 1}, {"expected": 1}]))
    out = view["outputs"]
    assert out["verdict"] == "did_not_load" and out["load_error"] == "RuntimeError: boom"
    assert [r["status"] for r in out["results"]] == ["not_run", "not_run"] and out["not_run"] == 2


@pytest.mark.parametrize(("inputs", "needle"), [
    (check("def f(:\n", "f", [{"expected": 1}]), "code"),
    (check("def g():\n    return 1\n", "f", [{"expected": 1}]), "function"),
    (check(CODE, "not an identifier", [{"expected": 1}]), "function"),
    (check(CODE, "add", []), "tests"),
    (check(CODE, "add", [{"args": [1]}]), "exactly one of expected"),
    (check(CODE, "add", [{"args": [1], "expected": 1, "raises": "ValueError"}]), "exactly one of expected"),
    (check(CODE, "add", [{"name": "a", "expected": 1}, {"name": "a", "expected": 2}]), "duplicate test name"),
    (check(CODE, "add", [{"kwargs": {"not-valid": 1}, "expected": 1}]), "kwargs"),
    (check(CODE, "add", [{"expected": 1}], network="allowed"), "network"),
    (check(CODE, "add", [{"expected": 1}], language="rust"), "language"),
    (check(CODE, "add", [{"expected": 1}], limits={"cpu_s": 999}), "cpu_s"),
    (check(CODE, "add", [{"expected": 1}], extra=1), "extra"),
])
async def test_bad_input_is_refused_naming_the_field(metis_server, inputs, needle):
    await expect_invalid(metis_server, "sandbox", inputs, needle)


async def test_step_budget_ends_partial_with_tests_so_far(metis_server):
    tests = [{"args": [i, 1], "expected": i + 1} for i in range(8)]
    view, _ = await run_action(metis_server, "sandbox", check(CODE, "add", tests), budgets={"steps": 3})
    assert view["status"] == "partial"
    out = view["outputs"]
    run = [r for r in out["results"] if r["status"] == "passed"]
    assert 3 <= len(run) < 8 and out["not_run"] == 8 - len(run)
    assert all(r["message"] == "budget exhausted before this test" for r in out["results"] if r["status"] == "not_run")


async def test_same_seed_same_outputs_other_seed_other_randomness(metis_server):
    code = "import random\ndef roll(n):\n    return [random.randint(1, 6) for _ in range(n)] + [hash('x') % 7]\n"
    inputs = check(code, "roll", [{"args": [5], "expected": []}])
    a, _ = await run_action(metis_server, "sandbox", inputs, seed={"purpose": "dice"})
    b, _ = await run_action(metis_server, "sandbox", inputs, seed={"purpose": "dice"})
    c, _ = await run_action(metis_server, "sandbox", inputs, seed={"purpose": "other dice"})
    assert json.dumps(a["outputs"], sort_keys=True) == json.dumps(b["outputs"], sort_keys=True)
    assert a["outputs"]["results"][0]["returned_json"] != c["outputs"]["results"][0]["returned_json"]
    replay, _ = await replay_and_receipts(metis_server, a["action_id"])
    assert replay["identical"] is True


async def test_the_worked_example_of_the_doc_runs_as_written(metis_server):
    doc = (ROOT / "docs" / "abilities" / "sandbox.md").read_text(encoding="utf-8")
    section = doc.split("## Worked example", 1)[1]
    transcript = section.split("```json example\n", 1)[1].split("```", 1)[0]
    request = json.loads(transcript.split("\n<- ", 1)[0].removeprefix("-> "))  # the "->" request of the transcript
    shown = json.loads(section.split("```json\n", 1)[1].split("```", 1)[0])
    async with ToolBus.connect(metis_server) as tb:
        started = await tb.call(request["method"], request["params"])
        await tb.follow(started["topic"], started["action_id"])
        view = await tb.call("actions.get", {"action_id": started["action_id"]})
    assert view["status"] == "completed"

    def subset(small, big):
        if isinstance(small, dict):
            return all(k in big and subset(v, big[k]) for k, v in small.items())
        if isinstance(small, list):
            return len(small) == len(big) and all(subset(s, b) for s, b in zip(small, big, strict=True))
        return small == big

    assert subset(shown, view["outputs"]), view["outputs"]


async def test_wall_budget_ends_partial_with_tests_so_far(metis_server):
    code = "import time\ndef nap(s):\n    time.sleep(s)\n    return s\n"
    tests = [{"args": [0.6], "expected": 0.6} for _ in range(10)]
    view, _ = await run_action(metis_server, "sandbox", check(code, "nap", tests), budgets={"wall_s": 2.5})
    assert view["status"] == "partial"
    out = view["outputs"]
    assert 1 <= out["passed"] < 10 and out["passed"] + out["not_run"] == 10 and out["errors"] == 0


async def test_expected_values_never_enter_the_sandbox(metis_server):
    """The code cannot pass by finding its expectations: only arguments cross into the jail."""
    code = ("import gc, sys\n"
            "TOKEN = 'SECRET-' + 'EXPECTATION'\n"
            "def peek(x):\n"
            "    hits = [r for o in gc.get_objects() for r in gc.get_referents(o)\n"
            "            if isinstance(r, str) and r is not TOKEN and TOKEN in r]\n"
            "    f = sys._getframe()\n"
            "    while f is not None:\n"
            "        hits += [k for k, v in f.f_locals.items() if v is not globals() and TOKEN in repr(v)]\n"
            "        f = f.f_back\n"
            "    return len(hits)\n")
    tests = [{"name": f"t{i}", "args": [i], "expected": f"SECRET-EXPECTATION-{i}"} for i in range(3)]
    view, _ = await run_action(metis_server, "sandbox", check(code, "peek", tests))
    assert [r["returned_json"] for r in view["outputs"]["results"]] == ["0", "0", "0"]
