"""Tokens, roles, tenants, and short-lived stream tokens for EventSource clients."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import secrets
import time
from dataclasses import dataclass
from pathlib import Path

ROLES = ("partner", "canvas", "reviewer", "approver", "operator")
_json_str = json.encoder.encode_basestring_ascii  # what ``json.dumps`` writes for a str (C, once per start)


@dataclass(frozen=True)
class Principal:
    """Who is calling: the tenant, the roles, and a stable non-secret subject id."""

    tenant: str
    roles: tuple[str, ...]
    subject: str

    def has(self, *roles: str) -> bool:
        return any(r in self.roles for r in roles)


class TokenStore:
    """Bearer tokens from a JSON file ``{token: {tenant, roles}}``."""

    def __init__(self, tokens: dict[str, dict]) -> None:
        self._tokens: dict[str, Principal] = {}
        for token, spec in tokens.items():
            roles = tuple(spec.get("roles", []))
            unknown = set(roles) - set(ROLES)
            if unknown:
                raise ValueError(f"unknown roles {sorted(unknown)} for a token of tenant {spec.get('tenant')}")
            subject = "sub_" + hashlib.sha256(token.encode()).hexdigest()[:16]
            self._tokens[token] = Principal(str(spec["tenant"]), roles, subject)

    @classmethod
    def load(cls, path: Path) -> TokenStore:
        return cls(json.loads(Path(path).read_text()))

    @classmethod
    def create_default(cls, data_dir: Path) -> tuple[TokenStore, Path]:
        """Load ``<data-dir>/tokens.json``, creating it with one token per role on first start."""
        path = Path(data_dir) / "tokens.json"
        if not path.exists():
            tokens = {f"mt_{role}_{secrets.token_urlsafe(18)}": {"tenant": "default", "roles": [role]} for role in ROLES}
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as fh:
                json.dump(tokens, fh, indent=2)
        return cls.load(path), path

    @property
    def tenants(self) -> frozenset[str]:
        """The configured tenants (a bounded set: metrics may label by tenant)."""
        return frozenset(p.tenant for p in self._tokens.values())

    def authenticate(self, token: str | None) -> Principal | None:
        if not token:
            return None
        given = token.encode("utf-8", "surrogatepass")  # compare_digest refuses non-ASCII str
        for known, principal in self._tokens.items():
            if hmac.compare_digest(known.encode(), given):
                return principal
        return None


class StreamTokens:
    """HMAC-signed, expiring tokens that grant reading one topic of one tenant."""

    def __init__(self, key: bytes, ttl_s: int = 3600) -> None:
        self._key = hashlib.sha256(b"metis-stream-token|" + key).digest()
        self.ttl_s = ttl_s

    def issue(self, tenant: str, topic: str, now: float | None = None) -> str:
        exp = int((now or time.time()) + self.ttl_s)
        claims = f"[{_json_str(tenant)}, {_json_str(topic)}, {exp}]"  # = json.dumps([tenant, topic, exp])
        body = base64.urlsafe_b64encode(claims.encode()).rstrip(b"=")
        sig = base64.urlsafe_b64encode(hmac.digest(self._key, body, "sha256")[:18])
        return "st_" + body.decode() + "." + sig.decode()

    def check(self, token: str, topic: str, now: float | None = None) -> str | None:
        """The tenant if ``token`` is valid for ``topic`` and not expired, else None."""
        if not token.startswith("st_") or "." not in token:
            return None
        body, _, sig = token[3:].partition(".")
        raw = body.encode("utf-8", "surrogatepass")
        want = base64.urlsafe_b64encode(hmac.new(self._key, raw, hashlib.sha256).digest()[:18])
        if not hmac.compare_digest(want, sig.encode("utf-8", "surrogatepass")):  # bytes: any input
            return None
        try:
            tenant, tok_topic, exp = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
        except ValueError:
            return None
        if tok_topic != topic or exp < (now or time.time()):
            return None
        return tenant
