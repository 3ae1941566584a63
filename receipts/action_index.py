"""The SQLite receipt log's index of records by action, written in sorted bulk.

Why: an SQLite index on ``records(action_id, seq)`` puts each record's entry beside its action's
earlier ones, so a commit holding records of N running actions rewrites N of the index's leaf
pages: about a 4 KB page into the WAL per record, copied, synced and checkpointed, and most of
SQLite's CPU per append. Here the writer keeps the entries of recent records in memory and writes
them, sorted, into the ``action_keys`` table in the transaction of every batch that brings them to
``every``: each action's new entries then share a page. A read takes the table's entries up to the
last bulk write (``upto``) and the memory's after it. At open the memory is rebuilt from the
records after ``upto`` (fewer than ``every`` plus one batch). A log written with the old index
keeps it (``legacy``: SQLite maintains it, reads use it): converting it would read every record
at start-up, which must not depend on the log's size.

One writer thread calls ``stage`` and ``committed``; any thread may call ``seqs``.
"""

from __future__ import annotations

import sqlite3
import threading

SCHEMA = """
CREATE TABLE IF NOT EXISTS action_keys (
  action_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  PRIMARY KEY (action_id, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS action_keys_upto (id INTEGER PRIMARY KEY CHECK (id = 1), seq INTEGER NOT NULL);
"""
OLD_INDEX = "records_action"
INSERT_KEYS = "INSERT INTO action_keys (action_id, seq) VALUES (?, ?)"
SET_UPTO = "INSERT OR REPLACE INTO action_keys_upto (id, seq) VALUES (1, ?)"
Key = tuple[str, int]  # (action_id, seq)


class ActionIndex:
    """Which records belong to an action: ``action_keys`` up to ``upto``, memory after it."""

    def __init__(self, every: int = 2048) -> None:
        self.every = every
        self._lock = threading.Lock()
        self._upto = 0
        self._tail: dict[str, list[int]] = {}
        self._pending: list[Key] = []
        self.legacy = False

    def load(self, conn: sqlite3.Connection) -> None:
        """At open, before the writer starts: the tables (or, for a log with the old index, legacy
        mode) and the memory of the records after the last bulk write."""
        if conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?", (OLD_INDEX,)).fetchone():
            self.legacy = True
            return
        conn.executescript(SCHEMA)
        row = conn.execute("SELECT seq FROM action_keys_upto WHERE id = 1").fetchone()
        upto = row[0] if row else 0
        pending: list[Key] = conn.execute(
            "SELECT action_id, seq FROM records WHERE seq > ? AND action_id IS NOT NULL ORDER BY seq", (upto,)).fetchall()
        tail: dict[str, list[int]] = {}
        for action_id, seq in pending:
            tail.setdefault(action_id, []).append(seq)
        with self._lock:
            self._upto, self._tail, self._pending = upto, tail, pending

    def stage(self, conn: sqlite3.Connection, new: list[Key], last_seq: int) -> bool:
        """In the writer's open transaction of records up to ``last_seq``: write the entries held in
        memory and ``new`` if together they reach ``every``. True if written."""
        if self.legacy or len(self._pending) + len(new) < self.every:
            return False
        conn.executemany(INSERT_KEYS, sorted(self._pending + new))
        conn.execute(SET_UPTO, (last_seq,))
        return True

    def committed(self, new: list[Key], written: bool, last_seq: int) -> None:
        """After that transaction committed (not before: a rolled-back batch leaves no entry)."""
        if self.legacy:
            return
        with self._lock:
            if written:
                self._upto, self._tail, self._pending = last_seq, {}, []
                return
            self._pending += new
            tail = self._tail
            for action_id, seq in new:
                seqs = tail.get(action_id)
                if seqs is None:
                    tail[action_id] = [seq]
                else:
                    seqs.append(seq)

    def seqs(self, action_id: str) -> tuple[int, list[int]]:
        """(upto, the action's seqs after it): read ``action_keys`` up to ``upto``, then these."""
        with self._lock:
            return self._upto, list(self._tail.get(action_id, ()))
