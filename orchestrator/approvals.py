"""Approvals: reviewers' access to reflect.* and abilities' approvals-as-input, decided by approvers.

Every request and decision is a log record (type ``approval``); the in-memory table is rebuilt
from those records on restart.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import asdict, dataclass
from typing import Any

from orchestrator.auth import Principal
from orchestrator.errors import CONFLICT, FORBIDDEN, NOT_FOUND, RpcError
from receipts.log import Entry, ReceiptLog, utc_now

GRANT_TTL_S = 3600


@dataclass
class Approval:
    approval_id: str
    tenant: str
    kind: str  # "reflect" | "action_input"
    scope: str  # "action:<id>" | "log" for reflect; "action:<id>" for inputs
    requested_by: str
    reason: str
    status: str = "pending"
    created_at: str = ""
    decided_by: str | None = None
    note: str | None = None
    expires_at: float | None = None
    action_id: str | None = None
    request_id: str | None = None

    def view(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None and k != "tenant"}


class Approvals:
    def __init__(self, receipt_log: ReceiptLog) -> None:
        self.log = receipt_log
        self.table: dict[str, Approval] = {}

    def rebuild(self) -> None:
        for rec in self.log.iter_control():
            if rec.type == "approval":
                self.table[rec.ref] = Approval(**rec.payload["approval"])

    async def _record(self, a: Approval, name: str) -> None:
        await self.log.append([Entry("approval", name, a.tenant, {"approval": asdict(a)},
                                     action_id=a.action_id, ref=a.approval_id)])

    def granted(self, principal: Principal, scope: str) -> Approval | None:
        now = time.time()
        for a in self.table.values():
            if (a.kind == "reflect" and a.tenant == principal.tenant and a.requested_by == principal.subject
                    and a.scope in (scope, "log") and a.status == "granted" and (a.expires_at or 0) > now):
                return a
        return None

    def pending_for(self, principal: Principal, scope: str) -> Approval | None:
        for a in self.table.values():
            if (a.kind == "reflect" and a.tenant == principal.tenant and a.requested_by == principal.subject
                    and a.scope == scope and a.status == "pending"):
                return a
        return None

    async def require(self, principal: Principal, scope: str, reason: str) -> Approval:
        """The granted approval covering ``scope``, or -32003 naming the pending request."""
        found = self.granted(principal, scope)
        if found is not None:
            return found
        pending = self.pending_for(principal, scope)
        if pending is None:
            pending = Approval("apr_" + secrets.token_hex(8), principal.tenant, "reflect", scope,
                               principal.subject, reason, created_at=utc_now())
            self.table[pending.approval_id] = pending
            await self._record(pending, "requested")
        raise RpcError(FORBIDDEN, "approval required: an approver must grant it first",
                       {"approval_id": pending.approval_id, "status": "pending", "scope": scope})

    async def request_input(self, tenant: str, action_id: str, request_id: str, reason: str) -> Approval:
        a = Approval("apr_" + secrets.token_hex(8), tenant, "action_input", f"action:{action_id}",
                     action_id, reason, created_at=utc_now(), action_id=action_id, request_id=request_id)
        self.table[a.approval_id] = a
        await self._record(a, "requested")
        return a

    def list(self, principal: Principal) -> list[dict[str, Any]]:
        return [a.view() for a in self.table.values() if a.tenant == principal.tenant]

    async def decide(self, principal: Principal, approval_id: str, grant: bool, note: str | None) -> Approval:
        a = self.table.get(approval_id)
        if a is None or a.tenant != principal.tenant:
            raise RpcError(NOT_FOUND, f"unknown approval {approval_id}")
        if a.status != "pending":
            raise RpcError(CONFLICT, f"approval {approval_id} is already {a.status}")
        if a.requested_by == principal.subject:
            raise RpcError(FORBIDDEN, "an approval cannot be decided by its requester")
        a.status = "granted" if grant else "denied"
        a.decided_by = principal.subject
        a.note = note
        if grant and a.kind == "reflect":
            a.expires_at = time.time() + GRANT_TTL_S
        await self._record(a, a.status)
        return a
