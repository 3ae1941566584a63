"""The scheduler: actions from start to end, on worker processes, with every step in the log.

The log is the source of truth; memory is a cache of it that clients only see through durable
views: every record goes through one ordered ``Outbox``, and a view, an end or a wake-up becomes
visible only once its record is durable.

Durable execution (see docs/architecture.md, "Durable execution"):
- A worker process is held only while an action computes. An action that waits on a person (an
  ``ask``, an approval) or on a sub-action *parks*: its worker unwinds the run and takes other
  work, and the action holds no concurrency slot.
- When the awaited thing arrives, any worker *resumes* it by replaying the run from its recorded
  history (``orchestrator/history.py``): the same seed, inputs and dependencies, recorded replies
  to its calls, and every record it caused checked against the log and not written again. When
  the history is used up, the run continues live. A replayed step that differs from the log ends
  the action ``failed`` with reason ``nondeterministic``.
- A run whose worker or server died is resumed the same way under the action's retry policy
  (recorded at creation: attempts, backoff); only an action that exhausts its attempts fails.

Budgets: ``wall_s`` runs from the first start across parks and restarts (its deadline is
recorded), ``steps``/``tokens`` are charged by the ability; a breach starts a grace period
(``budget_grace`` notice, stop signal), after which the worker is killed and the action ends
``partial`` with the outputs it last saved.

Worker tier (PostgreSQL, ``orchestrator/replicas.py``): every process keeps every action's view
from the log (a *mirror*); an action runs only where its job is leased (``Tier.owns``). Ready
actions this process does not hold become jobs any worker claims; a claimed job is ``adopt``-ed:
rebuilt from the log and run, resumed by replay, or parked again. Embedded (no tier): one
process holds every action, as before.

Fair share: ready actions queue per tenant; a free slot goes to the tenant with the fewest running
actions among those under their share (ceil(slots / tenants with work)). A tenant alone may use
every slot but one when other tenants exist, so a newcomer never waits behind a backlog.
"""

from __future__ import annotations

import asyncio
import hashlib
import secrets
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import structlog
from pydantic import ValidationError

from abilities import registry
from abilities.lock import lock_constraints
from orchestrator import observe, tracing
from orchestrator.errors import RpcError, StorageUnavailable
from orchestrator.graph import ActionGraph, CycleError
from orchestrator.history import Call, Emit, History, describe, matches, read_history, same
from orchestrator.lifecycle import ENDED_EVENT, TERMINAL, Status, check_transition
from orchestrator.outbox import Outbox, Probe
from orchestrator.seeds import derive_seed, fingerprint
from orchestrator.shared_state import KeyClaims, LocalState
from orchestrator.workers import WorkerPool, WorkerProc
from receipts.canonical import canonical_json
from receipts.log import Entry, ReceiptLog, Record, utc_now

log = structlog.get_logger("metis.scheduler")

DEFAULT_WALL_S = 300.0
#: Recorded in each action at creation; a crashed run is retried after backoff_s * multiplier^(n-1).
DEFAULT_RETRY = {"max_attempts": 3, "backoff_s": 0.5, "multiplier": 2.0, "max_backoff_s": 30.0}
PARK = "park"
ABANDON_GRACE_S = 5.0
#: A burst of starts: ``BURST_STARTS`` ``actions.start`` calls waiting for their ``created`` record
#: at once (one connection pipelining hundreds of starts, or many clients at once). From then
#: until no start has begun or ended for ``BURST_QUIET_S``, new runs wait (at most
#: ``BURST_HOLD_S`` per burst), so the event loop answers the burst instead of sharing itself
#: with the runs of its first starts (a short run costs the loop about as much as a start).
BURST_STARTS = 64
BURST_QUIET_S = 0.05
BURST_HOLD_S = 0.5


def params_hash(params: dict[str, Any]) -> str:
    return hashlib.sha256(canonical_json(params)).hexdigest()


def outputs_hash(outputs: Any) -> str:
    return hashlib.sha256(canonical_json(outputs)).hexdigest()


def retry_delay(policy: dict[str, Any], attempt: int) -> float:
    """Backoff before attempt ``attempt + 1`` (attempts count from 1)."""
    delay = float(policy["backoff_s"]) * float(policy["multiplier"]) ** max(0, attempt - 1)
    return round(min(delay, float(policy["max_backoff_s"])), 3)


class Nondeterministic(Exception):
    """A replayed step differs from what the log holds for it."""


@dataclass(slots=True)
class Action:
    """One action: its public view fields plus what the scheduler needs to run it (slots: a parked
    action is only this object, so it is kept small)."""

    action_id: str
    tenant: str
    ability: str
    topic: str
    inputs: dict[str, Any]
    seed: bytes
    budgets: dict[str, Any]
    edges: list[dict[str, Any]]
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
    retry: dict[str, Any] = field(default_factory=lambda: dict(DEFAULT_RETRY))
    run: dict[str, Any] | None = None  # the current run: {revision, deadline, attempt}
    # the last durable view: all a client ever sees (or the committed state record holding it, read
    # only if a client asks before the outbox's callback puts the scheduler's own copy here)
    visible: dict[str, Any] | Record | None = None
    # runtime only
    worker: WorkerProc | None = None
    parked: str | None = None  # "input" | "child" | "retry" while it holds no worker
    resume_pending: bool = False
    in_ready: bool = False
    pending: dict[str, str] = field(default_factory=dict)  # open request_id -> kind
    requests: dict[str, dict[str, Any]] = field(default_factory=dict)  # request_id -> waiting_user payload
    answering: set[str] = field(default_factory=set)
    partial_outputs: dict[str, Any] | None = None
    grace: bool = False
    stop_cause: str | None = None  # why we killed the worker: budget | cancel | violation
    breach: dict[str, Any] | None = None
    t0: float = 0.0
    timers: list[asyncio.TimerHandle] = field(default_factory=list)  # of the running segment
    waits: dict[str, asyncio.TimerHandle] = field(default_factory=dict)  # ask expiries, retry backoff
    ended_durably: bool = False  # its end record is on disk
    _ended: asyncio.Event | None = None  # made only for a caller that waits for the end
    _fingerprint: str | None = None  # of ``seed`` (never changes): every view shows it

    async def wait_ended(self) -> None:
        if not self.ended_durably:
            if self._ended is None:
                self._ended = asyncio.Event()
            await self._ended.wait()

    def mark_ended(self, ended: bool = True) -> None:
        """The end is durable (or, with ``ended=False``, a new revision runs again)."""
        self.ended_durably = ended
        if ended and self._ended is not None:
            self._ended.set()
        elif not ended:
            self._ended = None

    @property
    def seed_fingerprint(self) -> str:
        if self._fingerprint is None:
            self._fingerprint = fingerprint(self.seed)
        return self._fingerprint

    def live_view(self) -> dict[str, Any]:
        """ActionView of the contract from the in-memory state (boundary-only), as a snapshot."""
        v: dict[str, Any] = {
            "action_id": self.action_id,
            "ability": self.ability,
            "topic": self.topic,
            "status": str(self.status),
            "revision": self.revision,
            "created_at": self.created_at,
            "budgets": dict(self.budgets),
            "usage": dict(self.usage),
            "seed_fingerprint": self.seed_fingerprint,
            "edges": [dict(e) for e in self.edges],
        }
        if self.started_at is not None:  # the optional fields, in the view's order (no getattr loop)
            v["started_at"] = self.started_at
        if self.ended_at is not None:
            v["ended_at"] = self.ended_at
        if self.outputs is not None:
            v["outputs"] = self.outputs
        if self.error is not None:
            v["error"] = self.error
        if self.parent_id is not None:
            v["parent_id"] = self.parent_id
        if self.lock is not None:
            v["lock_hash"] = self.lock["hash"]
        if self.pending:  # open questions, as their action_waiting_user payloads
            v["pending"] = [self.requests.get(rid, {"request_id": rid, "kind": kind}) for rid, kind in self.pending.items()]
        return v

    def view(self) -> dict[str, Any]:
        """What clients see: the view of the newest durable state record."""
        v = self.visible
        if v is None:
            return self.live_view()
        if type(v) is not dict:  # a committed record not parsed yet
            v = self.visible = v.payload["view"]
        return v

    def run_message(self, dependencies: dict[str, dict[str, Any]], elapsed_s: float = 0.0) -> dict[str, Any]:
        """The worker protocol's ``run`` message for this action (see orchestrator/worker.py)."""
        revision = self.run["revision"] if self.run else self.revision
        return {"op": "run", "inputs": self.inputs, "job": {
            "action_id": self.action_id, "topic": self.topic, "tenant": self.tenant, "ability": self.ability,
            "revision": revision, "seed": self.seed.hex(), "seed_fingerprint": self.seed_fingerprint,
            "budgets": self.budgets, "elapsed_s": round(elapsed_s, 6), "lock": self.lock,
            "dependencies": dependencies, "risk_class": self.risk_class}}

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
            "retry": self.retry,
        }


