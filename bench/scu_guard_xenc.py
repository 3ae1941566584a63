"""scu_guard with the fine-tuned cross-encoder (``training/xenc_model.py``) beside the guard as it is.

For every case the guard is run as it ships (rules and the pair model) and with no arbiter (every
guessed finding is REVIEW); the cross-encoder scores the constraints the claim speaks of
(``xenc.relevant``) and every constraint behind a suspected finding. Then, in one run and on the same
cases, these ways of deciding are scored next to ``guard``:

- ``model_alone``: REJECT when the cross-encoder's highest score reaches ``THRESHOLD``, else OK
  (the other checks, citations, echo, JSON, refusal, as the guard decides them);
- ``rules_or_model``: the guard's REJECTs, plus a REJECT where the guard says OK or REVIEW and the
  cross-encoder's highest score reaches ``THRESHOLD``;
- ``rules_or_model_review``: as the guard, but an OK becomes REVIEW where the cross-encoder reaches
  ``THRESHOLD`` (a flag for a person; never a REJECT);
- ``clearer``: the guard, where a REVIEW becomes OK when every suspected constraint scores below
  ``CLEAR_BELOW`` and REJECT when one reaches ``THRESHOLD``;
- ``review_to_ok`` (a baseline without the model): every REVIEW becomes OK. A REVIEW counts as wrong
  on every case, so clearing REVIEWs raises accuracy whatever clears them; ``clearer`` helps only where
  it beats this;
- ``arbiter``: the guard with the cross-encoder in the pair model's place (a guessed finding stands
  when the cross-encoder scores its constraint at ``THRESHOLD`` or more).

Also the cost: the cross-encoder's time per case (its pairs, tokenizer included) beside the guard's own
time per case, measured in turns on the same cases. ``--sweep`` prints, for choosing the thresholds, the
figures of ``model_alone`` and ``clearer`` over a grid (use it on development sets only).

    .venv/bin/python bench/scu_guard_xenc.py --model DIR [--out NAME] [--sweep] SET [SET ...]

``DIR`` holds the files ``abilities.scu_guard.training.xenc_train`` writes (no model ships: the
experiment's result was negative). ``--smoke`` runs every way with a lexical stand-in scorer instead.
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from abilities.scu_guard import pair_model  # noqa: E402
from abilities.scu_guard.evaluate import judge, load_cases  # noqa: E402
from abilities.scu_guard.training import xenc_model as xenc  # noqa: E402
from bench.scu_guard_unseen import report, set_path  # noqa: E402
from bench.spine_common import write_result  # noqa: E402

CONTRA, SUSPECT = "constraint_contradiction", "suspected_contradiction"
Scorer = Callable[[str, str], float]


def lexical(constraint: str, text: str) -> float:
    """A stand-in scorer with no model (``--smoke`` and CI): the share of the constraint's word stems the
    pair text holds. It exercises every way of deciding; its figures say nothing of the cross-encoder."""
    words = xenc.stems(constraint)
    return len(words & xenc.stems(text)) / (len(words) or 1)


def scorer(model_dir: Path | None) -> tuple[Scorer, dict[str, str]]:
    """(scorer, the files' hashes): the cross-encoder exported to ``model_dir``, or the lexical stand-in."""
    if model_dir is None:
        return lexical, {"scorer": "lexical stand-in (no model)"}
    pins = {name: hashlib.sha256((model_dir / name).read_bytes()).hexdigest()
            for name in (xenc.MODEL_NAME, xenc.TOKENIZER_NAME)}
    return xenc.xenc_scorer(model_dir, pins[xenc.MODEL_NAME], pins[xenc.TOKENIZER_NAME]), pins


def facts(case: dict[str, Any], score: Scorer, threshold: float) -> dict[str, Any]:
    """What every way of deciding needs about one case, computed once, with the times."""
    answer = case["answer"]
    claim = answer.get("claim") if isinstance(answer, dict) else None
    texts = {c["id"]: c["text"] for c in case["chunks"]}
    cited = [texts[c] for c in (answer.get("citations") or [] if isinstance(answer, dict) else [])
             if isinstance(c, str) and c in texts]
    text = xenc.claim_with_chunks(claim, cited) if isinstance(claim, str) else ""
    t0 = time.perf_counter()
    guard = judge(case, arbiter=pair_model.agrees)
    t1 = time.perf_counter()
    top: list[float] = []
    if isinstance(claim, str):
        cons = case["constraints"]
        top = [score(cons[i], text) for i in xenc.relevant(cons, claim, cited)]
    t2 = time.perf_counter()
    rules = judge(case, arbiter=None)
    asked: dict[str, float] = {}

    def arbiter(constraint: str, _claim: str, _hint: str) -> bool:
        asked.setdefault(constraint, score(constraint, text))
        return asked[constraint] >= threshold

    arb = judge(case, arbiter=arbiter) if isinstance(claim, str) else guard
    suspected = {f.constraint: score(f.constraint, text) for f in guard.suspected} if text else {}
    return {"guard": (guard.verdict, guard.reason), "rules": (rules.verdict, rules.reason),
            "arbiter": (arb.verdict, arb.reason), "top": max(top, default=0.0), "suspected": suspected,
            "guard_ms": (t1 - t0) * 1000, "xenc_ms": (t2 - t1) * 1000, "pairs": len(top)}


def decide(way: str, f: dict[str, Any], threshold: float, clear_below: float) -> tuple[str, str]:
    """(verdict, reason) of one way of deciding (see the module docstring)."""
    verdict, reason = f["guard"]
    mine = reason in ("ok", CONTRA, SUSPECT)
    hit = f["top"] >= threshold
    if way == "guard":
        return verdict, reason
    if way == "arbiter":
        return f["arbiter"]
    if way == "model_alone":
        return (("REJECT", CONTRA) if hit else ("OK", "ok")) if mine else (verdict, reason)
    if way == "rules_or_model":
        return ("REJECT", CONTRA) if reason in ("ok", SUSPECT) and hit else (verdict, reason)
    if way == "rules_or_model_review":
        return ("REVIEW", SUSPECT) if reason == "ok" and hit else (verdict, reason)
    if way == "review_to_ok":
        return ("OK", "ok") if reason == SUSPECT else (verdict, reason)
    if way == "clearer":
        if reason != SUSPECT or not f["suspected"]:
            return verdict, reason
        worst = max(f["suspected"].values())
        return ("REJECT", CONTRA) if worst >= threshold else ("OK", "ok") if worst < clear_below else (verdict, reason)
    raise ValueError(way)


WAYS = ("guard", "review_to_ok", "model_alone", "rules_or_model", "rules_or_model_review", "clearer", "arbiter")


def rows(cases: list[dict[str, Any]], fs: list[dict[str, Any]], way: str, threshold: float,
         clear_below: float) -> list[dict[str, Any]]:
    """One row per case in the shape ``bench.scu_guard_unseen.report`` reads."""
    out = []
    for case, f in zip(cases, fs, strict=True):
        verdict, reason = decide(way, f, threshold, clear_below)
        exp = case["expect"]
        out.append({"id": case["id"], "domain": case.get("domain", "?"), "kind": case.get("kind", "?"),
                    "cause": case.get("cause", "?"), "want": exp["reason"] == CONTRA, "got": reason == CONTRA,
                    "reason": reason, "verdict_ok": verdict == exp["verdict"]})
    return out


def summary(rs: list[dict[str, Any]]) -> dict[str, Any]:
    """Aggregate figures only (overall and per kind and cause): never the cases."""
    r = report(rs)
    return {"all": r["all"], "by_kind": r["by_kind"], "by_cause": r["by_cause"]}


def sweep(cases: list[dict[str, Any]], fs: list[dict[str, Any]]) -> None:
    """Accuracy/precision/recall of model_alone and clearer over a grid of thresholds."""
    for t in [x / 100 for x in range(10, 100, 5)]:
        a = report(rows(cases, fs, "model_alone", t, 0.0))["all"]
        b = report(rows(cases, fs, "rules_or_model", t, 0.0))["all"]
        print(f"T={t:.2f} model_alone acc={a['verdict_accuracy']} P={a['contradiction_precision']} "
              f"R={a['contradiction_recall']} | rules_or_model acc={b['verdict_accuracy']} "
              f"P={b['contradiction_precision']} R={b['contradiction_recall']}")
    for lo in [x / 100 for x in range(5, 60, 5)]:
        for t in (0.5, 0.7, 0.9, 1.01):
            c = report(rows(cases, fs, "clearer", t, lo))["all"]
            print(f"clearer LO={lo:.2f} T={t:.2f} acc={c['verdict_accuracy']} P={c['contradiction_precision']} "
                  f"R={c['contradiction_recall']} review={c['suspected']}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("sets", nargs="*", help="set names (heldout_vN) or JSONL paths, pooled")
    ap.add_argument("--out", default="scu_guard_xenc", help="result name under bench/results/")
    ap.add_argument("--model", type=Path, default=None, help="a directory with xenc.onnx and xenc_tokenizer.json")
    ap.add_argument("--threshold", type=float, default=xenc.THRESHOLD)
    ap.add_argument("--clear-below", type=float, default=xenc.CLEAR_BELOW)
    ap.add_argument("--sweep", action="store_true", help="threshold grid (development sets only)")
    ap.add_argument("--smoke", action="store_true", help="24 cases of one small set, lexical stand-in scorer, seconds; results to a temp dir")
    args = ap.parse_args()
    names = [str(ROOT / "tests" / "data" / "scu_guard" / "holdout.jsonl")] if args.smoke else args.sets
    if not names:
        ap.error("at least one SET")
    if args.model is None and not args.smoke:
        ap.error("--model DIR (a directory written by abilities.scu_guard.training.xenc_train) is required")
    score, pins = scorer(args.model)
    cases: list[dict[str, Any]] = []
    for n in names:
        cases.extend(load_cases(str(set_path(n))))
    if args.smoke:
        cases = cases[:12] + cases[-12:]  # some OK claims and some contradictions, seconds
    fs = [facts(c, score, args.threshold) for c in cases]
    if args.sweep:
        sweep(cases, fs)
    result: dict[str, Any] = {"sets": [Path(n).stem for n in names], "files": pins, "threshold": args.threshold,
                              "clear_below": args.clear_below, "ways": {}}
    for way in WAYS:
        s = summary(rows(cases, fs, way, args.threshold, args.clear_below))
        result["ways"][way] = s
        a = s["all"]
        print(f"{way:22} n={a['cases']:4} acc={a['verdict_accuracy']} P={a['contradiction_precision']} "
              f"R={a['contradiction_recall']} ok_flagged={a['ok_claims_flagged']}/{a['ok_claims']} "
              f"review={a['suspected']}")
    g = sorted(f["guard_ms"] for f in fs)
    x = sorted(f["xenc_ms"] for f in fs)
    result["cost_ms"] = {"guard_p50": round(statistics.median(g), 2), "guard_p95": round(g[int(0.95 * (len(g) - 1))], 2),
                         "xenc_p50": round(statistics.median(x), 2), "xenc_p95": round(x[int(0.95 * (len(x) - 1))], 2),
                         "xenc_pairs_per_case": round(statistics.mean(f["pairs"] for f in fs), 2)}
    print("cost per case (ms):", result["cost_ms"])
    print(f"wrote {write_result(args.out, result, args.smoke)}")


if __name__ == "__main__":
    main()
