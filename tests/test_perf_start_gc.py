"""The server runs full garbage collections ``FULL_GC_EVERY`` middle-generation passes apart, not
Python's 10: a full pass walks every action kept in memory (60-150 ms at a few thousand), so at the
default it landed in every burst of starts. Checked through the function the server's lifespan
calls, on this interpreter's thresholds."""

from __future__ import annotations

import gc

from orchestrator.app import FULL_GC_EVERY, tune_gc


def test_full_collections_are_ten_times_rarer_and_young_ones_unchanged() -> None:
    before = gc.get_threshold()
    try:
        gc.set_threshold(700, 10, 10)
        tune_gc()
        assert gc.get_threshold() == (700, 10, FULL_GC_EVERY)
        assert FULL_GC_EVERY >= 100
    finally:
        gc.set_threshold(*before)
