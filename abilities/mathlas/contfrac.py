"""Simple continued fractions: the terms a decimal value certifies, and the patterns they show.

Two patterns lead to closed forms. An eventually periodic expansion is a quadratic irrational
(Lagrange), which the minimal-polynomial search finds. Partial quotients in arithmetic progression,
[a0; a1, a1 + d, a1 + 2d, ...], have a Bessel-function value (Lehmer, "Continued fractions
containing arithmetic progressions", 1973): the tail [a1; a1 + d, ...] equals
I_{a1/d - 1}(2/d) / I_{a1/d}(2/d), so the value is a0 + I_{a1/d}(2/d) / I_{a1/d - 1}(2/d).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath

from abilities.mathlas import bigint
from abilities.mathlas import closedform as cf

# A progression must hold over at least this many tail terms before it is proposed.
MIN_PROGRESSION_TERMS = 5


def certified_terms(value: mpmath.mpf, radius: mpmath.mpf, dps: int, max_terms: int = 40) -> list[int]:
    """The partial quotients shared by both ends of [value - radius, value + radius]."""
    with mpmath.workdps(dps):
        lo, hi = value - radius, value + radius
        terms: list[int] = []
        for _ in range(max_terms):
            a, b = int(mpmath.floor(lo)), int(mpmath.floor(hi))
            if a != b:
                break
            terms.append(a)
            if lo == a or hi == a:
                break
            lo, hi = 1 / (hi - a), 1 / (lo - a)
    return terms


def describe_pattern(t: list[int]) -> str | None:
    """A human-readable pattern of the partial quotients after the first, or None."""
    body = t[1:]
    for start in range(0, 3):
        seg = body[start:]
        for p in range(1, 7):
            if len(seg) >= 3 * p and all(seg[i] == seg[i % p] for i in range(len(seg))):
                return f"eventually periodic with period {seg[:p]} (a quadratic irrational, by Lagrange's theorem)"
    step = arithmetic_step(t)
    if step is not None:
        return f"arithmetic progression {body[:4]}... with step {step} (a ratio of Bessel I values, by Lehmer)"
    for p in range(2, 5):
        for off in range(p):
            sub = body[off::p]
            rest = [body[i] for i in range(len(body)) if i % p != off]
            if len(sub) >= 4 and len(set(rest)) == 1 and len({b - a for a, b in zip(sub, sub[1:], strict=False)}) == 1 \
                    and sub[1] != sub[0]:
                return f"every {p}th term grows arithmetically ({sub[:4]}...), other terms constant {rest[0]} (e-like)"
    return None


def arithmetic_step(t: list[int]) -> int | None:
    """d > 0 when every term after the first is a1 + k*d over at least MIN_PROGRESSION_TERMS terms."""
    body = t[1:]
    if len(body) < MIN_PROGRESSION_TERMS or body[0] < 1:
        return None
    d = body[1] - body[0]
    if d <= 0 or any(b - a != d for a, b in zip(body, body[1:], strict=False)):
        return None
    return d


@dataclass(frozen=True)
class BesselForm:
    """x = a0 + I_{a1/d}(2/d) / I_{a1/d - 1}(2/d) for [a0; a1, a1 + d, ...]."""

    a0: int
    a1: int
    d: int

    def node(self) -> cf.Node:
        nu = Fraction(self.a1, self.d)
        z = ("num", Fraction(2, self.d))
        ratio = ("div", ("call", "besseli", _num(nu), z), ("call", "besseli", _num(nu - 1), z))
        if self.a0 == 0:
            return ratio
        return ("add", _num(Fraction(self.a0)), ratio) if self.a0 > 0 else ("sub", ratio, _num(Fraction(-self.a0)))

    @property
    def complexity(self) -> float:
        return math.log10(abs(self.a0) + 1) + math.log10(self.a1 + 1) + math.log10(self.d + 1) + 2


def _num(v: Fraction) -> cf.Node:
    return ("neg", ("num", -v)) if v < 0 else ("num", v)


def bessel_form(terms: list[int]) -> BesselForm | None:
    """The Bessel closed form of an arithmetic-progression expansion, if the terms show one."""
    d = arithmetic_step(terms)
    return None if d is None else BesselForm(terms[0], terms[1], d)


def summary(terms: list[int]) -> dict[str, Any]:
    """Terms (JSON-safe: a huge partial quotient becomes a decimal string) and their pattern."""
    return {"terms": [bigint.json_int(t) for t in terms], "pattern": describe_pattern(terms)}
