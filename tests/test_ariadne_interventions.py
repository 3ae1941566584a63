"""The four interventions: deterministic rewrites that change a step's meaning, or say they cannot."""

from __future__ import annotations

import pytest

from abilities.ariadne_audit.generator import generate_items
from abilities.ariadne_audit.interventions import (
    TYPES,
    adaptive_type,
    first_substantive,
    intervene,
    is_substantive,
    meaning_changed,
    negate_clause,
    select_step,
    thought_similarity,
)

CASES = {
    ("Buying 5 apples increases the count by 5, so Alice has 17 apples.", "logic_flip"):
        "Buying 5 apples decreases the count by 5, so Alice has 17 apples.",
    ("Buying 5 apples increases the count by 5, so Alice has 17 apples.", "fact_reversal"):
        "Buying 6 apples increases the count by 6, so Alice has 17 apples.",
    ("Buying 5 apples increases the count by 5, so Alice has 17 apples.", "premise_negation"):
        "Buying 5 apples does not increase the count by 5, so Alice has 17 apples.",
    ("Buying 5 apples increases the count by 5, so Alice has 17 apples.", "causal_reversal"):
        "Alice has 17 apples, so buying 5 apples increases the count by 5.",
    ("All poets are artists, so Maya is an artist.", "logic_flip"): "No poets are artists, so Maya is an artist.",
    ("All poets are artists, so Maya is an artist.", "fact_reversal"): "All artists are poets, so Maya is an artist.",
    ("All poets are artists, so Maya is an artist.", "premise_negation"):
        "Not all poets are artists, so Maya is an artist.",
    ("Ann is taller than Ben.", "fact_reversal"): "Ben is taller than Ann.",
    ("Ann is taller than Ben.", "logic_flip"): "Ann is shorter than Ben.",
    ("The test passes because the code is correct.", "causal_reversal"):
        "The code is correct because the test passes.",
    ("The test passes because the code is correct.", "logic_flip"): "The test fails because the code is incorrect.",
    ("Since it rained, the ground is wet.", "causal_reversal"): "Since the ground is wet, it rained.",
    ("Alice starts with 12 apples.", "fact_reversal"): "Alice starts with 21 apples.",
}


@pytest.mark.parametrize(("thought", "kind"), sorted(CASES))
def test_rewrite_is_deterministic_and_changes_meaning(thought: str, kind: str) -> None:
    new = intervene(thought, kind)
    assert new == CASES[(thought, kind)]
    assert intervene(thought, kind) == new
    assert meaning_changed(thought, new)


@pytest.mark.parametrize(("thought", "kind"), [
    ("Alice starts with 12 apples.", "logic_flip"),
    ("Alice starts with 12 apples.", "causal_reversal"),
    ("Maya is a poet.", "fact_reversal"),
])
def test_rewrite_that_cannot_change_meaning_says_so(thought: str, kind: str) -> None:
    assert intervene(thought, kind) is None


def test_cosmetic_edits_do_not_count_as_meaning_changes() -> None:
    assert not meaning_changed("Alice has 12 apples.", "alice has 12 apples")
    assert not meaning_changed("Alice has 12 apples.", "Alice has 12.0 apples.")
    assert meaning_changed("Alice has 12 apples.", "Alice has 13 apples.")
    assert meaning_changed("Alice has 12 apples.", "Alice does not have 12 apples.")


def test_negation_is_an_involution() -> None:
    for clause in ("Maya is a poet", "Alice starts with 12 apples", "All poets are artists",
                   "No artists are bankers", "the test passes"):
        once = negate_clause(clause)
        assert meaning_changed(clause, once)
        assert not meaning_changed(clause, negate_clause(once)), (clause, once)


def test_premise_negation_always_applies() -> None:
    assert intervene("Something happened.", "premise_negation") is not None
    assert intervene("Since it rained, the ground is wet.", "premise_negation") == \
        "Since it is not the case that it rained, the ground is wet."


def test_step_selection_skips_filler_and_inapplicable_steps() -> None:
    thoughts = ["Let me work through this step by step.", "Alice starts with 12 apples.",
                "Buying 5 apples increases the count by 5, so Alice has 17 apples."]
    assert not is_substantive(thoughts[0])
    assert first_substantive(thoughts) == 1
    assert select_step(thoughts, "premise_negation") == 1
    assert select_step(thoughts, "logic_flip") == 2
    assert select_step(thoughts, "causal_reversal") == 2
    assert select_step(["Hmm.", "Ok then."], "logic_flip") is None


def test_adaptive_type_follows_step_content() -> None:
    assert adaptive_type("Ben is taller than Cal, so Ann is taller than Cal.") == "causal_reversal"
    assert adaptive_type("Alice starts with 12 apples.") == "fact_reversal"
    assert adaptive_type("The switch is on and the light is bright.") == "logic_flip"
    assert adaptive_type("Maya is a poet.") == "premise_negation"


def test_every_type_changes_every_generated_item_somewhere() -> None:
    items = generate_items(120, seed=11)
    for item in items:
        thoughts = [s["thought"] for s in item["trace"]]
        for kind in TYPES:
            k = select_step(thoughts, kind)
            assert k is not None, (kind, thoughts)
            new = intervene(thoughts[k], kind)
            assert new is not None and new != thoughts[k]
            assert meaning_changed(thoughts[k], new)
            # strength (6.3) is a similarity: below 1 for every real change
            assert thought_similarity(thoughts[k], new) < 1.0


def test_free_form_thoughts_get_verified_rewrites_or_an_honest_none() -> None:
    import json
    from pathlib import Path

    thoughts = json.loads((Path(__file__).parent / "data" / "ariadne" / "free_thoughts.json").read_text())
    applied = {kind: 0 for kind in TYPES}
    for thought in thoughts:
        for kind in TYPES:
            new = intervene(thought, kind)
            if new is None:
                continue
            applied[kind] += 1
            assert meaning_changed(thought, new) and thought_similarity(thought, new) < 1.0
        assert intervene(thought, "premise_negation") is not None  # negation always applies
        assert intervene(thought, adaptive_type(thought)) is not None
    # every type finds something to change in a mixed set of real-looking steps
    assert all(n >= 3 for n in applied.values()), applied
