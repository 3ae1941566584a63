"""Refit cda's confidence calibration table (abilities/cda/calibration.json), deterministically.

Usage: .venv/bin/python bench/cda_calibrate.py [--check]

Runs the cda core on generated RCA problems with seeds 5,000,000 + services*1000 + i (disjoint
from the benchmark's, services*1000 + i < 2,100,000, and the test's, 8,000,000 + ...), pairs
each ranked verdict's *raw* confidence (posterior shrunk by uncertainty, from the run's trace)
with whether it blames the injected root, and fits an isotonic map (pool-adjacent-violators with
Beta(1,1) smoothing per block; abilities/cda/calibration.py). The raw confidence does not
depend on the table, so the fit is the same whichever table is installed. Writes the table with
its provenance; ``--check`` only compares and exits 1 if the shipped table differs.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from abilities.cda import calibration, reliability  # noqa: E402
from bench.spine_common import results_dir  # noqa: E402

BASE_SEED = 5_000_000
PLAN = [(50, 400), (200, 300), (500, 160), (1000, 80), (2000, 40)]


def build(plan: list[tuple[int, int]] = PLAN) -> dict:
    """The table document: knots plus provenance and the fit's in-sample reliability."""
    s = reliability.collect(plan, BASE_SEED)
    knots = calibration.fit_isotonic(s.all_raw, s.all_y)
    fitted = [calibration.apply(knots, r) for r in s.all_raw]
    return {
        "what": "raw confidence (posterior * (1 - uncertainty)) -> P(hypothesis blames the true root)",
        "method": "isotonic regression (pool-adjacent-violators), Beta(1,1)-smoothed blocks, "
                  "piecewise-linear between block means, flat to 0 and 1",
        "generator": "abilities/cda/rca.py generate(services, seed)",
        "seeds": f"{BASE_SEED} + services*1000 + i", "plan": [list(x) for x in plan],
        "problems": sum(k for _, k in plan), "samples": len(s.all_y), "positives": sum(s.all_y),
        "in_sample": {"ece_identity": round(calibration.ece(s.all_raw, s.all_y), 4),
                      "ece_fitted": round(calibration.ece(fitted, s.all_y), 4)},
        "knots": [[x, y] for x, y in knots],
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true", help="exit 1 if the shipped table differs from a refit")
    ap.add_argument("--smoke", action="store_true", help="small N, seconds (CI); results to $METIS_BENCH_RESULTS or a temp dir")
    args = ap.parse_args()
    doc = build([(50, 8)] if args.smoke else PLAN)
    text = json.dumps(doc, indent=1) + "\n"
    print(json.dumps({k: v for k, v in doc.items() if k != "knots"}, indent=1))
    print("knots:", json.dumps(doc["knots"]))
    if args.smoke:  # a refit of a small plan, never over the shipped table
        (results_dir(True) / "cda_calibration.json").write_text(text)
        return
    if args.check:
        same = calibration.TABLE_PATH.read_text() == text
        print("shipped table is up to date" if same else "shipped table differs from a refit")
        sys.exit(0 if same else 1)
    calibration.TABLE_PATH.write_text(text)


if __name__ == "__main__":
    main()
