"""Ed25519 signed tree heads (STH) for the receipt log.

A signed tree head binds (tree size, Merkle root, time) to the log's key, so a client that kept one
can later check inclusion and consistency proofs without trusting the server. Pure apart from the
key files in the data directory; no sockets.

Signed message (``sth_message``), ASCII, every line ending in a single ``\\n``, no other bytes::

    metis-sth-v1
    tree_size=<decimal, no sign, no leading zeros>
    root_hash=<64 lowercase hex digits>
    timestamp_ms=<decimal, no sign, no leading zeros>
    key_id=<16 lowercase hex digits>

e.g. ``b"metis-sth-v1\\ntree_size=3\\nroot_hash=aeb6...\\ntimestamp_ms=1700000000000\\nkey_id=0123456789abcdef\\n"``.
The signature is pure Ed25519 (RFC 8032, no pre-hash, no context) over exactly those bytes;
``key_id`` is the first 16 hex digits of SHA-256 of the 32-byte raw public key.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import hashlib
import os
import re
from pathlib import Path
from typing import Any

import structlog
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

__all__ = [
    "ALGORITHM",
    "OPTIONAL_PUBLIC_KEY_FIELD",
    "PRIVATE_KEY_FILE",
    "PUBLIC_KEY_FILE",
    "STH_FIELDS",
    "STH_VERSION",
    "SignatureError",
    "TreeHeadSigner",
    "key_id_for",
    "load_public_key",
    "sth_message",
    "verify_tree_head",
]

ALGORITHM = "Ed25519"
STH_VERSION = b"metis-sth-v1"
PRIVATE_KEY_FILE = "signing_key.pem"
PUBLIC_KEY_FILE = "signing_key.pub.pem"
STH_FIELDS = ("tree_size", "root_hash", "timestamp_ms", "key_id", "algorithm", "signature")
# A head may carry its key (base64 raw) for convenience; it is not signed, so it must equal the key
# the caller verifies with (pin that key from signing_key.pub.pem, not from the head itself).
OPTIONAL_PUBLIC_KEY_FIELD = "public_key"

_HEX64 = re.compile(r"[0-9a-f]{64}")
_HEX16 = re.compile(r"[0-9a-f]{16}")
_log = structlog.get_logger()


class SignatureError(ValueError):
    """A signed tree head is malformed, was altered, or was not signed by the given key."""


def _raw_public(key: Ed25519PublicKey) -> bytes:
    return key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def key_id_for(public_key: Ed25519PublicKey) -> str:
    """First 16 hex digits of SHA-256 of the raw 32-byte public key: a short, stable key name."""
    return hashlib.sha256(_raw_public(public_key)).hexdigest()[:16]


def _is_uint(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def sth_message(tree_size: int, root_hash: bytes, timestamp_ms: int, key_id: str) -> bytes:
    """The exact bytes that are signed (see the module docstring), so any verifier can rebuild them."""
    if not _is_uint(tree_size):
        raise ValueError(f"tree_size must be a non-negative int, got {tree_size!r}")
    if not isinstance(root_hash, bytes | bytearray) or len(root_hash) != 32:
        raise ValueError("root_hash must be 32 bytes")
    if not _is_uint(timestamp_ms):
        raise ValueError(f"timestamp_ms must be a non-negative int, got {timestamp_ms!r}")
    if not isinstance(key_id, str) or not _HEX16.fullmatch(key_id):
        raise ValueError("key_id must be 16 lowercase hex digits")
    return STH_VERSION + b"\ntree_size=%d\nroot_hash=%s\ntimestamp_ms=%d\nkey_id=%s\n" % (
        tree_size,
        bytes(root_hash).hex().encode(),
        timestamp_ms,
        key_id.encode(),
    )


def load_public_key(public_key: str | bytes | Ed25519PublicKey) -> Ed25519PublicKey:
    """Accept a PEM (SubjectPublicKeyInfo) text, base64 of the raw 32-byte key, or a key object."""
    if isinstance(public_key, Ed25519PublicKey):
        return public_key
    if isinstance(public_key, str):
        if not public_key.isascii():
            raise SignatureError("public key text must be ASCII (PEM or base64)")
        public_key = public_key.encode("ascii")
    if not isinstance(public_key, bytes | bytearray):
        raise SignatureError(f"public key must be PEM or base64 text, got {type(public_key).__name__}")
    data = bytes(public_key).strip()
    if data.startswith(b"-----BEGIN"):
        try:
            key = serialization.load_pem_public_key(data)
        except ValueError as exc:
            raise SignatureError(f"unreadable PEM public key: {exc}") from None
        if not isinstance(key, Ed25519PublicKey):
            raise SignatureError("PEM public key is not an Ed25519 key")
        return key
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        raise SignatureError("public key is neither PEM nor valid base64") from None
    if len(raw) != 32:
        raise SignatureError(f"raw Ed25519 public key must be 32 bytes, got {len(raw)}")
    return Ed25519PublicKey.from_public_bytes(raw)


def _write_new_file(path: Path, data: bytes, mode: int) -> bool:
    """Create ``path`` atomically with ``mode``; False if it already exists (another creator won).

    Written to a temporary file, fsynced, then hard-linked into place: a crash never leaves a
    truncated key, and two concurrent creators cannot overwrite each other.
    """
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    try:
        os.fchmod(fd, mode)  # independent of the umask
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    try:
        os.link(tmp, path)
    except FileExistsError:
        return False
    finally:
        tmp.unlink()
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)
    return True


class TreeHeadSigner:
    """Holds the log's Ed25519 key and signs tree heads."""

    def __init__(self, private_key: Ed25519PrivateKey) -> None:
        self._private_key = private_key
        self._public_key = private_key.public_key()
        self._key_id = key_id_for(self._public_key)

    @classmethod
    def load_or_create(cls, data_dir: Path) -> TreeHeadSigner:
        """Load ``<data_dir>/signing_key.pem`` or create it (mode 0600) with a fresh key.

        Also (re)writes ``<data_dir>/signing_key.pub.pem`` (mode 0644) when missing or stale, so
        auditors can fetch the public key from the directory.
        """
        data_dir = Path(data_dir)
        data_dir.mkdir(parents=True, exist_ok=True)
        key_path = data_dir / PRIVATE_KEY_FILE
        if not key_path.exists():
            pem = Ed25519PrivateKey.generate().private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption(),
            )
            if _write_new_file(key_path, pem, 0o600):
                _log.info("receipts.signing_key_created", path=str(key_path))
        mode = key_path.stat().st_mode & 0o777
        if mode & 0o077:
            _log.warning("receipts.signing_key_permissions", path=str(key_path), mode=oct(mode))
        key = serialization.load_pem_private_key(key_path.read_bytes(), password=None)
        if not isinstance(key, Ed25519PrivateKey):
            raise ValueError(f"{key_path} does not hold an Ed25519 private key")
        signer = cls(key)
        pub_path = data_dir / PUBLIC_KEY_FILE
        pub_pem = signer.public_key_pem.encode()
        if not pub_path.exists() or pub_path.read_bytes() != pub_pem:
            with contextlib.suppress(FileNotFoundError):
                pub_path.unlink()
            _write_new_file(pub_path, pub_pem, 0o644)
        return signer

    @property
    def key_id(self) -> str:
        """16 hex digits naming this key (see :func:`key_id_for`)."""
        return self._key_id

    @property
    def public_key(self) -> Ed25519PublicKey:
        return self._public_key

    @property
    def public_key_b64(self) -> str:
        """Standard base64 of the raw 32-byte public key."""
        return base64.b64encode(_raw_public(self._public_key)).decode("ascii")

    @property
    def public_key_pem(self) -> str:
        """SubjectPublicKeyInfo PEM of the public key."""
        return self._public_key.public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        ).decode("ascii")

    def sign(self, tree_size: int, root_hash: bytes, timestamp_ms: int) -> dict[str, Any]:
        """Sign a tree head; the dict is JSON-ready (root hex, signature base64)."""
        message = sth_message(tree_size, root_hash, timestamp_ms, self._key_id)
        signature = self._private_key.sign(message)
        return {
            "tree_size": tree_size,
            "root_hash": bytes(root_hash).hex(),
            "timestamp_ms": timestamp_ms,
            "key_id": self._key_id,
            "algorithm": ALGORITHM,
            "signature": base64.b64encode(signature).decode("ascii"),
        }


