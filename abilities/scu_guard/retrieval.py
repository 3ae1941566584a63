"""BM25 retrieval of the chunks in scope (``ctx_ids``), via the ``bm25s`` package.

All chunks are in scope when there are no more than ``top_k``. Otherwise the top ``top_k`` by
BM25 score; ties (including all-zero scores) break by input order, so the result is deterministic.
"""

from __future__ import annotations

from typing import Any


def retrieve(question: str, chunks: list[dict[str, str]], top_k: int) -> dict[str, Any]:
    """Return ``{"ctx_ids", "scores" (aligned with ctx_ids), "method"}``."""
    if len(chunks) <= top_k:
        return {"ctx_ids": [c["id"] for c in chunks], "scores": None, "method": "all_in_scope"}
    texts = [c["text"] for c in chunks]
    import bm25s  # imported on first use: it costs about 0.2 s at start-up otherwise

    corpus_tokens = bm25s.tokenize(texts, stopwords="en", show_progress=False)
    retriever = bm25s.BM25()
    retriever.index(corpus_tokens, show_progress=False)
    vocab = corpus_tokens.vocab
    q_tokens = bm25s.tokenize([question], stopwords="en", show_progress=False, return_ids=False)[0]
    q_tokens = [t for t in q_tokens if t in vocab]
    if q_tokens:
        scores = [float(s) for s in retriever.get_scores(q_tokens)]
    else:
        scores = [0.0] * len(chunks)
    order = sorted(range(len(chunks)), key=lambda i: (-round(scores[i], 6), i))[:top_k]
    return {
        "ctx_ids": [chunks[i]["id"] for i in order],
        "scores": [round(scores[i], 6) for i in order],
        "method": "bm25s",
    }
