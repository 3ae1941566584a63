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
from pathlib import Path

_datasync = getattr(os, "fdatasync", os.fsync)  # fdatasync where the platform has it (as SQLite uses)


class WalSync:
    """Syncs ``<database>-wal``. Not thread-safe: one thread calls ``sync`` at a time (the syncer;
    the writer only when the syncer is idle)."""

    __slots__ = ("_fd", "_ino", "path")

    def __init__(self, database: Path) -> None:
        self.path = Path(f"{database}-wal")
        self._fd: int | None = None
        self._ino = 0

    def sync(self) -> None:
        """Flush the WAL file to the device. The file is the one SQLite writes now: if it was
        replaced (every connection closed, then reopened) since it was opened here, the new one is
        opened; a new file's directory entry is synced once, too."""
        ino = os.stat(self.path).st_ino
        if self._fd is None or ino != self._ino:
            self.close()
            self._fd = os.open(self.path, os.O_RDWR | getattr(os, "O_CLOEXEC", 0))
            self._ino = os.fstat(self._fd).st_ino
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
