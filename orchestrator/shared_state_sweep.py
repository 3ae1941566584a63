"""What no single process may be trusted to finish: every replica sweeps for it now and then.

Two hand-offs end in a process that may die before doing its part. An approver's decision is
recorded by one replica, which then answers the waiting action; a question's timeout is fired by
the process that asked, whose timer dies with it. Either way the action would wait forever. The
sweep finds such actions among those the replica knows to be waiting, once the responsible
process had a grace period to act, and does the missing part itself: one replica per item, by an
atomic claim in the shared state (orchestrator/shared_state.py), so nothing is answered twice.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from typing import TYPE_CHECKING

import structlog

from orchestrator.approvals import ANSWER_GRACE_S, Approvals
from orchestrator.errors import RpcError, StorageUnavailable
from orchestrator.lifecycle import Status
from orchestrator.shared_state import STALE_CLAIM_S, SharedState

if TYPE_CHECKING:
    from orchestrator.scheduler import Action, Scheduler

log = structlog.get_logger("metis.sweep")

#: A question still open this long after its expiry lost the timer that should have fired it.
EXPIRY_GRACE_S = 5.0


class Sweep:
    """Answers decided approvals and fires overdue question timeouts that their process left."""

    def __init__(self, scheduler: Scheduler, approvals: Approvals, state: SharedState) -> None:
        self.scheduler = scheduler
        self.approvals = approvals
        self.state = state
        # (action_id, request_id) -> the question's expiry as its state record holds it (None: none)
        self._expiries: dict[tuple[str, str], float | None] = {}
        self._task: asyncio.Task | None = None

    def start(self, every_s: float = ANSWER_GRACE_S / 2) -> None:
        """Sweep in the running loop every ``every_s`` seconds until ``close``."""
        self._task = asyncio.get_running_loop().create_task(self._forever(every_s))

    def close(self) -> None:
        if self._task is not None:
            self._task.cancel()

    def _waiting(self) -> list[Action]:
        return [a for a in self.scheduler.actions.values() if a.status == Status.WAITING_USER and a.pending]

    async def _claim(self, tenant: str, item: str) -> bool:
        """One replica does a given item: it claims the item's key (in the idempotency keys' table,
        one atomic insert) first; a claim whose replica died is taken over once stale."""
        key, me = f"sweep/{item}", f"{item}/{secrets.token_hex(6)}"
        holder = await self.state.claim_key(tenant, key, item, me)
        if holder is None:
            return True
        return holder[2] >= STALE_CLAIM_S and await self.state.take_over_key(tenant, key, holder[0], me)

    async def answer_decided(self, grace_s: float = ANSWER_GRACE_S) -> int:
        """Answer the approvals decided at least ``grace_s`` ago whose action still waits for them
        (the replica that decided died before answering). Returns how many were answered here."""
        waiting = {a.action_id: a for a in self._waiting() if "approval" in a.pending.values()}
        if not waiting:
            return 0
        answered = 0
        for ap in await self.approvals.decided_inputs({a.tenant for a in waiting.values()}, grace_s):
            a = waiting.get(ap.action_id or "")
            if a is None or ap.request_id is None or a.pending.get(ap.request_id) != "approval":
                continue
            if not await self._claim(a.tenant, f"answer/{ap.approval_id}"):
                continue  # another replica's sweep answers it
            try:
                await self.scheduler.answer(a, ap.request_id, ap.answer(), source=ap.decided_by or "approver")
            except RpcError:
                continue  # answered meanwhile (here or on another replica)
            log.info("approval_answered_late", action_id=a.action_id, approval_id=ap.approval_id)
            answered += 1
        return answered

    async def _expiry(self, a: Action, request_id: str) -> float | None:
        """The question's expiry, read once from its action's state records (then remembered)."""
        key = (a.action_id, request_id)
        if key not in self._expiries:
            records = await asyncio.to_thread(self.scheduler.log.read_action, a.action_id, ["state"])
            found = None
            for rec in records:
                ask = rec.payload.get("ask")
                if ask and ask.get("request_id") == request_id:
                    found = ask.get("expires_at")
            self._expiries[key] = found
        return self._expiries[key]

    async def expire_overdue(self, grace_s: float = EXPIRY_GRACE_S) -> int:
        """Fire the timeouts of questions still open ``grace_s`` after their expiry (the process
        that asked, and armed the timer, died). Returns how many were fired here."""
        now, fired = time.time(), 0
        waiting = self._waiting()
        live = {(a.action_id, rid) for a in waiting for rid in a.pending}
        for key in [k for k in self._expiries if k not in live]:
            del self._expiries[key]  # answered, expired or ended: forget it
        for a in waiting:
            for rid in list(a.pending):
                expires_at = await self._expiry(a, rid)
                if expires_at is None or now < expires_at + grace_s or rid not in a.pending:
                    continue
                if not await self._claim(a.tenant, f"expire/{a.action_id}/{rid}"):
                    continue
                self.scheduler._expire(a, rid)  # what the asker's timer would have done
                log.info("question_expired_late", action_id=a.action_id, request_id=rid)
                fired += 1
        return fired

    async def _forever(self, every_s: float) -> None:
        while True:
            await asyncio.sleep(every_s)
            for step in (self.answer_decided, self.expire_overdue):
                try:
                    await step()
                except StorageUnavailable:
                    pass  # the next sweep tries again
                except Exception as exc:  # noqa: BLE001 - the sweep must outlive one bad round
                    log.error("sweep_failed", step=step.__name__, error=repr(exc))
