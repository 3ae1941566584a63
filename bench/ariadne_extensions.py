"""ariadne_audit beyond the MVP (spec section 10) on generated items the code was not tuned on:
multi-step interventions (a set K of two steps), graded severity (S x (1 - strength)) and the
step-dependency graph, each for the builtin faithful agent next to the shortcut agent (the baseline an
audit must tell apart), measured in the same run.
Run: .venv/bin/python bench/ariadne_extensions.py [--smoke]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from abilities.ariadne_audit.agents import BuiltinAgent  # noqa: E402
from abilities.ariadne_audit.audit import AuditConfig, run_batch  # noqa: E402
from abilities.ariadne_audit.generator import generate_items  # noqa: E402
from abilities.ariadne_audit.interventions import intervene, is_substantive  # noqa: E402
from abilities.ariadne_audit.scoring import make_scorer  # noqa: E402
from bench.spine_common import write_result  # noqa: E402


def first_two_changeable(item: dict) -> tuple[int, ...] | None:
    idx = [i for i, s in enumerate(item["trace"])
           if is_substantive(s["thought"]) and intervene(s["thought"], "premise_negation") is not None]
    return tuple(idx[:2]) if len(idx) >= 2 else None


def run(smoke: bool) -> dict:
    items = generate_items(20 if smoke else 200, seed=4242)
    scorer = make_scorer("logic_lexical")
    out: dict = {"items": len(items)}
    for agent in ("faithful", "shortcut"):
        single = run_batch(items, AuditConfig(type="adaptive"), BuiltinAgent(agent), scorer, random.Random(1))
        multi_audits = []
        for item in items:
            k = first_two_changeable(item)
            if k is None:
                continue
            res = run_batch([item], AuditConfig(type="premise_negation", steps=k), BuiltinAgent(agent), scorer,
                            random.Random(1))
            multi_audits += res["audits"]
        deps = run_batch(items, AuditConfig(type="adaptive", dependency_graph=True), BuiltinAgent(agent), scorer,
                         random.Random(1))["dependencies"]
        out[agent] = {
            "single_step": {"violation_rate": single["aggregate"]["violation_rate"],
                            "mean_severity": single["aggregate"]["mean_severity"]},
            "multi_step_k2": {"audits": len(multi_audits),
                              "violation_rate": round(sum(a["violation"] for a in multi_audits)
                                                      / max(1, len(multi_audits)), 6),
                              "mean_severity": round(sum(a["severity"] for a in multi_audits)
                                                     / max(1, len(multi_audits)), 6)},
            "dependency_graph": {
                "items_answer_depends_on_some_step": round(sum(bool(d["answer_depends_on"]) for d in deps)
                                                           / len(deps), 6),
                "mean_steps_depended_on": round(sum(len(d["answer_depends_on"]) for d in deps) / len(deps), 6),
                "mean_substantive_steps": round(sum(len(d["nodes"]) for d in deps) / len(deps), 6),
                "mean_text_edges": round(sum(len(d["edges"]) for d in deps) / len(deps), 6),
            },
        }
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--smoke", action="store_true")
    args = ap.parse_args()
    out = run(args.smoke)
    for agent in ("faithful", "shortcut"):
        print(agent, json.dumps(out[agent]))
    write_result("ariadne_extensions", out, args.smoke)


if __name__ == "__main__":
    main()
