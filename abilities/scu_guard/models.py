"""Inputs and outputs of ``scu_guard`` (pydantic), with the size bounds the service enforces.

Bad input is refused here, at ``actions.start`` (-32602 naming the field), so it never reaches
``run``: an empty constraint list, duplicate chunk ids, text over the caps, strings that are not
valid Unicode (lone surrogates cannot be UTF-8 encoded for the lock hash).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from abilities.scu_guard.form_types import Form

MAX_CONSTRAINTS = 100
MAX_CONSTRAINT_CHARS = 2_000
MAX_QUESTION_CHARS = 20_000
MAX_CHUNKS = 1_000
MAX_CHUNK_ID_CHARS = 200
MAX_TOTAL_CHUNK_CHARS = 1_000_000  # all chunk texts together: 1 MB of text
MAX_CLAIM_CHARS = 100_000
MAX_ANSWER_CHARS = 200_000
MAX_CITATIONS = 200
MAX_TOP_K = 100


def _utf8(value: str, what: str) -> str:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError(f"{what} is not valid UTF-8 text (lone surrogate at {exc.start})") from None
    return value


class Chunk(BaseModel):
    """One evidence chunk: a unique id and its text."""

    model_config = ConfigDict(extra="forbid")
    id: str = Field(min_length=1, max_length=MAX_CHUNK_ID_CHARS)
    text: str = Field(max_length=MAX_TOTAL_CHUNK_CHARS)

    @field_validator("id", "text")
    @classmethod
    def _valid_text(cls, v: str) -> str:
        return _utf8(v, "chunk field")


class Answer(BaseModel):
    """The structured answer the SCU contract asks for: claim, citations, constraints echo."""

    model_config = ConfigDict(extra="forbid")
    claim: str = Field(max_length=MAX_CLAIM_CHARS)
    citations: list[str] = Field(default_factory=list, max_length=MAX_CITATIONS)
    constraints_echo: list[str] = Field(default_factory=list, max_length=MAX_CONSTRAINTS * 2)

    @field_validator("claim")
    @classmethod
    def _claim_utf8(cls, v: str) -> str:
        return _utf8(v, "answer.claim")

    @field_validator("citations", "constraints_echo")
    @classmethod
    def _list_utf8(cls, v: list[str]) -> list[str]:
        for item in v:
            _utf8(item, "answer list item")
            if len(item) > MAX_CONSTRAINT_CHARS:
                raise ValueError(f"answer list item longer than {MAX_CONSTRAINT_CHARS} characters")
        return v


class Inputs(BaseModel):
    """``{constraints, question, chunks, answer?, top_k?}``."""

    model_config = ConfigDict(extra="forbid")
    constraints: list[str] = Field(min_length=1, max_length=MAX_CONSTRAINTS)
    question: str = Field(min_length=1, max_length=MAX_QUESTION_CHARS)
    chunks: list[Chunk] = Field(default_factory=list, max_length=MAX_CHUNKS)
    answer: Answer | str | None = None
    top_k: int = Field(default=6, ge=1, le=MAX_TOP_K)
    forms: list[Form] = Field(default_factory=list, max_length=MAX_CONSTRAINTS)

    @model_validator(mode="after")
    def _forms_name_constraints(self) -> Inputs:
        texts = {c.strip() for c in self.constraints}
        for i, f in enumerate(self.forms):
            if f.text.strip() not in texts:
                raise ValueError(f"forms[{i}].text is not one of the constraints")
            f.text = f.text.strip()
        return self

    @field_validator("constraints")
    @classmethod
    def _constraints(cls, v: list[str]) -> list[str]:
        if not any(c.strip() for c in v):
            raise ValueError("constraints must contain at least one non-empty constraint")
        for i, c in enumerate(v):
            if len(c) > MAX_CONSTRAINT_CHARS:
                raise ValueError(f"constraints[{i}] is longer than {MAX_CONSTRAINT_CHARS} characters")
            _utf8(c, f"constraints[{i}]")
        return v

    @field_validator("question")
    @classmethod
    def _question(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("question must not be blank")
        return _utf8(v, "question")

    @field_validator("chunks")
    @classmethod
    def _chunks(cls, v: list[Chunk]) -> list[Chunk]:
        seen: set[str] = set()
        total = 0
        for c in v:
            if c.id in seen:
                raise ValueError(f"chunks has a duplicate id {c.id[:60]!r}")
            seen.add(c.id)
            total += len(c.text)
        if total > MAX_TOTAL_CHUNK_CHARS:
            raise ValueError(f"chunks hold {total} characters of text; the limit is {MAX_TOTAL_CHUNK_CHARS}")
        return v

    @field_validator("answer")
    @classmethod
    def _answer(cls, v: Answer | str | None) -> Answer | str | None:
        if isinstance(v, str):
            if len(v) > MAX_ANSWER_CHARS:
                raise ValueError(f"answer is longer than {MAX_ANSWER_CHARS} characters")
            _utf8(v, "answer")
        return v


class ClaimSpan(BaseModel):
    """Where in the claim a contradiction sits (character offsets, end exclusive)."""

    start: int
    end: int
    text: str


class Contradiction(BaseModel):
    """A claim span that contradicts a locked constraint, and the rule kind that fired."""

    constraint: str
    claim_span: ClaimSpan
    rule: str


class Lock(BaseModel):
    """The normalized constraints and their SHA-256 (16-hex short hash and the full digest)."""

    constraints: list[str]
    hash: str
    hash_full: str


Verdict = Literal["OK", "REJECT", "REFUSAL", "REVIEW"]
Reason = Literal[
    "ok",
    "suspected_contradiction",
    "no_json",
    "citation_scope",
    "constraints_echo_mismatch",
    "constraint_contradiction",
    "not_in_context",
]


class Outputs(BaseModel):
    """``{verdict, reason, lock, ctx_ids, contradictions, suspected, understood, unparsed_constraints, prompt?}``.

    ``understood`` is how each machine-checked constraint was read; ``unparsed_constraints`` are those
    only the lexicon detector checks."""

    verdict: Verdict
    reason: Reason
    lock: Lock
    ctx_ids: list[str]
    contradictions: list[Contradiction] = Field(default_factory=list)
    suspected: list[Contradiction] = Field(default_factory=list)
    understood: list[Form] = Field(default_factory=list)
    unparsed_constraints: list[str] = Field(default_factory=list)
    prompt: str | None = None
