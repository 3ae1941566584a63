"""The action state machine: statuses and the transitions allowed between them (pure)."""

from __future__ import annotations

from enum import StrEnum


class Status(StrEnum):
    QUEUED = "queued"
    WAITING = "waiting"
    RUNNING = "running"
    WAITING_USER = "waiting_user"
    COMPLETED = "completed"
    PARTIAL = "partial"
    FAILED = "failed"
    CANCELLED = "cancelled"


TERMINAL = frozenset({Status.COMPLETED, Status.PARTIAL, Status.FAILED, Status.CANCELLED})
ENDED_EVENT = {
    Status.COMPLETED: "action_completed",
    Status.PARTIAL: "action_partial",
    Status.FAILED: "action_failed",
    Status.CANCELLED: "action_failed",
}

_ALLOWED: dict[Status, frozenset[Status]] = {
    Status.QUEUED: frozenset({Status.WAITING, Status.RUNNING, Status.FAILED, Status.CANCELLED}),
    Status.WAITING: frozenset({Status.QUEUED, Status.FAILED, Status.CANCELLED}),
    Status.RUNNING: frozenset(
        {Status.WAITING_USER, Status.COMPLETED, Status.PARTIAL, Status.FAILED, Status.CANCELLED}
    ),
    Status.WAITING_USER: frozenset({Status.RUNNING, Status.PARTIAL, Status.FAILED, Status.CANCELLED}),
    # A structure revision (accepting a bind bump) re-runs an ended action.
    Status.COMPLETED: frozenset({Status.QUEUED}),
    Status.PARTIAL: frozenset({Status.QUEUED}),
    Status.FAILED: frozenset(),
    Status.CANCELLED: frozenset(),
}


class TransitionError(ValueError):
    """An illegal status change (a bug or a request in the wrong state: JSON-RPC -32009)."""


def check_transition(current: Status, new: Status) -> None:
    """Raise ``TransitionError`` unless ``current -> new`` is allowed."""
    if new not in _ALLOWED[current]:
        raise TransitionError(f"cannot go from {current} to {new}")


def is_terminal(status: Status) -> bool:
    return status in TERMINAL
