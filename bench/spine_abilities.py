"""Bench-only abilities (not part of the product), loaded with
``METIS_EXTRA_ABILITIES=tests.abilities_testing:ABILITIES,bench.spine_abilities:ABILITIES``.

``b_stamp`` emits ``n`` checkpoints as fast as it can (or one per ``interval_s``), each carrying the emit wall-clock time
``t`` (seconds since the epoch), so a subscriber on the same machine can measure append ->
delivery latency. Wall-clock values in payloads are fine here: this is a benchmark probe,
not a reasoning ability, and its outputs carry no time.
"""

from __future__ import annotations

import time
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from abilities.base import Ability, ActionContext


class StampIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    n: int = Field(1000, ge=0, le=1_000_000)
    pad: int = Field(0, ge=0, le=4096, description="extra payload bytes per event")
    interval_s: float = Field(0.0, ge=0, le=10, description="pause between events (0: as fast as possible)")


class StampOut(BaseModel):
    model_config = ConfigDict(extra="allow")


class Stamp(Ability):
    name, version, description = "b_stamp", "1", "bench probe: n checkpoints stamped with their emit time"
    Inputs, Outputs = StampIn, StampOut

    def run(self, ctx: ActionContext, inputs: Any) -> dict[str, Any]:
        pad = "x" * inputs.pad
        for i in range(inputs.n):
            ctx.checkpoint("plan_delta", {"i": i, "t": time.time(), "pad": pad})
            if inputs.interval_s:
                time.sleep(inputs.interval_s)
        return {"emitted": inputs.n}


ABILITIES = [Stamp]
