"""Test-only abilities (not part of the product): loaded with METIS_EXTRA_ABILITIES."""

from __future__ import annotations

import time
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from abilities.base import Ability, AbilityError, ActionContext, PartialResult


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid")


class NoopIn(_In):
    pass


class AnyOut(BaseModel):
    model_config = ConfigDict(extra="allow")


class Noop(Ability):
    name, version, description = "t_noop", "1", "does nothing"
    Inputs, Outputs = NoopIn, AnyOut

    def run(self, ctx: ActionContext, inputs: Any) -> dict[str, Any]:
        return {"ok": True}


class EmitIn(_In):
    n: int = Field(5, ge=0, le=100000)
    delay_s: float = Field(0.0, ge=0, le=5)
    constraints: list[str] | None = None


class Emit(Ability):
    name, version, description = "t_emit", "1", "emits n checkpoints, seeded values"
    Inputs, Outputs = EmitIn, AnyOut

    def constraints(self, inputs: Any) -> list[str] | None:
        return inputs.constraints

    def run(self, ctx: ActionContext, inputs: Any) -> dict[str, Any]:
        rng = ctx.rng("emit")
        values = []
        for i in range(inputs.n):
            v = rng.randint(0, 10**9)
            values.append(v)
            ctx.checkpoint("plan_delta", {"i": i, "v": v})
            ctx.receipt("tool_call", {"i": i})
            ctx.trace({"thought": f"step {i}"})
            if inputs.delay_s:
                time.sleep(inputs.delay_s)
        art = ctx.artifact("summary", {"count": inputs.n})
        ctx.checkpoint("boundary_summary", {"count": inputs.n})
        return {"values": values, "summary_artifact_id": art}


class SleepIn(_In):
    seconds: float = Field(1.0, ge=0, le=600)
    cooperative: bool = False


class Sleep(Ability):
    name, version, description = "t_sleep", "1", "sleeps; cooperative ones stop at budget grace"
    Inputs, Outputs = SleepIn, AnyOut

    def run(self, ctx: ActionContext, inputs: Any) -> dict[str, Any]:
        end = time.monotonic() + inputs.seconds
        done = 0
        while time.monotonic() < end:
            time.sleep(0.05)
            done += 1
            ctx.save_partial({"ticks": done})
            if inputs.cooperative and ctx.should_stop():
                raise PartialResult({"ticks": done}, "budget_exhausted")
        return {"ticks": done}


class Hang(Ability):
    name, version, description = "t_hang", "1", "an uncooperative busy loop"
    Inputs, Outputs = NoopIn, AnyOut

    def run(self, ctx: ActionContext, inputs: Any) -> dict[str, Any]:
        ctx.save_partial({"started": True})
        x = 0
        while True:
            x += 1


class StepsIn(_In):
    steps: int = Field(10, ge=0)


class Steps(Ability):
    name, version, description = "t_steps", "1", "charges one step per iteration"
    Inputs, Outputs = StepsIn, AnyOut

    def run(self, ctx: ActionContext, inputs: Any) -> dict[str, Any]:
        done = 0
        for _ in range(inputs.steps):
            if ctx.should_stop():
                raise PartialResult({"done": done})
            ctx.use(steps=1)
            done += 1
            time.sleep(0.01)
        return {"done": done}


class FailIn(_In):
    reason: str = "boom"
    crash: bool = False


class Fail(Ability):
    name, version, description = "t_fail", "1", "fails cleanly or crashes the worker"
    Inputs, Outputs = FailIn, AnyOut

    def run(self, ctx: ActionContext, inputs: Any) -> dict[str, Any]:
        if inputs.crash:
            import os

            os._exit(3)
        raise AbilityError(inputs.reason, "asked to fail")


class AskIn(_In):
    question: str = "what?"
    kind: str = "question"
    timeout_s: float | None = None


class Ask(Ability):
    name, version, description = "t_ask", "1", "asks the client and echoes the answer"
    Inputs, Outputs = AskIn, AnyOut

    def run(self, ctx: ActionContext, inputs: Any) -> dict[str, Any]:
        value = ctx.ask(inputs.kind, {"question": inputs.question, "reason": inputs.question},
                        timeout_s=inputs.timeout_s)
        return {"answer": value}


class SpawnIn(_In):
    ability: str = "t_emit"
    inputs: dict[str, Any] = Field(default_factory=dict)
    edge: str = "bind"
    constraints: list[str] | None = None
    tamper: bool = False


class Spawn(Ability):
    name, version, description = "t_spawn", "1", "spawns a sub-action and returns its outputs"
    Inputs, Outputs = SpawnIn, AnyOut

    def constraints(self, inputs: Any) -> list[str] | None:
        return inputs.constraints

    def run(self, ctx: ActionContext, inputs: Any) -> dict[str, Any]:
        if inputs.tamper and ctx.lock:
            ctx.lock["constraints"] = ctx.lock["constraints"][1:]  # an "unlock"
        view = ctx.spawn(inputs.ability, inputs.inputs, edge=inputs.edge)
        return {"child": view["action_id"], "child_status": view["status"], "child_outputs": view.get("outputs")}


class UnlockIn(_In):
    constraints: list[str]


