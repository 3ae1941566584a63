"""Row locks of the work queue against fenced appends: a heartbeat that renews several leases at
once must lock its job rows in the order a fenced append share-locks them (action_id), or the two
deadlock and PostgreSQL fails one of them after ``deadlock_timeout`` while the log's lock is held."""

from __future__ import annotations

import threading
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
