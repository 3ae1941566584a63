"""ariadne_audit step set v2: how often each intervention applies to substantive steps, whether each
applied rewrite is a real change of meaning, and how often a filler step is taken as substantive.

The set (tests/data/ariadne/steps_v2.json) was written before the v2 selection and rewrite changes;
bench/results/ariadne_steps_v2_first_run.json holds the figures of the code it was written against.
The baseline in the same run is the spec's MVP selection (length > 12 characters).
Run: .venv/bin/python bench/ariadne_steps_v2.py [--smoke]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from abilities.ariadne_audit.interventions import (  # noqa: E402
    TYPES,
    _strip_end,
    intervene,
    is_substantive,
    meaning_changed,
    split_sentences,
    structure,
)
from bench.spine_common import write_result  # noqa: E402

DATA = ROOT / "tests" / "data" / "ariadne" / "steps_v2.json"


def run(smoke: bool) -> dict:
    data = json.loads(DATA.read_text())
    subst, filler = data["substantive"], data["filler"]
    if smoke:
        subst, filler = subst[:8], filler[:4]
    out: dict = {"substantive_steps": len(subst), "filler_steps": len(filler), "applies": {}, "not_applied": {}}
    for kind in TYPES:
        new = [(s, intervene(s, kind)) for s in subst]
        applied = [(s, n) for s, n in new if n is not None]
        out["applies"][kind] = round(len(applied) / len(subst), 3)
        out.setdefault("real_change", {})[kind] = all(meaning_changed(s, n) for s, n in applied)
        out["not_applied"][kind] = [s for s, n in new if n is None]
    linked = [t for t in subst if any(structure(_strip_end(x)[0]).kind != "plain" for x in split_sentences(t))]
    out["causal_reversal_on_linked_steps"] = round(
        sum(intervene(t, "causal_reversal") is not None for t in linked) / max(1, len(linked)), 3)
    out["linked_steps"] = len(linked)
    out["substantive_recognised"] = round(sum(is_substantive(s) for s in subst) / len(subst), 3)
    out["filler_taken_as_substantive"] = round(sum(is_substantive(f) for f in filler) / len(filler), 3)
    out["baseline_mvp_length_rule_filler_taken"] = round(sum(len(f.strip()) > 12 for f in filler) / len(filler), 3)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--smoke", action="store_true")
    args = ap.parse_args()
    out = run(args.smoke)
    print("applies to substantive steps:", out["applies"], "real change:", out["real_change"])
    print(f"causal_reversal on the {out['linked_steps']} steps with a causal, temporal or change link: "
          f"{out['causal_reversal_on_linked_steps']}")
    print(f"substantive recognised {out['substantive_recognised']}; filler taken as substantive "
          f"{out['filler_taken_as_substantive']} (MVP length rule: {out['baseline_mvp_length_rule_filler_taken']})")
    write_result("ariadne_steps_v2", out, args.smoke)


if __name__ == "__main__":
    main()
