"""Every corpus problem, graded numerically (strict real evaluation at seeded points) and
symbolically, with conditions compared as sets; target 100%."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from abilities.crl_math.core import run_problem
from abilities.crl_math.grading import grade_outputs
from abilities.crl_math.request import Request
from abilities.crl_math.trail import NullHooks

CORPUS = [json.loads(line) for line in (Path(__file__).parent / "data" / "crl_math" / "corpus.jsonl").open()]


def test_corpus_is_large_and_covers_every_trap():
    assert len(CORPUS) >= 80
    assert len({p["id"] for p in CORPUS}) == len(CORPUS)
    cats = Counter(p["category"] for p in CORPUS)
    for cat in ("cancellation", "nested_fraction", "radical", "abs_sign", "log_exp", "rational_equation",
                "extraneous_root", "lost_root"):
        assert cats[cat] >= 5, cat


@pytest.mark.parametrize("problem", CORPUS, ids=[p["id"] for p in CORPUS])
def test_corpus_problem(problem):
    req = Request(goal=problem["goal"], expression=problem.get("expression"), equation=problem.get("equation"),
                  assumptions=problem.get("assumptions", []), steps=problem.get("steps", []))
    out = run_problem(req, b"corpus-seed" * 3, NullHooks())
    grade = grade_outputs(problem, out)
    assert grade.correct, grade.notes
    assert out["round_trip"]["ok"], out["round_trip"]  # every printed string parses back to its object
    if problem["goal"] != "check":
        assert all(v["ok"] for v in out["invariants"].values()), out["invariants"]


def test_grader_catches_a_dropped_condition_and_a_wrong_result():
    problem = next(p for p in CORPUS if p["id"] == "cancel-01")
    from abilities.crl_math.grading import grade_simplify

    assert grade_simplify(problem, "x - 3", ["x != -3"]).correct
    dropped = grade_simplify(problem, "x - 3", [])
    assert not dropped.correct and not dropped.conditions_ok and dropped.numeric_ok
    wrong = grade_simplify(problem, "x + 3", ["x != -3"])
    assert not wrong.correct and not wrong.numeric_ok
