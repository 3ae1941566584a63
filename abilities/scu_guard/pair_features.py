"""Features of a (constraint, claim) pair for the trained pair model: hashed, deterministic, no parse.

Why these features: a model trained on a few hundred constraints must not learn their topics, so
most features are *relative*: claim words that the constraint also uses are replaced by ``<S>``
before bigrams are formed ("not <S>", "<S> without", "skipped <S>"), cue words of the constraint
(its duty, prohibition, direction words) are crossed with the claim's words, and amounts are
compared by value against the constraint's own amount of the same dimension (through ``measure``,
the one quantity reader). Hashing is by CRC-32 (stable across processes), never ``hash()``.
"""

from __future__ import annotations

import re
import zlib
from functools import lru_cache
from typing import Any

from abilities.scu_guard import measure
from abilities.scu_guard.lexicon import STOP, norm_stem

DIM = 8192
_WORD_RE = re.compile(r"[a-z]+(?:-[a-z]+)*|n't|\d+(?:[.,]\d+)?")
CUES = frozenset(
    "must shall only never not no may can cannot required mandatory prohibited forbidden banned without before "
    "after least most exceed more less than within every each until unless except same together apart between "
    "above below under over maximum minimum always any all nor neither optional allowed permitted".split())


def _tokens(text: str) -> list[str]:
    return _WORD_RE.findall(text.lower().replace("’", "'"))


@lru_cache(maxsize=4096)
def _constraint_view(constraint: str) -> tuple[tuple[str, ...], frozenset[str], tuple[str, ...], tuple[tuple[str, float, str, bool], ...]]:
    toks = _tokens(constraint)
    stems = frozenset(norm_stem(t) for t in toks if t not in STOP and not t[0].isdigit() and len(t) > 2)
    cues = tuple(sorted({t for t in toks if t in CUES} | ({"n't"} & set(toks))))
    amounts = tuple((a.dim, a.lo if a.direction != "max" else a.hi, a.direction, a.period)
                    for a in measure.find_amounts(constraint))
    return tuple(toks), stems, cues, amounts


@lru_cache(maxsize=1024)
def _claim_amounts(claim: str) -> tuple[tuple[str, float, float, str, bool], ...]:
    """The claim's amounts (dimension, low, high, direction, period): read once per claim, not per pair."""
    return tuple((a.dim, a.lo, a.hi, a.direction, a.period) for a in measure.find_amounts(claim))


def _bucket(feature: str) -> int:
    return zlib.crc32(feature.encode("utf-8")) % DIM


def features(constraint: str, claim: str, hint: str = "none") -> dict[int, float]:
    """Sparse features of the pair: bucket -> value. ``hint`` names the reading that raised the pair
    ("typed only_agent", "lexicon forbid", "none"), so the model can weigh each kind of guess."""
    _, kstems, kcues, kamounts = _constraint_view(constraint)
    toks = _tokens(claim)
    abstract = []
    shared = 0
    for t in toks:
        s = norm_stem(t)
        if t not in STOP and len(t) > 2 and s in kstems:
            abstract.append("<S>")
            shared += 1
        elif t[0].isdigit():
            abstract.append("<N>")
        else:
            abstract.append(t)
    feats: list[str] = []
    for t in abstract:
        feats.append("u:" + t)
        for c in kcues:
            feats.append(f"x:{c}|{t}")
    for a, b in zip(["<B>"] + abstract, abstract + ["<E>"], strict=True):
        feats.append(f"b:{a}|{b}")
        for c in kcues:
            if "<S>" in (a, b):
                feats.append(f"xb:{c}|{a}|{b}")
    for a, b, c in zip(abstract, abstract[1:], abstract[2:], strict=False):
        if "<S>" in (a, b, c):
            feats.append(f"t:{a}|{b}|{c}")
    for c in kcues:
        feats.append("k:" + c)
    feats.append("h:" + hint)
    for part in hint.split():
        feats.append("hp:" + part)
    frac = shared / max(1, len(kstems))
    feats.append(f"shared:{min(shared, 4)}")
    feats.append(f"cover:{int(frac * 4)}")
    claim_amounts = _claim_amounts(claim)
    for dim, value, direction, period in kamounts:
        for a_dim, a_lo, a_hi, a_direction, a_period in claim_amounts:
            if a_dim != dim:
                continue
            v = a_hi if direction == "max" else a_lo
            cmp = "gt" if v > value * (1 + 1e-9) + 1e-12 else "lt" if v < value * (1 - 1e-9) - 1e-12 else "eq"
            feats.append(f"num:{direction}|{cmp}|{period}|{a_period}|{a_direction}")
            for c in kcues:
                feats.append(f"numx:{c}|{direction}|{cmp}")
        if not any(a[0] == dim for a in claim_amounts):
            feats.append("num:none")
    out = dict.fromkeys(map(_bucket, feats), 1.0)
    out[_bucket("bias")] = 1.0
    return out


def matrix(rows: list[tuple[str, str, str]]) -> Any:
    """A float32 matrix (one row per (constraint, claim, hint)) for the model."""
    import numpy as np

    x = np.zeros((len(rows), DIM), dtype=np.float32)
    for i, (constraint, claim, hint) in enumerate(rows):
        for j, v in features(constraint, claim, hint).items():
            x[i, j] = v
    return x
