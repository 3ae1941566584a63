"""scu_guard evaluation: our detector vs the spec's NEG_MAP regex baseline, on the same pipeline.

Prints precision/recall of ``constraint_contradiction`` and verdict accuracy for both, on the
labelled set and the held-out sets, plus throughput (cases/s in process) and, with
``--service``, actions/s through a real ``metis serve``. Writes ``bench/results/scu_guard.json``.

    .venv/bin/python bench/scu_guard_eval.py [--service] [--actions 40] [--concurrency 8]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from abilities.scu_guard.detect import Finding, find_contradictions  # noqa: E402
from abilities.scu_guard.evaluate import load_cases, score  # noqa: E402
from bench.spine_common import results_dir  # noqa: E402

DATA = ROOT / "tests" / "data" / "scu_guard"
SETS = {"labelled": "cases.jsonl", "holdout": "holdout.jsonl", "holdout2": "holdout2.jsonl",
        "holdout3": "holdout3.jsonl", "holdout4": "holdout4.jsonl",
        "heldout_v5": "heldout_v5.jsonl", "heldout_v6": "heldout_v6.jsonl", "heldout_v7": "heldout_v7.jsonl",
        "heldout_v8": "heldout_v8.jsonl", "heldout_v9": "heldout_v9.jsonl", "heldout_v10": "heldout_v10.jsonl",
        "heldout_v11": "heldout_v11.jsonl", "heldout_v12": "heldout_v12.jsonl"}
# Each held-out set was written after the detector and scored once before any fix it prompted;
# those first-run figures (ours) are the honest generalization numbers. Recorded here from the runs
# in the commit history (tests/data/scu_guard/holdout*.jsonl, "first run" in docs/abilities/scu_guard.md).
FIRST_RUN = {
    "holdout": {"verdict_accuracy": 0.726, "contradiction_precision": 0.85, "contradiction_recall": 0.548},
    "holdout2": {"verdict_accuracy": 0.784, "contradiction_precision": 1.0, "contradiction_recall": 0.6},
    "holdout3": {"verdict_accuracy": 0.703, "contradiction_precision": 1.0, "contradiction_recall": 0.421},
    "holdout4": {"verdict_accuracy": 0.7, "contradiction_precision": 0.8, "contradiction_recall": 0.533},
    # 66 cases, 6 new domains; tp 10, fp 3, fn 24 (NEG_MAP on the same run: 0.621 / 0.737 / 0.412)
    "heldout_v5": {"verdict_accuracy": 0.591, "contradiction_precision": 0.769, "contradiction_recall": 0.294},
    # 30 cases, 3 new domains, written after the v5 fixes; tp 7, fp 4, fn 9 (NEG_MAP: 0.6 / 0.833 / 0.312)
    "heldout_v6": {"verdict_accuracy": 0.567, "contradiction_precision": 0.636, "contradiction_recall": 0.438},
    # written before the typed reading; first run with the lexicon guard of commit 328019d
    # (bench/results/scu_guard_firstrun_v7_v8.json; NEG_MAP: 0.495 / 0.947 / 0.25 and 0.435 / 0.867 / 0.181)
    "heldout_v7": {"verdict_accuracy": 0.532, "contradiction_precision": 0.889, "contradiction_recall": 0.333},
    "heldout_v8": {"verdict_accuracy": 0.5, "contradiction_precision": 0.875, "contradiction_recall": 0.292},
    # written after round 1 of the typed reading; first run (bench/results/scu_guard_firstrun_v9.json)
    "heldout_v9": {"verdict_accuracy": 0.814, "contradiction_precision": 0.925, "contradiction_recall": 0.822},
    # written after rounds 2 and 3 of the typed reading (scu_guard_firstrun_v10.json / _v11.json)
    "heldout_v10": {"verdict_accuracy": 0.714, "contradiction_precision": 0.936, "contradiction_recall": 0.644},
    "heldout_v11": {"verdict_accuracy": 0.686, "contradiction_precision": 0.853, "contradiction_recall": 0.644},
    # written after round 4 (scu_guard_firstrun_v12.json)
    "heldout_v12": {"verdict_accuracy": 0.786, "contradiction_precision": 0.919, "contradiction_recall": 0.756},
}

# Our detector before the v5/v6 round of general fixes (commit b1a5491, same script), for the before/after
# table in docs/abilities/scu_guard.md. v6 did not exist then; its figure here is that old detector on it.
BEFORE_V5_FIXES = {
    "labelled": {"verdict_accuracy": 1.0, "contradiction_precision": 1.0, "contradiction_recall": 1.0},
    "holdout": {"verdict_accuracy": 0.984, "contradiction_precision": 1.0, "contradiction_recall": 0.968},
    "holdout2": {"verdict_accuracy": 0.919, "contradiction_precision": 1.0, "contradiction_recall": 0.85},
    "holdout3": {"verdict_accuracy": 0.892, "contradiction_precision": 1.0, "contradiction_recall": 0.789},
    "holdout4": {"verdict_accuracy": 0.767, "contradiction_precision": 1.0, "contradiction_recall": 0.533},
    "heldout_v5": {"verdict_accuracy": 0.591, "contradiction_precision": 0.769, "contradiction_recall": 0.294},
    "heldout_v6": {"verdict_accuracy": 0.5, "contradiction_precision": 0.545, "contradiction_recall": 0.375},
}

# --- the spec's baseline, verbatim (bench only, never in the product) -------------------------
NEG_MAP = [
    (r"rejects\s+null\s+keys", r"(allow|accept|support)s?\s+null\s+keys"),
    (r"\bonly\b\s+domain\s+example\.com", r"\b(gmail|yahoo|outlook)\.com\b|allow\b.*\bany\b\s+domain"),
    (r"\bmust\b", r"\bmay\b|\boptional\b|\bnot\s+required\b"),
    (r"\bnever\b", r"\ballow(ed)?\b|\bcan\b|\bmay\b"),
]


def neg_map_contradicts(claim: str, locks: list[str]) -> bool:
    """The spec's ``contradicts``."""
    c_low = claim.lower()
    for lock_pat, contra_pat in NEG_MAP:
        for locked in locks:
            if re.search(lock_pat, locked.lower()) and re.search(contra_pat, c_low):
                return True
    return False


