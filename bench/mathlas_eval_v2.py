"""mathlas evaluation v2: the harder constants and sequences of tests/data/mathlas/eval_v2_*.json.

The cases were written before the v2 search existed; bench/results/mathlas_v2_first_run.json holds
the figures of the code they were written against. A constant counts as correct when it is
identified and the best form equals the true value to 50 digits, or, for a negative, when nothing is
identified; any other identification is a false positive. Latency is reported next to plain
``mpmath.identify`` over a comparable basis, measured in the same run.
Run: .venv/bin/python bench/mathlas_eval_v2.py [--smoke]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from pathlib import Path

import mpmath

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from abilities.mathlas import closedform as cf  # noqa: E402
from abilities.mathlas.numeric import identify_constant  # noqa: E402
from abilities.mathlas.sequence import identify_sequence  # noqa: E402
from bench.spine_common import write_result  # noqa: E402

DATA = ROOT / "tests" / "data" / "mathlas"


def constant_correct(case: dict, result: dict) -> tuple[bool, bool]:
    """(correct, false_positive) for one constant case."""
    if case["truth60"] is None:
        return (not result["identified"], bool(result["identified"]))
    if not result["identified"]:
        return (False, False)
    got = cf.eval_mpmath(cf.parse(result["best"]), 70)
    with mpmath.workdps(70):
        ok = abs(got - mpmath.mpf(case["truth60"])) <= mpmath.mpf(10) ** -50 * max(1, abs(got))
    return (ok, not ok)


def plain_identify(value: str) -> bool:
    with mpmath.workdps(len(value)):
        consts = {"pi": mpmath.pi, "e": mpmath.e, "log2": mpmath.log(2), "zeta3": mpmath.zeta(3),
                  "euler": mpmath.euler, "catalan": mpmath.catalan}
        return mpmath.identify(mpmath.mpf(value), constants=consts,
                               tol=mpmath.mpf(10) ** -(len(value) - 6)) is not None


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return round(xs[min(len(xs) - 1, int(q * len(xs)))] * 1000, 2)


def run(smoke: bool) -> dict:
    consts = json.loads((DATA / "eval_v2_constants.json").read_text())["constants"]
    seqs = json.loads((DATA / "eval_v2_sequences.json").read_text())["sequences"]
    if smoke:
        consts, seqs = consts[:3] + consts[-2:], seqs[:3]
    by_kind: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    fps, lat, base_lat, misses = 0, [], [], []
    for case in consts:
        t0 = time.perf_counter()
        res = identify_constant(case["value"])
        lat.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        plain_identify(case["value"])
        base_lat.append(time.perf_counter() - t0)
        ok, fp = constant_correct(case, res)
        by_kind[case["kind"]][0] += ok
        by_kind[case["kind"]][1] += 1
        fps += fp
        if not ok:
            misses.append({"id": case["id"], "best": res.get("best")})
    seq_ok, seq_miss = 0, []
    for case in seqs:
        terms = [int(t) for t in case["terms"]]
        res = identify_sequence(terms, max_results=50)
        found = [m["a_number"] for m in res["matches"]]
        if case["a_number"] in found:
            seq_ok += 1
        else:
            seq_miss.append({"a_number": case["a_number"], "found": found[:5]})
    n_const = len(consts)
    out = {
        "constants": {"correct": sum(v[0] for v in by_kind.values()), "of": n_const, "false_positives": fps,
                      "by_kind": {k: f"{v[0]}/{v[1]}" for k, v in sorted(by_kind.items())},
                      "latency_ms": {"p50": pct(lat, 0.5), "p95": pct(lat, 0.95)},
                      "baseline_mpmath_identify_latency_ms": {"p50": pct(base_lat, 0.5), "p95": pct(base_lat, 0.95)},
                      "misses": misses},
        "sequences": {"correct": seq_ok, "of": len(seqs), "misses": seq_miss},
    }
    out["total"] = f"{out['constants']['correct'] + seq_ok}/{n_const + len(seqs)}"
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--smoke", action="store_true", help="a few cases only, to check the script runs")
    args = ap.parse_args()
    out = run(args.smoke)
    c = out["constants"]
    print(f"constants {c['correct']}/{c['of']} (false positives {c['false_positives']}) by kind {c['by_kind']}")
    print(f"identify_constant latency p50 {c['latency_ms']['p50']} ms p95 {c['latency_ms']['p95']} ms; "
          f"plain mpmath.identify p50 {c['baseline_mpmath_identify_latency_ms']['p50']} ms "
          f"p95 {c['baseline_mpmath_identify_latency_ms']['p95']} ms")
    print(f"sequences {out['sequences']['correct']}/{out['sequences']['of']}; total {out['total']}")
    write_result("mathlas_v2", out, args.smoke)


if __name__ == "__main__":
    main()
