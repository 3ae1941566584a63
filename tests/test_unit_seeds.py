"""hmac-v1 seeds (orchestrator/seeds.py): determinism, purpose semantics, the key file."""

from __future__ import annotations

import hashlib
import hmac
import re
import stat

from abilities.base import derive_rng
from orchestrator.seeds import SCHEME, derive_seed, fingerprint, load_or_create_key

KEY = bytes(range(32))


def test_deterministic_and_32_bytes():
    a = derive_seed(KEY, "acme", "cda", "act_1", None)
    assert a == derive_seed(KEY, "acme", "cda", "act_1", None)
    assert isinstance(a, bytes) and len(a) == 32


def test_documented_construction():
    want = hmac.new(KEY, b"hmac-v1|acme|cda|action:act_1", hashlib.sha256).digest()
    assert derive_seed(KEY, "acme", "cda", "act_1", None) == want
    want_p = hmac.new(KEY, "hmac-v1|acme|cda|audit-β".encode(), hashlib.sha256).digest()
    assert derive_seed(KEY, "acme", "cda", "act_1", "audit-β") == want_p
    assert SCHEME == "hmac-v1"


def test_without_purpose_every_action_has_its_own_seed():
    seeds = {derive_seed(KEY, "acme", "cda", f"act_{i}", None) for i in range(50)}
    assert len(seeds) == 50


def test_with_purpose_the_action_id_does_not_matter():
    s = {derive_seed(KEY, "acme", "cda", f"act_{i}", "nightly") for i in range(10)}
    assert len(s) == 1


def test_purpose_is_scoped_to_tenant_ability_and_key():
    base = derive_seed(KEY, "acme", "cda", "a", "p")
    assert derive_seed(KEY, "globex", "cda", "a", "p") != base
    assert derive_seed(KEY, "acme", "crl_math", "a", "p") != base
    assert derive_seed(KEY, "acme", "cda", "a", "q") != base
    assert derive_seed(b"\x01" * 32, "acme", "cda", "a", "p") != base


def test_empty_purpose_is_a_purpose():
    assert derive_seed(KEY, "acme", "cda", "a", "") == derive_seed(KEY, "acme", "cda", "b", "")
    assert derive_seed(KEY, "acme", "cda", "a", "") != derive_seed(KEY, "acme", "cda", "a", None)


def test_fingerprint_format_and_non_secret():
    seed = derive_seed(KEY, "acme", "cda", "a", None)
    fp = fingerprint(seed)
    assert re.fullmatch(r"hmac-v1:[0-9a-f]{16}", fp)
    assert fp == "hmac-v1:" + hashlib.sha256(seed).hexdigest()[:16]
    assert seed.hex()[:16] not in fp


def test_key_file_created_once_mode_0600(tmp_path):
    k1 = load_or_create_key(tmp_path)
    path = tmp_path / "server.key"
    assert len(k1) == 32 and stat.S_IMODE(path.stat().st_mode) == 0o600
    assert path.read_text() == k1.hex()
    assert load_or_create_key(tmp_path) == k1
    assert load_or_create_key(tmp_path / ".." / tmp_path.name) == k1


def test_derive_rng_is_per_purpose_and_reproducible():
    seed = derive_seed(KEY, "acme", "cda", "a", None)
    a = [derive_rng(seed, "beam").random() for _ in range(3)]
    assert a[0] == a[1] == a[2]
    r1, r2 = derive_rng(seed, "beam"), derive_rng(seed, "beam")
    assert [r1.randint(0, 10**9) for _ in range(20)] == [r2.randint(0, 10**9) for _ in range(20)]
    assert derive_rng(seed, "beam").random() != derive_rng(seed, "depth").random()
    other = derive_seed(KEY, "acme", "cda", "b", None)
    assert derive_rng(seed, "beam").random() != derive_rng(other, "beam").random()
