"""Tokens and stream tokens (orchestrator/auth.py): roles, tenants, expiry, topic binding, tampering."""

from __future__ import annotations

import base64
import json
import stat

import pytest

from orchestrator.auth import ROLES, StreamTokens, TokenStore

T0 = 1_800_000_000.0


@pytest.fixture
def store() -> TokenStore:
    return TokenStore({
        "tok-a": {"tenant": "acme", "roles": ["partner", "canvas"]},
        "tok-r": {"tenant": "acme", "roles": ["reviewer"]},
        "tok-g": {"tenant": "globex", "roles": ["approver"]},
    })


def test_authenticate_known_tokens(store):
    p = store.authenticate("tok-a")
    assert p is not None and p.tenant == "acme" and p.roles == ("partner", "canvas")
    assert p.has("canvas") and p.has("reviewer", "partner") and not p.has("reviewer", "approver")
    g = store.authenticate("tok-g")
    assert g is not None and g.tenant == "globex" and g.roles == ("approver",)


@pytest.mark.parametrize("token", [None, "", "tok", "tok-a ", "TOK-A", "tok-a\n", "tok-ax"])
def test_unknown_tokens_are_refused(store, token):
    assert store.authenticate(token) is None


def test_subject_is_stable_non_secret_and_distinct(store):
    a1, a2 = store.authenticate("tok-a"), TokenStore({"tok-a": {"tenant": "x"}}).authenticate("tok-a")
    r = store.authenticate("tok-r")
    assert a1.subject == a2.subject != r.subject
    assert a1.subject.startswith("sub_") and "tok-a" not in a1.subject and len(a1.subject) == 20


def test_unknown_role_is_refused_at_load():
    with pytest.raises(ValueError, match="unknown roles"):
        TokenStore({"t": {"tenant": "acme", "roles": ["partner", "root"]}})


def test_missing_roles_means_no_roles():
    p = TokenStore({"t": {"tenant": "acme"}}).authenticate("t")
    assert p is not None and p.roles == () and not p.has(*ROLES)


def test_load_and_create_default(tmp_path):
    store, path = TokenStore.create_default(tmp_path)
    assert path == tmp_path / "tokens.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    tokens = json.loads(path.read_text())
    assert sorted(r for spec in tokens.values() for r in spec["roles"]) == sorted(ROLES)
    for token, spec in tokens.items():
        assert token.startswith(f"mt_{spec['roles'][0]}_")
        assert store.authenticate(token).tenant == "default"
    again, _ = TokenStore.create_default(tmp_path)  # second start: same file, same tokens
    assert json.loads(path.read_text()) == tokens
    assert all(again.authenticate(t) is not None for t in tokens)
    loaded = TokenStore.load(path)
    assert all(loaded.authenticate(t) is not None for t in tokens)


# -- stream tokens ---------------------------------------------------------------------------------


@pytest.fixture
def st() -> StreamTokens:
    return StreamTokens(b"k" * 32, ttl_s=60)


def test_stream_token_round_trip(st):
    tok = st.issue("acme", "topic/a:1", now=T0)
    assert tok.startswith("st_")
    assert st.check(tok, "topic/a:1", now=T0) == "acme"
    assert st.check(tok, "topic/a:1", now=T0 + 60) == "acme"  # valid through its expiry second


def test_stream_token_expires(st):
    tok = st.issue("acme", "t", now=T0)
    assert st.check(tok, "t", now=T0 + 61) is None
    assert st.check(tok, "t", now=T0 + 10_000) is None


def test_stream_token_wrong_topic(st):
    tok = st.issue("acme", "t1", now=T0)
    assert st.check(tok, "t2", now=T0) is None
    assert st.check(tok, "t1x", now=T0) is None


def test_stream_token_wrong_key():
    tok = StreamTokens(b"a" * 32).issue("acme", "t", now=T0)
    assert StreamTokens(b"b" * 32).check(tok, "t", now=T0) is None


def _forge(tok: str, tenant: str, topic: str, exp: int) -> str:
    body = base64.urlsafe_b64encode(json.dumps([tenant, topic, exp]).encode()).rstrip(b"=").decode()
    return "st_" + body + "." + tok.partition(".")[2]


def test_tampered_stream_tokens_are_refused(st):
    tok = st.issue("acme", "t", now=T0)
    body, _, sig = tok[3:].partition(".")
    exp = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))[2]
    forged = [
        _forge(tok, "globex", "t", exp),  # other tenant, old signature
        _forge(tok, "acme", "t", exp + 3600),  # longer life, old signature
        "st_" + body + "." + ("A" if sig[0] != "A" else "B") + sig[1:],  # flipped signature char
        "st_" + body + "." + sig[:-2],  # truncated signature
        "st_" + body + ".",
        "st_" + body,  # no signature at all
        "xx_" + body + "." + sig,  # wrong prefix
        body + "." + sig,
        "",
        "st_.",
    ]
    for bad in forged:
        assert st.check(bad, "t", now=T0) is None, bad


def test_stream_tokens_are_distinct_per_tenant_and_topic(st):
    toks = {st.issue(tenant, topic, now=T0) for tenant in ("a", "b") for topic in ("x", "y")}
    assert len(toks) == 4