class Scheduler:
    """Starts, runs, parks, resumes, ends and recovers actions. All methods run on the event loop."""

    def __init__(self, receipt_log: ReceiptLog, pool: WorkerPool, server_key: bytes,
                 max_concurrent: int = 4, max_wall_s: float = 3600.0, tenants: int = 1,
                 retry: dict[str, Any] | None = None, probe: Probe | None = None) -> None:
        self.log = receipt_log
        self.pool = pool
        self.key = server_key
        self.max_concurrent = max_concurrent
        self.max_wall_s = max_wall_s
        self.tenants = tenants  # configured tenants: >1 keeps one slot free for a newcomer
        self.retry = {**DEFAULT_RETRY, **(retry or {})}
        self.outbox = Outbox(receipt_log, probe)
        self.actions: dict[str, Action] = _Actions(self) if getattr(receipt_log, "tier", None) is not None else {}
        self.graph = ActionGraph()
        self._empty_inputs: dict[type, Any] = {}  # ability class -> its validated empty inputs
        self.idempotency: dict[tuple[str, str], str] = {}
        self._starting: dict[tuple[str, str], asyncio.Event] = {}
        self._creating: dict[str, Action] = {}  # starts whose ``created`` record is being appended
        self.shared_keys = KeyClaims(LocalState(), receipt_log)  # keys other replicas started (set by Service)
        self._ready: dict[str, deque[str]] = {}
        self._turn: deque[str] = deque()  # tenants in round-robin order
        self._running: dict[str, int] = {}
        self._active = 0
        self._starts_pending = 0  # starts between validation and their durable ``created`` record
        self._last_start = 0.0  # loop time a start last began or ended
        self._held_since: float | None = None  # new runs held back by a burst of starts since then
        self._burst_capped = False  # this burst held runs for BURST_HOLD_S: none more until it ends
        self._child_waiters: dict[str, set[str]] = {}
        self._tasks: set[asyncio.Task] = set()
        self._closing = False
        self.on_ended: list[Callable[[Action], None]] = []
        self.approval_hook: Callable[[Action, str, dict[str, Any]], None] | None = None
        self.counters: dict[str, int] = {"started": 0, "ended": 0, "parked": 0, "resumed": 0, "retried": 0,
                                         "nondeterministic": 0, "adopted": 0}
        self.tier: Any = getattr(receipt_log, "tier", None)  # the worker tier (PostgreSQL), or None (embedded)
        receipt_log.add_listener(self._on_commit)

    def _on_commit(self, records: list[Record]) -> None:
        """Views follow the log: called with each committed batch, in the same loop callback that
        hands its events to subscribers, so no client sees an event before the view that goes with it."""
        for rec in records:
            if rec.type == "state" and rec.action_id is not None:
                a = dict.get(self.actions, rec.action_id)  # no look-up in the log: this record is the news
                if a is None and rec.name == "created":
                    a = self._creating.get(rec.action_id)
                    if a is not None:  # it exists once this record is durable, before its start returns
                        self.actions[rec.action_id] = a
                if self.tier is not None and not self.tier.owns(rec.action_id):
                    a = self._mirror(rec, a)
                    if a is not None:
                        a.visible = rec.payload["view"]  # parsed already
                elif a is not None:  # its outbox callback brings the same view, unparsed meanwhile
                    a.visible = rec

    def _mirror(self, rec: Record, a: Action | None) -> Action | None:
        """Follow an action another process runs (or none does) from its state records."""
        p = rec.payload
        v, run = p["view"], p.get("run")
        if a is None:
            if "internal" not in p:
                return None
            a = self._restore(rec.action_id or "", v, p["internal"], run)
            return a
        if "status" not in v:
            return a
        a.status, a.revision = Status(v["status"]), v["revision"]
        a.started_at, a.ended_at, a.usage = v.get("started_at"), v.get("ended_at"), dict(v["usage"])
        a.outputs, a.error = v.get("outputs"), v.get("error")
        for e in v["edges"]:
            if e not in a.edges:
                a.edges.append(e)
                self.graph.add_edge(a.action_id, e["action_id"], e["kind"])
        if run is not None:
            a.run = {k: run[k] for k in ("revision", "deadline", "attempt") if k in run}
        elif rec.name == "revised":
            a.run = None
        a.pending = {q["request_id"]: q.get("kind", "") for q in v.get("pending") or []}
        a.requests = {q["request_id"]: q for q in v.get("pending") or []}
        if a.status in TERMINAL:
            if not a.ended_durably:
                a.mark_ended()
                for pid in self._child_waiters.pop(a.action_id, ()):
                    parent = self.actions.get(pid)
                    if parent is not None and parent.status not in TERMINAL:
                        self._resume(parent)
        elif a.ended_durably:
            a.mark_ended(False)
        for _, cid in self.graph.consumers(a.action_id, ("dependsOn", "waitFor", "bind")):
            c = self.actions.get(cid)  # a producer changed elsewhere: consumers held here may go on
            if c is not None and c.status == Status.WAITING and self.tier.owns(cid):
                self._schedule(c)
        return a

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

    def state_entry(self, a: Action, name: str, full: bool = False,
                    **extra: Any) -> tuple[Entry, Callable[[list[Record]], None]]:
        """A state record of the current in-memory view, and the callback that shows that view
        once the record is durable."""
        snapshot = a.live_view()
        payload: dict[str, Any] = {"view": snapshot, **{k: v for k, v in extra.items() if v is not None}}
        if full:
            payload["internal"] = a.internal()

        def show(_records: list[Record]) -> None:
            a.visible = snapshot

        return self.record(a, "state", name, payload), show

    def _put(self, entries: list[Entry], *callbacks: Callable[[list[Record]], None]) -> None:
        """Queue records in order; retried until durable (see ``Outbox``)."""
        self.outbox.put(entries, *callbacks)

    # -- starting -----------------------------------------------------------------------------

    def validate_inputs(self, ability: str, inputs: dict[str, Any], cls: type | None = None) -> tuple[type, Any]:
        """The ability's class (``cls`` if the caller looked it up) and its validated inputs.
        Valid empty inputs are validated once per class: most starts of a no-input ability
        would otherwise build the same model again."""
        cls = cls or registry.get(ability)
        if cls is None:
            raise RpcError(-32602, f"unknown ability {ability!r}",
                           {"errors": [{"loc": ["ability"], "msg": f"unknown ability {ability!r}",
                                        "known": registry.names()}]})
        if not inputs and cls in self._empty_inputs:
            return cls, self._empty_inputs[cls]
        try:
            model = cls.Inputs.model_validate(inputs)
            if not inputs:
                self._empty_inputs[cls] = model
        except ValidationError as exc:
            errors = [{"loc": ["inputs", *e["loc"]], "msg": e["msg"], "type": e["type"]}
                      for e in exc.errors(include_url=False, include_context=False, include_input=False)]
            raise RpcError(-32602, "invalid inputs for " + ability, {"errors": errors}) from None
        return cls, model

    async def start(self, tenant: str, params: dict[str, Any], parent: Action | None = None) -> Action:
        """Validate, lock, link, record and queue a new action (``actions.start``). The action
        exists (in lists, views, edges) only once its ``created`` record is durable."""
        ability = params["ability"]
        found = await registry.get_async(ability)  # a not-yet-imported ability loads off the event loop
        inputs = params.get("inputs") or {}
        key = params.get("idempotency_key")
        try:
            phash = params_hash({k: v for k, v in params.items() if k != "_meta"} if "_meta" in params else params)
        except ValueError as exc:  # lone surrogates, non-finite numbers: name the field if the model can
            self.validate_inputs(ability, inputs)
            raise RpcError(-32602, "params are not representable as JSON text",
                           {"errors": [{"loc": ["inputs"], "msg": str(exc)[:200]}]}) from None
        if key is not None:
            while (tenant, key) in self._starting:  # the same key in flight: wait for its outcome
                await self._starting[(tenant, key)].wait()
            if (tenant, key) in self.idempotency:
                existing = self.actions[self.idempotency[(tenant, key)]]
                if existing.params_hash != phash:
                    raise RpcError(-32009, "idempotency_key already used with other params",
                                   {"action_id": existing.action_id})
                return existing
        cls, model = self.validate_inputs(ability, inputs, found)
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
            traceparent=((params.get("_meta") or {}).get("traceparent")), retry=dict(self.retry),
        )
        tracing.note_start(action_id)  # this run's span will be a child of the calling span
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
        waiting_on, _ = self._producers_state(a)  # a failed producer fails it once it exists
        if waiting_on:
            a.status = Status.WAITING
        created, show = self.state_entry(a, "created", full=True)
        entries = [created]
        for e in edges:
            entries.append(self.event(a, "action_linked", {"edge": e["kind"], "action_id": e["action_id"],
                                                            "direction": "consumer"}))
        if waiting_on:
            entries.append(self.event(a, "action_progress", {"status": "waiting", "waiting_on": waiting_on}))
        gate = None
        if key is not None:
            gate = self._starting[(tenant, key)] = asyncio.Event()
        self._creating[action_id] = a
        self._starts_pending += 1
        self._last_start = asyncio.get_running_loop().time()
        try:
            if key is None:  # nothing to claim or to wait for (most starts): no gate, no context manager
                await self.outbox.commit(entries, show)
            else:
                async with self.shared_keys.claim(tenant, key, phash, action_id):  # raises StartedElsewhere
                    await self.outbox.commit(entries, show)
        except BaseException:
            if dict.get(self.actions, action_id) is not a:  # not durable: nothing of it stays behind
                self.graph.remove_node(action_id)
            raise
        finally:
            self._creating.pop(action_id, None)
            self._starts_pending -= 1
            self._last_start = asyncio.get_running_loop().time()
            if gate is not None:
                self._starting.pop((tenant, key), None)
                gate.set()
        self.actions[action_id] = a
        if key is not None:
            self.idempotency[(tenant, key)] = action_id
        self.counters["started"] += 1
        if a.status in TERMINAL:  # cancelled between its durable record and now: its end is recorded
            return a
        if self.tier is not None:
            await self.tier.take(a)  # a process with workers runs what it starts, others queue it
        self._schedule(a)
        return a

    def _producers_state(self, a: Action) -> tuple[list[str], str | None]:
        """(producers not ready yet, a message naming the first one that failed, or None)."""
        waiting: list[str] = []
        failed: str | None = None
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
                failed = failed or f"{kind} {pid} ended {p.status}"
            else:
                waiting.append(pid)
        return waiting, failed

    def _schedule(self, a: Action) -> None:
        """Queue it, or park it ``waiting`` on its edges. In the worker tier, an action held
        elsewhere (or nowhere) is offered to the queue; whoever claims it decides."""
        if self.tier is not None and not self.tier.owns(a.action_id):
            if a.status not in TERMINAL:
                self.tier.offer(a)
            return
        blockers = self._blockers(a)
        if blockers is None:
            return
        if blockers:
            if a.status != Status.WAITING:
                self._set_status(a, Status.WAITING, extra={"waiting_on": blockers})
            return
        if a.status == Status.WAITING:
            self._set_status(a, Status.QUEUED)
        self._enqueue(a)

    def _blockers(self, a: Action) -> list[str] | None:
        """Producers not ready yet; None if one failed (then ``a`` has been failed)."""
        waiting, failed = self._producers_state(a)
        if failed is not None:
            self._finish(a, Status.FAILED, error={"reason": "dependency_failed", "message": failed})
            return None
        return waiting

    def _dependencies(self, a: Action) -> dict[str, dict[str, Any]]:
        """Current outputs of the producers ``a`` depends on or binds, by action id."""
        return {pid: {"kind": kind, "revision": self.actions[pid].revision, "outputs": self.actions[pid].outputs}
                for kind, pid in self.graph.producers(a.action_id, ("dependsOn", "bind"))}

    # -- fair dispatch ------------------------------------------------------------------------

    def _enqueue(self, a: Action, front: bool = False) -> None:
        """Ready for a slot; a resumed run goes ahead of its tenant's fresh starts (``front``)."""
        if a.in_ready or a.status in TERMINAL:
            return
        if self.tier is not None and not self.tier.owns(a.action_id):
            self.tier.submit(a)  # any worker (maybe this one) claims it
            return
        a.in_ready = True
        q = self._ready.setdefault(a.tenant, deque())
        if front:
            q.appendleft(a.action_id)
        else:
            q.append(a.action_id)
        if a.tenant not in self._turn:
            self._turn.append(a.tenant)
        self._dispatch()

    def _head(self, tenant: str) -> Action | None:
        q = self._ready.get(tenant)
        while q:
            a = self.actions.get(q[0])
            if a is not None and a.status in (Status.QUEUED, Status.RUNNING) and a.parked is None and a.worker is None:
                return a
            q.popleft()
            if a is not None:
                a.in_ready = False
        return None

    def _pick(self) -> Action | None:
        """The next action to run: fewest running first among tenants under their share."""
        if len(self._turn) == 1 and len(self._running) <= 1:  # one tenant, nobody else running
            t = self._turn[0]
            if t in self._running or not self._running:
                reserve = 1 if self.tenants > 1 and self.max_concurrent > 1 else 0
                a = self._head(t) if self._running.get(t, 0) < self.max_concurrent - reserve else None
                if a is not None:
                    self._ready[t].popleft()
                    a.in_ready = False
                return a
        queued = [t for t in self._turn if self._head(t) is not None]
        if not queued:
            return None
        demand = set(queued) | {t for t, n in self._running.items() if n > 0}
        slots = self.max_concurrent
        reserve = 1 if self.tenants > 1 and slots > 1 else 0
        share = slots - reserve if len(demand) == 1 else -(-slots // len(demand))
        best: str | None = None
        for t in queued:
            running = self._running.get(t, 0)
            alone = all(o == t for o in queued)
            if running < share or (alone and self._active < slots - reserve):
                if best is None or running < self._running.get(best, 0):
                    best = t
        if best is None:
            return None
        self._turn.remove(best)
        self._turn.append(best)  # round robin among equals
        a = self._head(best)
        assert a is not None
        self._ready[best].popleft()
        a.in_ready = False
        return a

    def _holding(self) -> bool:
        """True while a burst of starts holds new runs back (see ``BURST_STARTS``)."""
        if self._held_since is not None:
            return True
        if self._starts_pending < BURST_STARTS or self._burst_capped:
            return False
        loop = asyncio.get_running_loop()
        self._held_since = loop.time()
        loop.call_later(BURST_QUIET_S / 2, self._check_hold)
        return True

    def _check_hold(self) -> None:
        """Ends the hold once the burst is over or has held runs for ``BURST_HOLD_S``; while the
        burst lasts, checks again a little later."""
        loop = asyncio.get_running_loop()
        now = loop.time()
        if now - self._last_start >= BURST_QUIET_S and self._starts_pending < BURST_STARTS:
            self._burst_capped = False  # over
        elif self._held_since is not None and now - self._held_since >= BURST_HOLD_S:
            self._burst_capped = True  # runs go on; the burst is still watched for its end
        else:
            loop.call_later(BURST_QUIET_S / 2, self._check_hold)
            return
        if self._held_since is not None:
            self._held_since = None
            self._dispatch()
        if self._burst_capped:
            loop.call_later(BURST_QUIET_S / 2, self._check_hold)

    def _dispatch(self) -> None:
        if self._holding():
            return
        while self._active < self.max_concurrent and not self._closing:
            a = self._pick()
            if a is None:
                return
            self._active += 1
            self._running[a.tenant] = self._running.get(a.tenant, 0) + 1
            a.worker = _CLAIMED
            task = asyncio.get_running_loop().create_task(self._run(a))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    def tenant_stats(self) -> dict[str, dict[str, int]]:
        """Per tenant: queued (ready for a slot), running (holding one), parked (holding none)."""
        stats: dict[str, dict[str, int]] = {}
        for t, q in self._ready.items():
            stats.setdefault(t, {"queued": 0, "running": 0, "parked": 0})["queued"] = len(q)
        for t, n in self._running.items():
            stats.setdefault(t, {"queued": 0, "running": 0, "parked": 0})["running"] = n
        for a in self.actions.values():
            if a.parked is not None and a.status not in TERMINAL:
                stats.setdefault(a.tenant, {"queued": 0, "running": 0, "parked": 0})["parked"] += 1
        return stats

    # -- running ----------------------------------------------------------------------------

    async def _run(self, a: Action) -> None:
        """One segment of a run: from a fresh start or a resume (replay) to its end or next park."""
        worker: WorkerProc | None = None
        parked: str | None = None
        structlog.contextvars.bind_contextvars(action_id=a.action_id, ability=a.ability)  # this task's context
        run_span = tracing.start_run(a)
        try:
            if a.status == Status.RUNNING:  # a resume: the history must hold everything queued so far
                await self.outbox.flush()
            worker = await self.pool.acquire()
            if a.status not in (Status.QUEUED, Status.RUNNING):  # cancelled while waiting for a worker
                return
            a.worker = worker
            a.grace, a.stop_cause, a.breach = False, None, None
            if a.status == Status.QUEUED:
                deps = self._dependencies(a)
                for pid, dep in deps.items():  # bind => lock the revision this run sees
                    if dep["kind"] == "bind":
                        a.bound[pid] = {"revision": dep["revision"], "outputs_hash": outputs_hash(dep["outputs"])}
                a.run = {"revision": a.revision, "deadline": round(time.time() + a.budgets["wall_s"], 3),
                         "attempt": 1}
                a.started_at = utc_now()
                a.partial_outputs = None
                self._set_status(a, Status.RUNNING, event=("action_started", {
                    "seed_fingerprint": a.seed_fingerprint, "lock": a.lock, "bound": a.bound or None,
                    "budgets": a.budgets}), run={**a.run, "start": True, "deps": deps})
                steps: deque[Emit | Call] = deque()
            else:
                history = read_history(self.log.read_action(a.action_id))
                deps = (history.run or {}).get("deps") or {}
                steps = deque(history.steps)
                self.counters["resumed"] += 1
            assert a.run is not None
            elapsed = max(0.0, time.time() - (a.run["deadline"] - a.budgets["wall_s"]))
            a.t0 = time.monotonic() - elapsed
            wall = a.budgets["wall_s"]
            a.timers.append(asyncio.get_running_loop().call_later(
                max(0.0, a.run["deadline"] - time.time()), self._breach, a, {"budget": "wall_s", "limit": wall}))
            message = a.run_message(deps, elapsed)
            worker.send(tracing.carry(message) if run_span is not None else message)  # no span: nothing to carry
            done: dict[str, Any] | None = None
            async for msg in worker.messages():
                if msg["op"] == "done":
                    done = msg
                    break
                if await self._on_message(a, worker, msg, steps) == PARK:
                    parked = "input" if a.status == Status.WAITING_USER else "child"
                    break
            if parked is not None:
                await self._abandon(worker)
                self.counters["parked"] += 1
            else:
                if done is not None and steps and a.status not in TERMINAL:
                    raise Nondeterministic(f"the replayed run ended ({done.get('status')}) before the recorded "
                                           f"step {_step_name(steps[0])}")
                await self._conclude(a, worker, done)
        except Nondeterministic as exc:
            self.counters["nondeterministic"] += 1
            a.stop_cause = "nondeterministic"
            if worker is not None:
                worker.kill()
            log.warning("nondeterministic_replay", action_id=a.action_id, error=str(exc))
            self._finish(a, Status.FAILED, error={"reason": "nondeterministic", "message": str(exc)[:500]})
        except Exception as exc:  # never leave an action hanging
            log.exception("action_run_failed", action_id=a.action_id)
            if a.status not in TERMINAL:
                self._finish(a, Status.FAILED, error={"reason": "internal_error", "message": str(exc)})
        finally:
            tracing.end_run(run_span, a)
            self._active -= 1
            self._running[a.tenant] -= 1
            if not self._running[a.tenant]:
                del self._running[a.tenant]
            for t in a.timers:
                t.cancel()
            a.timers.clear()
            a.worker = None
            if worker is not None:
                clean = a.stop_cause is None and (a.status in TERMINAL or parked is not None)
                if worker.alive and clean:
                    await self.pool.release(worker)
                else:
                    self.pool.discard(worker)
            if parked is not None and a.status not in TERMINAL:
                a.parked = parked
                if a.resume_pending:
                    self._resume(a)
                elif self.tier is not None:
                    self.tier.release(a)  # its job parks: any worker resumes it when the awaited thing comes
            self._dispatch()
            if self.tier is not None:
                self.tier.slot_freed()

    async def _abandon(self, worker: WorkerProc) -> None:
        """Unwind the worker's run (the action parks); kill it if it does not come back."""
        try:
            worker.send({"op": "abandon"})

            async def drain() -> None:
                async for msg in worker.messages():
                    if msg["op"] == "done":
                        return
                raise ConnectionError("worker exited")

            await asyncio.wait_for(drain(), ABANDON_GRACE_S)
        except Exception:
            worker.kill()

    async def _conclude(self, a: Action, worker: WorkerProc, done: dict[str, Any] | None) -> None:
        a.usage["wall_s"] = round(time.monotonic() - a.t0, 6)
        if a.status in TERMINAL or a.stop_cause == "fenced":  # fenced: another worker holds it now
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
                self._retry(a, "worker_crashed", f"worker exited with {worker.proc.returncode}")
            return
        status = Status(done["status"])
        outputs = done.get("outputs")
        if status == Status.PARTIAL:
            outputs = dict(outputs or a.partial_outputs or {})
            outputs["incomplete"] = True
        self._finish(a, status, outputs=outputs, error=done.get("error"))

    def _emit_entry(self, a: Action, msg: dict[str, Any]) -> Entry | None:
        """The record a worker's ``emit`` becomes (None for usage and saved partial outputs)."""
        kind = msg.get("kind")
        if kind == "checkpoint":
            return self.event(a, "action_checkpoint", msg["payload"], kind=msg["name"])
        if kind == "progress":
            return self.event(a, "action_progress", msg["payload"])
        if kind == "notice":
            return self.event(a, "action_notice", msg["payload"], kind=msg["name"])
        if kind == "receipt":
            return self.record(a, "receipt", msg["name"], msg["payload"])
        if kind == "trace":
            return self.record(a, "trace", "trace", msg["payload"])
        if kind == "artifact":
            return self.record(a, "artifact", msg["artifact_kind"], {
                "artifact_id": msg["artifact_id"], "kind": msg["artifact_kind"],
                "media_type": msg["media_type"], "content": msg["content"]}, ref=msg["artifact_id"])
        if kind == "publish":
            return Entry("state", "published", a.tenant, {"view": {"outputs": msg["outputs"]}})
        return None

    async def _on_message(self, a: Action, worker: WorkerProc, msg: dict[str, Any],
                          steps: deque[Emit | Call]) -> str | None:
        """Apply one worker message; while ``steps`` remain it is a replay: check, do not write."""
        op, kind = msg["op"], msg.get("kind")
        if op == "emit":
            if kind == "usage":
                a.usage["steps"], a.usage["tokens"] = msg["steps"], msg["tokens"]
                for name in ("steps", "tokens"):
                    limit = a.budgets.get(name)
                    if limit is not None and a.usage[name] > limit:
                        self._breach(a, {"budget": name, "limit": limit, "used": a.usage[name]})
                return None
            if kind == "save_partial":
                a.partial_outputs = msg["outputs"]
                return None
            if kind == "metric":  # an ability's declared metric (orchestrator/observe.py), not a record
                observe.ability_metric(a.ability, msg)
                return None
            if kind == "checkpoint" and a.lock is not None and msg.get("lock_echo") != a.lock["hash"]:
                self._violation(a, worker, "checkpoint echoed a lock that differs from the locked set")
                return None
            entry = self._emit_entry(a, msg)
            if entry is None:
                return None
            if steps:
                step = steps[0]
                if not isinstance(step, Emit) or not matches(step.record, entry.type, entry.name, entry.payload):
                    raise Nondeterministic(f"replayed step emitted {entry.name} where the log holds "
                                           f"{_step_name(step)}")
                steps.popleft()
                return None
            if kind == "publish":
                self._publish(a, msg["outputs"])
            else:
                self._put([entry])
        elif op == "call":
            if msg["method"] == "ask":
                return self._on_ask(a, worker, msg, steps)
            if msg["method"] == "spawn":
                return await self._on_spawn(a, worker, msg, steps)
        return None

    def _on_ask(self, a: Action, worker: WorkerProc, msg: dict[str, Any], steps: deque[Emit | Call]) -> str | None:
        rid = msg["request_id"]
        payload = {"request_id": rid, "kind": msg["kind"], **msg["payload"]}
        a.requests[rid] = payload
        if steps:
            step = steps.popleft()
            if not isinstance(step, Call) or step.method != "ask" or not same(step.payload, payload):
                raise Nondeterministic(f"replayed step asked {rid} where the log holds {_step_name(step)}")
            if step.reply is not None:
                worker.send({"op": "reply", "call_id": msg["call_id"], **step.reply})
                return None
            if steps:
                raise Nondeterministic(f"the log holds steps after the unanswered request {rid}")
            a.pending[rid] = msg["kind"]
            if a.status == Status.RUNNING:  # its waiting_user record is already in the log
                self._set_status(a, Status.WAITING_USER)
            return PARK
        a.pending[rid] = msg["kind"]
        observe.asked(a, rid, msg["kind"])  # approval latency (orchestrator/observe.py)
        timeout = msg.get("timeout_s")
        expires_at = None if timeout is None else round(time.time() + float(timeout), 3)
        self._set_status(a, Status.WAITING_USER, event=("action_waiting_user", payload),
                         ask={"request_id": rid, "expires_at": expires_at})
        self._arm_expiry(a, rid, expires_at)
        if msg["kind"] == "approval" and self.approval_hook is not None:
            self.approval_hook(a, rid, msg["payload"])
        return PARK

    async def _on_spawn(self, a: Action, worker: WorkerProc, msg: dict[str, Any],
                        steps: deque[Emit | Call]) -> str | None:
        if a.lock is not None and msg.get("lock_echo") != a.lock["hash"]:
            self._violation(a, worker, "sub-action echoed a lock that differs from the locked set")
            return None
        edge = msg.get("edge") or "bind"
        wait = msg.get("wait", True)
        if steps:
            step = steps.popleft()
            child = self.actions.get(step.child_id or "") if isinstance(step, Call) else None
            if (not isinstance(step, Call) or step.method != "spawn" or child is None or child.ability != msg["ability"]
                    or not same(child.inputs, msg["inputs"]) or step.payload.get("edge") != edge):
                raise Nondeterministic(f"replayed step spawned {msg['ability']} where the log holds "
                                       f"{_step_name(step)}")
            if not step.payload.get("wait", True):
                worker.send({"op": "reply", "call_id": msg["call_id"], "value": self._created_view(child)})
                return None
            if child.ended_durably:
                self._bind_result(a, child, edge)
                worker.send({"op": "reply", "call_id": msg["call_id"], "value": child.view()})
                return None
            if steps:
                raise Nondeterministic("the log holds steps after a sub-action that has not ended")
            self._wait_child(a, child)
            return PARK
        params = {"ability": msg["ability"], "inputs": msg["inputs"], "budgets": msg.get("budgets")}
        if msg.get("budgets") is None:
            left = max(1.0, (a.run or {}).get("deadline", time.time() + 1.0) - time.time())
            params["budgets"] = {"wall_s": left}
        while True:
            try:
                child = await self.start(a.tenant, params, parent=a)
                break
            except StorageUnavailable:  # the run waits for storage, like any other record of it
                await asyncio.sleep(0.5)
            except ConstraintViolation as exc:
                self._violation(a, worker, str(exc))
                return None
            except RpcError as exc:
                worker.send({"op": "reply", "call_id": msg["call_id"], "error": exc.message, "reason": "spawn_refused"})
                return None
        self.graph.add_edge(a.action_id, child.action_id, edge)
        a.edges.append({"kind": edge, "action_id": child.action_id})
        link = {"edge": edge, "action_id": child.action_id, "direction": "consumer", "wait": wait}
        self._put([self.event(a, "action_linked", link)])
        if not wait:
            worker.send({"op": "reply", "call_id": msg["call_id"], "value": child.view()})
            return None
        self._wait_child(a, child)
        return PARK

    def _created_view(self, child: Action) -> dict[str, Any]:
        """The view a ``spawn(wait=False)`` returned: the child's ``created`` record."""
        for rec in self.log.read_action(child.action_id, ["state"]):
            if rec.name == "created":
                return rec.payload["view"]
        return child.view()

    def _bind_result(self, a: Action, child: Action, edge: str) -> None:
        if child.status == Status.COMPLETED and edge == "bind":
            a.bound[child.action_id] = {"revision": child.revision, "outputs_hash": outputs_hash(child.outputs)}

    def _wait_child(self, a: Action, child: Action) -> None:
        self._child_waiters.setdefault(child.action_id, set()).add(a.action_id)
        if child.ended_durably:
            self._resume(a)

    def _arm_expiry(self, a: Action, request_id: str, expires_at: float | None) -> None:
        if expires_at is None:
            return
        old = a.waits.pop(request_id, None)
        if old is not None:
            old.cancel()
        a.waits[request_id] = asyncio.get_running_loop().call_later(
            max(0.0, expires_at - time.time()), self._expire, a, request_id)

    def _expire(self, a: Action, request_id: str) -> None:
        """An ask's time ran out: record it, then resume the run (its ``ask`` raises TimeoutError)."""
        a.waits.pop(request_id, None)
        if request_id not in a.pending or request_id in a.answering or a.status in TERMINAL:
            return
        a.pending.pop(request_id)
        if a.status == Status.WAITING_USER and not a.pending:
            if self.tier is not None and not self.tier.owns(a.action_id):  # parked: record it, wake its job
                self._put([self.event(a, "action_notice", {"request_id": request_id}, kind="input_expired")],
                          lambda _r: self.tier.wake(a.action_id))
                return
            self._set_status(a, Status.RUNNING, event=("action_notice", {"request_id": request_id}),
                             kind="input_expired", then=lambda _r: self._resume(a))

    def _resume(self, a: Action) -> None:
        """The awaited thing arrived: queue the run for any worker (now, or when its segment ends)."""
        if a.status in TERMINAL:
            return
        if a.worker is not None:
            a.resume_pending = True
            return
        a.resume_pending = False
        a.parked = None
        self._enqueue(a, front=True)

    def _retry(self, a: Action, reason: str, message: str) -> None:
        """A run died (worker or server): resume it by replay after backoff, or end it ``failed``."""
        attempt = int((a.run or {}).get("attempt", 1))
        if a.run is None or attempt >= int(a.retry["max_attempts"]):
            self._finish(a, Status.FAILED, error={"reason": reason, "message": message, "attempts": attempt})
            return
        delay = retry_delay(a.retry, attempt)
        a.run = {**a.run, "attempt": attempt + 1}
        a.parked = "retry"
        self.counters["retried"] += 1
        entry, show = self.state_entry(a, "attempt", run={**a.run, "reason": reason, "backoff_s": delay})
        self._put([entry, self.event(a, "action_notice", {"attempt": attempt + 1, "reason": reason,
                                                          "backoff_s": delay}, kind="retry")], show)
        a.waits["retry"] = asyncio.get_running_loop().call_later(delay, self._resume_retry, a)

    def _resume_retry(self, a: Action) -> None:
        a.waits.pop("retry", None)
        if a.parked == "retry":
            self._resume(a)

    async def answer(self, a: Action, request_id: str, value: Any, source: str) -> None:
        """``actions.input`` (or an approval decision): record the answer, then resume the run."""
        if request_id not in a.pending or request_id in a.answering or a.status in TERMINAL:
            raise RpcError(-32009, f"no open request {request_id!r} on {a.action_id}")
        a.answering.add(request_id)
        try:
            await self.outbox.commit([self.record(a, "receipt", "input", {"request_id": request_id,
                                                                          "source": source, "value": value})])
        finally:
            a.answering.discard(request_id)
        a.pending.pop(request_id, None)
        observe.answered(a, request_id)
        timer = a.waits.pop(request_id, None)
        if timer is not None:
            timer.cancel()
        if not a.pending and a.status == Status.WAITING_USER:
            if self.tier is not None and not self.tier.owns(a.action_id):
                self.tier.wake(a.action_id)  # the worker that claims it resumes it by replay
                return
            self._set_status(a, Status.RUNNING)
            self._resume(a)

    def _violation(self, a: Action, worker: WorkerProc, message: str) -> None:
        a.stop_cause = "violation"
        worker.kill()
        self._finish(a, Status.FAILED, error={"reason": "CONSTRAINT_VIOLATION", "message": message,
                                              "lock_hash": a.lock["hash"] if a.lock else None})

    def _publish(self, a: Action, outputs: dict[str, Any]) -> None:
        """A producer's new outputs: a revision; bound consumers get ``update_available``."""
        if a.outputs is not None and outputs_hash(a.outputs) != outputs_hash(outputs):
            a.revision += 1
        a.outputs = outputs
        entry, show = self.state_entry(a, "published")
        self._put([entry], show)
        self._offer_update(a)
        for _, cid in self.graph.consumers(a.action_id, ("bind",)):
            c = self.actions.get(cid)  # None: its start is not durable yet
            if c is not None and c.status == Status.WAITING:
                self._schedule(c)

    def _offer_update(self, producer: Action) -> None:
        for _, cid in self.graph.consumers(producer.action_id, ("bind",)):
            c = self.actions.get(cid)
            held = c.bound.get(producer.action_id) if c is not None else None
            if c is None or held is None or held["revision"] >= producer.revision:
                continue
            c.updates[producer.action_id] = producer.revision
            self._put([self.event(c, "action_notice", {
                "dependency_id": producer.action_id, "revision": producer.revision,
                "held_revision": held["revision"]}, kind="update_available")])

    # -- budgets and ending -------------------------------------------------------------------

    def _breach(self, a: Action, breach: dict[str, Any]) -> None:
        if a.status in TERMINAL or a.grace or a.worker is None or a.worker is _CLAIMED:
            return
        a.grace = True
        a.breach = breach
        grace_s = min(5.0, max(0.5, 0.1 * a.budgets["wall_s"]))
        self._put([self.event(a, "action_notice", {**breach, "grace_s": grace_s}, kind="budget_grace")])
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
                    kind: str | None = None, extra: dict[str, Any] | None = None,
                    then: Callable[[list[Record]], None] | None = None, **state_extra: Any) -> None:
        check_transition(a.status, status)
        a.status = status
        entry, show = self.state_entry(a, str(status), **state_extra)
        entries = [entry]
        if event is not None:
            entries.append(self.event(a, event[0], event[1], kind=kind))
        elif extra is not None:
            entries.append(self.event(a, "action_progress", {"status": str(status), **extra}))
        self._put(entries, show, then)

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
        entry, show = self.state_entry(a, str(status))
        entries = [entry, self.event(a, ENDED_EVENT[status], payload)]
        for _, other in self.graph.producers(a.action_id, ("notify",)):
            o = self.actions[other]
            entries.append(self.event(o, "action_notice", {"action_id": a.action_id, "status": str(status)},
                                      kind="linked_ended"))
        a.pending.clear()
        for timer in a.waits.values():
            timer.cancel()
        a.waits.clear()
        a.parked = None
        self.counters["ended"] += 1

        def ended(_records: list[Record]) -> None:
            a.mark_ended()
            for pid in self._child_waiters.pop(a.action_id, ()):
                parent = self.actions.get(pid)
                if parent is not None and parent.status not in TERMINAL:
                    self._resume(parent)
            if self.tier is not None:
                self.tier.ended(a)  # its job is done; a parent parked elsewhere is woken

        self._put(entries, show, ended)
        for hook in self.on_ended:
            hook(a)
        if status == Status.COMPLETED:
            self._offer_update(a)
        for _, cid in self.graph.consumers(a.action_id, ("dependsOn", "waitFor", "bind")):
            c = self.actions.get(cid)
            if c is not None and c.status == Status.WAITING:
                self._schedule(c)
        # sub-actions die with their parent
        if status in (Status.CANCELLED, Status.FAILED):
            for child in self.actions.values():
                if child.parent_id == a.action_id and child.status not in TERMINAL:
                    self.cancel(child, reason=f"parent {a.action_id} ended {status}")

    def cancel(self, a: Action, reason: str | None = None) -> None:
        """``actions.cancel``: queued, waiting and parked ones end at once; running ones have their
        worker killed."""
        if a.status in TERMINAL:
            raise RpcError(-32009, f"action {a.action_id} already ended ({a.status})")
        worker = a.worker if isinstance(a.worker, WorkerProc) else None
        error = {"reason": "cancelled", "message": reason or "cancelled by client"}
        if self.tier is not None and not self.tier.owns(a.action_id):
            self.tier.revoke(a.action_id)  # the worker holding it can no longer append for it
        if worker is not None:
            a.stop_cause = "cancel"
            a.breach = reason or "cancelled by client"  # type: ignore[assignment]
            self._finish(a, Status.CANCELLED, error=error)
            worker.kill()
        else:
            self._finish(a, Status.CANCELLED, error=error)

    async def cancel_durably(self, a: Action, reason: str | None = None, timeout_s: float = 10.0) -> None:
        """``cancel``, returning once the cancellation is durable (so the view shows it)."""
        if self.outbox.failing:
            raise StorageUnavailable(f"storage unavailable: {self.outbox.failing}")
        self.cancel(a, reason)
        try:
            await asyncio.wait_for(a.wait_ended(), timeout_s)
        except TimeoutError:
            raise StorageUnavailable("the cancellation is not durable yet; it will be once storage takes it") from None

    async def accept_update(self, a: Action, dependency_id: str) -> None:
        """Take a bind bump: re-lock on the dependency's new outputs and re-run as a new revision."""
        if dependency_id not in a.updates:
            raise RpcError(-32009, f"no update available from {dependency_id} on {a.action_id}")
        if a.status not in (Status.COMPLETED, Status.PARTIAL):
            raise RpcError(-32009, f"action {a.action_id} is {a.status}: accept the update after it ends")
        before = (a.revision, a.status, a.outputs, a.error, a.ended_at, a.run)
        a.revision += 1
        a.status = Status.QUEUED
        a.outputs, a.error, a.ended_at, a.run = None, None, None, None
        entry, show = self.state_entry(a, "revised")
        try:
            await self.outbox.commit([entry, self.event(a, "action_notice", {
                "dependency_id": dependency_id, "revision": a.revision}, kind="structure_revision")], show)
        except BaseException:
            a.revision, a.status, a.outputs, a.error, a.ended_at, a.run = before
            raise
        a.updates.pop(dependency_id, None)
        a.mark_ended(False)
        self._schedule(a)

    # -- replay -------------------------------------------------------------------------------

    async def replay(self, a: Action) -> dict[str, Any]:
        """Re-run ``a`` on a worker with its recorded seed, inputs, dependencies, answers and
        sub-action results; nothing is emitted. Returns the outputs as the scheduler would have
        recorded them."""
        history = read_history(self.log.read_action(a.action_id))
        replies = deque(s.reply for s in history.steps if isinstance(s, Call) and s.method == "ask")
        children = deque(c.view() for c in self.actions.values() if c.parent_id == a.action_id)
        deps = (history.run or {}).get("deps") if history.run else None
        worker = await self.pool.acquire()
        done: dict[str, Any] | None = None
        try:
            worker.send(a.run_message(self._dependencies(a) if deps is None else deps))

            async def drive() -> dict[str, Any] | None:
                async for msg in worker.messages():
                    if msg["op"] == "done":
                        return msg
                    if msg["op"] == "call":
                        if msg["method"] == "ask" and replies and replies[0] is not None:
                            worker.send({"op": "reply", "call_id": msg["call_id"], **replies.popleft()})
                        elif msg["method"] == "spawn" and children:
                            worker.send({"op": "reply", "call_id": msg["call_id"], "value": children.popleft()})
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

    @staticmethod
    def _latest(records: Iterator[Record] | list[Record]) -> dict[str, tuple[dict[str, Any], dict[str, Any], dict[str, Any] | None]]:
        """Per action, from its state records: (newest view, internal, current run)."""
        latest: dict[str, dict[str, Any]] = {}
        internal: dict[str, dict[str, Any]] = {}
        runs: dict[str, dict[str, Any]] = {}
        for rec in records:
            if rec.type != "state" or rec.action_id is None or "status" not in rec.payload["view"]:
                continue
            latest[rec.action_id] = rec.payload["view"]
            if "internal" in rec.payload:
                internal[rec.action_id] = rec.payload["internal"]
            run = rec.payload.get("run")
            if run is not None:
                runs[rec.action_id] = {k: run[k] for k in ("revision", "deadline", "attempt") if k in run}
            elif rec.name == "revised":
                runs.pop(rec.action_id, None)
        return {aid: (v, internal[aid], runs.get(aid)) for aid, v in latest.items() if aid in internal}

    def _restore(self, aid: str, v: dict[str, Any], meta: dict[str, Any], run: dict[str, Any] | None) -> Action:
        """An action as its records describe it, registered (actions, graph, idempotency keys)."""
        a = Action(action_id=aid, tenant=meta["tenant"], ability=v["ability"], topic=v["topic"],
                   inputs=meta["inputs"], seed=bytes.fromhex(meta["seed"]), budgets=v["budgets"],
                   edges=[dict(e) for e in v["edges"]], created_at=v["created_at"], status=Status(v["status"]),
                   revision=v["revision"], started_at=v.get("started_at"), ended_at=v.get("ended_at"),
                   usage=dict(v["usage"]), outputs=v.get("outputs"), error=v.get("error"), lock=meta.get("lock"),
                   parent_id=v.get("parent_id"), idempotency_key=meta.get("idempotency_key"),
                   params_hash=meta.get("params_hash"), traceparent=meta.get("traceparent"),
                   risk_class=meta.get("risk_class"), bound=meta.get("bound") or {},
                   retry=meta.get("retry") or dict(self.retry), run=run, visible=v)
        a.pending = {q["request_id"]: q.get("kind", "") for q in v.get("pending") or []}
        a.requests = {q["request_id"]: q for q in v.get("pending") or []}
        self.actions[aid] = a
        self.graph.add_node(aid)
        for e in a.edges:
            self.graph.add_edge(aid, e["action_id"], e["kind"])
        if a.idempotency_key:
            self.idempotency[(a.tenant, a.idempotency_key)] = aid
        if a.status in TERMINAL:
            a.mark_ended()
        return a

    def _revive(self, a: Action, history: History) -> str:
        """Pick up an action whose run this process did not see: a waiting one stays parked, an
        answered one goes on, a run that died is retried by replay. Returns what happened."""
        a.pending, a.requests = {}, {}  # the history says which question is still open
        if a.run is None:  # written before runs were recorded: cannot be replayed
            self._finish(a, Status.FAILED, error={"reason": "interrupted",
                                                  "message": "the server stopped while this action ran"})
            return "interrupted"
        call = history.open_call()
        if a.status == Status.WAITING_USER and call is not None and call.method == "ask":
            rid = call.request_id or ""
            a.pending[rid] = str(call.payload.get("kind", ""))
            a.requests[rid] = dict(call.payload)
            a.parked = "input"
            self._arm_expiry(a, rid, (history.asks.get(rid) or {}).get("expires_at"))
            return "parked"
        if a.status == Status.WAITING_USER:  # answered (or expired) just before the stop: go on
            self._set_status(a, Status.RUNNING)
            self._resume(a)
            return "resumed"
        if call is not None and call.method == "spawn" and call.child_id in self.actions:
            a.parked = "child"
            self._wait_child(a, self.actions[call.child_id])
            return "parked"
        if history.last_state == "attempt":  # it was waiting out a retry backoff
            a.parked = "retry"
            self._resume(a)
            return "resumed"
        self._retry(a, "interrupted", "the server stopped while this action ran")
        return "resumed" if a.status not in TERMINAL else "interrupted"

    async def recover(self) -> dict[str, int]:
        """Rebuild from the log. Queued and waiting actions queue; parked ones stay parked (no
        process); a run the server was computing is resumed by replay under its retry policy.
        In the worker tier only the views are rebuilt: actions run where their jobs are claimed."""
        if self.outbox._task is None:
            self.outbox.start()
        counts = {"interrupted": 0, "requeued": 0, "restored": 0, "resumed": 0, "parked": 0}
        for aid, (v, meta, run) in self._latest(self.log.iter_control()).items():
            self._restore(aid, v, meta, run)
            counts["restored"] += 1
        if self.tier is not None:
            await self.tier.start(self)
            return counts
        for a in list(self.actions.values()):
            if a.status in (Status.RUNNING, Status.WAITING_USER):
                counts[self._revive(a, read_history(self.log.read_action(a.action_id)))] += 1
        for a in list(self.actions.values()):
            if a.status in (Status.QUEUED, Status.WAITING):
                counts["requeued"] += 1
                self._schedule(a)
        return counts

    # -- worker tier ----------------------------------------------------------------------------

    def free_slots(self) -> int:
        """Runs this process could start now (what a worker claims from the shared queue)."""
        return self.max_concurrent - self._active - sum(len(q) for q in self._ready.values())

    async def adopt(self, action_id: str) -> str:
        """A job this process just claimed: rebuild the action from the log (another process may
        have run it), then run it, resume it by replay, or park it again. Returns what happened."""
        records = await asyncio.to_thread(self.log.read_action, action_id)
        found = self._latest(records).get(action_id)
        if found is None:
            return "unknown"
        old = self.actions.get(action_id)
        if old is not None and (old.worker is not None or old.in_ready):
            return "running"  # already here (a claim racing a local resume)
        a = self._restore(action_id, *found)
        if old is not None:  # keep the object clients may hold; take the log's state
            for name in ("status", "revision", "started_at", "ended_at", "usage", "outputs", "error", "edges",
                         "run", "visible", "bound", "retry", "lock"):
                setattr(old, name, getattr(a, name))
            old.pending, old.requests, old.parked = {}, {}, None
            self.actions[action_id] = a = old
        self.counters["adopted"] += 1
        if a.status in TERMINAL:
            a.mark_ended()
            self.tier.ended(a)
            return "ended"
        a.mark_ended(False)
        outcome = "queued"
        if a.status in (Status.RUNNING, Status.WAITING_USER):
            outcome = self._revive(a, read_history(records))
        else:
            self._schedule(a)
        if a.parked in ("input", "child"):
            self.tier.release(a)  # it still waits: its job parks again (one waiting on producers stays held)
        return outcome

    def ready_again(self, action_id: str) -> bool:
        """Has what a parked action waits on arrived meanwhile? Read from the log (not the views,
        which may lag), so a wake-up that raced the park is not lost."""
        records = self.log.read_action(action_id)
        found = self._latest(records).get(action_id)
        if found is None or Status(found[0]["status"]) in TERMINAL:
            return False
        status = Status(found[0]["status"])
        if status == Status.QUEUED:
            return True
        if status == Status.WAITING:
            return not self._blockers_in_log(found[0]["edges"])
        call = read_history(records).open_call()
        if call is None:
            return status in (Status.WAITING_USER, Status.RUNNING)
        if call.method == "spawn":
            child = self._latest(self.log.read_action(call.child_id or "", ["state"])).get(call.child_id or "")
            return child is not None and Status(child[0]["status"]) in TERMINAL
        return False

    def _blockers_in_log(self, edges: list[dict[str, Any]]) -> bool:
        """Does a producer still hold the action back, by the log (the rules of ``_producers_state``;
        a failed producer does not: the claimer fails the action)?"""
        for e in edges:
            if e["kind"] not in ("dependsOn", "waitFor", "bind"):
                continue
            found = self._latest(self.log.read_action(e["action_id"], ["state"])).get(e["action_id"])
            if found is None:
                return True
            view = found[0]
            status = Status(view["status"])
            if status in TERMINAL or (e["kind"] == "bind" and view.get("outputs") is not None):
                continue
            return True
        return False

    def forget(self, action_id: str) -> None:
        """This process lost the action's lease (it was rescued or cancelled elsewhere): stop its
        run here; the views follow the log from now on."""
        a = self.actions.get(action_id)
        if a is None:
            return
        for timer in [*a.waits.values(), *a.timers]:
            timer.cancel()
        a.waits.clear()
        a.parked = None
        if isinstance(a.worker, WorkerProc):
            a.stop_cause = "fenced"
            a.worker.kill()
        log.warning("lease_lost", action_id=action_id)

    async def close(self) -> None:
        """Stop: runs in progress are left ``running`` in the log and resume by replay at the next start."""
        self._closing = True
        if self.tier is not None:
            self.tier.halt()
        for t in list(self._tasks):
            t.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        for a in self.actions.values():
            for timer in a.waits.values():
                timer.cancel()
        await self.outbox.close()


def _step_name(step: Emit | Call) -> str:
    if isinstance(step, Emit):
        return describe(step.record)
    return f"{step.method} {step.request_id or step.child_id}"


class _Actions(dict):
    """The worker tier's table of actions: an id this process has not seen yet (the follower has not
    brought its ``created`` record here) is looked up in the log, so a call on one replica right
    after a start on another finds the action."""

    def __init__(self, scheduler: Scheduler) -> None:
        super().__init__()
        self._scheduler = scheduler

    def get(self, key: str, default: Any = None) -> Any:  # type: ignore[override]
        found = super().get(key)
        if found is not None or not isinstance(key, str) or not key.startswith("act_"):
            return found if found is not None else default
        try:
            latest = self._scheduler._latest(self._scheduler.log.read_action(key, ["state"])).get(key)
        except Exception:  # storage away: the caller answers as for an unknown action
            return default
        if latest is None or super().get(key) is not None:
            return super().get(key, default)
        return self._scheduler._restore(key, *latest)


class _Claimed:
    """Marks an action whose run task is starting (it holds a slot, not yet a worker)."""

    alive = False


_CLAIMED: Any = _Claimed()


class ConstraintViolation(Exception):
    """A sub-action or checkpoint would unlock the action's locked constraints."""
