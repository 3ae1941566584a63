"""The receipt log on PostgreSQL: one total order shared by every replica.

Same records as the embedded log (``receipts.log.build_body``): canonical JSON bodies, SHA-256
hash chain, RFC 9162 Merkle tree, Ed25519 signed tree heads, so one verifier reads both.

Ordering: a transaction-scoped advisory lock with group commit. Each replica queues its appends
to one writer thread; the writer takes everything waiting, builds the bodies, leaf hashes and the
Merkle nodes they complete on the tail it last wrote, and calls ``metis_log_append_gap``
(migration 0007): one round trip, two transactions. The first takes ``pg_advisory_xact_lock(LOG_LOCK)``,
checks the tail and the fences of the batch's fenced appends (a worker's claim epoch: the job must
still run under it; the jobs are share-locked until this commit), inserts records and nodes and
commits without waiting for the WAL flush, so the
lock is released at once; the second raises the durable head (``metis_log_head``) over the batch
and NOTIFYs ``metis_log``, committed synchronously: its flush covers the first (one head row per
writer, the head being the largest, so replicas do not wait for each other's flush there either). An appender is
acknowledged only after that. A stale fence inserts nothing and is named in the answer; the writer
rebuilds the batch without that append (its appender alone gets ``FencedOut``) and calls again.
There is no leader to elect and no lease to expire: a replica that
dies mid-transaction leaves nothing behind, the next writer reads the same tail.

Durable head: every read and every follower sees only records with ``seq <=`` the head, so nothing
reaches a client before it is on disk. Records above the head after a crash were never
acknowledged; ``open`` raises the head over them (they continue the chain correctly).

Following: every replica keeps the right edge of the Merkle tree (``FrontierTree``, O(log n)
hashes; the nodes proofs need are read from ``merkle_nodes``), so opening does not depend on the
log's size. A follower thread LISTENs on ``metis_log`` (and polls every ``poll_s`` as a fallback)
and integrates durable records with seq > last_seq in order, whoever appended them: its tree grows
and its listeners (the SSE/subscription hub) see every committed record of every replica, once, in
seq order.

Outages: a lost connection is retried with exponential backoff. Appends wait up to
``retry_window_s`` for the database; after a failure whose outcome is unknown (connection lost
during the call) the writer looks the batch's last record up by seq and hash before retrying, so a
batch is never written twice. Reads and appends that cannot reach the database raise
``StorageUnavailable`` (retryable), never a driver error.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import queue
import secrets
import struct
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import structlog
from psycopg.adapt import Dumper
from psycopg.pq import Format
from psycopg_pool import ConnectionPool

from receipts import migrations
from receipts.canonical import parse_canonical
from receipts.log import GENESIS_HASH, PERSIST_LEVEL, Entry, Record, build_body, stream_key, utc_now
from receipts.merkle import FrontierTree, leaf_hash, subtree_hash
from receipts.signing import TreeHeadSigner
from receipts.store import STOP, Fence, FencedOut, Listener, LogCore, StorageUnavailable
from receipts.verify import VerifyReport, verify_connection

log = structlog.get_logger("metis.receipts.pg")

LOG_LOCK = migrations.lock_key("metis:receipt-log")
CHANNEL = "metis_log"
COLUMNS = "seq, type, name, tenant, topic, action_id, ref, stream, body, hash"
COPY = f"COPY records ({COLUMNS}) FROM STDIN"
_ARRAYS = ("%b::bigint[], %b::text[], %b::text[], %b::text[], %b::text[], %b::text[], %b::text[], %b::text[], "
           "%b::bytea[], %b::text[]")
_NODES = "%b::integer[], %b::bigint[], %b::bytea[]"
# The batch procedure (migration 0006): records, nodes, the batch's fences (action ids, epochs).
# The batch procedure (migration 0007): records, nodes, the batch's fences (action ids, epochs); a moved
# tail is answered with the records in between.
APPEND = (f"CALL metis_log_append_gap(%b::bigint, %b::bigint, %b::text, {_ARRAYS}, {_NODES}, %b::text[], "
          "%b::bigint[], %b::text, %b::text, NULL, NULL, NULL, NULL, NULL)")
INSERT = f"INSERT INTO records ({COLUMNS}) SELECT * FROM unnest({_ARRAYS})"
INSERT_NODES = f"INSERT INTO merkle_nodes (level, idx, hash) SELECT * FROM unnest({_NODES})"
# Raise this writer's row of the durable head to %s (never lower it) and wake the followers, in one
# synchronously committed transaction: its WAL flush covers every record committed before it. The
# head is the largest row (HEAD): one row per writer, so writers never wait for each other's flush.
BARRIER = ("WITH raised AS (INSERT INTO metis_log_head (writer, seq) VALUES (%s, %s) ON CONFLICT (writer) "
           "DO UPDATE SET seq = excluded.seq WHERE metis_log_head.seq < excluded.seq RETURNING seq) "
           "SELECT pg_notify('metis_log', %s)")
HEAD = "(SELECT max(seq) FROM metis_log_head)"
CONNECTION_ERRORS = (psycopg.OperationalError, psycopg.InterfaceError)
# follow_only: a follower woken by a notification waits this long for more before it reads (a worker
# needs other processes' state records soon, not at each of their commits)
FOLLOW_COALESCE_S = 0.02


def connect(url: str, autocommit: bool = True, app: str = "metis") -> psycopg.Connection:
    """A connection that notices a dead peer within seconds (TCP keepalives) instead of hanging."""
    return psycopg.connect(url, autocommit=autocommit, connect_timeout=5, application_name=app,
                           keepalives=1, keepalives_idle=5, keepalives_interval=2, keepalives_count=3)


def backoff(base: float = 0.05, cap: float = 2.0) -> Iterator[float]:
    """Delays 0.05, 0.1, 0.2 ... capped at ``cap`` seconds."""
    delay = base
    while True:
        yield delay
        delay = min(cap, delay * 2)


def unavailable(exc: BaseException, what: str) -> StorageUnavailable:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return StorageUnavailable(f"database unavailable ({what}): {text}")


def upgrade(url: str, wait_s: float = 0.0) -> list[int]:
    """Apply missing migrations (safe with several processes at once); retries the connection for up
    to ``wait_s`` seconds so a replica may start before its database is ready."""
    deadline = time.monotonic() + wait_s
    delays = backoff(0.1, 2.0)
    while True:
        try:
            with connect(url, app="metis-migrate") as conn:
                return migrations.upgrade(conn)
        except CONNECTION_ERRORS as exc:
            if time.monotonic() >= deadline:
                raise unavailable(exc, "migrate") from None
            time.sleep(next(delays))


class _Streaming:
    """``conn.execute`` through a server-side cursor, so verifying a large log streams its rows."""

    def __init__(self, conn: psycopg.Connection) -> None:
        self.conn = conn

    def execute(self, sql: str, args: Sequence[Any] = ()) -> psycopg.ServerCursor:
        cur = self.conn.cursor(name=f"verify_{id(sql)}")
        cur.itersize = 5000
        cur.execute(sql, args or None)
        return cur


def verify_database(url: str, keys_dir: Path | None = None, from_seq: int = 1,
                    to_seq: int | None = None, **options: Any) -> VerifyReport:
    """Verify a PostgreSQL receipt log offline: every record's body, hash and link, then the Merkle
    root against every signed tree head. ``keys_dir`` pins the public key (``signing_key.pub.pem``);
    without it each head is checked against the key it names."""
    try:
        conn = connect(url, autocommit=False, app="metis-verify")
    except CONNECTION_ERRORS as exc:
        raise unavailable(exc, "verify") from None
    try:
        conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
        if conn.execute("SELECT to_regclass('records') IS NOT NULL").fetchone()[0] is not True:  # type: ignore[index]
            return VerifyReport(False, 0, reason="no receipt log in this database (run metis db upgrade)")
        return verify_connection(_Streaming(conn), keys_dir, from_seq, to_seq, **options)  # type: ignore[arg-type]
    finally:
        conn.close()


@dataclass
class _Commit:
    """A batch committed (not yet known durable): the appenders' results, its records and leaf hashes."""

    results: list[tuple[Any, list[Record] | Exception]]
    own: list[Record]
    leaves: list[bytes]


