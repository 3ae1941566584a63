"""The labelled evaluation: the guard over every case, figures computed, thresholds asserted."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from abilities.scu_guard.evaluate import load_cases, score

DATA = Path(__file__).parent / "data" / "scu_guard"
REASONS = {"ok", "no_json", "citation_scope", "constraints_echo_mismatch", "constraint_contradiction",
           "not_in_context"}


@pytest.fixture(scope="module")
def cases() -> list[dict]:
    return load_cases(DATA / "cases.jsonl")


def test_case_set_shape(cases: list[dict]) -> None:
    assert len(cases) >= 120
    assert len({c["id"] for c in cases}) == len(cases)
    assert len({c["domain"] for c in cases}) >= 8
    reasons = Counter(c["expect"]["reason"] for c in cases)
    assert set(reasons) == REASONS
    assert {c["expect"]["verdict"] for c in cases} == {"OK", "REJECT", "REFUSAL"}
    # OK answers that name a forbidden item only to deny it
    denials = [c for c in cases if c["expect"]["reason"] == "ok" and isinstance(c["answer"], dict)
               and any(w in c["answer"]["claim"].lower() for w in ("not ", "never", "cannot", "can't", "rejected"))]
    assert len(denials) >= 15


def test_guard_meets_targets_on_the_labelled_set(cases: list[dict]) -> None:
    result = score(cases)
    # the typed forms cost precision here (0.90, 7 OK claims flagged; the lexicon alone had 1.0 on
    # the set it was developed on); see docs/abilities/scu_guard.md
    assert result["verdict_accuracy"] >= 0.92, result["errors"]
    assert result["contradiction"]["precision"] >= 0.89, result["errors"]
    assert result["contradiction"]["recall"] >= 0.9, result["errors"]


@pytest.mark.parametrize(
    "name",
    ["holdout.jsonl", "holdout2.jsonl", "holdout3.jsonl", "holdout4.jsonl", "heldout_v5.jsonl", "heldout_v6.jsonl",
     "heldout_v7.jsonl", "heldout_v8.jsonl"],
)
def test_held_out_sets_keep_precision(name: str) -> None:
    """Sets written after the detector (each measured once before any fix it prompted): precision
    must hold; recall on unseen phrasing is lower and reported by the bench."""
    result = score(load_cases(DATA / name))
    assert result["contradiction"]["precision"] >= 0.8, result["errors"]
    assert result["verdict_accuracy"] >= 0.75, result["errors"]
