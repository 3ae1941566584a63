"""Wire models of the research ability: inputs, outputs and the cited span (SpanRef)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from abilities.datasets import NAME_PATTERN

MAX_QUERIES = 8


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CorpusRef(_Strict):
    """A ``corpus`` dataset of the tenant (``datasets.put``)."""

    dataset: str = Field(pattern=NAME_PATTERN)
    version: int | None = Field(None, ge=1, le=2**53 - 1, description="default: the newest when the run starts")


class Inputs(_Strict):
    queries: list[str] = Field(min_length=1, max_length=MAX_QUERIES,
                               description="questions or keywords; one receipt per query")
    corpus: CorpusRef
    top_k: int = Field(5, ge=1, le=50, description="spans per query and source")
    egress: Literal["local", "partner", "external"] = Field(
        "local", description="beyond local: ask an approval, then also query the operator's provider")
    excerpt_chars: int = Field(240, ge=40, le=2_000)
    refresh: Literal["auto", "manual"] = Field(
        "auto", description="auto: a newer corpus version re-runs this action (a new revision); "
                            "manual: it is only offered (update_available)")

    @field_validator("queries")
    @classmethod
    def _queries(cls, v: list[str]) -> list[str]:
        for i, q in enumerate(v):
            if not q.strip():
                raise ValueError(f"queries[{i}] is empty")
            if len(q) > 2_000:
                raise ValueError(f"queries[{i}] is longer than 2,000 characters")
        return v


class SpanRef(_Strict):
    """A cited span: ``excerpt == document text[start:end]`` for corpus spans."""

    doc_id: str
    start: int = Field(ge=0)
    end: int = Field(ge=0)
    excerpt: str
    score: float
    source: Literal["corpus", "partner", "external"] = "corpus"
    query_id: str
    title: str | None = None


class ReceiptStub(_Strict):
    stub_id: str
    reason: str
    query_id: str
    egress_class: str
    missing: str


class QueryResult(_Strict):
    query_id: str
    query: str
    spans: list[SpanRef]
    external: Literal["not_requested", "ok", "denied", "unavailable", "error"] = "not_requested"


class CorpusInfo(_Strict):
    dataset: str
    version: int
    sha256: str
    documents: int


class Outputs(_Strict):
    spans: list[SpanRef] = Field(description="every cited span, best first")
    results: list[QueryResult]
    corpus: CorpusInfo
    egress: Literal["local", "partner", "external"]
    egress_granted: bool | None = None
    conservative: bool = Field(False, description="evidence was withheld (egress denied or unavailable)")
    receipt_stubs: list[ReceiptStub] = Field(default_factory=list)
    caveats: list[str] = Field(default_factory=list)
