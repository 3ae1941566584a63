"""Tree heads as C2SP ``tlog-checkpoint`` signed notes (the format of Go's sumdb, Rekor v2 and the
transparency-dev tools), so off-the-shelf verifiers and witnesses can check our log.

A checkpoint is a note body of three lines, each ending in ``\\n``::

    <origin>
    <tree size, decimal>
    <base64 of the 32-byte RFC 9162 root hash>

signed as a note (C2SP ``signed-note``): the body, one blank line, then a signature line
``— <key name> <base64(key hash (4 bytes) || Ed25519 signature (64 bytes))>`` where the key hash is
``SHA-256(<key name> || "\\n" || 0x01 || <32-byte public key>)[:4]`` and the signature covers the body
bytes exactly. A verifier key is written ``<name>+<key hash, 8 hex>+<base64(0x01 || public key)>``.

Pure functions and the one small class that names a key; no sockets, no files.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from dataclasses import dataclass
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

ALG_ED25519 = 0x01
EM_DASH = "\u2014"
_NAME = re.compile(r"[^\s+]+")  # a key name: non-empty, no whitespace, no plus sign (signed-note)
_UINT = re.compile(r"0|[1-9][0-9]*")

__all__ = ["Checkpoint", "CheckpointError", "NoteKey", "format_checkpoint", "open_checkpoint", "open_note",
           "parse_checkpoint", "sign_note", "vkey_of", "checkpoint_for_head", "default_origin"]


class CheckpointError(ValueError):
    """A note or checkpoint is malformed, or no signature of the given key verifies."""


@dataclass(frozen=True)
class Checkpoint:
    origin: str
    tree_size: int
    root_hash: bytes
    extensions: tuple[str, ...] = ()


@dataclass(frozen=True)
class NoteKey:
    """A verifier key: name, the 4-byte key hash and the raw Ed25519 public key."""

    name: str
    key_hash: bytes
    public_key: bytes

    @classmethod
    def from_public(cls, name: str, public: Ed25519PublicKey | bytes) -> NoteKey:
        raw = public if isinstance(public, bytes) else public.public_bytes(
            serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        if not _NAME.fullmatch(name):
            raise CheckpointError(f"key name {name!r} must be non-empty, without spaces or '+'")
        if len(raw) != 32:
            raise CheckpointError("an Ed25519 public key is 32 bytes")
        return cls(name, _key_hash(name, raw), raw)

    @classmethod
    def parse(cls, vkey: str) -> NoteKey:
        """Read ``<name>+<hash hex>+<base64(0x01 || key)>``; the hash must match the key."""
        parts = vkey.strip().split("+", 2)  # the base64 key may hold "+" itself
        if len(parts) != 3 or not re.fullmatch(r"[0-9a-f]{8}", parts[1]):
            raise CheckpointError("a verifier key is <name>+<8 hex digits>+<base64 key>")
        try:
            blob = base64.b64decode(parts[2], validate=True)
        except binascii.Error:
            raise CheckpointError("the verifier key's key is not base64") from None
        if len(blob) != 33 or blob[0] != ALG_ED25519:
            raise CheckpointError("the verifier key is not an Ed25519 key (0x01 and 32 bytes)")
        key = cls.from_public(parts[0], blob[1:])
        if key.key_hash.hex() != parts[1]:
            raise CheckpointError("the verifier key's hash does not match its name and key")
        return key

    def __str__(self) -> str:
        """The verifier key text (``vkey``) an auditor pins."""
        return f"{self.name}+{self.key_hash.hex()}+{base64.b64encode(bytes([ALG_ED25519]) + self.public_key).decode()}"


def _key_hash(name: str, raw_public: bytes) -> bytes:
    return hashlib.sha256(name.encode() + b"\n" + bytes([ALG_ED25519]) + raw_public).digest()[:4]


def vkey_of(name: str, public: Ed25519PublicKey | bytes) -> str:
    return str(NoteKey.from_public(name, public))


def format_checkpoint(origin: str, tree_size: int, root_hash: bytes, extensions: tuple[str, ...] = ()) -> str:
    """The checkpoint body (the text that gets signed)."""
    if not origin or "\n" in origin:
        raise CheckpointError("origin must be one non-empty line")
    if not isinstance(tree_size, int) or isinstance(tree_size, bool) or tree_size < 0:
        raise CheckpointError("tree size must be a non-negative integer")
    if len(root_hash) != 32:
        raise CheckpointError("root hash must be 32 bytes")
    lines = [origin, str(tree_size), base64.b64encode(root_hash).decode(), *extensions]
    return "".join(line + "\n" for line in lines)


def sign_note(body: str, name: str, private_key: Ed25519PrivateKey) -> str:
    """``body`` signed by ``name``'s key: body, blank line, one signature line."""
    if not body.endswith("\n") or "\n\n" in body or not body.strip():
        raise CheckpointError("a note body is non-empty lines each ending in a newline, with no blank line")
    key = NoteKey.from_public(name, private_key.public_key())
    sig = private_key.sign(body.encode())
    return f"{body}\n{EM_DASH} {name} {base64.b64encode(key.key_hash + sig).decode()}\n"