class Unlock(Ability):
    name, version, description = "t_unlock", "1", "drops a locked constraint mid-run"
    Inputs, Outputs = UnlockIn, AnyOut

    def constraints(self, inputs: Any) -> list[str] | None:
        return inputs.constraints

    def run(self, ctx: ActionContext, inputs: Any) -> dict[str, Any]:
        ctx.checkpoint("plan_delta", {"ok": 1})
        assert ctx.lock is not None
        ctx.lock["constraints"].pop()
        ctx.checkpoint("plan_delta", {"unlocked": True})
        return {"should": "not complete"}


class PublishIn(_In):
    revisions: int = Field(2, ge=1, le=10)
    hold_s: float = Field(0.5, ge=0, le=30)


class Publish(Ability):
    name, version, description = "t_publish", "1", "publishes revised outputs while it runs"
    Inputs, Outputs = PublishIn, AnyOut

    def run(self, ctx: ActionContext, inputs: Any) -> dict[str, Any]:
        for r in range(1, inputs.revisions + 1):
            ctx.publish({"evidence": r})  # type: ignore[attr-defined]
            time.sleep(inputs.hold_s)
        return {"evidence": inputs.revisions}


class EchoDeps(Ability):
    name, version, description = "t_deps", "1", "returns what its dependencies gave it"
    Inputs, Outputs = NoopIn, AnyOut

    def run(self, ctx: ActionContext, inputs: Any) -> dict[str, Any]:
        return {"deps": {k: v["outputs"] for k, v in sorted(ctx.dependencies.items())},
                "revision": ctx.revision}


class Nondet(Ability):
    name, version, description = "t_nondet", "1", "emits a value that is not derived from its seed, then asks"
    Inputs, Outputs = NoopIn, AnyOut

    def run(self, ctx: ActionContext, inputs: Any) -> dict[str, Any]:
        import os

        ctx.checkpoint("plan_delta", {"nonce": os.urandom(8).hex()})  # differs on every run: not replayable
        value = ctx.ask("question", {"question": "go on?"})
        return {"answer": value}


class AskTwiceIn(_In):
    steps: int = Field(3, ge=0, le=1000)


class AskTwice(Ability):
    name, version, description = "t_ask2", "1", "seeded checkpoints around two questions"
    Inputs, Outputs = AskTwiceIn, AnyOut

    def run(self, ctx: ActionContext, inputs: Any) -> dict[str, Any]:
        rng = ctx.rng("ask2")
        values = []
        for phase in ("first", "second"):
            for i in range(inputs.steps):
                v = rng.randint(0, 10**9)
                values.append(v)
                ctx.checkpoint("plan_delta", {"phase": phase, "i": i, "v": v})
            values.append(ctx.ask("question", {"question": f"{phase}?"}))
        return {"values": values}


class CrashOnceIn(_In):
    marker: str  # a file path: absent => create it and crash the worker mid-run


class CrashOnce(Ability):
    name, version, description = "t_crash_once", "1", "seeded checkpoints; the first run's worker dies halfway"
    Inputs, Outputs = CrashOnceIn, AnyOut

    def run(self, ctx: ActionContext, inputs: Any) -> dict[str, Any]:
        import os

        rng = ctx.rng("crash")
        values = []
        for i in range(6):
            values.append(rng.randint(0, 10**9))
            ctx.checkpoint("plan_delta", {"i": i, "v": values[-1]})
            if i == 2 and not os.path.exists(inputs.marker):
                with open(inputs.marker, "w") as fh:
                    fh.write("crashed once")
                time.sleep(0.3)  # let the checkpoints so far become durable
                os._exit(9)
        return {"values": values}


class MetricIn(_In):
    n: int = Field(3, ge=0, le=1000)


class Metric(Ability):
    """Reports declared metrics (and one undeclared, which the server drops)."""

    name, version, description = "t_metric", "1", "reports its declared metrics"
    Inputs, Outputs = MetricIn, AnyOut
    metrics = (("items", "counter", "items handled"), ("frontier_size", "gauge", "current frontier"),
               ("step_seconds", "histogram", "time per step"))

    def run(self, ctx: ActionContext, inputs: Any) -> dict[str, Any]:
        for i in range(inputs.n):
            ctx.metric("items", 1)
            ctx.metric("frontier_size", i + 10)
            ctx.metric("step_seconds", 0.02 * (i + 1))
        ctx.metric("undeclared_thing", 1)
        print("t_metric says hello", flush=True)  # stray output: the server logs it as a JSON line
        return {"n": inputs.n}


ABILITIES = [Noop, Emit, Sleep, Hang, Steps, Fail, Ask, Spawn, Unlock, Publish, EchoDeps, Nondet, AskTwice, CrashOnce,
             Metric]


class Preloaded(Ability):
    """Says whether its preload module was imported before the run (the worker's preload modes)."""

    name, version, description = "t_preloaded", "1", "reports whether its preload module is imported"
    Inputs, Outputs = NoopIn, AnyOut
    preload = ("json.tool",)  # a stdlib module nothing else in a worker imports

    def run(self, ctx: ActionContext, inputs: Any) -> dict[str, Any]:
        import sys

        return {"imported": "json.tool" in sys.modules}


PRELOAD_ABILITIES = [Preloaded]