def neg_map_detector(claim: str, locks: list[str]) -> list[Finding]:
    """The baseline in the detector shape (one finding over the whole claim when it fires)."""
    if neg_map_contradicts(claim, locks):
        return [Finding(locks[0], 0, len(claim), claim, "neg_map", "regex")]
    return []


def throughput(cases: list[dict[str, Any]], detector: Any, min_s: float = 1.0) -> float:
    """Cases per second through the whole pure pipeline (retrieval + checks), in process."""
    n, t0 = 0, time.perf_counter()
    while True:
        score(cases, detector)
        n += len(cases)
        dt = time.perf_counter() - t0
        if dt >= min_s:
            return n / dt


async def service_rate(cases: list[dict[str, Any]], actions: int, concurrency: int) -> dict[str, Any]:
    """Actions per second through a real server: start, follow to the end, read the outputs."""
    from tests.support import MetisServer, ToolBus

    usable = [c for c in cases if not isinstance(c["answer"], str) or c["answer"]]
    with tempfile.TemporaryDirectory() as tmp:
        server = MetisServer(Path(tmp) / "data").start()
        try:
            async with ToolBus.connect(server) as tb:  # warm-up: one action
                await tb.run("scu_guard", _inputs(usable[0]))
            sem = asyncio.Semaphore(concurrency)
            agree = 0

            async def one(i: int) -> None:
                nonlocal agree
                case = usable[i % len(usable)]
                async with sem, ToolBus.connect(server) as tb:
                    view, _ = await tb.run("scu_guard", _inputs(case))
                    agree += view["outputs"]["reason"] == case["expect"]["reason"]

            t0 = time.perf_counter()
            await asyncio.gather(*(one(i) for i in range(actions)))
            dt = time.perf_counter() - t0
        finally:
            server.stop()
    return {"actions": actions, "concurrency": concurrency, "seconds": round(dt, 3),
            "actions_per_s": round(actions / dt, 2), "outputs_matching_labels": agree}


