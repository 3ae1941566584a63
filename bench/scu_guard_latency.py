"""scu_guard latency per case with 10 constraints: the guard, the guard without its pair model, the
lexicon detector alone, NEG_MAP; the previous recorded run's figures are kept beside the new ones.

Each case is a claim from the unseen sets with its own constraints padded to 10 with constraints of
other domains (so every detector sees 10). Constraints are understood once, at lock time (measured
apart, cold, model already loaded); a case is then the whole check pipeline on one answer, with the
parse cache cleared first so the claim and its chunks are parsed inside the measured time. Wall time
and the process's CPU time are both kept: on a shared machine the CPU time is the cost of the work,
the wall time adds the waiting for a core (the load average is recorded). All three run in the same
process on the same cases, interleaved per round, so each figure sits next to its baselines.

    .venv/bin/python bench/scu_guard_latency.py [--rounds 3]

writes ``bench/results/scu_guard_latency.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from abilities.lock import lock_constraints  # noqa: E402
from abilities.scu_guard import apart, calendar_days  # noqa: E402
from abilities.scu_guard.check import run_checks  # noqa: E402
from abilities.scu_guard.combined import forms_for  # noqa: E402
from abilities.scu_guard.detect import find_contradictions  # noqa: E402
from abilities.scu_guard.evaluate import load_cases  # noqa: E402
from abilities.scu_guard.forms import understand  # noqa: E402
from abilities.scu_guard.nlp import light_keys, nlp, parse  # noqa: E402
from abilities.scu_guard.pair_model import session  # noqa: E402
from bench.scu_guard_eval import neg_map_detector  # noqa: E402
from bench.spine_common import write_result  # noqa: E402

DATA = ROOT / "tests" / "data" / "scu_guard"
SETS = ("heldout_v7.jsonl", "heldout_v8.jsonl")


def ten_constraint_cases() -> list[dict[str, Any]]:
    cases = [c for name in SETS for c in load_cases(DATA / name)]
    pool = list(dict.fromkeys(x for c in cases for x in c["constraints"]))
    out = []
    for c in cases:
        extra = [x for x in pool if x not in c["constraints"]]
        out.append({**c, "constraints": (c["constraints"] + extra)[:10]})
    return out


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


# caches keyed by a claim's or a chunk's text, cleared with the parse cache before each measured check
TEXT_CACHES = (apart._MEMBER_MEMO.clear, calendar_days._years_in.cache_clear)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--smoke", action="store_true", help="small N, seconds (CI); results to $METIS_BENCH_RESULTS or a temp dir")
    args = ap.parse_args()
    if args.smoke:
        args.rounds = 1
    cases = ten_constraint_cases()
    previous_path = ROOT / "bench" / "results" / "scu_guard_latency.json"
    previous = json.loads(previous_path.read_text()) if previous_path.is_file() else {}
    nlp()  # the parser loads once per process, before any lock
    session()  # and so does the pair model
    t0 = time.perf_counter()
    distinct = list(dict.fromkeys(x for c in cases for x in c["constraints"]))
    for x in distinct:
        understand(x)  # cold: the parser's first look at each constraint
    lock_ms = (time.perf_counter() - t0) * 1000 / len(distinct)
    prepared = []
    for c in cases:
        lock = lock_constraints(c["constraints"])
        answer = {**c["answer"], "constraints_echo": list(lock["constraints"])}
        chunks = {ch["id"]: ch["text"] for ch in c["chunks"]}
        prepared.append((lock, [ch["id"] for ch in c["chunks"]], answer, chunks))
    runs: dict[str, list[float]] = {"guard": [], "guard_without_model": [], "lexicon_only": [], "neg_map": []}
    cpu: dict[str, list[float]] = {k: [] for k in runs}
    for _ in range(args.rounds):
        for i, (lock, ids, answer, chunks) in enumerate(prepared):
            forms = forms_for(lock["constraints"])[0]
            guards = [("guard", {"forms": forms, "chunk_texts": chunks}),
                      ("guard_without_model", {"forms": forms, "chunk_texts": chunks, "arbiter": None})]
            if i % 2:  # alternate which goes first, so neither is always the one that warms the caches
                guards.reverse()
            for name, kw in (*guards, ("lexicon_only", {"detector": find_contradictions}),
                             ("neg_map", {"detector": neg_map_detector})):
                parse.cache_clear()  # every claim and chunk is parsed anew: only the locked forms are kept
                light_keys.cache_clear()
                for clear in TEXT_CACHES:  # what a claim or a chunk gives is worked out anew too
                    clear()
                t, c = time.perf_counter(), time.process_time()
                run_checks(lock, ids, answer, **kw)
                runs[name].append((time.perf_counter() - t) * 1000)
                cpu[name].append((time.process_time() - c) * 1000)
    result: dict[str, Any] = {"python": platform.python_version(), "machine": platform.machine(),
                              "load_average_1m_at_end": round(os.getloadavg()[0], 2), "cpus": os.cpu_count(),
                              "cases": len(cases), "constraints_per_case": 10, "rounds": args.rounds,
                              "lock_time_ms_per_constraint_cold": round(lock_ms, 3), "per_case_ms": {}}
    result["per_case_cpu_ms"] = {}
    for name, v in runs.items():
        result["per_case_ms"][name] = {"p50": round(statistics.median(v), 3), "p95": round(pct(v, 0.95), 3),
                                       "p99": round(pct(v, 0.99), 3), "max": round(max(v), 3)}
        c = cpu[name]
        result["per_case_cpu_ms"][name] = {"p50": round(statistics.median(c), 3), "p95": round(pct(c, 0.95), 3),
                                           "p99": round(pct(c, 0.99), 3)}
        print(f"{name:13} wall p50 {statistics.median(v):7.3f} p95 {pct(v, 0.95):7.3f} p99 {pct(v, 0.99):7.3f} ms"
              f" | cpu p50 {statistics.median(c):7.3f} p95 {pct(c, 0.95):7.3f} ms")
    print(f"lock time (cold parse) {lock_ms:.2f} ms per constraint")
    if previous:  # the run recorded before this one, for the figures side by side
        keep = ("per_case_ms", "per_case_cpu_ms", "load_average_1m_at_end", "lock_time_ms_per_constraint_cold")
        result["previous_run"] = {k: previous[k] for k in keep if k in previous}
    print(f"wrote {write_result('scu_guard_latency', result, args.smoke)}")


if __name__ == "__main__":
    main()
