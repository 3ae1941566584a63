"""A process that follows only some record types of the PostgreSQL log (``follow_only``, as
``metis worker`` does): it gets the other processes' records of those types, once, in order, not
its own, and still appends on one chain and signs correct tree heads. Real PostgreSQL."""

from __future__ import annotations

import asyncio
import time

import psycopg

from receipts.log import Entry, Record
from receipts.merkle import MerkleTree, leaf_hash
from receipts.postgres import PostgresReceiptLog, verify_database


def entry(i: int, kind: str) -> Entry:
    if kind == "state":
        return Entry("state", "running", "acme", {"view": {"i": i}}, topic="t", action_id=f"act_{i % 3}")
    return Entry("event", "action_progress", "acme", {"i": i}, topic="t", action_id=f"act_{i % 3}", stream=True)


def test_a_process_following_only_state_records_gets_others_state_records_once_in_order(pg_url, tmp_path):
    keys = tmp_path / "keys"
    full = PostgresReceiptLog(pg_url, keys, poll_s=0.2)
    worker = PostgresReceiptLog(pg_url, keys, poll_s=0.2)
    worker.follow_only(("state",))
    full.open()
    worker.open()
    seen: list[Record] = []
    try:
        async def run() -> tuple[list[int], list[int]]:
            worker.bind_loop(asyncio.get_running_loop())
            worker.add_listener(seen.extend)
            others: list[int] = []
            own: list[int] = []
            for i in range(30):  # both append, interleaved: the worker chains on the other's records
                others += [r.seq for r in full.append_sync([entry(i, "state"), entry(i, "event")])]
                own += [r.seq for r in await worker.append([entry(100 + i, "state"), entry(100 + i, "event")])]
            deadline = time.monotonic() + 10
            while (not seen or seen[-1].seq < others[-2]) and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            return others, own

        others, own = asyncio.run(run())
        state_of_others = [s for n, s in enumerate(others) if n % 2 == 0]
        # the other process's state records, each once, in seq order; not its events, not its own records
        assert [r.seq for r in seen] == state_of_others
        assert all(r.type == "state" and r.payload["view"]["i"] < 100 for r in seen)
        assert worker.last_seq >= others[-2]
        assert own == sorted(own) and not set(own) & set(others)
        sth = worker.sign_tree_head()  # no tree kept by the worker: the head is built from the stored nodes
        with psycopg.connect(pg_url) as conn:
            bodies = [bytes(b) for (b,) in conn.execute("SELECT body FROM records WHERE seq <= %s ORDER BY seq",
                                                        (sth["tree_size"],))]
        assert sth["tree_size"] == len(bodies) >= own[-1]
        assert sth["root_hash"] == MerkleTree([leaf_hash(b) for b in bodies]).root().hex()
    finally:
        worker.close()
        full.close()
    assert verify_database(pg_url, keys).ok
