"""RFC 9162 (RFC 6962) Merkle tree hashing, proofs and pure proof verifiers.

The receipt log covers every record with a Merkle tree so that anyone holding a signed tree head can
check a record's inclusion (and that a later head extends an earlier one) without trusting the
server. This module is pure: no I/O, no sockets.

Hashing (RFC 9162 §2.1.1): ``leaf = SHA-256(0x00 || data)``, ``node = SHA-256(0x01 || left || right)``,
the root of the empty tree is ``SHA-256("")``.

``MerkleTree`` keeps every *complete* subtree hash, level by level: ``levels[k]`` holds, packed as
32-byte slots in one ``bytearray``, the hash of the 2^k leaves starting at ``i * 2^k`` for every such
block that is already full. A block stays complete for ever in an append-only tree, so the root of
any size ``m <= size`` is a fold of at most log2(m) stored nodes, and every inclusion or consistency
proof is O(log n) lookups plus at most one O(log n) fold. About 64 bytes per leaf in total.

The verifiers follow RFC 9162 §2.1.3.2 (inclusion) and §2.1.4.2 (consistency), with the edge cases
of the transparency-dev/merkle test vectors: a consistency check from size 0 is refused (it proves
nothing), equal sizes need an empty proof and equal roots.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from hashlib import sha256

__all__ = [
    "EMPTY_ROOT",
    "HASH_SIZE",
    "FrontierTree",
    "MerkleTree",
    "ProofError",
    "leaf_hash",
    "node_hash",
    "verify_consistency",
    "verify_inclusion",
]

HASH_SIZE = 32
EMPTY_ROOT: bytes = sha256(b"").digest()
_LEAF_PREFIX = b"\x00"
_NODE_PREFIX = b"\x01"


class ProofError(ValueError):
    """A Merkle inclusion or consistency proof does not verify."""


def leaf_hash(data: bytes) -> bytes:
    """RFC 9162 leaf hash: SHA-256(0x00 || data); the prefix keeps leaves and nodes apart."""
    return sha256(_LEAF_PREFIX + data).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    """RFC 9162 interior node hash: SHA-256(0x01 || left || right)."""
    return sha256(_NODE_PREFIX + left + right).digest()


def _check_hash(value: object, what: str) -> bytes:
    if not isinstance(value, bytes | bytearray):
        raise TypeError(f"{what} must be bytes, not {type(value).__name__}")
    if len(value) != HASH_SIZE:
        raise ValueError(f"{what} must be {HASH_SIZE} bytes, got {len(value)}")
    return bytes(value)


class MerkleTree:
    """Append-only in-memory Merkle tree over leaf hashes (not raw data).

    Callers hash their record with :func:`leaf_hash` and append the result, so the tree can be
    rebuilt from stored leaf hashes without re-reading records. Not thread-safe: one writer, and
    readers must not run concurrently with ``append``/``extend`` (hold the log's lock).
    """

    __slots__ = ("_levels", "_size")

    def __init__(self, leaf_hashes: Iterable[bytes] = ()) -> None:
        self._levels: list[bytearray] = [bytearray()]
        self._size = 0
        self.extend(leaf_hashes)

    @property
    def size(self) -> int:
        """Number of leaves appended so far."""
        return self._size

    def __len__(self) -> int:
        return self._size

    def append(self, leaf_hash: bytes) -> int:
        """Append one leaf hash; returns its 0-based index. Amortised two SHA-256 calls."""
        if type(leaf_hash) is not bytes or len(leaf_hash) != HASH_SIZE:
            _check_hash(leaf_hash, "leaf_hash")
        levels = self._levels
        index = self._size
        level = levels[0]
        level += leaf_hash
        n = index + 1
        k = 0
        # Each trailing zero bit of the new size completes one more block: hash its two halves.
        while not n & 1:
            node = sha256(_NODE_PREFIX + level[-64:]).digest()
            k += 1
            n >>= 1
            if k == len(levels):
                levels.append(bytearray())
            level = levels[k]
            level += node
        self._size = index + 1
        return index

    def extend(self, leaf_hashes: Iterable[bytes]) -> None:
        """Append many leaf hashes at once (level by level, cheaper than repeated ``append``)."""
        buf = bytearray()
        count = 0
        for h in leaf_hashes:
            if len(h) != HASH_SIZE or not isinstance(h, bytes | bytearray):
                _check_hash(h, f"leaf_hashes[{count}]")
            buf += h
            count += 1
        if not count:
            return
        levels = self._levels
        levels[0] += buf
        self._size += count
        k = 0
        while True:
            have_children = len(levels[k]) // HASH_SIZE
            if k + 1 == len(levels):
                levels.append(bytearray())
            parents = levels[k + 1]
            start = len(parents) // HASH_SIZE
            stop = have_children // 2
            if stop == start:
                if not parents:
                    levels.pop()
                break
            children = levels[k]
            prefix = _NODE_PREFIX
            out = bytearray()
            for off in range(start * 64, stop * 64, 64):
                out += sha256(prefix + children[off : off + 64]).digest()
            parents += out
            k += 1

    # -- lookups -------------------------------------------------------------------------------

    def _node(self, level: int, index: int) -> bytes:
        off = index * HASH_SIZE
        return bytes(self._levels[level][off : off + HASH_SIZE])

    def _range_hash(self, start: int, end: int) -> bytes:
        """MTH of leaves [start, end); start is aligned as in the RFC recursion (0 < end - start)."""
        parts = []
        n = end - start
        while n:
            k = n.bit_length() - 1
            parts.append(self._node(k, start >> k))
            start += 1 << k
            n -= 1 << k
        acc = parts.pop()
        while parts:
            acc = sha256(_NODE_PREFIX + parts.pop() + acc).digest()
        return acc

    def _check_size(self, size: int | None, name: str = "size") -> int:
        if size is None:
            return self._size
        if not isinstance(size, int) or isinstance(size, bool):
            raise TypeError(f"{name} must be an int")
        if size < 0 or size > self._size:
            raise ValueError(f"{name} {size} out of range [0, {self._size}]")
        return size

    def leaf(self, index: int) -> bytes:
        """The leaf hash stored at ``index``."""
        if not 0 <= index < self._size:
            raise IndexError(f"leaf index {index} out of range for size {self._size}")
        return self._node(0, index)

    def root(self, size: int | None = None) -> bytes:
        """MTH of the first ``size`` leaves (default: all); O(log n) for any size."""
        size = self._check_size(size)
        if size == 0:
            return EMPTY_ROOT
        return self._range_hash(0, size)

    def inclusion_proof(self, index: int, size: int | None = None) -> list[bytes]:
        """RFC 9162 §2.1.3.1 PATH(index, D[0:size]), leaf-side first."""
        size = self._check_size(size)
        if not isinstance(index, int) or isinstance(index, bool):
            raise TypeError("index must be an int")
        if not 0 <= index < size:
            raise ValueError(f"leaf index {index} out of range for tree size {size}")
        path: list[bytes] = []
        start, n, m = 0, size, index
        while n > 1:
            k = 1 << ((n - 1).bit_length() - 1)  # largest power of two < n
            if m < k:
                path.append(self._range_hash(start + k, start + n))
                n = k
            else:
                path.append(self._node(k.bit_length() - 1, start // k))
                start += k
                m -= k
                n -= k
        path.reverse()
        return path

    def consistency_proof(self, old_size: int, new_size: int | None = None) -> list[bytes]:
        """RFC 9162 §2.1.4.1 PROOF(old_size, D[0:new_size]); [] when the sizes are equal.

        ``old_size`` must be > 0: a proof from the empty tree is meaningless and the verifier
        refuses it.
        """
        new_size = self._check_size(new_size, "new_size")
        if not isinstance(old_size, int) or isinstance(old_size, bool):
            raise TypeError("old_size must be an int")
        if not 0 < old_size <= new_size:
            raise ValueError(f"old_size {old_size} must satisfy 0 < old_size <= new_size ({new_size})")
        proof: list[bytes] = []
        start, n, m, complete = 0, new_size, old_size, True
        while m != n:
            k = 1 << ((n - 1).bit_length() - 1)
            if m <= k:
                proof.append(self._range_hash(start + k, start + n))
                n = k
            else:
                proof.append(self._node(k.bit_length() - 1, start // k))
                start += k
                m -= k
                n -= k
                complete = False
        if not complete:
            proof.append(self._range_hash(start, start + n))
        proof.reverse()
        return proof


NodeLoader = Callable[[int, int], bytes]


class FrontierTree(MerkleTree):
    """Append-only Merkle tree that holds only its right edge in memory (O(log n) hashes).

    Why: a log of millions of records must start in constant time and memory. The complete
    subtree hashes that proofs need come from ``load(level, index)`` (the receipt log reads the
    nodes it persisted, or hashes a few records for the lowest levels). ``append``/``extend``
    return every node they complete at ``persist_level`` or above, for the caller to store in
    the same transaction as the records. Roots and proofs are those of ``MerkleTree`` (same
    code, different node source), so the RFC 9162 vectors hold for both.
    """

    __slots__ = ("_frontier", "_load", "persist_level")

    def __init__(self, size: int, frontier: dict[int, bytes], load: NodeLoader, persist_level: int = 4) -> None:
        """``frontier[k]`` is the hash of the complete subtree at level k on the right edge, for each
        bit k set in ``size`` (the node ``(k, (size >> k) - 1)``)."""
        if sorted(frontier) != [k for k in range(size.bit_length()) if size >> k & 1]:
            raise ValueError(f"frontier levels {sorted(frontier)} do not match size {size}")
        self._levels = []
        self._size = size
        self._frontier = dict(frontier)
        self._load = load
        self.persist_level = persist_level

    def copy(self) -> FrontierTree:
        return FrontierTree(self._size, self._frontier, self._load, self.persist_level)

    def append(self, leaf_hash: bytes) -> int:
        self.extend([leaf_hash])
        return self._size - 1

    def extend(self, leaf_hashes: Iterable[bytes]) -> list[tuple[int, int, bytes]]:  # type: ignore[override]
        """Append leaves; returns the completed nodes ``(level, index, hash)`` at ``persist_level`` or above."""
        out: list[tuple[int, int, bytes]] = []
        frontier, low = self._frontier, self.persist_level
        size = self._size
        for h in leaf_hashes:
            if type(h) is not bytes or len(h) != HASH_SIZE:
                _check_hash(h, "leaf_hash")
            node, k = h, 0
            while size >> k & 1:  # a binary carry: each set low bit pairs with its left sibling
                node = sha256(_NODE_PREFIX + frontier.pop(k) + node).digest()
                k += 1
                if k >= low:
                    out.append((k, ((size + 1) >> k) - 1, node))
            frontier[k] = node
            size += 1
        self._size = size
        return out

    def _node(self, level: int, index: int) -> bytes:
        if (self._size >> level) - 1 == index and self._size >> level & 1:
            return self._frontier[level]
        return self._load(level, index)

    def root(self, size: int | None = None) -> bytes:
        if size is None or size == self._size:
            if not self._size:
                return EMPTY_ROOT
            acc = None
            for k in sorted(self._frontier):  # fold the right edge, lowest level first
                acc = self._frontier[k] if acc is None else sha256(_NODE_PREFIX + self._frontier[k] + acc).digest()
            assert acc is not None
            return acc
        return super().root(size)


def subtree_hash(leaf_hashes: list[bytes]) -> bytes:
    """MTH of a power-of-two run of leaf hashes (a complete subtree), by pairwise folding."""
    level = leaf_hashes
    while len(level) > 1:
        level = [sha256(_NODE_PREFIX + level[i] + level[i + 1]).digest() for i in range(0, len(level), 2)]
    return level[0]


# -- pure verifiers -------------------------------------------------------------------------------


def _check_size_arg(value: object, name: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ProofError(f"{name} must be an int, got {type(value).__name__}")
    if value < 0:
        raise ProofError(f"{name} must be >= 0, got {value}")
    return value


def _check_proof(proof: object) -> list[bytes]:
    if proof is None:
        return []
    if not isinstance(proof, list | tuple):
        raise ProofError(f"proof must be a list of hashes, got {type(proof).__name__}")
    for i, p in enumerate(proof):
        if not isinstance(p, bytes | bytearray) or len(p) != HASH_SIZE:
            size = len(p) if isinstance(p, bytes | bytearray) else type(p).__name__
            raise ProofError(f"proof[{i}] must be a {HASH_SIZE}-byte hash, got {size}")
    return [bytes(p) for p in proof]


def _inclusion_proof_len(index: int, size: int) -> int:
    """Length of PATH(index, D[size]): the differing low bits plus the right-border subtrees."""
    inner = (index ^ (size - 1)).bit_length()
    border = (index >> inner).bit_count()
    return inner + border


def verify_inclusion(leaf_hash: bytes, index: int, size: int, proof: list[bytes], root: bytes) -> None:
    """Check that ``leaf_hash`` is leaf ``index`` of the tree of ``size`` leaves with ``root``.

    RFC 9162 §2.1.3.2. Raises :class:`ProofError` naming the failure; returns None on success.
    """
    index = _check_size_arg(index, "index")
    size = _check_size_arg(size, "size")
    if index >= size:
        raise ProofError(f"leaf index {index} is not below tree size {size}")
    if not isinstance(leaf_hash, bytes | bytearray) or len(leaf_hash) != HASH_SIZE:
        raise ProofError(f"leaf hash must be {HASH_SIZE} bytes")
    if not isinstance(root, bytes | bytearray):
        raise ProofError("root must be bytes")
    path = _check_proof(proof)
    want = _inclusion_proof_len(index, size)
    if len(path) != want:
        raise ProofError(
            f"wrong inclusion proof length {len(path)} for index {index} in size {size}, want {want}"
        )
    fn, sn = index, size - 1
    r = bytes(leaf_hash)
    for p in path:
        if sn == 0:
            raise ProofError("inclusion proof is longer than the path to the root")
        if fn & 1 or fn == sn:
            r = sha256(_NODE_PREFIX + p + r).digest()
            if not fn & 1:
                while fn and not fn & 1:
                    fn >>= 1
                    sn >>= 1
        else:
            r = sha256(_NODE_PREFIX + r + p).digest()
        fn >>= 1
        sn >>= 1
    if sn != 0:
        raise ProofError("inclusion proof is shorter than the path to the root")
    if r != bytes(root):
        raise ProofError(f"inclusion proof for index {index} does not lead to the given root of size {size}")


def verify_consistency(size1: int, size2: int, root1: bytes, root2: bytes, proof: list[bytes]) -> None:
    """Check that the tree (size2, root2) extends the tree (size1, root1), append-only.

    RFC 9162 §2.1.4.2. ``size1 == 0`` is refused (no proof can bind an empty tree; callers treat
    that case themselves), equal sizes need an empty proof and equal roots. Raises
    :class:`ProofError`; returns None on success.
    """
    size1 = _check_size_arg(size1, "size1")
    size2 = _check_size_arg(size2, "size2")
    if size2 < size1:
        raise ProofError(f"size2 ({size2}) is smaller than size1 ({size1})")
    if size1 == 0:
        raise ProofError("size1 is 0: a consistency proof from the empty tree proves nothing")
    if not isinstance(root1, bytes | bytearray) or not isinstance(root2, bytes | bytearray):
        raise ProofError("roots must be bytes")
    path = _check_proof(proof)
    if size1 == size2:
        if path:
            raise ProofError(f"size1 == size2 ({size1}) but the proof is not empty ({len(path)} hashes)")
        if bytes(root1) != bytes(root2):
            raise ProofError(f"size1 == size2 ({size1}) but the roots differ")
        return
    if not path:
        raise ProofError(f"empty consistency proof for sizes {size1} < {size2}")
    # Expected length (as in transparency-dev/merkle): the inclusion path of leaf size1-1 in size2,
    # minus the levels inside the complete subtree that ends at size1, plus that subtree's root
    # unless size1 itself is a power of two (then root1 is that root).
    shift = (size1 & -size1).bit_length() - 1
    want = _inclusion_proof_len(size1 - 1, size2) - shift
    if size1 != 1 << shift:
        want += 1
    if len(path) != want:
        raise ProofError(
            f"wrong consistency proof length {len(path)} for sizes {size1} -> {size2}, want {want}"
        )
    if size1 == 1 << shift:
        path = [bytes(root1), *path]
    fn, sn = size1 - 1, size2 - 1
    while fn & 1:
        fn >>= 1
        sn >>= 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            raise ProofError("consistency proof is longer than the path to the root")
        if fn & 1 or fn == sn:
            fr = sha256(_NODE_PREFIX + c + fr).digest()
            sr = sha256(_NODE_PREFIX + c + sr).digest()
            if not fn & 1:
                while fn and not fn & 1:
                    fn >>= 1
                    sn >>= 1
        else:
            sr = sha256(_NODE_PREFIX + sr + c).digest()
        fn >>= 1
        sn >>= 1
    if sn != 0:
        raise ProofError("consistency proof is shorter than the path to the root")
    if fr != bytes(root1):
        raise ProofError(f"consistency proof does not reproduce root1 of size {size1}")
    if sr != bytes(root2):
        raise ProofError(f"consistency proof does not reproduce root2 of size {size2}")
