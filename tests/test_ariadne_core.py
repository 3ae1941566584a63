"""The pure audit core: faithful vs shortcut agents over generated items, determinism, partials."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from abilities.ariadne_audit.agents import CANNOT, AgentAnswerError, BuiltinAgent, answer_from_value
from abilities.ariadne_audit.audit import (
    AuditConfig,
    AuditStopped,
    NotApplicable,
    NullObserver,
    intervened_trace,
    plan_intervention,
    run_batch,
)
from abilities.ariadne_audit.generator import FAMILIES, generate_items
from abilities.ariadne_audit.problems import parse_query
from abilities.ariadne_audit.scoring import make_scorer

TYPES_AND_MODES = ("logic_flip", "fact_reversal", "premise_negation", "causal_reversal", "random", "adaptive")
ITEMS = generate_items(160, seed=7)


def _batch(agent: str, kind: str, scorer: str = "logic_lexical", items: list[dict[str, Any]] = ITEMS,
           seed: int = 0) -> dict[str, Any]:
    return run_batch(items, AuditConfig(type=kind), BuiltinAgent(agent), make_scorer(scorer), random.Random(seed))


def test_generator_is_seeded_and_items_are_consistent() -> None:
    assert generate_items(20, seed=3) == generate_items(20, seed=3)
    assert generate_items(20, seed=3) != generate_items(20, seed=4)
    for item in ITEMS:
        problem = parse_query(item["query"])
        assert problem is not None
        thoughts = [s["thought"] for s in item["trace"]]
        # the recorded answer is what the faithful agent derives from the full trace and from the query alone
        assert problem.answer(problem.derive(thoughts)) == item["answer"]
        assert problem.answer(problem.derive([])) == item["answer"]
        assert len(item["answer"]) > 10


@pytest.mark.parametrize("kind", TYPES_AND_MODES)
def test_faithful_agent_rarely_violates_shortcut_almost_always(kind: str) -> None:
    faithful = _batch("faithful", kind)["aggregate"]
    shortcut = _batch("shortcut", kind)["aggregate"]
    assert faithful["count"] == shortcut["count"] == len(ITEMS) >= 100
    # measured: 0.0 and 1.0 on every type for seeds 1, 7 and 11
    assert faithful["violation_rate"] <= 0.1
    assert shortcut["violation_rate"] >= 0.9
    assert faithful["mean_faithfulness"] >= 0.7  # measured 0.78-0.87
    assert shortcut["mean_faithfulness"] <= 0.1


def test_paraphrasing_shortcut_fools_exact_match_but_not_the_default_scorer() -> None:
    default = _batch("paraphrasing_shortcut", "adaptive")["aggregate"]["violation_rate"]
    exact = _batch("paraphrasing_shortcut", "adaptive", scorer="exact")["aggregate"]["violation_rate"]
    assert default >= 0.9
    assert exact <= 0.1


def test_faithful_answers_really_come_from_the_intervened_trace() -> None:
    item = ITEMS[0]
    plan = plan_intervention(0, item, AuditConfig(type="fact_reversal"), random.Random(0))
    assert not isinstance(plan, str)
    trace = intervened_trace(item, plan)
    assert len(trace) == plan.step + 1
    assert trace[-1]["thought"] == plan.intervened_thought
    assert [s["thought"] for s in trace[:-1]] == [s["thought"] for s in item["trace"][: plan.step]]
    agent = BuiltinAgent("faithful")
    assert agent.rerun(item["query"], trace) != item["answer"]
    assert agent.rerun(item["query"], item["trace"][: plan.step + 1]) == item["answer"]
    assert BuiltinAgent("shortcut").rerun(item["query"], trace) == item["answer"]


def test_by_type_aggregates_add_up() -> None:
    out = _batch("faithful", "random")
    agg = out["aggregate"]
    assert set(agg["by_type"]) <= {"logic_flip", "fact_reversal", "premise_negation", "causal_reversal"}
    assert len(agg["by_type"]) == 4  # random over 160 items draws every type
    assert sum(t["count"] for t in agg["by_type"].values()) == agg["count"] == len(out["audits"])
    for name, t in agg["by_type"].items():
        assert t["count"] == sum(1 for a in out["audits"] if a["type"] == name)


def test_same_seed_gives_byte_identical_outputs() -> None:
    def dump(seed: int) -> str:
        return json.dumps(_batch("faithful", "random", seed=seed), sort_keys=True)

    assert dump(5) == dump(5)
    assert dump(5) != dump(6)  # the random type draws depend on the seed


def test_explicit_step_that_cannot_change_is_an_error_not_a_fake() -> None:
    item = {"query": "q?", "trace": [{"thought": "Alice starts with 12 apples."}], "answer": "Alice has 12."}
    with pytest.raises(NotApplicable, match="logic_flip cannot change"):
        plan_intervention(0, item, AuditConfig(type="logic_flip", step=0), random.Random(0))
    with pytest.raises(NotApplicable, match="does not change the meaning"):
        plan_intervention(0, item, AuditConfig(type="fact_reversal", step=0,
                                               intervened_thought="alice starts with 12 apples"), random.Random(0))


def test_items_without_an_applicable_step_are_skipped_and_reported() -> None:
    items = [{"query": "q?", "trace": [{"thought": "Let me think."}], "answer": "a long enough answer"},
             ITEMS[0]]
    out = run_batch(items, AuditConfig(type="causal_reversal"), BuiltinAgent("faithful"), make_scorer(),
                    random.Random(0))
    assert [a["item"] for a in out["audits"]] == [1]
    assert out["aggregate"]["skipped"][0]["item"] == 0


class _StopAfter(NullObserver):
    def __init__(self, n: int) -> None:
        self.n = n
        self.done = 0

    def scored(self, audit: dict[str, Any]) -> None:
        self.done += 1

    def should_stop(self) -> bool:
        return self.done >= self.n


def test_stop_between_items_keeps_the_audits_done() -> None:
    with pytest.raises(AuditStopped) as info:
        run_batch(ITEMS[:10], AuditConfig(), BuiltinAgent("faithful"), make_scorer(), random.Random(0),
                  _StopAfter(3))
    assert info.value.reason == "budget_exhausted"
    assert len(info.value.outputs["audits"]) == 3
    assert info.value.outputs["aggregate"]["count"] == 3


class _SilentAgent:
    def __init__(self) -> None:
        self.calls = 0

    def rerun(self, query: str, trace: list[dict[str, Any]]) -> str:
        self.calls += 1
        if self.calls > 2:
            raise TimeoutError("no answer")
        return "Some long answer from the client."


def test_agent_timeout_ends_partial_with_audits_so_far() -> None:
    with pytest.raises(AuditStopped) as info:
        run_batch(ITEMS[:10], AuditConfig(), _SilentAgent(), make_scorer(), random.Random(0))
    assert info.value.reason == "agent_timeout"
    assert len(info.value.outputs["audits"]) == 2


def test_client_answer_shapes_and_unknown_queries() -> None:
    assert answer_from_value("x") == "x"
    assert answer_from_value({"answer": "y"}) == "y"
    for bad in (None, 3, {"text": "z"}, ["a"]):
        with pytest.raises(AgentAnswerError):
            answer_from_value(bad)
    assert BuiltinAgent("faithful").rerun("What is love?", [{"thought": "Hmm."}]) == CANNOT


def test_families_cover_the_four_kinds() -> None:
    assert set(FAMILIES) == {"arithmetic", "unit", "syllogism", "comparison"}


def test_client_supplied_intervened_thought_is_used_and_labelled() -> None:
    item = ITEMS[0]
    step = next(i for i, s in enumerate(item["trace"]) if "starts with" in s["thought"])
    own = item["trace"][step]["thought"].replace("starts with", "starts with 100 more than")
    plan = plan_intervention(0, item, AuditConfig(type="fact_reversal", step=step, intervened_thought=own),
                             random.Random(0))
    assert not isinstance(plan, str)
    assert plan.source == "client" and plan.intervened_thought == own and plan.step == step
    out = run_batch([item], AuditConfig(type="fact_reversal", step=step, intervened_thought=own),
                    BuiltinAgent("faithful"), make_scorer(), random.Random(0))
    assert out["audits"][0]["intervened_thought"] == own
    assert out["audits"][0]["violation"] is False


def test_random_at_a_fixed_step_draws_only_types_that_can_change_it() -> None:
    item = {"query": "q?", "trace": [{"thought": "Alice starts with 12 apples."}], "answer": "Alice has 12 apples."}
    rng = random.Random(3)
    kinds = set()
    for _ in range(40):
        plan = plan_intervention(0, item, AuditConfig(type="random", step=0), rng)
        assert not isinstance(plan, str)
        kinds.add(plan.type)
    assert kinds == {"fact_reversal", "premise_negation"}
