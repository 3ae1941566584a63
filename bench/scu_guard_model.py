"""scu_guard with and without its pair model, next to each set's first-run figures: per kind, cause, domain.

The guard rejects only on a sure reading; a finding that rests on a guess stands only when the pair
model agrees, otherwise it is REVIEW. This bench scores, in one run and on the same pipeline:
``guard`` (rules and the pair model), ``rules_only`` (no model: every guessed finding is REVIEW),
and shows beside them the figures recorded when each set was new (its first run, on the guard of
that time), read from ``bench/results/scu_guard_firstrun_*.json``.

With ``--clear-below P ...`` it also scores the model as a *clearer* (round 8): the guard as shipped
(no arbiter), except that a case in REVIEW whose every reason is an unsure finding the model scores
under P answers OK. It prints, per set and P, the OK claims cleared and the contradiction cases
cleared (each of those turns from REVIEW into a wrong OK; accuracy counts REVIEW as wrong either way).
``--model PATH`` scores another model file (its hash is read, not pinned: for leave-sets-out runs).

    .venv/bin/python bench/scu_guard_model.py [--out NAME] [--clear-below P ...] [--model PATH] [SET ...]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from abilities.lock import lock_constraints  # noqa: E402
from abilities.scu_guard import pair_model  # noqa: E402
from abilities.scu_guard.combined import Clearer, detect, forms_for  # noqa: E402
from abilities.scu_guard.evaluate import judge, load_cases  # noqa: E402
from abilities.scu_guard.pair_features import matrix  # noqa: E402
from abilities.scu_guard.retrieval import retrieve  # noqa: E402
from bench.scu_guard_unseen import report, row_for, set_path  # noqa: E402
from bench.spine_common import write_result  # noqa: E402

DEFAULT_SETS = [f"heldout_v{n}" for n in range(9, 17)]
ARBITERS = {"guard": pair_model.agrees, "rules_only": None}


def rows_for(cases: list[dict[str, Any]], arbiter: Any) -> list[dict[str, Any]]:
    """One row per case in the shape ``bench.scu_guard_unseen.report`` reads, with a chosen arbiter."""
    return [row_for(case, judge(case, arbiter=arbiter)) for case in cases]


def cleared_counts(cases: list[dict[str, Any]], clearer: Clearer) -> dict[str, int]:
    """The shipped guard (no arbiter), then each REVIEW case read again with ``clearer``: how many OK
    claims and how many contradiction cases it would answer OK. The inputs are the guard's own (the
    lock, the chunks in scope that the answer cites)."""
    out = {"review_ok": 0, "review_contradiction": 0, "cleared_ok": 0, "cleared_contradiction": 0}
    for case in cases:
        if judge(case).verdict != "REVIEW":
            continue
        lock = lock_constraints(case["constraints"])
        ctx = set(retrieve(case["question"], case["chunks"], case.get("top_k", 6))["ctx_ids"])
        texts = {c["id"]: c["text"] for c in case["chunks"]}
        answer = case["answer"]
        cited = [texts[c] for c in answer.get("citations") or [] if c in texts and c in ctx]
        constraints = lock["constraints"]
        found, suspected = detect(answer["claim"], constraints, forms_for(constraints)[0], cited, None, clearer)
        label = "ok" if case["expect"]["reason"] == "ok" else "contradiction"
        out[f"review_{label}"] += 1
        out[f"cleared_{label}"] += not found and not suspected
    return out


def model_clearer(path: Path, below: float) -> Clearer:
    """A clearer from any model file (for leave-sets-out runs: a model trained without the scored sets)."""
    if path == pair_model.MODEL_PATH:
        return pair_model.clears_below(below)
    sess = pair_model.open_session(path, pair_model.file_sha256(path))
    return lambda constraint, claim, _chunks, hint: float(
        sess.run(None, {"x": matrix([(constraint, claim, hint)])})[0][0, 0]) < below


def first_runs() -> dict[str, dict[str, Any]]:
    """Each set's figures from the run recorded when it was new (the guard of that time)."""
    out: dict[str, dict[str, Any]] = {}
    for path in sorted((ROOT / "bench" / "results").glob("scu_guard_firstrun_*.json")):
        data = json.loads(path.read_text())
        for name, entry in data.get("sets", {}).items():
            if "ours" in entry:
                out[name] = entry["ours"]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("sets", nargs="*", help="set names (heldout_vN) or JSONL paths; default v9..v16")
    ap.add_argument("--out", default="scu_guard_model", help="result name under bench/results/")
    ap.add_argument("--smoke", action="store_true", help="one small set, seconds; results to a temp dir")
    ap.add_argument("--clear-below", type=float, nargs="*", default=[], help="score the model as a clearer at P")
    ap.add_argument("--model", type=Path, default=pair_model.MODEL_PATH, help="model file for --clear-below")
    ap.add_argument("--clear-only", action="store_true", help="skip the arbiter comparison")
    args = ap.parse_args()
    sets = [str(ROOT / "tests" / "data" / "scu_guard" / "holdout.jsonl")] if args.smoke else (
        args.sets or DEFAULT_SETS)
    firsts = first_runs()
    result: dict[str, Any] = {"model_sha256": pair_model.file_sha256(args.model), "threshold": pair_model.THRESHOLD,
                              "sets": {}, "pooled": {}, "clear": {}}
    clearers = {below: model_clearer(args.model, below) for below in args.clear_below}
    cleared_pooled: dict[float, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    pooled: dict[str, dict[str, list[dict[str, Any]]]] = defaultdict(lambda: defaultdict(list))
    for name_or_path in sets:
        path = set_path(name_or_path)
        name = path.stem
        cases = load_cases(str(path))
        entry: dict[str, Any] = {}
        group = ("v15_v16" if name in ("heldout_v15", "heldout_v16") else
                 "v13_v14" if name in ("heldout_v13", "heldout_v14") else
                 "v9_v12" if name in ("heldout_v9", "heldout_v10", "heldout_v11", "heldout_v12") else "other")
        for below, clearer in clearers.items():
            counts = cleared_counts(cases, clearer)
            result["clear"].setdefault(name, {})[str(below)] = counts
            for k, v in counts.items():
                cleared_pooled[below][k] += v
            print(f"{name:14} clear<{below:<5} REVIEW ok={counts['review_ok']} contra={counts['review_contradiction']} "
                  f"cleared ok={counts['cleared_ok']} contra={counts['cleared_contradiction']}")
        for label, arbiter in ({} if args.clear_only else ARBITERS).items():
            rows = rows_for(cases, arbiter)
            pooled[group][label].extend(rows)
            entry[label] = report(rows)
            f = entry[label]["all"]
            print(f"{name:14} {label:10} n={f['cases']:4} acc={f['verdict_accuracy']:.3f} "
                  f"P={f['contradiction_precision']} R={f['contradiction_recall']} "
                  f"ok_flagged={f['ok_claims_flagged']}/{f['ok_claims']} review={f['suspected']}")
        if name in firsts:
            entry["first_run"] = {k: firsts[name][k] for k in ("all", "by_kind", "by_cause", "by_domain")
                                  if k in firsts[name]}
            f = firsts[name]["all"]
            print(f"{name:14} {'first run':10} n={f['cases']:4} acc={f['verdict_accuracy']:.3f} "
                  f"P={f['contradiction_precision']} R={f['contradiction_recall']}")
        result["sets"][name] = entry
    for group, by_label in pooled.items():
        result["pooled"][group] = {label: report(rows) for label, rows in by_label.items()}
        for label, rep in result["pooled"][group].items():
            f = rep["all"]
            print(f"pooled {group:7} {label:10} n={f['cases']:4} acc={f['verdict_accuracy']:.3f} "
                  f"P={f['contradiction_precision']} R={f['contradiction_recall']} review={f['suspected']}")
    for below, counts in cleared_pooled.items():
        result["clear"].setdefault("pooled", {})[str(below)] = dict(counts)
        print(f"pooled clear<{below}: {dict(counts)}")
    result["load_average_1m"] = round(os.getloadavg()[0], 2)
    print(f"wrote {write_result(args.out, result, args.smoke)}")


if __name__ == "__main__":
    main()
