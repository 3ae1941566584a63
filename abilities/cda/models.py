"""Wire models of the cda ability (spec §2): inputs, outputs and the DisplayPlan.

Every input model forbids unknown fields and bounds its sizes, so bad input is rejected by the
orchestrator at ``actions.start`` (JSON-RPC -32602 naming the field) and never reaches ``run``.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    AliasChoices,
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    field_validator,
    model_validator,
)

from abilities.cda import signals  # noqa: E402
from abilities.cda.dsl import DSLError, Prefer, atoms_of, parse_clause  # noqa: E402

MAX_OBSERVATIONS = 500
MAX_CLAUSES = 64
MAX_CLAUSE_CHARS = 2_000
MAX_INLINE_NODES = 100_000
MAX_INLINE_EDGES = 200_000
NODE_PREFIXES = ("entity:", "event:", "metric:", "hyp:")

_ID = Annotated[str, Field(min_length=1, max_length=256)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SpanRef(_Strict):
    """A pointer into a source document (Weave span): where a piece of evidence was read."""

    doc_id: _ID
    start: int = Field(ge=0, le=10**12)
    end: int = Field(ge=0, le=10**12)
    excerpt: str = Field(default="", max_length=2_000)

    @model_validator(mode="after")
    def _ordered(self) -> SpanRef:
        if self.end < self.start:
            raise ValueError("end must be >= start")
        return self


class ArtifactRef(_Strict):
    """A reference to a stored artifact (e.g. another action's evidence bundle)."""

    artifact_id: _ID


class InlineObservation(_Strict):
    """One observed fact: ``predicate(entity) = value`` at ``timestamp`` (seconds), with its source."""

    entity: _ID
    predicate: str = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    value: bool | int | float | str | None = True
    timestamp: int | float | None = Field(default=None, ge=0, le=10**11)
    source: SpanRef | None = None
    threshold: float | None = Field(default=None, allow_inf_nan=False,
                                    description="a numeric value beyond it (see direction) is a symptom")
    baseline: float | None = Field(default=None, allow_inf_nan=False,
                                   description="a numeric value deviating from it by more than tolerance is a symptom")
    direction: Literal["above", "below"] = Field(default="above", description="which side of the threshold or "
                                                 "baseline is bad")
    tolerance: float | None = Field(default=None, ge=0, le=1000, allow_inf_nan=False,
                                    description="relative deviation from the baseline still normal (default 0.2)")

    @field_validator("entity")
    @classmethod
    def _typed(cls, v: str) -> str:
        if not v.startswith(NODE_PREFIXES):
            raise ValueError(f"entity must be a Ken node id starting with one of {', '.join(NODE_PREFIXES)}")
        return v

    @field_validator("value")
    @classmethod
    def _short(cls, v: Any) -> Any:
        if isinstance(v, str) and len(v) > 256:
            raise ValueError("value string longer than 256 characters")
        return v


def _observation_kind(v: Any) -> str:
    if isinstance(v, dict):
        if "artifact_id" in v:
            return "artifact"
        if "doc_id" in v:
            return "span"
        return "inline"
    if isinstance(v, ArtifactRef):
        return "artifact"
    if isinstance(v, SpanRef):
        return "span"
    return "inline"


Observation = Annotated[
    Annotated[SpanRef, Tag("span")] | Annotated[ArtifactRef, Tag("artifact")]
    | Annotated[InlineObservation, Tag("inline")],
    Discriminator(_observation_kind),
]


class Goals(_Strict):
    """What the abduction is for; success criteria are DSL clauses checked for entailment."""

    kind: Literal["best_explanation", "prove", "disprove", "plan"] = "best_explanation"
    success_criteria: list[Annotated[str, Field(max_length=MAX_CLAUSE_CHARS)]] | None = Field(
        default=None, max_length=16
    )

    @field_validator("success_criteria")
    @classmethod
    def _parse(cls, v: list[str] | None) -> list[str] | None:
        for i, clause in enumerate(v or []):
            try:
                parse_clause(clause)
            except DSLError as exc:
                raise ValueError(f"success_criteria[{i}]: DSL syntax error at {exc}") from None
        return v


def _check_hard(clause: str) -> str:
    try:
        parsed = parse_clause(clause)
    except DSLError as exc:
        raise ValueError(f"DSL syntax error at {exc}") from None
    if isinstance(parsed, Prefer):
        raise ValueError("prefer(...) is a soft clause; put it under constraints.soft")
    return clause


HardClause = Annotated[str, Field(max_length=MAX_CLAUSE_CHARS), AfterValidator(_check_hard)]


class SoftClause(_Strict):
    clause: str = Field(min_length=1, max_length=MAX_CLAUSE_CHARS)
    weight: float | None = Field(default=None, ge=0.0, le=100.0)

    @field_validator("clause")
    @classmethod
    def _parse(cls, v: str) -> str:
        try:
            parse_clause(v)
        except DSLError as exc:
            raise ValueError(f"DSL syntax error at {exc}") from None
        return v


class Constraints(_Strict):
    """DSL clauses (§3); each is parsed here so a syntax error names the field, line and column."""

    hard: list[HardClause] | None = Field(default=None, max_length=MAX_CLAUSES)
    soft: list[SoftClause] | None = Field(default=None, max_length=MAX_CLAUSES)


class Policies(_Strict):
    pii_posture: Literal["on", "off", "consent"] = "on"
    egress: Literal["local", "partner", "external"] = "local"


class Budgets(_Strict):
    tokens: int | None = Field(default=None, ge=0, le=10**9)
    wall: float | None = Field(default=None, gt=0, le=86_400)


class SeedSpec(_Strict):
    purpose: str | None = Field(default=None, max_length=256)


class KenNode(_Strict):
    id: _ID
    attrs: dict[str, Any] = Field(default_factory=dict)

    @field_validator("id")
    @classmethod
    def _typed(cls, v: str) -> str:
        if not v.startswith(NODE_PREFIXES):
            raise ValueError(f"unknown node type in {v!r}: ids start with one of {', '.join(NODE_PREFIXES)}")
        return v


class KenEdge(_Strict):
    src: _ID
    dst: _ID
    type: str = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    attrs: dict[str, Any] = Field(default_factory=dict)


class KenGraph(_Strict):
    """An inline Ken graph (bounded); larger graphs are loaded from the tenant's data dir."""

    nodes: list[KenNode] = Field(default_factory=list)
    edges: list[KenEdge] = Field(default_factory=list)

    @field_validator("nodes", mode="before")
    @classmethod
    def _cap_nodes(cls, v: Any) -> Any:
        if isinstance(v, list) and len(v) > MAX_INLINE_NODES:
            raise ValueError(f"inline graph has {len(v)} nodes; the cap is {MAX_INLINE_NODES} (load it from the data dir)")
        return v

    @field_validator("edges", mode="before")
    @classmethod
    def _cap_edges(cls, v: Any) -> Any:
        if isinstance(v, list) and len(v) > MAX_INLINE_EDGES:
            raise ValueError(f"inline graph has {len(v)} edges; the cap is {MAX_INLINE_EDGES} (load it from the data dir)")
        return v


class KenSource(_Strict):
    """Where Ken comes from: an inline graph and/or a named graph file of the tenant."""

    graph: KenGraph | None = None
    dataset: str | None = Field(default=None, max_length=128, pattern=r"^[A-Za-z0-9_.-]+$",
                                description="a `ken` dataset of the tenant (datasets.put)")
    version: int | None = Field(default=None, ge=1, le=2**53 - 1,
                                description="that dataset's version (default: the newest when the run starts)")

    @field_validator("version")
    @classmethod
    def _needs_dataset(cls, v: int | None, info: Any) -> int | None:
        if v is not None and not info.data.get("dataset"):
            raise ValueError("version needs a dataset")
        return v


class ResearchSpec(_Strict):
    """Where cda's ``research`` sub-actions search: a ``corpus`` dataset of the tenant."""

    corpus: str = Field(max_length=128, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
    version: int | None = Field(default=None, ge=1, le=2**53 - 1)
    top_k: int = Field(default=3, ge=1, le=10)


class CDAInputs(_Strict):
    """Action inputs (spec §2.1), plus ``ken`` (where the graph comes from) and the §13 alias."""

    problem: str = Field(min_length=1, max_length=8_000)
    observations: list[Observation] = Field(default_factory=list, max_length=MAX_OBSERVATIONS)
    goals: Goals = Field(default_factory=Goals)
    constraints: Constraints = Field(default_factory=Constraints)
    policies: Policies = Field(default_factory=Policies)
    budgets: Budgets = Field(default_factory=Budgets)
    risk_class: Literal["low", "medium", "high", "hard"] = "low"
    seed: SeedSpec = Field(default_factory=SeedSpec)
    ken: KenSource | None = None
    research: ResearchSpec | None = Field(
        default=None, description="a corpus for the `research` sub-actions next tests may spawn (escalation)")
    action_id: str | None = Field(
        default=None, max_length=128, validation_alias=AliasChoices("action_id", "work_unit_id"),
        description="legacy correlation id; `work_unit_id` is accepted as an alias (spec §13)",
    )
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    def constraint_predicates(self) -> frozenset[str]:
        """Predicates the constraints and success criteria refer to: observations of them are facts."""
        texts = [*(self.constraints.hard or []), *(c.clause for c in self.constraints.soft or []),
                 *(self.goals.success_criteria or [])]
        return frozenset(atom.pred for text in texts for atom in atoms_of(parse_clause(text)))

    @model_validator(mode="after")
    def _every_observation_counts(self) -> CDAInputs:
        """Each inline observation must count by a documented rule (signals.py); none is dropped."""
        preds = self.constraint_predicates()
        for i, o in enumerate(self.observations):
            if isinstance(o, InlineObservation):
                try:
                    signals.read_observation(o, preds)
                except signals.ObservationRuleError as exc:
                    raise ValueError(f"observations[{i}]: {exc}") from None
        return self


class Verdict(_Strict):
    hypothesis_id: str
    status: Literal["supported", "refuted", "inconclusive"]
    confidence: float = Field(ge=0.0, le=1.0)


class NextTest(_Strict):
    question: str
    suggested_ability: Literal["research", "sandbox", "default"] | None = None
    expected_discriminative_power: float | None = None


class DisplayPrimary(_Strict):
    kind: Literal["summary"] = "summary"
    id_ref: Literal["summary_artifact_id"] = "summary_artifact_id"


class DisplayPlan(_Strict):
    """Client hints (spec §2.3): the boundary summary is primary; receipts/context via chips."""

    primary: DisplayPrimary = Field(default_factory=DisplayPrimary)
    chips: list[str] = Field(default_factory=lambda: ["receipts", "context_pack"])
    drawers: dict[str, bool] = Field(default_factory=lambda: {"integrity": True})


class CDAOutputs(BaseModel):
    """Action outputs (spec §2.2); boundary-only: ids, verdicts, next tests, never traces."""

    model_config = ConfigDict(extra="forbid")
    summary_artifact_id: str
    plan_bundle_id: str | None = None
    evidence_bundle_id: str | None = None
    verdicts: list[Verdict] = Field(default_factory=list)
    next_tests: list[NextTest] = Field(default_factory=list)
    display: DisplayPlan = Field(default_factory=DisplayPlan)
    incomplete: bool = False
    caveats: list[str] = Field(default_factory=list)
