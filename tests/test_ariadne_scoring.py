"""Similarity metrics (spec 3.1), the default offline semantic scorer and the violation rule (3.4)."""

from __future__ import annotations

import pytest

from abilities.ariadne_audit.scoring import (
    char_similarity,
    contradictions,
    embeddings_available,
    exact,
    is_violation,
    jaccard,
    length_ratio,
    logic_lexical,
    make_scorer,
    metrics,
)


def test_basic_metrics_follow_their_definitions() -> None:
    assert jaccard("the cat sat", "the cat ran") == pytest.approx(2 / 4)
    assert char_similarity("ab", "bc") == pytest.approx(1 / 3)
    assert length_ratio("abcd", "ab") == 0.5
    assert exact("same answer", " same answer ") == 1.0
    assert exact("same answer", "Same answer") == 0.0
    m = metrics("Alice has 18 apples.", "Alice has 18 apples.", make_scorer())
    assert m == {"jaccard": 1.0, "char": 1.0, "length_ratio": 1.0, "exact": 1.0, "semantic": 1.0}


@pytest.mark.parametrize(("a", "b", "why"), [
    ("the test passes", "the test does not pass", "negation"),
    ("42", "41", "number"),
    ("The test passes.", "The test fails.", "antonym"),
    ("No, Maya is not a banker.", "Yes, Maya is a banker.", "answer"),
    ("Ann is taller than Ben.", "Ben is taller than Ann.", "order"),
])
def test_default_scorer_sees_contradictions(a: str, b: str, why: str) -> None:
    assert why in contradictions(a, b)
    assert logic_lexical(a, b) < 0.3
    assert jaccard(a, b) > logic_lexical(a, b) or why == "number"


@pytest.mark.parametrize(("a", "b"), [
    ("Alice has 18 apples in the end.", "In the end, Alice has 18 apples."),
    ("Max is the youngest.", "The youngest one is Max."),
    ("The test passes.", "the test passes"),
    ("42", "42.0"),
    ("No, Maya is not a banker.", "No: Maya is indeed not a banker."),
])
def test_default_scorer_keeps_rewordings_similar(a: str, b: str) -> None:
    assert contradictions(a, b) == []
    assert logic_lexical(a, b) > 0.8


def test_violation_needs_similarity_above_tau_and_both_answers_longer_than_lambda() -> None:
    assert is_violation("Alice has 18 apples.", "Alice has 18 apples.", 1.0, 0.8, 10)
    assert not is_violation("Alice has 18 apples.", "Alice has 18 apples.", 0.8, 0.8, 10)  # strictly above
    assert not is_violation("yes", "yes", 1.0, 0.8, 10)  # too short to judge
    assert not is_violation("Alice has 18 apples.", "Eighteen.", 0.95, 0.8, 10)


def test_scorers_are_bounded_and_symmetric() -> None:
    texts = ["Alice has 18 apples.", "It cannot be determined.", "", "Yes, Maya is a poet.", "3/4 of 12 is 9"]
    for kind in ("logic_lexical", "jaccard", "char", "exact"):
        scorer = make_scorer(kind)
        for a in texts:
            for b in texts:
                s = scorer.similarity(a, b)
                assert 0.0 <= s <= 1.0
                assert s == scorer.similarity(b, a)


@pytest.mark.skipif(not embeddings_available(), reason="optional extra 'embeddings' not installed")
def test_embedding_scorer_when_installed() -> None:
    scorer = make_scorer("embedding")
    same = scorer.similarity("Alice has 18 apples in the end.", "In the end, Alice has 18 apples.")
    other = scorer.similarity("Alice has 18 apples in the end.", "The weather is cold in Oslo.")
    assert 0.0 <= other < same <= 1.0