def _inputs(case: dict[str, Any]) -> dict[str, Any]:
    inputs = {k: case[k] for k in ("constraints", "question", "chunks", "answer")}
    if "top_k" in case:
        inputs["top_k"] = case["top_k"]
    return inputs


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--service", action="store_true", help="also measure actions/s through a real server")
    ap.add_argument("--actions", type=int, default=40)
    ap.add_argument("--concurrency", type=int, default=4)
    ap.add_argument("--smoke", action="store_true", help="small N, seconds (CI); results to $METIS_BENCH_RESULTS or a temp dir")
    args = ap.parse_args()
    args.service = args.service and not args.smoke

    result: dict[str, Any] = {"python": platform.python_version(), "machine": platform.machine(), "sets": {},
                              "first_run_untuned_ours": FIRST_RUN, "ours_before_v5_fixes": BEFORE_V5_FIXES}
    print(f"{'set':18} {'cases':>5}  {'detector':8} {'verdict_acc':>11} {'P(contra)':>9} {'R(contra)':>9}"
          f" {'tp':>3} {'fp':>3} {'fn':>3}")
    for name, file in SETS.items():
        cases = load_cases(DATA / file)
        entry: dict[str, Any] = {"cases": len(cases)}
        for label, det in (("ours", None), ("neg_map", neg_map_detector)):
            r = score(cases, det)
            c = r["contradiction"]
            entry[label] = {"verdict_accuracy": round(r["verdict_accuracy"], 4),
                            "reason_accuracy": round(r["reason_accuracy"], 4),
                            "contradiction_precision": round(c["precision"], 4),
                            "contradiction_recall": round(c["recall"], 4),
                            "tp": c["tp"], "fp": c["fp"], "fn": c["fn"]}
            print(f"{name:18} {len(cases):5}  {label:8} {r['verdict_accuracy']:11.3f} {c['precision']:9.3f}"
                  f" {c['recall']:9.3f} {c['tp']:3} {c['fp']:3} {c['fn']:3}")
        result["sets"][name] = entry

    cases = load_cases(DATA / "cases.jsonl")
    ours_rate = throughput(cases, None)
    base_rate = throughput(cases, neg_map_detector)
    claims = [c for c in cases if isinstance(c["answer"], dict)]
    t0, n = time.perf_counter(), 0
    while time.perf_counter() - t0 < 1.0:
        for c in claims:
            find_contradictions(c["answer"]["claim"], c["constraints"])
        n += len(claims)
    detector_rate = n / (time.perf_counter() - t0)
    result["throughput_in_process"] = {"pipeline_cases_per_s_ours": round(ours_rate, 1),
                                       "pipeline_cases_per_s_neg_map": round(base_rate, 1),
                                       "detector_claims_per_s_ours": round(detector_rate, 1)}
    print(f"throughput in process: ours {ours_rate:.0f} cases/s (pipeline), NEG_MAP {base_rate:.0f} cases/s"
          f" (same pipeline); detector alone {detector_rate:.0f} claims/s")
    if args.service:
        svc = asyncio.run(service_rate(cases, args.actions, args.concurrency))
        result["service"] = svc
        print(f"service: {svc['actions_per_s']} actions/s ({svc['actions']} actions, concurrency "
              f"{svc['concurrency']}, {svc['outputs_matching_labels']} outputs matching labels)")
    out = results_dir(True) / "scu_guard.json" if args.smoke else ROOT / "bench" / "results" / "scu_guard.json"
    out.write_text(json.dumps(result, indent=2, sort_keys=True) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
