"""The dataset store behind ``datasets.put``, ``datasets.list`` and ``datasets.get``.

Datasets (a Ken graph, ``kind: "ken"``, or a corpus of documents, ``kind: "corpus"``) belong to one
tenant, have a name and numbered versions, and are stored *in the receipt log*: a committed version
is its canonical JSON (RFC 8785) cut into ``dataset_chunk`` receipts, followed by one
``dataset_version`` receipt holding the version's SHA-256. So every storage engine of the log holds
them (SQLite or PostgreSQL, shared by replicas), they are tamper-evident like every record, and
nothing reaches a client before its records are durable. The data directory only holds a cache
that workers read (``abilities/datasets.py``), written after the append and rebuilt from the log
at start (and, on a replica, when another replica's version record arrives).

Large content arrives in chunks: ``{chunk: {index: 0, data}}`` opens an upload and returns its
``upload_id``; later chunks name it and carry the next index; ``final: true`` assembles, validates
and commits. Uploads are held in memory until committed (at most ``MAX_UPLOADS`` per tenant,
dropped after ``UPLOAD_IDLE_S`` idle, and lost on restart: start again).

A version read by an action is a dependency of that action (the ability writes a
``dataset_read`` receipt): a newer version offers it ``update_available`` (``dependency_id``
``dataset:<kind>:<name>``), which ``actions.accept_update`` takes like a bind bump; an ability that
asked for ``refresh: "auto"`` in that receipt is re-run at once.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import structlog
from pydantic import TypeAdapter, ValidationError

from abilities import datasets as D
from orchestrator import errors as E
from orchestrator.errors import RpcError
from receipts.canonical import canonical_json
from receipts.log import Entry, Record

log = structlog.get_logger("metis.datasets")
INDEX_REF = "metis:datasets"  # every dataset_version record carries it: one indexed read rebuilds the index
STORE_CHARS = 256 * 1024  # per dataset_chunk record in the log
PAGE_CHARS = 256 * 1024  # per datasets.get page
INLINE_CHARS = 256 * 1024  # datasets.get returns `content` itself up to this size
MAX_CHARS = 64 * 1024 * 1024
MAX_CHUNKS = 1024
MAX_UPLOADS = 8
UPLOAD_IDLE_S = 900.0
MAX_DOCUMENTS = 100_000
MAX_KEN_EDGES = 2_000_000

Committed = Callable[[str, dict[str, Any]], Awaitable[None]]


def invalid(loc: list[Any], msg: str, type_: str = "value_error") -> RpcError:
    return RpcError(E.INVALID_PARAMS, f"invalid params for datasets: {msg}",
                    {"errors": [{"loc": loc, "msg": msg, "type": type_}]})


def _pydantic_errors(exc: ValidationError, prefix: list[Any]) -> RpcError:
    errs = [{"loc": prefix + list(e["loc"]), "msg": e["msg"], "type": e["type"]}
            for e in exc.errors(include_url=False, include_context=False, include_input=False)[:20]]
    return RpcError(E.INVALID_PARAMS, "invalid dataset content", {"errors": errs})


def validate_content(kind: str, content: Any, loc: list[Any]) -> int:
    """Check content against its kind; returns its item count (nodes + edges, or documents)."""
    if kind == "ken":
        from abilities.cda.models import KenEdge, KenNode  # cda's own Ken models: one definition

        if not isinstance(content, dict) or set(content) - {"nodes", "edges"}:
            raise invalid(loc, "a Ken graph is an object {nodes: [...], edges: [...]}")
        nodes, edges = content.get("nodes", []), content.get("edges", [])
        if not isinstance(edges, list) or len(edges) > MAX_KEN_EDGES:
            raise invalid(loc + ["edges"], f"edges must be a list of at most {MAX_KEN_EDGES} edges")
        try:
            TypeAdapter(list[KenNode]).validate_python(nodes)
        except ValidationError as exc:
            raise _pydantic_errors(exc, loc + ["nodes"]) from None
        try:
            TypeAdapter(list[KenEdge]).validate_python(edges)
        except ValidationError as exc:
            raise _pydantic_errors(exc, loc + ["edges"]) from None
        return len(nodes) + len(edges)
    if not isinstance(content, list) or not 1 <= len(content) <= MAX_DOCUMENTS:
        raise invalid(loc, f"a corpus is a list of 1 to {MAX_DOCUMENTS} documents {{doc_id, text, title?}}")
    try:
        docs = TypeAdapter(list[D.CorpusDocument]).validate_python(content)
    except ValidationError as exc:
        raise _pydantic_errors(exc, loc) from None
    seen: set[str] = set()
    for i, d in enumerate(docs):
        if d.doc_id in seen:
            raise invalid(loc + [i, "doc_id"], f"duplicate doc_id {d.doc_id!r}")
        seen.add(d.doc_id)
    return len(docs)


@dataclass
class Upload:
    upload_id: str
    tenant: str
    kind: str
    name: str
    parts: list[str] = field(default_factory=list)
    chars: int = 0
    touched: float = field(default_factory=time.monotonic)


class DatasetStore:
    """Per-tenant, versioned datasets on top of a receipt store (any engine)."""

    def __init__(self, receipt_log: Any, base: Path) -> None:
        self.log = receipt_log
        self.base = base
        self.index: dict[str, dict[str, list[dict[str, Any]]]] = {}  # tenant -> "kind/name" -> versions
        self.uploads: dict[str, Upload] = {}
        self.readers: dict[tuple[str, str, str], dict[str, dict[str, Any]]] = {}  # -> action_id -> read
        self.on_commit: list[Committed] = []
        self._locks: dict[tuple[str, str, str], asyncio.Lock] = {}
        self._committing: set[str] = set()  # chunk refs this process is committing (its own records)
        self._last_read: tuple[Any, str] = (None, "")
        self._tasks: set[asyncio.Task] = set()

    # -- start-up and other replicas ----------------------------------------------------------

    def rebuild(self) -> None:
        """The index from the log's version records; a cache file that is missing is written again."""
        for rec in self.log.get_ref(INDEX_REF):
            meta = self._meta(rec)
            if self._add(rec.tenant, meta):
                self._materialize(rec.tenant, meta, self._chunks(rec.tenant, meta))
        for tenant in self.index:
            self._write_index(tenant)
        self.log.add_listener(self._on_records)

    @staticmethod
    def _meta(rec: Record) -> dict[str, Any]:
        return {**rec.payload, "created_at": rec.ts, "receipt": {"seq": rec.seq, "hash": rec.hash}}

    def _add(self, tenant: str, meta: dict[str, Any]) -> bool:
        """Put a version in the in-memory index; False when it is known already."""
        versions = self.index.setdefault(tenant, {}).setdefault(f"{meta['kind']}/{meta['name']}", [])
        if any(v["version"] == meta["version"] for v in versions):
            return False
        versions.append(meta)
        versions.sort(key=lambda v: v["version"])
        return True

    def _chunks(self, tenant: str, meta: dict[str, Any]) -> list[tuple[int, str]]:
        ref = chunk_ref(tenant, meta["kind"], meta["name"], meta["version"])
        return sorted((r.payload["index"], r.payload["data"]) for r in self.log.get_ref(ref) if r.tenant == tenant)

    def _materialize(self, tenant: str, meta: dict[str, Any], chunks: list[tuple[int, str]]) -> None:
        """Write a version's cache file from its chunk records (checked against its sha256)."""
        path = D.content_path(self.base, tenant, meta["kind"], meta["name"], meta["version"])
        if not path.exists():
            D.write_atomic(path, _joined(meta, chunks).encode())

    def _on_records(self, records: list[Record]) -> None:
        """Log listener: versions committed by another replica, and which action read what."""
        for rec in records:
            if rec.type != "receipt":
                continue
            if rec.name == "dataset_version":
                meta = self._meta(rec)
                ref = chunk_ref(rec.tenant, meta["kind"], meta["name"], meta["version"])
                if ref not in self._committing:  # ours: _commit writes the cache off the event loop
                    task = asyncio.get_running_loop().create_task(self._learn_foreign(rec.tenant, meta))
                    self._tasks.add(task)
                    task.add_done_callback(self._tasks.discard)
            elif rec.name == "dataset_read" and rec.action_id:
                p = rec.payload
                key = (rec.tenant, str(p.get("kind")), str(p.get("name")))
                held = self.readers.setdefault(key, {}).get(rec.action_id)
                if held is None or int(p.get("version", 0)) >= held["version"]:
                    self.readers[key][rec.action_id] = {"version": int(p.get("version", 0)),
                                                        "refresh": p.get("refresh", "manual")}

    async def _learn_foreign(self, tenant: str, meta: dict[str, Any]) -> None:
        """Another replica's version: cache file first (off the loop), then the index that names it."""
        try:
            await asyncio.to_thread(self._materialize, tenant, meta, self._chunks(tenant, meta))
            if self._add(tenant, meta):
                await asyncio.to_thread(self._write_index, tenant)
        except Exception:
            log.exception("dataset_learn_failed", kind=meta.get("kind"), name=meta.get("name"))

    def _text_from_log(self, tenant: str, meta: dict[str, Any]) -> str:
        return _joined(meta, self._chunks(tenant, meta))

    def _write_index(self, tenant: str) -> None:
        data = json.dumps(self.index.get(tenant, {}), sort_keys=True, separators=(",", ":")).encode()
        D.write_atomic(D.tenant_dir(self.base, tenant) / "index.json", data)

    # -- datasets.put ---------------------------------------------------------------------------

    async def put(self, tenant: str, subject: str, p: Any) -> dict[str, Any]:
        """One ``datasets.put`` call: a whole content, or one chunk of an upload."""
        if p.content is not None:
            if p.upload_id is not None:
                raise invalid(["upload_id"], "upload_id goes with chunk, not with content")
            return await self._commit(tenant, subject, p.kind, p.name, p.content, ["content"])
        chunk = p.chunk
        self._expire()
        if p.upload_id is None:
            if chunk.index != 0:
                raise invalid(["chunk", "index"], "an upload starts with chunk index 0 (and no upload_id)")
            if sum(1 for u in self.uploads.values() if u.tenant == tenant) >= MAX_UPLOADS:
                raise RpcError(E.CONFLICT, f"too many open uploads for this tenant ({MAX_UPLOADS}): finish or wait "
                                           f"{int(UPLOAD_IDLE_S)} s for idle ones to expire")
            up = Upload("upl_" + secrets.token_hex(10), tenant, p.kind, p.name)
            self.uploads[up.upload_id] = up
        else:
            up = self.uploads.get(p.upload_id)
            if up is None or up.tenant != tenant:
                raise RpcError(E.NOT_FOUND, f"unknown upload {p.upload_id} (expired, committed, or never begun)")
            if (up.kind, up.name) != (p.kind, p.name):
                raise invalid(["name"], f"upload {up.upload_id} is for {up.kind} dataset {up.name!r}")
            if chunk.index == len(up.parts) - 1 and up.parts[-1] == chunk.data and not chunk.final:
                return self._progress(up)  # a resent chunk (the answer was lost): same answer
            if chunk.index != len(up.parts):
                raise invalid(["chunk", "index"], f"expected chunk index {len(up.parts)}, got {chunk.index}")
        held = sum(u.chars for u in self.uploads.values() if u.tenant == tenant)  # memory is bounded per tenant
        if held + len(chunk.data) > MAX_CHARS or len(up.parts) >= MAX_CHUNKS:
            self.uploads.pop(up.upload_id, None)
            raise RpcError(E.TOO_LARGE, f"more than {MAX_CHARS} characters in this tenant's open uploads, or more "
                                        f"than {MAX_CHUNKS} chunks: the upload is dropped",
                           {"max_chars": MAX_CHARS, "max_chunks": MAX_CHUNKS})
        up.parts.append(chunk.data)
        up.chars += len(chunk.data)
        up.touched = time.monotonic()
        if not chunk.final:
            return self._progress(up)
        self.uploads.pop(up.upload_id, None)
        text = "".join(up.parts)
        try:
            content = json.loads(text)
        except ValueError as exc:
            raise invalid(["chunk", "data"], f"the assembled chunks are not JSON: {exc}") from None
        result = await self._commit(tenant, subject, p.kind, p.name, content, ["content"])
        return {**result, "upload_id": up.upload_id}

    def _progress(self, up: Upload) -> dict[str, Any]:
        return {"upload_id": up.upload_id, "committed": False, "next_index": len(up.parts), "chars": up.chars}

    def _expire(self) -> None:
        now = time.monotonic()
        for uid in [u.upload_id for u in self.uploads.values() if now - u.touched > UPLOAD_IDLE_S]:
            self.uploads.pop(uid, None)

    async def _commit(self, tenant: str, subject: str, kind: str, name: str, content: Any,
                      loc: list[Any]) -> dict[str, Any]:
        items = await asyncio.to_thread(validate_content, kind, content, loc)
        try:
            text = canonical_json(content).decode()
        except ValueError as exc:
            raise invalid(loc, f"not representable as canonical JSON: {exc}") from None
        sha = hashlib.sha256(text.encode()).hexdigest()
        key = (tenant, kind, name)
        async with self._locks.setdefault(key, asyncio.Lock()):
            versions = self.index.get(tenant, {}).get(f"{kind}/{name}", [])
            if versions and versions[-1]["sha256"] == sha:
                return {**versions[-1], "committed": True, "unchanged": True}
            version = versions[-1]["version"] + 1 if versions else 1
            pieces = [text[i:i + STORE_CHARS] for i in range(0, len(text), STORE_CHARS)]
            ref = chunk_ref(tenant, kind, name, version)
            entries = [Entry("receipt", "dataset_chunk", tenant, {"kind": kind, "name": name, "version": version,
                                                                   "index": i, "count": len(pieces), "data": piece},
                             ref=ref) for i, piece in enumerate(pieces)]
            meta = {"kind": kind, "name": name, "version": version, "sha256": sha, "bytes": len(text.encode()),
                    "chars": len(text), "chunks": len(pieces), "items": items, "created_by": subject}
            entries.append(Entry("receipt", "dataset_version", tenant, meta, ref=INDEX_REF))
            self._committing.add(ref)
            try:
                records = await self.log.append(entries)
                await asyncio.to_thread(D.write_atomic,
                                        D.content_path(self.base, tenant, kind, name, version), text.encode())
                self._add(tenant, self._meta(records[-1]))
            finally:
                self._committing.discard(ref)
            await asyncio.to_thread(self._write_index, tenant)
        full = self.index[tenant][f"{kind}/{name}"][-1]
        log.info("dataset_committed", tenant=tenant, kind=kind, name=name, version=version, sha256=sha)
        for hook in self.on_commit:
            try:
                await hook(tenant, full)
            except Exception:
                log.exception("dataset_commit_hook_failed", kind=kind, name=name, version=version)
        return {**full, "committed": True, "unchanged": False}

    # -- datasets.list / datasets.get ----------------------------------------------------------

    def list(self, tenant: str, kind: str | None) -> dict[str, Any]:
        out = []
        for key, versions in sorted(self.index.get(tenant, {}).items()):
            if kind is None or key.startswith(kind + "/"):
                latest = versions[-1]
                out.append({"kind": latest["kind"], "name": latest["name"], "versions": len(versions),
                            "latest": latest})
        return {"datasets": out}

    async def get(self, tenant: str, kind: str, name: str, version: int | None, offset: int | None) -> dict[str, Any]:
        versions = self.index.get(tenant, {}).get(f"{kind}/{name}")
        if not versions:
            raise RpcError(E.NOT_FOUND, f"no {kind} dataset {name!r}")
        meta = versions[-1] if version is None else next((v for v in versions if v["version"] == version), None)
        if meta is None:
            raise RpcError(E.NOT_FOUND, f"{kind} dataset {name!r} has no version {version}",
                           {"versions": [v["version"] for v in versions]})
        key = (tenant, kind, name, meta["version"])
        if self._last_read[0] != key:  # a paged read asks for one version many times: keep the last one
            path = D.content_path(self.base, tenant, kind, name, meta["version"])
            try:
                text = (await asyncio.to_thread(path.read_bytes)).decode()
            except FileNotFoundError:
                text = self._text_from_log(tenant, meta)
            self._last_read = (key, text)
        text = self._last_read[1]
        result: dict[str, Any] = {"dataset": meta, "versions": [v["version"] for v in versions]}
        if offset is None and len(text) <= INLINE_CHARS:
            result["content"] = json.loads(text)
            return result
        start = offset or 0
        if start > len(text):
            raise invalid(["offset"], f"offset {start} is past the end ({len(text)} characters)")
        page = {"offset": start, "data": text[start:start + PAGE_CHARS], "total_chars": len(text)}
        if start + PAGE_CHARS < len(text):
            page["next_offset"] = start + PAGE_CHARS
        result["page"] = page
        return result

    def readers_of(self, tenant: str, kind: str, name: str) -> dict[str, dict[str, Any]]:
        return dict(self.readers.get((tenant, kind, name), {}))


