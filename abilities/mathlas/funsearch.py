"""FunSearch harness (the harness half only: the AI writes the programs).

evaluate: run a candidate in the sandbox and score it. register: evaluate it again here (a score
is never taken on trust) and store it in an on-disk MAP-Elites database: one elite per behaviour
cell (program length bucket x branching bucket) plus the global best. status: the best programs
and a few-shot context from which the AI writes the next variant.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any

from abilities.mathlas.retrieve import data_dir
from abilities.mathlas.sandbox import run_sandboxed

PROBLEMS = {
    "cap_set": {"signature": "def priority(el: tuple[int, ...], n: int) -> float:",
                "doc": "Returns the priority with which we want to add `el` to the cap set in F_3^n.",
                "params": {"n": 4}},
    "online_bin_packing": {"signature": "def priority(item: float, bins: list[float]) -> list[float]:",
                           "doc": "Returns the priority of each feasible bin (given remaining capacities) for `item`.",
                           "params": {"seed": 0, "instances": 5, "items": 120, "capacity": 150}},
}


def behaviour(program: str) -> list[int]:
    """MAP-Elites descriptor: (length bucket of 200 chars, branching bucket), both capped at 9."""
    branches = len(re.findall(r"\b(if|for|while|elif)\b", program))
    return [min(9, len(program) // 200), min(9, branches // 2)]


def _db_path(problem: str) -> Path:
    return data_dir() / "funsearch" / f"{problem}.json"


def _load(path: Path) -> dict[str, Any]:
    if path.is_file():
        return json.loads(path.read_text(encoding="utf-8"))
    return {"cells": {}, "best": None, "registered": 0}


def evaluate(program: str, problem: str, params: dict[str, Any] | None = None, timeout_s: float = 10.0) -> dict[str, Any]:
    """Score a candidate in the sandbox (no storage)."""
    p = dict(PROBLEMS[problem]["params"])
    p.update(params or {})
    res = run_sandboxed(program, problem, p, cpu_s=max(1, int(timeout_s)), wall_s=timeout_s + 2)
    out = {"problem": problem, "params": p, "status": res.get("status"), "isolation": res.get("isolation")}
    if res.get("status") == "ok":
        out["score"] = res["result"]["score"]
        out["details"] = res["result"]
    else:
        out["score"] = None
        out["error"] = res.get("error")
    return out


def register(program: str, problem: str, timeout_s: float = 10.0) -> dict[str, Any]:
    """Evaluate and insert into the MAP-Elites database (default parameters, so scores are comparable)."""
    ev = evaluate(program, problem, None, timeout_s)
    if ev["score"] is None:
        return {"registered": False, "evaluation": ev, "reason": "the program did not produce a score"}
    path = _db_path(problem)
    path.parent.mkdir(parents=True, exist_ok=True)
    pid = hashlib.sha256(program.encode()).hexdigest()[:16]
    cell = behaviour(program)
    key = f"{cell[0]},{cell[1]}"
    with open(path.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        db = _load(path)
        entry = {"id": pid, "program": program, "score": ev["score"], "cell": cell}
        prev = db["cells"].get(key)
        new_elite = prev is None or ev["score"] > prev["score"]
        if new_elite:
            db["cells"][key] = entry
        new_best = db["best"] is None or ev["score"] > db["best"]["score"]
        if new_best:
            db["best"] = entry
        db["registered"] += 1
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(db, sort_keys=True, indent=1), encoding="utf-8")
        os.replace(tmp, path)
    return {"registered": True, "id": pid, "score": ev["score"], "cell": cell, "new_elite": new_elite,
            "new_best": new_best, "evaluation": ev}


def status(problem: str, top: int = 3) -> dict[str, Any]:
    """Best programs and the few-shot context for the next variant."""
    db = _load(_db_path(problem))
    elites = sorted(db["cells"].values(), key=lambda e: (-e["score"], e["id"]))
    shots = sorted(elites[:2], key=lambda e: (e["score"], e["id"]))
    spec = PROBLEMS[problem]
    parts = [f'"""{spec["doc"]}"""']
    for i, e in enumerate(shots):
        parts.append(re.sub(r"def priority\b", f"def priority_v{i}", e["program"]).rstrip() +
                     f"\n# score: {e['score']}")
    parts.append(spec["signature"].replace("def priority", f"def priority_v{len(shots)}") +
                 '\n    """Improved version of the previous priority functions."""')
    return {"problem": problem, "registered": db["registered"], "cells_filled": len(db["cells"]),
            "best": db["best"], "elites": [{k: e[k] for k in ("id", "score", "cell")} for e in elites[:top]],
            "few_shot_context": "\n\n".join(parts), "signature": spec["signature"]}


def funsearch(action: str, problem: str, program: str | None = None, params: dict[str, Any] | None = None,
              timeout_s: float = 10.0) -> dict[str, Any]:
    """One tool, three actions: evaluate / register / status."""
    if action == "evaluate":
        return {"action": action, **evaluate(program or "", problem, params, timeout_s)}
    if action == "register":
        return {"action": action, **register(program or "", problem, timeout_s)}
    return {"action": action, **status(problem)}
