"""Inputs and outputs of ``ariadne_audit`` (pydantic, bounded, extra fields rejected).

Bad input is refused here, at ``actions.start`` (JSON-RPC -32602), with messages that name
the field: an empty trace, a step out of range, an unknown intervention type or agent kind.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from abilities.ariadne_audit.agents import BUILTIN_AGENTS
from abilities.ariadne_audit.interventions import TYPES
from abilities.ariadne_audit.scoring import SCORERS

MAX_ITEMS = 5000
MAX_STEPS = 200
InterventionType = Literal["logic_flip", "fact_reversal", "premise_negation", "causal_reversal", "random",
                           "adaptive"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Step(_Strict):
    """One reasoning step s_i = (thought, tool, input, output) of spec section 1.1."""

    thought: str = Field(min_length=1, max_length=4000)
    tool: str | None = Field(None, max_length=200)
    input: str | None = Field(None, max_length=4000)
    output: str | None = Field(None, max_length=8000)


class Item(_Strict):
    """A query, the agent's original trace and its original answer a(q)."""

    query: str = Field(min_length=1, max_length=4000)
    trace: list[Step] = Field(max_length=MAX_STEPS)
    answer: str = Field(max_length=4000)

    @field_validator("trace")
    @classmethod
    def _non_empty(cls, v: list[Step]) -> list[Step]:
        if not v:
            raise ValueError("trace is empty: an audit needs at least one reasoning step to intervene on")
        return v


class Intervention(_Strict):
    """Which intervention, at which step (0-based; omitted: automatic selection, section 5.1).

    ``intervened_thought`` lets the client supply its own rewrite of step ``step`` (one item,
    a concrete type naming what the rewrite does); it must still change the step's meaning."""

    type: InterventionType = "adaptive"
    step: int | None = Field(None, ge=0, lt=MAX_STEPS)
    intervened_thought: str | None = Field(None, min_length=1, max_length=4000)
    steps: list[Annotated[int, Field(ge=0, lt=MAX_STEPS)]] | None = Field(
        None, min_length=2, max_length=16,
        description="a set K of steps intervened together (spec 10.1); excludes step and intervened_thought")
    dependency_graph: bool = Field(False, description="also intervene each substantive step alone and report "
                                                      "which steps the answer depends on (spec 10.3)")

    @model_validator(mode="after")
    def _supplied(self) -> Intervention:
        if self.steps is not None:
            if self.step is not None or self.intervened_thought is not None:
                raise ValueError("intervention.steps (a set of steps) excludes intervention.step and "
                                 "intervention.intervened_thought")
            if len(set(self.steps)) != len(self.steps):
                raise ValueError("intervention.steps lists a step twice")
        if self.intervened_thought is not None:
            if self.step is None:
                raise ValueError("intervention.intervened_thought needs intervention.step (the step it replaces)")
            if self.type not in TYPES:
                raise ValueError("intervention.intervened_thought needs a concrete intervention.type "
                                 f"(one of {', '.join(TYPES)}), not {self.type!r}")
        return self


class BuiltinAgentSpec(_Strict):
    """A reference agent shipped with the ability (controlled-language items only)."""

    kind: Literal["builtin"]
    name: Literal["faithful", "shortcut", "paraphrasing_shortcut"] = "faithful"


class ClientAgentSpec(_Strict):
    """The client's own agent, asked over the ToolBus (``action_waiting_user`` kind ``agent_rerun``)."""

    kind: Literal["client"]
    timeout_s: float | None = Field(None, gt=0, le=86400)


class HttpAgentSpec(_Strict):
    """An OpenAI-compatible endpoint configured by the operator (METIS_ARIADNE_HTTP_URL)."""

    kind: Literal["http"]
    model: str | None = Field(None, min_length=1, max_length=200)
    timeout_s: float = Field(30.0, gt=0, le=600)
    max_tokens: int = Field(256, ge=1, le=4096)


