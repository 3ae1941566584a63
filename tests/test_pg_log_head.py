"""The durable head of the PostgreSQL log: a batch is committed without waiting for the WAL flush
and made visible by a second, synchronously committed transaction that raises ``metis_log_head``.
Records above the head (a writer died between the two) are read by nobody until a replica raises
the head over them; they continue the chain, so the log stays whole. Real PostgreSQL."""

from __future__ import annotations

import asyncio
import hashlib
import threading
import time

import psycopg

from receipts.log import Entry, build_body, utc_now
from receipts.postgres import PostgresReceiptLog, verify_database


def orphan_batch(url: str, names: list[str]) -> None:
    """Commit records on the tail as a writer does, then stop before raising the head."""
    with psycopg.connect(url, autocommit=True) as conn:
        seq, prev = conn.execute("SELECT seq, hash FROM records ORDER BY seq DESC LIMIT 1").fetchone()
        for name in names:
            seq += 1
            body = build_body(seq, utc_now(), Entry("receipt", name, "acme", {}), prev)
            prev = hashlib.sha256(body).hexdigest()
            conn.execute("INSERT INTO records (seq, type, name, tenant, body, hash) VALUES (%s, 'receipt', %s, 'acme', %s, %s)",
                         (seq, name, body, prev))


def test_records_above_the_head_are_unseen_until_a_replica_raises_it(pg_url, tmp_path):
    keys = tmp_path / "keys"
    first = PostgresReceiptLog(pg_url, keys, poll_s=0.2)
    first.open()
    seen: list[int] = []
    try:
        first.append_sync([Entry("receipt", "acked", "acme", {})])
        orphan_batch(pg_url, ["orphan-a", "orphan-b"])

        async def watch() -> None:
            first.bind_loop(asyncio.get_running_loop())
            first.add_listener(lambda recs: seen.extend(r.seq for r in recs))
            await asyncio.sleep(0.8)  # several polls: the follower must not pick the orphans up
            assert seen == [] and first.last_seq == 1
            assert [r.name for r in first.read_range(1, 10)] == ["acked"]
            assert first.get(2) is None and first.read_action("nothing") == []
            second = PostgresReceiptLog(pg_url, keys)
            second.open()  # a replica starting raises the head over what a dead writer left
            try:
                assert second.last_seq == 3 and second.tree_size == 3
            finally:
                second.close()
            deadline = time.monotonic() + 10
            while first.last_seq < 3 and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            (rec,) = await first.append([Entry("receipt", "after", "acme", {})])
            assert rec.seq == 4  # the writer found the tail moved and chained on the orphans
            while seen[-1:] != [4] and time.monotonic() < deadline:
                await asyncio.sleep(0.05)

        asyncio.run(watch())
        assert seen == [2, 3, 4]
        assert [r.name for r in first.read_range(1, 10)] == ["acked", "orphan-a", "orphan-b", "after"]
    finally:
        first.close()
    assert verify_database(pg_url, keys).ok


def test_a_call_cut_between_commit_and_flush_is_found_and_not_written_twice(pg_url, tmp_path):
    """The writer's connection dies after the batch's first transaction committed and before the head
    was raised: the writer finds the batch by seq and hash, raises the head, acknowledges it once."""
    keys = tmp_path / "keys"
    store = PostgresReceiptLog(pg_url, keys)
    store.open()
    try:
        store.append_sync([Entry("receipt", "first", "acme", {})])
        with psycopg.connect(pg_url) as holder:
            # hold the head table: the writer's call commits its records, then waits to raise the head
            holder.execute("LOCK TABLE metis_log_head IN EXCLUSIVE MODE")
            result: list = []

            def append() -> None:
                result.append(store.append_sync([Entry("receipt", "cut", "acme", {"i": i}) for i in range(3)]))

            t = threading.Thread(target=append)
            t.start()
            with psycopg.connect(pg_url, autocommit=True) as admin:
                deadline = time.monotonic() + 20
                while admin.execute("SELECT count(*) FROM records").fetchone()[0] < 4:
                    assert time.monotonic() < deadline, "the batch was never committed"
                    time.sleep(0.05)
                assert [r.name for r in store.read_range(1, 10)] == ["first"]  # committed, not durable yet
                admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() "
                              "AND application_name = 'metis-log-writer'")
            time.sleep(0.3)
        t.join(30)
        (recs,) = result
        assert [r.seq for r in recs] == [2, 3, 4]
        assert [r.name for r in store.read_range(1, 10)] == ["first", "cut", "cut", "cut"]
        (after,) = store.append_sync([Entry("receipt", "after", "acme", {})])
        assert after.seq == 5
    finally:
        store.close()
    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT count(*), max(seq) FROM records").fetchone() == (5, 5)  # written once
    assert verify_database(pg_url, keys).ok
