"""Ed25519 signed tree heads: round trip, tampering, key persistence and file modes."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import stat
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from receipts.merkle import MerkleTree, leaf_hash
from receipts.signing import (
    SignatureError,
    TreeHeadSigner,
    key_id_for,
    load_public_key,
    sth_message,
    verify_tree_head,
)

ROOT = MerkleTree(leaf_hash(bytes([i])) for i in range(5)).root()
TS = 1_700_000_000_123


@pytest.fixture(scope="module")
def signer(tmp_path_factory: pytest.TempPathFactory) -> TreeHeadSigner:
    return TreeHeadSigner.load_or_create(tmp_path_factory.mktemp("keys"))


def test_round_trip_all_key_forms(signer: TreeHeadSigner) -> None:
    sth = signer.sign(5, ROOT, TS)
    assert list(sth) == ["tree_size", "root_hash", "timestamp_ms", "key_id", "algorithm", "signature"]
    assert sth["tree_size"] == 5 and sth["timestamp_ms"] == TS and sth["algorithm"] == "Ed25519"
    assert bytes.fromhex(sth["root_hash"]) == ROOT
    assert len(base64.b64decode(sth["signature"])) == 64
    # JSON round trip: the dict survives transport unchanged.
    wire = json.loads(json.dumps(sth))
    for key in (
        signer.public_key_b64,
        signer.public_key_pem,
        signer.public_key_pem.encode(),
        signer.public_key,
    ):
        assert verify_tree_head(wire, key) is None
    # The head may carry its own key (unsigned, so it must be the verifying key).
    assert verify_tree_head({**wire, "public_key": signer.public_key_b64}, signer.public_key_b64) is None
    # Pure Ed25519 is deterministic: the same head signs to the same bytes.
    assert signer.sign(5, ROOT, TS) == sth
    assert signer.sign(0, hashlib.sha256(b"").digest(), 0)["tree_size"] == 0


def test_signed_message_is_the_documented_byte_string(signer: TreeHeadSigner) -> None:
    """A verifier in another language rebuilds the message from the docs; check it independently."""
    sth = signer.sign(5, ROOT, TS)
    documented = (
        f"metis-sth-v1\ntree_size=5\nroot_hash={ROOT.hex()}\ntimestamp_ms={TS}\nkey_id={sth['key_id']}\n"
    ).encode("ascii")
    assert sth_message(5, ROOT, TS, sth["key_id"]) == documented
    raw_pub = base64.b64decode(signer.public_key_b64)
    assert len(raw_pub) == 32
    assert sth["key_id"] == hashlib.sha256(raw_pub).hexdigest()[:16] == signer.key_id
    # Verify with the bare library over the hand-built message (raises InvalidSignature if not).
    Ed25519PublicKey.from_public_bytes(raw_pub).verify(base64.b64decode(sth["signature"]), documented)


def _flip_signature(sig: str) -> str:
    raw = bytearray(base64.b64decode(sig))
    raw[10] ^= 0x01
    return base64.b64encode(bytes(raw)).decode()


B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def _noncanonical(sig: str) -> str:
    """Set a padding bit of the last base64 digit: decodes to the same 64 bytes, other text."""
    assert sig.endswith("==")
    alt = sig[:-3] + B64[B64.index(sig[-3]) ^ 1] + "=="
    assert base64.b64decode(alt) == base64.b64decode(sig)
    return alt


TAMPERS = {
    "tree_size+1": lambda s: {**s, "tree_size": s["tree_size"] + 1},
    "tree_size-1": lambda s: {**s, "tree_size": s["tree_size"] - 1},
    "tree_size_str": lambda s: {**s, "tree_size": str(s["tree_size"])},
    "tree_size_bool": lambda s: {**s, "tree_size": True},
    "root_hash_digit": lambda s: {
        **s,
        "root_hash": ("0" if s["root_hash"][0] != "0" else "1") + s["root_hash"][1:],
    },
    "root_hash_upper": lambda s: {**s, "root_hash": s["root_hash"].upper()},
    "root_hash_short": lambda s: {**s, "root_hash": s["root_hash"][:-2]},
    "timestamp+1": lambda s: {**s, "timestamp_ms": s["timestamp_ms"] + 1},
    "timestamp_float": lambda s: {**s, "timestamp_ms": float(s["timestamp_ms"])},
    "signature_bit": lambda s: {**s, "signature": _flip_signature(s["signature"])},
    "signature_truncated": lambda s: {**s, "signature": s["signature"][:-4]},
    "signature_not_b64": lambda s: {**s, "signature": "!" + s["signature"][1:]},
    "signature_noncanonical_b64": lambda s: {**s, "signature": _noncanonical(s["signature"])},
    "key_id": lambda s: {**s, "key_id": "0123456789abcdef"},
    "algorithm": lambda s: {**s, "algorithm": "Ed448"},
    "missing_field": lambda s: {k: v for k, v in s.items() if k != "timestamp_ms"},
    "extra_field": lambda s: {**s, "note": "unsigned"},
    "embedded_other_public_key": lambda s: {**s, "public_key": base64.b64encode(bytes(32)).decode()},
    "embedded_public_key_not_str": lambda s: {**s, "public_key": 7},
}


@pytest.mark.parametrize("name", sorted(TAMPERS))
def test_each_tampered_field_is_rejected(signer: TreeHeadSigner, name: str) -> None:
    sth = signer.sign(5, ROOT, TS)
    bad = TAMPERS[name](dict(sth))
    assert json.dumps(bad) != json.dumps(sth)
    with pytest.raises(SignatureError):
        verify_tree_head(bad, signer.public_key_b64)
    verify_tree_head(sth, signer.public_key_b64)  # the original still verifies


def test_other_key_rejected(signer: TreeHeadSigner, tmp_path: Path) -> None:
    other = TreeHeadSigner.load_or_create(tmp_path)
    assert other.key_id != signer.key_id
    sth = signer.sign(5, ROOT, TS)
    with pytest.raises(SignatureError, match="key_id"):
        verify_tree_head(sth, other.public_key_b64)
    # Same key id claimed, but signed by a different key: the signature check catches it.
    forged = {**other.sign(5, ROOT, TS), "key_id": signer.key_id}
    with pytest.raises(SignatureError, match="signature"):
        verify_tree_head(forged, signer.public_key_b64)


def test_bad_public_keys() -> None:
    with pytest.raises(SignatureError):
        load_public_key("not base64 !")
    with pytest.raises(SignatureError):
        load_public_key(base64.b64encode(b"x" * 31).decode())
    with pytest.raises(SignatureError):
        load_public_key("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n")
    with pytest.raises(SignatureError):
        load_public_key("clé")


def test_sign_rejects_bad_inputs(signer: TreeHeadSigner) -> None:
    with pytest.raises(ValueError):
        signer.sign(5, ROOT[:31], TS)
    with pytest.raises(ValueError):
        signer.sign(-1, ROOT, TS)
    with pytest.raises(ValueError):
        signer.sign(5, ROOT, -5)
    with pytest.raises(ValueError):
        sth_message(5, ROOT, TS, "XYZ")


def test_key_persisted_and_reloaded(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    old_umask = os.umask(0)  # the private key must be 0600 whatever the umask
    try:
        first = TreeHeadSigner.load_or_create(data_dir)
    finally:
        os.umask(old_umask)
    key_path = data_dir / "signing_key.pem"
    pub_path = data_dir / "signing_key.pub.pem"
    assert stat.S_IMODE(key_path.stat().st_mode) == 0o600
    assert pub_path.read_text() == first.public_key_pem
    assert sorted(p.name for p in data_dir.iterdir()) == ["signing_key.pem", "signing_key.pub.pem"]
    key_bytes = key_path.read_bytes()
    sth = first.sign(7, ROOT, TS)

    second = TreeHeadSigner.load_or_create(data_dir)
    assert second.key_id == first.key_id and second.public_key_b64 == first.public_key_b64
    assert key_path.read_bytes() == key_bytes  # not regenerated
    assert second.sign(7, ROOT, TS) == sth
    verify_tree_head(sth, pub_path.read_text())

    # A lost public key file is rewritten from the private key.
    pub_path.unlink()
    third = TreeHeadSigner.load_or_create(data_dir)
    assert third.key_id == first.key_id
    assert key_id_for(load_public_key(pub_path.read_text())) == first.key_id


def test_existing_key_file_is_used(tmp_path: Path) -> None:
    key = Ed25519PrivateKey.generate()
    pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    (tmp_path / "signing_key.pem").write_bytes(pem)
    (tmp_path / "signing_key.pem").chmod(0o600)
    signer = TreeHeadSigner.load_or_create(tmp_path)
    assert signer.key_id == key_id_for(key.public_key())
    verify_tree_head(signer.sign(1, ROOT, 1), key.public_key())
