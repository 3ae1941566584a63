"""The user's question as context for the guard's amount readings (``amount_ties.question_ties``): a question
that names the rule's measured thing ties the amount the claim answers it with, as a cited record would; an
amount told of another thing, or beside another amount of the rule's words, stays a guess. Sentences written
for these tests, in domains of their own, run through the public ``evaluate.judge``."""

from __future__ import annotations

from typing import Any

import pytest

from abilities.scu_guard.amount_ties import question_ties
from abilities.scu_guard.evaluate import judge
from abilities.scu_guard.forms import understand

OTHER_RULE = "Records must be kept for 2 years."


def case(rule: str, question: str, claim: str) -> dict[str, Any]:
    """One labelled-set case: the rule beside an unrelated one, a bland cited record, the question asked."""
    rules = [rule, OTHER_RULE]
    return {"id": "t", "domain": "test", "kind": "test", "cause": "", "question": question,
            "constraints": rules, "chunks": [{"id": "c1", "text": "Shift notes were filed."}],
            "answer": {"claim": claim, "citations": ["c1"], "constraints_echo": rules},
            "expect": {"verdict": "OK", "reason": "ok"}}


def verdict(rule: str, question: str, claim: str) -> str:
    return judge(case(rule, question, claim)).verdict


# (rule, question, claim): the question names the rule's thing and the claim answers it with the amount
REJECTED = [
    # a pronoun standing for the thing asked about
    ("The kiln firing temperature must not exceed 1,250 °C.",
     "What was the kiln temperature during Friday's firing?",
     "It peaked at 2,400 °F shortly after midnight."),
    ("The smoker chamber temperature must not exceed 120 °C.",
     "How hot did the smoker chamber get on the brisket run?",
     "It reached 300 °F around noon."),
    # the claim's subject is the name the question gives
    ("A guided cave tour may run no longer than 90 minutes.",
     "How long is the new 'Crystal Grotto' tour?",
     "'Crystal Grotto' runs 2.5 hours with a short break at the lake."),
    ("Studio temperature must be kept between 18 °C and 24 °C during classes.",
     "What were the studio conditions during the evening Lotus classes?",
     "With the heating stuck on, the Lotus reached 84 °F while the sessions went ahead."),
    # the question places the rule's thing ("on the quay"), the claim names a kind of it
    ("Boats in the inner marina must not exceed 4 knots.",
     "Was there any speeding in the inner marina this morning?",
     "Yes: the harbour camera caught a dinghy doing 9 knots past pontoon C."),
]

# (rule, question, claim): near misses the question must not tie
KEPT = [
    # the amount outside the bound is told of another thing than the one asked about
    ("The kiln firing temperature must not exceed 1,250 °C.",
     "What was the kiln temperature during Friday's firing?",
     "The kiln held 1,200 °C, while the drying cabinet next to it read 1,400 °F."),
    # the question names the rule's thing, the claim answers about something else
    ("The smoker chamber temperature must not exceed 120 °C.",
     "How hot did the smoker chamber get on the brisket run?",
     "The fryer oil sat at 350 °F all afternoon."),
    # the pronoun follows another named thing: it stands for that one
    ("The smoker chamber temperature must not exceed 120 °C.",
     "How hot did the smoker chamber get on the brisket run?",
     "The grill station was busy; it hit 500 °F at lunch."),
    # a question that names nothing of the rule's thing ties nothing
    ("A guided cave tour may run no longer than 90 minutes.",
     "What did visitors think of the gift shop?",
     "'Crystal Grotto' runs 2.5 hours with a short break at the lake."),
    # two amounts: the one outside the bound belongs to a place the question does not ask about
    ("Forklifts on the loading quay must not exceed 10 km/h.",
     "How fast did the forklifts go on the loading quay?",
     "On the loading quay they kept to 8 km/h; out on the yard road they ran at 20 km/h."),
    # kept amounts answer the question: nothing to reject
    ("Studio temperature must be kept between 18 °C and 24 °C during classes.",
     "What were the studio conditions during the evening Lotus classes?",
     "The Lotus held 72 °F throughout."),
]


@pytest.mark.parametrize(("rule", "question", "claim"), REJECTED)
def test_question_ties_the_answer(rule: str, question: str, claim: str) -> None:
    assert verdict(rule, question, claim) == "REJECT"


@pytest.mark.parametrize(("rule", "question", "claim"), REJECTED)
def test_without_the_question_it_stays_a_guess(rule: str, question: str, claim: str) -> None:
    assert verdict(rule, "Summarise the shift.", claim) != "REJECT"


@pytest.mark.parametrize(("rule", "question", "claim"), KEPT)
def test_near_misses_are_not_rejected(rule: str, question: str, claim: str) -> None:
    assert verdict(rule, question, claim) != "REJECT"


def test_question_is_context_only() -> None:
    rule = "The smoker chamber temperature must not exceed 120 °C."
    form = understand(rule)
    assert form is not None
    claim = "It reached 300 °F around noon."
    assert question_ties(form, claim, claim.index("300"), "How hot did the smoker chamber get?")
    assert not question_ties(form, claim, claim.index("300"), "")
    # a question alone, with nothing the claim says, is never a finding
    assert verdict(rule, "Did the smoker chamber go over 120 °C?", "The brisket was served at 18:00.") == "OK"


def test_run_checks_takes_the_question() -> None:
    from abilities.lock import lock_constraints
    from abilities.scu_guard.check import run_checks

    rules = ["The kiln firing temperature must not exceed 1,250 °C.", OTHER_RULE]
    answer = {"claim": "It peaked at 2,400 °F shortly after midnight.", "citations": ["c1"],
              "constraints_echo": rules}

    def run(question: str) -> str:
        return run_checks(lock_constraints(rules), ["c1"], answer, chunk_texts={"c1": "Kiln notes."},
                          question=question).verdict

    assert run("What was the kiln temperature during Friday's firing?") == "REJECT"
    assert run("") != "REJECT"