def open_note(note: str, key: NoteKey) -> str:
    """The note's body, once a signature line of ``key`` verifies; CheckpointError otherwise.
    Signatures by other keys are ignored (a note may carry several: the log's and witnesses')."""
    split = note.rfind("\n\n")
    if split < 0 or not note.endswith("\n"):
        raise CheckpointError("malformed note: no blank line between body and signatures, or no final newline")
    body, sigs = note[: split + 1], note[split + 2:]
    for line in sigs.splitlines():
        parts = line.split(" ")
        if len(parts) != 3 or parts[0] != EM_DASH or not _NAME.fullmatch(parts[1]):
            raise CheckpointError(f"malformed signature line: {line[:80]!r}")
        if parts[1] != key.name:
            continue
        try:
            blob = base64.b64decode(parts[2], validate=True)
        except binascii.Error:
            raise CheckpointError("signature is not base64") from None
        if len(blob) != 68 or blob[:4] != key.key_hash:
            continue
        try:
            Ed25519PublicKey.from_public_bytes(key.public_key).verify(blob[4:], body.encode())
        except InvalidSignature:
            raise CheckpointError(f"invalid signature for key {key.name}+{key.key_hash.hex()}") from None
        return body
    raise CheckpointError(f"no signature of key {key.name}+{key.key_hash.hex()} on the note")


def parse_checkpoint(body: str) -> Checkpoint:
    lines = body.split("\n")
    if len(lines) < 4 or lines[-1] != "":
        raise CheckpointError("a checkpoint body is origin, size and root hash lines, each ending in a newline")
    origin, size, root = lines[0], lines[1], lines[2]
    if not origin:
        raise CheckpointError("empty origin")
    if not _UINT.fullmatch(size):
        raise CheckpointError(f"tree size {size[:30]!r} is not a decimal integer")
    try:
        digest = base64.b64decode(root, validate=True)
    except binascii.Error:
        raise CheckpointError("root hash is not base64") from None
    if len(digest) != 32:
        raise CheckpointError("root hash is not 32 bytes")
    return Checkpoint(origin, int(size), digest, tuple(lines[3:-1]))


def open_checkpoint(note: str, key: NoteKey, origin: str | None = None) -> Checkpoint:
    """Verify ``note`` with ``key`` and read it; with ``origin``, the log must be that one."""
    cp = parse_checkpoint(open_note(note, key))
    if origin is not None and cp.origin != origin:
        raise CheckpointError(f"checkpoint is for origin {cp.origin!r}, not {origin!r}")
    return cp


def default_origin(public: Ed25519PublicKey) -> str:
    """The log's origin line unless the operator names one (``METIS_LOG_ORIGIN``): unique per key."""
    from receipts.signing import key_id_for

    return f"metis.receipts/{key_id_for(public)}"


def checkpoint_for_head(sth: dict[str, Any], private_key: Ed25519PrivateKey, origin: str | None = None) -> str:
    """The signed checkpoint of a signed tree head (``metis-sth-v1``), signed with the same key.
    The head is checked first, so a checkpoint never vouches for a head the key did not sign."""
    from receipts.signing import SignatureError, verify_tree_head

    public = private_key.public_key()
    try:
        verify_tree_head(sth, public)
    except SignatureError as exc:
        raise CheckpointError(f"tree head does not verify with this key: {exc}") from None
    origin = origin or default_origin(public)
    body = format_checkpoint(origin, sth["tree_size"], bytes.fromhex(sth["root_hash"]))
    return sign_note(body, origin, private_key)