def _joined(meta: dict[str, Any], chunks: list[tuple[int, str]]) -> str:
    text = "".join(p for _, p in chunks)
    if hashlib.sha256(text.encode()).hexdigest() != meta["sha256"]:
        raise RuntimeError(f"dataset {meta['kind']}/{meta['name']} v{meta['version']}: chunks do not match sha256")
    return text


def chunk_ref(tenant: str, kind: str, name: str, version: int) -> str:
    """The ref shared by one version's chunk records (an indexed read gets them all)."""
    return "dataset:" + hashlib.sha256(f"{tenant}\x1f{kind}\x1f{name}\x1f{version}".encode()).hexdigest()[:40]


async def offer_updates(scheduler: Any, store: DatasetStore, tenant: str, meta: dict[str, Any]) -> None:
    """A new version: every ended action of the tenant that read an older one is offered it as an
    ``update_available`` (``actions.accept_update`` takes it); ``refresh: "auto"`` readers re-run now."""
    for aid, read in sorted(store.readers_of(tenant, meta["kind"], meta["name"]).items()):
        a = scheduler.actions.get(aid)
        if a is not None and a.tenant == tenant:
            await _offer(scheduler, a, meta, read)


async def offer_on_end(scheduler: Any, store: DatasetStore, a: Any) -> None:
    """An action that was still running when a newer version of what it read was committed is
    offered it once its end is durable."""
    await a.wait_ended()
    for (tenant, kind, name), readers in list(store.readers.items()):
        read = readers.get(a.action_id)
        versions = store.index.get(tenant, {}).get(f"{kind}/{name}") if read is not None else None
        if versions and tenant == a.tenant:
            await _offer(scheduler, a, versions[-1], read)


async def _offer(scheduler: Any, a: Any, meta: dict[str, Any], read: dict[str, Any]) -> None:
    from orchestrator.lifecycle import Status

    dep = f"dataset:{meta['kind']}:{meta['name']}"
    if read["version"] >= meta["version"] or a.status not in (Status.COMPLETED, Status.PARTIAL) \
            or a.updates.get(dep, 0) >= meta["version"]:
        return
    a.updates[dep] = meta["version"]
    await scheduler.outbox.commit([scheduler.event(a, "action_notice", {
        "dependency_id": dep, "revision": meta["version"], "held_revision": read["version"],
        "dataset": {k: meta[k] for k in ("kind", "name", "version", "sha256")}}, kind="update_available")])
    if read.get("refresh") == "auto":
        await scheduler.accept_update(a, dep)
