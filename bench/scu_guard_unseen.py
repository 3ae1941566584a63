"""scu_guard on sets written without looking at the detector: figures per set, per kind, per cause, per domain.

Each case carries ``domain``, ``kind`` (the constraint kind it probes) and ``cause`` (the wording it
tests: periodic, unit, business_days, date, quantity_word, passive, obligation, non_prefix, order,
ellipsis, negation_scope, distractor, chunk_fact, vocab, plain). Every detector given is scored on
the very same pipeline in the same run, so each figure sits next to its baselines.

    .venv/bin/python bench/scu_guard_unseen.py --out NAME SET [SET ...]

writes ``bench/results/scu_guard_NAME.json``. A SET is a name from ``UNSEEN_SETS`` (``heldout_v13``)
or the path of any JSONL file in the same format, inside the repository or not: a set kept outside
it is read in place, never copied in.
"""

from __future__ import annotations

import argparse
import platform
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from abilities.scu_guard.detect import find_contradictions as _lexicon_only  # noqa: E402
from abilities.scu_guard.evaluate import judge, load_cases  # noqa: E402
from bench.scu_guard_eval import neg_map_detector  # noqa: E402
from bench.spine_common import write_result  # noqa: E402

DATA = ROOT / "tests" / "data" / "scu_guard"
# The sets written without looking at the detector, each scored once when it was new (its first run).
UNSEEN_SETS: dict[str, Path] = {f"heldout_v{n}": DATA / f"heldout_v{n}.jsonl" for n in range(7, 63)}


def set_path(name_or_path: str) -> Path:
    """A set by its name in ``UNSEEN_SETS`` or by its path; a clear error when it is neither."""
    if name_or_path in UNSEEN_SETS:
        return UNSEEN_SETS[name_or_path]
    path = Path(name_or_path)
    if not path.is_file():
        raise SystemExit(f"set {name_or_path!r} is neither a name in UNSEEN_SETS ({', '.join(UNSEEN_SETS)}) "
                         "nor an existing file")
    return path


def _figures(rows: list[dict[str, Any]]) -> dict[str, Any]:
    n = len(rows)
    tp = sum(r["want"] and r["got"] for r in rows)
    fp = sum(r["got"] and not r["want"] for r in rows)
    fn = sum(r["want"] and not r["got"] for r in rows)
    ok_cases = [r for r in rows if not r["want"]]
    return {
        "cases": n,
        "verdict_accuracy": round(sum(r["verdict_ok"] for r in rows) / n, 4) if n else None,
        "contradiction_precision": round(tp / (tp + fp), 4) if tp + fp else None,
        "contradiction_recall": round(tp / (tp + fn), 4) if tp + fn else None,
        "tp": tp, "fp": fp, "fn": fn,
        "ok_claims": len(ok_cases),
        "ok_claims_flagged": sum(r["got"] for r in ok_cases),
        "suspected": sum(r["reason"] == "suspected_contradiction" for r in rows),
    }


def row_for(case: dict[str, Any], got: Any) -> dict[str, Any]:
    """One case's row: wanted/got contradiction, verdict right or not, and (when the guard's own detector
    answered) the sources of the findings that made the REJECT, the REVIEW and the cleared ones."""
    exp = case["expect"]
    r = got.readings
    return {
        "id": case["id"], "domain": case.get("domain", "?"), "kind": case.get("kind", "?"),
        "cause": case.get("cause", "?"), "want": exp["reason"] == "constraint_contradiction",
        "ok_claim": exp["verdict"] == "OK",
        "got": got.reason == "constraint_contradiction", "reason": got.reason,
        "verdict_ok": got.verdict == exp["verdict"],
        "rejected_by": sorted({r.source.get(f, "?") for f in got.contradictions}) if r else [],
        "reviewed_by": sorted({r.source.get(f, "?") for f in got.suspected}) if r else [],
        "cleared_by": sorted({r.source.get(f, "?") for f in r.cleared}) if r else [],
    }


def run(cases: list[dict[str, Any]], detector: Any) -> list[dict[str, Any]]:
    """One row per case (``row_for``) as ``detector`` answers it."""
    return [row_for(case, judge(case, detector)) for case in cases]


def _group(source: str) -> str:
    """A source without the words of its doubt ("typed forbid/event doubt: the clause ..." keeps them: the
    doubts are few and each is its own mechanism)."""
    return source


