"""RFC 9162 Merkle tree: the shared test vectors, plus properties against a naive reference."""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path

import pytest

from receipts.merkle import (
    EMPTY_ROOT,
    MerkleTree,
    ProofError,
    leaf_hash,
    node_hash,
    verify_consistency,
    verify_inclusion,
)

VECTORS = Path(__file__).resolve().parents[2] / "shared" / "vectors" / "merkle"
INCLUSION_FILES = sorted((VECTORS / "inclusion").rglob("*.json"))
CONSISTENCY_FILES = sorted((VECTORS / "consistency").rglob("*.json"))


def _b64(value: str) -> bytes:
    return base64.b64decode(value, validate=True)


def _ids(files: list[Path]) -> list[str]:
    return [str(f.relative_to(VECTORS)) for f in files]


def test_vector_files_present() -> None:
    # The vector set is the acceptance bar; make sure the parametrised tests below are not empty.
    assert len(INCLUSION_FILES) >= 80
    assert len(CONSISTENCY_FILES) >= 80
    assert len(INCLUSION_FILES) + len(CONSISTENCY_FILES) == len(list(VECTORS.rglob("*.json")))


@pytest.mark.parametrize("path", INCLUSION_FILES, ids=_ids(INCLUSION_FILES))
def test_inclusion_vector(path: Path) -> None:
    case = json.loads(path.read_text())
    assert set(case) == {"leafIdx", "treeSize", "root", "leafHash", "proof", "desc", "wantErr"}
    proof = [_b64(p) for p in case["proof"] or []]
    args = (_b64(case["leafHash"]), case["leafIdx"], case["treeSize"], proof, _b64(case["root"]))
    if case["wantErr"]:
        with pytest.raises(ProofError):
            verify_inclusion(*args)
    else:
        assert verify_inclusion(*args) is None


@pytest.mark.parametrize("path", CONSISTENCY_FILES, ids=_ids(CONSISTENCY_FILES))
def test_consistency_vector(path: Path) -> None:
    case = json.loads(path.read_text())
    assert set(case) == {"size1", "size2", "root1", "root2", "proof", "desc", "wantErr"}
    proof = [_b64(p) for p in case["proof"] or []]
    args = (case["size1"], case["size2"], _b64(case["root1"]), _b64(case["root2"]), proof)
    if case["wantErr"]:
        with pytest.raises(ProofError):
            verify_consistency(*args)
    else:
        assert verify_consistency(*args) is None


def test_happy_vectors_are_reproduced_by_the_tree() -> None:
    """The vectors' happy paths come from the RFC 6962 reference tree of leaves 0..7; rebuild it."""
    # Leaf data of the transparency-dev/merkle test tree (RFC 6962 reference inputs).
    data = [
        b"",
        b"\x00",
        b"\x10",
        b"\x20\x21",
        b"\x30\x31",
        b"\x40\x41\x42\x43",
        b"\x50\x51\x52\x53\x54\x55\x56\x57",
        b"\x60\x61\x62\x63\x64\x65\x66\x67\x68\x69\x6a\x6b\x6c\x6d\x6e\x6f",
    ]
    tree = MerkleTree(leaf_hash(d) for d in data)
    checked = 0
    for path in INCLUSION_FILES:
        case = json.loads(path.read_text())
        if case["wantErr"] or path.parent.name not in {"0", "1", "2", "3", "4"}:
            continue
        assert tree.root(case["treeSize"]) == _b64(case["root"])
        assert tree.inclusion_proof(case["leafIdx"], case["treeSize"]) == [
            _b64(p) for p in case["proof"] or []
        ]
        checked += 1
    for path in CONSISTENCY_FILES:
        case = json.loads(path.read_text())
        if case["wantErr"] or path.parent.name == "additional":
            continue
        assert tree.root(case["size1"]) == _b64(case["root1"])
        assert tree.root(case["size2"]) == _b64(case["root2"])
        assert tree.consistency_proof(case["size1"], case["size2"]) == [_b64(p) for p in case["proof"] or []]
        checked += 1
    assert checked >= 8


