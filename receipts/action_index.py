"""The SQLite receipt log's indexes of records by action and by stream, written in bulk.

Why: an SQLite index on ``records(action_id, seq)`` puts each record's entry beside its action's
earlier ones, so a commit holding records of N running actions rewrites N of the index's leaf
pages: about a 4 KB page into the WAL per record, copied, synced and checkpointed, and most of
SQLite's CPU per append. The index by stream (a tenant's topic) does the same per topic. Here the
writer keeps the entries of recent records in memory; once they reach ``every`` it writes them as
one row per key (``action_runs``, ``stream_runs``: the key, the first and last seq, the seqs
packed 8 bytes each), so 2,048 records of 100 running actions are 100 rows, not 2,048 B-tree
inserts (~1.7 us each). The rows of such a set are written over the next batches'
transactions, a slice of at least ``chunk_min`` rows (and one per two records of the batch; in a
per-record table eight times as many) in each, so no commit carries a large set whole (2,048 rows
written at once held up the batch that carried them by 7-13 ms, the append p99 of the whole log); ``upto`` moves to the set's last record in the
transaction of its last slice. A read takes the table's runs up to ``upto`` (rows of a set still
being written are not read) and the memory's entries after it. At open the memory is rebuilt
from the records after ``upto`` (fewer than twice ``every`` plus a batch); a set cut short by a
restart is written again, each run whole over its partial row (same key and first seq).

Logs written before keep what they have: SQLite's own index (``legacy``: SQLite maintains it,
reads use it; converting would read every record at start-up, which must not depend on the log's
size), or the table of one ``action_keys`` row per record (``keys``), which is kept up the same way.

One writer thread calls ``stage`` and ``committed``; any thread may call ``seqs``.
"""

from __future__ import annotations

import sqlite3
import sys
import threading
from array import array
from bisect import bisect_right
from typing import Any, NamedTuple

Key = tuple[str, int]  # (key, seq): an action id or a stream key, and a record


class Kind(NamedTuple):
    """One index: the ``records`` column it indexes, its table of runs, and the tables a log written
    before has (``keys``: one row per record; ``old_index``: SQLite's own on ``records(column, seq)``)."""

    name: str
    column: str
    keys: str | None
    old_index: str

    def schema(self) -> str:
        return (f"CREATE TABLE IF NOT EXISTS {self.name}_runs ({self.column} TEXT NOT NULL, "
                "first_seq INTEGER NOT NULL, last_seq INTEGER NOT NULL, seqs BLOB NOT NULL, "
                f"PRIMARY KEY ({self.column}, first_seq)) WITHOUT ROWID;\n"
                f"CREATE TABLE IF NOT EXISTS {self.name}_upto (id INTEGER PRIMARY KEY CHECK (id = 1), "
                "seq INTEGER NOT NULL);")


ACTIONS = Kind("action", "action_id", "action_keys", "records_action")
STREAMS = Kind("stream", "stream", None, "records_stream")
LEGACY, KEYS, RUNS = "legacy", "keys", "runs"


_LITTLE = sys.byteorder == "little"


def pack(seqs: list[int]) -> bytes:
    """A run's seqs as stored: 8 bytes each, little-endian."""
    out = array("q", seqs)
    if not _LITTLE:
        out.byteswap()
    return out.tobytes()


def unpack(blob: bytes) -> array:
    out = array("q")
    out.frombytes(blob)
    if not _LITTLE:
        out.byteswap()
    return out


