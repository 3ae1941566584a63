"""Offline verification of a data directory's receipt log.

Checks, record by record: contiguous sequence numbers (a deleted or reordered record shows as a
gap or a broken link), the body is canonical JSON whose fields match the indexed columns, the
body's ``prev`` equals the previous record's hash, the stored hash is SHA-256 of the body. Then
the Merkle root of the records is compared with every signed tree head (table and
``tree_head.json``): a signature that does not verify, a root that differs, or a tree head that
covers more records than the log holds (truncation) are reported.

Bodies are re-parsed with ``parse_canonical``, not plain ``json.loads``: RFC 8785 writes every number as
the shortest form of an IEEE-754 double, so a float such as ``1e20`` is stored as the digits
``100000000000000000000``. Read back as a Python int that value lies outside the range canonical
JSON accepts for integers; ``parse_canonical`` reads it as the double it denotes, so re-canonicalising
gives back exactly the stored bytes (and a body that no canonical writer could have produced still
fails the byte comparison).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from receipts.canonical import canonical_json, parse_canonical
from receipts.log import DB_FILE, GENESIS_HASH, TREE_HEAD_FILE, connect, stream_key
from receipts.merkle import MerkleTree, leaf_hash
from receipts.signing import PUBLIC_KEY_FILE, verify_tree_head


@dataclass
class VerifyReport:
    """Outcome of a verification: ``first_bad_seq`` names the first record that failed."""

    ok: bool
    checked: int
    first_bad_seq: int | None = None
    reason: str | None = None
    tree_head: dict[str, Any] | None = None

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None or k in ("ok", "checked")}


def _check_record(row: tuple[Any, ...], expected_seq: int, prev: str) -> str | None:
    """Why record ``row`` fails verification, or None if it is intact."""
    seq, rtype, name, tenant, topic, action_id, ref, stream, body, hsh = row
    body = bytes(body)
    if seq != expected_seq:
        return f"sequence gap: expected record {expected_seq}, found {seq}"
    try:
        fields = parse_canonical(body)
    except (ValueError, RecursionError):
        return "body is not JSON"
    try:
        canonical = canonical_json(fields)
    except ValueError:
        return "body is not canonical JSON"
    if canonical != body:
        return "body is not canonical JSON"
    if hashlib.sha256(body).hexdigest() != hsh:
        return "hash does not match body"
    if fields.get("prev") != prev:
        return "chain broken: prev does not match the previous record's hash"
    if fields.get("seq") != seq:
        return "seq in body does not match"
    for key, value in (("type", rtype), ("name", name), ("tenant", tenant), ("topic", topic),
                       ("action_id", action_id), ("ref", ref)):
        if fields.get(key) != value:
            return f"column {key} does not match body"
    if stream is not None and stream != stream_key(tenant, topic or ""):
        return "stream index does not match body"
    return None


def verify_connection(
    conn: sqlite3.Connection, data_dir: Path | None = None, from_seq: int = 1, to_seq: int | None = None,
    tenant: str | None = None,
) -> VerifyReport:
    """Verify records ``from_seq..to_seq`` of an open log (the chain is walked from record 1).

    The caller holds one read transaction around this call, so records and tree heads come from
    the same snapshot; the head file of ``data_dir`` is read before the first query, so every
    record it covers is in that snapshot (a live log can only have grown since).

    With ``tenant``, the report speaks only of that tenant: ``checked`` counts its records, a
    failure names ``first_bad_seq`` only when the bad record is its own, and no tree head (whose
    size is the whole log's volume) is returned."""
    head_file = data_dir / TREE_HEAD_FILE if data_dir is not None else None
    file_heads = [json.loads(head_file.read_text())] if head_file is not None and head_file.exists() else []
    tree = MerkleTree()
    prev = GENESIS_HASH
    expected = 1
    checked = 0
    for row in conn.execute("SELECT seq, type, name, tenant, topic, action_id, ref, stream, body, hash "
                            "FROM records ORDER BY seq"):
        if to_seq is not None and expected > to_seq:
            break
        problem = _check_record(row, expected, prev)
        if problem:
            if tenant is not None and row[3] != tenant:
                return VerifyReport(False, checked, reason="the log fails verification at a record of "
                                    "another tenant: later records are not proven")
            return VerifyReport(False, checked, first_bad_seq=expected, reason=problem)
        tree.append(leaf_hash(bytes(row[8])))
        prev = row[9]
        if expected >= from_seq and (tenant is None or row[3] == tenant):
            checked += 1
        expected += 1
    size = expected - 1
    report = _check_heads(conn, data_dir, file_heads, to_seq, tree, size, checked)
    if tenant is not None:  # no global figures: the tree size is every tenant's volume
        report.tree_head = None
        if not report.ok:
            report.first_bad_seq = None
            report.reason = "a signed tree head does not match the log: records are not proven"
    return report


def _check_heads(conn: sqlite3.Connection, data_dir: Path | None, file_heads: list[dict[str, Any]],
                 to_seq: int | None, tree: MerkleTree, size: int, checked: int) -> VerifyReport:
    """Compare every signed tree head (table and file) with the Merkle tree of the records."""
    heads: list[dict[str, Any]] = [json.loads(b) for (b,) in conn.execute("SELECT body FROM tree_heads ORDER BY tree_size")]
    heads += file_heads
    pinned = data_dir / PUBLIC_KEY_FILE if data_dir is not None else None
    trusted_key = pinned.read_text() if pinned is not None and pinned.exists() else None
    latest: dict[str, Any] | None = None
    for sth in heads:
        try:
            # the key pinned in the data dir (or the head's own when no pin exists): a head re-signed
            # with another key is refused
            verify_tree_head(sth, trusted_key or sth["public_key"])
        except (ValueError, KeyError) as exc:
            return VerifyReport(False, checked, first_bad_seq=min(sth.get("tree_size", 1), size) or 1,
                                reason=f"signed tree head invalid: {exc}")
        n = sth["tree_size"]
        if to_seq is not None and n > to_seq:
            continue
        if n > size:
            return VerifyReport(False, checked, first_bad_seq=size + 1,
                                reason=f"log truncated: a signed tree head covers {n} records, the log has {size}")
        if n and tree.root(n).hex() != sth["root_hash"]:
            # records up to the largest signed size that still matches are proven intact
            good = max((h["tree_size"] for h in heads if 0 < h["tree_size"] < n
                        and tree.root(h["tree_size"]).hex() == h.get("root_hash")), default=0)
            return VerifyReport(False, checked, first_bad_seq=good + 1,
                                reason=f"Merkle root differs from the signed tree head of size {n}: records {good + 1}..{n} "
                                       "are not the ones signed (rewritten with recomputed hashes)")
        if latest is None or n >= latest["tree_size"]:
            latest = sth
    head = {"tree_size": size, "root_hash": tree.root().hex()}
    if latest is not None:
        head["signed"] = latest
    return VerifyReport(True, checked, tree_head=head)


def verify_data_dir(data_dir: Path, from_seq: int = 1, to_seq: int | None = None,
                    tenant: str | None = None) -> VerifyReport:
    """Open ``<data_dir>/receipts.sqlite3`` read-only and verify it in one read transaction: a
    server appending and signing meanwhile cannot make the records and the heads disagree."""
    path = Path(data_dir) / DB_FILE
    if not path.exists():
        return VerifyReport(False, 0, reason=f"no receipt log at {path}")
    conn = connect(path, readonly=True)
    try:
        conn.execute("BEGIN")  # deferred: the snapshot is taken by the first read and kept to the end
        return verify_connection(conn, Path(data_dir), from_seq, to_seq, tenant=tenant)
    finally:
        conn.close()
