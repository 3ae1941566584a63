"""hmac-v1 seeds: HMAC-SHA256(server key, the action's identity and purpose).

Without a ``seed.purpose`` the purpose is the action id, so every action gets its own seed. With a
purpose, the seed depends on (tenant, ability, purpose) only: a client that repeats a purpose
with the same inputs gets byte-identical outputs, which is what replay and audits rely on.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from pathlib import Path

SCHEME = "hmac-v1"


def load_or_create_key(data_dir: Path) -> bytes:
    """The server's secret key, created once per data dir (mode 0600)."""
    path = Path(data_dir) / "server.key"
    if path.exists():
        return bytes.fromhex(path.read_text().strip())
    key = secrets.token_bytes(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as fh:
        fh.write(key.hex())
    return key


def derive_seed(key: bytes, tenant: str, ability: str, action_id: str, purpose: str | None) -> bytes:
    """The action's 32-byte seed."""
    ident = f"{SCHEME}|{tenant}|{ability}|{purpose if purpose is not None else 'action:' + action_id}"
    return hmac.digest(key, ident.encode("utf-8"), "sha256")  # one-shot in C: the same bytes as hmac.new


def fingerprint(seed: bytes) -> str:
    """Public, non-secret id of a seed: ``hmac-v1:`` and 16 hex digits of its SHA-256."""
    return f"{SCHEME}:{hashlib.sha256(seed).hexdigest()[:16]}"
