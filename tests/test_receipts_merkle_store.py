"""The receipt log's Merkle tree kept on disk: only the right edge in memory, nodes stored with the
records, proofs computed from stored nodes, start-up independent of the log's size.

Checked against the in-memory ``MerkleTree`` (itself checked against the shared RFC 9162 vectors
and a naive reference in test_receipts_merkle.py) and against the shared vectors' happy paths.
"""

from __future__ import annotations

import base64
import json
import random
import sqlite3
from pathlib import Path

import pytest

from receipts.log import DB_FILE, PERSIST_LEVEL, Entry, ReceiptLog
from receipts.merkle import (
    FrontierTree,
    MerkleTree,
    leaf_hash,
    subtree_hash,
    verify_consistency,
    verify_inclusion,
)
from receipts.signing import verify_tree_head
from receipts.verify import verify_data_dir

VECTORS = Path(__file__).resolve().parents[2] / "shared" / "vectors" / "merkle"


def frontier_of(tree: MerkleTree, n: int) -> dict[int, bytes]:
    return {k: tree._node(k, (n >> k) - 1) for k in range(n.bit_length()) if n >> k & 1}


@pytest.mark.parametrize("persist_level", [1, 2, 4])
def test_frontier_tree_equals_full_tree_for_every_size(persist_level: int) -> None:
    leaves = [leaf_hash(i.to_bytes(4, "big")) for i in range(150)]
    full = MerkleTree(leaves)
    stored: dict[tuple[int, int], bytes] = {}

    def load(level: int, index: int) -> bytes:
        if level >= persist_level:
            return stored[(level, index)]
        return subtree_hash(leaves[index << level:(index + 1) << level])

    tree = FrontierTree(0, {}, load, persist_level)
    for n in range(1, len(leaves) + 1):
        for level, index, h in tree.extend([leaves[n - 1]]):
            assert level >= persist_level and h == full._node(level, index)
            stored[(level, index)] = h
        assert tree.size == n and tree.root() == full.root(n)
        assert len(tree._frontier) == n.bit_count()  # memory: one hash per set bit of the size
        for i in range(0, n, 5):
            assert tree.inclusion_proof(i) == full.inclusion_proof(i, n)
        for old in range(1, n + 1, 4):
            assert tree.consistency_proof(old) == full.consistency_proof(old, n)
            assert tree.root(old) == full.root(old)
        reopened = FrontierTree(n, frontier_of(full, n), load, persist_level)
        assert reopened.root() == full.root(n)


def test_frontier_tree_reproduces_the_shared_vectors() -> None:
    data = [b"", b"\x00", b"\x10", b"\x20\x21", b"\x30\x31", b"\x40\x41\x42\x43",
            b"\x50\x51\x52\x53\x54\x55\x56\x57", b"\x60\x61\x62\x63\x64\x65\x66\x67\x68\x69\x6a\x6b\x6c\x6d\x6e\x6f"]
    leaves = [leaf_hash(d) for d in data]
    stored: dict[tuple[int, int], bytes] = {}
    tree = FrontierTree(0, {}, lambda k, i: stored[(k, i)] if k >= 1 else leaves[i], 1)
    for level, index, h in tree.extend(leaves):
        stored[(level, index)] = h
    checked = 0
    for path in sorted((VECTORS / "inclusion").rglob("*.json")):
        case = json.loads(path.read_text())
        if case["wantErr"] or path.parent.name not in {"0", "1", "2", "3", "4"}:
            continue
        proof = [base64.b64decode(p) for p in case["proof"] or []]
        assert tree.root(case["treeSize"]) == base64.b64decode(case["root"])
        assert tree.inclusion_proof(case["leafIdx"], case["treeSize"]) == proof
        checked += 1
    for path in sorted((VECTORS / "consistency").rglob("*.json")):
        case = json.loads(path.read_text())
        if case["wantErr"] or path.parent.name == "additional":
            continue
        proof = [base64.b64decode(p) for p in case["proof"] or []]
        assert tree.consistency_proof(case["size1"], case["size2"]) == proof
        checked += 1
    assert checked >= 8


def fill(data_dir: Path, n: int, seed: int = 7) -> list[bytes]:
    """Append n records in batches of random sizes (several logs opens); their leaf hashes."""
    rng = random.Random(seed)
    done = 0
    while done < n:
        rlog = ReceiptLog(data_dir)
        rlog.open()
        for _ in range(rng.randint(1, 4)):
            k = min(n - done, rng.randint(1, 70))
            rlog.append_sync([Entry("event", "e", "acme", {"i": done + j, "x": (done + j) / 7}, topic="t",
                                    stream=True) for j in range(k)])
            done += k
        rlog.close()
    conn = sqlite3.connect(data_dir / DB_FILE)
    bodies = [bytes(b) for (b,) in conn.execute("SELECT body FROM records ORDER BY seq")]
    conn.close()
    return [leaf_hash(b) for b in bodies]


def check_log(data_dir: Path, leaves: list[bytes]) -> None:
    full = MerkleTree(leaves)
    n = len(leaves)
    rlog = ReceiptLog(data_dir)
    rlog.open()
    try:
        assert rlog.tree_size == n and rlog.last_seq == n
        assert isinstance(rlog._tree, FrontierTree) and len(rlog._tree._frontier) == n.bit_count()
        sth = rlog.sign_tree_head()
        verify_tree_head(sth, rlog.signer.public_key_b64)
        root = bytes.fromhex(sth["root_hash"])
        assert root == full.root(n)
        for seq in sorted({1, 2, n // 3, n // 2, n - 1, n} | set(range(1, n + 1, max(1, n // 40)))):
            p = rlog.inclusion_proof(seq, sth)
            verify_inclusion(bytes.fromhex(p["leaf_hash"]), seq - 1, n, [bytes.fromhex(h) for h in p["proof"]], root)
        for old in sorted({1, 2, 15, 16, 17, n // 2, n - 1, n}):
            proof = [bytes.fromhex(h) for h in rlog.consistency_proof(old)]
            verify_consistency(old, n, full.root(old), root, proof)
    finally:
        rlog.close()
    assert verify_data_dir(data_dir).ok


def test_log_stores_nodes_and_proves_from_them_across_restarts(tmp_path: Path) -> None:
    leaves = fill(tmp_path, 777)
    conn = sqlite3.connect(tmp_path / DB_FILE)
    levels = dict(conn.execute("SELECT level, COUNT(*) FROM merkle_nodes GROUP BY level").fetchall())
    conn.close()
    assert min(levels) == PERSIST_LEVEL and levels[PERSIST_LEVEL] == 777 >> PERSIST_LEVEL
    check_log(tmp_path, leaves)


def test_log_without_stored_nodes_is_upgraded_once(tmp_path: Path) -> None:
    leaves = fill(tmp_path, 300)
    conn = sqlite3.connect(tmp_path / DB_FILE, isolation_level=None)
    conn.execute("DROP TABLE merkle_nodes")  # as written before nodes were stored
    conn.close()
    check_log(tmp_path, leaves)
    conn = sqlite3.connect(tmp_path / DB_FILE)
    assert conn.execute("SELECT COUNT(*) FROM merkle_nodes WHERE level = ?", (PERSIST_LEVEL,)).fetchone()[0] == 300 >> 4
    conn.close()


def test_stored_nodes_are_append_only(tmp_path: Path) -> None:
    fill(tmp_path, 40)
    conn = sqlite3.connect(tmp_path / DB_FILE, isolation_level=None)
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        conn.execute("UPDATE merkle_nodes SET hash = x'00'")
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        conn.execute("DELETE FROM merkle_nodes")
    conn.close()
