"""The WAL is checkpointed by its own thread (``receipts.walsync.WalCheckpointer``), not inside a
commit: the WAL stays near the requested size while appends keep coming (it starts over from
its beginning, which a busy writer never allows without the gate), the database file holds the
records, a failed checkpoint loses and stops nothing, and ``close`` returns while a checkpoint
is under way. Real SQLite files, the log's real threads."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import pytest

from receipts.log import DB_FILE, Entry, ReceiptLog, connect
from receipts.verify import verify_data_dir
from receipts.walsync import WalCheckpointer

WAIT_S = 30


def event(i: int) -> Entry:
    return Entry("event", "progress", "acme", {"i": i, "pad": "x" * 300}, topic="t", action_id=f"act_{i % 7}",
                 stream=True)


def wal_frames(data_dir: Path) -> int:
    return (data_dir / f"{DB_FILE}-wal").stat().st_size // 4120  # 4096-byte pages + 24-byte frame headers


def appender_threads(rlog: ReceiptLog, n: int, each: int) -> list[threading.Thread]:
    def run(k: int) -> None:
        for i in range(each):
            rlog.append_sync([event(k * each + i)])
    threads = [threading.Thread(target=run, args=(k,)) for k in range(n)]
    for t in threads:
        t.start()
    return threads


def test_the_wal_stays_near_the_requested_size_while_appends_keep_coming(tmp_path):
    rlog = ReceiptLog(tmp_path, checkpoint_pages=50)
    rlog.open()
    try:
        for t in appender_threads(rlog, 8, 800):  # 6,400 records, ~1,700 pages of WAL without checkpoints
            t.join(WAIT_S)
        ckpt = rlog._checkpointer
        assert ckpt is not None and ckpt.error is None
        assert ckpt.runs >= 3 and ckpt.complete >= 1  # it ran, and at least once copied every frame
        assert ckpt.frames_max < 50 * 8, ckpt.frames_max  # never far past the gate's size (4 x 50)
        assert wal_frames(tmp_path) < 50 * 8  # the file was started over, not grown
        assert rlog.last_seq == 6400
    finally:
        rlog.close()
    conn = sqlite3.connect(tmp_path / DB_FILE)
    assert conn.execute("SELECT COUNT(*) FROM records").fetchone()[0] == 6400
    conn.close()
    assert verify_data_dir(tmp_path).ok


def test_without_the_checkpointer_the_commits_checkpoint_as_sqlite_does(tmp_path):
    rlog = ReceiptLog(tmp_path, checkpoint_pages=0)  # 0: no checkpoints at all (as wal_autocheckpoint=0)
    rlog.open()
    try:
        assert rlog._checkpointer is None
        for t in appender_threads(rlog, 4, 200):
            t.join(WAIT_S)
        assert wal_frames(tmp_path) > 100  # nothing copied it back
    finally:
        rlog.close()
    assert verify_data_dir(tmp_path).ok


def test_a_failing_checkpoint_loses_nothing_and_appends_go_on(tmp_path):
    rlog = ReceiptLog(tmp_path, checkpoint_pages=20)
    rlog.open()
    blocker = sqlite3.connect(tmp_path / DB_FILE, isolation_level=None)
    try:
        rlog.append_sync([event(0)])
        ckpt = rlog._checkpointer
        assert ckpt is not None
        ckpt._db = tmp_path / "missing" / DB_FILE  # its sync of the database file fails (as on an I/O error)
        blocker.execute("BEGIN")  # and a reader holds a snapshot, so no pass copies everything
        blocker.execute("SELECT COUNT(*) FROM records").fetchone()
        for t in appender_threads(rlog, 4, 100):
            t.join(WAIT_S)
        deadline = time.monotonic() + WAIT_S
        while ckpt.error is None and time.monotonic() < deadline:
            time.sleep(0.01)
        assert ckpt.error is not None and "No such file" in ckpt.error
        assert rlog.append_sync([event(1)])[0].seq == 402  # the log goes on
        blocker.execute("COMMIT")
    finally:
        blocker.close()
        rlog.close()
    report = verify_data_dir(tmp_path)
    assert report.ok and report.checked == 402


class SlowCheckpointer(WalCheckpointer):
    """The real checkpointer, whose checkpoints wait for ``release`` (a slow disk)."""

    __slots__ = ("entered", "release")

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.entered, self.release = threading.Event(), threading.Event()

    def _checkpoint(self, conn: sqlite3.Connection) -> None:
        self.entered.set()
        self.release.wait(WAIT_S)
        super()._checkpoint(conn)


def test_close_returns_while_a_checkpoint_is_under_way(tmp_path):
    rlog = ReceiptLog(tmp_path, checkpoint_pages=10)
    rlog.open()
    assert rlog._checkpointer is not None
    rlog._checkpointer.close()  # the log's own, replaced by a slow one
    ckpt = rlog._checkpointer = SlowCheckpointer(lambda: connect(rlog.path), rlog.path, rlog._gate)
    ckpt.start()
    for t in appender_threads(rlog, 2, 50):
        t.join(WAIT_S)
    assert ckpt.entered.wait(WAIT_S)
    closer = threading.Thread(target=rlog.close)
    closer.start()
    time.sleep(0.2)
    assert closer.is_alive()  # close waits for the checkpoint under way...
    ckpt.release.set()
    closer.join(WAIT_S)  # ...and for nothing else
    assert not closer.is_alive()
    assert not [t for t in threading.enumerate() if t.name.startswith("receipt-log-")]
    assert ckpt.runs == 1 and ckpt.error is None
    assert verify_data_dir(tmp_path).checked == 100


def test_a_failed_commit_acknowledges_nothing_releases_the_gate_and_the_log_goes_on(tmp_path):
    rlog = ReceiptLog(tmp_path, checkpoint_pages=10)
    rlog.open()
    other = sqlite3.connect(tmp_path / DB_FILE, isolation_level=None)
    try:
        rlog.append_sync([event(0)])
        # the database refuses one record (as a full disk or a constraint would): the whole commit fails
        other.execute("CREATE TRIGGER refuse BEFORE INSERT ON records WHEN NEW.name = 'boom' "
                      "BEGIN SELECT RAISE(ABORT, 'refused'); END")
        with pytest.raises(RuntimeError, match="receipt log commit failed: refused"):
            rlog.append_sync([event(1), Entry("event", "boom", "acme", {})])
        assert rlog.last_seq == 1 and rlog.get(2) is None
        other.execute("DROP TRIGGER refuse")
        assert rlog._gate.acquire(timeout=WAIT_S)  # not left held by the failed transaction
        rlog._gate.release()
        for t in appender_threads(rlog, 4, 100):  # the chain goes on from the last committed record
            t.join(WAIT_S)
        assert rlog.last_seq == 401
        ckpt = rlog._checkpointer
        assert ckpt is not None and ckpt.complete >= 1 and ckpt.error is None
    finally:
        other.close()
        rlog.close()
    report = verify_data_dir(tmp_path)
    assert report.ok and report.checked == 401
