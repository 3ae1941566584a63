"""Row locks of the work queue against fenced appends: a heartbeat that renews several leases at
once must lock its job rows in the order a fenced append share-locks them (action_id), or the two
deadlock and PostgreSQL fails one of them after ``deadlock_timeout`` while the log's lock is held."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import psycopg
import pytest

from receipts.postgres import upgrade
from receipts.workqueue import WorkQueue


@pytest.fixture
def queue(pg_url: str) -> Iterator[WorkQueue]:
    upgrade(pg_url)
    q = WorkQueue(pg_url, lease_s=30.0)
    yield q
    q.close()


def _blocked_on_lock(conn: psycopg.Connection, app: str) -> bool:
    row = conn.execute("SELECT count(*) FROM pg_stat_activity WHERE application_name = %s AND wait_event_type = 'Lock'",
                       (app,)).fetchone()
    return bool(row and row[0])


def test_heartbeat_and_fenced_append_locks_do_not_deadlock(queue, pg_url):
    # "b" is claimed first, "a" later: in the table (and in the lease index) b comes before a, so a
    # heartbeat scanning in physical order would lock b, then wait for a
    queue.enqueue("act_b", "acme", "t_emit")
    assert [lease.action_id for lease in queue.claim("w1")] == ["act_b"]
    queue.enqueue("act_a", "acme", "t_emit")
    assert [lease.action_id for lease in queue.claim("w1")] == ["act_a"]
    renewed: list[object] = []
    with psycopg.connect(pg_url) as append, psycopg.connect(pg_url, autocommit=True) as watch:
        append.execute("SET deadlock_timeout = '200ms'")
        # an append's fence check, in its order: a first ...
        append.execute("SELECT 1 FROM metis_jobs WHERE action_id = 'act_a' FOR SHARE")
        beat = threading.Thread(target=lambda: renewed.append(_renew(queue)))
        beat.start()
        for _ in range(100):  # the heartbeat is waiting for a row the append holds
            if _blocked_on_lock(watch, "metis-queue"):
                break
            beat.join(0.05)
        # ... then b: waits for nothing, or (rows locked in another order) a deadlock error
        append.execute("SELECT 1 FROM metis_jobs WHERE action_id = 'act_b' FOR SHARE")
        append.commit()
        beat.join(10)
    assert not beat.is_alive()
    assert renewed == [{"act_a", "act_b"}]


def _renew(queue: WorkQueue) -> object:
    try:
        return queue.renew_held("w1")
    except Exception as exc:  # a deadlock broken on this side shows here
        return exc


def test_a_claimer_claims_only_when_something_may_be_there(queue, pg_url):
    """``claim_wait`` keeps its LISTEN connection between calls: a call with no notification since the
    last claim waits instead of claiming at once, a notification that came meanwhile is claimed at
    once, and a quiet poll still claims (a job whose backoff ran out sends no notification)."""
    claims: list[int] = []
    real_claim = queue.claim

    def counting_claim(owner: str, limit: int = 1, kinds: list[str] | None = None):
        claims.append(limit)
        return real_claim(owner, limit, kinds)

    queue.claim = counting_claim  # type: ignore[method-assign]
    assert queue.claim_wait("w1", timeout_s=0.3, poll_s=5) == []  # first call: LISTEN, then one claim
    assert len(claims) == 1
    assert queue.claim_wait("w1", timeout_s=0.3, poll_s=5) == []  # nothing new: no claim, just the wait
    assert len(claims) == 1
    queue.enqueue("act_n", "acme", "t_emit")  # its NOTIFY waits in the kept connection
    t0 = time.monotonic()
    got = queue.claim_wait("w1", timeout_s=5, poll_s=5)
    assert [lease.action_id for lease in got] == ["act_n"] and time.monotonic() - t0 < 1.0
    assert len(claims) == 2
    with psycopg.connect(pg_url, autocommit=True) as conn:  # available without a notification
        conn.execute("INSERT INTO metis_jobs (action_id, tenant, kind) VALUES ('act_q', 'acme', 't_emit')")
    got = queue.claim_wait("w1", timeout_s=3, poll_s=0.2)
    assert [lease.action_id for lease in got] == ["act_q"]  # found by the poll
