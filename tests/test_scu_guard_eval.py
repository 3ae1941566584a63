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
# Since round 7 a REJECT needs evidence that generalises (evidence.py) and the pair model makes no REJECT:
# every guessed finding waits in REVIEW, which verdict accuracy counts as wrong. Accuracy thresholds were
# lowered to the figures measured then (docs/abilities/scu_guard.md, "Round 7": precision is the contract on
# unseen text, and the first-run precision of rounds 5 and 6 was 0.79-0.80); precision is 1.00 on every set.
HELD_OUT = {
    "holdout.jsonl": (0.82, 0.98), "holdout2.jsonl": (0.86, 0.98), "holdout3.jsonl": (0.78, 0.98),
    "holdout4.jsonl": (0.83, 0.98), "heldout_v5.jsonl": (0.77, 0.98), "heldout_v6.jsonl": (0.66, 0.98),
    "heldout_v7.jsonl": (0.67, 0.98), "heldout_v8.jsonl": (0.65, 0.98), "heldout_v9.jsonl": (0.64, 0.98),
    "heldout_v10.jsonl": (0.68, 0.98), "heldout_v11.jsonl": (0.58, 0.98), "heldout_v12.jsonl": (0.65, 0.98),
    "heldout_v13.jsonl": (0.60, 0.98), "heldout_v14.jsonl": (0.61, 0.98),
    "heldout_v15.jsonl": (0.55, 0.98), "heldout_v16.jsonl": (0.51, 0.98),
    # v17 and v18: first run 0.61 / 0.79 pooled on round 6; their false REJECTs were studied in round 7, so
    # these are development figures
    "heldout_v17.jsonl": (0.51, 0.98), "heldout_v18.jsonl": (0.50, 0.98),
    # v19-v22: written before round 7 by writers who did not read the guard, first run on round 7's final code
    # (bench/results/scu_guard_firstrun_v19_v22_round7.json): precision 0.75-0.80, not 0.98. Regression data from
    # now on: these are the first-run figures, kept so that a change that loses ground on them shows.
    "heldout_v19.jsonl": (0.46, 0.76), "heldout_v20.jsonl": (0.39, 0.75),
    "heldout_v21.jsonl": (0.42, 0.80), "heldout_v22.jsonl": (0.36, 0.80),
    # v23-v26: written before round 8 by writers who did not read the guard, first run on round 8's final code
    # (bench/results/scu_guard_firstrun_v23_v26_round8.json; round 7's code on them: ..._round7.json)
    "heldout_v23.jsonl": (0.47, 0.73), "heldout_v24.jsonl": (0.46, 0.80),
    "heldout_v25.jsonl": (0.51, 0.80), "heldout_v26.jsonl": (0.43, 0.70),
    # v27-v30: written before round 9 by writers who did not read the guard, first run on round 9's final code
    # (bench/results/scu_guard_firstrun_v27_v30_round9.json; round 8's code on them: ..._round8.json)
    "heldout_v27.jsonl": (0.41, 0.70), "heldout_v28.jsonl": (0.41, 0.61),
    "heldout_v29.jsonl": (0.47, 0.76), "heldout_v30.jsonl": (0.53, 1.00),
    # v31-v32: written before round 10 by writers who did not read the guard, first run on the starting code of
    # round 10 (bench/results/scu_guard_firstrun_v31_v32_round9.json) and at round 10's midpoint (..._round10a.json);
    # development data for the second half of round 10. These are the midpoint's first-run figures
    "heldout_v31.jsonl": (0.49, 0.93), "heldout_v32.jsonl": (0.57, 0.85),
    # v33-v34: written during round 10 by writers who did not read the guard, sealed until round 10's end, first
    # run on the starting code (bench/results/scu_guard_firstrun_v33_v34_round9.json) and on round 10's final code
    # (..._round10.json). These are the final code's first-run figures
    "heldout_v33.jsonl": (0.54, 0.75), "heldout_v34.jsonl": (0.53, 0.85),
    # v35-v36: written at the start of round 11 by writers who did not read the guard, first run on the starting
    # code (bench/results/scu_guard_firstrun_v35_v36_round10.json), then development data of round 11
    # (..._round11_dev_v35_v36.json): these are the development figures
    "heldout_v35.jsonl": (0.62, 0.98), "heldout_v36.jsonl": (0.62, 0.98),
    # v37-v38: written at the start of round 11, sealed until its end, first run on the starting code
    # (bench/results/scu_guard_firstrun_v37_v38_round10.json) and on round 11's final code (..._round11.json).
    # Those were the final code's first-run figures (0.58 / 0.85, 0.53 / 0.85); since round 12 they are
    # development data and keep the figures measured then
    "heldout_v37.jsonl": (0.62, 0.98), "heldout_v38.jsonl": (0.55, 0.98),
    # v39-v40: written at the start of round 12, sealed until its end, first run on the starting code
    # (bench/results/scu_guard_firstrun_v39_v40_round11.json) and on round 12's final code (..._round12.json:
    # 0.47 / 0.63 and 0.53 / 0.82), then a precision pass on their false REJECTs: the figures after it
    "heldout_v39.jsonl": (0.48, 0.80), "heldout_v40.jsonl": (0.52, 0.81),
    # v41-v42: near misses (84 OK claims, 28 contradictions each), written during round 12, first run on the
    # code of that moment (..._firstrun_v41_v42_round12a.json: 0.69 / 0.56 and 0.65 / 0.55), then development data
    "heldout_v41.jsonl": (0.73, 0.98), "heldout_v42.jsonl": (0.75, 0.98),
    # v43-v44: written at the start of round 13, sealed until its end, first run on the starting code
    # (bench/results/scu_guard_firstrun_v43_v44_round13_start.json: 0.55 / 0.94 pooled) and on round 13's final
    # code (..._round13.json: 0.58 / 0.94 and 0.55 / 0.93): these are the final code's first-run figures
    "heldout_v43.jsonl": (0.57, 0.94), "heldout_v44.jsonl": (0.55, 0.93),
    # v45-v46: near misses (84 OK claims, 28 contradictions each), written during round 13, first run on the
    # starting code with the parse-walk fix (..._firstrun_v45_v46_round13a.json: 0.63 / 0.67 and 0.66 / 0.69),
    # then development data: the figures at the round's end
    "heldout_v45.jsonl": (0.64, 0.85), "heldout_v46.jsonl": (0.68, 0.81),
    # v47-v48: written at the start of round 14, sealed until its end, first run on the starting code
    # (bench/results/scu_guard_firstrun_v47_v48_round14_start.json: 0.46 / 0.70 and 0.58 / 0.94) and on round 14's
    # final code (..._round14.json: 0.46 / 0.70 and 0.58 / 0.94), then a precision pass on three of their four false
    # REJECTs (a month read as a means, a leap year assumed, a share of a counted whole): the figures after it
    "heldout_v47.jsonl": (0.48, 0.98), "heldout_v48.jsonl": (0.58, 0.93),
    # v49-v50: near misses (84 OK claims, 28 contradictions each), written during round 14, first run on the
    # starting code (..._firstrun_v49_v50_round14_start.json: 0.55 / 0.67 and 0.64 / 0.43), then development data
    "heldout_v49.jsonl": (0.58, 0.98), "heldout_v50.jsonl": (0.67, 0.98),
    # v51-v52: written at the start of round 15, sealed until its end, first run on the starting code
    # (bench/results/scu_guard_firstrun_v51_v52_round15_start.json: 0.45 / 0.67 and 0.35 / 0.86) and on round 15's
    # final code (..._round15.json: 0.46 / 0.67 and 0.37 / 0.88), then a precision pass on their four false REJECTs
    # and the review clearing of round 15's last reading: the figures after them
    "heldout_v51.jsonl": (0.47, 0.98), "heldout_v52.jsonl": (0.44, 0.98),
    # v53-v54: near misses (84 OK claims, 28 contradictions each), written at the start of round 15, first run on
    # the starting code (..._firstrun_v53_v54_round15_start.json: 0.63 / 0.67 and 0.65 / 0.64), then development data
    "heldout_v53.jsonl": (0.67, 0.98), "heldout_v54.jsonl": (0.70, 0.98),
    # v55-v56: written at the start of round 16, sealed until its end, first run on the starting code
    # (bench/results/scu_guard_firstrun_v55_v56_round16_start.json: 0.48 / 0.79 and 0.51 / 0.86) and on round 16's
    # final code (..._firstrun_v55_v56_round16.json: 0.49 / 0.80 and 0.54 / 0.87), then development data; v55 keeps
    # two false REJECTs read after the sealed run and not yet fixed (docs, "Round 16, measured")
    "heldout_v55.jsonl": (0.49, 0.85), "heldout_v56.jsonl": (0.53, 0.98),
    # v57-v58: near misses (84 OK claims, 28 contradictions each), written at the start of round 16, first run on
    # the starting code (..._firstrun_v57_v58_round16_start.json: 0.63 / 0.45 and 0.65 / 0.75), then development data
    "heldout_v57.jsonl": (0.65, 0.98), "heldout_v58.jsonl": (0.66, 0.98),
    # v59-v60: written at the start of round 17, sealed until its end, first run on the starting code
    # (bench/results/scu_guard_firstrun_v59_v60_round17_start.json: 0.49 / 0.90 and 0.54 / 0.80) and on round 17's
    # final code (..._firstrun_v59_v60_round17.json: 0.50 / 0.91 and 0.54 / 0.80), then development data (their four
    # false REJECTs and a season rule read on the wrong side fixed after the sealed run: docs, "Round 17, measured")
    "heldout_v59.jsonl": (0.53, 0.98), "heldout_v60.jsonl": (0.56, 0.98),
    # v61-v62: near misses (84 OK claims, 28 contradictions each), written at the start of round 17, first run on
    # the starting code (..._firstrun_v61_v62_round17_start.json: 0.63 / 0.54 and 0.59 / 0.30), then development data
    "heldout_v61.jsonl": (0.69, 0.98), "heldout_v62.jsonl": (0.66, 0.98),
}
# Round 9 (decision policy, docs "Round 9: decision policy"): a count matched by its noun, a claim stating two
# amounts of the rule's dimension and an exclusion only the typed reading finds wait in REVIEW (each was wrong
# more often than 2 in 100 on the sets the rules had not been tuned on); accuracy floors of holdout,
# holdout2, holdout3, v6, v24, v25 and v26 (and the labelled set's accuracy and recall) were lowered to the
# figures measured then. Precision floors are unchanged.


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
    # round 7: guessed findings wait in REVIEW (0.99 / 1.00 / 0.98 before, with the pair model deciding them);
    # round 9: counts and claims with two amounts of the rule's dimension wait in REVIEW too (0.93 / 0.81 before)
    assert result["verdict_accuracy"] >= 0.89, result["errors"]
    assert result["contradiction"]["precision"] >= 0.98, result["errors"]
    assert result["contradiction"]["recall"] >= 0.72, result["errors"]


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
