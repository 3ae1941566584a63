"""The scheduler: actions from start to end, on worker processes, with every step in the log.

State lives in memory for speed and is rebuilt from the log's ``state`` records on restart
(the log is the source of truth). Each action runs on one worker process; its messages become
log records in order. Budgets: ``wall_s`` is a timer, ``steps``/``tokens`` are charged by the
ability; a breach starts a grace period (``budget_grace`` notice, stop signal), after which the
worker is killed and the action ends ``partial`` with the outputs it last saved.
"""

from __future__ import annotations

import asyncio
import hashlib
import secrets
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import structlog
from pydantic import ValidationError

from abilities import registry
from abilities.lock import lock_constraints
from orchestrator.errors import RpcError
from orchestrator.graph import ActionGraph, CycleError
from orchestrator.lifecycle import ENDED_EVENT, TERMINAL, Status, check_transition
from orchestrator.seeds import derive_seed, fingerprint
from orchestrator.workers import WorkerPool, WorkerProc
from receipts.canonical import canonical_json
from receipts.log import Entry, ReceiptLog, utc_now

log = structlog.get_logger("metis.scheduler")

DEFAULT_WALL_S = 300.0


def params_hash(params: dict[str, Any]) -> str:
    return hashlib.sha256(canonical_json(params)).hexdigest()


def outputs_hash(outputs: Any) -> str:
    return hashlib.sha256(canonical_json(outputs)).hexdigest()


@dataclass
class Action:
    """One action: its public view fields plus what the scheduler needs to run it."""

    action_id: str
    tenant: str
    ability: str
    topic: str
    inputs: dict[str, Any]
    seed: bytes
    budgets: dict[str, Any]
    edges: list[dict[str, str]]
    created_at: str
    status: Status = Status.QUEUED
    revision: int = 1
    started_at: str | None = None
    ended_at: str | None = None
    usage: dict[str, Any] = field(default_factory=lambda: {"wall_s": 0.0, "steps": 0, "tokens": 0})
    outputs: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    lock: dict[str, Any] | None = None
    parent_id: str | None = None
    idempotency_key: str | None = None
    params_hash: str | None = None
    traceparent: str | None = None
    risk_class: str | None = None
    bound: dict[str, dict[str, Any]] = field(default_factory=dict)  # dep id -> {revision, outputs_hash}
    updates: dict[str, int] = field(default_factory=dict)  # dep id -> newer revision on offer
    # runtime only
    worker: WorkerProc | None = None
    pending: dict[str, int] = field(default_factory=dict)  # request_id -> worker call id
    request_kinds: dict[str, str] = field(default_factory=dict)
    requests: dict[str, dict[str, Any]] = field(default_factory=dict)  # request_id -> waiting_user payload
    partial_outputs: dict[str, Any] | None = None
    grace: bool = False
    stop_cause: str | None = None  # why we killed the worker: budget | cancel
    breach: dict[str, Any] | None = None
    blocked: bool = False
    t0: float = 0.0
    timers: list[asyncio.TimerHandle] = field(default_factory=list)
    ended: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def seed_fingerprint(self) -> str:
        return fingerprint(self.seed)

    def view(self) -> dict[str, Any]:
        """ActionView of the contract: boundary-only."""
        v: dict[str, Any] = {
            "action_id": self.action_id,
            "ability": self.ability,
            "topic": self.topic,
            "status": str(self.status),
            "revision": self.revision,
            "created_at": self.created_at,
            "budgets": self.budgets,
            "usage": self.usage,
            "seed_fingerprint": self.seed_fingerprint,
            "edges": self.edges,
        }
        for key in ("started_at", "ended_at", "outputs", "error", "parent_id"):
            value = getattr(self, key)
            if value is not None:
                v[key] = value
        if self.lock is not None:
            v["lock_hash"] = self.lock["hash"]
        if self.pending:  # open questions, as their action_waiting_user payloads
            v["pending"] = [self.requests[rid] for rid in self.pending if rid in self.requests]
        return v

    def run_message(self, dependencies: dict[str, dict[str, Any]]) -> dict[str, Any]:
        """The worker protocol's ``run`` message for this action (see orchestrator/worker.py)."""
        return {"op": "run", "inputs": self.inputs, "job": {
            "action_id": self.action_id, "topic": self.topic, "tenant": self.tenant, "ability": self.ability,
            "revision": self.revision, "seed": self.seed.hex(), "seed_fingerprint": self.seed_fingerprint,
            "budgets": self.budgets, "lock": self.lock, "dependencies": dependencies,
            "risk_class": self.risk_class}}

    def internal(self) -> dict[str, Any]:
        """What a restart needs beyond the view (kept in the log, shown only to reviewers)."""
        return {
            "tenant": self.tenant,
            "inputs": self.inputs,
            "seed": self.seed.hex(),
            "lock": self.lock,
            "idempotency_key": self.idempotency_key,
            "params_hash": self.params_hash,
            "traceparent": self.traceparent,
            "risk_class": self.risk_class,
            "bound": self.bound,
        }


