"""Deciding whether a constant is exactly zero, in bounded time (used by domains, the sign chart
and the candidate checks; imports nothing else of the package, so every module may use it)."""

from __future__ import annotations

import sympy


def is_exact_zero(g: sympy.Expr) -> bool:
    """Decide ``g == 0`` for a constant, in bounded time: a clear non-zero at 60 digits; else a
    cheap proof (sympy's assumptions, or radsimp/expand of a small expression); else 120 digits,
    where a value within 10^-100 of zero counts as zero. (sympy's ``simplify``/``equals`` can
    take minutes on nested radicals, so they are not used here.)"""
    try:
        if abs(complex(g.evalf(60))) > 1e-40:
            return False
    except (TypeError, ValueError):
        pass
    try:
        small = sympy.count_ops(g) <= 40  # sympy's proofs can take minutes on Cardano-sized radicals
        if small and (g.is_zero or sympy.expand(sympy.radsimp(g)) == 0):
            return True
    except (TypeError, ValueError, NotImplementedError, RecursionError):
        pass
    return abs(complex(g.evalf(120))) < 1e-100
