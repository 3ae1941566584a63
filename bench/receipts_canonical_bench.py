"""Canonical JSON (RFC 8785): the orjson fast path against the pure-Python ``rfc8785`` reference.

Figures, each next to its baseline from the same run (min/median/max of ``--rounds``):
- microseconds per record body (a checkpoint record with a float stamp, and one without floats)
  for ``receipts.canonical.canonical_json`` and for ``rfc8785.dumps``;
- byte-identical outputs over ``--values`` random JSON values (floats of every magnitude,
  integers up to 2^53, non-ASCII and astral keys and strings): must be all of them.

Run: ``PYTHONPATH=. .venv/bin/python bench/receipts_canonical_bench.py``; writes
``bench/results/receipts_canonical.json``. ``--smoke`` runs small N.
"""

from __future__ import annotations

import argparse
import math
import random
import struct
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import rfc8785  # noqa: E402

from bench.spine_common import ratio, show, spread, write_result  # noqa: E402
from receipts.canonical import canonical_json  # noqa: E402

ALPHABET = ["a", "b", "Z", "0", " ", "é", "中", "\u2028", "\ue000", "\uffff", "😀", "\U0010ffff", '"', "\\", "\n", "\x00", "\x7f"]


def rand_value(rng: random.Random, depth: int = 0):  # noqa: ANN201
    pick = rng.random()
    if depth > 3 or pick < 0.45:
        kind = rng.randrange(6)
        if kind == 0:
            while True:
                f = struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))[0]
                if math.isfinite(f):
                    return f
        if kind == 1:
            return rng.uniform(-1e22, 1e22) if rng.random() < 0.5 else rng.uniform(-1, 1)
        if kind == 2:
            return rng.randint(-(2**53) + 1, 2**53 - 1)
        if kind == 3:
            return "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 6)))
        return [None, True, False][rng.randrange(3)]
    if pick < 0.7:
        return [rand_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    return {"".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 4))): rand_value(rng, depth + 1)
            for _ in range(rng.randint(0, 4))}


def record(i: int, with_float: bool) -> dict:
    payload = {"ability": "b_stamp", "revision": 1, "kind": "plan_delta", "payload": {"i": i, "pad": "x" * 40}}
    if with_float:
        payload["payload"]["t"] = 1763829189.123456 + i
    return {"v": 1, "seq": 1000 + i, "ts": "2026-11-22T16:33:09.123456Z", "type": "event", "name": "action_checkpoint",
            "tenant": "acme", "topic": "t", "action_id": "act_0123456789abcdef", "ref": None, "payload": payload,
            "prev": "0" * 64}


def per_record_us(fn, values: list) -> float:  # noqa: ANN001
    t = time.perf_counter()
    for v in values:
        fn(v)
    return (time.perf_counter() - t) / len(values) * 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", type=int, default=20_000)
    ap.add_argument("--values", type=int, default=20_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--smoke", action="store_true", help="small N, seconds (CI); results to a temp dir")
    args = ap.parse_args()
    if args.smoke:
        args.records, args.values, args.rounds = 500, 500, 1
    figures: dict = {}
    for label, with_float in (("record_with_float", True), ("record_without_float", False)):
        values = [record(i, with_float) for i in range(args.records)]
        fast = [per_record_us(canonical_json, values) for _ in range(args.rounds)]
        ref = [per_record_us(rfc8785.dumps, values) for _ in range(args.rounds)]
        figures[label] = {"fast_us": sorted(fast), "rfc8785_us": sorted(ref)}
    rng = random.Random(12)
    values = [rand_value(rng) for _ in range(args.values)]
    same = sum(canonical_json(v) == rfc8785.dumps(v) for v in values)
    figures["random_values_identical"] = {"identical": same, "values": len(values)}
    path = write_result("receipts_canonical", {"benchmark": "receipts_canonical", "figures": figures}, args.smoke)
    rows = [(f"{k.replace('_', ' ')}: us (min/med/max)", spread(f["fast_us"], ".1f"), spread(f["rfc8785_us"], ".1f") + " rfc8785",
             f"{ratio(f['fast_us'][len(f['fast_us']) // 2], f['rfc8785_us'][len(f['rfc8785_us']) // 2]):.2f}x")
            for k, f in figures.items() if "fast_us" in f]
    rows.append(("random values byte-identical", f"{same}", f"{len(values)}", f"{ratio(same, len(values)):.4f}"))
    show("canonical JSON per record", rows)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
