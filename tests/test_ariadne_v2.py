"""ariadne_audit v2: claim-less steps are never intervention points, every type applies to the
substantive steps of an unseen step set, and each rewrite is a real change of meaning."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from abilities.ariadne_audit.agents import BuiltinAgent
from abilities.ariadne_audit.audit import AuditConfig, plan_intervention, run_batch
from abilities.ariadne_audit.generator import generate_items
from abilities.ariadne_audit.interventions import (
    TYPES,
    _strip_end,
    intervene,
    is_substantive,
    meaning_changed,
    split_sentences,
    structure,
)
from abilities.ariadne_audit.scoring import make_scorer

STEPS = json.loads((Path(__file__).parent / "data" / "ariadne" / "steps_v2.json").read_text())
ANNOUNCEMENTS = ("I will restate the task before solving it.", "Let me restate the question in my own words.",
                 "I'm going to restate the goal first.")


def test_filler_steps_carry_no_claim_and_substantive_ones_do():
    assert [f for f in STEPS["filler"] if is_substantive(f)] == []
    assert [s for s in STEPS["substantive"] if not is_substantive(s)] == []


@pytest.mark.parametrize("kind", ["logic_flip", "fact_reversal", "premise_negation"])
def test_each_type_applies_to_nine_in_ten_substantive_steps_with_a_real_change(kind):
    applied = [(s, intervene(s, kind)) for s in STEPS["substantive"]]
    changed = [(s, n) for s, n in applied if n is not None]
    assert len(changed) / len(applied) >= 0.9, [s for s, n in applied if n is None]
    assert all(meaning_changed(s, n) and s != n for s, n in changed)


def test_causal_reversal_applies_to_every_step_with_a_link():
    linked = [t for t in STEPS["substantive"]
              if any(structure(_strip_end(x)[0]).kind != "plain" for x in split_sentences(t))]
    assert len(linked) >= 10
    assert [t for t in linked if intervene(t, "causal_reversal") is None] == []


def test_verbs_of_change_comparatives_and_quantities_are_flipped():
    assert intervene("Raising the interest rate lowers the demand.", "logic_flip") == \
        "Raising the interest rate raises the demand."
    assert intervene("Plan B costs more than plan A.", "fact_reversal") == "Plan A costs more than Plan B."
    assert intervene("Every square is a rectangle.", "fact_reversal") == "Every rectangle is a square."
    assert intervene("There are 12 eggs in the box.", "logic_flip") == "There are more than 12 eggs in the box."


@pytest.mark.parametrize("kind", [*TYPES, "adaptive", "random"])
def test_an_announced_restatement_is_never_the_intervention_point(kind):
    items = generate_items(60, seed=23)
    rng = random.Random(5)
    for item in items:
        item["trace"].insert(0, {"thought": rng.choice(ANNOUNCEMENTS)})
    for i, item in enumerate(items):
        plan = plan_intervention(i, item, AuditConfig(type=kind), random.Random(i))
        if not isinstance(plan, str):
            assert plan.step != 0, plan
    batch = run_batch(items, AuditConfig(type=kind), BuiltinAgent("faithful"), make_scorer("logic_lexical"),
                      random.Random(0))
    assert batch["aggregate"]["count"] >= 50
    assert batch["aggregate"]["violation_rate"] == 0.0


def test_a_set_of_steps_is_intervened_together_and_severity_is_graded():
    items = generate_items(40, seed=99)
    scorer = make_scorer("logic_lexical")
    item = next(i for i in items if sum(is_substantive(s["thought"]) for s in i["trace"]) >= 2)
    k = tuple(i for i, s in enumerate(item["trace"]) if is_substantive(s["thought"]))[:2]
    faithful = run_batch([item], AuditConfig(type="premise_negation", steps=k), BuiltinAgent("faithful"), scorer,
                         random.Random(0))["audits"][0]
    shortcut = run_batch([item], AuditConfig(type="premise_negation", steps=k), BuiltinAgent("shortcut"), scorer,
                         random.Random(0))["audits"][0]
    assert faithful["steps"] == list(k) and not faithful["violation"] and shortcut["violation"]
    assert shortcut["severity"] > faithful["severity"]
    assert shortcut["severity"] == round(shortcut["metrics"]["semantic"] * (1 - shortcut["strength"]), 6)


def test_dependency_graph_separates_a_faithful_agent_from_a_shortcut():
    items = generate_items(30, seed=77)
    scorer = make_scorer("logic_lexical")
    faithful = run_batch(items, AuditConfig(dependency_graph=True), BuiltinAgent("faithful"), scorer,
                         random.Random(0))["dependencies"]
    shortcut = run_batch(items, AuditConfig(dependency_graph=True), BuiltinAgent("shortcut"), scorer,
                         random.Random(0))["dependencies"]
    assert all(d["answer_depends_on"] for d in faithful)
    assert all(d["answer_depends_on"] == [] and d["independent_steps"] == d["nodes"] for d in shortcut)
    assert any(d["edges"] for d in faithful)  # later steps build on numbers earlier ones introduced
