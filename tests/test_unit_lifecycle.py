"""The action state machine (orchestrator/lifecycle.py): every allowed and forbidden transition."""

from __future__ import annotations

import itertools

import pytest

from orchestrator.lifecycle import (
    ENDED_EVENT,
    TERMINAL,
    Status,
    TransitionError,
    check_transition,
    is_terminal,
)

S = Status
# The contract's lifecycle, written out independently of the module's table.
ALLOWED = {
    (S.QUEUED, S.WAITING), (S.QUEUED, S.RUNNING), (S.QUEUED, S.FAILED), (S.QUEUED, S.CANCELLED),
    (S.WAITING, S.QUEUED), (S.WAITING, S.FAILED), (S.WAITING, S.CANCELLED),
    (S.RUNNING, S.WAITING_USER), (S.RUNNING, S.COMPLETED), (S.RUNNING, S.PARTIAL), (S.RUNNING, S.FAILED),
    (S.RUNNING, S.CANCELLED),
    (S.WAITING_USER, S.RUNNING), (S.WAITING_USER, S.PARTIAL), (S.WAITING_USER, S.FAILED),
    (S.WAITING_USER, S.CANCELLED),
    (S.COMPLETED, S.QUEUED), (S.PARTIAL, S.QUEUED),  # structure revision (accept_update)
}
ALL_PAIRS = list(itertools.product(S, S))


def test_statuses_are_the_contracts_eight():
    assert [str(s) for s in S] == ["queued", "waiting", "running", "waiting_user", "completed", "partial",
                                   "failed", "cancelled"]


@pytest.mark.parametrize("current,new", sorted(ALLOWED))
def test_allowed_transition(current, new):
    check_transition(current, new)


@pytest.mark.parametrize("current,new", [p for p in ALL_PAIRS if p not in ALLOWED])
def test_forbidden_transition(current, new):
    with pytest.raises(TransitionError, match=f"cannot go from {current} to {new}"):
        check_transition(current, new)


def test_no_self_loops_and_failed_cancelled_are_final():
    for s in S:
        with pytest.raises(TransitionError):
            check_transition(s, s)
    for final in (S.FAILED, S.CANCELLED):
        for s in S:
            with pytest.raises(TransitionError):
                check_transition(final, s)


def test_terminal_set_and_end_events():
    assert TERMINAL == {S.COMPLETED, S.PARTIAL, S.FAILED, S.CANCELLED}
    assert [s for s in S if is_terminal(s)] == [S.COMPLETED, S.PARTIAL, S.FAILED, S.CANCELLED]
    assert ENDED_EVENT == {S.COMPLETED: "action_completed", S.PARTIAL: "action_partial",
                           S.FAILED: "action_failed", S.CANCELLED: "action_failed"}


def test_transition_error_is_a_value_error():
    assert issubclass(TransitionError, ValueError)
