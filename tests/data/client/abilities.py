"""Test-only ability for the Canvas and docs tests: a short, readable run with progress, every
checkpoint kind, an optional question, and a boundary summary backed by an artifact."""

from __future__ import annotations

import time
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from abilities.base import Ability, ActionContext


class StoryIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    question: str | None = Field(None, max_length=500)
    kind: str = "question"
    steps: int = Field(3, ge=1, le=50)
    delay_s: float = Field(0.05, ge=0, le=5)


class StoryOut(BaseModel):
    model_config = ConfigDict(extra="allow")


class Story(Ability):
    name, version, description = "t_story", "1", "progress, every checkpoint kind, a question, a summary"
    Inputs, Outputs = StoryIn, StoryOut

    def run(self, ctx: ActionContext, inputs: Any) -> dict[str, Any]:
        rng = ctx.rng("story")
        ctx.progress(0.05, "reading the problem")
        ctx.checkpoint("context_delta", {"facts": ["budget 5000", "deadline Friday"], "source": "brief"})
        values = []
        for i in range(inputs.steps):
            v = rng.randint(1, 99)
            values.append(v)
            ctx.checkpoint("plan_delta", {"step_id": f"S{i + 1}", "rule": "EXPAND", "output": f"x + {v}"})
            ctx.checkpoint("verifier_update", {"wit_id": f"W{i + 1}", "step_id": f"S{i + 1}", "ok": True})
            ctx.progress(0.1 + 0.6 * (i + 1) / inputs.steps, f"step {i + 1} of {inputs.steps}")
            time.sleep(inputs.delay_s)
        answer = None
        if inputs.question:
            answer = ctx.ask(inputs.kind, {"question": inputs.question, "reason": inputs.question})
            ctx.checkpoint("plan_delta", {"step_id": "S-answer", "rule": "USE_ANSWER", "answer": answer})
        ctx.progress(0.95, "writing the summary")
        document = {"title": "Budget plan", "result": f"total {sum(values)}",
                    "decisions": [{"item": f"S{i + 1}", "value": v, "status": "kept"} for i, v in enumerate(values)],
                    "answer": answer, "residual_uncertainty": "none found"}
        art = ctx.artifact("summary", document)
        ctx.checkpoint("boundary_summary", {"goal": "plan", "result": f"total {sum(values)}",
                                            "conditions": ["budget <= 5000"], "summary_artifact_id": art})
        ctx.progress(1.0, "done")
        return {"total": sum(values), "answer": answer, "summary_artifact_id": art}


ABILITIES = [Story]
