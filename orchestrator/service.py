"""The ToolBus methods: one function per contract method, with roles and tenants enforced.

Transport-free: a ``Session`` holds who is calling and how to push notifications; ``call``
validates params with the models of ``schemas/toolbus.py`` and runs the method. The WebSocket
shell (``orchestrator/toolbus.py``) and the CLI's in-process calls both come through here.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Awaitable, Callable
from contextlib import aclosing
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Any

import structlog
from pydantic import BaseModel, ValidationError

from abilities import registry
from orchestrator import errors as E
from orchestrator import observe
from orchestrator.approvals import Approvals
from orchestrator.auth import Principal, StreamTokens, TokenStore
from orchestrator.datasets import DatasetStore, offer_on_end, offer_updates
from orchestrator.errors import RpcError
from orchestrator.events import event_data, event_message
from orchestrator.hub import Dropped, Hub, resume_then_live
from orchestrator.lifecycle import TERMINAL
from orchestrator.metrics import Metrics
from orchestrator.scheduler import Action, Scheduler, outputs_hash
from orchestrator.shared_state import KeyClaims, StartedElsewhere
from orchestrator.shared_state_sweep import Sweep
from receipts.canonical import canonical_json
from receipts.log import Entry, ReceiptLog
from receipts.store import verify_store
from schemas import toolbus as S

log = structlog.get_logger("metis.service")
ACTORS = ("partner", "canvas")
Handler = Callable[["Session", Any], Awaitable[Any]]


@dataclass
class Session:
    """One ToolBus connection (or one CLI call)."""

    principal: Principal | None
    notify: Callable[[str, dict[str, Any]], Awaitable[None]] | None = None
    #: sends a message already encoded as JSON bytes (a transport that has one: event notifications
    #: are then cut from the record's body instead of parsed and encoded again)
    send_raw: Callable[[bytes], Awaitable[None]] | None = None
    subscriptions: dict[str, asyncio.Task] = field(default_factory=dict)
    request_id: str | None = None
    closed: bool = False

    def close(self) -> None:
        self.closed = True
        for task in self.subscriptions.values():
            task.cancel()
        self.subscriptions.clear()


class Service:
    def __init__(self, receipt_log: ReceiptLog, scheduler: Scheduler, hub: Hub, approvals: Approvals,
                 tokens: TokenStore, stream_tokens: StreamTokens, metrics: Metrics,
                 subscriber_buffer: int = 4096, start_rate: tuple[float, float] | None = None) -> None:
        self.log = receipt_log
        self.scheduler = scheduler
        self.hub = hub
        self.approvals = approvals
        self.tokens = tokens
        self.stream_tokens = stream_tokens
        self.metrics = metrics
        self.subscriber_buffer = subscriber_buffer
        # What replicas share (orchestrator/shared_state.py): the approvals' state, also behind
        # idempotency keys and the tenant's start rate (rate/s, burst; None: no tenant limit).
        self.shared = approvals.state
        self.start_rate = start_rate
        scheduler.shared_keys = KeyClaims(self.shared, receipt_log)
        self.methods: dict[str, tuple[Handler, tuple[str, ...] | None]] = {
            "session.authenticate": (self.session_authenticate, None),
            "session.whoami": (self.session_whoami, ()),
            "abilities.list": (self.abilities_list, ()),
            "actions.start": (self.actions_start, ACTORS),
            "actions.get": (self.actions_get, ACTORS),
            "actions.list": (self.actions_list, ACTORS),
            "actions.cancel": (self.actions_cancel, ACTORS),
            "actions.input": (self.actions_input, ACTORS),
            "actions.accept_update": (self.actions_accept_update, ACTORS),
            "artifacts.get": (self.artifacts_get, ACTORS),
            "events.subscribe": (self.events_subscribe, ACTORS),
            "events.unsubscribe": (self.events_unsubscribe, ACTORS),
            "approvals.list": (self.approvals_list, ("approver",)),
            "approvals.grant": (self.approvals_grant, ("approver",)),
            "approvals.deny": (self.approvals_deny, ("approver",)),
            "reflect.trace": (self.reflect_trace, ("reviewer",)),
            "reflect.receipts": (self.reflect_receipts, ("reviewer",)),
            "reflect.verify": (self.reflect_verify, ("reviewer", "operator")),
            "reflect.proof": (self.reflect_proof, ("reviewer",)),
            "reflect.replay": (self.reflect_replay, ("reviewer",)),
            "datasets.put": (self.datasets_put, ("partner",)),
            "datasets.list": (self.datasets_list, ACTORS),
            "datasets.get": (self.datasets_get, ACTORS),
        }
        self._allowed: dict[tuple[Principal, str], bool] = {}  # (principal, method) -> has a role for it
        self.datasets = DatasetStore(receipt_log, Path(scheduler.pool.env.get("METIS_DATA_DIR")
                                                       or receipt_log.data_dir))
        self.datasets.on_commit.append(lambda tenant, meta: offer_updates(scheduler, self.datasets, tenant, meta))
        scheduler.on_ended.append(self._dataset_reader_ended)
        self.datasets.rebuild()
        scheduler.approval_hook = approvals.asked
        self._abilities_cache: list[dict[str, Any]] | None = None
        self.sweep = Sweep(scheduler, approvals, self.shared)  # what a dead replica or worker left undone
        try:
            self.sweep.start()
        except RuntimeError:  # no loop (a Service built outside the server): nothing to sweep
            pass

    # -- dispatch ---------------------------------------------------------------------------

    async def call(self, session: Session, method: str, params: dict[str, Any]) -> Any:
        """Validate and run one method; raises RpcError."""
        entry = self.methods.get(method)
        if entry is None:
            raise RpcError(E.METHOD_NOT_FOUND, f"unknown method {method!r}")
        handler, roles = entry
        if roles is not None:
            principal = session.principal
            if principal is None:
                raise RpcError(E.UNAUTHENTICATED, "authenticate first: Authorization header or session.authenticate")
            if roles:
                allowed = self._allowed.get((principal, method))
                if allowed is None:  # principals come from the tokens file: a bounded set
                    allowed = self._allowed[(principal, method)] = principal.has(*roles)
                if not allowed:
                    raise RpcError(E.FORBIDDEN, f"{method} needs one of the roles {list(roles)}")
        model: type[BaseModel] = S.METHODS[method][0]
        try:
            p = model.model_validate(params)
        except ValidationError as exc:
            raise RpcError(E.INVALID_PARAMS, f"invalid params for {method}", {"errors": [
                {"loc": list(e["loc"]), "msg": e["msg"], "type": e["type"]}
                for e in exc.errors(include_url=False, include_context=False, include_input=False)
            ]}) from None
        return await handler(session, p)

    def _action(self, session: Session, action_id: str) -> Action:
        a = self.scheduler.actions.get(action_id)
        if a is None or session.principal is None or a.tenant != session.principal.tenant:
            raise RpcError(E.NOT_FOUND, f"unknown action {action_id}")
        return a

    # -- session and abilities --------------------------------------------------------------

    async def session_authenticate(self, session: Session, p: S.AuthenticateParams) -> dict[str, Any]:
        principal = self.tokens.authenticate(p.token)
        if principal is None:
            raise RpcError(E.UNAUTHENTICATED, "invalid token")
        session.principal = principal
        return {"tenant": principal.tenant, "roles": list(principal.roles)}

    async def session_whoami(self, session: Session, p: S.EmptyParams) -> dict[str, Any]:
        assert session.principal is not None
        return {"tenant": session.principal.tenant, "roles": list(session.principal.roles)}

    async def abilities_list(self, session: Session, p: S.EmptyParams) -> dict[str, Any]:
        if self._abilities_cache is None:  # the first call imports every ability: off the event loop
            self._abilities_cache = await asyncio.to_thread(_ability_list)
        return {"abilities": self._abilities_cache}

    # -- actions -----------------------------------------------------------------------------

    async def actions_start(self, session: Session, p: S.StartParams) -> dict[str, Any]:
        assert session.principal is not None
        tenant = session.principal.tenant
        if self.start_rate is not None and not await self.shared.take(f"start:{tenant}", *self.start_rate):
            raise RpcError(E.RATE_LIMITED, "the tenant's start rate is exceeded: slow down",
                           {"rate_per_s": self.start_rate[0], "burst": self.start_rate[1], "scope": "tenant"})
        params = p.model_dump(mode="json", by_alias=True, exclude_none=True)
        try:
            a = await self.scheduler.start(tenant, params)
        except StartedElsewhere as exc:  # the key's action was started by another replica
            v = await self._view_of(exc.action_id)
            return self._started(tenant, v["action_id"], v["topic"], v["status"], v["seed_fingerprint"])
        observe.child(self.metrics.actions_started, a.ability).inc()
        # the durable view's status: an earlier start of the same key may be further in memory
        return self._started(tenant, a.action_id, a.topic, a.view()["status"], a.seed_fingerprint)

    def _started(self, tenant: str, action_id: str, topic: str, status: str, fingerprint: str) -> dict[str, Any]:
        return {"action_id": action_id, "topic": topic, "status": status, "seed_fingerprint": fingerprint,
                "stream": {"url": f"/streams/{topic}", "token": self.stream_tokens.issue(tenant, topic)}}

    async def _view_of(self, action_id: str) -> dict[str, Any]:
        """An action's view here, or (run by another replica) as its newest state record shows it."""
        a = self.scheduler.actions.get(action_id)
        if a is not None:
            return a.view()
        states = await asyncio.to_thread(self.log.read_action, action_id, ["state"])
        return states[-1].payload["view"]

    async def actions_get(self, session: Session, p: S.ActionRef) -> dict[str, Any]:
        return self._action(session, p.action_id).view()

    async def actions_list(self, session: Session, p: S.ListParams) -> dict[str, Any]:
        assert session.principal is not None
        tenant = session.principal.tenant
        # lazily, stopping after one page: a call costs what it shows (and what it skips), not the table
        mine = (a for a in self.scheduler.actions.values() if a.tenant == tenant
                and (p.topic is None or a.topic == p.topic) and (p.status is None or str(a.status) == p.status))
        if p.after is not None:
            for a in mine:
                if a.action_id == p.after:
                    break
            else:
                raise RpcError(E.NOT_FOUND, f"unknown cursor {p.after}")
        page = list(islice(mine, p.limit + 1))
        result: dict[str, Any] = {"actions": [a.view() for a in page[: p.limit]]}
        if len(page) > p.limit:
            result["next"] = page[p.limit - 1].action_id
        return result

    async def actions_cancel(self, session: Session, p: S.CancelParams) -> dict[str, Any]:
        a = self._action(session, p.action_id)
        await self.scheduler.cancel_durably(a, p.reason)
        return a.view()

    async def actions_input(self, session: Session, p: S.InputParams) -> dict[str, Any]:
        a = self._action(session, p.action_id)
        if p.request_id not in a.pending:
            raise RpcError(E.CONFLICT, f"no open request {p.request_id} on {a.action_id} (status {a.status})")
        try:
            canonical_json(p.value)
        except ValueError as exc:
            raise RpcError(E.INVALID_PARAMS, "value is not JSON", {"errors": [{"loc": ["value"], "msg": str(exc)}]}) from None
        await self.scheduler.answer(a, p.request_id, p.value, source=session.principal.subject)  # type: ignore[union-attr]
        return {"accepted": True}

    async def actions_accept_update(self, session: Session, p: S.AcceptUpdateParams) -> dict[str, Any]:
        a = self._action(session, p.action_id)
        await self.scheduler.accept_update(a, p.dependency_id)
        return a.view()

    async def artifacts_get(self, session: Session, p: S.ArtifactParams) -> dict[str, Any]:
        assert session.principal is not None
        for rec in self.log.get_ref(p.artifact_id):
            if rec.type == "artifact" and rec.tenant == session.principal.tenant:
                body = rec.payload
                return {"artifact_id": body["artifact_id"], "kind": body["kind"],
                        "media_type": body["media_type"], "content": body["content"]}
        raise RpcError(E.NOT_FOUND, f"unknown artifact {p.artifact_id}")

    # -- datasets (orchestrator/datasets.py) -------------------------------------------------

    async def datasets_put(self, session: Session, p: S.DatasetPutParams) -> dict[str, Any]:
        assert session.principal is not None
        return await self.datasets.put(session.principal.tenant, session.principal.subject, p)

    async def datasets_list(self, session: Session, p: S.DatasetListParams) -> dict[str, Any]:
        assert session.principal is not None
        return self.datasets.list(session.principal.tenant, p.kind)

    async def datasets_get(self, session: Session, p: S.DatasetGetParams) -> dict[str, Any]:
        assert session.principal is not None
        return await self.datasets.get(session.principal.tenant, p.kind, p.name, p.version, p.offset)

    def _dataset_reader_ended(self, a: Action) -> None:
        """A reader that ran while a newer version was committed is offered it after its end."""
        if any(a.action_id in readers for readers in self.datasets.readers.values()):
            task = asyncio.get_running_loop().create_task(offer_on_end(self.scheduler, self.datasets, a))
            task.add_done_callback(_log_failure)

    # -- events ------------------------------------------------------------------------------

    async def events_subscribe(self, session: Session, p: S.SubscribeParams) -> dict[str, Any]:
        assert session.principal is not None and session.notify is not None
        if session.closed:
            raise RpcError(E.CONFLICT, "the connection is closing")
        if len(session.subscriptions) >= 64:
            raise RpcError(E.CONFLICT, "too many subscriptions on this connection (64)")
        sid = "sub_" + secrets.token_hex(6)
        sub = self.hub.subscribe(session.principal.tenant, p.topic, self.subscriber_buffer)
        notify = session.notify

        async def run() -> None:
            try:
                await pump_events(self.log, sub, sid, session.principal.tenant, p.topic,  # type: ignore[union-attr]
                                  p.last_event_id or 0, notify, session.send_raw)
            finally:
                self.hub.unsubscribe(sub)
                session.subscriptions.pop(sid, None)

        session.subscriptions[sid] = asyncio.get_running_loop().create_task(run())
        return {"subscription_id": sid}

    async def events_unsubscribe(self, session: Session, p: S.UnsubscribeParams) -> dict[str, Any]:
        task = session.subscriptions.pop(p.subscription_id, None)
        if task is None:
            raise RpcError(E.NOT_FOUND, f"unknown subscription {p.subscription_id}")
        task.cancel()
        return {"ok": True}

    # -- approvals ---------------------------------------------------------------------------

    async def approvals_list(self, session: Session, p: S.EmptyParams) -> dict[str, Any]:
        assert session.principal is not None
        return {"approvals": await self.approvals.list(session.principal)}

    async def _decide(self, session: Session, p: S.ApprovalDecision, grant: bool) -> dict[str, Any]:
        assert session.principal is not None
        ap = await self.approvals.decide(session.principal, p.approval_id, grant, p.note,
                                         getattr(p, "scope", None))
        if ap.kind == "action_input" and ap.action_id and ap.request_id:
            a = self.scheduler.actions.get(ap.action_id)
            if a is not None and ap.request_id in a.pending:
                await self.scheduler.answer(a, ap.request_id, ap.answer(), source=session.principal.subject)
        return ap.view()

    def close(self) -> None:
        """Stop the sweep; release the shared state's connections."""
        self.sweep.close()
        self.shared.close()

    async def approvals_grant(self, session: Session, p: S.GrantParams) -> dict[str, Any]:
        return await self._decide(session, p, True)

    async def approvals_deny(self, session: Session, p: S.ApprovalDecision) -> dict[str, Any]:
        return await self._decide(session, p, False)

    # -- reflect (read-only, reviewer role, approval-gated, itself recorded) ------------------

    async def _reflect(self, session: Session, method: str, resource: str, params: dict[str, Any],
                       approval: bool = True) -> str | None:
        """Check the approval covering exactly this call (unless ``approval`` is False: the operator's
        whole-log verify), then record the call before its result is computed."""
        assert session.principal is not None
        approval_id = None
        if approval:
            ap = await self.approvals.require(session.principal, method, params, resource, f"{method} {params}")
            approval_id = ap.approval_id
        await self.log.append([Entry("reflect", method, session.principal.tenant,
                                     {"params": params, "reviewer": session.principal.subject,
                                      "approval_id": approval_id},
                                     action_id=params.get("action_id"))])
        return approval_id

    async def reflect_trace(self, session: Session, p: S.ActionRef) -> dict[str, Any]:
        a = self._action(session, p.action_id)
        await self._reflect(session, "reflect.trace", f"action:{a.action_id}", {"action_id": a.action_id})
        recs = self.log.read_action(a.action_id, ["trace"])
        return {"action_id": a.action_id, "trace": [{"seq": r.seq, "ts": r.ts, **r.payload} for r in recs]}

    async def reflect_receipts(self, session: Session, p: S.ReceiptsParams) -> dict[str, Any]:
        assert session.principal is not None
        tenant = session.principal.tenant
        if p.action_id is not None:
            a = self._action(session, p.action_id)
            await self._reflect(session, "reflect.receipts", f"action:{a.action_id}", {"action_id": a.action_id})
            recs = self.log.read_action(a.action_id)
        else:
            frm = p.from_seq or 1
            to = p.to_seq if p.to_seq is not None else frm + 999
            if to < frm:
                raise RpcError(E.INVALID_PARAMS, "to_seq is before from_seq", {"errors": [{"loc": ["to_seq"]}]})
            await self._reflect(session, "reflect.receipts", "log", {"from_seq": frm, "to_seq": to})
            recs = self.log.read_range(frm, to)
        return {"receipts": [r.as_receipt() for r in recs if r.tenant == tenant]}

    async def reflect_verify(self, session: Session, p: S.VerifyParams) -> dict[str, Any]:
        """An operator verifies the whole log (global counts and tree head); a tenant's reviewer, with
        an approval, gets figures of its own tenant only: other tenants' volume is not shown."""
        assert session.principal is not None
        operator = session.principal.has("operator")
        tenant = None if operator else session.principal.tenant
        await self._reflect(session, "reflect.verify", "log", p.model_dump(exclude_none=True, exclude={"meta"}),
                            approval=not operator)

        sth = await self.log.sign_tree_head_async() if operator else None
        report = await asyncio.to_thread(verify_store, self.log, p.from_seq or 1, p.to_seq, tenant)
        result = report.as_dict()
        result["scope"] = "log" if operator else "tenant"
        if operator:
            result["tree_head"] = {**result.get("tree_head", {}), "signed": sth}
        return result

    async def reflect_proof(self, session: Session, p: S.ProofParams) -> dict[str, Any]:
        assert session.principal is not None
        rec = self.log.get(p.seq)
        if rec is None or rec.tenant != session.principal.tenant:
            raise RpcError(E.NOT_FOUND, f"no record {p.seq} in this tenant's log")
        await self._reflect(session, "reflect.proof", "log", {"seq": p.seq})
        return self.log.inclusion_proof(p.seq, await self.log.sign_tree_head_async())

    async def reflect_replay(self, session: Session, p: S.ActionRef) -> dict[str, Any]:
        a = self._action(session, p.action_id)
        await self._reflect(session, "reflect.replay", f"action:{a.action_id}", {"action_id": a.action_id})
        if a.status not in TERMINAL or a.outputs is None:
            raise RpcError(E.CONFLICT, f"action {a.action_id} has no outputs to replay (status {a.status})")
        replay_outputs = await self.scheduler.replay(a)
        original = outputs_hash(a.outputs)
        again = outputs_hash(replay_outputs)
        result = {"identical": original == again, "outputs_hash": original, "replay_hash": again}
        await self.log.append([Entry("receipt", "replay", a.tenant, {**result, "revision": a.revision},
                                     topic=a.topic, action_id=a.action_id)])
        return result

    # -- for tests and tools -----------------------------------------------------------------

    def status_counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for a in self.scheduler.actions.values():
            counts[str(a.status)] = counts.get(str(a.status), 0) + 1
        return counts


