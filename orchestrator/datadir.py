"""The embedded data directory: one server at a time, secrets readable by its owner only.

Two servers appending to one SQLite log would race for sequence numbers, so ``metis serve`` takes
an exclusive ``flock`` on ``<data-dir>/metis.lock`` for its whole life; a second one is refused
with the holder's pid. The kernel drops the lock when the holder dies (even by ``kill -9``), so a
stale lock file never blocks a restart.

Everything the server writes there (tokens, the receipt log and its WAL/SHM, keys, tree heads)
is created ``0600``: the server runs under ``umask 077`` and tightens files an older version
left readable.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path

LOCK_FILE = "metis.lock"
#: Files holding secrets or tenant data; the public key (``*.pub.pem``) is meant to be shared.
PRIVATE_FILES = ("tokens.json", "server.key", "signing_key.pem", "receipts.sqlite3", "receipts.sqlite3-wal",
                 "receipts.sqlite3-shm", "tree_head.json", LOCK_FILE)
PRIVATE_UMASK = 0o077


class DataDirInUse(RuntimeError):
    """Another live process holds the data directory's lock."""

    def __init__(self, data_dir: Path, pid: int | None) -> None:
        holder = f"pid {pid}" if pid else "an unknown process"
        super().__init__(f"data directory {data_dir} is in use by another metis serve ({holder}); "
                         "stop it first or choose another --data-dir")
        self.pid = pid


class DataDirLock:
    """An exclusive, non-blocking ``flock`` held until ``release`` (or process death)."""

    def __init__(self, data_dir: Path) -> None:
        self.path = Path(data_dir) / LOCK_FILE
        self._fd: int | None = None

    def acquire(self) -> None:
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            text = os.pread(fd, 32, 0).decode(errors="replace").strip()
            os.close(fd)
            raise DataDirInUse(self.path.parent, int(text) if text.isdigit() else None) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None


def make_private(data_dir: Path) -> int:
    """Create ``data_dir`` (0700 when new), set ``umask 077`` and chmod existing private files
    to 0600; returns the previous umask (for child processes and for restoring it)."""
    previous = os.umask(PRIVATE_UMASK)
    data_dir = Path(data_dir)
    if not data_dir.exists():
        data_dir.mkdir(parents=True, mode=0o700)
    for name in PRIVATE_FILES:
        with contextlib.suppress(FileNotFoundError):
            path = data_dir / name
            if path.stat().st_mode & 0o077:
                path.chmod(0o600)
    return previous