# -- reference implementation (RFC 9162 §2.1.1 / §2.1.3.1 / §2.1.4.1, written out recursively) -------


def _split(n: int) -> int:
    k = 1
    while k * 2 < n:
        k *= 2
    return k


def naive_mth(leaves: list[bytes]) -> bytes:
    if not leaves:
        return hashlib.sha256(b"").digest()
    if len(leaves) == 1:
        return leaves[0]
    k = _split(len(leaves))
    return hashlib.sha256(b"\x01" + naive_mth(leaves[:k]) + naive_mth(leaves[k:])).digest()


def naive_path(m: int, leaves: list[bytes]) -> list[bytes]:
    if len(leaves) == 1:
        return []
    k = _split(len(leaves))
    if m < k:
        return naive_path(m, leaves[:k]) + [naive_mth(leaves[k:])]
    return naive_path(m - k, leaves[k:]) + [naive_mth(leaves[:k])]


def naive_subproof(m: int, leaves: list[bytes], b: bool) -> list[bytes]:
    n = len(leaves)
    if m == n:
        return [] if b else [naive_mth(leaves)]
    k = _split(n)
    if m <= k:
        return naive_subproof(m, leaves[:k], b) + [naive_mth(leaves[k:])]
    return naive_subproof(m - k, leaves[k:], False) + [naive_mth(leaves[:k])]


MAX_N = 70
LEAVES = [leaf_hash(i.to_bytes(4, "big") * (i % 3 + 1)) for i in range(MAX_N)]


@pytest.fixture(scope="module")
def tree() -> MerkleTree:
    t = MerkleTree()
    for i, h in enumerate(LEAVES):
        assert t.append(h) == i
    return t


def test_hash_primitives() -> None:
    assert EMPTY_ROOT == hashlib.sha256(b"").digest()
    assert leaf_hash(b"abc") == hashlib.sha256(b"\x00abc").digest()
    assert node_hash(b"L" * 32, b"R" * 32) == hashlib.sha256(b"\x01" + b"L" * 32 + b"R" * 32).digest()
    # RFC 6962 reference: the empty leaf hashes to 6e340b9c...
    assert leaf_hash(b"").hex().startswith("6e340b9cffb37a989ca544e6bb780a2c")


def test_empty_tree() -> None:
    t = MerkleTree()
    assert t.size == 0 and t.root() == EMPTY_ROOT
    with pytest.raises(ValueError):
        t.inclusion_proof(0)


def test_roots_match_naive_for_every_size(tree: MerkleTree) -> None:
    assert tree.size == MAX_N
    for n in range(0, MAX_N + 1):
        assert tree.root(n) == naive_mth(LEAVES[:n]), n


def test_append_extend_and_incremental_agree() -> None:
    by_extend = MerkleTree()
    by_extend.extend(LEAVES[:5])
    by_extend.extend(LEAVES[5:37])
    by_extend.extend([])
    by_extend.extend(iter(LEAVES[37:]))
    one_by_one = MerkleTree()
    for n, h in enumerate(LEAVES, start=1):
        one_by_one.append(h)
        assert one_by_one.root() == naive_mth(LEAVES[:n])
    assert by_extend.size == one_by_one.size == MAX_N
    assert by_extend._levels == one_by_one._levels
    assert [by_extend.leaf(i) for i in range(MAX_N)] == LEAVES