def _log_failure(task: asyncio.Task) -> None:
    """Done callback of fire-and-forget tasks: a failure is logged, never lost."""
    if not task.cancelled() and task.exception() is not None:
        log.error("background_task_failed", error=repr(task.exception()))


async def pump_events(rlog: ReceiptLog, sub: Any, sid: str, tenant: str, topic: str, after: int,
                      notify: Callable[[str, dict[str, Any]], Awaitable[None]],
                      send_raw: Callable[[bytes], Awaitable[None]] | None = None) -> None:
    """One subscription: backlog from the log, then live records, as ``event`` notifications
    (through ``send_raw``, when given, as bytes cut from each record: ``events.event_message``).

    It never ends silently: a subscriber that fell behind gets ``subscription_dropped``, and any
    failure of the subscription itself (a read error, a record that cannot be sent) gets
    ``subscription_failed`` naming the error and the last delivered id, then the subscription ends.
    """
    last = after
    try:
        async with aclosing(resume_then_live(rlog, sub, tenant, topic, after)) as batches:
            async for batch in batches:
                for rec in batch:
                    message = event_message(sid, rec) if send_raw is not None else None
                    if message is not None:
                        await send_raw(message)  # type: ignore[misc]
                    else:
                        await notify("event", {"subscription_id": sid, "id": rec.seq, "event": rec.name,
                                               "data": event_data(rec)})
                    last = rec.seq
    except Dropped:
        await _notify_quietly(notify, "subscription_dropped", {
            "subscription_id": sid, "last_event_id": last, "reason": "client too slow: resume with last_event_id"})
    except (asyncio.CancelledError, ConnectionError):
        pass
    except Exception as exc:
        log.exception("subscription_failed", subscription_id=sid, topic=topic, last_event_id=last)
        mapped = E.storage_error(exc) or RpcError(E.INTERNAL_ERROR, f"subscription failed: {type(exc).__name__}")
        await _notify_quietly(notify, "subscription_failed", {
            "subscription_id": sid, "last_event_id": last, "error": mapped.to_dict()})


async def _notify_quietly(notify: Callable[[str, dict[str, Any]], Awaitable[None]], method: str,
                          params: dict[str, Any]) -> None:
    try:
        await notify(method, params)
    except (ConnectionError, asyncio.CancelledError):
        pass


def _ability_list() -> list[dict[str, Any]]:
    """Every ability's name, version and schemas, for ``abilities.list``."""
    return [
        {"name": cls.name, "version": cls.version, "description": cls.description,
         "inputs_schema": cls.Inputs.model_json_schema(), "outputs_schema": cls.Outputs.model_json_schema()}
        for _, cls in sorted(registry.available().items())
    ]
