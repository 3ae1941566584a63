"""The research ability: cited spans from the tenant's corpus, and approved egress to a provider.

Every query is a ``research_query`` receipt (corpus version and hash, the spans found). With
``egress`` beyond ``local`` the action first asks for an approval (approvals-as-input, like cda's
egress); granted, each query also goes to the operator's provider and is a
``research_provider_call`` receipt; denied, unanswered or without a provider, the result is
conservative: the corpus spans only, a ``receipt_stub`` per query for the evidence withheld, and a
caveat (cda spec §12 scenario 3).
"""

from __future__ import annotations

import hashlib
import hmac
from typing import TYPE_CHECKING, Any

from abilities import datasets
from abilities.base import Ability, AbilityError
from abilities.research.models import (
    CorpusInfo,
    Inputs,
    Outputs,
    QueryResult,
    ReceiptStub,
    SpanRef,
)

if TYPE_CHECKING:  # BM25 (numpy) and the provider's HTTP client load in the worker only
    from abilities.research.search import CorpusIndex

_INDEX: dict[str, CorpusIndex] = {}


def index_for(found: datasets.Resolved) -> CorpusIndex:
    """The BM25 index of a corpus version (versions are immutable: cached by hash in the worker)."""
    from abilities.research.search import CorpusIndex

    if found.sha256 not in _INDEX:
        _INDEX.clear()
        _INDEX[found.sha256] = CorpusIndex(datasets.load(found))
    return _INDEX[found.sha256]


def granted(answer: Any) -> bool:
    """Only an explicit grant counts; anything else (a denial, nonsense, no answer) denies."""
    return answer is True or (isinstance(answer, dict) and answer.get("granted") is True)


