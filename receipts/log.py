"""The WORM receipt log: append-only SQLite, hash-chained, Merkle-covered, group-committed.

One record per event, receipt, state change, trace entry, artifact, approval and reflect call.
A record's ``body`` is the RFC 8785 canonical JSON of its fields plus the previous record's hash;
its ``hash`` is SHA-256 of the body; its Merkle leaf is the RFC 9162 leaf hash of the body.

Appends are queued to one writer thread that takes everything waiting and writes it in one
transaction (group commit) without syncing; a syncer thread then syncs the WAL once for every
transaction committed since its last sync (``receipts.walsync``), and only then are the records
published (``last_seq``, reads, listeners) and their appenders acknowledged, so an acknowledged
record is on disk, and the next batch is written while the disk flushes the last one. A fourth
thread checkpoints the WAL (``receipts.walsync.WalCheckpointer``), so no commit carries a
checkpoint. What does not depend on a record's place in the chain (its payload's canonical JSON,
the header strings) is encoded by the appender (``body_parts``); the writer splices in prev, seq
and ts, byte for byte what the general path writes. Readers use
their own connection (WAL lets them read while the writer writes) and never read past
``last_seq``. Nothing in this module updates or deletes a record, and SQLite triggers refuse any
attempt to.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import queue
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import structlog

from receipts.action_index import STREAMS, ActionIndex
from receipts.canonical import canonical_json, canonical_record, canonical_text, parse_canonical
from receipts.merkle import FrontierTree, leaf_hash, subtree_hash
from receipts.proofs import TreeProofs
from receipts.signing import TreeHeadSigner
from receipts.walsync import WalCheckpointer, WalSync

log = structlog.get_logger("metis.receipts")
GENESIS_HASH = "0" * 64
SQLITE_INT_LIMIT = 2**63  # SQLite INTEGER is signed 64-bit; larger seqs are refused as sqlite3 refuses them
SCHEMA = """
CREATE TABLE IF NOT EXISTS records (
  seq INTEGER PRIMARY KEY,
  type TEXT NOT NULL,
  name TEXT NOT NULL,
  tenant TEXT NOT NULL,
  topic TEXT,
  action_id TEXT,
  ref TEXT,
  stream TEXT,
  body BLOB NOT NULL,
  hash TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS records_ref ON records(ref) WHERE ref IS NOT NULL;
CREATE INDEX IF NOT EXISTS records_control ON records(type, seq) WHERE type IN ('state', 'approval');
CREATE TRIGGER IF NOT EXISTS records_no_update BEFORE UPDATE ON records
  BEGIN SELECT RAISE(ABORT, 'records are append-only'); END;
CREATE TRIGGER IF NOT EXISTS records_no_delete BEFORE DELETE ON records
  BEGIN SELECT RAISE(ABORT, 'records are append-only'); END;
CREATE TABLE IF NOT EXISTS tree_heads (tree_size INTEGER PRIMARY KEY, body TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS merkle_nodes (
  level INTEGER NOT NULL,
  idx INTEGER NOT NULL,
  hash BLOB NOT NULL,
  PRIMARY KEY (level, idx)
) WITHOUT ROWID;
CREATE TRIGGER IF NOT EXISTS merkle_nodes_no_update BEFORE UPDATE ON merkle_nodes
  BEGIN SELECT RAISE(ABORT, 'merkle nodes are append-only'); END;
CREATE TRIGGER IF NOT EXISTS merkle_nodes_no_delete BEFORE DELETE ON merkle_nodes
  BEGIN SELECT RAISE(ABORT, 'merkle nodes are append-only'); END;
"""
# Complete Merkle subtrees of 2^PERSIST_LEVEL leaves and more are stored (about one row per 8
# records), written in the transaction of the records that complete them; smaller ones are
# hashed from at most 2^(PERSIST_LEVEL-1) records when a proof needs them.
PERSIST_LEVEL = 4
# WAL frames between checkpoints (SQLite's default is 1000). Small: a checkpoint leaves what it copied
# dirty in the database file until its sync, and WAL syncs made meanwhile were slower. In turns on a busy
# disk (100 appenders, three turns each), 1000 -> 250 took the mean WAL sync from 2.2, 1.6, 1.5 to 1.5,
# 1.1, 1.2 ms and 250 -> 100 from 2.1, 1.6, 2.8 to 1.1, 1.0, 1.0 ms, with more appends per second in
# every turn.
CHECKPOINT_PAGES = 100
GATE = 4  # the checkpointer makes the writer pause for the WAL's reset once it holds this many times checkpoint_pages
BACKSTOP = 16  # the writer checkpoints itself only once the WAL holds this many times checkpoint_pages
PAGE = 4096
ROW_BYTES = 120  # a row's columns besides the body
INSERT_NODE = "INSERT INTO merkle_nodes (level, idx, hash) VALUES (?, ?, ?)"
INSERT = (
    "INSERT INTO records (seq, type, name, tenant, topic, action_id, ref, stream, body, hash) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
COLUMNS = "seq, type, name, tenant, topic, action_id, ref, stream, body, hash"
TREE_HEAD_FILE = "tree_head.json"
DB_FILE = "receipts.sqlite3"


def commit_frames(body_bytes: int, rows: int) -> float:
    """WAL frames a commit writes, estimated (measured: 50 records of 330-byte bodies wrote 18-21):
    its rows' bytes over partly filled pages, plus the pages every commit rewrites (the Merkle
    nodes' right edge at each level, the index runs, page 1)."""
    return 1.4 * (body_bytes + ROW_BYTES * rows) / PAGE + 10


def stream_key(tenant: str, topic: str) -> str:
    """Index key of a tenant's topic: tenants never share a stream even with equal topic names."""
    return f"{tenant}\x1f{topic}"


def utc_now() -> str:
    """RFC 3339 UTC timestamp with microseconds (the ``ts`` of records). ``isoformat`` writes the
    same bytes as ``strftime("%Y-%m-%dT%H:%M:%S.%fZ")`` for years 1000-9999, about 3x faster."""
    return datetime.now(UTC).isoformat(timespec="microseconds")[:-6] + "Z"


@dataclass(slots=True)
class Entry:
    """What an appender asks to write; the log adds seq, ts and the chain. Not changed once
    appended (not ``frozen``: a frozen dataclass's ``__init__`` costs 2.3 us against 0.4 us, paid
    for every record on the event loop)."""

    type: str
    name: str
    tenant: str
    payload: dict[str, Any]
    topic: str | None = None
    action_id: str | None = None
    ref: str | None = None
    stream: bool = False


@dataclass(slots=True)
class Record:
    """A durable record as stored."""

    seq: int
    type: str
    name: str
    tenant: str
    topic: str | None
    action_id: str | None
    ref: str | None
    stream: str | None
    body: bytes
    hash: str
    _fields: dict[str, Any] | None = field(default=None, repr=False)
    sse: bytes | None = field(default=None, repr=False)  # encoded once, sent to every subscriber

    @property
    def fields(self) -> dict[str, Any]:
        """The parsed body: v, seq, ts, type, name, tenant, topic, action_id, ref, payload, prev."""
        if self._fields is None:
            self._fields = parse_canonical(self.body)
        return self._fields

    @property
    def payload(self) -> dict[str, Any]:
        return self.fields["payload"]

    @property
    def ts(self) -> str:
        return self.fields["ts"]

    def as_receipt(self) -> dict[str, Any]:
        """The reviewer's view: every field plus the record hash."""
        return {**self.fields, "hash": self.hash}

    @classmethod
    def from_row(cls, row: Sequence[Any]) -> Record:
        return cls(row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7], bytes(row[8]), row[9])


BodyParts = tuple[bytes, bytes, bytes, bytes]
SAFE_SEQ = 2**53 - 1  # a larger seq is not an exact JSON number: the general path refuses it


def body_parts(entry: Entry) -> BodyParts | None:
    """The bytes of an entry's body that do not depend on its place in the log, in the order
    RFC 8785 sorts the keys (action_id, name, payload, prev, ref, seq, tenant, topic, ts, type, v):
    ``splice_body`` puts prev, seq and ts between them. Computed once per entry, by the appender,
    so the writer (one thread for every append) only joins bytes. None: a header value only the
    general path can vouch for. Raises ValueError for a payload that is not JSON."""
    action_id, name, ref = canonical_text(entry.action_id), canonical_text(entry.name), canonical_text(entry.ref)
    tenant, topic, kind = canonical_text(entry.tenant), canonical_text(entry.topic), canonical_text(entry.type)
    payload = canonical_json(entry.payload)
    if action_id is None or name is None or ref is None or tenant is None or topic is None or kind is None:
        return None
    return (b'{"action_id":' + action_id + b',"name":' + name + b',"payload":' + payload + b',"prev":"',
            b'","ref":' + ref + b',"seq":',
            b',"tenant":' + tenant + b',"topic":' + topic + b',"ts":',
            b',"type":' + kind + b',"v":1}')


def splice_body(parts: BodyParts, seq: int, ts_json: bytes, prev: str) -> bytes:
    """A body from ``body_parts``: ``prev`` is a hex digest, ``ts_json`` the JSON string of the ts,
    ``seq`` at most ``SAFE_SEQ``."""
    return b"".join((parts[0], prev.encode(), parts[1], str(seq).encode(), parts[2], ts_json, parts[3]))


def build_body(seq: int, ts: str, entry: Entry, prev: str, parts: BodyParts | None = None) -> bytes:
    """Canonical bytes of one record; the single definition used by append and verify: spliced
    from ``body_parts`` (given, or computed here) where they vouch for it, else the general path."""
    if parts is None:
        parts = body_parts(entry)
    ts_json = canonical_text(ts)
    if parts is not None and ts_json is not None and type(seq) is int and 0 <= seq <= SAFE_SEQ \
            and type(prev) is str and prev.isascii() and prev.isalnum():
        return splice_body(parts, seq, ts_json, prev)
    return canonical_record(
        {
            "v": 1,
            "seq": seq,
            "ts": ts,
            "type": entry.type,
            "name": entry.name,
            "tenant": entry.tenant,
            "topic": entry.topic,
            "action_id": entry.action_id,
            "ref": entry.ref,
            "prev": prev,
        },
        "payload",
        entry.payload,
    )


def prepare(entries: list[Entry]) -> list[BodyParts | None]:
    """``body_parts`` of each entry, on the appender's side; a payload that is not JSON fails the
    whole append here (nothing of it is queued) with the error the writer used to give."""
    try:
        return [body_parts(e) for e in entries]
    except Exception as exc:
        raise ValueError(f"record not appendable: {exc}") from exc


def connect(path: Path, readonly: bool = False) -> sqlite3.Connection:
    """A connection with the log's pragmas: WAL, synchronous=FULL (every commit is fsynced)."""
    if readonly:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
    else:
        conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=FULL")
    conn.execute("PRAGMA busy_timeout=5000")
    return conn


_STOP = object()
Listener = Callable[[list[Record]], None]


def split_point(sizes: list[int], min_half: int) -> int:
    """Where to cut a batch of appends (their record counts, in order) into two commits of about
    equal records, each of at least ``min_half`` records; 0: not at all. An append is never cut."""
    if min_half <= 0 or len(sizes) < 2:
        return 0
    total, acc, i = sum(sizes), 0, 0
    for i in range(len(sizes) - 1):
        acc += sizes[i]
        if 2 * acc >= total:
            break
    return i + 1 if min(acc, total - acc) >= min_half else 0


@dataclass(slots=True)
class _Commit:
    """A transaction the writer committed (``tree`` None: it failed), on its way to the syncer;
    its appenders are answered once a sync that began after it returned has finished."""

    seq: int
    tree: FrontierTree | None
    results: list[tuple[Any, list[Record] | Exception]]
    records: list[Record]


@dataclass(slots=True)
class WriterStats:
    """Where the writer's and the syncer's time goes (seconds, cumulative): what the benchmark
    reports per record. A few clock reads per commit."""

    writer_cpu_s: float = 0.0  # the writer thread's CPU (building records, SQLite)
    build_s: float = 0.0  # wall time building bodies, hashes, Merkle nodes
    sqlite_s: float = 0.0  # wall time in INSERT ... COMMIT (no sync)
    syncer_cpu_s: float = 0.0
    sync_s: float = 0.0  # wall time in fdatasync
    syncs: int = 0
    deliver_delay_s: float = 0.0  # sync finished -> the loop's callback runs (the hand-back)
    deliveries: int = 0


class ReceiptLog(TreeProofs):
    """Append, read, prove. Call ``open()`` first and ``close()`` at the end.

    Three stages, each in its own thread: appenders queue entries (event loop); the writer builds
    records and commits them without syncing; the syncer syncs the WAL once for every commit made
    since its last sync, then publishes them (``last_seq``, the tree, reads) and answers their
    appenders. While one sync runs the writer commits the next batch. When the syncer is idle the
    writer commits a large batch in two halves, so the first half's sync overlaps the second's
    writing (``split_min``: the smallest half; 0 never splits). ``checkpoint_pages``: the pages
    written to the WAL (as the writer estimates them) after which a fourth thread checkpoints it
    (``receipts.walsync.WalCheckpointer``; 0: never, as SQLite's ``wal_autocheckpoint``); a
    commit checkpoints only if the WAL grows to ``BACKSTOP`` times that.
    ``action_index_every``: records between bulk writes of the action index, ``action_index_slice``:
    the smallest part of one written in a commit (``receipts.action_index``)."""

    def __init__(self, data_dir: Path, max_batch: int = 4096, split_min: int = 16,
                 checkpoint_pages: int = CHECKPOINT_PAGES, action_index_every: int = 2048,
                 action_index_slice: int = 16) -> None:
        self.data_dir = Path(data_dir)
        self.path = self.data_dir / DB_FILE
        self.max_batch = max_batch
        self.split_min = split_min
        self.checkpoint_pages = checkpoint_pages
        self._actions = ActionIndex(action_index_every, action_index_slice)
        self._streams = ActionIndex(action_index_every, action_index_slice, STREAMS)
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._synq: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._listeners: list[Listener] = []
        self._tree = FrontierTree(0, {}, self._load_node, PERSIST_LEVEL)
        self._tree_lock = threading.Lock()
        self._last_seq = 0  # durable: synced, published, readable
        self._tail: tuple[int, str, FrontierTree] = (0, GENESIS_HASH, self._tree)  # the writer's: committed
        self._handed = 0  # commits handed to the syncer (written by the writer only)
        self._answered = 0  # of those, answered by the syncer (written by the syncer only)
        self._broken: Exception | None = None  # a failed sync: nothing more is acknowledged
        self._wal = WalSync(self.path)
        self._checkpointer: WalCheckpointer | None = None
        self._gate = threading.Lock()  # held by the writer around each transaction (WalCheckpointer)
        self._unchecked = 0.0  # pages written since the last checkpoint request (writer's estimate)
        self._writer: threading.Thread | None = None
        self._syncer: threading.Thread | None = None
        self._reader: sqlite3.Connection | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.signer: TreeHeadSigner | None = None
        self.retained_from = 1  # records are never deleted: all history is retained
        self.appended_total = 0
        self.commits_total = 0
        self.stats = WriterStats()

    # -- lifecycle -----------------------------------------------------------------------------

    def open(self) -> None:
        """Create or open the log, load the Merkle tree's right edge, check the chain tail, start
        the writer. Constant time in the log's size: only the last record and O(log n) stored
        nodes are read (a log written before nodes were stored gets them once, here). Older
        records are checked by ``metis receipts verify``, offline."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        conn = connect(self.path)
        conn.executescript(SCHEMA)
        self._actions.load(conn)
        self._streams.load(conn)
        last = conn.execute("SELECT MAX(seq) FROM records").fetchone()[0] or 0
        prev = GENESIS_HASH
        if last:
            body, hsh = conn.execute("SELECT body, hash FROM records WHERE seq = ?", (last,)).fetchone()
            body = bytes(body)
            if hashlib.sha256(body).hexdigest() != hsh or parse_canonical(body)["seq"] != last:
                raise RuntimeError(f"receipt log damaged at record {last}")
            prev = hsh
            if last >= 1 << PERSIST_LEVEL and conn.execute(
                    "SELECT 1 FROM merkle_nodes WHERE level = ? AND idx = ?",
                    (PERSIST_LEVEL, (last >> PERSIST_LEVEL) - 1)).fetchone() is None:
                self._store_all_nodes(conn, last)
        frontier = {k: self._load_node(k, (last >> k) - 1, conn)
                    for k in range(last.bit_length()) if last >> k & 1}
        self._tree = FrontierTree(last, frontier, self._load_node, PERSIST_LEVEL)
        self._last_seq = last
        self._tail = (last, prev, self._tree)
        conn.close()
        self._reader = connect(self.path)
        if self._wal.path.exists():  # what an earlier process committed is on disk before it is read
            self._wal.sync()
        self.signer = TreeHeadSigner.load_or_create(self.data_dir)
        if self.checkpoint_pages > 0:
            self._checkpointer = WalCheckpointer(lambda: connect(self.path), self.path, self._gate,
                                                 GATE * self.checkpoint_pages)
            self._checkpointer.start()
        self._syncer = threading.Thread(target=self._sync_loop, name="receipt-log-syncer", daemon=True)
        self._syncer.start()
        self._writer = threading.Thread(target=self._write_loop, name="receipt-log-writer", daemon=True)
        self._writer.start()

    def _store_all_nodes(self, conn: sqlite3.Connection, last: int) -> None:
        """One-time upgrade of a log without stored nodes: hash every record, store the nodes."""
        log.info("merkle_nodes_building", records=last)
        tree = FrontierTree(0, {}, self._load_node, PERSIST_LEVEL)
        expected = 1
        conn.execute("BEGIN IMMEDIATE")
        for seq, body in conn.execute("SELECT seq, body FROM records ORDER BY seq"):
            if seq != expected:
                conn.execute("ROLLBACK")
                raise RuntimeError(f"receipt log damaged: record {expected} missing (found {seq})")
            expected += 1
            nodes = tree.extend([leaf_hash(bytes(body))])
            if nodes:
                conn.executemany("INSERT OR IGNORE INTO merkle_nodes (level, idx, hash) VALUES (?, ?, ?)", nodes)
        conn.execute("COMMIT")

    def _load_node(self, level: int, index: int, conn: sqlite3.Connection | None = None) -> bytes:
        """A complete subtree hash: stored, or hashed from its (at most 2^(PERSIST_LEVEL-1)) records."""
        conn = conn or self._reader
        assert conn is not None, "log not open"
        if level >= PERSIST_LEVEL:
            row = conn.execute("SELECT hash FROM merkle_nodes WHERE level = ? AND idx = ?", (level, index)).fetchone()
            if row is None:
                raise RuntimeError(f"receipt log damaged: Merkle node ({level}, {index}) missing")
            return bytes(row[0])
        first = (index << level) + 1
        bodies = [bytes(b) for (b,) in conn.execute(
            "SELECT body FROM records WHERE seq BETWEEN ? AND ? ORDER BY seq", (first, first + (1 << level) - 1))]
        if len(bodies) != 1 << level:
            raise RuntimeError(f"receipt log damaged: records {first}..{first + (1 << level) - 1} incomplete")
        return subtree_hash([leaf_hash(b) for b in bodies])

    def bind_loop(self, loop: asyncio.AbstractEventLoop) -> None:
        """Listeners are called on this loop after each commit."""
        self._loop = loop

    def close(self) -> None:
        """Drain pending appends, sign a final tree head, stop the writer and the syncer."""
        if self._writer is not None:
            final: Future[dict[str, Any]] = Future()
            self._queue.put(("sign", final))
            self._queue.put(_STOP)
            self._writer.join()  # it stops the syncer after its last commit
            self._writer = None
            self._syncer = None
        if self._checkpointer is not None:
            self._checkpointer.close()
            self._checkpointer = None
        self._wal.close()
        if self._reader is not None:
            self._reader.close()
            self._reader = None

    def add_listener(self, listener: Listener) -> None:
        """Called with each committed batch (in the bound loop's thread)."""
        self._listeners.append(listener)

    # -- appending ---------------------------------------------------------------------------

    @property
    def checkpointer(self) -> WalCheckpointer | None:
        """The WAL's checkpointer (None when closed or ``checkpoint_pages`` is 0): its counters."""
        return self._checkpointer

    @property
    def last_seq(self) -> int:
        """The last durable record (what readers see)."""
        return self._last_seq

    def submit(self, entries: list[Entry]) -> None:
        """Queue entries now, without waiting (order of submission is order in the log). A
        failure is logged; use ``append`` to learn of it."""
        try:
            parts = prepare(entries)
        except ValueError as exc:
            log.error("log_append_failed", error=str(exc))
            return
        self._queue.put(("append", entries, None, parts))

    async def append(self, entries: list[Entry]) -> list[Record]:
        """Append entries atomically and in order; returns once they are durably committed."""
        parts = prepare(entries)
        fut: asyncio.Future[list[Record]] = asyncio.get_running_loop().create_future()
        self._queue.put(("append", entries, fut, parts))
        return await fut

    def append_sync(self, entries: list[Entry]) -> list[Record]:
        """Blocking append for code outside the event loop."""
        parts = prepare(entries)
        fut: Future[list[Record]] = Future()
        self._queue.put(("append", entries, fut, parts))
        return fut.result()

    def _write_loop(self) -> None:
        conn = connect(self.path)
        conn.execute("PRAGMA synchronous=NORMAL")  # the syncer makes each commit durable (receipts.walsync)
        conn.execute(f"PRAGMA wal_autocheckpoint={max(0, int(self.checkpoint_pages)) * BACKSTOP}")
        stats, clock = self.stats, time.thread_time
        try:
            while True:
                item = self._queue.get()
                if item is _STOP:
                    break
                cpu0 = clock()
                batch, signs, stop = self._take(item)
                for part in self._split(batch):
                    self._hand_off(self._commit_batch(conn, part))
                for fut in signs:
                    self._wait_synced()
                    try:
                        fut.set_result(self._sign(conn))
                    except Exception as exc:
                        fut.set_exception(exc)
                stats.writer_cpu_s += clock() - cpu0
                if stop:
                    break
        finally:
            self._synq.put(_STOP)
            if self._syncer is not None:
                self._syncer.join()
            conn.close()

    def _take(self, item: Any) -> tuple[list[tuple[Any, ...]], list[Future], bool]:
        """``item`` and whatever else waits, up to ``max_batch`` records: (appends, sign requests, stop seen)."""
        batch: list[tuple[Any, ...]] = []
        signs: list[Future] = []
        count = 0
        get = self._queue.get_nowait
        while True:
            if item[0] == "append":
                batch.append(item)
                count += len(item[1])
            else:
                signs.append(item[1])
            if count >= self.max_batch:
                return batch, signs, False
            try:
                item = get()
            except queue.Empty:
                return batch, signs, False
            if item is _STOP:
                return batch, signs, True

    def _split(self, batch: list[tuple[Any, ...]]) -> list[list[tuple[Any, ...]]]:
        """The commits to make of ``batch``: two halves when the syncer is idle (``split_point``), else one."""
        if not batch:
            return []
        cut = split_point([len(b[1]) for b in batch], self.split_min) if self._handed == self._answered else 0
        return [batch[:cut], batch[cut:]] if cut else [batch]

    def _hand_off(self, commit: _Commit) -> None:
        self._handed += 1
        self._synq.put(commit)

    def _wait_synced(self) -> None:
        """Block until every commit handed to the syncer so far is durable and published."""
        done = threading.Event()
        self._synq.put(done)
        done.wait()

    def _commit_batch(self, conn: sqlite3.Connection, batch: list[tuple[Any, ...]]) -> _Commit:
        """Build the batch's records on the chain tail and commit them (not yet synced)."""
        if self._broken is not None:
            return _Commit(0, None, [(item[2], self._broken) for item in batch], [])
        t0 = time.perf_counter()
        seq, prev, tail_tree = self._tail
        rows: list[tuple[Any, ...]] = []
        results: list[tuple[Any, list[Record] | Exception]] = []
        committed: list[Record] = []
        ts = utc_now()
        ts_json = canonical_text(ts)
        sha = hashlib.sha256
        for _, entries, fut, parts in batch:
            recs: list[Record] = []
            group_start = (seq, prev, len(rows))
            try:
                for e, p in zip(entries, parts, strict=True):
                    seq += 1
                    if p is not None and ts_json is not None and seq <= SAFE_SEQ:
                        body = splice_body(p, seq, ts_json, prev)
                    else:
                        body = build_body(seq, ts, e, prev)
                    prev = sha(body).hexdigest()
                    skey = stream_key(e.tenant, e.topic) if e.stream and e.topic else None
                    row = (seq, e.type, e.name, e.tenant, e.topic, e.action_id, e.ref, skey, body, prev)
                    rows.append(row)
                    recs.append(Record(*row))
            except Exception as exc:  # a bad payload fails its own append only
                seq, prev, n = group_start
                del rows[n:]
                results.append((fut, ValueError(f"record not appendable: {exc}")))
                continue
            committed.extend(recs)
            results.append((fut, recs))
        tree = tail_tree.copy()
        nodes = tree.extend([leaf_hash(r[8]) for r in rows]) if rows else []
        t1 = time.perf_counter()
        keys = [(r[5], r[0]) for r in rows if r[5] is not None]
        skeys = [(r[7], r[0]) for r in rows if r[7] is not None]
        written = swritten = None
        try:
            if rows:
                with self._gate:
                    conn.execute("BEGIN IMMEDIATE")
                    conn.executemany(INSERT, rows)
                    if nodes:
                        conn.executemany(INSERT_NODE, nodes)
                    written = self._actions.stage(conn, keys, seq, len(rows))
                    swritten = self._streams.stage(conn, skeys, seq, len(rows))
                    conn.execute("COMMIT")
        except Exception as exc:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            failure = RuntimeError(f"receipt log commit failed: {exc}")
            return _Commit(0, None, [(fut, failure) for fut, _ in results], [])
        self.stats.build_s += t1 - t0
        self.stats.sqlite_s += time.perf_counter() - t1
        self._actions.committed(keys, written, seq)
        self._streams.committed(skeys, swritten, seq)
        self._tail = (seq, prev, tree)
        if self._checkpointer is not None and rows:
            self._unchecked += commit_frames(sum(len(r[8]) for r in rows), len(rows))
            if self._unchecked >= self.checkpoint_pages:
                self._unchecked = 0.0
                self._checkpointer.request()
        return _Commit(seq, tree if rows else None, results, committed)

    def _sync_loop(self) -> None:
        """Sync the WAL once for everything committed meanwhile, publish it, answer its appenders."""
        stats, clock = self.stats, time.thread_time
        while True:
            items = [self._synq.get()]
            cpu0 = clock()
            try:
                while True:
                    items.append(self._synq.get_nowait())
            except queue.Empty:
                pass
            commits = [c for c in items if type(c) is _Commit]
            durable = [c for c in commits if c.tree is not None]
            if durable and self._broken is None:
                t0 = time.perf_counter()
                try:
                    self._wal.sync()
                except OSError as exc:  # the disk refused: what is not synced may be lost; stop acknowledging
                    self._broken = RuntimeError(f"receipt log sync failed: {exc}")
                    log.error("log_sync_failed", error=str(exc))
                stats.sync_s += time.perf_counter() - t0
                stats.syncs += 1
            results: list[tuple[Any, list[Record] | Exception]] = []
            committed: list[Record] = []
            for c in commits:
                if c.tree is not None and self._broken is not None:
                    results += [(fut, self._broken) for fut, _ in c.results]
                else:
                    results += c.results
                    committed += c.records
            if durable and self._broken is None:
                last = durable[-1]
                with self._tree_lock:
                    self._tree = last.tree
                    self._last_seq = last.seq
                self.appended_total += len(committed)
                self.commits_total += len(durable)
            self._answered += len(commits)
            if results:
                self._resolve(results, committed)
            stats.syncer_cpu_s += clock() - cpu0
            for item in items:
                if isinstance(item, threading.Event):
                    item.set()
            if _STOP in items:
                return

    def _resolve(self, results: list[tuple[Any, list[Record] | Exception]], committed: list[Record]) -> None:
        """Wake appenders: thread futures at once, loop futures and listeners in ONE loop callback."""
        in_loop: list[tuple[asyncio.Future, list[Record] | Exception]] = []
        for fut, res in results:
            if fut is None:
                if isinstance(res, Exception):
                    log.error("log_append_failed", error=str(res))
            elif isinstance(fut, Future):
                fut.set_exception(res) if isinstance(res, Exception) else fut.set_result(res)
            else:
                in_loop.append((fut, res))
        loop = self._loop
        if in_loop and loop is None:
            loop = in_loop[0][0].get_loop()
        if loop is None or loop.is_closed() or not (in_loop or (committed and self._listeners)):
            return
        try:
            loop.call_soon_threadsafe(self._deliver, in_loop, committed if self._listeners else [],
                                      time.perf_counter())
        except RuntimeError:
            pass

    def _deliver(self, in_loop: list[tuple[asyncio.Future, Any]], committed: list[Record], sent: float) -> None:
        stats = self.stats
        stats.deliver_delay_s += time.perf_counter() - sent
        stats.deliveries += 1
        for fut, res in in_loop:
            if fut.done():
                continue
            if isinstance(res, Exception):
                fut.set_exception(res)
            else:
                fut.set_result(res)
        if committed:
            for listener in self._listeners:
                listener(committed)

    # -- reading -----------------------------------------------------------------------------

    # Every read is bounded by ``last_seq``: a record committed but not yet synced is not read.

    def _rows(self, sql: str, args: tuple[Any, ...]) -> list[Record]:
        assert self._reader is not None, "log not open"
        return [Record.from_row(r) for r in self._reader.execute(sql, args)]

    def _by_seqs(self, seqs: list[int], types: Sequence[str] | None = None) -> list[Record]:
        """The records with these seqs (ascending), optionally only some types, in order."""
        found: list[Record] = []
        where, targs = (f" AND type IN ({','.join('?' * len(types))})", tuple(types)) if types else ("", ())
        for i in range(0, len(seqs), 500):
            part = seqs[i:i + 500]
            found += self._rows(f"SELECT {COLUMNS} FROM records WHERE seq IN ({','.join('?' * len(part))}){where} "
                                "ORDER BY seq", (*part, *targs))
        return found

    def read_stream(self, tenant: str, topic: str, after_seq: int, limit: int = 500) -> list[Record]:
        """Events of a tenant's topic with seq > after_seq, in order: the bulk-written index, then
        the records after it that the writer holds in memory."""
        assert self._reader is not None, "log not open"
        if not -SQLITE_INT_LIMIT <= after_seq < SQLITE_INT_LIMIT:  # the bulk index may not reach SQLite's check
            raise OverflowError("Python int too large to convert to SQLite INTEGER")
        skey, last = stream_key(tenant, topic), self._last_seq
        if self._streams.legacy:  # a log written with SQLite's own index on records(stream, seq)
            return self._rows(f"SELECT {COLUMNS} FROM records WHERE stream = ? AND seq > ? AND seq <= ? "
                              "ORDER BY seq LIMIT ?", (skey, after_seq, last, limit))
        upto, recent = self._streams.seqs(skey, after_seq, limit)
        seqs = self._streams.table_seqs(self._reader, skey, after_seq, min(upto, last), limit)
        seqs += [s for s in recent if s <= last][:limit - len(seqs)]
        return self._by_seqs(seqs)

    def first_stream_seq(self, tenant: str, topic: str) -> int | None:
        """The oldest retained event seq of a topic (retention watermark)."""
        assert self._reader is not None, "log not open"
        skey, last = stream_key(tenant, topic), self._last_seq
        if self._streams.legacy:
            row = self._reader.execute("SELECT MIN(seq) FROM records WHERE stream = ? AND seq <= ?",
                                       (skey, last)).fetchone()
            return row[0] if row else None
        upto, recent = self._streams.seqs(skey, 0, 1)
        seqs = self._streams.table_seqs(self._reader, skey, 0, min(upto, last), 1) or recent
        return seqs[0] if seqs and seqs[0] <= last else None

    def read_action(self, action_id: str, types: Sequence[str] | None = None) -> list[Record]:
        """All records of one action, optionally only some types, in order: the bulk-written
        index, then the records after it that the writer holds in memory."""
        assert self._reader is not None, "log not open"
        last = self._last_seq
        if self._actions.legacy:  # a log written with SQLite's own index on records(action_id, seq)
            where, args = (f" AND type IN ({','.join('?' * len(types))})", tuple(types)) if types else ("", ())
            return self._rows(f"SELECT {COLUMNS} FROM records WHERE action_id = ? AND seq <= ?{where} "
                              "ORDER BY seq", (action_id, last, *args))
        upto, recent = self._actions.seqs(action_id)
        seqs = self._actions.table_seqs(self._reader, action_id, 0, min(upto, last))
        return self._by_seqs(seqs + [s for s in recent if s <= last], types)

    def read_range(self, from_seq: int, to_seq: int, limit: int = 1000) -> list[Record]:
        """Records with from_seq <= seq <= to_seq (at most ``limit``)."""
        return self._rows(
            f"SELECT {COLUMNS} FROM records WHERE seq BETWEEN ? AND ? ORDER BY seq LIMIT ?",
            (from_seq, min(to_seq, self._last_seq), limit),
        )

    def get(self, seq: int) -> Record | None:
        if seq > self._last_seq:
            return None
        rows = self._rows(f"SELECT {COLUMNS} FROM records WHERE seq = ?", (seq,))
        return rows[0] if rows else None

    def get_ref(self, ref: str) -> list[Record]:
        """Records carrying ``ref`` (artifact or approval id)."""
        return self._rows(f"SELECT {COLUMNS} FROM records WHERE ref = ? AND seq <= ? ORDER BY seq",
                          (ref, self._last_seq))

    def iter_control(self) -> Iterator[Record]:
        """State and approval records in order (to rebuild the scheduler after a restart)."""
        assert self._reader is not None
        cur = self._reader.execute(
            f"SELECT {COLUMNS} FROM records WHERE type IN ('state', 'approval') AND seq <= ? ORDER BY seq",
            (self._last_seq,),
        )
        for row in cur:
            yield Record.from_row(row)

    # -- Merkle tree heads and proofs --------------------------------------------------------

    def _sign(self, conn: sqlite3.Connection) -> dict[str, Any]:
        """Sign the current tree head; store it in the table and in ``tree_head.json`` (writer thread)."""
        assert self.signer is not None
        with self._tree_lock:
            size = self._tree.size
            root = self._tree.root()
        sth = self.signer.sign(size, root, int(time.time() * 1000))
        sth["public_key"] = self.signer.public_key_b64
        text = json.dumps(sth, sort_keys=True)
        conn.execute("INSERT OR REPLACE INTO tree_heads (tree_size, body) VALUES (?, ?)", (size, text))
        self._wal.sync()  # the writer commits without syncing; the syncer is idle here (_wait_synced)
        tmp = self.data_dir / (TREE_HEAD_FILE + ".tmp")
        tmp.write_text(text)
        os.replace(tmp, self.data_dir / TREE_HEAD_FILE)
        return sth
