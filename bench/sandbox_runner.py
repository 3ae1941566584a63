"""Confined runner bench: what the jail costs.

Prints and writes ``bench/results/sandbox_runner.json``:
- session start (launcher + namespaces + read-only root + seccomp + exec + load) next to a bare
  ``python -I -S -c pass`` subprocess, the baseline any out-of-process runner pays, in wall time
  (depends on the host's load, which is recorded) and in CPU time of the processes (does not);
- one call round trip over the pipes next to the same function called in process;
- a whole FunSearch ``cap_set`` evaluation (n = 4 and 6) next to the trusted scorer with the
  priority run in process (the cost of confining the candidate).

Run: ``.venv/bin/python bench/sandbox_runner.py [--repeats 20]``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from abilities.confine import Session  # noqa: E402
from abilities.confine.session import interpreter  # noqa: E402
from abilities.mathlas.sandbox import run_sandboxed  # noqa: E402
from abilities.mathlas.scorers import SCORERS  # noqa: E402
from bench.spine_common import results_dir  # noqa: E402

SRC = "def f(x):\n    return x * 2\n"
PRIORITY = "def priority(el, n):\n    return -sum(el) + 0.1 * el.count(1)\n"


def child_cpu_ms(fn, repeats: int) -> float:
    """CPU time (user + system) of the child processes per run: independent of the host's load."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    for _ in range(repeats):
        fn()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    spent = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return round(spent / repeats * 1000, 3)


def median_ms(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return round(statistics.median(times) * 1000, 3)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--smoke", action="store_true", help="small N, seconds (CI); results to $METIS_BENCH_RESULTS or a temp dir")
    args = ap.parse_args()
    if args.smoke:
        args.repeats = 2
    r = args.repeats

    def start_session() -> None:
        with Session(SRC, "f") as s:
            s.call(1)

    def bare_start() -> None:
        subprocess.run([interpreter(), "-I", "-S", "-c", "pass"], check=True)

    bare = median_ms(bare_start, r)
    confined = median_ms(start_session, r)
    bare_cpu = child_cpu_ms(bare_start, r)
    confined_cpu = child_cpu_ms(start_session, r)
    with Session(SRC, "f") as s:
        calls = 2000
        t0 = time.perf_counter()
        for i in range(calls):
            s.call(i)
        per_call_us = (time.perf_counter() - t0) / calls * 1e6
    def local(x: int) -> int:
        return x * 2

    t0 = time.perf_counter()
    for i in range(calls):
        local(i)
    in_process_us = (time.perf_counter() - t0) / calls * 1e6

    def priority(el, n):
        return -sum(el) + 0.1 * el.count(1)

    evals = {}
    for n in (4, 6):
        evals[f"cap_set_n{n}"] = {
            "confined_ms": median_ms(lambda n=n: run_sandboxed(PRIORITY, "cap_set", {"n": n}), max(3, r // 4)),
            "in_process_baseline_ms": median_ms(lambda n=n: SCORERS["cap_set"](priority, {"n": n}), max(3, r // 4)),
        }
    out = {
        "machine": {"python": platform.python_version(), "kernel": platform.release(), "cpus": os.cpu_count(),
                    "load_average_1min": round(os.getloadavg()[0], 2)},
        "session_start_ms": {"confined": confined, "bare_interpreter_baseline": bare},
        "session_start_cpu_ms": {"confined": confined_cpu, "bare_interpreter_baseline": bare_cpu},
        "call_round_trip_us": {"confined": round(per_call_us, 1), "in_process_baseline": round(in_process_us, 3)},
        "funsearch_evaluate": evals,
    }
    print(json.dumps(out, indent=1))
    path = Path(__file__).resolve().parent / "results" / "sandbox_runner.json"
    if args.smoke:
        path = results_dir(True) / path.name
    path.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
