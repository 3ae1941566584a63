"""Score the guard on a labelled case set (used by the tests and by ``bench/scu_guard_eval.py``).

A case: ``{id, domain, constraints, question, chunks, answer, top_k?, expect: {verdict, reason}}``.
The detector is pluggable so the bench can score a baseline on the very same pipeline.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from abilities.lock import lock_constraints
from abilities.scu_guard.check import GuardResult, run_checks
from abilities.scu_guard.combined import Arbiter
from abilities.scu_guard.detect import Finding
from abilities.scu_guard.retrieval import retrieve

Detector = Callable[[str, list[str]], list[Finding]]


def load_cases(path: str | Path) -> list[dict[str, Any]]:
    """Read a JSONL case file (one case per non-empty line)."""
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def judge(case: dict[str, Any], detector: Detector | None = None,
          arbiter: Arbiter | None = None) -> GuardResult:
    """Run retrieval and the checks on one case, optionally with another contradiction detector or
    another arbiter of the findings that rest on a guess."""
    lock = lock_constraints(case["constraints"])
    ctx_ids = retrieve(case["question"], case["chunks"], case.get("top_k", 6))["ctx_ids"]
    texts = {c["id"]: c["text"] for c in case["chunks"]}
    return run_checks(lock, ctx_ids, case["answer"], detector=detector, chunk_texts=texts, arbiter=arbiter,
                      question=case["question"])


def score(cases: Iterable[dict[str, Any]], detector: Detector | None = None) -> dict[str, Any]:
    """Verdict accuracy, exact (verdict, reason) accuracy, and P/R of ``constraint_contradiction``."""
    n = correct_verdict = correct_reason = tp = fp = fn = 0
    errors: list[dict[str, str]] = []
    for case in cases:
        n += 1
        got = judge(case, detector)
        exp = case["expect"]
        correct_verdict += got.verdict == exp["verdict"]
        ok = got.verdict == exp["verdict"] and got.reason == exp["reason"]
        correct_reason += ok
        want_c = exp["reason"] == "constraint_contradiction"
        got_c = got.reason == "constraint_contradiction"
        tp += want_c and got_c
        fp += got_c and not want_c
        fn += want_c and not got_c
        if not ok:
            errors.append({"id": case["id"], "expected": exp["reason"], "got": got.reason})
    return {
        "cases": n,
        "verdict_accuracy": correct_verdict / n if n else 0.0,
        "reason_accuracy": correct_reason / n if n else 0.0,
        "contradiction": {
            "tp": tp,
            "fp": fp,
            "fn": fn,
            "precision": tp / (tp + fp) if tp + fp else 1.0,
            "recall": tp / (tp + fn) if tp + fn else 1.0,
        },
        "errors": errors,
    }
