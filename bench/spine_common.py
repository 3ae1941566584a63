"""Shared helpers of the spine benchmarks: percentiles, machine facts, result files.

Not a benchmark itself; ``bench/spine_*.py`` import it (run them from the repo root with
``PYTHONPATH=.``, or as plain scripts: each puts the repo root on ``sys.path``).
"""

from __future__ import annotations

import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "bench" / "results"


# Steady-state figures are measured on warm workers: a worker says ready only once it has imported
# every ability (by default it imports them in the background after ready, and runs in its first
# seconds share it with those imports; a cold start is measured separately where it matters).
WARM_WORKERS_ENV = {"METIS_WORKER_PREIMPORT": "wait"}


def pct(values: list[float], q: float) -> float:
    """The q-quantile (0..1) of ``values`` by nearest rank; 0.0 for no values."""
    if not values:
        return 0.0
    s = sorted(values)
    k = min(len(s) - 1, max(0, int(round(q * len(s) + 0.5)) - 1))
    return s[k]


def ms(seconds: float) -> float:
    return round(seconds * 1000.0, 3)


def machine() -> dict[str, Any]:
    """Where the figures were measured (they only compare within one run)."""
    return {"python": sys.version.split()[0], "platform": platform.platform(), "cpus": os.cpu_count(),
            "load_average_1_5_15": [round(x, 2) for x in os.getloadavg()],
            "measured_at_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}


def spread(values: list[float], fmt: str = "g") -> str:
    """min/median/max of repeated measurements, as ``a/b/c``."""
    v = sorted(values)
    return "/".join(f"{x:{fmt}}" for x in (v[0], v[len(v) // 2], v[-1]))


def ratio(a: float, b: float) -> float:
    return round(a / b, 4) if b else 0.0


def results_dir(smoke: bool = False) -> Path:
    """Where result files go: ``bench/results``, except in smoke mode (CI), where they go to
    ``$METIS_BENCH_RESULTS`` or a fresh temporary directory, never over the committed figures."""
    if not smoke:
        return RESULTS
    env = os.environ.get("METIS_BENCH_RESULTS")
    out = Path(env) if env else Path(tempfile.mkdtemp(prefix="metis_bench_"))
    out.mkdir(parents=True, exist_ok=True)
    return out


def write_result(name: str, result: dict[str, Any], smoke: bool = False) -> Path:
    out = results_dir(smoke)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{name}.json"
    path.write_text(json.dumps({**result, "machine": machine()}, indent=2, sort_keys=True) + "\n")
    return path


def show(title: str, rows: list[tuple[str, str, str, str]]) -> None:
    """Print figure | value | baseline | ratio rows."""
    print(f"\n== {title}")
    w = max(len(r[0]) for r in rows)
    print(f"{'figure'.ljust(w)}  {'value':>14}  {'baseline':>14}  {'ratio':>8}")
    for name, value, base, rat in rows:
        print(f"{name.ljust(w)}  {value:>14}  {base:>14}  {rat:>8}")
