"""The storage interface of the receipt log: what the service above it may rely on.

One protocol, one driver per engine: ``receipts.log.ReceiptLog`` keeps the log in SQLite under the
data directory (the embedded default); ``receipts.postgres.PostgresReceiptLog`` keeps it in
PostgreSQL, shared by several replicas. Both write the same records (``receipts.log.build_body``),
the same hash chain, the same RFC 9162 Merkle tree and the same Ed25519 signed tree heads, so a
record's bytes, hash and proofs do not depend on the engine that stored it.
"""

from __future__ import annotations

import asyncio
import os
import queue
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import structlog

from receipts.log import Entry, Record
from receipts.merkle import MerkleTree
from receipts.proofs import TreeProofs
from receipts.verify import VerifyReport

Listener = Callable[[list[Record]], None]
_log = structlog.get_logger("metis.receipts")
POSTGRES_SCHEMES = ("postgresql://", "postgres://")


class StorageUnavailable(RuntimeError):
    """The storage engine cannot be reached (or refused a write) right now; retrying later may work.

    Carries ``code`` ``storage_unavailable`` and ``retryable`` so the service answers a clear,
    retryable error instead of an internal one."""

    code = "storage_unavailable"
    retryable = True


@dataclass(frozen=True)
class Fence:
    """What a worker shows on append in the distributed mode: the action and the epoch of its claim
    (``receipts.workqueue``). The append is refused unless the action's job is still running under
    that epoch."""

    action_id: str
    epoch: int


class FencedOut(RuntimeError):
    """An append's fence is stale: the worker lost its lease and the action belongs to another
    worker now. Not retryable; the worker must stop working on that action."""

    code = "fenced_out"
    retryable = False


@runtime_checkable
class ReceiptStore(Protocol):
    """Append, read, prove: the receipt log as the scheduler, ToolBus and gateway use it."""

    retained_from: int
    appended_total: int
    commits_total: int

    def open(self) -> None: ...
    def close(self) -> None: ...
    def bind_loop(self, loop: asyncio.AbstractEventLoop) -> None: ...
    def add_listener(self, listener: Listener) -> None:
        """Called (on the bound loop) with every committed batch, in seq order, once each; with several
        replicas this includes the records other replicas appended."""

    @property
    def last_seq(self) -> int: ...
    @property
    def tree_size(self) -> int: ...

    def submit(self, entries: list[Entry]) -> None: ...
    async def append(self, entries: list[Entry]) -> list[Record]: ...
    def append_sync(self, entries: list[Entry]) -> list[Record]: ...

    def read_stream(self, tenant: str, topic: str, after_seq: int, limit: int = 500) -> list[Record]: ...
    def first_stream_seq(self, tenant: str, topic: str) -> int | None: ...
    def read_action(self, action_id: str, types: Sequence[str] | None = None) -> list[Record]: ...
    def read_range(self, from_seq: int, to_seq: int, limit: int = 1000) -> list[Record]: ...
    def get(self, seq: int) -> Record | None: ...
    def get_ref(self, ref: str) -> list[Record]: ...
    def iter_control(self) -> Iterator[Record]: ...

    def sign_tree_head(self) -> dict[str, Any]: ...
    async def sign_tree_head_async(self) -> dict[str, Any]: ...
    def inclusion_proof(self, seq: int, sth: dict[str, Any]) -> dict[str, Any]: ...
    def consistency_proof(self, old_size: int, new_size: int | None = None) -> list[str]: ...


STOP = object()  # put on a driver's queue: drain what is before it, then stop the writer


