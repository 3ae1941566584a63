"""Seeded grammar fuzzing of the core: random expressions and equations from the grammar either
give an answer whose invariants all hold (including the end-to-end numeric check) or fail cleanly
with an AbilityError; nothing else escapes."""

from __future__ import annotations

import random

import pytest

from abilities.base import AbilityError
from abilities.crl_math.core import run_problem
from abilities.crl_math.request import Request
from abilities.crl_math.trail import NullHooks


def _gen(rng: random.Random, depth: int = 0) -> str:
    if depth > 3 or rng.random() < 0.3:
        return rng.choice(["x", "y", "1", "2", "3", "x", "-1", "0.5"])
    k = rng.random()
    if k < 0.45:
        return f"({_gen(rng, depth + 1)}){rng.choice('+-*/')}({_gen(rng, depth + 1)})"
    if k < 0.6:
        return f"({_gen(rng, depth + 1)})^{rng.choice(['2', '3', '-1', '(1/2)'])}"
    fn = rng.choice(["sqrt", "abs", "log", "exp", "sin", "cos", "tan"])
    return f"{fn}({_gen(rng, depth + 1)})"


@pytest.mark.parametrize("seed", range(4))
def test_random_inputs_answer_soundly_or_fail_cleanly(seed):
    rng = random.Random(seed)
    answered = 0
    for _ in range(25):
        if rng.random() < 0.6:
            req = Request(goal="simplify", expression=_gen(rng))
        else:
            req = Request(goal="solve", equation=f"{_gen(rng)} = {_gen(rng, 2)}", variable="x")
        try:
            out = run_problem(req, b"fuzz" * 8, NullHooks())
        except AbilityError:
            continue
        answered += 1
        if req.goal == "simplify":
            bad = {k: v["detail"] for k, v in out["invariants"].items() if not v["ok"]}
            assert not bad, (req.expression, out["result"], out["conditions"], bad)
    assert answered >= 5


@pytest.mark.parametrize("seed", range(2))
def test_our_own_derivations_replayed_in_check_mode_are_accepted(seed):
    """The planner's steps, submitted as a client derivation with their narrowing conditions
    stated, must pass the verifier; the same derivation with a wrong last step must not."""
    rng = random.Random(100 + seed)
    checked = 0
    for _ in range(20):
        expr = _gen(rng)
        try:
            out = run_problem(Request(goal="simplify", expression=expr), b"fuzz" * 8, NullHooks())
        except AbilityError:
            continue
        obl = {o["obl_id"]: o for o in out["obligations"]}
        steps = [{"expression": s["output"], "rule": s["rule"],
                  "conditions": [obl[o]["predicate"] for o in s["obligations_added"] if obl[o]["kind"] == "narrowing"]}
                 for s in out["steps"]]
        res = run_problem(Request(goal="check", expression=expr, steps=steps), b"fuzz" * 8, NullHooks())
        assert [v["status"] for v in res["verdicts"]] == ["accepted"] * len(steps), (expr, res["verdicts"])
        wrong = [*steps[:-1], {"expression": f"({steps[-1]['expression']}) + 1"}]
        res = run_problem(Request(goal="check", expression=expr, steps=wrong), b"fuzz" * 8, NullHooks())
        assert res["verdicts"][-1]["status"] == "rejected" and res["equivalence_mode"] == "not_equivalent"
        checked += 1
    assert checked >= 5


def test_real_domain_outputs_never_mention_re_or_im():
    out = run_problem(Request(goal="simplify", expression="abs(exp(x+x))^2"), b"fuzz" * 8, NullHooks())
    text = out["result"] + " ".join(out["conditions"]) + " ".join(s["output"] for s in out["steps"])
    assert "re(" not in text and "im(" not in text


def test_random_relations_get_a_right_set_or_a_clean_refusal():
    """Random equations and inequalities (trigonometric ones on a window): every answered set is
    re-graded by the strict set check with an independent seed; anything else is a clean refusal."""
    from abilities.crl_math.grading import grade_set

    rng = random.Random(7)
    answered = 0
    for i in range(36):
        eq = f"{_gen(rng)} {rng.choice(['=', '<', '<=', '>', '>='])} {_gen(rng, 1)}".replace("y", "2")
        if "x" not in eq:
            continue
        assume = ["x >= -2", "x <= 5"] if any(f in eq for f in ("sin", "cos", "tan")) else []
        try:
            out = run_problem(Request(goal="solve", equation=eq, variable="x", assumptions=assume),
                              b"fuzz" * 8, NullHooks())
        except AbilityError:
            continue
        answered += 1
        grade = grade_set({"id": f"fuzz-{i}", "equation": eq, "variable": "x", "assumptions": assume},
                          out["solution_set"], seed=b"independent")
        assert grade.status == "correct", (eq, assume, out["solution_set"], grade.notes)
    assert answered >= 6
