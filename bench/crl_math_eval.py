"""crl_math vs plain sympy (the anchor) on the evaluation corpus; time per problem.

Figures, each beside its baseline measured in the same run:
- correct-with-conditions rate: crl_math (pure core) vs sympy.simplify / sympy.solveset (symbols
  declared real, no conditions returned) on the same simplify/solve problems;
- correct ignoring conditions (so the anchor is not penalised for a format it does not have);
- how often the anchor drops a needed condition that crl_math keeps;
- time per problem: crl_math core in-process vs the anchor, and crl_math end to end through the
  real service (ToolBus actions.start -> completed), plus the spec's §8 stress test end to end.

Run: ``.venv/bin/python bench/crl_math_eval.py [--no-service]``; writes bench/results/crl_math.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from abilities.crl_math.core import run_problem  # noqa: E402
from abilities.crl_math.grading import Grade, anchor, grade_outputs, grade_simplify, grade_solve  # noqa: E402
from abilities.crl_math.request import Request  # noqa: E402
from abilities.crl_math.trail import NullHooks  # noqa: E402
from bench.spine_common import results_dir  # noqa: E402

CORPUS = ROOT / "tests" / "data" / "crl_math" / "corpus.jsonl"
OUT = ROOT / "bench" / "results" / "crl_math.json"
SEED = b"bench-crl-math-seed-000000000000"


def _request(p: dict[str, Any]) -> Request:
    return Request(goal=p["goal"], expression=p.get("expression"), equation=p.get("equation"),
                   assumptions=p.get("assumptions", []), steps=p.get("steps", []))


def _inputs(p: dict[str, Any]) -> dict[str, Any]:
    keys = ("goal", "expression", "equation", "assumptions", "steps")
    return {k: p[k] for k in keys if k in p}


def _anchor_grade(p: dict[str, Any], out: dict[str, Any]) -> Grade:
    if p["goal"] == "simplify":
        return grade_simplify(p, out.get("result"), [])
    return grade_solve(p, out.get("solutions"), [], [])


def _stats(xs: list[float]) -> dict[str, float]:
    xs = sorted(xs)
    if not xs:
        return {}
    return {"median_s": round(statistics.median(xs), 4), "mean_s": round(statistics.fmean(xs), 4),
            "p95_s": round(xs[min(len(xs) - 1, int(0.95 * len(xs)))], 4), "max_s": round(xs[-1], 4)}


def run_core(problems: list[dict[str, Any]]) -> list[dict[str, Any]]:
    rows = []
    for p in problems:
        t0 = time.perf_counter()
        try:
            out = run_problem(_request(p), SEED, NullHooks())
            err = None
        except Exception as exc:  # noqa: BLE001 - a failure is a data point here
            out, err = {}, f"{type(exc).__name__}: {exc}"
        t_ours = time.perf_counter() - t0
        g = grade_outputs(p, out) if out else Grade(False, False, False, False, [err or "error"])
        row: dict[str, Any] = {"id": p["id"], "category": p["category"], "goal": p["goal"],
                               "ours": {"correct": g.correct, "correct_ignoring_conditions": g.numeric_ok
                                        and g.symbolic_ok, "time_s": round(t_ours, 4), "notes": g.notes},
                               "expected_conditions": p.get("conditions", [])}
        if p["goal"] in ("simplify", "solve"):
            t0 = time.perf_counter()
            try:
                a = anchor(p)
                ga = _anchor_grade(p, a)
            except Exception as exc:  # noqa: BLE001
                a, ga = {}, Grade(False, False, False, False, [f"{type(exc).__name__}: {exc}"])
            row["anchor"] = {"correct": ga.correct, "correct_ignoring_conditions": ga.numeric_ok and ga.symbolic_ok,
                             "time_s": round(time.perf_counter() - t0, 4),
                             "answer": a.get("result", a.get("solutions", a.get("note")))}
        rows.append(row)
    return rows


async def run_service(problems: list[dict[str, Any]]) -> dict[str, Any]:
    from tests.support import MetisServer, ToolBus

    with tempfile.TemporaryDirectory() as tmp:
        server = MetisServer(Path(tmp) / "data").start()
        try:
            times: list[float] = []
            correct = 0
            async with ToolBus.connect(server) as tb:
                await tb.run("crl_math", {"goal": "simplify", "expression": "x + 1"})  # warm one worker
                for p in problems:
                    t0 = time.perf_counter()
                    view, _ = await tb.run("crl_math", _inputs(p))
                    times.append(time.perf_counter() - t0)
                    if view["status"] == "completed" and grade_outputs(p, view["outputs"]).correct:
                        correct += 1
                stress = []
                for _ in range(5):
                    t0 = time.perf_counter()
                    view, _ = await tb.run("crl_math", {"goal": "simplify",
                                                        "expression": "sqrt(x^2 - 2x + 1)/(x - 1)"})
                    stress.append(time.perf_counter() - t0)
                    assert view["outputs"]["result"] == "Piecewise((1, x > 1), (-1, x < 1))"
                # baseline in the same run: a trivial action's round trip (service overhead alone)
                trivial = []
                for _ in range(5):
                    t0 = time.perf_counter()
                    await tb.run("crl_math", {"goal": "simplify", "expression": "x"})
                    trivial.append(time.perf_counter() - t0)
        finally:
            server.stop()
    return {"problems": len(problems), "correct_with_conditions": correct,
            "rate": round(correct / len(problems), 4), "time_per_problem": _stats(times),
            "stress_test_s": _stats(stress), "trivial_action_s": _stats(trivial)}


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    comparable = [r for r in rows if "anchor" in r]
    need_cond = [r for r in comparable if r["expected_conditions"]]
    ours_ok = sum(r["ours"]["correct"] for r in comparable)
    anc_ok = sum(r["anchor"]["correct"] for r in comparable)
    dropped = [r["id"] for r in need_cond
               if r["anchor"]["correct_ignoring_conditions"] and r["ours"]["correct"]]
    by_cat: dict[str, dict[str, int]] = {}
    for r in rows:
        c = by_cat.setdefault(r["category"], {"n": 0, "ours": 0, "anchor": 0})
        c["n"] += 1
        c["ours"] += r["ours"]["correct"]
        c["anchor"] += r.get("anchor", {}).get("correct", 0)
    return {
        "problems_total": len(rows),
        "ours_correct_all_goals": sum(r["ours"]["correct"] for r in rows),
        "simplify_solve_problems": len(comparable),
        "correct_with_conditions": {"crl_math": round(ours_ok / len(comparable), 4),
                                    "anchor_sympy": round(anc_ok / len(comparable), 4)},
        "correct_ignoring_conditions": {
            "crl_math": round(sum(r["ours"]["correct_ignoring_conditions"] for r in comparable) / len(comparable), 4),
            "anchor_sympy": round(sum(r["anchor"]["correct_ignoring_conditions"] for r in comparable)
                                  / len(comparable), 4)},
        "problems_needing_conditions": len(need_cond),
        "anchor_right_value_but_dropped_condition": len(dropped),
        "anchor_dropped_ids": dropped,
        "time_per_problem_core": {"crl_math": _stats([r["ours"]["time_s"] for r in comparable]),
                                  "anchor_sympy": _stats([r["anchor"]["time_s"] for r in comparable])},
        "by_category": dict(sorted(by_cat.items())),
        "failures": [{"id": r["id"], "notes": r["ours"]["notes"]} for r in rows if not r["ours"]["correct"]],
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--no-service", action="store_true", help="skip the end-to-end service timing")
    ap.add_argument("--smoke", action="store_true", help="small N, seconds (CI); results to $METIS_BENCH_RESULTS or a temp dir")
    args = ap.parse_args()
    problems = [json.loads(line) for line in CORPUS.open()]
    out = OUT
    if args.smoke:
        problems, args.no_service, out = problems[:6], True, results_dir(True) / OUT.name
    run_core(problems[:3])  # warm sympy's caches so the first problem is not billed for imports
    rows = run_core(problems)
    summary = summarize(rows)
    if not args.no_service:
        summary["service"] = asyncio.run(run_service(problems))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"summary": summary, "rows": rows}, indent=2, sort_keys=True))
    s = summary
    print(f"problems: {s['problems_total']} (simplify/solve vs anchor: {s['simplify_solve_problems']})")
    print(f"correct with conditions: crl_math {s['correct_with_conditions']['crl_math']:.1%}  "
          f"anchor sympy {s['correct_with_conditions']['anchor_sympy']:.1%}")
    print(f"correct ignoring conditions: crl_math {s['correct_ignoring_conditions']['crl_math']:.1%}  "
          f"anchor sympy {s['correct_ignoring_conditions']['anchor_sympy']:.1%}")
    print(f"anchor right value but dropped a needed condition: {s['anchor_right_value_but_dropped_condition']}"
          f" of {s['problems_needing_conditions']} problems that need one")
    print(f"core time/problem: crl_math {s['time_per_problem_core']['crl_math']}  "
          f"anchor {s['time_per_problem_core']['anchor_sympy']}")
    if "service" in s:
        sv = s["service"]
        print(f"service end to end: {sv['correct_with_conditions']}/{sv['problems']} correct, "
              f"time/problem {sv['time_per_problem']}; stress test {sv['stress_test_s']}; "
              f"trivial action {sv['trivial_action_s']}")
    if s["failures"]:
        print("failures:", s["failures"])
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
