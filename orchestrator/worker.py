"""The worker process: runs one ability at a time, talks to the orchestrator over stdin/stdout.

Protocol (one JSON object per line; see ``orchestrator/workers.py`` for the parent side):

parent -> worker
    {"op": "run", "job": {...identity, seed, budgets, elapsed_s?, lock, dependencies}, "inputs": {...}}
    {"op": "reply", "call_id": n, "value": ...} | {"op": "reply", "call_id": n, "error": "..."}
        | {"op": "reply", "call_id": n, "expired": true}      (an ask's time ran out: TimeoutError)
    {"op": "abandon"}   (the action parks: unwind the run, report done/abandoned, take the next job)
    {"op": "stop", "reason": "budget_grace" | "cancel"}
worker -> parent
    {"op": "ready", "pid": n}
    {"op": "emit", "kind": "checkpoint"|"progress"|"notice"|"receipt"|"trace"|"artifact"|
                   "usage"|"save_partial"|"publish", ...}
    {"op": "call", "call_id": n, "method": "ask"|"spawn", ...}   (blocks until "reply" or "abandon")
    {"op": "done", "status": "completed"|"partial"|"failed"|"abandoned", "outputs"?: {...}, "error"?: {...}}

A worker does not know whether it runs an action live or replays it: the parent answers calls from
the recorded history (see ``orchestrator/scheduler.py``), so the same code path runs both.

Abilities run in this process so a hung or runaway computation can be killed without touching
the event loop or any other action. Stray ``print`` output is redirected to stderr so it can never
corrupt the protocol.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import random
import sys
import threading
import time
import traceback
from typing import Any, BinaryIO, TextIO

from pydantic import BaseModel, ValidationError

from abilities import registry
from abilities.base import AbilityError, BudgetExhausted, PartialResult, derive_rng
from abilities.lock import lock_constraints
from orchestrator import tracing
from orchestrator.jsonrpc import loads
from orchestrator.logconfig import stray_output_as_json
from receipts.canonical import canonical_json


class Parked(BaseException):  # noqa: N818 - not an error: the action parks and resumes by replay
    """Unwinds an ability blocked on a call when its action parks (a BaseException, so an
    ability's ``except Exception`` cannot swallow it)."""


def _dumps(obj: Any) -> str:
    return json.dumps(obj, allow_nan=False, separators=(",", ":"), ensure_ascii=False)


class Channel:
    """Line-delimited JSON to the parent, and the replies and stop signals coming back."""

    def __init__(self, out: TextIO, inp: BinaryIO) -> None:
        self._out = out
        self._inp = inp
        self._lock = threading.Lock()
        self._calls: dict[int, tuple[threading.Event, dict[str, Any]]] = {}
        self._next = 0
        self.jobs: list[dict[str, Any]] = []
        self.job_ready = threading.Condition()
        self.stop_reason: str | None = None
        self.abandoned = False

    def send(self, msg: dict[str, Any]) -> None:
        line = _dumps(msg)
        with self._lock:
            self._out.write(line + "\n")
            self._out.flush()

    def call(self, msg: dict[str, Any], timeout_s: float | None) -> Any:
        if self.abandoned:
            raise Parked()
        with self._lock:
            self._next += 1
            call_id = self._next
            event = threading.Event()
            slot: dict[str, Any] = {}
            self._calls[call_id] = (event, slot)
        self.send({**msg, "op": "call", "call_id": call_id})
        if not event.wait(timeout_s):
            self._calls.pop(call_id, None)
            raise TimeoutError(f"no answer within {timeout_s:.1f}s")
        if slot.get("abandon"):
            raise Parked()
        if slot.get("expired"):
            raise TimeoutError("no answer in time")
        if "error" in slot:
            raise AbilityError(slot.get("reason", "call_failed"), slot["error"])
        return slot.get("value")

    def read_forever(self) -> None:
        """Reader thread: replies wake their caller, stop sets the flag, run queues a job."""
        for line in self._inp:
            msg = loads(line)
            op = msg.get("op")
            if op == "reply":
                pending = self._calls.pop(msg["call_id"], None)
                if pending:
                    pending[1].update(msg)
                    pending[0].set()
            elif op == "stop":
                self.stop_reason = msg.get("reason", "stop")
            elif op == "abandon":
                with self._lock:
                    self.abandoned = True
                    calls, self._calls = self._calls, {}
                for event, slot in calls.values():
                    slot["abandon"] = True
                    event.set()
            elif op == "run":
                with self.job_ready:
                    self.jobs.append(msg)
                    self.job_ready.notify()
        os._exit(0)  # parent went away


class WorkerContext:
    """The ``ActionContext`` an ability receives (see ``abilities/base.py``)."""

    def __init__(self, channel: Channel, job: dict[str, Any]) -> None:
        self._ch = channel
        self.action_id: str = job["action_id"]
        self.topic: str = job["topic"]
        self.tenant: str = job["tenant"]
        self.ability: str = job["ability"]
        self.revision: int = job["revision"]
        self.seed: bytes = bytes.fromhex(job["seed"])
        self.seed_fingerprint: str = job["seed_fingerprint"]
        self.budgets: dict[str, Any] = job["budgets"]
        self.lock: dict[str, Any] | None = job.get("lock")
        self.dependencies: dict[str, dict[str, Any]] = job.get("dependencies", {})
        self.risk_class: str | None = job.get("risk_class")
        self._started = time.monotonic() - float(job.get("elapsed_s") or 0.0)  # a resumed run keeps its clock
        self._steps = 0
        self._tokens = 0
        self._asks = 0
        self._local_stop = False

    # -- helpers -----------------------------------------------------------------------------

    def _lock_echo(self) -> str | None:
        """The lock hash recomputed from what the ability holds now: an unlock shows here."""
        if self.lock is None:
            return None
        return lock_constraints(list(self.lock.get("constraints", [])))["hash"]

    def _emit(self, kind: str, **fields: Any) -> None:
        self._ch.send({"op": "emit", "kind": kind, **fields})

    # -- ActionContext -------------------------------------------------------------------------

    def checkpoint(self, kind: str, payload: dict[str, Any]) -> None:
        self._emit("checkpoint", name=kind, payload=payload, lock_echo=self._lock_echo())

    def progress(self, fraction: float, message: str = "") -> None:
        self._emit("progress", payload={"fraction": max(0.0, min(1.0, float(fraction))), "message": message})

    def notice(self, kind: str, payload: dict[str, Any] | None = None) -> None:
        self._emit("notice", name=kind, payload=payload or {})

    def receipt(self, kind: str, payload: dict[str, Any]) -> None:
        self._emit("receipt", name=kind, payload=payload)

    def trace(self, payload: dict[str, Any]) -> None:
        self._emit("trace", payload=payload)

    def artifact(self, kind: str, content: Any, media_type: str = "application/json") -> str:
        """Content-addressed under the seed: a replay with the same seed names the same artifact."""
        digest = hashlib.sha256(self.seed + kind.encode() + b"\0" + canonical_json(content)).hexdigest()
        artifact_id = f"art_{digest[:24]}"
        self._emit("artifact", artifact_id=artifact_id, artifact_kind=kind, media_type=media_type, content=content)
        return artifact_id

    def use(self, steps: int = 0, tokens: int = 0) -> None:
        self._steps += steps
        self._tokens += tokens
        self._emit("usage", steps=self._steps, tokens=self._tokens)
        over = [name for name, used in (("steps", self._steps), ("tokens", self._tokens))
                if self.budgets.get(name) is not None and used > self.budgets[name]]
        if over:
            self._local_stop = True
            limit = self.budgets[over[0]]
            used = self._steps if over[0] == "steps" else self._tokens
            if used > limit * 1.25 + 1:
                raise BudgetExhausted(f"{over[0]} budget exhausted ({used} > {limit})")

    def should_stop(self) -> bool:
        if self._ch.stop_reason is not None or self._local_stop:
            return True
        wall = self.budgets.get("wall_s")
        return wall is not None and time.monotonic() - self._started > wall

    def budget_left(self) -> dict[str, float | int | None]:
        wall = self.budgets.get("wall_s")
        left_wall = None if wall is None else max(0.0, wall - (time.monotonic() - self._started))
        steps, tokens = self.budgets.get("steps"), self.budgets.get("tokens")
        return {
            "wall_s": left_wall,
            "steps": None if steps is None else max(0, steps - self._steps),
            "tokens": None if tokens is None else max(0, tokens - self._tokens),
        }

    def save_partial(self, outputs: dict[str, Any]) -> None:
        self._emit("save_partial", outputs=outputs)

    def metric(self, name: str, value: float) -> None:
        self._emit("metric", name=name, value=value)

    def publish(self, outputs: dict[str, Any]) -> None:
        """Publish outputs before the end (a revision): consumers bound to this action are told."""
        self._emit("publish", outputs=outputs)

    def ask(self, kind: str, payload: dict[str, Any], timeout_s: float | None = None) -> Any:
        if timeout_s is None:
            timeout_s = self.budget_left()["wall_s"]
        self._asks += 1
        marker = f"{self.revision}:{self._asks}".encode()
        request_id = f"req_{hashlib.sha256(self.seed + marker).hexdigest()[:12]}"
        # the parent keeps the deadline (the action parks meanwhile) and answers "expired"
        return self._ch.call({"method": "ask", "kind": kind, "payload": payload, "request_id": request_id,
                              "timeout_s": timeout_s}, None)

    def spawn(self, ability: str, inputs: dict[str, Any], edge: str = "bind",
              budgets: dict[str, Any] | None = None, wait: bool = True) -> dict[str, Any]:
        return self._ch.call(
            {"method": "spawn", "ability": ability, "inputs": inputs, "edge": edge, "budgets": budgets,
             "wait": wait, "lock_echo": self._lock_echo()}, None)

    def rng(self, purpose: str) -> random.Random:
        return derive_rng(self.seed, purpose)


def _dump(model_cls: type[BaseModel], value: Any) -> dict[str, Any]:
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json", by_alias=True)
    return model_cls.model_validate(value).model_dump(mode="json", by_alias=True, exclude_none=True)


def run_job(channel: Channel, msg: dict[str, Any]) -> dict[str, Any]:
    """Run one action to its end and return the ``done`` message."""
    job = msg["job"]
    channel.stop_reason = None
    channel.abandoned = False
    cls = registry.get(job["ability"])
    if cls is None:
        return {"status": "failed", "error": {"reason": "unknown_ability", "message": job["ability"]}}
    ability = cls()
    ctx = WorkerContext(channel, job)
    try:
        inputs = cls.Inputs.model_validate(msg["inputs"])
        outputs = ability.run(ctx, inputs)
        return {"status": "completed", "outputs": _dump(cls.Outputs, outputs)}
    except Parked:
        return {"status": "abandoned"}
    except PartialResult as p:
        outs = p.outputs.model_dump(mode="json") if isinstance(p.outputs, BaseModel) else dict(p.outputs)
        return {"status": "partial", "outputs": outs, "error": {"reason": p.reason, "message": str(p)}}
    except BudgetExhausted as exc:
        return {"status": "partial", "error": {"reason": "budget_exhausted", "message": str(exc)}}
    except AbilityError as exc:
        return {"status": "failed", "error": {"reason": exc.reason, "message": exc.message, "details": exc.details}}
    except TimeoutError as exc:
        return {"status": "partial", "error": {"reason": "input_timeout", "message": str(exc)}}
    except ValidationError as exc:
        return {"status": "failed", "error": {"reason": "invalid_outputs",
                                              "message": str(exc).splitlines()[0]}}
    except RecursionError:
        return {"status": "failed", "error": {"reason": "too_complex", "message": "recursion limit reached"}}
    except MemoryError:
        return {"status": "failed", "error": {"reason": "out_of_memory", "message": "memory limit reached"}}
    except Exception as exc:  # the worker must survive a buggy ability
        tb = traceback.format_exc(limit=8)
        sys.stderr.write(tb)
        return {"status": "failed", "error": {"reason": "internal_error", "message": f"{type(exc).__name__}: {exc}"}}


def preload() -> None:
    """Import every ability and the modules its runs need (``Ability.preload``). By default in a
    thread started once the worker is ready: a run that comes first imports what it needs itself
    (the registry's per-ability locks keep one import of each), so the first action after a cold
    start waits for the interpreter, not for every ability's libraries; runs in those first
    seconds share the worker with the imports. ``METIS_WORKER_PREIMPORT=wait`` imports before
    ready instead (a worker counts as up only once warm)."""
    for name, cls in registry.available().items():
        for module in cls.preload:
            try:
                importlib.import_module(module)
            except Exception as exc:  # the run will fail with the same error: the worker stays up
                sys.stderr.write(f"preload of {module} for {name} failed: {type(exc).__name__}: {exc}\n")


def main() -> None:
    if os.environ.get("METIS_WORKER_UMASK"):
        os.umask(int(os.environ["METIS_WORKER_UMASK"], 8))
    proto_out = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    stray_output_as_json("worker")  # prints and tracebacks: JSON lines on stderr, never into the protocol
    channel = Channel(proto_out, sys.stdin.buffer)
    threading.Thread(target=channel.read_forever, daemon=True).start()
    tracing.setup("metis-worker")  # off unless OTEL_* asks for it (see orchestrator/tracing.py)
    mode = os.environ.get("METIS_WORKER_PREIMPORT", "1")
    if mode == "wait":  # ready only once warm: steady-state runs never share the worker with imports
        preload()
    channel.send({"op": "ready", "pid": os.getpid()})
    if mode == "1":
        threading.Thread(target=preload, daemon=True, name="preload").start()
    while True:
        with channel.job_ready:
            while not channel.jobs:
                channel.job_ready.wait()
            msg = channel.jobs.pop(0)
        result = tracing.traced_run(run_job, channel, msg)
        try:
            channel.send({"op": "done", **result})
        except ValueError as exc:  # outputs not JSON (NaN...)
            channel.send({"op": "done", "status": "failed",
                          "error": {"reason": "invalid_outputs", "message": str(exc)}})


if __name__ == "__main__":
    main()