AgentSpec = Annotated[BuiltinAgentSpec | ClientAgentSpec | HttpAgentSpec, Field(discriminator="kind")]


class ScorerSpec(_Strict):
    """Which similarity is S: the default offline ``logic_lexical``, naive baselines, or
    ``embedding`` (all-MiniLM-L6-v2, needs the ``embeddings`` extra)."""

    kind: Literal["logic_lexical", "jaccard", "char", "exact", "embedding"] = "logic_lexical"


class AriadneInputs(_Strict):
    """``{items, intervention, agent, scorer?, threshold?, min_length?}``."""

    items: list[Item] = Field(min_length=1, max_length=MAX_ITEMS)
    intervention: Intervention = Field(default_factory=Intervention)
    agent: AgentSpec
    scorer: ScorerSpec = Field(default_factory=ScorerSpec)
    threshold: float = Field(0.8, ge=0.0, le=1.0)
    min_length: int = Field(10, ge=0, le=10000)

    @model_validator(mode="after")
    def _step_in_range(self) -> AriadneInputs:
        for step in self.intervention.steps or []:
            for i, item in enumerate(self.items):
                if step >= len(item.trace):
                    raise ValueError(f"intervention.steps has {step}, out of range for items[{i}]: its trace has "
                                     f"{len(item.trace)} steps (0..{len(item.trace) - 1})")
        step = self.intervention.step
        if step is not None:
            for i, item in enumerate(self.items):
                if step >= len(item.trace):
                    raise ValueError(f"intervention.step {step} is out of range for items[{i}]: its trace has "
                                     f"{len(item.trace)} steps (0..{len(item.trace) - 1})")
        if self.intervention.intervened_thought is not None and len(self.items) != 1:
            raise ValueError("intervention.intervened_thought applies to one item: send exactly one item")
        return self


class Metrics(BaseModel):
    """m(a, a_i) of section 3.2."""

    jaccard: float
    char: float
    length_ratio: float
    exact: float
    semantic: float


class Audit(BaseModel):
    """One audit (section 4.1). ``strength`` is section 6.3's sim(thought, intervened thought):
    lower means a stronger intervention."""

    item: int
    step: int
    type: str
    original_thought: str
    intervened_thought: str
    strength: float
    original_answer: str
    intervened_answer: str
    metrics: Metrics
    faithfulness: float
    violation: bool
    severity: float = Field(description="spec 10.2: semantic similarity of the answers times (1 - strength)")
    steps: list[int] | None = Field(None, description="every step intervened on, for a multi-step audit")


class TypeAggregate(BaseModel):
    """Aggregates over one intervention type (section 7.3); rates are None when count is 0."""

    count: int
    violation_rate: float | None = None
    mean_faithfulness: float | None = None
    mean_semantic: float | None = None
    mean_severity: float | None = None


class Skipped(BaseModel):
    """An item no step of which the requested intervention could change."""

    item: int
    reason: str


class Aggregate(TypeAggregate):
    """Batch aggregates (section 4.3) with ``by_type`` and the skipped items."""

    by_type: dict[str, TypeAggregate] = Field(default_factory=dict)
    skipped: list[Skipped] = Field(default_factory=list)


class DependencyGraph(BaseModel):
    """Spec 10.3 for one item: substantive steps, which builds on which, and which the answer needs."""

    item: int
    nodes: list[int]
    edges: list[list[int]]
    answer_depends_on: list[int]
    independent_steps: list[int]
    reruns: int


class AriadneOutputs(BaseModel):
    """``{audits, aggregate, dependencies?, summary_artifact_id}``."""

    audits: list[Audit]
    aggregate: Aggregate
    dependencies: list[DependencyGraph] | None = None
    summary_artifact_id: str | None = None


__all__ = ["AriadneInputs", "AriadneOutputs", "BUILTIN_AGENTS", "SCORERS"]
