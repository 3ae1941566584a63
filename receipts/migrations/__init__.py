"""Versioned PostgreSQL migrations: ``NNNN_name.sql`` files applied in order, each once.

``upgrade`` holds a session advisory lock while it works, so several replicas starting at once
apply each migration exactly once (the others wait, then find nothing left to do). Each migration
runs in its own transaction together with the row that records it: a failed migration leaves no
trace and is retried by the next upgrade.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MIGRATIONS_DIR = Path(__file__).parent
_NAME = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")


def lock_key(name: str) -> int:
    """A stable signed 64-bit advisory lock key for ``name``."""
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big", signed=True)


MIGRATION_LOCK = lock_key("metis:migrations")
TABLE = """CREATE TABLE IF NOT EXISTS metis_migrations (
  version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())"""


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    path: Path

    @property
    def sql(self) -> str:
        return self.path.read_text()


def available() -> list[Migration]:
    """The migrations shipped with this version, in order (versions must be 1, 2, 3, ...)."""
    found = []
    for path in MIGRATIONS_DIR.glob("*.sql"):
        m = _NAME.match(path.name)
        if m is None:
            raise RuntimeError(f"migration file {path.name} is not named NNNN_name.sql")
        found.append(Migration(int(m.group(1)), m.group(2), path))
    found.sort(key=lambda m: m.version)
    if [m.version for m in found] != list(range(1, len(found) + 1)):
        raise RuntimeError(f"migration versions are not 1..{len(found)}: {[m.version for m in found]}")
    return found


def applied_versions(conn: Any) -> list[int]:
    """Versions recorded in the database (empty for a fresh one)."""
    exists = conn.execute("SELECT to_regclass('metis_migrations') IS NOT NULL").fetchone()[0]
    if not exists:
        return []
    return [v for (v,) in conn.execute("SELECT version FROM metis_migrations ORDER BY version")]


def upgrade(conn: Any) -> list[int]:
    """Apply every missing migration on an autocommit psycopg connection; returns the versions applied.

    Refuses a database that has a version this code does not know (a newer release migrated it)."""
    conn.execute("SELECT pg_advisory_lock(%s)", (MIGRATION_LOCK,))
    try:
        with conn.transaction():
            conn.execute(TABLE)
        done = set(applied_versions(conn))
        known = available()
        newer = sorted(done - {m.version for m in known})
        if newer:
            raise RuntimeError(f"database schema version {max(newer)} is newer than this release "
                               f"knows ({len(known)}): upgrade Metis")
        applied = []
        for m in known:
            if m.version in done:
                continue
            with conn.transaction():
                conn.execute(m.sql)
                conn.execute("INSERT INTO metis_migrations (version, name) VALUES (%s, %s)", (m.version, m.name))
            applied.append(m.version)
        return applied
    finally:
        conn.execute("SELECT pg_advisory_unlock(%s)", (MIGRATION_LOCK,))


def pending(conn: Any) -> list[int]:
    """Versions not applied yet."""
    done = set(applied_versions(conn))
    return [m.version for m in available() if m.version not in done]
