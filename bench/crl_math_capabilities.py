"""crl_math vs plain sympy on the capability sets (inequalities, trigonometry, parameters, set
answers, change of base, radicals, always-true conditions).

Every answer is graded by the strict real evaluator (``grading.grade_capability``): a set answer
must contain exactly the points where the relation holds (seeded points, the sets' own points and
their neighbours), parameter cases must cover every tested parameter value exactly once, a
simplification must agree with its input wherever its own conditions allow. Outcomes: correct,
imprecise (true but with an extra condition or a less simple form), wrong (a false claim),
refused. The anchor is plain sympy over the reals (``solveset`` / ``simplify``), measured in the
same run on the same problems.

Two sets: ``v1`` (tests/data/crl_math/capabilities.jsonl, written before any of this work) and
``v2`` (capabilities_v2.jsonl, a held-out set written after the v1 work, before looking at how
the code does on it), ``v3`` (capabilities_v3.jsonl, a last held-out probe written after the v2
work and only measured).

Run: ``.venv/bin/python bench/crl_math_capabilities.py [--set v1|v2|v3] [--first-run]``; writes
bench/results/crl_math_capabilities.json (``--first-run`` records that set's figures under
``first_run``; otherwise under ``current``, keeping the recorded first run).
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from abilities.base import AbilityError  # noqa: E402
from abilities.crl_math.core import run_problem  # noqa: E402
from abilities.crl_math.grading import OUTCOMES, Outcome, anchor_capability, grade_capability  # noqa: E402
from abilities.crl_math.request import Request  # noqa: E402
from abilities.crl_math.trail import NullHooks  # noqa: E402
from bench.spine_common import results_dir  # noqa: E402

SETS = {"v1": ROOT / "tests" / "data" / "crl_math" / "capabilities.jsonl",
        "v2": ROOT / "tests" / "data" / "crl_math" / "capabilities_v2.jsonl",
        "v3": ROOT / "tests" / "data" / "crl_math" / "capabilities_v3.jsonl"}
OUT = ROOT / "bench" / "results" / "crl_math_capabilities.json"
SEED = b"bench-crl-math-capabilities-0000"
ANCHOR_TIMEOUT_S = 20


class _Timeout(Exception):
    pass


def _alarm(_sig: int, _frame: Any) -> None:
    raise _Timeout()


def request(p: dict[str, Any]) -> Request:
    return Request(goal=p["goal"], expression=p.get("expression"), equation=p.get("equation"),
                   variable=p.get("variable"), assumptions=p.get("assumptions", []))


def ours(p: dict[str, Any]) -> tuple[Outcome, float, str]:
    t0 = time.perf_counter()
    try:
        out = run_problem(request(p), SEED, NullHooks())
        note = ""
    except AbilityError as exc:
        out, note = None, f"{exc.reason}: {exc.message}"
    except Exception as exc:  # noqa: BLE001 - a crash is a data point (counted as refused, noted)
        out, note = None, f"crash {type(exc).__name__}: {exc}"
    dt = time.perf_counter() - t0
    g = grade_capability(p, out)
    return g, dt, note


def anchor(p: dict[str, Any]) -> tuple[Outcome, float, str]:
    t0 = time.perf_counter()
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(ANCHOR_TIMEOUT_S)
    try:
        out = anchor_capability(p)
        note = "" if out is not None else "no usable set (ConditionSet or unreadable)"
        g = grade_capability(p, out)
    except _Timeout:
        g, note = Outcome("refused", ["timeout"]), f"timeout after {ANCHOR_TIMEOUT_S}s"
    except Exception as exc:  # noqa: BLE001
        g, note = Outcome("refused", [str(exc)]), f"{type(exc).__name__}: {exc}"
    finally:
        signal.alarm(0)
    return g, time.perf_counter() - t0, note


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    cats: dict[str, dict[str, Any]] = {}
    for r in rows:
        c = cats.setdefault(r["category"], {"n": 0, "crl_math": dict.fromkeys(OUTCOMES, 0),
                                            "sympy": dict.fromkeys(OUTCOMES, 0)})
        c["n"] += 1
        c["crl_math"][r["crl_math"]["status"]] += 1
        c["sympy"][r["sympy"]["status"]] += 1
    total = {"n": len(rows), "crl_math": dict.fromkeys(OUTCOMES, 0), "sympy": dict.fromkeys(OUTCOMES, 0)}
    for c in cats.values():
        for who in ("crl_math", "sympy"):
            for k in OUTCOMES:
                total[who][k] += c[who][k]
    return {"by_category": dict(sorted(cats.items())), "total": total,
            "correct_rate": {who: round(total[who]["correct"] / len(rows), 4) for who in ("crl_math", "sympy")},
            "wrong": {who: total[who]["wrong"] for who in ("crl_math", "sympy")}}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--first-run", action="store_true", help="record these figures as the first run")
    ap.add_argument("--set", choices=sorted(SETS), default="v1")
    ap.add_argument("--smoke", action="store_true", help="small N, seconds (CI); results to $METIS_BENCH_RESULTS or a temp dir")
    args = ap.parse_args()
    problems = [json.loads(line) for line in SETS[args.set].open()]
    out = results_dir(True) / OUT.name if args.smoke else OUT
    if args.smoke:
        problems = problems[:4]
    rows = []
    for p in problems:
        g, dt, note = ours(p)
        ga, dta, note_a = anchor(p)
        rows.append({"id": p["id"], "category": p["category"],
                     "crl_math": {"status": g.status, "notes": g.notes, "failure": note, "time_s": round(dt, 3)},
                     "sympy": {"status": ga.status, "notes": ga.notes, "failure": note_a, "time_s": round(dta, 3)}})
    summary = summarize(rows)
    record = json.loads(out.read_text()) if out.exists() else {}
    record.setdefault(args.set, {})["first_run" if args.first_run else "current"] = {"summary": summary, "rows": rows}
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(record, indent=2, sort_keys=True) + "\n")
    print(f"{'category':16} {'n':>3}  crl_math c/i/w/r    sympy c/i/w/r")
    for name, c in summary["by_category"].items():
        a, b = c["crl_math"], c["sympy"]
        print(f"{name:16} {c['n']:>3}  {a['correct']:>3}/{a['imprecise']}/{a['wrong']}/{a['refused']:<3}"
              f"        {b['correct']:>3}/{b['imprecise']}/{b['wrong']}/{b['refused']}")
    t = summary["total"]
    print(f"{'total':16} {t['n']:>3}  correct {summary['correct_rate']['crl_math']:.1%} wrong "
          f"{t['crl_math']['wrong']}   sympy correct {summary['correct_rate']['sympy']:.1%} wrong {t['sympy']['wrong']}")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