def by_source(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """For each source of a finding: the REJECT answers it took part in (right: the claim breaks a rule;
    wrong: an OK claim) and those it made alone; the REVIEW answers it took part in and made alone (on OK
    claims and on contradictions); the answers it cleared (OK claims and contradictions that answered OK).
    Rows of a bench that decides without the guard's readings (no sources) count under no source.
    A source that is wrong more than about 2% of the time on unseen text cannot carry a REJECT."""
    out: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for r in rows:
        if r["reason"] == "constraint_contradiction":
            for s in r.get("rejected_by", ()):
                side = "right" if r["want"] else "wrong" if r["ok_claim"] else "other"
                out[_group(s)][f"reject_{side}"] += 1
                if len(r.get("rejected_by", ())) == 1:
                    out[_group(s)][f"reject_alone_{side}"] += 1
        if r["reason"] == "suspected_contradiction":
            for s in r.get("reviewed_by", ()):
                side = "contra" if r["want"] else "ok" if r["ok_claim"] else "other"
                out[_group(s)][f"review_{side}"] += 1
                if len(r.get("reviewed_by", ())) == 1:
                    out[_group(s)][f"review_alone_{side}"] += 1
        if r["reason"] == "ok":
            for s in r.get("cleared_by", ()):
                out[_group(s)]["cleared_" + ("contra" if r["want"] else "ok")] += 1
    return {k: dict(v) for k, v in sorted(out.items())}


def report(rows: list[dict[str, Any]], aggregate_only: bool = False) -> dict[str, Any]:
    """Figures overall and broken down by kind, cause, domain and source, plus the wrong cases (without the
    domains and the wrong cases when ``aggregate_only``: a pseudo-unseen set is looked at only in aggregate)."""
    out: dict[str, Any] = {"all": _figures(rows), "by_source": by_source(rows)}
    if aggregate_only:
        return out
    for key in ("kind", "cause", "domain"):
        groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for r in rows:
            groups[r[key]].append(r)
        out[f"by_{key}"] = {k: _figures(v) for k, v in sorted(groups.items())}
    out["wrong"] = [f"{r['id']}: want {'contradiction' if r['want'] else 'ok'}, got {r['reason']}"
                    for r in rows if not r["verdict_ok"] or r["want"] != r["got"]]
    return out


def print_sources(table: dict[str, Any]) -> None:
    """The per-source table: REJECT right/wrong (alone), REVIEW on contradictions/OK claims (alone), cleared."""
    print(f"{'source':72} {'rej R/W':>8} {'alone':>7} {'rev C/O':>8} {'alone':>7} {'clr C/O':>7}")
    for k, v in table.items():
        g = v.get
        print(f"{k[:72]:72} {g('reject_right', 0):>3}/{g('reject_wrong', 0):<4} "
              f"{g('reject_alone_right', 0):>3}/{g('reject_alone_wrong', 0):<3} "
              f"{g('review_contra', 0):>3}/{g('review_ok', 0):<4} {g('review_alone_contra', 0):>3}/"
              f"{g('review_alone_ok', 0):<3} {g('cleared_contra', 0):>3}/{g('cleared_ok', 0):<3}")


def detectors() -> dict[str, Any]:
    """The detectors to compare: the guard's current one, the lexicon detector alone (the guard before the
    typed forms), and the spec's NEG_MAP baseline."""
    return {"ours": None, "lexicon_only": _lexicon_only, "neg_map": neg_map_detector}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=None, help="results name: bench/results/scu_guard_<out>.json")
    ap.add_argument("--note", default="", help="what this run is (e.g. first run, before any change)")
    ap.add_argument("sets", nargs="*", help="set names from UNSEEN_SETS or paths of JSONL sets")
    ap.add_argument("--aggregate-only", action="store_true",
                    help="keep overall and per-source figures only: no domains, no case ids (pseudo-unseen sets)")
    ap.add_argument("--sources", action="store_true", help="print the per-source table of the pooled guard")
    ap.add_argument("--smoke", action="store_true", help="small N, seconds (CI); results to $METIS_BENCH_RESULTS or a temp dir")
    args = ap.parse_args()
    if args.smoke:  # one small labelled set
        args.sets, args.out = [str(DATA / "holdout.jsonl")], "smoke"
    if not args.sets or not args.out:
        ap.error("--out and at least one SET.jsonl are required")
    result: dict[str, Any] = {"python": platform.python_version(), "machine": platform.machine(),
                              "note": args.note, "sets": {}}
    pooled: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for path in map(set_path, args.sets):
        cases = load_cases(str(path))
        name = Path(path).stem
        entry: dict[str, Any] = {}
        for label, det in detectors().items():
            rows = run(cases, det)
            pooled[label].extend(rows)
            entry[label] = report(rows, args.aggregate_only)
            f = entry[label]["all"]
            print(f"{name:14} {label:8} n={f['cases']:4} acc={f['verdict_accuracy']:.3f} "
                  f"P={f['contradiction_precision']} R={f['contradiction_recall']} "
                  f"ok_flagged={f['ok_claims_flagged']}/{f['ok_claims']}")
        result["sets"][name] = entry
    if len(args.sets) > 1:
        result["pooled"] = {label: report(rows, args.aggregate_only) for label, rows in pooled.items()}
        f = result["pooled"]["ours"]["all"]
        print(f"{'pooled':14} ours     n={f['cases']:4} acc={f['verdict_accuracy']:.3f} "
              f"P={f['contradiction_precision']} R={f['contradiction_recall']} "
              f"ok_flagged={f['ok_claims_flagged']}/{f['ok_claims']} review={f['suspected']}")
    if args.sources:
        print_sources(report(pooled["ours"], True)["by_source"])
    print(f"wrote {write_result(f'scu_guard_{args.out}', result, args.smoke)}")


if __name__ == "__main__":
    main()