def test_inclusion_proofs_every_size_and_index(tree: MerkleTree) -> None:
    for n in range(1, MAX_N + 1):
        root = tree.root(n)
        for m in range(n):
            proof = tree.inclusion_proof(m, n)
            assert proof == naive_path(m, LEAVES[:n]), (m, n)
            verify_inclusion(LEAVES[m], m, n, proof, root)
            # Wrong leaf, wrong index, a size the path does not fit all fail. (A path can fit several
            # sizes, e.g. 3 and 4 for leaf 0: the signed root is what binds the size.)
            with pytest.raises(ProofError):
                verify_inclusion(LEAVES[(m + 1) % n] if n > 1 else EMPTY_ROOT, m, n, proof, root)
            if len(naive_path(m, LEAVES[: n + 1])) != len(proof):
                with pytest.raises(ProofError, match="length"):
                    verify_inclusion(LEAVES[m], m, n + 1, proof, root)
            if n > 1:
                with pytest.raises(ProofError):
                    verify_inclusion(LEAVES[m], (m + 1) % n, n, proof, root)


def test_inclusion_bit_flips_fail(tree: MerkleTree) -> None:
    for n in range(2, MAX_N + 1, 3):
        root = tree.root(n)
        for m in range(n):
            proof = tree.inclusion_proof(m, n)
            for j in range(len(proof)):
                bad = list(proof)
                bad[j] = bytes([bad[j][0] ^ (1 << (j + m) % 8)]) + bad[j][1:]
                with pytest.raises(ProofError):
                    verify_inclusion(LEAVES[m], m, n, bad, root)
            with pytest.raises(ProofError):
                verify_inclusion(LEAVES[m], m, n, proof[:-1], root)
            with pytest.raises(ProofError):
                verify_inclusion(LEAVES[m], m, n, [*proof, EMPTY_ROOT], root)


def test_consistency_proofs_every_pair(tree: MerkleTree) -> None:
    for n in range(1, MAX_N + 1):
        root2 = tree.root(n)
        for m in range(1, n + 1):
            root1 = tree.root(m)
            proof = tree.consistency_proof(m, n)
            assert proof == naive_subproof(m, LEAVES[:n], True), (m, n)
            verify_consistency(m, n, root1, root2, proof)
            if m < n:
                with pytest.raises(ProofError):
                    verify_consistency(m, n, root2, root1, proof)
                with pytest.raises(ProofError):
                    verify_consistency(m, n, root1, tree.root(m), proof)
                for j in range(len(proof)):
                    bad = list(proof)
                    bad[j] = bad[j][:-1] + bytes([bad[j][-1] ^ 0x80])
                    with pytest.raises(ProofError):
                        verify_consistency(m, n, root1, root2, bad)
                with pytest.raises(ProofError):
                    verify_consistency(m, n, root1, root2, proof[1:])
                with pytest.raises(ProofError):
                    verify_consistency(m - 1 or n, n, root1, root2, proof)


def test_consistency_edge_cases(tree: MerkleTree) -> None:
    assert tree.consistency_proof(5, 5) == []
    with pytest.raises(ValueError):
        tree.consistency_proof(0, 5)
    with pytest.raises(ValueError):
        tree.consistency_proof(6, 5)
    with pytest.raises(ValueError):
        tree.consistency_proof(1, MAX_N + 1)
    with pytest.raises(ProofError, match="empty tree"):
        verify_consistency(0, 3, EMPTY_ROOT, tree.root(3), [])
    with pytest.raises(ProofError, match="smaller"):
        verify_consistency(4, 3, tree.root(4), tree.root(3), [])


def test_bad_arguments() -> None:
    t = MerkleTree()
    with pytest.raises(ValueError):
        t.append(b"short")
    with pytest.raises(TypeError):
        t.append("x" * 32)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        t.extend([LEAVES[0], b"short"])
    assert t.size == 0
    t.extend(LEAVES[:3])
    with pytest.raises(ValueError):
        t.root(4)
    with pytest.raises(ValueError):
        t.inclusion_proof(3, 3)
    with pytest.raises(ProofError, match="not below"):
        verify_inclusion(LEAVES[0], 3, 3, [], t.root())
    with pytest.raises(ProofError, match="32-byte"):
        verify_inclusion(LEAVES[0], 0, 3, [b"x", b"y"], t.root())
