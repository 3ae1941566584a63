"""cda with symptoms reported the many ways users report them, next to the same incidents as plain alerts.

Each incident of abilities/cda/rca.py is sent twice: once with its alerts as generated
(`{"predicate": "alert"}`), once with every alert rewritten, by a fixed rotation, as an error-rate
metric over a threshold, a p99 latency in milliseconds against a baseline, a status value, an
anomaly score or a boolean flag, and with a healthy reading added for services that did not alert.
A root cause found first on the plain form should be found first on the mixed form too; an
observation the ability cannot read must be refused (-32602), never dropped.
bench/results/cda_observations_first_run.json holds the figures of the code the set was written
against. Run: .venv/bin/python bench/cda_observations.py [--smoke]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from abilities.cda import rca  # noqa: E402
from abilities.cda.ability import CdaAbility  # noqa: E402
from abilities.cda.local import LocalContext  # noqa: E402
from abilities.cda.models import CDAInputs  # noqa: E402
from bench.spine_common import write_result  # noqa: E402

FORMS = ("error_rate", "latency", "status", "score", "flag")


def mixed(observations: list[dict[str, Any]], graph: dict[str, Any]) -> list[dict[str, Any]]:
    """The same symptoms in other forms, plus healthy readings for services that stayed quiet."""
    out = []
    for k, o in enumerate(observations):
        base = {"entity": o["entity"], "timestamp": o["timestamp"]}
        form = FORMS[k % len(FORMS)]
        if form == "error_rate":
            out.append(base | {"predicate": "error_rate", "value": 0.21 + 0.01 * (k % 7), "threshold": 0.05})
        elif form == "latency":
            out.append(base | {"predicate": "p99_latency_ms", "value": 2300 + 10 * k, "baseline": 310,
                               "direction": "above"})
        elif form == "status":
            out.append(base | {"predicate": "status", "value": "degraded"})
        elif form == "score":
            out.append(base | {"predicate": "anomaly_score", "value": 0.93})
        else:
            out.append(base | {"predicate": "high_error_rate", "value": True})
    alerting = {o["entity"] for o in observations}
    quiet = sorted(n["id"] for n in graph["nodes"] if n["id"].startswith("entity:") and n["id"] not in alerting)
    for k, ent in enumerate(quiet[:5]):
        out.append({"entity": ent, "predicate": "status", "value": "operational"} if k % 2 else
                   {"entity": ent, "predicate": "error_rate", "value": 0.001, "threshold": 0.05})
    return out


def top(observations: list[dict[str, Any]], graph: dict[str, Any], seed: int) -> tuple[str | None, str | None]:
    """(top-ranked service, refusal message) for one run."""
    try:
        inputs = CDAInputs.model_validate({"problem": "Which service is the root cause of these symptoms?",
                                           "observations": observations, "ken": {"graph": graph}})
    except Exception as exc:  # noqa: BLE001 - the refusal is the measured outcome
        return None, str(exc).splitlines()[0]
    out = CdaAbility().run(LocalContext(seed=seed.to_bytes(32, "big")), inputs)
    ranked = rca.ranked_services([v.model_dump() for v in out.verdicts], graph)
    return (ranked[0] if ranked else None), None


def run(smoke: bool) -> dict[str, Any]:
    plan = [(50, 3)] if smoke else [(50, 25), (200, 15)]
    res = {"plain_ac1": 0, "mixed_ac1": 0, "agree": 0, "refused": 0, "incidents": 0, "bare_ac1": 0,
           "bare_refused": 0}
    for n, k in plan:
        for i in range(k):
            seed = 7_000_000 + n * 100 + i
            p = rca.generate(n, seed)
            plain, _ = top(p.observations, p.graph, seed)
            mix, refusal = top(mixed(p.observations, p.graph), p.graph, seed)
            res["incidents"] += 1
            res["plain_ac1"] += plain == p.root
            res["mixed_ac1"] += mix == p.root
            res["agree"] += plain == mix
            res["refused"] += refusal is not None
            # the same readings without threshold/baseline: a numeric metric with no rule must be refused
            bare = [{k: v for k, v in o.items() if k not in ("threshold", "baseline", "direction")}
                    for o in mixed(p.observations, p.graph)]
            got, refusal = top(bare, p.graph, seed)
            res["bare_ac1"] += got == p.root
            res["bare_refused"] += refusal is not None
    n = res["incidents"]
    return {**res, "plain_ac1_rate": round(res["plain_ac1"] / n, 3), "mixed_ac1_rate": round(res["mixed_ac1"] / n, 3),
            "same_top_rate": round(res["agree"] / n, 3)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--smoke", action="store_true")
    args = ap.parse_args()
    out = run(args.smoke)
    print(f"{out['incidents']} incidents: AC@1 plain alerts {out['plain_ac1_rate']}, mixed forms "
          f"{out['mixed_ac1_rate']}; same top cause {out['same_top_rate']}; refused {out['refused']}")
    print(f"without thresholds or baselines: AC@1 {out['bare_ac1']}/{out['incidents']}, refused "
          f"{out['bare_refused']}/{out['incidents']} (each should be refused, none silently dropped)")
    write_result("cda_observations", out, args.smoke)


if __name__ == "__main__":
    main()
