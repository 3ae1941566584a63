"""scu_guard with and without its pair model, next to each set's first-run figures: per kind, cause, domain.

The guard rejects only on a sure reading; a finding that rests on a guess stands only when the pair
model agrees, otherwise it is REVIEW. This bench scores, in one run and on the same pipeline:
``guard`` (rules and the pair model), ``rules_only`` (no model: every guessed finding is REVIEW),
and shows beside them the figures recorded when each set was new (its first run, on the guard of
that time), read from ``bench/results/scu_guard_firstrun_*.json``.

    .venv/bin/python bench/scu_guard_model.py [--out NAME] [SET ...]   (default: v9..v16)
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

from abilities.scu_guard import pair_model  # noqa: E402
from abilities.scu_guard.evaluate import judge, load_cases  # noqa: E402
from bench.scu_guard_unseen import report, set_path  # noqa: E402
from bench.spine_common import write_result  # noqa: E402

DEFAULT_SETS = [f"heldout_v{n}" for n in range(9, 17)]
ARBITERS = {"guard": pair_model.agrees, "rules_only": None}


def rows_for(cases: list[dict[str, Any]], arbiter: Any) -> list[dict[str, Any]]:
    """One row per case in the shape ``bench.scu_guard_unseen.report`` reads, with a chosen arbiter."""
    out = []
    for case in cases:
        got = judge(case, arbiter=arbiter)
        exp = case["expect"]
        out.append({"id": case["id"], "domain": case.get("domain", "?"), "kind": case.get("kind", "?"),
                    "cause": case.get("cause", "?"), "want": exp["reason"] == "constraint_contradiction",
                    "got": got.reason == "constraint_contradiction", "reason": got.reason,
                    "verdict_ok": got.verdict == exp["verdict"]})
    return out


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
    args = ap.parse_args()
    sets = [str(ROOT / "tests" / "data" / "scu_guard" / "holdout.jsonl")] if args.smoke else (
        args.sets or DEFAULT_SETS)
    firsts = first_runs()
    result: dict[str, Any] = {"model_sha256": pair_model.MODEL_SHA256, "threshold": pair_model.THRESHOLD,
                              "sets": {}, "pooled": {}}
    pooled: dict[str, dict[str, list[dict[str, Any]]]] = defaultdict(lambda: defaultdict(list))
    for name_or_path in sets:
        path = set_path(name_or_path)
        name = path.stem
        cases = load_cases(str(path))
        entry: dict[str, Any] = {}
        group = ("v15_v16" if name in ("heldout_v15", "heldout_v16") else
                 "v13_v14" if name in ("heldout_v13", "heldout_v14") else
                 "v9_v12" if name in ("heldout_v9", "heldout_v10", "heldout_v11", "heldout_v12") else "other")
        for label, arbiter in ARBITERS.items():
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
    result["load_average_1m"] = round(os.getloadavg()[0], 2)
    print(f"wrote {write_result(args.out, result, args.smoke)}")


if __name__ == "__main__":
    main()
