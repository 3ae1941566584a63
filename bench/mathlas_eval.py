"""mathlas evaluation: constant recovery and false positives, sequence identification on the
built-in sample, search Recall@1/@10, and latencies; each figure next to a baseline measured in
the same run. Writes bench/results/mathlas.json.

Baselines: mpmath.identify alone (no held-out re-check) for constants; BM25-only and dense-only
rankings for search; a linear scan (substring search over all lines) for sequence lookup.
Run: .venv/bin/python bench/mathlas_eval.py [--quick]
"""

from __future__ import annotations

import gzip
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import mpmath

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from abilities.mathlas import closedform as cf  # noqa: E402
from abilities.mathlas.numeric import identify_constant  # noqa: E402
from abilities.mathlas.retrieve import get_index, search_existing_math  # noqa: E402
from abilities.mathlas.sequence import SAMPLE_DIR, identify_sequence, load_dir, search  # noqa: E402
from bench.spine_common import results_dir  # noqa: E402

DATA = ROOT / "tests" / "data" / "mathlas"


def digits_of(expr: str, digits: int) -> str:
    with mpmath.workdps(digits + 20):
        return mpmath.nstr(cf.eval_mpmath(cf.parse(expr), digits + 20), digits, strip_zeros=False)


def same(a: str, b: str) -> bool:
    return abs(cf.eval_mpmath(cf.parse(a), 60) - cf.eval_mpmath(cf.parse(b), 60)) < mpmath.mpf(10) ** -50


def structureless(spec: dict) -> list[str]:
    rng = random.Random(spec["seed"])
    return [f"{rng.randint(1, 9)}.{''.join(str(rng.randint(0, 9)) for _ in range(spec['digits'] - 1))}"
            for _ in range(spec["count"])]


def baseline_identify(value: str) -> bool:
    """mpmath.identify alone over a comparable basis, no independent re-check."""
    with mpmath.workdps(max(len(value), 20)):
        consts = {"pi": mpmath.pi, "e": mpmath.e, "log2": mpmath.log(2), "zeta3": mpmath.zeta(3),
                  "euler": mpmath.euler, "catalan": mpmath.catalan}
        return mpmath.identify(mpmath.mpf(value), constants=consts, tol=mpmath.mpf(10) ** -(len(value) - 6)) is not None


def constants_section(smoke: bool = False) -> dict:
    d = json.loads((DATA / "constants.json").read_text())
    if smoke:  # one value of each kind (plain mpmath.identify alone takes seconds per value)
        d["known"] = d["known"][:1]
        d["structureless"]["count"] = d["structureless_short"]["count"] = 1
    known, lat = d["known"], []
    hits, misses = 0, []
    for expr in known:
        v = digits_of(expr, d["digits"])
        t = time.perf_counter()
        r = identify_constant(v)
        lat.append(time.perf_counter() - t)
        if r["identified"] and same(r["best"], expr):
            hits += 1
        else:
            misses.append(expr)
    noise = structureless(d["structureless"])
    fp, lat_noise = [], []
    for v in noise:
        t = time.perf_counter()
        if identify_constant(v)["identified"]:
            fp.append(v)
        lat_noise.append(time.perf_counter() - t)
    short = structureless(d["structureless_short"])
    fp12 = [v for v in short if identify_constant(v)["identified"]]
    base_fp = sum(baseline_identify(v) for v in noise)
    base_fp12 = sum(baseline_identify(v) for v in short)
    return {"known": len(known), "recovered": hits, "recovery_rate": round(hits / len(known), 4), "missed": misses,
            "structureless": len(noise), "false_positives": len(fp), "false_positive_rate": len(fp) / len(noise),
            "structureless_12_digit": len(short), "false_positives_12_digit": len(fp12),
            "baseline_mpmath_identify_false_positives": base_fp,
            "baseline_mpmath_identify_false_positives_12_digit": base_fp12,
            "identify_constant_p50_s": round(statistics.median(lat), 4),
            "identify_constant_p50_structureless_s": round(statistics.median(lat_noise), 4),
            "identify_constant_p95_s": round(sorted(lat)[int(0.95 * (len(lat) - 1))], 4)}


