"""The receipt log on PostgreSQL: one total order shared by every replica.

Same records as the embedded log (``receipts.log.build_body``): canonical JSON bodies, SHA-256
hash chain, RFC 9162 Merkle tree, Ed25519 signed tree heads, so one verifier reads both.

Ordering: a transaction-scoped advisory lock with group commit. Each replica queues its appends
to one writer thread; the writer takes everything waiting, opens a transaction, takes
``pg_advisory_xact_lock(LOG_LOCK)``, reads the chain tail (last seq and hash) under the lock,
builds the bodies on top of it, COPYs them in, NOTIFYs ``metis_log`` and commits. The lock is
released by the commit (or by the server when the connection dies), so there is no leader to
elect and no lease to expire: a replica that dies mid-transaction leaves nothing behind, the
next writer reads the same tail. An appender is acknowledged only after the commit.

Following: every replica keeps the whole tree in memory. A follower thread LISTENs on
``metis_log`` (and polls every ``poll_s`` as a fallback) and integrates records with
seq > last_seq in order, whoever appended them: its Merkle tree grows and its listeners (the
SSE/subscription hub) see every committed record of every replica, once, in seq order.

Outages: a lost connection is retried with exponential backoff. Appends wait up to
``retry_window_s`` for the database; after a failure whose outcome is unknown (connection lost
around COMMIT) the writer looks the batch's last record up by seq and hash before retrying, so a
batch is never written twice. Reads and appends that cannot reach the database raise
``StorageUnavailable`` (retryable), never a driver error.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import queue
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import psycopg
import structlog
from psycopg_pool import ConnectionPool

from receipts import migrations
from receipts.log import GENESIS_HASH, Entry, Record, build_body, stream_key, utc_now
from receipts.merkle import MerkleTree, leaf_hash
from receipts.signing import TreeHeadSigner
from receipts.store import STOP, Fence, FencedOut, Listener, LogCore, StorageUnavailable
from receipts.verify import VerifyReport, verify_connection

log = structlog.get_logger("metis.receipts.pg")

LOG_LOCK = migrations.lock_key("metis:receipt-log")
CHANNEL = "metis_log"
COLUMNS = "seq, type, name, tenant, topic, action_id, ref, stream, body, hash"
COPY = f"COPY records ({COLUMNS}) FROM STDIN"
APPEND = "SELECT * FROM metis_append(%b, %b, %b, %b, %b, %b, %b, %b, %b, %b, %b, %b, %b)"  # binary: arrays of bytea
CONNECTION_ERRORS = (psycopg.OperationalError, psycopg.InterfaceError)


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
        self._tree = MerkleTree()
        self._tree_lock = threading.Lock()
        self._follow_lock = threading.Lock()
        self._last_seq = 0
        self._last_hash = GENESIS_HASH
        self._loop: asyncio.AbstractEventLoop | None = None
        self._pool: ConnectionPool | None = None
        self._writer: threading.Thread | None = None
        self._follower: threading.Thread | None = None
        self._stopping = threading.Event()
        self.signer: TreeHeadSigner | None = None
        self.retained_from = 1
        self.appended_total = 0
        self.commits_total = 0
        self.available = True  # False while the writer cannot reach the database
        self._inflight: tuple[int, str] | None = None  # last record of a COMMIT not yet answered
        self._attempt_records: dict[int, list[Record]] = {}  # that attempt's records, by entries list

    # -- lifecycle -----------------------------------------------------------------------------

    def open(self) -> None:
        """Migrate, rebuild the Merkle tree from the records, start the writer, follower and readers."""
        upgrade(self.url, self.start_wait_s)
        self.signer = TreeHeadSigner.load_or_create(self.keys_dir)
        with connect(self.url, autocommit=False, app="metis-open") as conn:
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
            cur = conn.cursor(name="metis_open")
            cur.itersize = 10000
            cur.execute("SELECT seq, body, hash FROM records ORDER BY seq")
            leaves: list[bytes] = []
            expected, prev = 1, GENESIS_HASH
            for seq, body, hsh in cur:
                if seq != expected:
                    raise RuntimeError(f"receipt log damaged: record {expected} missing (found {seq})")
                leaves.append(leaf_hash(bytes(body)))
                prev, expected = hsh, expected + 1
            cur.close()
        self._tree.extend(leaves)
        self._last_seq, self._last_hash = expected - 1, prev
        self._pool = ConnectionPool(self.url, min_size=1, max_size=self.pool_size, timeout=1.0,
                                    kwargs={"autocommit": True, "connect_timeout": 5, "application_name": "metis-read"},
                                    name="metis-read", open=True)
        self._stopping.clear()
        self._writer = threading.Thread(target=self._write_loop, name="pg-log-writer", daemon=True)
        self._follower = threading.Thread(target=self._follow_loop, name="pg-log-follower", daemon=True)
        self._writer.start()
        self._follower.start()

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
        """The last record integrated here (appended by this replica or followed from another)."""
        return self._last_seq

    def submit(self, entries: list[Entry], fence: Fence | None = None) -> None:
        self._queue.put(("append", entries, None, fence))

    async def append(self, entries: list[Entry], fence: Fence | None = None) -> list[Record]:
        """Append atomically and in order; returns once committed. With ``fence``, only while the
        action's job is running under that epoch (else ``FencedOut``)."""
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
        if conn is None or conn.closed or conn.broken:
            if conn is not None:
                conn.close()
            conn = connect(self.url, app="metis-log-writer")
        return conn

    def _commit_with_retry(self, conn: psycopg.Connection | None, batch: list[tuple[Any, ...]]) -> psycopg.Connection | None:
        """Commit ``batch``, reconnecting with backoff for up to ``retry_window_s``; fail it then."""
        deadline = time.monotonic() + self.retry_window_s
        delays = backoff()
        inflight: tuple[int, str] | None = None  # (seq, hash) of the last record of an attempt
        while True:
            try:
                conn = self._writer_conn(conn)
                if inflight is not None and self._landed(conn, inflight):
                    self._finish_landed(conn, batch)
                    return conn
                inflight = None
                self._commit_batch(conn, batch, lambda seq, hsh: self._set_inflight(seq, hsh))
                self.available = True
                return conn
            except CONNECTION_ERRORS as exc:
                inflight = self._inflight or inflight
                self._inflight = None
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

    def _set_inflight(self, seq: int, hsh: str) -> None:
        self._inflight = (seq, hsh)

    @staticmethod
    def _landed(conn: psycopg.Connection, inflight: tuple[int, str]) -> bool:
        """Did an attempt whose COMMIT got no answer commit? Its last record would be there, same hash
        (the hash covers the whole chain before it, so no other batch can match)."""
        row = conn.execute("SELECT hash FROM records WHERE seq = %s", (inflight[0],)).fetchone()
        return row is not None and row[0] == inflight[1]

    def _finish_landed(self, conn: psycopg.Connection, batch: list[tuple[Any, ...]]) -> None:
        """The batch committed before the connection was lost: read it back and acknowledge it."""
        self._catch_up(conn)
        results: list[tuple[Any, list[Record] | Exception]] = []
        for item in batch:
            results.append((item[2], self._attempt_records.get(id(item[1]), [])))
        self._attempt_records.clear()
        self._acknowledge(results)

    def _build(self, batch: list[tuple[Any, ...]], seq: int, prev: str, fences: dict[str, tuple[int, str]]
               ) -> tuple[list[tuple[Any, list[Record] | Exception]], list[Record]]:
        """The batch's records chained on (seq, prev): per appender its records or its error (a bad
        payload or a stale fence fails that append only); and all records in order."""
        results: list[tuple[Any, list[Record] | Exception]] = []
        own: list[Record] = []
        attempt: dict[int, list[Record]] = {}
        ts = utc_now()
        for _, entries, fut, fence in batch:
            if fence is not None and fences.get(fence.action_id) != (fence.epoch, "running"):
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
            attempt[id(entries)] = recs
            results.append((fut, recs))
        self._attempt_records = attempt
        return results, own

    def _committed(self, results: list[tuple[Any, list[Record] | Exception]], own: list[Record]) -> None:
        self._inflight = None
        self._attempt_records = {}
        if own:
            self.appended_total += len(own)
            self.commits_total += 1
        self._integrate(own, lambda: self._acknowledge(results))

    def _commit_batch(self, conn: psycopg.Connection, batch: list[tuple[Any, ...]],
                      mark: Callable[[int, str], None]) -> None:
        """One round trip when the tail is where this replica last saw it (``metis_append``); after a
        moved tail, catch up and try again; fenced batches, or a tail that keeps moving, take the
        locked path."""
        if all(item[3] is None for item in batch):
            for _ in range(3):
                with self._follow_lock:
                    seq, prev = self._last_seq, self._last_hash
                results, own = self._build(batch, seq, prev, {})
                if not own:
                    self._committed(results, own)
                    return
                mark(own[-1].seq, own[-1].hash)
                cols = [list(c) for c in zip(*((r.seq, r.type, r.name, r.tenant, r.topic, r.action_id, r.ref, r.stream,
                                                 r.body, r.hash) for r in own), strict=True)]
                ok, tail_seq, _ = conn.execute(APPEND, (LOG_LOCK, seq, prev, *cols)).fetchone()  # type: ignore[misc]
                if ok:
                    self._committed(results, own)
                    return
                self._inflight = None
                self._catch_up(conn, tail_seq)
        self._commit_locked(conn, batch, mark)

    def _commit_locked(self, conn: psycopg.Connection, batch: list[tuple[Any, ...]],
                       mark: Callable[[int, str], None]) -> None:
        """Lock, read the tail, check fences, COPY, NOTIFY, commit: the general path."""
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (LOG_LOCK,))
            row = conn.execute("SELECT seq, hash FROM records ORDER BY seq DESC LIMIT 1").fetchone()
            seq, prev = (row[0], row[1]) if row else (0, GENESIS_HASH)
            if seq > self._last_seq:  # other replicas appended since we last looked: integrate first
                self._catch_up(conn, seq)
            results, own = self._build(batch, seq, prev, self._fences(conn, batch))
            if own:
                with conn.cursor().copy(COPY) as copy:
                    for r in own:
                        copy.write_row((r.seq, r.type, r.name, r.tenant, r.topic, r.action_id, r.ref, r.stream,
                                        r.body, r.hash))
                conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, str(own[-1].seq)))
                mark(own[-1].seq, own[-1].hash)
        self._committed(results, own)

    @staticmethod
    def _fences(conn: psycopg.Connection, batch: list[tuple[Any, ...]]) -> dict[str, tuple[int, str]]:
        """(epoch, state) of the jobs fenced appends name, share-locked until commit so no claim or
        rescue can change them while this batch is written."""
        ids = sorted({item[3].action_id for item in batch if item[3] is not None})
        if not ids:
            return {}
        rows = conn.execute("SELECT action_id, epoch, state FROM metis_jobs WHERE action_id = ANY(%s) FOR SHARE",
                            (ids,)).fetchall()
        return {a: (e, st) for a, e, st in rows}

    # -- following ---------------------------------------------------------------------------

    def _integrate(self, recs: list[Record], before_listeners: Callable[[], None] | None = None) -> None:
        """Add records that follow ``last_seq`` to the tree, in order, and hand them to the listeners.
        Records already integrated are skipped; a batch that does not follow on is left for the
        follower, which reads from ``last_seq`` on. ``before_listeners`` runs once the tree holds the
        records and before the listeners are called (the writer acknowledges its appenders there, so,
        as with the embedded log, an appender hears of its commit before any subscriber does)."""
        with self._follow_lock:
            new = [r for r in recs if r.seq > self._last_seq]
            if new and new[0].seq == self._last_seq + 1:
                leaves = [leaf_hash(r.body) for r in new]
                with self._tree_lock:
                    self._tree.extend(leaves)
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
        """Integrate every committed record after ``last_seq`` (up to ``upto``), in chunks."""
        while True:
            start = self._last_seq
            sql = f"SELECT {COLUMNS} FROM records WHERE seq > %s ORDER BY seq LIMIT 2000"
            rows = conn.execute(sql, (start,)).fetchall()
            if not rows:
                return
            self._integrate([Record.from_row(r) for r in rows])
            if len(rows) < 2000 or (upto is not None and self._last_seq >= upto) or self._last_seq == start:
                return

    def _follow_loop(self) -> None:
        conn: psycopg.Connection | None = None
        delays = backoff(0.1, 2.0)
        while not self._stopping.is_set():
            try:
                if conn is None:
                    conn = connect(self.url, app="metis-log-follower")
                    conn.execute(f"LISTEN {CHANNEL}")
                    delays = backoff(0.1, 2.0)
                self._catch_up(conn)
                for _ in conn.notifies(timeout=self.poll_s, stop_after=1):
                    pass
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
        """Run a read on a pooled connection; one retry on a broken connection, then StorageUnavailable."""
        if self._pool is None:
            raise RuntimeError("log not open")
        for attempt in (1, 2):
            try:
                with self._pool.connection() as conn:
                    return conn.execute(sql, args).fetchall()
            except CONNECTION_ERRORS as exc:
                if attempt == 2:
                    raise unavailable(exc, "read") from None
        raise AssertionError("unreachable")

    def _records(self, sql: str, args: tuple[Any, ...]) -> list[Record]:
        return [Record.from_row(r) for r in self._rows(sql, args)]

    def read_stream(self, tenant: str, topic: str, after_seq: int, limit: int = 500) -> list[Record]:
        return self._records(f"SELECT {COLUMNS} FROM records WHERE stream = %s AND seq > %s ORDER BY seq LIMIT %s",
                             (stream_key(tenant, topic), after_seq, limit))

    def first_stream_seq(self, tenant: str, topic: str) -> int | None:
        rows = self._rows("SELECT MIN(seq) FROM records WHERE stream = %s", (stream_key(tenant, topic),))
        return rows[0][0] if rows else None

    def read_action(self, action_id: str, types: Sequence[str] | None = None) -> list[Record]:
        if types:
            return self._records(f"SELECT {COLUMNS} FROM records WHERE action_id = %s AND type = ANY(%s) ORDER BY seq",
                                 (action_id, list(types)))
        return self._records(f"SELECT {COLUMNS} FROM records WHERE action_id = %s ORDER BY seq", (action_id,))

    def read_range(self, from_seq: int, to_seq: int, limit: int = 1000) -> list[Record]:
        return self._records(f"SELECT {COLUMNS} FROM records WHERE seq BETWEEN %s AND %s ORDER BY seq LIMIT %s",
                             (from_seq, to_seq, limit))

    def get(self, seq: int) -> Record | None:
        rows = self._records(f"SELECT {COLUMNS} FROM records WHERE seq = %s", (seq,))
        return rows[0] if rows else None

    def get_ref(self, ref: str) -> list[Record]:
        return self._records(f"SELECT {COLUMNS} FROM records WHERE ref = %s ORDER BY seq", (ref,))

    def iter_control(self) -> Iterator[Record]:
        """State and approval records in order, read in pages (keyset on seq)."""
        after = 0
        while True:
            page = self._records(f"SELECT {COLUMNS} FROM records WHERE type IN ('state', 'approval') AND seq > %s "
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
