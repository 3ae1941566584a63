"""Approvals: reviewers' access to reflect.* and abilities' approvals-as-input, decided by approvers.

A reflect approval is requested for one call: its method and its params. A grant covers exactly
that call (scope ``call``), unless the approver explicitly chooses a wider scope when granting:
``action`` (every reflect method on the requested action) or ``log`` (every reflect call of the
requester in the tenant). The chosen scope is recorded and shown as ``granted_scope``, so what a
reviewer may read is always what an approver saw and chose.

Every request and decision is a log record (type ``approval``), durable before the table of the
shared state (orchestrator/shared_state.py) shows it; the table is loaded from those records at start.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from dataclasses import asdict, dataclass, fields
from typing import Any

import structlog

from orchestrator.auth import Principal
from orchestrator.errors import CONFLICT, FORBIDDEN, INVALID_PARAMS, NOT_FOUND, RpcError, StorageUnavailable
from orchestrator.shared_state import SharedState, open_shared_state
from receipts.log import Entry, ReceiptLog, utc_now

log = structlog.get_logger("metis.approvals")

GRANT_TTL_S = 3600
SHOW_WAIT_S = 10.0  # a recorded decision waits this long for the shared state before the call fails
#: A decided approval whose action still waits for it this long after the decision was never
#: answered (the replica that decided it died in between): any replica answers it then.
ANSWER_GRACE_S = 10.0


@dataclass
class Approval:
    approval_id: str
    tenant: str
    kind: str  # "reflect" | "action_input"
    scope: str  # the resource requested: "action:<id>" | "log" for reflect; "action:<id>" for inputs
    requested_by: str
    reason: str
    status: str = "pending"
    created_at: str = ""
    decided_by: str | None = None
    note: str | None = None
    expires_at: float | None = None
    action_id: str | None = None
    request_id: str | None = None
    method: str | None = None  # reflect: the call this approval was requested for
    params: dict[str, Any] | None = None
    granted_scope: str | None = None  # "call" | "action" | "log", chosen by the approver
    decided_at: float | None = None  # when the decision was recorded (unix s); not shown

    def view(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None and k not in ("tenant", "decided_at")}

    def answer(self) -> dict[str, Any]:
        """What the action that asked for this (decided, action_input) approval receives."""
        return {"granted": self.status == "granted", "note": self.note, "approval_id": self.approval_id}

    def covers(self, method: str, params: dict[str, Any], resource: str) -> bool:
        """Does this (granted, reflect) approval cover the call ``method(params)`` on ``resource``?"""
        if self.granted_scope == "log":
            return True
        if self.granted_scope == "action":
            return self.scope == resource and resource.startswith("action:")
        if self.granted_scope == "call":
            return self.method == method and self.params == params
        return False  # a grant recorded before scopes existed covers nothing


_FIELDS = {f.name for f in fields(Approval)}


def _approval(body: dict[str, Any]) -> Approval:
    return Approval(**{k: v for k, v in body.items() if k in _FIELDS})


class Approvals:
    """The approvals table lives in the shared state (orchestrator/shared_state.py): in memory for
    one process, in PostgreSQL for replicas, so an approval requested on one replica is decided on
    another and the decision counts on all of them."""

    def __init__(self, receipt_log: ReceiptLog, state: SharedState | None = None) -> None:
        self.log = receipt_log
        self.state = state if state is not None else open_shared_state(receipt_log)

    def rebuild(self) -> None:
        """Load the approvals as the log holds them (the newest record of each)."""
        latest: dict[str, dict[str, Any]] = {}
        for rec in self.log.iter_control():
            if rec.type == "approval":
                latest[rec.ref] = asdict(_approval(rec.payload["approval"]))
        self.state.approvals_load(list(latest.values()))

    async def _record(self, a: Approval, name: str) -> None:
        await self.log.append([Entry("approval", name, a.tenant, {"approval": asdict(a)},
                                     action_id=a.action_id, ref=a.approval_id)])

    async def _show(self, body: dict[str, Any], wait_s: float | None, deciding: bool = False) -> None:
        """Make a durable record visible in the table, retrying while the shared state is away (for
        ``wait_s`` seconds, None: until it returns): the log already holds it, so it must show."""
        deadline = None if wait_s is None else time.monotonic() + wait_s
        delay = 0.05
        while True:
            try:
                if deciding:
                    await self.state.approval_end(body["approval_id"], body)
                else:
                    await self.state.approval_put(body)
                return
            except StorageUnavailable:
                if deadline is not None and time.monotonic() + delay > deadline:
                    raise
                await asyncio.sleep(delay)
                delay = min(2.0, delay * 2)

    async def _mine(self, principal: Principal, status: str) -> list[Approval]:
        return [_approval(b) for b in await self.state.approvals_of(principal.tenant, "reflect", principal.subject,
                                                                    status)]

    async def granted(self, principal: Principal, method: str, params: dict[str, Any], resource: str) -> Approval | None:
        now = time.time()
        for a in await self._mine(principal, "granted"):
            if (a.expires_at or 0) > now and a.covers(method, params, resource):
                return a
        return None

    async def pending_for(self, principal: Principal, method: str, params: dict[str, Any]) -> Approval | None:
        for a in await self._mine(principal, "pending"):
            if a.method == method and a.params == params:
                return a
        return None

    async def require(self, principal: Principal, method: str, params: dict[str, Any], resource: str,
                      reason: str) -> Approval:
        """The granted approval covering this call, or -32003 naming the pending request for it."""
        found = await self.granted(principal, method, params, resource)
        if found is not None:
            return found
        pending = await self.pending_for(principal, method, params)
        if pending is None:
            pending = Approval("apr_" + secrets.token_hex(8), principal.tenant, "reflect", resource,
                               principal.subject, reason, created_at=utc_now(), method=method, params=params)
            await self._record(pending, "requested")  # durable first, then visible
            await self.state.approval_put(asdict(pending))
        raise RpcError(FORBIDDEN, "approval required: an approver must grant it first",
                       {"approval_id": pending.approval_id, "status": "pending", "scope": resource,
                        "method": method, "params": params})

    async def request_input(self, tenant: str, action_id: str, request_id: str, reason: str) -> Approval:
        a = Approval("apr_" + secrets.token_hex(8), tenant, "action_input", f"action:{action_id}",
                     action_id, reason, created_at=utc_now(), action_id=action_id, request_id=request_id)
        await self._record(a, "requested")
        await self._show(asdict(a), None)  # the action waits for it: it must become visible
        return a

    def asked(self, action: Any, request_id: str, payload: dict[str, Any]) -> None:
        """The scheduler's ``approval_hook``: an ability asked for an approval, so approvers get a
        row to list and decide. Any process that runs abilities installs it (a replica through its
        Service, a ``metis worker`` without one): the row lives in the shared state, not in the
        process that asked."""
        task = asyncio.get_running_loop().create_task(
            self.request_input(action.tenant, action.action_id, request_id, str(payload.get("reason", ""))[:500]))
        task.add_done_callback(_log_failure)

    async def decided_inputs(self, tenants: set[str], grace_s: float = ANSWER_GRACE_S) -> list[Approval]:
        """The tenants' action_input approvals decided at least ``grace_s`` ago (a decision recorded
        before ``decided_at`` existed counts as old): the candidates to answer if their action still
        waits, the deciding replica having had ``grace_s`` to answer them itself."""
        before = time.time() - grace_s
        found = []
        for tenant in sorted(tenants):
            for body in await self.state.approvals_of(tenant, "action_input"):
                if body["status"] in ("granted", "denied") and (body.get("decided_at") or 0) <= before:
                    found.append(_approval(body))
        return found

    async def list(self, principal: Principal) -> list[dict[str, Any]]:
        return [_approval(b).view() for b in await self.state.approvals_of(principal.tenant)]

    async def decide(self, principal: Principal, approval_id: str, grant: bool, note: str | None,
                     scope: str | None = None) -> Approval:
        body = await self.state.approval_get(approval_id)
        if body is None or body["tenant"] != principal.tenant:
            raise RpcError(NOT_FOUND, f"unknown approval {approval_id}")
        a = _approval(body)
        if a.status != "pending":
            raise RpcError(CONFLICT, f"approval {approval_id} is already {a.status}")
        if a.requested_by == principal.subject:
            raise RpcError(FORBIDDEN, "an approval cannot be decided by its requester")
        if scope is not None and a.kind != "reflect":
            raise RpcError(INVALID_PARAMS, "scope applies to reflect approvals only",
                           {"errors": [{"loc": ["scope"], "msg": f"approval {approval_id} is {a.kind}"}]})
        if scope == "action" and not a.scope.startswith("action:"):
            raise RpcError(INVALID_PARAMS, "scope action needs an approval requested for an action",
                           {"errors": [{"loc": ["scope"], "msg": f"requested for {a.scope}"}]})
        if not await self.state.approval_begin(approval_id):  # another approver got there first
            now = await self.state.approval_get(approval_id)
            status = (now or body)["status"]
            raise RpcError(CONFLICT, f"approval {approval_id} is already {status if status != 'pending' else 'being decided'}")
        decided = Approval(**asdict(a))
        decided.status = "granted" if grant else "denied"
        decided.decided_by = principal.subject
        decided.note = note
        decided.decided_at = round(time.time(), 3)
        if grant and a.kind == "reflect":
            decided.granted_scope = scope or "call"
            decided.expires_at = time.time() + GRANT_TTL_S
        try:
            await self._record(decided, decided.status)  # durable first, then visible
        except BaseException:
            try:
                await self.state.approval_end(approval_id, None)
            except StorageUnavailable:
                pass  # the unfinished decision goes stale and frees the approval
            raise
        await self._show(asdict(decided), SHOW_WAIT_S, deciding=True)
        return decided


def _log_failure(task: asyncio.Task) -> None:
    """Done callback of the request task: a failure is logged, never lost."""
    if not task.cancelled() and task.exception() is not None:
        log.error("approval_request_failed", error=repr(task.exception()))
