"""The constraint lock (abilities/lock.py): normalisation, hashes, echo comparison."""

from __future__ import annotations

import hashlib

from abilities.lock import lock_constraints, normalize_constraints, same_constraint_set


def test_normalize_strips_drops_empty_keeps_order_and_duplicates():
    assert normalize_constraints(["  b ", "", "a", "\t\n", "b"]) == ["b", "a", "b"]
    assert normalize_constraints([]) == []


def test_lock_hashes():
    lock = lock_constraints([" x > 0 ", "y < 1", "  "])
    full = hashlib.sha256(b"x > 0\ny < 1").hexdigest()
    assert lock == {"constraints": ["x > 0", "y < 1"], "hash": full[:16], "hash_full": full}


def test_lock_is_order_sensitive_but_whitespace_insensitive():
    a = lock_constraints(["p", "q"])
    assert lock_constraints([" p", "q\n", ""]) == a
    assert lock_constraints(["q", "p"])["hash"] != a["hash"]


def test_lock_hash_is_over_the_newline_join():
    # the hash is SHA-256 of the constraints joined by "\n": one constraint "a\nb" equals two
    assert lock_constraints(["a", "b"])["hash"] == lock_constraints(["a\nb"])["hash"]
    assert lock_constraints(["ab"])["hash"] != lock_constraints(["a", "b"])["hash"]


def test_empty_lock():
    lock = lock_constraints(["", " "])
    assert lock["constraints"] == [] and lock["hash_full"] == hashlib.sha256(b"").hexdigest()


def test_unicode_constraints():
    lock = lock_constraints(["∀x ∈ ℝ: x² ≥ 0"])
    assert lock["hash_full"] == hashlib.sha256("∀x ∈ ℝ: x² ≥ 0".encode()).hexdigest()


def test_same_constraint_set():
    assert same_constraint_set([" b", "a "], ["a", "b"])
    assert same_constraint_set(["a", "", "b"], ["b", "a"])
    assert not same_constraint_set(["a"], ["a", "b"])
    assert not same_constraint_set(["a", "a"], ["a"])  # multiset, not set
    assert same_constraint_set([], [" "])