class ResearchAbility(Ability):
    name = "research"
    version = "0.1.0"
    description = ("Searches the tenant's corpus (datasets.put kind corpus) with BM25 and returns cited spans "
                   "with a receipt per query; partner/external egress only after an approval, through the "
                   "operator's provider; denied egress gives a conservative result with receipt stubs.")
    Inputs = Inputs
    Outputs = Outputs
    preload = ("abilities.research.search", "abilities.research.provider")

    def run(self, ctx: Any, inp: Inputs) -> Outputs:
        try:
            found = datasets.resolve(ctx.tenant, "corpus", inp.corpus.dataset, inp.corpus.version,
                                     pin=datasets.pin_of(ctx))
        except datasets.DatasetNotFound as exc:
            raise AbilityError("unknown_dataset", str(exc)) from None
        ctx.receipt("dataset_read", {**found.describe(), "refresh": inp.refresh, "purpose": "corpus"})
        index = index_for(found)
        corpus = CorpusInfo(dataset=found.name, version=found.version, sha256=found.sha256,
                            documents=len(index.docs))
        ctx.checkpoint("plan_delta", {"queries": len(inp.queries), "corpus": corpus.model_dump(),
                                      "sources": ["corpus"] + ([inp.egress] if inp.egress != "local" else []),
                                      "top_k": inp.top_k})

        def tiebreak(doc_id: str) -> str:
            return hmac.new(ctx.seed, doc_id.encode(), hashlib.sha256).hexdigest()

        results: list[QueryResult] = []
        for i, query in enumerate(inp.queries):
            qid = f"rq-{i + 1}"
            hits = index.search(query, inp.top_k, tiebreak, inp.excerpt_chars)
            spans = [SpanRef(doc_id=h.doc_id, start=h.start, end=h.end, excerpt=h.excerpt, score=h.score,
                             query_id=qid, title=h.title) for h in hits]
            ctx.receipt("research_query", {
                "query_id": qid, "query": query, "corpus": corpus.model_dump(), "top_k": inp.top_k,
                "method": "bm25 (bm25s, k1 1.5, b 0.75); ties by seeded hash of doc_id",
                "spans": [{"doc_id": s.doc_id, "start": s.start, "end": s.end, "score": s.score} for s in spans],
                "seed_fingerprint": ctx.seed_fingerprint})
            ctx.checkpoint("verifier_update", {"query_id": qid, "source": "corpus", "hits": len(spans),
                                               "top": spans[0].doc_id if spans else None})
            ctx.use(steps=1)
            results.append(QueryResult(query_id=qid, query=query, spans=spans))
        outputs = Outputs(spans=[], results=results, corpus=corpus, egress=inp.egress)
        if inp.egress != "local":
            self.egress(ctx, inp, outputs)
        outputs.spans = sorted((s for r in outputs.results for s in r.spans),
                               key=lambda s: (-s.score, s.source != "corpus", s.query_id, s.doc_id, s.start))
        ctx.checkpoint("boundary_summary", {
            "stage": "final", "spans": len(outputs.spans), "queries": len(results), "corpus": corpus.model_dump(),
            "egress": inp.egress, "egress_granted": outputs.egress_granted, "conservative": outputs.conservative,
            "receipt_stubs": len(outputs.receipt_stubs)})
        return outputs

    def egress(self, ctx: Any, inp: Inputs, out: Outputs) -> None:
        """Approval first; then the provider per query, or stubs for what stays withheld."""
        from abilities.research import provider as providers  # its HTTP client: in the worker only

        provider = providers.from_env()
        left = ctx.budget_left().get("wall_s")
        timeout = 300.0 if left is None else max(1.0, min(300.0, 0.5 * left))
        request = {"reason": "egress", "egress_class": inp.egress, "ability": "research",
                   "provider": provider.name if provider else None, "queries": list(inp.queries)}
        try:
            answer = ctx.ask("approval", request, timeout_s=timeout)
        except TimeoutError:
            answer = None
        out.egress_granted = granted(answer)
        ctx.receipt("approval", {"kind": "approval", "request": request, "granted": out.egress_granted,
                                 "answered": answer is not None})
        for r in out.results:
            if not out.egress_granted:
                self.stub(ctx, out, r, "egress_denied" if answer is not None else "approval_timed_out")
                r.external = "denied"
                continue
            if provider is None:
                self.stub(ctx, out, r, "provider_not_configured")
                r.external = "unavailable"
                continue
            try:
                hits = provider.search(r.query, inp.top_k, inp.egress)
            except providers.ProviderError as exc:
                ctx.receipt("research_provider_call", {"query_id": r.query_id, "provider": provider.name,
                                                       "egress_class": inp.egress, "status": exc.status,
                                                       "message": exc.message})
                self.stub(ctx, out, r, f"provider_{exc.status}")
                r.external = "unavailable" if exc.status == "unavailable" else "error"
                continue
            spans = [SpanRef(doc_id=h.doc_id, start=h.start, end=max(h.start, h.end),
                             excerpt=h.excerpt[: inp.excerpt_chars], score=round(h.score, 6),
                             source=inp.egress, query_id=r.query_id, title=h.title) for h in hits]
            ctx.receipt("research_provider_call", {
                "query_id": r.query_id, "provider": provider.name, "egress_class": inp.egress, "status": "ok",
                "spans": [{"doc_id": s.doc_id, "start": s.start, "end": s.end, "score": s.score} for s in spans]})
            ctx.checkpoint("verifier_update", {"query_id": r.query_id, "source": inp.egress, "hits": len(spans)})
            r.spans += spans
            r.external = "ok"
        if out.receipt_stubs:
            out.conservative = True
            out.caveats.append(f"{inp.egress} evidence was withheld ({out.receipt_stubs[0].reason}): "
                               "only the tenant's corpus was searched; the result is conservative")

    @staticmethod
    def stub(ctx: Any, out: Outputs, r: QueryResult, reason: str) -> None:
        s = ReceiptStub(stub_id=f"stub-{len(out.receipt_stubs) + 1}", reason=reason, query_id=r.query_id,
                        egress_class=out.egress, missing=f"{out.egress} evidence for: {r.query[:200]}")
        out.receipt_stubs.append(s)
        ctx.receipt("receipt_stub", s.model_dump())
