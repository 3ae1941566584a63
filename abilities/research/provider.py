"""The provider adapter: where research sends a query when egress is approved.

One interface (``Provider.search``); one implementation, an HTTP provider the operator configures
with ``METIS_RESEARCH_PROVIDER_URL`` (and optionally ``METIS_RESEARCH_PROVIDER_TOKEN``, sent as a
bearer token). The request is ``POST <url>`` with ``{"query", "top_k", "egress_class"}``; the
answer must be ``{"results": [{"doc_id", "start", "end", "excerpt", "score", "title"?}]}``. Its
content is untrusted: it is validated, bounded, and only ever cited, never executed.
"""

from __future__ import annotations

import os
from typing import Protocol
from urllib.parse import urlsplit

import httpx
from pydantic import BaseModel, ConfigDict, Field, ValidationError


class ProviderError(Exception):
    """The provider could not answer (``status``: ``unavailable`` or ``error``)."""

    def __init__(self, status: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class ProviderHit(BaseModel):
    model_config = ConfigDict(extra="ignore")
    doc_id: str = Field(min_length=1, max_length=256)
    start: int = Field(ge=0, le=10**12)
    end: int = Field(ge=0, le=10**12)
    excerpt: str = Field(max_length=20_000)
    score: float = Field(allow_inf_nan=False)
    title: str | None = Field(None, max_length=1_000)


class ProviderAnswer(BaseModel):
    model_config = ConfigDict(extra="ignore")
    results: list[ProviderHit] = Field(max_length=200)


class Provider(Protocol):
    name: str

    def search(self, query: str, top_k: int, egress_class: str) -> list[ProviderHit]: ...


class HttpProvider:
    """A JSON-over-HTTP provider; ``name`` is its host (what receipts and approvals show)."""

    def __init__(self, url: str, token: str | None = None, timeout_s: float = 10.0) -> None:
        self.url = url
        self.name = urlsplit(url).netloc or url
        self.token = token
        self.timeout_s = timeout_s

    def search(self, query: str, top_k: int, egress_class: str) -> list[ProviderHit]:
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        try:
            resp = httpx.post(self.url, json={"query": query, "top_k": top_k, "egress_class": egress_class},
                              headers=headers, timeout=self.timeout_s)
        except httpx.HTTPError as exc:
            raise ProviderError("unavailable", f"{type(exc).__name__}: {exc}"[:300]) from None
        if resp.status_code != 200:
            raise ProviderError("error", f"HTTP {resp.status_code}")
        try:
            answer = ProviderAnswer.model_validate(resp.json())
        except (ValidationError, ValueError) as exc:
            raise ProviderError("error", f"malformed answer: {str(exc)[:200]}") from None
        return answer.results[:top_k]


def from_env() -> Provider | None:
    """The operator's provider, or None when none is configured."""
    url = os.environ.get("METIS_RESEARCH_PROVIDER_URL", "").strip()
    if not url:
        return None
    return HttpProvider(url, os.environ.get("METIS_RESEARCH_PROVIDER_TOKEN") or None,
                        float(os.environ.get("METIS_RESEARCH_PROVIDER_TIMEOUT_S", "10")))
