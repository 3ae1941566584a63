"""An action's recorded history, read back for replay (pure: records in, steps out).

A run of an action is a deterministic function of its seed, inputs, the dependencies it started
with, and the replies to its calls (answers to ``ask``, results of ``spawn``). Every message the
worker sends that changes the log becomes one record, in order. So the records of a run, read
back, are the steps a replay must reproduce:

- ``Emit``: a record the worker caused (checkpoint, progress, notice, receipt, trace, artifact,
  published outputs); the replayed message must produce the same record or the action fails
  ``nondeterministic``;
- ``Call``: an ``ask`` (its ``action_waiting_user`` event, then its answer or expiry) or a
  ``spawn`` (its ``action_linked`` event naming the sub-action); a replayed call must be the same
  call, and it gets the recorded reply without asking anyone again.

A run starts at its ``running`` state record that carries ``run`` (the run's revision, deadline,
dependencies, attempt); crash retries of the same run (``attempt`` records) keep its history.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from receipts.canonical import canonical_json
from receipts.log import Record

#: Notices the scheduler writes itself (never replayed as steps of the ability).
SYSTEM_NOTICES = frozenset({"budget_grace", "update_available", "linked_ended", "structure_revision",
                            "input_expired", "retry"})
#: Receipts the service writes about an action (not steps of the ability).
SYSTEM_RECEIPTS = frozenset({"input", "replay"})


@dataclass
class Emit:
    record: Record


@dataclass
class Call:
    method: str  # "ask" | "spawn"
    payload: dict[str, Any]  # ask: the waiting_user event payload; spawn: the action_linked payload
    reply: dict[str, Any] | None = None  # {"value": ...} | {"expired": True}; spawn replies come from the child

    @property
    def request_id(self) -> str | None:
        return self.payload.get("request_id") if self.method == "ask" else None

    @property
    def child_id(self) -> str | None:
        return self.payload.get("action_id") if self.method == "spawn" else None


@dataclass
class History:
    run: dict[str, Any] | None = None  # the run's start info (revision, deadline, deps, attempt)
    attempt: int = 1
    steps: list[Emit | Call] = field(default_factory=list)
    asks: dict[str, dict[str, Any]] = field(default_factory=dict)  # request_id -> {expires_at?}
    last_state: str | None = None  # name of the newest state record of the action

    def open_call(self) -> Call | None:
        """The call the run is parked on (the last step, still without a reply), if any."""
        if self.steps and isinstance(self.steps[-1], Call) and self.steps[-1].reply is None:
            return self.steps[-1]
        return None


def read_history(records: list[Record]) -> History:
    """The current run's steps from all records of one action, in log order."""
    start = None
    last_state = None
    for i, rec in enumerate(records):
        if rec.type == "state":
            last_state = rec.name
            run = rec.payload.get("run")
            if run and run.get("start"):
                start = i
    h = History(last_state=last_state)
    if start is None:
        return h
    h.run = records[start].payload["run"]
    asks: dict[str, Call] = {}
    for rec in records[start + 1:]:
        t, n = rec.type, rec.name
        if t == "state":
            run = rec.payload.get("run")
            if n == "attempt" and run:
                h.attempt = int(run.get("attempt", h.attempt))
            elif n == "published":
                h.steps.append(Emit(rec))
            ask = rec.payload.get("ask")
            if ask:
                h.asks[ask["request_id"]] = ask
        elif t == "event":
            body = rec.payload
            if n == "action_waiting_user":
                call = Call("ask", body["payload"])
                asks[body["payload"]["request_id"]] = call
                h.steps.append(call)
            elif n == "action_linked":
                h.steps.append(Call("spawn", body["payload"]))
            elif n == "action_notice" and body.get("kind") in SYSTEM_NOTICES:
                if body.get("kind") == "input_expired":
                    call = asks.get(body["payload"].get("request_id"))
                    if call is not None:
                        call.reply = {"expired": True}
            elif n in ("action_started", "action_completed", "action_partial", "action_failed"):
                continue
            else:
                h.steps.append(Emit(rec))
        elif t == "receipt":
            if n == "input":
                call = asks.get(rec.payload.get("request_id"))
                if call is not None:
                    call.reply = {"value": rec.payload.get("value")}
            elif n not in SYSTEM_RECEIPTS:
                h.steps.append(Emit(rec))
        elif t in ("trace", "artifact"):
            h.steps.append(Emit(rec))
    return h


def same(a: Any, b: Any) -> bool:
    """Equal as JSON values (what was hashed), whatever Python types the two sides hold."""
    if a == b:
        return True
    try:
        return canonical_json(a) == canonical_json(b)
    except ValueError:
        return False


def matches(rec: Record, type_: str, name: str, payload: dict[str, Any]) -> bool:
    """Does the record hold what a live run would append now (type, name, payload)? For events,
    the revision is not compared: a run may publish a new revision between two steps."""
    if rec.type != type_ or rec.name != name:
        return False
    held = rec.payload
    if type_ == "event":
        return all(same(held.get(k), payload.get(k)) for k in ("payload", "kind", "lock"))
    if type_ == "state":  # published outputs
        return same((held.get("view") or {}).get("outputs"), (payload.get("view") or {}).get("outputs"))
    return same(held, payload)


def describe(rec: Record) -> str:
    """A short name of a recorded step for error messages."""
    kind = rec.payload.get("kind") if rec.type == "event" else None
    return f"{rec.name}{f' ({kind})' if kind else ''} #{rec.seq}"
