"""The tool registry and the ability wrapper: validation naming the field, unknown tools,
verify_formal honesty (sorry/admit scan, no fake pass), scaffolds, and the ability's receipts and
checkpoints recorded by a small in-memory context."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from pydantic import ValidationError

from abilities.base import derive_rng
from abilities.mathlas.ability import MathlasAbility, MathlasInputs
from abilities.mathlas.formal import strip_comments_and_strings, uses_sorry, verify_formal
from abilities.mathlas.scaffold import (
    applicability_checklist,
    mapping_scaffold,
    search_directive,
    split_clauses,
)
from abilities.mathlas.tools import TOOLS, input_schema


class RecordingContext:
    """Records what the ability emits (the orchestrator turns these into log records)."""

    seed = b"\x01" * 32
    tenant = "acme"

    def __init__(self) -> None:
        self.events: list[tuple[str, str, dict[str, Any]]] = []

    def checkpoint(self, kind: str, payload: dict[str, Any]) -> None:
        self.events.append(("checkpoint", kind, payload))

    def receipt(self, kind: str, payload: dict[str, Any]) -> None:
        self.events.append(("receipt", kind, payload))

    def rng(self, purpose: str) -> random.Random:
        return derive_rng(self.seed, purpose)


def test_twelve_tools_with_object_schemas():
    assert set(TOOLS) == {"identify_constant", "identify_sequence", "search_existing_math", "search_formal_math",
                          "verify_numeric", "verify_formal", "applicability_checklist", "mapping_scaffold",
                          "conjecture_relation", "funsearch", "search_directive", "add_finding"}
    for name in TOOLS:
        schema = input_schema(name)
        assert schema["type"] == "object" and schema.get("additionalProperties") is False


@pytest.mark.parametrize(("inputs", "needle"), [
    ({"tool": "identify_constant", "args": {"value": "abc"}}, "value"),
    ({"tool": "identify_constant", "args": {"value": "NaN"}}, "value"),
    ({"tool": "identify_constant", "args": {"value": "1." + "3" * 10_000}}, "value"),
    ({"tool": "identify_sequence", "args": {"terms": [1, 2, 3]}}, "terms"),
    ({"tool": "verify_numeric", "args": {"value": "1.5", "closed_form": "pi", "dps_verify": 100_000}}, "dps_verify"),
    ({"tool": "verify_numeric", "args": {"value": "1.5", "closed_form": "__import__('os')"}}, "closed_form"),
    ({"tool": "identify_constant", "args": {"value": "1.5", "colour": "red"}}, "colour"),
    ({"tool": "funsearch", "args": {"action": "evaluate", "problem": "cap_set"}}, "program"),
    ({"tool": "funsearch", "args": {"action": "status", "problem": "cap_set", "params": {"n": 99}}}, "params.n"),
    ({"tool": "rm_rf", "args": {}}, "unknown tool"),
])
def test_bad_inputs_name_the_field(inputs, needle):
    with pytest.raises(ValidationError) as err:
        MathlasInputs.model_validate(inputs)
    text = json.dumps(err.value.errors(), default=str)
    assert needle in text


def test_sorry_scan_ignores_comments_and_strings_but_catches_real_uses():
    assert uses_sorry("by\n  -- sorry here is a comment\n  /- and /- nested sorry -/ admit -/\n  rfl") == []
    assert uses_sorry('by\n  have h : "sorry" = "sorry" := rfl\n  exact h') == []
    assert uses_sorry("by\n  intro x\n  sorry") == ["sorry"]
    assert uses_sorry("by admit") == ["admit"]
    assert uses_sorry("by exact sorry_lemma x") == []
    assert "sorry" not in strip_comments_and_strings("-- sorry\nx")


def test_verify_formal_never_fake_passes():
    r = verify_formal("1 + 1 = 2", proof="by\n  -- a comment\n  decide")
    assert r["verdict"] in ("UNDETERMINED", "VERIFIED_PROOF")
    if r["toolchain"] is None:
        assert r["verdict"] == "UNDETERMINED" and "no Lean toolchain" in r["reason"]
    assert verify_formal("1 + 1 = 3", proof="by sorry")["verdict"] == "REJECTED"
    snippet = verify_formal("ignored", lean="theorem t : True := by\n  admit")
    assert snippet["verdict"] == "REJECTED" and snippet["mode"] == "snippet"
    proof = verify_formal("import Mathlib\n∀ n : Nat, n + 0 = n", proof="by\n  intro n\n  simp")
    assert proof["checked_source"].startswith("import Mathlib\ntheorem _mathlas_check : ∀ n : Nat, n + 0 = n :=\n  by")


def test_checklist_scaffold_and_directive_are_structure_not_opinion():
    chk = applicability_checklist("Banach fixed-point theorem", "x -> cos(x) on [0, 1]")
    conds = [i["condition"] for i in chk["checklist"]]
    assert "X is complete" in conds and "q < 1" in conds
    assert all(i["answer"] is None for i in chk["checklist"])
    hyp, concl = split_clauses("If f is continuous on [a,b], and f(a) < 0 < f(b), then f has a root in (a,b).")
    assert hyp == ["f is continuous on [a,b]", "f(a) < 0 < f(b)"] and concl == "f has a root in (a,b)"
    sc = mapping_scaffold("show x -> cos(x) has a unique fixed point in [0,1]", "Banach fixed-point theorem")
    assert set(sc["answer_template"]["preconditions"]) == {i["id"] for i in chk["checklist"]}
    assert sc["needs"] == conds and "fixed point" in sc["guarantees"]
    d = search_directive("asymptotics of 1, 2, 5, 14, 42 and the constant 1.6449340668")
    assert d["mathlas_tools"][:2] == ["identify_sequence", "identify_constant"] and d["arxiv_queries"]


def test_ability_emits_receipt_verifier_updates_and_boundary_summary():
    ctx = RecordingContext()
    inputs = MathlasInputs.model_validate({"tool": "identify_constant", "args": {"value": "1.6449340668"}})
    out = MathlasAbility().run(ctx, inputs)
    assert out.tool == "identify_constant" and out.result["best"] == "pi**2/6"
    kinds = [(t, k) for t, k, _ in ctx.events]
    assert ("receipt", "tool_call") in kinds
    assert kinds.count(("checkpoint", "verifier_update")) == len(out.result["candidates"])
    assert kinds[-1] == ("checkpoint", "boundary_summary")
    receipt = next(p for t, k, p in ctx.events if t == "receipt")
    assert receipt["tool"] == "identify_constant" and len(receipt["result_sha256"]) == 64
    ctx2 = RecordingContext()
    out2 = MathlasAbility().run(ctx2, inputs)
    assert out2.model_dump() == out.model_dump() and ctx2.events == ctx.events