class LogCore(TreeProofs):
    """What the drivers share above their engine: the writer queue (appends and tree-head signing
    requests, taken in batches), acknowledging appenders on their loop, listeners, and the
    in-memory Merkle tree with its proofs. A driver supplies ``get`` and its writer thread."""

    _tree: MerkleTree
    _tree_lock: threading.Lock
    _queue: queue.SimpleQueue[Any]
    _loop: asyncio.AbstractEventLoop | None
    _listeners: list[Listener]
    max_batch: int

    _writer: threading.Thread | None

    def _drain_writer(self) -> None:
        """Let the writer commit what is queued, sign a last tree head, and stop."""
        if self._writer is not None:
            self._queue.put(("sign", Future()))
            self._queue.put(STOP)
            self._writer.join()
            self._writer = None

    def _take_batch(self, first: Any) -> tuple[list[tuple[Any, ...]], list[Future], bool]:
        """``first`` and whatever else waits, up to ``max_batch`` records: (appends, sign requests, stop seen)."""
        appends: list[tuple[Any, ...]] = []
        signs: list[Future] = []
        count, item = 0, first
        while True:
            if item[0] == "append":
                appends.append(item)
                count += len(item[1])
            else:
                signs.append(item[1])
            if count >= self.max_batch:
                return appends, signs, False
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                return appends, signs, False
            if item is STOP:
                return appends, signs, True

    def _acknowledge(self, results: list[tuple[Any, Any]]) -> None:
        """Settle appenders' futures (thread futures here, loop futures in one callback on their loop);
        fire-and-forget appends (no future) that failed are logged."""
        on_loop = []
        for fut, res in results:
            if fut is None:
                if isinstance(res, Exception):
                    _log.error("log_append_failed", error=str(res))
            elif isinstance(fut, Future):
                fut.set_exception(res) if isinstance(res, Exception) else fut.set_result(res)
            else:
                on_loop.append((fut, res))
        loop = self._loop or (on_loop[0][0].get_loop() if on_loop else None)
        if on_loop and loop is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(_settle, on_loop)
            except RuntimeError:  # the loop closed meanwhile: nobody waits any more
                pass

    def bind_loop(self, loop: asyncio.AbstractEventLoop) -> None:
        """Listeners (and appenders' futures) are called on this loop."""
        self._loop = loop

    def add_listener(self, listener: Listener) -> None:
        self._listeners.append(listener)


def _settle(pairs: list[tuple[asyncio.Future, Any]]) -> None:
    for fut, res in pairs:
        if not fut.done():
            fut.set_exception(res) if isinstance(res, Exception) else fut.set_result(res)


def is_postgres_url(url: str | None) -> bool:
    return bool(url) and url.startswith(POSTGRES_SCHEMES)  # type: ignore[union-attr]


def open_store(database_url: str | None, data_dir: Path, keys_dir: Path | None = None) -> ReceiptStore:
    """The driver for ``database_url`` (not opened yet): PostgreSQL for a ``postgresql://`` URL, else
    the embedded SQLite log under ``data_dir``. ``keys_dir`` holds the signing key all replicas share
    (PostgreSQL only: the embedded log keeps its key in the data directory)."""
    if is_postgres_url(database_url):
        from receipts.postgres import PostgresReceiptLog

        retry_s = float(os.environ.get("METIS_DATABASE_RETRY_S", "10"))  # appends wait this long for the database
        return PostgresReceiptLog(database_url, keys_dir or data_dir, retry_window_s=retry_s)  # type: ignore[arg-type]
    if database_url:
        raise ValueError(f"unsupported database URL {database_url.split('://')[0]}://...: "
                         "use postgresql://, or no URL for the embedded SQLite log")
    from receipts.log import ReceiptLog

    return ReceiptLog(data_dir)


def verify_store(store: ReceiptStore, from_seq: int = 1, to_seq: int | None = None,
                 tenant: str | None = None) -> VerifyReport:
    """Verify an open store's records offline-style (chain, bodies, Merkle root against every signed
    tree head), whatever the engine, from one consistent snapshot. With ``tenant``, the report
    speaks of that tenant's records only (``receipts.verify.verify_connection``)."""
    verify = getattr(store, "verify", None)
    if verify is not None:
        return verify(from_seq, to_seq, tenant=tenant)
    from receipts.verify import verify_data_dir

    durable = store.last_seq  # the file may hold a commit still being synced: not reported before it is durable
    to_seq = durable if to_seq is None else min(to_seq, durable)
    return verify_data_dir(store.data_dir, from_seq, to_seq, tenant=tenant)  # type: ignore[attr-defined]
