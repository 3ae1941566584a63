"""Benchmark of the receipt log's Merkle tree at 1,000,000 leaves.

Each figure is printed next to a baseline measured in the same run:
- appends/s vs plain ``hashlib.sha256`` of the same leaves (the floor: one hash per leaf);
- root / proof p50 vs a naive O(n) recomputation of the root from all leaves;
- memory per leaf vs a plain ``list`` of 32-byte ``bytes`` leaf hashes.

Run: ``.venv/bin/python bench/receipts_merkle_bench.py [--leaves N]``; writes
``bench/results/receipts_merkle.json``.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import platform
import random
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.spine_common import results_dir  # noqa: E402
from receipts.merkle import MerkleTree, leaf_hash, verify_consistency, verify_inclusion  # noqa: E402

RESULTS = REPO / "bench" / "results" / "receipts_merkle.json"


def naive_root(leaves: list[bytes]) -> bytes:
    """O(n) RFC 9162 root: pair nodes level by level, promoting an unpaired last node unchanged."""
    level = leaves
    while len(level) > 1:
        nxt = [
            hashlib.sha256(b"\x01" + level[i] + level[i + 1]).digest() for i in range(0, len(level) - 1, 2)
        ]
        if len(level) % 2:
            nxt.append(level[-1])
        level = nxt
    return level[0]


def p50_us(fn, args_list: list[tuple]) -> float:
    times = []
    for args in args_list:
        t0 = time.perf_counter_ns()
        fn(*args)
        times.append(time.perf_counter_ns() - t0)
    return statistics.median(times) / 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--leaves", type=int, default=1_000_000)
    parser.add_argument("--samples", type=int, default=2_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--smoke", action="store_true", help="small N, seconds (CI); results to $METIS_BENCH_RESULTS or a temp dir")
    args = parser.parse_args()
    if args.smoke:
        args.leaves, args.samples = 4096, 50
    n = args.leaves
    rng = random.Random(args.seed)
    leaves = [leaf_hash(i.to_bytes(8, "big")) for i in range(n)]
    out: dict = {"leaves": n, "python": platform.python_version(), "machine": platform.machine()}

    # -- appends vs plain hashing ------------------------------------------------------------
    gc.collect()
    t0 = time.perf_counter()
    for h in leaves:
        hashlib.sha256(h).digest()
    base_s = time.perf_counter() - t0

    tree = MerkleTree()
    append = tree.append
    t0 = time.perf_counter()
    for h in leaves:
        append(h)
    append_s = time.perf_counter() - t0

    bulk = MerkleTree()
    t0 = time.perf_counter()
    bulk.extend(leaves)
    extend_s = time.perf_counter() - t0
    assert bulk.root() == tree.root()
    out["append"] = {
        "append_leaves_per_s": round(n / append_s),
        "extend_leaves_per_s": round(n / extend_s),
        "baseline_sha256_per_s": round(n / base_s),
        "append_ratio_to_baseline": round(base_s / append_s, 3),
        "extend_ratio_to_baseline": round(base_s / extend_s, 3),
    }

    # -- root and proofs vs naive recomputation -----------------------------------------------
    t0 = time.perf_counter()
    naive = naive_root(leaves)
    naive_us = (time.perf_counter() - t0) * 1e6
    assert naive == tree.root()
    samples = args.samples
    old_sizes = [(rng.randrange(1, n + 1),) for _ in range(samples)]
    indices = [(rng.randrange(n),) for _ in range(samples)]
    root_now = p50_us(tree.root, [()] * samples)
    root_old = p50_us(tree.root, old_sizes)
    incl = p50_us(tree.inclusion_proof, indices)
    cons = p50_us(tree.consistency_proof, old_sizes)
    incl_old = p50_us(
        tree.inclusion_proof, [(i % s, s) for (i,), (s,) in zip(indices, old_sizes, strict=True)]
    )

    root = tree.root()
    incl_cases = [(leaves[i], i, n, tree.inclusion_proof(i), root) for (i,) in indices[:500]]
    cons_cases = [(s, n, tree.root(s), root, tree.consistency_proof(s)) for (s,) in old_sizes[:500]]
    v_incl = p50_us(verify_inclusion, incl_cases)
    v_cons = p50_us(verify_consistency, cons_cases)
    out["latency_p50_us"] = {
        "root_current_size": round(root_now, 2),
        "root_older_size": round(root_old, 2),
        "inclusion_proof": round(incl, 2),
        "inclusion_proof_older_size": round(incl_old, 2),
        "consistency_proof": round(cons, 2),
        "verify_inclusion": round(v_incl, 2),
        "verify_consistency": round(v_cons, 2),
        "baseline_naive_root_recompute": round(naive_us, 1),
        "root_speedup_vs_naive": round(naive_us / root_now),
        "inclusion_proof_speedup_vs_naive": round(naive_us / incl),
        "consistency_proof_speedup_vs_naive": round(naive_us / cons),
        "proof_lengths": {
            "inclusion": len(tree.inclusion_proof(n // 3)),
            "consistency": len(tree.consistency_proof(n // 3)),
        },
    }

    # -- memory: the tree's own allocations vs a plain list of leaf-hash bytes ------------------
    del tree, bulk
    gc.collect()
    tracemalloc.start()
    snap0 = tracemalloc.get_traced_memory()[0]
    mem_tree = MerkleTree()
    mem_tree.extend(leaves)
    tree_bytes = tracemalloc.get_traced_memory()[0] - snap0
    del mem_tree
    gc.collect()
    snap1 = tracemalloc.get_traced_memory()[0]
    plain = [bytes(bytearray(h)) for h in leaves]  # fresh objects, as a list-of-bytes store would hold
    plain_bytes = tracemalloc.get_traced_memory()[0] - snap1
    del plain
    tracemalloc.stop()
    out["memory"] = {
        "tree_bytes": tree_bytes,
        "tree_bytes_per_leaf": round(tree_bytes / n, 1),
        "baseline_list_of_leaf_bytes": plain_bytes,
        "baseline_bytes_per_leaf": round(plain_bytes / n, 1),
        "ratio_to_baseline": round(tree_bytes / plain_bytes, 3),
    }

    a, lat, mem = out["append"], out["latency_p50_us"], out["memory"]
    print(f"Merkle tree, {n:,} leaves")
    print(
        f"  append   {a['append_leaves_per_s']:>12,} leaves/s   extend {a['extend_leaves_per_s']:,}/s   "
        f"baseline sha256 {a['baseline_sha256_per_s']:,}/s   "
        f"ratio {a['append_ratio_to_baseline']} / {a['extend_ratio_to_baseline']}"
    )
    print(
        f"  p50 us   root {lat['root_current_size']}  root(old) {lat['root_older_size']}  "
        f"inclusion {lat['inclusion_proof']}  consistency {lat['consistency_proof']}  "
        f"verify incl {lat['verify_inclusion']}  verify cons {lat['verify_consistency']}"
    )
    print(
        f"  baseline naive root recompute {lat['baseline_naive_root_recompute']:,.0f} us  "
        f"(root {lat['root_speedup_vs_naive']:,}x, inclusion {lat['inclusion_proof_speedup_vs_naive']:,}x, "
        f"consistency {lat['consistency_proof_speedup_vs_naive']:,}x faster)"
    )
    print(
        f"  memory   tree {mem['tree_bytes'] / 2**20:.1f} MiB ({mem['tree_bytes_per_leaf']} B/leaf)   "
        f"baseline list of bytes {mem['baseline_list_of_leaf_bytes'] / 2**20:.1f} MiB "
        f"({mem['baseline_bytes_per_leaf']} B/leaf)   ratio {mem['ratio_to_baseline']}"
    )
    path = results_dir(True) / RESULTS.name if args.smoke else RESULTS
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out, indent=2, sort_keys=True) + "\n")
    print(f"  wrote {path}")


if __name__ == "__main__":
    main()