class Scheduler:
    """Starts, runs, ends and recovers actions. All methods run on the event loop."""

    def __init__(self, receipt_log: ReceiptLog, pool: WorkerPool, server_key: bytes,
                 max_concurrent: int = 4, max_wall_s: float = 3600.0) -> None:
        self.log = receipt_log
        self.pool = pool
        self.key = server_key
        self.max_concurrent = max_concurrent
        self.max_wall_s = max_wall_s
        self.actions: dict[str, Action] = {}
        self.graph = ActionGraph()
        self.idempotency: dict[tuple[str, str], str] = {}
        self._ready: deque[str] = deque()
        self._active = 0
        self._tasks: set[asyncio.Task] = set()
        self.on_ended: list[Callable[[Action], None]] = []
        self.approval_hook: Callable[[Action, str, dict[str, Any]], None] | None = None
        self.counters: dict[str, int] = {"started": 0, "ended": 0}

    # -- records ----------------------------------------------------------------------------

    def event(self, a: Action, name: str, payload: dict[str, Any], kind: str | None = None) -> Entry:
        body: dict[str, Any] = {"ability": a.ability, "revision": a.revision, "payload": payload}
        if kind is not None:
            body["kind"] = kind
        if a.lock is not None and name == "action_checkpoint":
            body["lock"] = a.lock["hash"]
        return Entry("event", name, a.tenant, body, topic=a.topic, action_id=a.action_id, stream=True)

    def record(self, a: Action, rtype: str, name: str, payload: dict[str, Any], ref: str | None = None) -> Entry:
        if a.traceparent and rtype in ("receipt", "state"):
            payload = {**payload, "traceparent": a.traceparent}
        return Entry(rtype, name, a.tenant, payload, topic=a.topic, action_id=a.action_id, ref=ref)

    def state_entry(self, a: Action, name: str, full: bool = False) -> Entry:
        payload: dict[str, Any] = {"view": a.view()}
        if full:
            payload["internal"] = a.internal()
        return self.record(a, "state", name, payload)

    def _submit(self, entries: list[Entry]) -> None:
        """Queue records in order without waiting (ordering is preserved by the log's queue)."""
        self.log.submit(entries)

    # -- starting -----------------------------------------------------------------------------

    def validate_inputs(self, ability: str, inputs: dict[str, Any]) -> tuple[type, Any]:
        cls = registry.get(ability)
        if cls is None:
            raise RpcError(-32602, f"unknown ability {ability!r}",
                           {"errors": [{"loc": ["ability"], "msg": f"unknown ability {ability!r}",
                                        "known": sorted(registry.available())}]})
        try:
            model = cls.Inputs.model_validate(inputs)
        except ValidationError as exc:
            errors = [{"loc": ["inputs", *e["loc"]], "msg": e["msg"], "type": e["type"]}
                      for e in exc.errors(include_url=False, include_context=False, include_input=False)]
            raise RpcError(-32602, "invalid inputs for " + ability, {"errors": errors}) from None
        return cls, model

    async def start(self, tenant: str, params: dict[str, Any], parent: Action | None = None) -> Action:
        """Validate, lock, link, record and queue a new action (``actions.start``)."""
        ability = params["ability"]
        inputs = params.get("inputs") or {}
        key = params.get("idempotency_key")
        try:
            phash = params_hash({k: v for k, v in params.items() if k != "_meta"})
        except ValueError as exc:  # lone surrogates, non-finite numbers: name the field if the model can
            self.validate_inputs(ability, inputs)
            raise RpcError(-32602, "params are not representable as JSON text",
                           {"errors": [{"loc": ["inputs"], "msg": str(exc)[:200]}]}) from None
        if key is not None and (tenant, key) in self.idempotency:
            existing = self.actions[self.idempotency[(tenant, key)]]
            if existing.params_hash != phash:
                raise RpcError(-32009, "idempotency_key already used with other params",
                               {"action_id": existing.action_id})
            return existing
        cls, model = self.validate_inputs(ability, inputs)
        edges = [{"kind": e["kind"], "action_id": e["action_id"]} for e in params.get("edges") or []]
        for e in edges:
            other = self.actions.get(e["action_id"])
            if other is None or other.tenant != tenant:
                raise RpcError(-32004, f"unknown action in edges: {e['action_id']}", {"edge": e})
        action_id = "act_" + secrets.token_hex(10)
        budgets = dict(params.get("budgets") or {})
        budgets.setdefault("wall_s", DEFAULT_WALL_S)
        budgets = {"wall_s": min(float(budgets["wall_s"]), self.max_wall_s),
                   "tokens": budgets.get("tokens"), "steps": budgets.get("steps")}
        purpose = (params.get("seed") or {}).get("purpose")
        a = Action(
            action_id=action_id, tenant=tenant, ability=ability,
            topic=params.get("topic") or (parent.topic if parent else action_id),
            inputs=inputs, seed=derive_seed(self.key, tenant, ability, action_id, purpose),
            budgets=budgets, edges=edges, created_at=utc_now(), parent_id=parent.action_id if parent else None,
            idempotency_key=key, params_hash=phash, risk_class=params.get("risk_class"),
            traceparent=((params.get("_meta") or {}).get("traceparent")),
        )
        own = cls().constraints(model)
        inherited = parent.lock if parent else None
        if own:
            a.lock = lock_constraints(own)
            # a sub-action may add constraints of its own but never drop a locked one
            if inherited and not set(inherited["constraints"]) <= set(a.lock["constraints"]):
                missing = sorted(set(inherited["constraints"]) - set(a.lock["constraints"]))
                raise ConstraintViolation(f"sub-action drops locked constraints: {missing}")
            if inherited:
                a.lock["inherited_hash"] = inherited["hash"]
        elif inherited:
            a.lock = inherited
        try:
            self.graph.add_action(action_id, [(e["kind"], e["action_id"]) for e in edges])
        except CycleError as exc:
            raise RpcError(-32009, str(exc), {"edges": edges}) from None
        self.actions[action_id] = a
        if key is not None:
            self.idempotency[(tenant, key)] = action_id
        entries = [self.state_entry(a, "created", full=True)]
        for e in edges:
            entries.append(self.event(a, "action_linked", {"edge": e["kind"], "action_id": e["action_id"],
                                                            "direction": "consumer"}))
        await self.log.append(entries)
        self.counters["started"] += 1
        self._schedule(a)
        return a

    def _schedule(self, a: Action) -> None:
        """Queue it, or park it ``waiting`` on its edges."""
        blockers = self._blockers(a)
        if blockers is None:
            return
        if blockers:
            if a.status != Status.WAITING:
                self._set_status(a, Status.WAITING, extra={"waiting_on": blockers})
            return
        if a.status == Status.WAITING:
            self._set_status(a, Status.QUEUED)
        self._ready.append(a.action_id)
        self._dispatch()

    def _blockers(self, a: Action) -> list[str] | None:
        """Producers not ready yet; None if one failed (then ``a`` has been failed)."""
        waiting: list[str] = []
        for kind, pid in self.graph.producers(a.action_id):
            p = self.actions[pid]
            if kind == "waitFor":
                if p.status not in TERMINAL:
                    waiting.append(pid)
            elif kind == "bind" and p.outputs is not None and p.status not in (Status.FAILED, Status.CANCELLED):
                continue
            elif p.status == Status.COMPLETED:
                continue
            elif p.status in TERMINAL:
                self._finish(a, Status.FAILED, error={"reason": "dependency_failed",
                                                      "message": f"{kind} {pid} ended {p.status}"})
                return None
            else:
                waiting.append(pid)
        return waiting

    def _dependencies(self, a: Action) -> dict[str, dict[str, Any]]:
        """Current outputs of the producers ``a`` depends on or binds, by action id."""
        return {pid: {"kind": kind, "revision": self.actions[pid].revision, "outputs": self.actions[pid].outputs}
                for kind, pid in self.graph.producers(a.action_id, ("dependsOn", "bind"))}

    def _dispatch(self) -> None:
        while self._ready and self._active < self.max_concurrent:
            a = self.actions[self._ready.popleft()]
            if a.status != Status.QUEUED:
                continue
            self._active += 1
            task = asyncio.get_running_loop().create_task(self._run(a))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    # -- running ----------------------------------------------------------------------------

    async def _run(self, a: Action) -> None:
        worker: WorkerProc | None = None
        structlog.contextvars.bind_contextvars(action_id=a.action_id, ability=a.ability)  # this task's context
        try:
            worker = await self.pool.acquire()
            if a.status != Status.QUEUED:  # cancelled while waiting for a worker
                await self.pool.release(worker)
                return
            a.worker = worker
            a.grace, a.stop_cause, a.breach, a.partial_outputs = False, None, None, None
            deps = self._dependencies(a)
            for pid, dep in deps.items():  # bind => lock the revision this run sees
                if dep["kind"] == "bind":
                    a.bound[pid] = {"revision": dep["revision"], "outputs_hash": outputs_hash(dep["outputs"])}
            a.t0 = time.monotonic()
            a.started_at = utc_now()
            self._set_status(a, Status.RUNNING, event=("action_started", {
                "seed_fingerprint": a.seed_fingerprint, "lock": a.lock, "bound": a.bound or None,
                "budgets": a.budgets}))
            wall = a.budgets["wall_s"]
            loop = asyncio.get_running_loop()
            a.timers.append(loop.call_later(wall, self._breach, a, {"budget": "wall_s", "limit": wall}))
            worker.send(a.run_message(deps))
            done: dict[str, Any] | None = None
            async for msg in worker.messages():
                if msg["op"] == "done":
                    done = msg
                    break
                await self._on_message(a, worker, msg)
            await self._conclude(a, worker, done)
        except Exception as exc:  # never leave an action hanging
            log.exception("action_run_failed", action_id=a.action_id)
            if a.status not in TERMINAL:
                self._finish(a, Status.FAILED, error={"reason": "internal_error", "message": str(exc)})
        finally:
            if not a.blocked:
                self._active -= 1
            a.blocked = False
            for t in a.timers:
                t.cancel()
            a.timers.clear()
            a.worker = None
            if worker is not None:
                if worker.alive and a.status in TERMINAL and a.stop_cause is None:
                    await self.pool.release(worker)
                else:
                    self.pool.discard(worker)
            self._dispatch()

    async def _conclude(self, a: Action, worker: WorkerProc, done: dict[str, Any] | None) -> None:
        a.usage["wall_s"] = round(time.monotonic() - a.t0, 6)
        if a.status in TERMINAL:
            return
        if done is None:  # the worker died or was killed
            if a.stop_cause == "cancel":
                self._finish(a, Status.CANCELLED, error={"reason": "cancelled", "message": a.breach or ""})
            elif a.stop_cause == "budget":
                outs = dict(a.partial_outputs or {})
                outs["incomplete"] = True
                self._finish(a, Status.PARTIAL, outputs=outs,
                             error={"reason": "budget_exhausted", **(a.breach or {})})
            else:
                self._finish(a, Status.FAILED, error={"reason": "worker_crashed",
                                                      "message": f"worker exited with {worker.proc.returncode}"})
            return
        status = Status(done["status"])
        outputs = done.get("outputs")
        if status == Status.PARTIAL:
            outputs = dict(outputs or a.partial_outputs or {})
            outputs["incomplete"] = True
        self._finish(a, status, outputs=outputs, error=done.get("error"))

    async def _on_message(self, a: Action, worker: WorkerProc, msg: dict[str, Any]) -> None:
        op, kind = msg["op"], msg.get("kind")
        if op == "emit":
            if kind == "checkpoint":
                if a.lock is not None and msg.get("lock_echo") != a.lock["hash"]:
                    self._violation(a, worker, "checkpoint echoed a lock that differs from the locked set")
                    return
                self._submit([self.event(a, "action_checkpoint", msg["payload"], kind=msg["name"])])
            elif kind == "progress":
                self._submit([self.event(a, "action_progress", msg["payload"])])
            elif kind == "notice":
                self._submit([self.event(a, "action_notice", msg["payload"], kind=msg["name"])])
            elif kind == "receipt":
                self._submit([self.record(a, "receipt", msg["name"], msg["payload"])])
            elif kind == "trace":
                self._submit([self.record(a, "trace", "trace", msg["payload"])])
            elif kind == "artifact":
                self._submit([self.record(a, "artifact", msg["artifact_kind"], {
                    "artifact_id": msg["artifact_id"], "kind": msg["artifact_kind"],
                    "media_type": msg["media_type"], "content": msg["content"]}, ref=msg["artifact_id"])])
            elif kind == "usage":
                a.usage["steps"], a.usage["tokens"] = msg["steps"], msg["tokens"]
                for name in ("steps", "tokens"):
                    limit = a.budgets.get(name)
                    if limit is not None and a.usage[name] > limit:
                        self._breach(a, {"budget": name, "limit": limit, "used": a.usage[name]})
            elif kind == "save_partial":
                a.partial_outputs = msg["outputs"]
            elif kind == "publish":
                self._publish(a, msg["outputs"])
        elif op == "call":
            if msg["method"] == "ask":
                self._ask(a, msg)
            elif msg["method"] == "spawn":
                await self._spawn(a, worker, msg)
        elif op == "ask_expired":
            if a.pending.pop(msg["request_id"], None) is not None and not a.pending and a.status == Status.WAITING_USER:
                self._set_status(a, Status.RUNNING, event=("action_notice", {"request_id": msg["request_id"]}),
                                 kind="input_expired")

    def _violation(self, a: Action, worker: WorkerProc, message: str) -> None:
        a.stop_cause = "violation"
        worker.kill()
        self._finish(a, Status.FAILED, error={"reason": "CONSTRAINT_VIOLATION", "message": message,
                                              "lock_hash": a.lock["hash"] if a.lock else None})

    def _ask(self, a: Action, msg: dict[str, Any]) -> None:
        rid = msg["request_id"]
        a.pending[rid] = msg["call_id"]
        a.request_kinds[rid] = msg["kind"]
        payload = {"request_id": rid, "kind": msg["kind"], **msg["payload"]}
        a.requests[rid] = payload
        self._set_status(a, Status.WAITING_USER, event=("action_waiting_user", payload))
        if msg["kind"] == "approval" and self.approval_hook is not None:
            self.approval_hook(a, rid, msg["payload"])

    async def answer(self, a: Action, request_id: str, value: Any, source: str) -> None:
        """``actions.input`` (or an approval decision): wake the ability that asked."""
        call_id = a.pending.pop(request_id, None)
        if call_id is None or a.worker is None:
            raise RpcError(-32009, f"no open request {request_id!r} on {a.action_id}")
        await self.log.append([self.record(a, "receipt", "input", {"request_id": request_id,
                                                                     "source": source, "value": value})])
        a.worker.send({"op": "reply", "call_id": call_id, "value": value})
        if not a.pending and a.status == Status.WAITING_USER:
            self._set_status(a, Status.RUNNING)

    async def _spawn(self, a: Action, worker: WorkerProc, msg: dict[str, Any]) -> None:
        if a.lock is not None and msg.get("lock_echo") != a.lock["hash"]:
            self._violation(a, worker, "sub-action echoed a lock that differs from the locked set")
            return
        params = {"ability": msg["ability"], "inputs": msg["inputs"], "budgets": msg.get("budgets")}
        if msg.get("budgets") is None:
            left = max(1.0, a.budgets["wall_s"] - (time.monotonic() - a.t0))
            params["budgets"] = {"wall_s": left}
        try:
            child = await self.start(a.tenant, params, parent=a)
        except ConstraintViolation as exc:
            self._violation(a, worker, str(exc))
            return
        except RpcError as exc:
            worker.send({"op": "reply", "call_id": msg["call_id"], "error": exc.message, "reason": "spawn_refused"})
            return
        edge = msg.get("edge") or "bind"
        self.graph.g.add_edge(a.action_id, child.action_id, kind=edge)
        link = {"edge": edge, "action_id": child.action_id, "direction": "consumer"}
        a.edges.append({"kind": edge, "action_id": child.action_id})
        self._submit([self.event(a, "action_linked", link)])
        if not msg.get("wait", True):
            worker.send({"op": "reply", "call_id": msg["call_id"], "value": child.view()})
            return
        # while blocked on a child, this action does not hold a concurrency slot
        a.blocked = True
        self._active -= 1
        self._dispatch()

        async def wake() -> None:
            await child.ended.wait()
            if a.blocked:
                a.blocked = False
                self._active += 1
            if child.status == Status.COMPLETED and edge == "bind":
                a.bound[child.action_id] = {"revision": child.revision, "outputs_hash": outputs_hash(child.outputs)}
            if worker.alive:
                worker.send({"op": "reply", "call_id": msg["call_id"], "value": child.view()})

        task = asyncio.get_running_loop().create_task(wake())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _publish(self, a: Action, outputs: dict[str, Any]) -> None:
        """A producer's new outputs: a revision; bound consumers get ``update_available``."""
        if a.outputs is not None and outputs_hash(a.outputs) != outputs_hash(outputs):
            a.revision += 1
        a.outputs = outputs
        self._submit([self.state_entry(a, "published")])
        self._offer_update(a)
        for _, cid in self.graph.consumers(a.action_id, ("bind",)):
            c = self.actions[cid]
            if c.status == Status.WAITING:
                self._schedule(c)

    def _offer_update(self, producer: Action) -> None:
        for _, cid in self.graph.consumers(producer.action_id, ("bind",)):
            c = self.actions[cid]
            held = c.bound.get(producer.action_id)
            if held is None or held["revision"] >= producer.revision:
                continue
            c.updates[producer.action_id] = producer.revision
            self._submit([self.event(c, "action_notice", {
                "dependency_id": producer.action_id, "revision": producer.revision,
                "held_revision": held["revision"]}, kind="update_available")])

    # -- budgets and ending -------------------------------------------------------------------

    def _breach(self, a: Action, breach: dict[str, Any]) -> None:
        if a.status in TERMINAL or a.grace or a.worker is None:
            return
        a.grace = True
        a.breach = breach
        grace_s = min(5.0, max(0.5, 0.1 * a.budgets["wall_s"]))
        self._submit([self.event(a, "action_notice", {**breach, "grace_s": grace_s}, kind="budget_grace")])
        worker = a.worker
        try:
            worker.send({"op": "stop", "reason": "budget_grace"})
        except Exception:
            pass

        def freeze() -> None:
            if a.status not in TERMINAL and a.worker is worker:
                a.stop_cause = "budget"
                worker.kill()

        a.timers.append(asyncio.get_running_loop().call_later(grace_s, freeze))

    def _set_status(self, a: Action, status: Status, event: tuple[str, dict[str, Any]] | None = None,
                    kind: str | None = None, extra: dict[str, Any] | None = None) -> None:
        check_transition(a.status, status)
        a.status = status
        entries = [self.state_entry(a, str(status))]
        if event is not None:
            entries.append(self.event(a, event[0], event[1], kind=kind))
        elif extra is not None:
            entries.append(self.event(a, "action_progress", {"status": str(status), **extra}))
        self._submit(entries)

    def _finish(self, a: Action, status: Status, outputs: dict[str, Any] | None = None,
                error: dict[str, Any] | None = None) -> None:
        if a.status in TERMINAL:
            return
        if status == Status.QUEUED:
            raise ValueError("not an end")
        a.status = status
        a.ended_at = utc_now()
        if a.t0:
            a.usage["wall_s"] = round(time.monotonic() - a.t0, 6)
        if outputs is not None:
            if a.outputs is not None and status == Status.COMPLETED and outputs_hash(a.outputs) != outputs_hash(outputs):
                a.revision += 1  # final outputs differ from the ones published earlier
            a.outputs = outputs
        a.error = error
        payload: dict[str, Any] = {"status": str(status)}
        if outputs is not None:
            payload["outputs"] = outputs
        if error is not None:
            payload["error"] = error
        entries = [self.state_entry(a, str(status)), self.event(a, ENDED_EVENT[status], payload)]
        for _, other in self.graph.producers(a.action_id, ("notify",)):
            o = self.actions[other]
            entries.append(self.event(o, "action_notice", {"action_id": a.action_id, "status": str(status)},
                                      kind="linked_ended"))
        self._submit(entries)
        self.counters["ended"] += 1
        a.ended.set()
        a.pending.clear()
        for hook in self.on_ended:
            hook(a)
        if status == Status.COMPLETED:
            self._offer_update(a)
        for _, cid in self.graph.consumers(a.action_id, ("dependsOn", "waitFor", "bind")):
            c = self.actions[cid]
            if c.status == Status.WAITING:
                self._schedule(c)
        # sub-actions die with their parent
        if status in (Status.CANCELLED, Status.FAILED):
            for child in self.actions.values():
                if child.parent_id == a.action_id and child.status not in TERMINAL:
                    self.cancel(child, reason=f"parent {a.action_id} ended {status}")

    def cancel(self, a: Action, reason: str | None = None) -> None:
        """``actions.cancel``: queued/waiting end at once; running ones have their worker killed."""
        if a.status in TERMINAL:
            raise RpcError(-32009, f"action {a.action_id} already ended ({a.status})")
        if a.worker is not None:
            a.stop_cause = "cancel"
            a.breach = reason or "cancelled by client"  # type: ignore[assignment]
            self._finish(a, Status.CANCELLED, error={"reason": "cancelled", "message": reason or "cancelled by client"})
            a.worker.kill()
        else:
            self._finish(a, Status.CANCELLED, error={"reason": "cancelled", "message": reason or "cancelled by client"})

    async def accept_update(self, a: Action, dependency_id: str) -> None:
        """Take a bind bump: re-lock on the dependency's new outputs and re-run as a new revision."""
        if dependency_id not in a.updates:
            raise RpcError(-32009, f"no update available from {dependency_id} on {a.action_id}")
        if a.status not in (Status.COMPLETED, Status.PARTIAL):
            raise RpcError(-32009, f"action {a.action_id} is {a.status}: accept the update after it ends")
        a.updates.pop(dependency_id)
        a.revision += 1
        a.status = Status.QUEUED
        a.outputs, a.error, a.ended_at = None, None, None
        a.ended = asyncio.Event()
        await self.log.append([self.state_entry(a, "revised"), self.event(a, "action_notice", {
            "dependency_id": dependency_id, "revision": a.revision}, kind="structure_revision")])
        self._schedule(a)

    # -- replay -------------------------------------------------------------------------------

    async def replay(self, a: Action) -> dict[str, Any]:
        """Re-run ``a`` on a worker with its recorded seed, inputs, answers and sub-action results;
        nothing is emitted. Returns the outputs as the scheduler would have recorded them."""
        answers = deque(r.payload["value"] for r in self.log.read_action(a.action_id, ["receipt"])
                        if r.name == "input")
        children = deque(c.view() for c in self.actions.values() if c.parent_id == a.action_id)
        deps = self._dependencies(a)
        worker = await self.pool.acquire()
        done: dict[str, Any] | None = None
        try:
            worker.send(a.run_message(deps))

            async def drive() -> dict[str, Any] | None:
                async for msg in worker.messages():
                    if msg["op"] == "done":
                        return msg
                    if msg["op"] == "call":
                        source = answers if msg["method"] == "ask" else children
                        if source:
                            worker.send({"op": "reply", "call_id": msg["call_id"], "value": source.popleft()})
                        else:
                            worker.send({"op": "reply", "call_id": msg["call_id"], "error": "not recorded"})
                return None

            done = await asyncio.wait_for(drive(), a.budgets["wall_s"] + 5)
        except TimeoutError:
            worker.kill()
        finally:
            if worker.alive and done is not None:
                await self.pool.release(worker)
            else:
                self.pool.discard(worker)
        if done is None:
            return {"incomplete": True, "replay_error": "did not finish"}
        outputs = dict(done.get("outputs") or {})
        if done["status"] == "partial":
            outputs["incomplete"] = True
        return outputs

    # -- restart ------------------------------------------------------------------------------

    async def recover(self) -> dict[str, int]:
        """Rebuild from the log: interrupted runs end ``failed``; queued and waiting ones run."""
        latest: dict[str, dict[str, Any]] = {}
        internal: dict[str, dict[str, Any]] = {}
        for rec in self.log.iter_control():
            if rec.type != "state":
                continue
            latest[rec.action_id] = rec.payload["view"]
            if "internal" in rec.payload:
                internal[rec.action_id] = rec.payload["internal"]
        counts = {"interrupted": 0, "requeued": 0, "restored": 0}
        for aid, v in latest.items():
            meta = internal[aid]
            a = Action(action_id=aid, tenant=meta["tenant"], ability=v["ability"], topic=v["topic"],
                       inputs=meta["inputs"], seed=bytes.fromhex(meta["seed"]), budgets=v["budgets"],
                       edges=v["edges"], created_at=v["created_at"], status=Status(v["status"]),
                       revision=v["revision"], started_at=v.get("started_at"), ended_at=v.get("ended_at"),
                       usage=v["usage"], outputs=v.get("outputs"), error=v.get("error"), lock=meta.get("lock"),
                       parent_id=v.get("parent_id"), idempotency_key=meta.get("idempotency_key"),
                       params_hash=meta.get("params_hash"), traceparent=meta.get("traceparent"),
                       risk_class=meta.get("risk_class"), bound=meta.get("bound") or {})
            self.actions[aid] = a
            self.graph.g.add_node(aid)
            for e in a.edges:
                self.graph.g.add_edge(aid, e["action_id"], kind=e["kind"])
            if a.idempotency_key:
                self.idempotency[(a.tenant, a.idempotency_key)] = aid
            if a.status in TERMINAL:
                a.ended.set()
            counts["restored"] += 1
        for a in self.actions.values():
            if a.status in (Status.RUNNING, Status.WAITING_USER):
                self._finish(a, Status.FAILED, error={"reason": "interrupted",
                                                      "message": "the server stopped while this action ran"})
                counts["interrupted"] += 1
        for a in list(self.actions.values()):
            if a.status in (Status.QUEUED, Status.WAITING):
                counts["requeued"] += 1
                self._schedule(a)
        return counts

    async def close(self) -> None:
        for t in list(self._tasks):
            t.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)


class ConstraintViolation(Exception):
    """A sub-action or checkpoint would unlock the action's locked constraints."""
