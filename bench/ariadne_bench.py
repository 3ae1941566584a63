"""ariadne_audit bench: audit throughput and faithful/shortcut separation.

Prints and writes ``bench/results/ariadne.json``:
- audits/s for a 1,000-item batch with the builtin faithful agent and the default scorer, next to
  the same batch scored with exact match (the cheapest scorer: the baseline for scoring cost);
- per intervention type and per scorer, the violation rate of the faithful agent, the shortcut
  agent and the paraphrasing shortcut agent, and the gaps (shortcut - faithful). Exact match is
  the naive baseline the default scorer is measured against.

Run: ``.venv/bin/python bench/ariadne_bench.py [--items 1000] [--seed 0]``.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from abilities.ariadne_audit.agents import BuiltinAgent  # noqa: E402
from abilities.ariadne_audit.audit import AuditConfig, run_batch  # noqa: E402
from abilities.ariadne_audit.generator import generate_items  # noqa: E402
from abilities.ariadne_audit.scoring import embeddings_available, make_scorer  # noqa: E402
from bench.spine_common import results_dir  # noqa: E402

KINDS = ("logic_flip", "fact_reversal", "premise_negation", "causal_reversal", "random", "adaptive")
AGENTS = ("faithful", "shortcut", "paraphrasing_shortcut")


def throughput(items: list[dict], agent: str, scorer: str, repeats: int = 3) -> float:
    """Best-of-N audits per second for the whole batch."""
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        run_batch(items, AuditConfig(type="adaptive"), BuiltinAgent(agent), make_scorer(scorer), random.Random(0))
        best = min(best, time.perf_counter() - t0)
    return round(len(items) / best, 1)


def service_throughput(items: list[dict]) -> dict:
    """End to end through a real ``metis serve`` (ToolBus start -> events -> completed): each audit
    also writes checkpoints and receipts to the log. Baseline: the ``t_noop`` test ability's
    start-to-completed time in the same server."""
    import asyncio
    import tempfile

    from tests.support import MetisServer, ToolBus

    async def go() -> dict:
        server = MetisServer(Path(tempfile.mkdtemp(prefix="ariadne-bench-")) / "data").start()
        try:
            async with ToolBus.connect(server) as tb:
                await tb.run("t_noop", {})  # warm up: the first action also starts a worker
                t0 = time.perf_counter()
                view, _ = await tb.run("t_noop", {})
                noop_s = time.perf_counter() - t0
                t0 = time.perf_counter()
                view, _ = await tb.run("ariadne_audit", {"items": items, "agent": {"kind": "builtin"}},
                                       timeout=900, budgets={"wall_s": 900})
                dt = time.perf_counter() - t0
            assert view["status"] == "completed", view.get("error")
            return {"audits_per_s": round(len(items) / dt, 1), "batch_s": round(dt, 3),
                    "baseline_noop_action_s": round(noop_s, 3)}
        finally:
            server.stop()

    return asyncio.run(go())


def separation(items: list[dict], scorers: list[str]) -> dict:
    out: dict = {}
    for scorer in scorers:
        sc = make_scorer(scorer)
        out[scorer] = {}
        for kind in KINDS:
            rates = {}
            for agent in AGENTS:
                agg = run_batch(items, AuditConfig(type=kind), BuiltinAgent(agent), sc, random.Random(0))["aggregate"]
                rates[agent] = agg["violation_rate"]
            out[scorer][kind] = {
                **{f"{a}_violation_rate": rates[a] for a in AGENTS},
                "gap": round(rates["shortcut"] - rates["faithful"], 6),
                "paraphrase_gap": round(rates["paraphrasing_shortcut"] - rates["faithful"], 6),
            }
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--sep-items", type=int, default=400)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-service", action="store_true", help="skip the end-to-end run through metis serve")
    parser.add_argument("--out", default=str(Path(__file__).resolve().parent / "results" / "ariadne.json"))
    parser.add_argument("--smoke", action="store_true", help="small N, seconds (CI); results to $METIS_BENCH_RESULTS or a temp dir")
    args = parser.parse_args()
    if args.smoke:
        args.items, args.sep_items, args.no_service = 60, 40, True
        args.out = str(results_dir(True) / "ariadne.json")

    items = generate_items(args.items, seed=args.seed)
    tp = {
        "faithful_logic_lexical": throughput(items, "faithful", "logic_lexical"),
        "baseline_faithful_exact": throughput(items, "faithful", "exact"),
        "shortcut_logic_lexical": throughput(items, "shortcut", "logic_lexical"),
    }
    print(f"audits/s over {args.items} items (adaptive, best of 3):")
    for k, v in tp.items():
        print(f"  {k:28s} {v:10.1f}")
    svc = None if args.no_service else service_throughput(items)
    if svc:
        print(f"  through the service (ToolBus, receipts): {svc['audits_per_s']} audits/s "
              f"({svc['batch_s']} s; a no-op action takes {svc['baseline_noop_action_s']} s)")

    scorers = ["logic_lexical", "jaccard", "char", "exact"]
    if embeddings_available():
        scorers.append("embedding")
    sep_items = generate_items(args.sep_items, seed=args.seed + 1)
    sep = separation(sep_items, scorers)
    print(f"\nviolation rates over {args.sep_items} items: faithful / shortcut / paraphrasing shortcut (gap, paraphrase gap)")
    for scorer, kinds in sep.items():
        print(f"  scorer {scorer}:")
        for kind, r in kinds.items():
            print(f"    {kind:17s} {r['faithful_violation_rate']:.3f} / {r['shortcut_violation_rate']:.3f} / "
                  f"{r['paraphrasing_shortcut_violation_rate']:.3f}   gap {r['gap']:.3f}  paraphrase gap "
                  f"{r['paraphrase_gap']:.3f}")
    if "embedding" not in scorers:
        print("  (embedding scorer not measured: the optional 'embeddings' extra is not installed)")

    result = {
        "bench": "ariadne_audit",
        "python": platform.python_version(),
        "machine": platform.machine(),
        "seed": args.seed,
        "throughput_items": args.items,
        "audits_per_s": tp,
        "service": svc,
        "separation_items": args.sep_items,
        "separation": sep,
        "embedding_scorer_measured": "embedding" in scorers,
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2, sort_keys=True) + "\n")
    print(f"\nwrote {args.out}")


if __name__ == "__main__":
    main()
