"""Approvals and questions across the worker tier: an ability running on a ``metis worker`` (no
ToolBus, no Service there) asks for an approval; approvers list and grant it on a serve-only
replica, and the action completes, on two replicas and one worker sharing one PostgreSQL database.
What a process that died left undone (answering a decision, firing a question's timeout) is done
by a replica's sweep (orchestrator/shared_state_sweep.py)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import psycopg
import pytest

from orchestrator.approvals import Approvals
from orchestrator.auth import Principal
from receipts.postgres import PostgresReceiptLog
from tests.support import ToolBus
from tests.test_pg_workers import LEASE_S, MetisWorker, httpx_get, job, running_tier, verify


@pytest.fixture(scope="module")
def tier(pg_database: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict]:
    """Two serve-only replicas and one worker: every run happens on the worker."""
    with running_tier(pg_database, tmp_path_factory.mktemp("tier_approvals"), 2, 1) as t:
        yield t


async def pending_for(apr: ToolBus, action_id: str, timeout: float = 30.0) -> list[dict]:
    """The action's pending approvals as an approver lists them, once there are any."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        found = [a for a in (await apr.call("approvals.list"))["approvals"]
                 if a.get("action_id") == action_id and a["status"] == "pending"]
        if found or loop.time() > deadline:
            return found
        await asyncio.sleep(0.1)


def test_an_approval_asked_on_a_worker_is_listed_and_granted_on_a_replica(tier):
    r1, r2 = tier["replicas"]

    async def go() -> tuple[dict, list[dict], list[dict]]:
        async with ToolBus.connect(r1) as tb, ToolBus.connect(r2, "approver") as apr:
            started = await tb.start("t_ask", {"kind": "approval", "question": "egress to partner API"})
            aid = started["action_id"]
            await tb.wait_status(aid, {"waiting_user"}, timeout=60)
            pending = await pending_for(apr, aid)
            assert pending, "the approval asked on the worker is not listed on the replica"
            await apr.call("approvals.grant", {"approval_id": pending[0]["approval_id"], "note": "ok"})
            view = await tb.wait_status(aid, {"completed", "failed", "partial"}, timeout=90)
            after = [a for a in (await apr.call("approvals.list"))["approvals"] if a.get("action_id") == aid]
            return view, pending, after

    view, pending, after = asyncio.run(go())
    assert len(pending) == 1 and pending[0]["kind"] == "action_input" and pending[0]["request_id"]
    assert view["status"] == "completed", view
    assert view["outputs"]["answer"]["granted"] is True
    assert view["outputs"]["answer"]["approval_id"] == pending[0]["approval_id"]
    assert [a["status"] for a in after] == ["granted"]  # one row, decided
    for r in tier["replicas"]:  # no replica has a worker process: the ability ran on the worker
        assert httpx_get(r, "/healthz")["workers"] == 0
    assert job(tier["url"], view["action_id"])["state"] == "done"
    verify(tier["url"], tier["keys"])


def test_a_denied_approval_asked_on_a_worker_ends_the_action_with_the_denial(tier):
    r1, r2 = tier["replicas"]

    async def go() -> tuple[dict, str]:
        async with ToolBus.connect(r2) as tb, ToolBus.connect(r1, "approver") as apr:
            started = await tb.start("t_ask", {"kind": "approval", "question": "delete the partner's data"})
            pending = await pending_for(apr, started["action_id"])
            assert pending
            await apr.call("approvals.deny", {"approval_id": pending[0]["approval_id"], "note": "no"})
            view = await tb.wait_status(started["action_id"], {"completed", "failed", "partial"}, timeout=90)
            return view, pending[0]["approval_id"]

    view, approval_id = asyncio.run(go())
    assert view["status"] == "completed", view
    assert view["outputs"]["answer"] == {"granted": False, "note": "no", "approval_id": approval_id}


def test_a_decision_whose_replica_died_before_answering_is_answered_by_a_replica(tier):
    """The decision is recorded (log and shared state) by a process that then goes away without
    answering the action, as a replica killed between the two would: a replica's sweep answers it,
    once, after the deciding replica's grace."""
    r1, r2 = tier["replicas"]
    decider = PostgresReceiptLog(tier["url"], tier["keys"])
    decider.open()

    async def go() -> tuple[dict, str]:
        async with ToolBus.connect(r1) as tb, ToolBus.connect(r2, "approver") as apr:
            started = await tb.start("t_ask", {"kind": "approval", "question": "ship it"})
            pending = await pending_for(apr, started["action_id"])
            assert pending
            approvals = Approvals(decider)  # the deciding "replica": decides, never answers
            try:
                await approvals.decide(Principal("acme", ("approver",), "dead-replica-approver"),
                                       pending[0]["approval_id"], True, "granted, then the replica died")
            finally:
                approvals.state.close()
            view = await tb.wait_status(started["action_id"], {"completed", "failed", "partial"}, timeout=90)
            return view, pending[0]["approval_id"]

    try:
        view, approval_id = asyncio.run(go())
    finally:
        decider.close()
    assert view["status"] == "completed", view
    assert view["outputs"]["answer"] == {"granted": True, "note": "granted, then the replica died",
                                         "approval_id": approval_id}
    with psycopg.connect(tier["url"]) as conn:
        inputs = conn.execute("SELECT count(*) FROM records WHERE action_id = %s AND type = 'receipt' "
                              "AND name = 'input'", (view["action_id"],)).fetchone()[0]
    assert inputs == 1  # answered once, though both replicas sweep
    verify(tier["url"], tier["keys"])


def test_a_question_whose_worker_died_times_out_on_a_replica(tier):
    """The worker that asked (and holds the question's timer) is killed -9 while the action waits:
    with no worker left, a replica's sweep records the expiry; a new worker resumes the run, whose
    ``ask`` times out. Last in the module: it replaces the tier's worker."""
    r1 = tier["replicas"][0]

    def expired(action_id: str) -> bool:
        with psycopg.connect(tier["url"]) as conn:
            rows = conn.execute("SELECT body FROM records WHERE action_id = %s AND type = 'event' "
                                "AND name = 'action_notice'", (action_id,)).fetchall()
        return any(b'"input_expired"' in bytes(body) for (body,) in rows)

    async def go() -> dict:
        async with ToolBus.connect(r1) as tb:
            started = await tb.start("t_ask", {"question": "anyone?", "timeout_s": 1.0})
            aid = started["action_id"]
            await tb.wait_status(aid, {"waiting_user"}, timeout=60)
            tier["workers"][0].stop(kill=True)  # its timer dies with it
            deadline = time.monotonic() + 60
            while not expired(aid) and time.monotonic() < deadline:
                await asyncio.sleep(0.2)
            assert expired(aid), "no replica fired the timeout of the dead worker's question"
            assert (await tb.call("actions.get", {"action_id": aid}))["status"] == "waiting_user"  # no worker yet
            replacement = MetisWorker(tier["workers"][0].data_dir.parent / "worker1", tier["url"], tier["keys"],
                                      env={"METIS_LEASE_S": str(LEASE_S)})
            tier["workers"].append(await asyncio.to_thread(replacement.start))
            return await tb.wait_status(aid, {"partial", "completed", "failed"}, timeout=90)

    view = asyncio.run(go())
    assert view["status"] == "partial" and view["error"]["reason"] == "input_timeout", view
