"""BM25 over a corpus and the span each hit is cited by: pure, deterministic, no I/O.

Documents are ranked with bm25s (Lucene BM25, k1 1.5, b 0.75) over Snowball-stemmed lowercase word
tokens of the title and text; ties are broken by a seeded hash of the doc id, then by position, so the order is
a function of the seed and the corpus only. The cited span of a hit is its sentence (or line) that
carries the most query-term weight (idf of the distinct terms it holds), cut to the excerpt size
around its first matching term; ``excerpt`` is exactly ``text[start:end]``.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import bm25s
import numpy as np
import Stemmer

_TOKEN = re.compile(r"[a-z0-9]+")
_SENTENCE = re.compile(r"[^\n]+?(?:[.!?]+(?=\s)|$)", re.M)  # "v2.3" and "10:02" stay inside
STOPWORDS = frozenset(
    "a an and are as at be but by for from has have how if in into is it its of on or that the their then "
    "there these this to was were what when where which while who why will with does did do not no".split())


_STEM = Stemmer.Stemmer("english")


def tokens(text: str) -> list[str]:
    """Lowercase words without stop words, Snowball-stemmed ("calls", "call" -> "call")."""
    return _STEM.stemWords([t for t in _TOKEN.findall(text.lower()) if t not in STOPWORDS])


@dataclass(frozen=True)
class Hit:
    doc_index: int
    doc_id: str
    score: float
    start: int
    end: int
    excerpt: str
    title: str | None


class CorpusIndex:
    """A BM25 index of one corpus version (documents ``{doc_id, text, title?}``)."""

    def __init__(self, docs: list[dict[str, Any]]) -> None:
        self.docs = docs
        toks = [tokens(f"{d.get('title') or ''} {d['text']}") or ["\x00"] for d in docs]
        self.bm25 = bm25s.BM25()
        self.bm25.index(toks, show_progress=False)
        self.vocab = set(self.bm25.vocab_dict)
        df = Counter(t for ts in toks for t in set(ts))
        n = len(docs)
        self.idf = {t: math.log(1 + (n - c + 0.5) / (c + 0.5)) for t, c in df.items()}

    def search(self, query: str, k: int, tiebreak: Callable[[str], str], excerpt_chars: int) -> list[Hit]:
        """The ``k`` best documents for ``query`` (score > 0), each with its cited span."""
        terms = [t for t in tokens(query) if t in self.vocab]
        if not terms:
            return []
        scores = np.asarray(self.bm25.get_scores(terms), dtype=np.float64)
        ranked = sorted((i for i in range(len(scores)) if scores[i] > 0),
                        key=lambda i: (-round(float(scores[i]), 9), tiebreak(self.docs[i]["doc_id"]), i))[:k]
        hits = []
        for i in ranked:
            doc = self.docs[i]
            start, end = self.span(doc["text"], set(terms), excerpt_chars)
            hits.append(Hit(i, doc["doc_id"], round(float(scores[i]), 6), start, end, doc["text"][start:end],
                            doc.get("title")))
        return hits

    def span(self, text: str, terms: set[str], limit: int) -> tuple[int, int]:
        """(start, end) of the sentence carrying the most query weight, at most ``limit`` chars."""
        best, best_score = (0, min(len(text), limit)), -1.0
        for m in _SENTENCE.finditer(text):
            raw = m.group(0)
            start = m.start() + (len(raw) - len(raw.lstrip()))
            end = m.end() - (len(raw) - len(raw.rstrip()))
            if end <= start:
                continue
            score = sum(self.idf.get(t, 0.0) for t in set(tokens(text[start:end])) & terms)
            if score > best_score:
                best, best_score = (start, end), score
        start, end = best
        if end - start > limit:  # centre the window on the first matching term
            lowered = text[start:end].lower()
            first = min((m.start() for t in terms for m in [re.search(rf"\b{re.escape(t)}\b", lowered)] if m),
                        default=0)
            start = start + max(0, min(first - limit // 4, end - start - limit))
            end = start + limit
        return start, end
