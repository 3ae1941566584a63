"""Train the pair model from a seed: pairs generated from the typed forms plus the older labelled sets.

    .venv/bin/python -m abilities.scu_guard.training.train [--seed 14] [--sets NAME ...] [--out PATH]

Torch and onnx are needed here only (the optional ``train`` extra); the guard runs the exported
file with onnxruntime. Deterministic: one thread, seeded initialisation and batch order, so the
same seed and sets give the same weights; the file's SHA-256 is pinned in ``pair_model.py``.
The default sets are every development set (``cases``, ``holdout``-``holdout4``, ``heldout_v5``-``heldout_v20``);
the pseudo-unseen sets (v21, v22) and the sealed ones are never used.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from abilities.lock import lock_constraints
from abilities.scu_guard.combined import forms_for, readings
from abilities.scu_guard.evaluate import load_cases
from abilities.scu_guard.retrieval import retrieve

ROOT = Path(__file__).resolve().parents[3]
DATA = ROOT / "tests" / "data" / "scu_guard"
TRAIN_SETS = ("cases", "holdout", "holdout2", "holdout3", "holdout4", *(f"heldout_v{n}" for n in range(5, 21)))
Row = tuple[str, str, str, int]  # constraint, claim, hint, label


def pair_rows(claim: str, constraints: Sequence[str], chunk_texts: Sequence[str], contradiction: bool,
              named: set[str] | None = None) -> list[Row]:
    """One row per constraint, with the hint the guard would give the model for it ("none" when neither
    reading found anything). Label: the case is a contradiction and this constraint is the one named
    (``named``; by default every constraint a reading found)."""
    forms = forms_for(constraints)[0]
    r = readings(claim, constraints, forms, chunk_texts)
    hints = {f.constraint: f"typed {f.rule} sure" for f in r.found}
    hints.update({f.constraint: f"suspected {f.rule}" for f in r.suspected})
    hints.update({f.constraint: f"cleared {f.rule}" for f in r.cleared})
    hints.update({f.constraint: h for f, h in r.unsure})
    hit = named if named is not None else set(hints)
    return [(c, claim, hints.get(c, "none"), int(contradiction and c in hit)) for c in constraints]


def set_rows(names: Iterable[str]) -> tuple[list[Row], list[str]]:
    """Rows from labelled cases (answers with a claim whose expected reason is ok or a contradiction);
    in a contradiction case no reading found, the case is left out (its constraint is unknown)."""
    rows: list[Row] = []
    constraints: set[str] = set()
    for name in names:
        for case in load_cases(DATA / f"{name}.jsonl"):
            answer = case["answer"]
            claim = answer.get("claim") if isinstance(answer, dict) else None
            reason = case["expect"]["reason"]
            if not isinstance(claim, str) or reason not in ("ok", "constraint_contradiction"):
                continue
            lock = lock_constraints(case["constraints"])
            constraints.update(lock["constraints"])
            texts = {c["id"]: c["text"] for c in case["chunks"]}
            ctx = retrieve(case["question"], case["chunks"], case.get("top_k", 6))["ctx_ids"]
            cited = [texts[c] for c in answer.get("citations") or [] if c in texts and c in ctx]
            got = pair_rows(claim, lock["constraints"], cited, reason == "constraint_contradiction")
            if reason == "constraint_contradiction" and not any(label for *_, label in got):
                continue
            rows.extend(got)
    return rows, sorted(constraints)


def generated_rows(constraints: Sequence[str], seed: int) -> list[Row]:
    """Claims written from each constraint's form (``generate.variants``), each read against its own
    constraint and against one other constraint (where it is no contradiction)."""
    from abilities.scu_guard.forms import understand
    from abilities.scu_guard.training.generate import variants

    rng = random.Random(seed)
    made: list[tuple[str, str, int]] = []
    for c in constraints:
        form = understand(c)
        if form is not None:
            made.extend((c, claim, label) for claim, label, _ in variants(form, rng))
    rows: list[Row] = []
    for c, claim, label in made:
        other = constraints[rng.randrange(len(constraints))]
        group = [c] if other == c else [c, other]
        rows.extend(pair_rows(claim, group, (), bool(label), {c}))
    return rows


def train(x: Any, y: Any, seed: int, epochs: int, hidden: int = 32) -> Any:
    """Two layers, Adam with weight decay, minibatches in a seeded order, one thread."""
    import torch

    torch.manual_seed(seed)
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)
    model = torch.nn.Sequential(torch.nn.Linear(x.shape[1], hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, 1))
    loss_fn = torch.nn.BCEWithLogitsLoss()
    opt = torch.optim.Adam(model.parameters(), lr=2e-3, weight_decay=1e-4)
    gen = torch.Generator().manual_seed(seed)
    for _ in range(epochs):
        perm = torch.randperm(len(xt), generator=gen)
        for k in range(0, len(xt), 128):
            idx = perm[k : k + 128]
            opt.zero_grad()
            loss_fn(model(xt[idx]), yt[idx]).backward()
            opt.step()
    return model.eval()


def export(model: Any, dim: int, out: Path) -> str:
    """ONNX (opset 17, output a probability), then int8 dynamic quantization; returns the sha256."""
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic

    net = torch.nn.Sequential(model, torch.nn.Sigmoid()).eval()
    fp32 = out.with_suffix(".fp32.onnx")
    torch.onnx.export(net, (torch.zeros(1, dim),), str(fp32), input_names=["x"], output_names=["p"],
                      dynamic_axes={"x": {0: "n"}, "p": {0: "n"}}, opset_version=17, dynamo=False)
    quantize_dynamic(str(fp32), str(out), weight_type=QuantType.QInt8)
    fp32.unlink()
    return hashlib.sha256(out.read_bytes()).hexdigest()


def build(sets: Sequence[str], seed: int, epochs: int, out: Path) -> dict[str, Any]:
    """Rows -> features -> weights -> int8 ONNX at ``out``; returns counts and the file's sha256."""
    import numpy as np

    from abilities.scu_guard.pair_features import DIM, matrix

    labelled, constraints = set_rows(sets)
    gen = generated_rows(constraints, seed)
    rows = labelled + gen
    x = matrix([(c, claim, hint) for c, claim, hint, _ in rows])
    y = np.array([[label] for *_, label in rows], dtype=np.float32)
    digest = export(train(x, y, seed, epochs), DIM, out)
    return {"rows": len(rows), "labelled": len(labelled), "generated": len(gen), "positives": int(y.sum()),
            "sets": list(sets), "seed": seed, "epochs": epochs, "sha256": digest}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=14)
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--sets", nargs="*", default=list(TRAIN_SETS), help="labelled sets to learn from")
    ap.add_argument("--out", type=Path, default=ROOT / "abilities" / "scu_guard" / "pair_model.onnx")
    args = ap.parse_args()
    print(json.dumps(build(args.sets, args.seed, args.epochs, args.out)))


if __name__ == "__main__":
    main()
