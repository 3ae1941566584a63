"""Seeded grammar fuzzing of the core: random expressions and equations from the grammar either
give an answer whose invariants all hold (including the end-to-end numeric check) or fail cleanly
with an AbilityError; nothing else escapes."""

from __future__ import annotations

import random

import pytest

from abilities.base import AbilityError
from abilities.crl_math.core import Request, run_problem
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
