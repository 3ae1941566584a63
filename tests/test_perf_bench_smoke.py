"""Every benchmark script runs in smoke mode (small N, seconds), so none of them rots.

Each ``bench/*.py`` with a ``__main__`` block is run as a real subprocess with ``--smoke``; it
must exit 0, print figures, and write its results file into ``$METIS_BENCH_RESULTS`` (a temp
dir here) instead of ``bench/results``. Scripts run a few at a time.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted(p for p in (ROOT / "bench").glob("*.py") if "__main__" in p.read_text())
PARALLEL = 4
DEADLINE_S = 420.0


def stop(proc: subprocess.Popen) -> None:
    """Interrupt a script so its own ``finally`` stops the servers it started (they run in their
    own sessions, which a kill of the script would leave behind), then kill it if it hangs."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


@pytest.mark.timeout(480)
def test_every_bench_script_runs_in_smoke_mode(tmp_path: Path) -> None:
    assert SCRIPTS, "no bench scripts found"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "METIS_WARM_WORKERS": "1"}
    pending = list(SCRIPTS)
    running: dict[Path, tuple[subprocess.Popen, Path]] = {}
    done: dict[Path, tuple[int, str, Path]] = {}
    deadline = time.monotonic() + DEADLINE_S
    try:
        while pending or running:
            while pending and len(running) < PARALLEL:
                script = pending.pop(0)
                out_dir = tmp_path / script.stem
                out_dir.mkdir()
                log = out_dir / "stdout.txt"
                with log.open("wb") as fh:
                    proc = subprocess.Popen([sys.executable, str(script), "--smoke"], cwd=ROOT, stdout=fh,
                                            stderr=subprocess.STDOUT,
                                            env={**env, "METIS_BENCH_RESULTS": str(out_dir)})
                running[script] = (proc, out_dir)
            for script, (proc, out_dir) in list(running.items()):
                if proc.poll() is not None:
                    done[script] = (proc.returncode, (out_dir / "stdout.txt").read_text(errors="replace"), out_dir)
                    del running[script]
            if time.monotonic() > deadline:
                raise AssertionError(f"smoke runs still going after {DEADLINE_S} s: {sorted(p.name for p in running)}")
            time.sleep(0.1)
    finally:
        for proc, _ in running.values():
            stop(proc)
    problems = []
    for script, (rc, out, out_dir) in done.items():
        results = [p for p in out_dir.glob("*.json")]
        if rc != 0:
            problems.append(f"{script.name}: exit {rc}: {out[-600:]}")
        elif not re.search(r"\d", out):
            problems.append(f"{script.name}: printed no figures")
        elif not results:
            problems.append(f"{script.name}: wrote no results file into $METIS_BENCH_RESULTS")
    assert not problems, "\n".join(problems)