class PostgresReceiptLog(LogCore):
    """The ``ReceiptStore`` on PostgreSQL. Call ``open()`` first and ``close()`` at the end."""

    def __init__(self, url: str, keys_dir: Path, max_batch: int = 4096, retry_window_s: float = 10.0,
                 poll_s: float = 1.0, pool_size: int = 4, start_wait_s: float = 30.0) -> None:
        self.url = url
        self.keys_dir = Path(keys_dir)
        self.max_batch = max_batch
        self.retry_window_s = retry_window_s
        self.poll_s = poll_s
        self.pool_size = pool_size
        self.start_wait_s = start_wait_s
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._listeners: list[Listener] = []
        self._tree = FrontierTree(0, {}, self._load_node, PERSIST_LEVEL)
        self._tree_lock = threading.Lock()
        self._follow_lock = threading.Lock()
        self._last_seq = 0
        self._last_hash = GENESIS_HASH
        self._pending: tuple[int, str, FrontierTree] | None = None  # the writer's tail: committed, maybe not durable
        self._loop: asyncio.AbstractEventLoop | None = None
        self._pool: ConnectionPool | None = None
        self._writer: threading.Thread | None = None
        self._follower: threading.Thread | None = None
        self._stopping = threading.Event()
        self.signer: TreeHeadSigner | None = None
        self.retained_from = 1
        self.appended_total = 0
        self.commits_total = 0
        self.moved_total = 0  # calls that found the tail moved by another process (and were sent again)
        self.locked_total = 0  # batches that took the locked path (the tail kept moving)
        self.available = True  # False while the writer cannot reach the database
        self._attempt: _Commit | None = None  # the batch whose metis_log_append is under way
        self._token = secrets.token_hex(6)  # names this replica's flushes in their notifications
        self._follow_types: tuple[str, ...] | None = None  # None: follow every record (see follow_only)
        self._own: dict[int, str] = {}  # follow_only: seq -> hash of this process's records the follower skips

    # -- lifecycle -----------------------------------------------------------------------------

    def follow_only(self, types: Sequence[str]) -> None:
        """Follow only the records of ``types``, for a process whose listeners need nothing else and
        that serves no stream, proof or tree head (a ``metis worker``: its scheduler reads state
        records). Its follower then reads just those records up to the durable head (skipping its
        own: the process knew them before it wrote them), and keeps no Merkle tree: following costs it a query per wake-up and the records
        it needs, not a read and two hashes of every record every process writes. Appending is
        unchanged (the writer chains on the tail and stores every node it completes); a tree head
        signed here is computed from the stored nodes at the durable head. Call before ``open``."""
        if not types or any(not t.isidentifier() for t in types):
            raise ValueError(f"record types to follow must be plain names, got {list(types)!r}")
        self._follow_types = tuple(types)

    def open(self) -> None:
        """Migrate, load the Merkle tree's right edge (O(log n) stored nodes; a log written before
        nodes were stored gets them once, here), start the writer, flusher, follower and readers."""
        upgrade(self.url, self.start_wait_s)
        self.signer = TreeHeadSigner.load_or_create(self.keys_dir)
        self._pool = ConnectionPool(self.url, min_size=1, max_size=self.pool_size, timeout=1.0,
                                    kwargs={"autocommit": True, "connect_timeout": 5, "application_name": "metis-read"},
                                    name="metis-read", open=True)
        with connect(self.url, app="metis-open") as conn:
            self._store_missing_nodes(conn)
            _raise_head(conn, self._tail(conn)[0])  # records a writer that died left above the head
            conn.execute(f"DELETE FROM metis_log_head WHERE seq < {HEAD}")  # rows of writers long gone
            head = conn.execute(f"SELECT {HEAD}").fetchone()[0]  # type: ignore[index]
            self._last_seq, self._last_hash, self._tree = self._tree_at(conn, head)
        self._stopping.clear()
        self._writer = threading.Thread(target=self._write_loop, name="pg-log-writer", daemon=True)
        self._follower = threading.Thread(target=self._follow_loop, name="pg-log-follower", daemon=True)
        self._writer.start()
        self._follower.start()

    def _store_missing_nodes(self, conn: psycopg.Connection) -> None:
        """One-time upgrade of a log whose records predate ``merkle_nodes``: hash every record and
        store the nodes, under the log's lock (a replica starting at the same time waits, then finds
        them stored)."""
        seq = self._tail(conn)[0]
        if seq < 1 << PERSIST_LEVEL or self._has_node(conn, seq):
            return
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (LOG_LOCK,))
            seq = self._tail(conn)[0]
            if self._has_node(conn, seq):
                return
            log.info("merkle_nodes_building", records=seq)
            tree = FrontierTree(0, {}, self._load_node, PERSIST_LEVEL)
            expected = 1
            nodes: list[tuple[int, int, bytes]] = []
            with conn.cursor(name="metis_nodes") as cur:
                cur.itersize = 10000
                cur.execute("SELECT seq, body FROM records ORDER BY seq")
                for rseq, body in cur:
                    if rseq != expected:
                        raise RuntimeError(f"receipt log damaged: record {expected} missing (found {rseq})")
                    expected += 1
                    nodes.extend(tree.extend([leaf_hash(bytes(body))]))
            for i in range(0, len(nodes), 10000):
                chunk = nodes[i:i + 10000]
                conn.execute("INSERT INTO merkle_nodes (level, idx, hash) SELECT * FROM unnest(%s::int[], %s::bigint[], "
                             "%s::bytea[]) ON CONFLICT DO NOTHING", [list(c) for c in zip(*chunk, strict=True)])

    @staticmethod
    def _has_node(conn: psycopg.Connection, size: int) -> bool:
        """Is the last complete persisted subtree of a tree of ``size`` leaves stored?"""
        if size < 1 << PERSIST_LEVEL:
            return True
        return conn.execute("SELECT 1 FROM merkle_nodes WHERE level = %s AND idx = %s",
                            (PERSIST_LEVEL, (size >> PERSIST_LEVEL) - 1)).fetchone() is not None

    @staticmethod
    def _tail(conn: psycopg.Connection) -> tuple[int, str]:
        row = conn.execute("SELECT seq, hash FROM records ORDER BY seq DESC LIMIT 1").fetchone()
        return (row[0], row[1]) if row else (0, GENESIS_HASH)

    def _tree_at(self, conn: psycopg.Connection, size: int) -> tuple[int, str, FrontierTree]:
        """(seq, hash, tree) of the log's first ``size`` records: the last record is checked against
        its hash and seq, the tree's right edge is read from the stored nodes."""
        if size == 0:
            return 0, GENESIS_HASH, FrontierTree(0, {}, self._load_node, PERSIST_LEVEL)
        row = conn.execute("SELECT body, hash FROM records WHERE seq = %s", (size,)).fetchone()
        if row is None or _sha256(bytes(row[0])) != row[1] or parse_canonical(bytes(row[0]))["seq"] != size:
            raise RuntimeError(f"receipt log damaged at record {size}")
        frontier = {k: self._load_node(k, (size >> k) - 1, conn) for k in range(size.bit_length()) if size >> k & 1}
        return size, row[1], FrontierTree(size, frontier, self._load_node, PERSIST_LEVEL)

    def _load_node(self, level: int, index: int, conn: psycopg.Connection | None = None) -> bytes:
        """A complete subtree hash: stored, or hashed from its (at most 2^(PERSIST_LEVEL-1)) records."""
        def rows(sql: str, args: tuple[Any, ...]) -> list[tuple[Any, ...]]:
            return conn.execute(sql, args).fetchall() if conn is not None else self._rows(sql, args)

        if level >= PERSIST_LEVEL:
            found = rows("SELECT hash FROM merkle_nodes WHERE level = %s AND idx = %s", (level, index))
            if not found:
                raise RuntimeError(f"receipt log damaged: Merkle node ({level}, {index}) missing")
            return bytes(found[0][0])
        first = (index << level) + 1
        bodies = [bytes(b) for (b,) in rows("SELECT body FROM records WHERE seq BETWEEN %s AND %s ORDER BY seq",
                                            (first, first + (1 << level) - 1))]
        if len(bodies) != 1 << level:
            raise RuntimeError(f"receipt log damaged: records {first}..{first + (1 << level) - 1} incomplete")
        return subtree_hash([leaf_hash(b) for b in bodies])

    def close(self) -> None:
        """Drain pending appends, sign a final tree head, stop the threads and the pool."""
        self._drain_writer()
        self._stopping.set()
        if self._follower is not None:
            self._wake_followers()
            self._follower.join(timeout=self.poll_s + 6)
            self._follower = None
        if self._pool is not None:
            self._pool.close()
            self._pool = None

    def _wake_followers(self) -> None:
        """NOTIFY the channel so followers (ours, stopping; others', harmlessly) leave their wait now."""
        try:
            with connect(self.url, app="metis-log") as conn:
                conn.execute("SELECT pg_notify(%s, '')", (CHANNEL,))
        except CONNECTION_ERRORS:
            pass

    # -- appending ---------------------------------------------------------------------------

    @property
    def last_seq(self) -> int:
        """The last durable record integrated here (appended by this replica or followed from another)."""
        return self._last_seq

    def submit(self, entries: list[Entry], fence: Fence | None = None) -> None:
        self._queue.put(("append", entries, None, fence))

    async def append(self, entries: list[Entry], fence: Fence | None = None) -> list[Record]:
        """Append atomically and in order; returns once committed and flushed. With ``fence``, only
        while the action's job is running under that epoch (else ``FencedOut``)."""
        fut: asyncio.Future[list[Record]] = asyncio.get_running_loop().create_future()
        self._queue.put(("append", entries, fut, fence))
        return await fut

    def append_sync(self, entries: list[Entry], fence: Fence | None = None) -> list[Record]:
        fut: Future[list[Record]] = Future()
        self._queue.put(("append", entries, fut, fence))
        return fut.result()

    def _write_loop(self) -> None:
        conn: psycopg.Connection | None = None
        stop = False
        while not stop:
            first = self._queue.get()
            if first is STOP:
                break
            batch, signs, stop = self._take_batch(first)
            if batch:
                conn = self._commit_with_retry(conn, batch)
            for fut in signs:
                conn = self._sign_with_retry(conn, fut)
        if conn is not None:
            conn.close()

    def _writer_conn(self, conn: psycopg.Connection | None) -> psycopg.Connection:
        if conn is not None and not conn.closed and not conn.broken:
            return conn
        if conn is not None:
            conn.close()
        conn = connect(self.url, app="metis-log-writer")
        _register_arrays(conn)
        self._pending = None
        return conn

    def _commit_with_retry(self, conn: psycopg.Connection | None, batch: list[tuple[Any, ...]]) -> psycopg.Connection | None:
        """Commit ``batch``, reconnecting with backoff for up to ``retry_window_s``; fail it then.
        After a failure whose outcome is unknown, the batch is looked up by its last record's seq
        and hash (the hash covers the whole chain, so no other batch matches): found, it is made
        durable and acknowledged, never written twice."""
        deadline = time.monotonic() + self.retry_window_s
        delays = backoff()
        inflight: _Commit | None = None
        while True:
            try:
                conn = self._writer_conn(conn)
                if inflight is not None:
                    if self._landed(conn, inflight.own[-1]):
                        _raise_head(conn, inflight.own[-1].seq, self._token)
                        self._attempt = None
                        self._committed(inflight, conn)
                        return conn
                    inflight = None
                done = self._commit_batch(conn, batch)
                self._attempt = None
                self._committed(done, conn)
                self.available = True
                return conn
            except CONNECTION_ERRORS as exc:
                inflight = self._attempt or inflight
                self._attempt = None
                self.available = False
                if conn is not None:
                    conn.close()
                conn = None
                if time.monotonic() >= deadline:
                    failure = unavailable(exc, "append")
                    log.warning("pg_append_failed", error=str(failure), records=sum(len(b[1]) for b in batch))
                    self._acknowledge([(item[2], failure) for item in batch])
                    return None
                time.sleep(next(delays))
            except Exception as exc:  # not the connection: this batch fails, the writer goes on
                self._attempt = None
                log.error("pg_append_failed", error=str(exc))
                self._acknowledge([(item[2], RuntimeError(f"receipt log commit failed: {exc}")) for item in batch])
                if conn is not None:
                    conn.close()
                return None

    def _committed(self, done: _Commit, conn: psycopg.Connection) -> None:
        """A durable batch: integrate it, acknowledge its appenders, then tell the listeners. When
        other replicas' records precede it and were not followed yet, they and it are read now (the
        follower skips this replica's own notifications)."""
        if done.own:
            self.appended_total += len(done.own)
            self.commits_total += 1
        if self._follow_types is not None:  # nothing to integrate: no tree here, and the listeners knew these
            self._acknowledge(done.results)
            return
        self._integrate(done.own, done.leaves, lambda: self._acknowledge(done.results))
        if done.own and self._last_seq < done.own[-1].seq:
            try:
                self._catch_up(conn)
            except CONNECTION_ERRORS:
                pass  # the follower's poll will

    @staticmethod
    def _landed(conn: psycopg.Connection, last: Record) -> bool:
        """Did an attempt whose answer was lost commit? Its last record is there with the same hash."""
        row = conn.execute("SELECT hash FROM records WHERE seq = %s", (last.seq,)).fetchone()
        return row is not None and row[0] == last.hash

    def _build(self, batch: list[tuple[Any, ...]], seq: int, prev: str, refused: set[Fence]
               ) -> tuple[list[tuple[Any, list[Record] | Exception]], list[Record]]:
        """The batch's records chained on (seq, prev): per appender its records or its error (a bad
        payload or a ``refused`` fence fails that append only); and all records in order."""
        results: list[tuple[Any, list[Record] | Exception]] = []
        own: list[Record] = []
        ts = utc_now()
        for _, entries, fut, fence in batch:
            if fence is not None and fence in refused:
                results.append((fut, FencedOut(f"append refused for {fence.action_id}: epoch {fence.epoch} "
                                               "no longer holds its lease")))
                continue
            recs: list[Record] = []
            start = (seq, prev)
            try:
                for e in entries:
                    body = build_body(seq + 1, ts, e, prev)
                    hsh = _sha256(body)
                    skey = stream_key(e.tenant, e.topic) if e.stream and e.topic else None
                    seq, prev = seq + 1, hsh
                    recs.append(Record(seq, e.type, e.name, e.tenant, e.topic, e.action_id, e.ref, skey, body, hsh))
            except Exception as exc:
                seq, prev = start
                results.append((fut, ValueError(f"record not appendable: {exc}")))
                continue
            own.extend(recs)
            results.append((fut, recs))
        return results, own

    def _pending_tail(self, conn: psycopg.Connection) -> tuple[int, str, FrontierTree]:
        """The tail the next batch chains on: this writer's last commit, or the database's."""
        if self._pending is None:
            self._pending = self._tree_at(conn, self._tail(conn)[0])
        return self._pending

    def _prepare(self, batch: list[tuple[Any, ...]], tail: tuple[int, str, FrontierTree],
                 refused: set[Fence]) -> tuple[_Commit, FrontierTree, list[tuple[int, int, bytes]]]:
        """Records, leaves, the tree after them and the Merkle nodes they complete."""
        results, own = self._build(batch, tail[0], tail[1], refused)
        if self._follow_types is not None:  # known here already: the follower must not hand them over again
            with self._follow_lock:
                self._own.update((r.seq, r.hash) for r in own if r.type in self._follow_types)
        leaves = [leaf_hash(r.body) for r in own]
        tree = tail[2].copy()
        nodes = tree.extend(leaves)
        done = _Commit(results, own, leaves)
        if own:
            self._attempt = done
        return done, tree, nodes

    def _commit_batch(self, conn: psycopg.Connection, batch: list[tuple[Any, ...]]) -> _Commit:
        """One round trip when the tail is where this writer left it and every fence holds
        (``metis_log_append_gap`` checks the fences under the log's lock). A moved tail: the answer
        holds the records in between; chain on them and try again. Stale fences: the procedure names them and inserts nothing; the batch is
        rebuilt without those appends (they alone fail with ``FencedOut``) and sent again. A tail that
        keeps moving takes the locked path."""
        refused: set[Fence] = set()
        moved = 0
        while moved < 3:
            tail = self._pending_tail(conn)
            done, tree, nodes = self._prepare(batch, tail, refused)
            if not done.own:
                return done
            fences = sorted({item[3] for item in batch if item[3] is not None and item[3] not in refused},
                            key=lambda f: (f.action_id, f.epoch))
            last = done.own[-1].seq
            ok, tail_seq, tail_hash, stale, gap = conn.execute(APPEND, (
                LOG_LOCK, tail[0], tail[1], *_columns(done.own), *_node_columns(nodes),
                _array(_TextArray, [f.action_id for f in fences]), _array(_Int8Array, [f.epoch for f in fences]),
                self._token, f"{last} {self._token}")).fetchone()  # type: ignore[misc]
            if ok:
                self._pending = (done.own[-1].seq, done.own[-1].hash, tree)
                return done
            self._attempt = None
            if stale:
                refused.update(fences[n - 1] for n in stale)
                continue
            self._pending = self._advance(conn, tail, tail_seq, tail_hash, gap)
            self.moved_total += 1
            moved += 1
        return self._commit_locked(conn, batch)

    def _advance(self, conn: psycopg.Connection, tail: tuple[int, str, FrontierTree], seq: int, hsh: str,
                 gap: list[bytes] | None = None) -> tuple[int, str, FrontierTree] | None:
        """The tail moved from ``tail`` to (seq, hsh): other processes appended. Chain on by hashing
        just their records (``gap``, their bodies as the batch procedure answered them, else read
        with one query; they may be above the durable head: they are only hashed here, never shown)
        instead of reloading the tree's right edge (a query per level). None (reload) when they are
        many, or do not end on (seq, hsh)."""
        if not tail[0] < seq <= tail[0] + 4096:
            return None
        if gap is not None and len(gap) == seq - tail[0]:
            bodies = [bytes(b) for b in gap]
        else:
            rows = conn.execute("SELECT seq, body FROM records WHERE seq > %s AND seq <= %s ORDER BY seq",
                                (tail[0], seq)).fetchall()
            if [s for s, _ in rows] != list(range(tail[0] + 1, seq + 1)):
                return None
            bodies = [bytes(b) for _, b in rows]
        if _sha256(bodies[-1]) != hsh:
            return None
        tree = tail[2].copy()
        tree.extend(leaf_hash(b) for b in bodies)
        return seq, hsh, tree

    def _commit_locked(self, conn: psycopg.Connection, batch: list[tuple[Any, ...]]) -> _Commit:
        """Lock, read the tail, check fences, insert records and nodes, commit without waiting for the
        flush (the lock goes with the commit), then raise the durable head synchronously, as the batch
        procedure does: the path of a tail that keeps moving."""
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (LOG_LOCK,))
            seq, hsh = self._tail(conn)
            if self._pending is None or self._pending[:2] != (seq, hsh):
                moved = self._advance(conn, self._pending, seq, hsh) if self._pending is not None else None
                self._pending = moved or self._tree_at(conn, seq)
            done, tree, nodes = self._prepare(batch, self._pending, self._stale_fences(conn, batch))
            if done.own:
                conn.execute(INSERT, _columns(done.own))
                if nodes:
                    conn.execute(INSERT_NODES, _node_columns(nodes))
                conn.execute("SET LOCAL synchronous_commit = off")  # the lock goes with this commit, not after the flush
        self.locked_total += 1
        if done.own:
            _raise_head(conn, done.own[-1].seq, self._token)  # synchronous: its flush covers the records
            self._pending = (done.own[-1].seq, done.own[-1].hash, tree)
        return done

    @staticmethod
    def _stale_fences(conn: psycopg.Connection, batch: list[tuple[Any, ...]]) -> set[Fence]:
        """The batch's fences whose job no longer runs under their epoch; the jobs are share-locked
        until commit so no claim or rescue can change them while this batch is written."""
        fences = {item[3] for item in batch if item[3] is not None}
        if not fences:
            return set()
        ids = sorted({f.action_id for f in fences})
        rows = conn.execute("SELECT action_id, epoch, state FROM metis_jobs WHERE action_id = ANY(%s) "
                            "ORDER BY action_id FOR SHARE", (ids,)).fetchall()
        held = {a: (e, st) for a, e, st in rows}
        return {f for f in fences if held.get(f.action_id) != (f.epoch, "running")}

    # -- following ---------------------------------------------------------------------------

    def _integrate(self, recs: list[Record], leaves: list[bytes] | None = None,
                   before_listeners: Callable[[], None] | None = None) -> None:
        """Add durable records that follow ``last_seq`` to the tree, in order, and hand them to the
        listeners. Records already integrated are skipped; a batch that does not follow on is left
        for the follower, which reads from ``last_seq`` on. ``before_listeners`` runs once the tree
        holds the records and before the listeners are called (the flusher acknowledges appenders
        there, so, as with the embedded log, an appender hears of its commit before any subscriber)."""
        with self._follow_lock:
            skip = next((n for n, r in enumerate(recs) if r.seq > self._last_seq), len(recs))
            new = recs[skip:]
            if new and new[0].seq == self._last_seq + 1:
                hashes = leaves[skip:] if leaves is not None else [leaf_hash(r.body) for r in new]
                with self._tree_lock:
                    self._tree.extend(hashes)
                    self._last_seq, self._last_hash = new[-1].seq, new[-1].hash
            else:
                new = []
            if before_listeners is not None:
                before_listeners()
            if not new:
                return
            loop = self._loop
            if self._listeners and loop is not None and not loop.is_closed():
                try:
                    loop.call_soon_threadsafe(self._deliver, new)
                except RuntimeError:
                    pass

    def _deliver(self, recs: list[Record]) -> None:
        for listener in self._listeners:
            listener(recs)

    def _catch_up(self, conn: psycopg.Connection, upto: int | None = None) -> None:
        """Integrate every durable record after ``last_seq`` (up to ``upto``), in chunks."""
        if self._follow_types is not None:
            return self._catch_up_only(conn)
        while True:
            start = self._last_seq
            sql = f"SELECT {COLUMNS} FROM records WHERE seq > %s AND seq <= {HEAD} ORDER BY seq LIMIT 2000"
            rows = conn.execute(sql, (start,)).fetchall()
            if not rows:
                return
            self._integrate([Record.from_row(r) for r in rows])
            if len(rows) < 2000 or (upto is not None and self._last_seq >= upto) or self._last_seq == start:
                return

    def _catch_up_only(self, conn: psycopg.Connection) -> None:
        """``follow_only``: hand the listeners the durable records of the followed types after
        ``last_seq``, then move ``last_seq`` to the head read in the same statement."""
        kinds = ", ".join(f"'{t}'" for t in self._follow_types or ())
        sql = (f"WITH h AS (SELECT {HEAD} AS head) SELECT h.head, r.* FROM h LEFT JOIN LATERAL "
               f"(SELECT {COLUMNS} FROM records WHERE seq > %s AND seq <= h.head AND type IN ({kinds}) "
               "ORDER BY seq LIMIT 2000) r ON true")
        while True:
            rows = conn.execute(sql, (self._last_seq,)).fetchall()
            head = rows[0][0] or 0
            recs = [Record.from_row(r[1:]) for r in rows if r[1] is not None]
            full = len(recs) >= 2000
            with self._follow_lock:
                # this process's own records are skipped (matched by seq and hash: an attempt that found
                # the tail moved registered seqs that other processes' records took)
                new = [r for r in recs if r.seq > self._last_seq and self._own.pop(r.seq, None) != r.hash]
                self._last_seq = max(self._last_seq, recs[-1].seq if full else head)
                for seq in [q for q in self._own if q <= self._last_seq]:
                    del self._own[seq]
                loop = self._loop
                if new and self._listeners and loop is not None and not loop.is_closed():
                    try:
                        loop.call_soon_threadsafe(self._deliver, new)
                    except RuntimeError:
                        pass
            if not full:
                return

    def _follow_loop(self) -> None:
        """Integrate what other replicas made durable: woken by their NOTIFY (this replica's own are
        skipped: its flusher integrates them, or with ``follow_only`` it knew them), or every
        ``poll_s`` in case a notification was lost."""
        conn: psycopg.Connection | None = None
        delays = backoff(0.1, 2.0)
        behind = True
        while not self._stopping.is_set():
            try:
                if conn is None:
                    conn = connect(self.url, app="metis-log-follower")
                    conn.execute(f"LISTEN {CHANNEL}")
                    delays = backoff(0.1, 2.0)
                    behind = True
                if behind:
                    self._catch_up(conn)
                behind = True  # a poll without notification catches up too
                notes = list(conn.notifies(timeout=self.poll_s, stop_after=1))
                if notes:  # then every notification already here (with follow_only, those of the next
                    # moment too): one read for all of them, not one per commit of every process
                    notes += conn.notifies(timeout=FOLLOW_COALESCE_S if self._follow_types else 0.0)
                    # this replica's own are integrated by its flusher
                    behind = any(not note.payload.endswith(self._token) for note in notes)
            except CONNECTION_ERRORS as exc:
                if conn is not None:
                    conn.close()
                    conn = None
                    log.warning("pg_follower_reconnecting", error=str(exc).strip()[:200])
                self._stopping.wait(next(delays))
        if conn is not None:
            conn.close()

    # -- reading -----------------------------------------------------------------------------

    def _rows(self, sql: str, args: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        """Run a read on a pooled connection; after a broken one, once more on a connection of its own
        (a pool that failed to reconnect during an outage backs off for seconds, the database may be
        back already); then StorageUnavailable."""
        if self._pool is None:
            raise RuntimeError("log not open")
        try:
            with self._pool.connection() as conn:
                return conn.execute(sql, args).fetchall()
        except CONNECTION_ERRORS:
            pass
        try:
            with connect(self.url, app="metis-read") as conn:
                return conn.execute(sql, args).fetchall()
        except CONNECTION_ERRORS as exc:
            raise unavailable(exc, "read") from None

    def _records(self, sql: str, args: tuple[Any, ...]) -> list[Record]:
        return [Record.from_row(r) for r in self._rows(sql, args)]

    def read_stream(self, tenant: str, topic: str, after_seq: int, limit: int = 500) -> list[Record]:
        return self._records(f"SELECT {COLUMNS} FROM records WHERE stream = %s AND seq > %s AND seq <= {HEAD} "
                             "ORDER BY seq LIMIT %s",
                             (stream_key(tenant, topic), after_seq, limit))

    def first_stream_seq(self, tenant: str, topic: str) -> int | None:
        rows = self._rows(f"SELECT MIN(seq) FROM records WHERE stream = %s AND seq <= {HEAD}", (stream_key(tenant, topic),))
        return rows[0][0] if rows else None

    def read_action(self, action_id: str, types: Sequence[str] | None = None) -> list[Record]:
        if types:
            return self._records(f"SELECT {COLUMNS} FROM records WHERE action_id = %s AND type = ANY(%s) "
                                 f"AND seq <= {HEAD} ORDER BY seq",
                                 (action_id, list(types)))
        return self._records(f"SELECT {COLUMNS} FROM records WHERE action_id = %s AND seq <= {HEAD} ORDER BY seq", (action_id,))

    def read_range(self, from_seq: int, to_seq: int, limit: int = 1000) -> list[Record]:
        return self._records(f"SELECT {COLUMNS} FROM records WHERE seq BETWEEN %s AND %s AND seq <= {HEAD} "
                             "ORDER BY seq LIMIT %s",
                             (from_seq, to_seq, limit))

    def get(self, seq: int) -> Record | None:
        rows = self._records(f"SELECT {COLUMNS} FROM records WHERE seq = %s AND seq <= {HEAD}", (seq,))
        return rows[0] if rows else None

    def get_ref(self, ref: str) -> list[Record]:
        return self._records(f"SELECT {COLUMNS} FROM records WHERE ref = %s AND seq <= {HEAD} ORDER BY seq", (ref,))

    def iter_control(self) -> Iterator[Record]:
        """State and approval records in order, read in pages (keyset on seq)."""
        after = 0
        while True:
            page = self._records(f"SELECT {COLUMNS} FROM records WHERE type IN ('state', 'approval') AND seq > %s "
                                 f"AND seq <= {HEAD} "
                                 "ORDER BY seq LIMIT 5000", (after,))
            yield from page
            if len(page) < 5000:
                return
            after = page[-1].seq

    def ping(self) -> bool:
        """Can the database be reached now? (``SELECT 1`` on a pooled connection.)"""
        try:
            self._rows("SELECT 1", ())
            return True
        except StorageUnavailable:
            return False

    async def probe(self) -> bool:
        """``ping`` off the event loop: the readiness probe of a PostgreSQL-backed replica."""
        return await asyncio.to_thread(self.ping)

    # -- Merkle tree heads and proofs --------------------------------------------------------

    def _sign_with_retry(self, conn: psycopg.Connection | None, fut: Future) -> psycopg.Connection | None:
        try:
            conn = self._writer_conn(conn)
            self._catch_up(conn)
            fut.set_result(self._sign(conn))
            return conn
        except CONNECTION_ERRORS as exc:
            if conn is not None:
                conn.close()
            fut.set_exception(unavailable(exc, "sign"))
            return None
        except Exception as exc:
            fut.set_exception(exc)
            return conn

    def _sign(self, conn: psycopg.Connection) -> dict[str, Any]:
        """Sign the tree head of everything integrated so far; the first head stored for a size wins."""
        assert self.signer is not None
        if self._follow_types is not None:  # no tree kept here: the right edge at the durable head, from the nodes
            head = conn.execute(f"SELECT {HEAD}").fetchone()[0] or 0  # type: ignore[index]
            tree = self._tree_at(conn, head)[2]
            with self._tree_lock:
                self._tree = tree
        with self._tree_lock:
            size = self._tree.size
            root = self._tree.root()
        sth = self.signer.sign(size, root, int(time.time() * 1000))
        sth["public_key"] = self.signer.public_key_b64
        conn.execute("INSERT INTO tree_heads (tree_size, body) VALUES (%s, %s) ON CONFLICT (tree_size) DO NOTHING",
                     (size, json.dumps(sth, sort_keys=True)))
        return sth

    # -- verification ------------------------------------------------------------------------

    def verify(self, from_seq: int = 1, to_seq: int | None = None, **options: Any) -> VerifyReport:
        """The offline verifier on this log's database (``options`` go to ``verify_connection``)."""
        return verify_database(self.url, self.keys_dir, from_seq, to_seq, **options)


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _raise_head(conn: psycopg.Connection, seq: int, token: str = "") -> None:
    """Make every committed record up to ``seq`` durable and visible to readers (``BARRIER``); the
    notification names the replica (``token``) so its own follower can skip it."""
    conn.execute(BARRIER, (token or "open", seq, f"{seq} {token}"))


class _PgArray(bytes):
    """A one-dimensional array already in PostgreSQL's binary wire format: a batch's columns are
    encoded in one pass each, instead of psycopg's per-element type inspection (which cost more
    CPU per record than building the record)."""

    oid = 0
    element = 0


class _Int8Array(_PgArray):
    oid, element = 1016, 20


class _Int4Array(_PgArray):
    oid, element = 1007, 23


class _TextArray(_PgArray):
    oid, element = 1009, 25


class _ByteaArray(_PgArray):
    oid, element = 1001, 17


_LEN = struct.Struct("!i").pack
_NULL = b"\xff\xff\xff\xff"


def _array(cls: type[_PgArray], values: Sequence[Any]) -> _PgArray:
    """``values`` (ints, str or None, bytes) as a binary array of ``cls``."""
    if cls is _Int8Array:
        body = b"".join(b"\x00\x00\x00\x08" + v.to_bytes(8, "big", signed=True) for v in values)
        nulls = False
    elif cls is _Int4Array:
        body = b"".join(b"\x00\x00\x00\x04" + v.to_bytes(4, "big", signed=True) for v in values)
        nulls = False
    else:
        parts: list[bytes] = []
        nulls = False
        for v in values:
            if v is None:
                nulls = True
                parts.append(_NULL)
                continue
            b = v.encode() if cls is _TextArray else v
            parts.append(_LEN(len(b)))
            parts.append(b)
        body = b"".join(parts)
    return cls(struct.pack("!iiIii", 1, nulls, cls.element, len(values), 1) + body)


def _array_dumper(cls: type[_PgArray]) -> type[Dumper]:
    class _Dumper(Dumper):
        format = Format.BINARY
        oid = cls.oid

        def dump(self, obj: Any) -> bytes:
            return obj

    return _Dumper


def _register_arrays(conn: psycopg.Connection) -> None:
    """Let ``conn`` send pre-encoded arrays as they are."""
    for cls in (_Int8Array, _Int4Array, _TextArray, _ByteaArray):
        conn.adapters.register_dumper(cls, _array_dumper(cls))


_RECORD_ARRAYS = (_Int8Array, _TextArray, _TextArray, _TextArray, _TextArray, _TextArray, _TextArray, _TextArray,
                  _ByteaArray, _TextArray)


def _columns(recs: list[Record]) -> list[_PgArray]:
    """The records as one binary array per column (for ``unnest``)."""
    cols = zip(*((r.seq, r.type, r.name, r.tenant, r.topic, r.action_id, r.ref, r.stream, r.body, r.hash)
                 for r in recs), strict=True)
    return [_array(cls, col) for cls, col in zip(_RECORD_ARRAYS, cols, strict=True)]


def _node_columns(nodes: list[tuple[int, int, bytes]]) -> list[_PgArray]:
    """Merkle nodes as (levels, indexes, hashes) binary arrays."""
    levels, idxs, hashes = (list(c) for c in zip(*nodes, strict=True)) if nodes else ([], [], [])
    return [_array(_Int4Array, levels), _array(_Int8Array, idxs), _array(_ByteaArray, hashes)]
