"""Making an SQLite WAL database's commits durable with our own sync, off the committing thread.

Why: with ``synchronous=FULL`` SQLite syncs the write-ahead log inside ``COMMIT``, so the next
transaction cannot be written while the disk flushes the last one. The receipt log's writer
commits with ``synchronous=NORMAL`` (consistent after a crash or power loss, but the last commits
may be lost) and a second thread syncs the WAL file with ``fdatasync``; an appender is
acknowledged only after a sync that began after its commit returned, which gives it the same
guarantee as ``FULL`` while the next batch is being written. Checkpoints are unchanged: in
``NORMAL`` SQLite still syncs the WAL before a checkpoint and the database file after it.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path

import structlog

log = structlog.get_logger("metis.receipts")
_datasync = getattr(os, "fdatasync", os.fsync)  # fdatasync where the platform has it (as SQLite uses)


class WalSync:
    """Syncs ``<database>-wal``. Not thread-safe: one thread calls ``sync`` at a time (the syncer;
    the writer only when the syncer is idle).

    The file is opened at the first ``sync`` after ``open``/``close`` and kept: SQLite replaces the
    WAL only when every connection to the database has closed, and the log keeps its connections
    open from its ``open`` to its ``close`` (which closes this too), so the file cannot change in
    between. (Looking it up by name at every sync cost a ``stat`` and a wait for the GIL, about a
    tenth of the syncer's time.) A new file's directory entry is synced once, too."""

    __slots__ = ("_fd", "path")

    def __init__(self, database: Path) -> None:
        self.path = Path(f"{database}-wal")
        self._fd: int | None = None

    def sync(self) -> None:
        """Flush the WAL file to the device."""
        if self._fd is None:
            self._fd = os.open(self.path, os.O_RDWR | getattr(os, "O_CLOEXEC", 0))
            _sync_dir(self.path.parent)
        _datasync(self._fd)

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def _sync_dir(directory: Path) -> None:
    """Make a new file's name durable (POSIX; a no-op where directories cannot be opened)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


class WalCheckpointer:
    """Checkpoints the WAL from its own thread and connection, so that no commit carries one.

    Why: SQLite's automatic checkpoint runs inside the ``COMMIT`` that crosses
    ``wal_autocheckpoint``: that commit copies ~4 MB into the database file and syncs both files,
    a third of the writer's SQLite time and the slowest commits (every appender waiting on that
    batch waits for the copy). Here the writer only ``request``s one, and this thread copies the
    WAL with ``PASSIVE`` checkpoints (they never block the writer or readers), pass after pass
    until one finds no frame left: only then does the writer's next transaction start the WAL
    over from its beginning, which happens when a pass ends while the writer is between
    transactions. A writer that is never idle at that moment would let the WAL grow without end,
    so once it holds ``gate_frames`` (it was not started over since) this thread syncs the database file (what it copied reaches
    the disk outside the gate), then takes ``gate`` (the writer holds it around each
    transaction) for one last pass over the few frames committed meanwhile; the writer waits
    for that pass (two syncs: milliseconds on a busy disk), so it is the exception. SQLite still
    syncs the WAL before it copies and the database file after a complete copy, as in its own
    checkpoint.

    ``connect`` opens the thread's connection (in the thread). ``close`` stops the thread and
    closes the connection: it is woken by the same event as a request, so it never waits on more
    than the checkpoint running at that moment."""

    __slots__ = ("_connect", "_db", "_gate", "_stop", "_thread", "_wake", "complete", "error", "frames_max",
                 "gate_frames", "gate_max_s", "gate_s", "gated", "runs")

    def __init__(self, connect: Callable[[], sqlite3.Connection], database: Path, gate: threading.Lock,
                 gate_frames: int = 4000, name: str = "receipt-log-checkpointer") -> None:
        self._connect = connect
        self._db = database
        self._gate = gate
        self.gate_frames = gate_frames  # a WAL this large is finished under the gate
        self._wake = threading.Event()
        self._stop = False
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self.runs = 0  # checkpoint requests served
        self.complete = 0  # of those, how many ended with every committed frame copied
        self.frames_max = 0  # the largest WAL seen (frames): stays near the request size while resets happen
        self.error: str | None = None  # the last checkpoint's failure (logged; the next request retries)
        self.gated = 0  # checkpoints finished under the gate
        self.gate_s = self.gate_max_s = 0.0  # time the gate was held (the writer waits at most that long)

    def start(self) -> None:
        self._thread.start()

    def request(self) -> None:
        """Ask for a checkpoint soon (cheap; requests made while one runs are merged)."""
        self._wake.set()

    def close(self) -> None:
        self._stop = True
        self._wake.set()
        if self._thread.ident is not None:
            self._thread.join()

    def _pass(self, conn: sqlite3.Connection) -> tuple[int, int]:
        """One PASSIVE checkpoint: the WAL's frames, and those it left uncopied."""
        _busy, frames, copied = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        self.frames_max = max(self.frames_max, frames)
        return frames, frames - copied

    def _run(self) -> None:
        conn = self._connect()
        try:
            while True:
                self._wake.wait()
                if self._stop:
                    return
                self._wake.clear()
                try:
                    self._checkpoint(conn)
                except (sqlite3.Error, OSError) as exc:
                    self.error = str(exc)
                    log.warning("wal_checkpoint_failed", error=self.error)
        finally:
            conn.close()

    def _checkpoint(self, conn: sqlite3.Connection) -> None:
        self.runs += 1
        frames = left = 0
        for _ in range(8):  # each pass copies what the writer committed during the one before
            frames, left = self._pass(conn)
            if left <= 0 or self._stop:
                break
        if frames >= self.gate_frames:  # no pass ended while the writer was idle: make it pause for one
            fd = os.open(self._db, os.O_RDWR | getattr(os, "O_CLOEXEC", 0))
            try:  # the copied pages reach the disk now, so the sync under the gate has little to write
                _datasync(fd)
            finally:
                os.close(fd)
            with self._gate:
                t0 = time.perf_counter()
                frames, left = self._pass(conn)
                held = time.perf_counter() - t0
            self.gated += 1
            self.gate_s += held
            self.gate_max_s = max(self.gate_max_s, held)
        if left <= 0:
            self.complete += 1