class ActionIndex:
    """Which records carry a key (an action, a stream): the table up to ``upto``, memory after it."""

    def __init__(self, every: int = 2048, chunk_min: int = 16, kind: Kind = ACTIONS) -> None:
        self.kind = kind
        self.mode = RUNS
        self._insert = f"INSERT OR REPLACE INTO {kind.name}_runs VALUES (?, ?, ?, ?)"
        self._set_upto = f"INSERT OR REPLACE INTO {kind.name}_upto (id, seq) VALUES (1, ?)"
        self.every = every
        self.chunk_min = chunk_min
        self._lock = threading.Lock()
        self._upto = 0
        self._tail: dict[str, list[int]] = {}  # every entry after upto, by key (what reads use)
        self._pending: list[Key] = []  # entries not in a set being written yet
        self._sorted: list[tuple[Any, ...]] = []  # the set's rows being written, sorted; empty: none
        self._sorted_upto = 0  # the last record the set covers
        self._done = 0  # of the set, rows written in committed transactions

    @property
    def legacy(self) -> bool:
        return self.mode == LEGACY

    def load(self, conn: sqlite3.Connection) -> None:
        """At open, before the writer starts: the tables (or, for a log with the old index, legacy
        mode) and the memory of the records after the last completed bulk write."""
        kind = self.kind
        names = {n for (n,) in conn.execute("SELECT name FROM sqlite_master WHERE name IN (?, ?)",
                                            (kind.old_index, kind.keys or ""))}
        if kind.old_index in names:
            self.mode = LEGACY
            return
        if kind.keys in names:  # written by the version that stored one row per record
            self.mode = KEYS
            self._insert = f"INSERT OR IGNORE INTO {kind.keys} ({kind.column}, seq) VALUES (?, ?)"
            upto_table = f"{kind.keys}_upto"
            self._set_upto = f"INSERT OR REPLACE INTO {upto_table} (id, seq) VALUES (1, ?)"
        else:  # runs: the statements ``__init__`` made
            conn.executescript(kind.schema())
            upto_table = f"{kind.name}_upto"
        row = conn.execute(f"SELECT seq FROM {upto_table} WHERE id = 1").fetchone()
        upto = row[0] if row else 0
        pending: list[Key] = conn.execute(
            f"SELECT {kind.column}, seq FROM records WHERE seq > ? AND {kind.column} IS NOT NULL ORDER BY seq",
            (upto,)).fetchall()
        with self._lock:
            self._upto, self._tail, self._pending = upto, _by_action(pending), pending
            self._sorted, self._sorted_upto, self._done = [], 0, 0

    def stage(self, conn: sqlite3.Connection, new: list[Key], last_seq: int, records: int) -> Slice | None:
        """In the writer's open transaction of ``records`` records up to ``last_seq``: start a
        sorted set if the memory and ``new`` reach ``every``, and write the set's next slice. What
        was written (None: nothing), for ``committed`` once the transaction has committed."""
        if self.legacy:
            return None
        keys, start, upto = self._sorted, self._done, self._sorted_upto
        fresh = not keys
        if fresh:
            if len(self._pending) + len(new) < self.every:
                return None
            keys, start, upto = self._rows(new), 0, last_seq
        # a run row holds ~every/keys entries and dirties a page of its own: a few per commit
        end = start + (max(self.chunk_min, records // 2) if self.mode == RUNS else 8 * max(self.chunk_min, records // 2))
        conn.executemany(self._insert, keys[start:end])
        if end >= len(keys):
            conn.execute(self._set_upto, (upto,))
        return Slice(keys if fresh else None, upto, min(end, len(keys)))

    def _rows(self, new: list[Key]) -> list[tuple[Any, ...]]:
        """The rows of a new set: the memory's entries and ``new``; in runs, one per key (its seqs
        packed), which a restart before the set is complete writes again, whole (REPLACE)."""
        if self.mode == KEYS:
            return sorted(self._pending + new)
        runs = _by_action(new, {k: list(v) for k, v in self._tail.items()})
        return sorted((key, seqs[0], seqs[-1], pack(seqs)) for key, seqs in runs.items())

    def table_seqs(self, conn: sqlite3.Connection, key: str, after: int, bound: int,
                   limit: int | None = None) -> list[int]:
        """The key's seqs in the table with ``after`` < seq <= ``bound`` (at most ``bound`` is
        ``upto``), in order, at most ``limit``."""
        if after >= bound:
            return []
        if self.mode == KEYS:
            return [s for (s,) in conn.execute(
                f"SELECT seq FROM {self.kind.keys} WHERE {self.kind.column} = ? AND seq > ? AND seq <= ? "
                "ORDER BY seq LIMIT ?", (key, after, bound, -1 if limit is None else limit))]
        table, col = f"{self.kind.name}_runs", self.kind.column
        # the run holding ``after`` (the last to start at or before it), then the runs after it
        rows = conn.execute(
            f"SELECT seqs FROM {table} WHERE {col} = ?1 AND first_seq <= ?3 AND first_seq >= "
            f"COALESCE((SELECT first_seq FROM {table} WHERE {col} = ?1 AND first_seq <= ?2 "
            "ORDER BY first_seq DESC LIMIT 1), 0) ORDER BY first_seq", (key, after, bound))
        out: list[int] = []
        for (blob,) in rows:
            seqs = unpack(blob)
            if seqs[0] > after and seqs[-1] <= bound:
                out += seqs
            else:
                out += [s for s in seqs if after < s <= bound]
            if limit is not None and len(out) >= limit:
                return out[:limit]
        return out

    def committed(self, new: list[Key], written: Slice | None, last_seq: int) -> None:
        """After that transaction committed (not before: a rolled-back batch leaves no trace)."""
        if self.legacy:
            return
        with self._lock:
            _by_action(new, self._tail)
            if written is None:
                self._pending += new
                return
            if written.keys is not None:  # a new set (it holds ``new``)
                self._sorted, self._sorted_upto, self._pending = written.keys, written.upto, []
            else:
                self._pending += new
            self._done = written.done
            if written.done >= len(self._sorted):  # the set is in the table: upto moves
                self._upto, self._sorted, self._done = self._sorted_upto, [], 0
                self._tail = _by_action(self._pending)

    def seqs(self, key: str, after: int = 0, limit: int | None = None) -> tuple[int, list[int]]:
        """(upto, the key's seqs after ``upto`` and ``after``, at most ``limit``): read the table up
        to ``upto``, then these."""
        with self._lock:
            seqs = self._tail.get(key)
            if not seqs:
                return self._upto, []
            i = bisect_right(seqs, after) if after else 0
            return self._upto, seqs[i:] if limit is None else seqs[i:i + limit]


class Slice(NamedTuple):
    """What one transaction wrote of a sorted set: ``keys`` the set's rows when it started it (else
    None), ``upto`` the set's last record, ``done`` the rows of the set written so far."""

    keys: list[tuple[Any, ...]] | None
    upto: int
    done: int


def _by_action(keys: list[Key], tail: dict[str, list[int]] | None = None) -> dict[str, list[int]]:
    """Each key's seqs, in order, added to ``tail`` (a new dict when none is given), which is returned."""
    tail = {} if tail is None else tail
    for action_id, seq in keys:
        seqs = tail.get(action_id)
        if seqs is None:
            tail[action_id] = [seq]
        else:
            seqs.append(seq)
    return tail
