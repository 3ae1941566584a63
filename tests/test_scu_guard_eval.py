"""The labelled evaluation: the guard over every case, figures computed, thresholds asserted."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from abilities.scu_guard.evaluate import load_cases, score

DATA = Path(__file__).parent / "data" / "scu_guard"
REASONS = {"ok", "no_json", "citation_scope", "constraints_echo_mismatch", "constraint_contradiction",
           "not_in_context"}
# (verdict accuracy, contradiction precision) each set keeps; the figures of the bench, rounded down.
# v1-v11 were development sets for the typed reading; v12 was written after it and is kept as measured.
# A REJECT needs a sure reading now (guesses are REVIEW unless the pair model agrees): precision 0.98 holds
# on every set the pair model learned from.
HELD_OUT = {
    "holdout.jsonl": (0.98, 0.98), "holdout2.jsonl": (0.92, 0.98), "holdout3.jsonl": (0.92, 0.98),
    "holdout4.jsonl": (0.95, 0.98), "heldout_v5.jsonl": (0.87, 0.98), "heldout_v6.jsonl": (0.88, 0.98),
    "heldout_v7.jsonl": (0.88, 0.98), "heldout_v8.jsonl": (0.88, 0.98), "heldout_v9.jsonl": (0.88, 0.98),
    "heldout_v10.jsonl": (0.93, 0.98), "heldout_v11.jsonl": (0.68, 0.98), "heldout_v12.jsonl": (0.76, 0.98),
    # v13 and v14 were scored once on the guard before the sure-reading gate and the pair model (their
    # first run is in bench/results/scu_guard_firstrun_v13_v14.json); these are the figures after it
    "heldout_v13.jsonl": (0.68, 0.93), "heldout_v14.jsonl": (0.70, 0.98),
    # v15 and v16 were scored once on the guard before bands read from a guess went to REVIEW (first run
    # 0.63 accuracy, 0.80 precision pooled); these are the development figures after it
    "heldout_v15.jsonl": (0.59, 0.96), "heldout_v16.jsonl": (0.61, 0.97),
    "heldout_v17.jsonl": (0.63, 0.77), "heldout_v18.jsonl": (0.58, 0.79),  # first run, unseen
}


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
    assert result["verdict_accuracy"] >= 0.98, result["errors"]
    assert result["contradiction"]["precision"] >= 0.98, result["errors"]
    assert result["contradiction"]["recall"] >= 0.95, result["errors"]


@pytest.mark.parametrize("name", sorted(HELD_OUT))
def test_held_out_sets_keep_their_figures(name: str) -> None:
    """Sets written after the detector of their time (each measured once before any fix it prompted):
    the figures measured now must hold; first runs are in bench/results and the docs."""
    accuracy, precision = HELD_OUT[name]
    result = score(load_cases(DATA / name))
    assert result["contradiction"]["precision"] >= precision, result["errors"]
    assert result["verdict_accuracy"] >= accuracy, result["errors"]


def test_unseen_sets_are_labelled_by_kind_and_cause() -> None:
    for name in ("heldout_v7.jsonl", "heldout_v8.jsonl", "heldout_v9.jsonl", "heldout_v10.jsonl", "heldout_v11.jsonl",
                 "heldout_v12.jsonl"):
        cases = load_cases(DATA / name)
        assert all(c["kind"] and c["cause"] and c["domain"] for c in cases)
        ok = sum(c["expect"]["reason"] == "ok" for c in cases)
        assert 0.25 <= ok / len(cases) <= 0.4, name