def verify_tree_head(sth: dict[str, Any], public_key: str | bytes | Ed25519PublicKey) -> None:
    """Check a signed tree head against a public key (PEM, base64 raw, or key object).

    Raises :class:`SignatureError` on any mismatch: missing or unknown fields (only ``public_key``
    may be added, and it must be the verifying key), wrong types, a key id
    that is not this key's, an unknown algorithm, or a signature that does not cover these exact
    values. Returns None on success.
    """
    key = load_public_key(public_key)
    if not isinstance(sth, dict):
        raise SignatureError(f"tree head must be a dict, got {type(sth).__name__}")
    missing = [f for f in STH_FIELDS if f not in sth]
    extra = sorted(str(f) for f in sth if f not in STH_FIELDS and f != OPTIONAL_PUBLIC_KEY_FIELD)
    if missing or extra:
        raise SignatureError(f"tree head fields: missing {missing}, unexpected {extra}")
    if sth["algorithm"] != ALGORITHM:
        raise SignatureError(f"unsupported algorithm {sth['algorithm']!r}, want {ALGORITHM!r}")
    if not _is_uint(sth["tree_size"]):
        raise SignatureError("tree_size must be a non-negative integer")
    if not _is_uint(sth["timestamp_ms"]):
        raise SignatureError("timestamp_ms must be a non-negative integer")
    if not isinstance(sth["root_hash"], str) or not _HEX64.fullmatch(sth["root_hash"]):
        raise SignatureError("root_hash must be 64 lowercase hex digits")
    expected_id = key_id_for(key)
    if OPTIONAL_PUBLIC_KEY_FIELD in sth:
        embedded = sth[OPTIONAL_PUBLIC_KEY_FIELD]
        if not isinstance(embedded, str) or _raw_public(load_public_key(embedded)) != _raw_public(key):
            raise SignatureError("public_key in the tree head is not the verifying key")
    if sth["key_id"] != expected_id:
        raise SignatureError(f"key_id {sth['key_id']!r} does not match the public key ({expected_id})")
    sig_text = sth["signature"]
    try:
        if not isinstance(sig_text, str):
            raise ValueError
        signature = base64.b64decode(sig_text.encode("ascii"), validate=True)
    except (binascii.Error, ValueError, UnicodeEncodeError):
        raise SignatureError("signature must be standard base64") from None
    if base64.b64encode(signature).decode("ascii") != sig_text:
        raise SignatureError("signature is not in canonical base64")
    if len(signature) != 64:
        raise SignatureError(f"Ed25519 signature must be 64 bytes, got {len(signature)}")
    message = sth_message(sth["tree_size"], bytes.fromhex(sth["root_hash"]), sth["timestamp_ms"], expected_id)
    try:
        key.verify(signature, message)
    except InvalidSignature:
        raise SignatureError("signature does not match this tree head and key") from None
