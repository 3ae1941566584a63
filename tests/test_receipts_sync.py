"""The receipt log's writer commits without syncing and a syncer makes commits durable: nothing is
read, published or acknowledged before the sync that covers it, a failed sync acknowledges nothing
more, and a large batch is split so one half's sync overlaps the other half's writing.

The syncs here are the log's real ``fdatasync`` of its WAL file; a test only holds one back (a
gate) or makes it fail as a full disk would, to look at the log in between."""

from __future__ import annotations

import asyncio
import errno
import sqlite3
import threading
import time
from concurrent.futures import Future
from pathlib import Path

import pytest

from receipts.log import DB_FILE, Entry, ReceiptLog, split_point
from receipts.store import verify_store
from receipts.verify import verify_data_dir
from receipts.walsync import WalSync

WAIT_S = 30  # bounded waits for the writer's threads (never reached unless something hangs)


class GatedSync(WalSync):
    """The real WAL sync, held until ``release``; ``entered`` is set once a sync is waiting."""

    __slots__ = ("entered", "gate")

    def __init__(self, database: Path) -> None:
        super().__init__(database)
        self.entered = threading.Event()
        self.gate = threading.Event()

    def sync(self) -> None:
        self.entered.set()
        assert self.gate.wait(WAIT_S), "gate never released"
        super().sync()


class FailingSync(WalSync):
    """A disk that refuses to sync (as ``fdatasync`` does on an I/O error)."""

    __slots__ = ()

    def sync(self) -> None:
        raise OSError(errno.EIO, "Input/output error")


def event(i: int, topic: str = "t") -> Entry:
    return Entry("event", "progress", "acme", {"i": i}, topic=topic, action_id="act_1", ref=f"ref_{i}", stream=True)


def on_disk(data_dir: Path) -> int:
    conn = sqlite3.connect(data_dir / DB_FILE)
    try:
        return conn.execute("SELECT COUNT(*) FROM records").fetchone()[0]
    finally:
        conn.close()


def test_a_committed_record_is_neither_read_nor_acknowledged_before_its_sync(tmp_path):
    rlog = ReceiptLog(tmp_path)
    rlog.open()
    try:
        (first,) = rlog.append_sync([event(1)])
        gate = GatedSync(rlog.path)
        rlog._wal = gate  # the next syncs wait at the gate
        answers: list = []
        appender = threading.Thread(target=lambda: answers.append(rlog.append_sync([event(2)])))
        appender.start()
        assert gate.entered.wait(WAIT_S)
        assert on_disk(tmp_path) == 2  # committed: another connection sees it in the file...
        # ...but the log neither publishes nor answers it before the sync that covers it
        assert answers == [] and rlog.last_seq == 1 and rlog.tree_size == 1
        assert rlog.get(2) is None
        assert [r.seq for r in rlog.read_range(1, 10)] == [1]
        assert [r.seq for r in rlog.read_stream("acme", "t", 0)] == [1]
        assert [r.seq for r in rlog.read_action("act_1")] == [1]
        assert rlog.get_ref("ref_2") == []
        assert verify_store(rlog).checked == 1
        gate.gate.set()
        appender.join(WAIT_S)
        (second,) = answers[0]
        assert second.seq == 2 and second.fields["prev"] == first.hash
        assert rlog.last_seq == 2 and rlog.get(2).hash == second.hash and rlog.tree_size == 2
        assert [r.seq for r in rlog.read_stream("acme", "t", 0)] == [1, 2]
    finally:
        rlog.close()
    assert verify_data_dir(tmp_path).ok


async def test_listeners_and_loop_appenders_see_records_only_after_their_sync(tmp_path):
    rlog = ReceiptLog(tmp_path)
    rlog.open()
    loop = asyncio.get_running_loop()
    rlog.bind_loop(loop)
    seen: list[int] = []
    rlog.add_listener(lambda recs: seen.extend(r.seq for r in recs))
    try:
        gate = GatedSync(rlog.path)
        rlog._wal = gate
        task = asyncio.ensure_future(rlog.append([event(1), event(2)]))
        assert await loop.run_in_executor(None, gate.entered.wait, WAIT_S)
        await asyncio.sleep(0)
        assert not task.done() and seen == [] and on_disk(tmp_path) == 2
        gate.gate.set()
        recs = await asyncio.wait_for(task, WAIT_S)
        assert [r.seq for r in recs] == [1, 2] and seen == [1, 2]
    finally:
        await loop.run_in_executor(None, rlog.close)


def test_a_failed_sync_acknowledges_nothing_and_stops_the_log(tmp_path):
    rlog = ReceiptLog(tmp_path)
    rlog.open()
    try:
        rlog.append_sync([event(1)])
        rlog._wal = FailingSync(rlog.path)
        with pytest.raises(RuntimeError, match="receipt log sync failed: .*Input/output error"):
            rlog.append_sync([event(2)])
        with pytest.raises(RuntimeError, match="sync failed"):  # nothing after it either
            rlog.append_sync([event(3)])
        assert rlog.last_seq == 1 and rlog.get(2) is None and rlog.tree_size == 1
    finally:
        rlog._wal = WalSync(rlog.path)  # so close() can sign its last head
        rlog.close()
    report = verify_data_dir(tmp_path)
    assert report.ok and report.checked == 2  # the unacknowledged record is there, chained; not lost, not claimed


@pytest.mark.parametrize(("sizes", "min_half", "cut"), [
    ([1] * 100, 16, 50),  # 100 appenders with one record each: two commits of 50
    ([1] * 31, 16, 0),  # too few for two halves of 16
    ([1] * 32, 16, 16),
    ([40], 16, 0),  # one append is never cut
    ([1, 99], 16, 0),  # the only cut leaves a half of one record
    ([30, 1, 1, 30], 16, 2),
    ([1] * 100, 0, 0),  # split_min 0: never split
])
def test_split_point(sizes, min_half, cut):
    assert split_point(sizes, min_half) == cut


@pytest.mark.parametrize(("split_min", "commits"), [(16, 2), (0, 1)])
def test_a_batch_taken_while_the_syncer_is_idle_is_committed_in_two_halves(tmp_path, split_min, commits):
    rlog = ReceiptLog(tmp_path, split_min=split_min)
    rlog.open()
    try:
        gate = GatedSync(rlog.path)
        rlog._wal = gate
        rlog.submit([event(0)])  # committed; its sync waits at the gate
        assert gate.entered.wait(WAIT_S)
        signed: Future = Future()
        rlog._queue.put(("sign", signed))  # (what sign_tree_head does) the writer waits for that sync
        for _ in range(WAIT_S * 100):  # until the writer waits: its barrier is in the syncer's queue
            if rlog._synq.qsize():
                break
            time.sleep(0.01)
        before = rlog.commits_total
        for i in range(1, 65):  # 64 appends of one record queue up meanwhile
            rlog.submit([event(i)])
        gate.gate.set()  # the syncer is idle after this sync: the writer takes all 64 at once
        signed.result(WAIT_S)
        rlog.sign_tree_head()  # returns once everything queued before it is durable
        assert rlog.last_seq == 65
        assert rlog.commits_total - before == 1 + commits  # event 0's commit, then the 64 in one or two
    finally:
        rlog.close()
    assert verify_data_dir(tmp_path).ok
