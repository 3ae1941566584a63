"""The PostgreSQL log keeps its Merkle tree's nodes in ``merkle_nodes`` (written in the transaction
of the records that complete them), so a replica opens by reading O(log n) of them instead of
hashing every record; a log written before the table existed gets its nodes once, at the first
open, even with several replicas starting at once. Real PostgreSQL, real stores."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import psycopg

from receipts.log import Entry
from receipts.merkle import MerkleTree, leaf_hash, verify_inclusion
from receipts.postgres import PostgresReceiptLog, verify_database

N = 3000


def fill(url: str, keys: Path, n: int = N) -> bytes:
    """Append ``n`` records in uneven batches; the root of a tree rebuilt from every record."""
    store = PostgresReceiptLog(url, keys)
    store.open()
    try:
        done = 0
        while done < n:
            k = min(n - done, 1 + done % 97)
            store.append_sync([Entry("receipt", "r", "acme", {"i": done + j}) for j in range(k)])
            done += k
    finally:
        store.close()
    with psycopg.connect(url) as conn:
        leaves = [leaf_hash(bytes(b)) for (b,) in conn.execute("SELECT body FROM records ORDER BY seq")]
    return MerkleTree(leaves).root()


def records_read(url: str) -> int:
    """Rows of ``records`` read so far by every backend that has ended (index and sequential scans)."""
    last, same = -1, 0
    while same < 3:  # a backend publishes its counts as it exits: wait until they stop moving
        with psycopg.connect(url) as conn:
            value = conn.execute("SELECT coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0) FROM pg_stat_user_tables "
                                 "WHERE relid = 'records'::regclass").fetchone()[0]
        same = same + 1 if value == last else 0
        last = value
        time.sleep(0.3)
    return last


def check_open(url: str, keys: Path, root: bytes) -> PostgresReceiptLog:
    store = PostgresReceiptLog(url, keys)
    store.open()
    assert store.tree_size == N and store.last_seq == N
    sth = store.sign_tree_head()
    assert bytes.fromhex(sth["root_hash"]) == root
    for seq in (1, 17, N // 2, N - 1, N):
        p = store.inclusion_proof(seq, sth)
        verify_inclusion(bytes.fromhex(p["leaf_hash"]), p["leaf_index"], p["tree_size"],
                         [bytes.fromhex(h) for h in p["proof"]], root)
    return store


def test_open_reads_a_few_nodes_not_every_record(pg_url, tmp_path):
    root = fill(pg_url, tmp_path / "keys")
    with psycopg.connect(pg_url) as conn:
        nodes = conn.execute("SELECT count(*) FROM merkle_nodes").fetchone()[0]
    assert nodes == sum(N >> k for k in range(4, N.bit_length()))  # every complete subtree of 16 leaves and up
    before = records_read(pg_url)
    store = PostgresReceiptLog(pg_url, tmp_path / "keys")
    store.open()
    assert store.tree_size == N
    store.close()  # its backends end and publish what they read
    opened_reads = records_read(pg_url) - before
    assert opened_reads < 100, f"opening read {opened_reads} records of {N}"
    store = check_open(pg_url, tmp_path / "keys", root)
    store.append_sync([Entry("receipt", "after", "acme", {})])
    store.close()
    assert verify_database(pg_url, tmp_path / "keys").ok


def test_a_log_without_stored_nodes_gets_them_once_with_replicas_opening_at_once(pg_url, tmp_path):
    root = fill(pg_url, tmp_path / "keys")
    with psycopg.connect(pg_url, autocommit=True) as admin:  # as a log written before merkle_nodes existed
        with admin.transaction():
            admin.execute("ALTER TABLE merkle_nodes DISABLE TRIGGER USER")
            admin.execute("DELETE FROM merkle_nodes")
            admin.execute("ALTER TABLE merkle_nodes ENABLE TRIGGER USER")
    with ThreadPoolExecutor(3) as pool:
        stores = list(pool.map(lambda _: check_open(pg_url, tmp_path / "keys", root), range(3)))
    for s in stores:
        s.close()
    with psycopg.connect(pg_url) as conn:
        nodes = conn.execute("SELECT count(*) FROM merkle_nodes").fetchone()[0]
    assert nodes == sum(N >> k for k in range(4, N.bit_length()))
    assert verify_database(pg_url, tmp_path / "keys").ok


def test_merkle_nodes_are_append_only(pg_url, tmp_path):
    fill(pg_url, tmp_path / "keys", 40)
    with psycopg.connect(pg_url, autocommit=True) as conn:
        for sql in ("UPDATE merkle_nodes SET hash = hash", "DELETE FROM merkle_nodes", "TRUNCATE merkle_nodes"):
            try:
                conn.execute(sql)
            except psycopg.errors.InsufficientPrivilege:
                continue
            raise AssertionError(f"{sql} was allowed")
