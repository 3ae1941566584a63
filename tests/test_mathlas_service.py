"""mathlas through the real service: ToolBus actions.start -> events -> outputs, bad input ->
-32602 naming the field, determinism by seed with replay, receipts, and the sandbox from a worker."""

from __future__ import annotations

import json

import pytest

from tests.support import (
    expect_invalid,
    replay_and_receipts,
    run_action,
)


async def test_identify_constant_over_the_toolbus(metis_server):
    view, events = await run_action(metis_server, "mathlas",
                                    {"tool": "identify_constant", "args": {"value": "1.6449340668"}})
    assert view["status"] == "completed", view.get("error")
    assert view["outputs"]["tool"] == "identify_constant"
    assert view["outputs"]["result"]["best"] == "pi**2/6"
    kinds = [e["data"].get("kind") for e in events if e["event"] == "action_checkpoint"]
    assert kinds.count("verifier_update") == len(view["outputs"]["result"]["candidates"]) >= 1
    assert kinds[-1] == "boundary_summary"


async def test_sequence_and_search_over_the_toolbus(metis_server):
    seq, _ = await run_action(metis_server, "mathlas",
                              {"tool": "identify_sequence", "args": {"terms": [1, 1, 2, 3, 5, 8, 13, 21]}})
    assert seq["status"] == "completed" and seq["outputs"]["result"]["matches"][0]["a_number"] == "A000045"
    found, _ = await run_action(metis_server, "mathlas",
                                {"tool": "search_existing_math", "args": {"query": "fixed point of a contraction"}})
    assert found["outputs"]["result"]["results"][0]["name"] == "Banach fixed-point theorem"


@pytest.mark.parametrize(("inputs", "needle"), [
    ({"tool": "identify_constant", "args": {"value": "not a number"}}, "value"),
    ({"tool": "identify_constant", "args": {"value": "nan"}}, "value"),
    ({"tool": "identify_constant", "args": {"value": "1." + "4" * 10_000}}, "value"),
    ({"tool": "identify_sequence", "args": {"terms": [1, 2, 3]}}, "terms"),
    ({"tool": "verify_numeric", "args": {"value": "1.5", "closed_form": "pi", "dps_verify": 50_000}}, "dps_verify"),
    ({"tool": "teleport", "args": {}}, "unknown tool"),
    ({"tool": "identify_constant", "args": {"value": "1.5"}, "extra": 1}, "extra"),
])
async def test_bad_input_is_refused_naming_the_field(metis_server, inputs, needle):
    await expect_invalid(metis_server, "mathlas", inputs, needle)


async def test_same_seed_gives_identical_outputs_replays_and_receipts(metis_server):
    inputs = {"tool": "verify_numeric", "args": {"value": "2.50662827463100050242", "closed_form": "sqrt(2*pi)"}}
    a, _ = await run_action(metis_server, "mathlas", inputs, seed={"purpose": "mathlas-det"})
    b, _ = await run_action(metis_server, "mathlas", inputs, seed={"purpose": "mathlas-det"})
    assert a["status"] == b["status"] == "completed"
    assert a["outputs"]["result"]["verdict"] == "VERIFIED"
    assert json.dumps(a["outputs"], sort_keys=True) == json.dumps(b["outputs"], sort_keys=True)
    replay, receipts = await replay_and_receipts(metis_server, a["action_id"])
    assert replay["identical"] is True
    text = json.dumps(receipts)
    assert "tool_call" in text and "verify_numeric" in text


async def test_funsearch_evaluate_runs_the_sandbox_from_a_worker(metis_server):
    prog = "def priority(el, n):\n    return -sum(el)\n"
    view, events = await run_action(metis_server, "mathlas", {"tool": "funsearch", "args": {
        "action": "evaluate", "problem": "cap_set", "program": prog, "params": {"n": 3}}})
    assert view["status"] == "completed", view.get("error")
    res = view["outputs"]["result"]
    assert res["status"] == "ok" and res["score"] >= 4
    assert any(e["data"].get("kind") == "verifier_update" for e in events if e["event"] == "action_checkpoint")


async def test_integers_of_any_size_travel_as_decimal_strings(metis_server):
    """Terms past 2^53 go in as strings, are matched exactly, and come back as the same strings."""
    import math

    window = [str(math.factorial(n)) for n in range(19, 24)]  # 19! .. 23!, past 2^64
    view, _ = await run_action(metis_server, "mathlas", {"tool": "identify_sequence", "args": {"terms": window}})
    assert view["status"] == "completed", view.get("error")
    assert view["outputs"]["result"]["matches"][0]["a_number"] == "A000142"
    assert view["outputs"]["result"]["query"] == window
    fib = [0, 1]
    while len(str(fib[-1])) < 500:
        fib.append(fib[-1] + fib[-2])
    terms = [str(fib[-2]), str(fib[-1]), str(fib[-1] + fib[-2]), str(2 * fib[-1] + fib[-2])]
    assert len(terms[1]) == 500
    view, _ = await run_action(metis_server, "mathlas", {"tool": "identify_sequence", "args": {"terms": terms}})
    assert view["status"] == "completed", view.get("error")
    assert view["outputs"]["result"]["query"] == terms  # every digit kept through the canonical log
    await expect_invalid(metis_server, "mathlas", {"tool": "identify_sequence",
                                                   "args": {"terms": ["1", "2", "3", "4x"]}}, "terms")
