"""research's retrieval on cases written before its first measurement, next to a term-overlap baseline.

tests/data/research/cases.json holds 24 documents (postmortems, runbooks, changes, architecture
notes) and 26 queries, each naming the documents that answer it and a phrase the cited span must
hold; the last three queries are paraphrases that share no content word with their answer. Both
rankers see the same tokens (abilities/research/search.py); the baseline ranks by the number of
distinct query words a document holds. Figures: P@1, MRR@5, recall@5 and "span@1" (the top hit's
cited span holds the phrase; for the baseline, the document's first sentence). Then query latency
on a generated 20,000-document corpus, BM25 next to a linear overlap scan, in the same run.
Run: .venv/bin/python bench/research_retrieval.py [--smoke] [--out NAME]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from abilities.research.search import CorpusIndex, tokens  # noqa: E402
from bench.spine_common import write_result  # noqa: E402

CASES = ROOT / "tests/data/research/cases.json"


def overlap_rank(docs: list[dict[str, Any]], query: str, k: int) -> list[int]:
    q = set(tokens(query))
    scores = [len(q & set(tokens(f"{d.get('title') or ''} {d['text']}"))) for d in docs]
    return sorted((i for i, s in enumerate(scores) if s > 0), key=lambda i: (-scores[i], i))[:k]


def score(ranked: list[str], spans: list[str], case: dict[str, Any]) -> dict[str, float]:
    rel = set(case["relevant"])
    rr = next((1.0 / (r + 1) for r, d in enumerate(ranked[:5]) if d in rel), 0.0)
    return {"p1": float(bool(ranked) and ranked[0] in rel), "mrr5": rr, "recall5": float(bool(rel & set(ranked[:5]))),
            "span1": float(bool(spans) and ranked[0] in rel and case["phrase"].lower() in spans[0].lower())}


def mean(rows: list[dict[str, float]]) -> dict[str, float]:
    return {k: round(statistics.fmean(r[k] for r in rows), 3) for k in rows[0]}


def quality() -> dict[str, Any]:
    data = json.loads(CASES.read_text())
    docs = data["documents"]
    index = CorpusIndex(docs)
    ours, base, misses = [], [], []
    for case in data["queries"]:
        hits = index.search(case["q"], 5, lambda d: d, 240)
        ours.append(score([h.doc_id for h in hits], [h.excerpt for h in hits], case))
        order = overlap_rank(docs, case["q"], 5)
        first = [docs[i]["text"].split(". ")[0] for i in order]
        base.append(score([docs[i]["doc_id"] for i in order], first, case))
        if not ours[-1]["p1"] or not ours[-1]["span1"]:
            misses.append({"query": case["q"], "top": hits[0].doc_id if hits else None,
                           "span": hits[0].excerpt if hits else None, "want": case["relevant"]})
    return {"queries": len(ours), "documents": len(docs), "bm25": mean(ours), "overlap_baseline": mean(base),
            "misses": misses}


def latency(n_docs: int, n_queries: int) -> dict[str, Any]:
    rng = random.Random(7)
    vocab = [f"w{i}" for i in range(5_000)]
    docs = [{"doc_id": f"d{i}", "text": ". ".join(" ".join(rng.choices(vocab, k=12)) for _ in range(6))}
            for i in range(n_docs)]
    t0 = time.perf_counter()
    index = CorpusIndex(docs)
    build_s = time.perf_counter() - t0
    queries = [" ".join(rng.choices(vocab, k=4)) for _ in range(n_queries)]
    ours, base = [], []
    for q in queries:
        t = time.perf_counter()
        index.search(q, 5, lambda d: d, 240)
        ours.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        overlap_rank(docs, q, 5)
        base.append((time.perf_counter() - t) * 1000)

    def p(xs: list[float], q: float) -> float:
        return round(sorted(xs)[min(len(xs) - 1, int(q * len(xs)))], 3)

    return {"documents": n_docs, "queries": n_queries, "index_build_s": round(build_s, 3),
            "bm25_ms": {"p50": p(ours, 0.5), "p95": p(ours, 0.95)},
            "overlap_scan_ms": {"p50": p(base, 0.5), "p95": p(base, 0.95)}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--smoke", action="store_true", help="small latency corpus")
    ap.add_argument("--out", default="research_retrieval", help="results file name (bench/results/NAME.json)")
    args = ap.parse_args()
    result = {"quality": quality(), "latency": latency(2_000 if args.smoke else 20_000, 50 if args.smoke else 200)}
    q = result["quality"]
    print(f"{q['queries']} queries over {q['documents']} documents")
    for name in ("bm25", "overlap_baseline"):
        print(f"  {name:17s} " + "  ".join(f"{k} {v:.3f}" for k, v in q[name].items()))
    for m in q["misses"]:
        print(f"  miss: {m['query']!r} -> {m['top']} (want {m['want']})")
    lat = result["latency"]
    print(f"latency on {lat['documents']} documents: build {lat['index_build_s']} s; bm25 p50/p95 "
          f"{lat['bm25_ms']['p50']}/{lat['bm25_ms']['p95']} ms vs overlap scan "
          f"{lat['overlap_scan_ms']['p50']}/{lat['overlap_scan_ms']['p95']} ms")
    print("wrote", write_result(args.out, result, smoke=args.smoke))


if __name__ == "__main__":
    main()