def sequences_section(synthetic_n: int) -> dict:
    with gzip.open(SAMPLE_DIR / "stripped.gz", "rt") as fh:
        lines = [ln for ln in fh.read().splitlines() if ln and not ln.startswith("#")]
    top1 = found = 0
    for ln in lines:
        anum, _, rest = ln.partition(" ")
        terms = [int(t) for t in rest.strip(",").split(",")]
        s = min(2, len(terms) - 4)
        ms = [m["a_number"] for m in identify_sequence(terms[s:s + 8], max_results=50)["matches"]]
        found += anum in ms
        top1 += ms[:1] == [anum]
    # a 400,000-entry synthetic index: random sequences plus the sample, in OEIS format
    rng = random.Random(12345)
    with tempfile.TemporaryDirectory() as tmp:
        body = [f"A{900000 + i:07d} ," + ",".join(str(rng.randint(0, 10**rng.randint(1, 6)))
                                                 for _ in range(rng.randint(15, 40))) + "," for i in range(synthetic_n)]
        with gzip.open(Path(tmp) / "stripped.gz", "wt") as fh:
            fh.write("\n".join(lines + body) + "\n")
        with gzip.open(Path(tmp) / "names.gz", "wt") as fh:
            fh.write("\n".join(f"{b.split(' ')[0]} synthetic" for b in body) + "\n")
        t = time.perf_counter()
        idx = load_dir(Path(tmp))
        build_s = time.perf_counter() - t
        queries = []
        for ln in rng.sample(lines, 100):
            terms = [int(x) for x in ln.partition(" ")[2].strip(",").split(",")]
            queries.append(terms[2:10] if len(terms) >= 10 else terms[:8])
        lat, scan = [], []
        for q in queries:
            t = time.perf_counter()
            search(idx, q, 10)
            lat.append(time.perf_counter() - t)
            needle = "," + ",".join(map(str, q)) + ","
            t = time.perf_counter()
            [i for i, line in enumerate(idx.lines) if needle in line]
            scan.append(time.perf_counter() - t)
    return {"sample_sequences": len(lines), "identified_in_matches": found, "identified_rate": found / len(lines),
            "top1": top1, "top1_rate": round(top1 / len(lines), 4), "synthetic_index_entries": idx.size,
            "index_build_s": round(build_s, 2), "identify_sequence_p50_s": round(statistics.median(lat), 5),
            "baseline_linear_scan_p50_s": round(statistics.median(scan), 5)}


def search_section() -> dict:
    queries = json.loads((DATA / "queries.json").read_text())
    idx = get_index()
    out: dict = {"queries": len(queries), "corpus_size": len(idx.docs)}
    for name, ranker in (("hybrid_rrf", None), ("bm25_only", idx.rank_bm25), ("dense_only", idx.rank_dense)):
        r1 = r10 = 0
        lat = []
        for q, expected in queries:
            t = time.perf_counter()
            names = ([x["name"] for x in search_existing_math(q, 10)["results"]] if ranker is None
                     else [idx.docs[i].name for i in ranker(q)[:10]])
            lat.append(time.perf_counter() - t)
            r1 += names[:1] == [expected]
            r10 += expected in names
        out[name] = {"recall_at_1": round(r1 / len(queries), 4), "recall_at_10": round(r10 / len(queries), 4),
                     "p95_s": round(sorted(lat)[int(0.95 * (len(lat) - 1))], 5)}
    out["search_p95_s"] = out["hybrid_rrf"]["p95_s"]
    return out


def main(argv: list[str]) -> int:
    smoke = "--smoke" in argv  # small N, seconds (CI); results to $METIS_BENCH_RESULTS or a temp dir
    quick = "--quick" in argv or smoke
    t0 = time.perf_counter()
    result = {"constants": constants_section(smoke), "sequences": sequences_section(2_000 if smoke else 20_000 if quick else 400_000),
              "search": search_section(),
              "anchor": {"constants": "8/8", "false_positives": "0/3", "sequences": "8/8"}}
    result["total_s"] = round(time.perf_counter() - t0, 1)
    out = ROOT / "bench" / "results" / ("mathlas_quick.json" if quick else "mathlas.json")
    if smoke:
        out = results_dir(True) / "mathlas.json"
    out.write_text(json.dumps(result, indent=2, sort_keys=True) + "\n")
    c, s, q = result["constants"], result["sequences"], result["search"]
    print(f"constants: recovered {c['recovered']}/{c['known']} ({c['recovery_rate']:.1%}); false positives "
          f"{c['false_positives']}/{c['structureless']} (12-digit: {c['false_positives_12_digit']}/"
          f"{c['structureless_12_digit']}); baseline mpmath.identify FPs {c['baseline_mpmath_identify_false_positives']}"
          f"/{c['structureless']} (12-digit: {c['baseline_mpmath_identify_false_positives_12_digit']}); "
          f"p50 {c['identify_constant_p50_s']} s (structureless inputs: {c['identify_constant_p50_structureless_s']} s)")
    print(f"sequences: {s['identified_in_matches']}/{s['sample_sequences']} found, top-1 {s['top1_rate']:.1%}; "
          f"p50 {s['identify_sequence_p50_s']} s on {s['synthetic_index_entries']} entries "
          f"(linear scan baseline {s['baseline_linear_scan_p50_s']} s; build {s['index_build_s']} s)")
    for k in ("hybrid_rrf", "bm25_only", "dense_only"):
        print(f"search {k}: R@1 {q[k]['recall_at_1']:.3f} R@10 {q[k]['recall_at_10']:.3f} p95 {q[k]['p95_s']} s")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
