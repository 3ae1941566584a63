"""A tenant's committed datasets (``datasets.put``) as abilities read them inside a worker.

The server (``orchestrator/datasets.py``) is the only writer of content: once a version's records
are durable in the receipt log it writes the version's canonical JSON to
``<data>/datasets/<tenant>/<kind>/<name>/v<version>.json`` and the tenant's index to
``<data>/datasets/<tenant>/index.json``, each by an atomic rename. Workers only read them.

A run pins what it reads: the first read of ``(kind, name)`` without a version by revision ``r``
of an action is remembered in ``<data>/datasets/<tenant>/pins/<action_id>.r<r>.json``, so a run
resumed by replay (after a park) or replayed by a reviewer reads the same version even when a
newer one has been committed since; the next revision reads the newest.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

KINDS = ("ken", "corpus")
NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$"
_SAFE = re.compile(r"[A-Za-z0-9_.-]{1,64}")


class CorpusDocument(BaseModel):
    """One document of a ``corpus`` dataset; spans cite it by ``doc_id`` and character offsets."""

    model_config = ConfigDict(extra="forbid")
    doc_id: str = Field(min_length=1, max_length=256)
    text: str = Field(max_length=2_000_000)
    title: str | None = Field(None, max_length=1_000)


class DatasetNotFound(LookupError):
    """No such dataset (or version) for this tenant."""


@dataclass(frozen=True)
class Resolved:
    kind: str
    name: str
    version: int
    sha256: str
    path: Path

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind, "name": self.name, "version": self.version, "sha256": self.sha256}


def data_dir() -> Path:
    """The service data dir as a worker sees it (``METIS_DATA_DIR``)."""
    return Path(os.environ.get("METIS_DATA_DIR", ".metis"))


def tenant_dir(base: Path, tenant: str) -> Path:
    """A tenant's dataset directory; a tenant name unsafe as a file name is hashed."""
    key = tenant if _SAFE.fullmatch(tenant) and not tenant.startswith(".") else \
        "t-" + hashlib.sha256(tenant.encode()).hexdigest()[:32]
    return base / "datasets" / key


def content_path(base: Path, tenant: str, kind: str, name: str, version: int) -> Path:
    return tenant_dir(base, tenant) / kind / name / f"v{version}.json"


def read_index(base: Path, tenant: str) -> dict[str, Any]:
    """``{"<kind>/<name>": [version meta, ...]}`` (oldest first); empty when nothing was put."""
    try:
        return json.loads((tenant_dir(base, tenant) / "index.json").read_text())
    except FileNotFoundError:
        return {}


def write_atomic(path: Path, data: bytes) -> None:
    """Write, fsync, rename: readers see the old file or the whole new one, never a torn one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _pinned(base: Path, tenant: str, pin: tuple[str, int] | None, key: str, latest: int) -> int:
    """The version this run reads: the one it read first, else ``latest`` (remembered)."""
    if pin is None:
        return latest
    path = tenant_dir(base, tenant) / "pins" / f"{pin[0]}.r{pin[1]}.json"
    try:
        pins = json.loads(path.read_text())
    except (FileNotFoundError, ValueError):
        pins = {}
    if key in pins:
        return int(pins[key])
    pins[key] = latest
    write_atomic(path, json.dumps(pins, sort_keys=True).encode())
    return latest


def resolve(tenant: str, kind: str, name: str, version: int | None = None,
            pin: tuple[str, int] | None = None, base: Path | None = None) -> Resolved:
    """Find a committed version (the newest, or the run's pinned one, when ``version`` is None)."""
    base = base or data_dir()
    if kind not in KINDS or not re.fullmatch(NAME_PATTERN, name):
        raise DatasetNotFound(f"no {kind} dataset {name!r}")
    versions = read_index(base, tenant).get(f"{kind}/{name}") or []
    if not versions:
        raise DatasetNotFound(f"no {kind} dataset {name!r} for this tenant: upload it with datasets.put")
    if version is None:
        version = _pinned(base, tenant, pin, f"{kind}/{name}", int(versions[-1]["version"]))
    for v in versions:
        if int(v["version"]) == version:
            return Resolved(kind, name, version, v["sha256"], content_path(base, tenant, kind, name, version))
    raise DatasetNotFound(f"{kind} dataset {name!r} has no version {version} (latest {versions[-1]['version']})")


def load(resolved: Resolved) -> Any:
    """The version's content (parsed JSON)."""
    return json.loads(resolved.path.read_bytes())


def pin_of(ctx: Any) -> tuple[str, int]:
    """The pin key of a running action: its id and revision."""
    return (str(ctx.action_id), int(ctx.revision))
