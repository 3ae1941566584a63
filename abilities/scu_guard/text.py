"""Tokens with character offsets, sentences and clause segments (sans-I/O, deterministic).

A *segment* is the scope of a negation: a clause cut at hard boundaries (";", "but", "because",
"if", ...) and at "and"/"," only when what follows carries its own predicate ("X preserves ordering
and rejects null keys" is two segments; "null and empty keys" is one).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from abilities.scu_guard.lexicon import (
    ACTION_CONCEPTS,
    DENY,
    IRREGULAR,
    NEGATORS,
    PERMIT,
    PHRASAL,
    PHRASES,
    REQUIRE,
    USAGE,
    norm_stem,
)

TOKEN_RE = re.compile(r"[\w$€£]+(?:['’][a-z]+)?(?:[-.@:/][\w]+)*(?:['’][a-z]+)?", re.I)
PREFIXES = frozenset({"de", "un", "non", "re", "pre", "co", "multi", "anti", "self"})
HARD_BOUNDARY = re.compile(
    r"\s*(?:;|:\s|—|\s-\s|\bbut\b|\bhowever\b|\bwhereas\b|\bwhile\b|\balthough\b|\bthough\b|\bbecause\b"
    r"|\bsince\b|\bso that\b|\bso\b|\bunless\b|\bif\b|\bas long as\b|\bprovided that\b|,\s*which\b"
    r"|,\s*i\.e\.|,\s*e\.g\.|\bwhen\b)\s*",
    re.I,
)
_ANY_PHRASE = re.compile("|".join(f"(?:{p.pattern})" for p, _ in PHRASES + PHRASAL), re.I)
SOFT_BOUNDARY = re.compile(r"\s*(?:,\s*and\b|,(?!\d)|(?<!\d),|\band\b)\s*", re.I)  # "7,500" is one number
SENTENCE_RE = re.compile(r"(?<!\be\.g)(?<!\bi\.e)(?<=[.!?])\s+|\n+")
PREDICATE_WORDS = frozenset(
    {
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "will",
        "would",
        "stay",
        "stays",
        "remain",
        "remains",
        "become",
        "becomes",
        "work",
        "works",
        "happen",
        "happens",
        "go",
        "goes",
        "come",
        "comes",
        "take",
        "takes",
        "make",
        "makes",
        "need",
        "needs",
        "has",
        "have",
    }
)


@dataclass(frozen=True)
class Token:
    """One word of the text with its offsets and its normalized stems (several for compounds)."""

    text: str
    start: int
    end: int
    low: str
    stems: tuple[str, ...]
    negator: bool = False


@dataclass
class Segment:
    """A clause: its span in the original text and its tokens."""

    start: int
    end: int
    text: str
    tokens: list[Token] = field(default_factory=list)
    coordinated: bool = False  # split from the previous clause at "and"/"," (may share its subject)

    @property
    def stems(self) -> set[str]:
        return {s for t in self.tokens for s in t.stems}


def _word_stems(word: str) -> tuple[tuple[str, ...], bool]:
    low = word.lower().replace("’", "'")
    low = IRREGULAR.get(low, low)
    negator = False
    parts: list[str] = []
    for piece in low.split():
        if piece in NEGATORS or piece == "n't":
            negator = True
            parts.append(piece)
            continue
        if ("-" in piece or "_" in piece) and not any(ch.isdigit() for ch in piece):
            sub = re.split(r"[-_]", piece)
            joined = "".join(sub)
            parts.append(norm_stem(joined))
            if sub[0] not in PREFIXES:
                parts.extend(norm_stem(p) for p in sub if p)
            continue
        parts.append(norm_stem(piece))
    return tuple(dict.fromkeys(parts)), negator


def tokenize(text: str, offset: int = 0) -> list[Token]:
    """Word tokens with absolute offsets (``offset`` is added to each position)."""
    out = []
    for m in TOKEN_RE.finditer(text):
        stems, neg = _word_stems(m.group(0))
        out.append(Token(m.group(0), m.start() + offset, m.end() + offset, m.group(0).lower(), stems, neg))
    if not _ANY_PHRASE.search(text):
        return out
    folds: list[tuple[int, int, tuple[str, ...], bool]] = []
    for pat, canon in PHRASES:
        folds.extend((p.start() + offset, p.end() + offset, canon, True) for p in pat.finditer(text))
    for pat, canon in PHRASAL:
        folds.extend((p.start("v") + offset, p.end("v") + offset, canon, False) for p in pat.finditer(text))
    for s0, s1, canon, replace in folds:
        out = [
            Token(t.text, t.start, t.end, t.low, canon if replace else t.stems + canon, t.negator)
            if s0 <= t.start < s1 and not t.negator
            else t
            for t in out
        ]
    return out


def sentences(text: str) -> list[tuple[int, int]]:
    """Sentence spans (start, end) of ``text``."""
    spans, pos = [], 0
    for m in SENTENCE_RE.finditer(text):
        if m.start() > pos:
            spans.append((pos, m.start()))
        pos = m.end()
    if pos < len(text):
        spans.append((pos, len(text)))
    return [(s, e) for s, e in spans if text[s:e].strip()]


def has_predicate(tokens: list[Token]) -> bool:
    """True when the tokens carry a verb-like cue of their own (so they form a clause)."""
    for i, t in enumerate(tokens):
        if t.low in PREDICATE_WORDS or t.negator:
            return True
        if i >= 1 and t.low.endswith("ed") and len(t.low) > 4 and t.low.isalpha():
            return True  # a participle after its subject: "phones stay switched off"
        for s in t.stems:
            if s in DENY or s in PERMIT or s in REQUIRE or s in USAGE:
                return True
            if any(s in v for v in ACTION_CONCEPTS.values()):
                return True
    return False


def _split(text: str, start: int, end: int, pattern: re.Pattern[str], soft: bool) -> list[tuple[int, int]]:
    pieces: list[tuple[int, int]] = []
    pos = start
    for m in pattern.finditer(text, start, end):
        pieces.append((pos, m.start()))
        pos = m.end()
    pieces.append((pos, end))
    if not soft:
        return [(s, e) for s, e in pieces if text[s:e].strip()]
    merged: list[tuple[int, int]] = []
    for s, e in pieces:
        toks = tokenize(text[s:e])
        if merged and (not toks or not has_predicate(toks)):
            merged[-1] = (merged[-1][0], e)
        elif merged and not has_predicate(tokenize(text[merged[-1][0] : merged[-1][1]])):
            merged[-1] = (merged[-1][0], e)
        else:
            merged.append((s, e))
    return [(s, e) for s, e in merged if text[s:e].strip()]


def segments(text: str, start: int = 0, end: int | None = None) -> list[Segment]:
    """Clause segments of ``text[start:end]`` with absolute offsets, stripped of edge whitespace."""
    end = len(text) if end is None else end
    out = []
    for hs, he in _split(text, start, end, HARD_BOUNDARY, soft=False):
        for k, (s, e) in enumerate(_split(text, hs, he, SOFT_BOUNDARY, soft=True)):
            while s < e and text[s] in " \t\n,.;:!?\"'()[]":
                s += 1
            while e > s and text[e - 1] in " \t\n,.;:!?\"'()[]":
                e -= 1
            if e > s:
                toks = tokenize(text[s:e], s)
                kept = _drop_answer_particle(text, toks)
                if kept and kept is not toks:
                    s = kept[0].start  # the span starts after a dropped "Yes,"/"No,"
                out.append(Segment(s, e, text[s:e], kept, coordinated=k > 0))
    return out


def _drop_answer_particle(text: str, tokens: list[Token]) -> list[Token]:
    """'No, X is not supported': the leading 'No'/'Yes' answers the question and negates nothing."""
    if tokens and tokens[0].low in ("no", "yes", "nope") and text[tokens[0].end : tokens[0].end + 1] in ",.!":
        return tokens[1:]
    return tokens


def polarity(tokens: list[Token], skip: set[int] | None = None) -> int:
    """+1 or -1: parity of negators and deny words in the tokens (indices in ``skip`` ignored). A "nor" after
    a negator carries that negation on ("neither the man nor his friend was allowed", "not X, nor Y"): the
    pair denies once, so it counts once."""
    flips = 0
    negated = False
    for i, t in enumerate(tokens):
        if skip and i in skip:
            continue
        if t.low == "nor" and negated:
            continue
        if t.low == "out" and i > 0 and tokens[i - 1].low in ("opt", "opts", "opted", "opting"):
            flips += 1
        elif t.negator:
            negated = True
            flips += sum(1 for s in t.stems if s in NEGATORS or s == "n't") or 1
        elif any(s in DENY for s in t.stems):
            flips += 1
    return -1 if flips % 2 else 1
