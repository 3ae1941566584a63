"""Constraint lock: the service-wide snapshot of an action's constraints (SCU pattern, step 1).

Normalisation follows the spec: strip each constraint, drop empty ones, keep the order. The short
hash is the spec's 16 hex digits; the full SHA-256 is kept beside it for receipts.
"""

from __future__ import annotations

import hashlib
from typing import Any


def normalize_constraints(constraints: list[str]) -> list[str]:
    """Strip surrounding whitespace and drop empty constraints, preserving order."""
    return [c.strip() for c in constraints if c.strip()]


def lock_constraints(constraints: list[str]) -> dict[str, Any]:
    """Return ``{"constraints", "hash" (16 hex), "hash_full" (64 hex)}`` for a constraint list."""
    norm = normalize_constraints(constraints)
    digest = hashlib.sha256("\n".join(norm).encode("utf-8")).hexdigest()
    return {"constraints": norm, "hash": digest[:16], "hash_full": digest}


def same_constraint_set(echo: list[str], locked: list[str]) -> bool:
    """Order-insensitive, whitespace-trimmed comparison of an echo against the locked set."""
    return sorted(normalize_constraints(echo)) == sorted(normalize_constraints(locked))
