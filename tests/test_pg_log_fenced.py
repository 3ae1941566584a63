"""Fenced appends ride the group-commit batch: the batch procedure checks each appender's epoch under
the log's lock; a stale one is refused alone, the batch's other appends commit in one total order
with an unbroken chain."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import psycopg
import pytest

from receipts.log import Entry
from receipts.merkle import MerkleTree, leaf_hash, subtree_hash
from receipts.postgres import LOG_LOCK, PostgresReceiptLog, upgrade, verify_database
from receipts.store import FencedOut
from receipts.workqueue import WorkQueue


def _wait(cond, timeout_s: float = 20.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not cond():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def test_a_stale_epoch_in_a_batch_with_valid_appends_is_refused_alone(pg_url, tmp_path):
    upgrade(pg_url)
    queue = WorkQueue(pg_url, lease_s=1.0)
    log = PostgresReceiptLog(pg_url, tmp_path / "keys")
    log.open()
    try:
        queue.enqueue("act_a", "acme", "t_emit")
        queue.enqueue("act_b", "acme", "t_emit")
        (first,) = queue.claim("w1")  # act_a
        time.sleep(1.2)  # w1 does not heartbeat: its lease lapses, the job is rescued and claimed again
        assert queue.rescue()["requeued"] == ["act_a"]
        leases = {lease.action_id: lease for lease in queue.claim("w2", limit=2)}
        stale, a2, b2 = first.fence, leases["act_a"].fence, leases["act_b"].fence
        assert a2.epoch == stale.epoch + 1
        before = log.commits_total

        def append(name: str, fence):
            entry = Entry("receipt", name, "acme", {"by": name}, action_id=fence.action_id if fence else None)
            return log.append_sync([entry, entry], fence=fence)

        with psycopg.connect(pg_url) as holder, ThreadPoolExecutor(5) as pool:
            holder.execute("SELECT pg_advisory_xact_lock(%s)", (LOG_LOCK,))  # the writer waits behind this
            blocker = pool.submit(append, "blocker", None)
            _wait(lambda: log._queue.qsize() == 0)  # the writer took the blocker and waits for the lock
            calls = [pool.submit(append, "valid_a", a2), pool.submit(append, "stale_a", stale),
                     pool.submit(append, "plain", None), pool.submit(append, "valid_b", b2)]
            _wait(lambda: log._queue.qsize() == 4)  # all four wait: they go in one batch
            holder.commit()
            blocker.result(timeout=30)
            with pytest.raises(FencedOut, match=f"{stale.action_id}: epoch {stale.epoch}"):
                calls[1].result(timeout=30)
            ok = [calls[n].result(timeout=30) for n in (0, 2, 3)]
        assert log.commits_total - before == 2  # the blocker, then the four in one batch
        seqs = [r.seq for recs in ok for r in recs]
        assert seqs == list(range(seqs[0], seqs[0] + 6))  # the refused append left no gap
        assert [r.payload["by"] for r in log.read_action("act_a")] == ["valid_a", "valid_a"]
        report = verify_database(pg_url, tmp_path / "keys")
        assert report.ok, report.reason
    finally:
        log.close()
        queue.close()


def test_writers_chaining_on_each_others_records_store_the_right_merkle_nodes(pg_url, tmp_path):
    """Two writers appending in turn: each finds the tail moved and chains on the other's records
    (read, hashed, never shown); every Merkle node either stores equals the one recomputed from the
    records, and a replica opening from the stored nodes signs the root of all records."""
    upgrade(pg_url)
    logs = [PostgresReceiptLog(pg_url, tmp_path / "keys") for _ in range(2)]
    for lg in logs:
        lg.open()
    try:
        for n in range(40):
            logs[n % 2].append_sync([Entry("receipt", f"r{n}.{k}", "acme", {"n": n}) for k in range(1 + n % 3)])
    finally:
        for lg in logs:
            lg.close()
    with psycopg.connect(pg_url) as conn:
        leaves = [leaf_hash(bytes(b)) for (b,) in conn.execute("SELECT body FROM records ORDER BY seq")]
        nodes = conn.execute("SELECT level, idx, hash FROM merkle_nodes").fetchall()
    assert len(leaves) == sum(1 + n % 3 for n in range(40)) and nodes
    for level, idx, hsh in nodes:
        assert bytes(hsh) == subtree_hash(leaves[idx << level:(idx + 1) << level]), (level, idx)
    third = PostgresReceiptLog(pg_url, tmp_path / "keys")
    third.open()
    try:
        sth = third.sign_tree_head()
    finally:
        third.close()
    assert sth["tree_size"] == len(leaves)
    assert sth["root_hash"] == MerkleTree(leaves).root().hex()
    assert verify_database(pg_url, tmp_path / "keys").ok
