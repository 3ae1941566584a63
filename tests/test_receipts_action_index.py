"""The receipt log's action and stream indexes, written in bulk (receipts/action_index.py):
``read_action``, ``read_stream`` and ``first_stream_seq`` answer exactly what a scan of the records
table answers, across bulk writes and reopenings, and on a log that still has the old SQLite
indexes (kept as they are)."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import pytest

from receipts.action_index import unpack
from receipts.log import COLUMNS, DB_FILE, Entry, ReceiptLog, stream_key
from receipts.verify import verify_data_dir

ACTIONS = [f"act_{i}" for i in range(5)]
TYPES = ["event", "state", "receipt"]


def scan(data_dir: Path, action_id: str, types: list[str] | None = None) -> list[int]:
    """The truth, by a full scan of the records table on a connection of its own."""
    conn = sqlite3.connect(data_dir / DB_FILE)
    try:
        rows = conn.execute(f"SELECT {COLUMNS} FROM records WHERE action_id = ? ORDER BY seq", (action_id,)).fetchall()
    finally:
        conn.close()
    return [r[0] for r in rows if types is None or r[1] in types]


def check(rlog: ReceiptLog, data_dir: Path) -> None:
    for action_id in ACTIONS + ["act_none"]:
        assert [r.seq for r in rlog.read_action(action_id)] == scan(data_dir, action_id)
        for types in (["state"], ["event", "receipt"]):
            got = rlog.read_action(action_id, types)
            assert [r.seq for r in got] == scan(data_dir, action_id, types)
            assert all(r.action_id == action_id and r.type in types for r in got)


def append_random(rlog: ReceiptLog, rnd: random.Random, batches: int) -> None:
    for _ in range(batches):
        entries = []
        for _ in range(rnd.randint(1, 9)):
            action = rnd.choice(ACTIONS + [None])  # some records belong to no action
            entries.append(Entry(rnd.choice(TYPES), "x", "acme", {"n": rnd.random()}, topic="t", action_id=action))
        rlog.append_sync(entries)


@pytest.mark.parametrize(("every", "part"), [(1, 16), (7, 16), (2048, 16), (7, 1), (40, 1)])
def test_read_action_equals_a_scan_across_bulk_writes_and_reopening(tmp_path, every, part):
    """``part`` 1: a set is written over several commits (with 1-9 records each, one row in most)."""
    rnd = random.Random(every)
    rlog = ReceiptLog(tmp_path, action_index_every=every, action_index_slice=part)
    rlog.open()
    try:
        for _ in range(6):
            append_random(rlog, rnd, 5)
            check(rlog, tmp_path)
    finally:
        rlog.close()
    again = ReceiptLog(tmp_path, action_index_every=every, action_index_slice=part)
    again.open()  # the records after the last bulk write are found again
    try:
        check(again, tmp_path)
        append_random(again, rnd, 10)
        check(again, tmp_path)
    finally:
        again.close()
    assert verify_data_dir(tmp_path).ok


def runs(data_dir: Path, kind: str = "action") -> tuple[list[tuple[str, int, list[int]]], int]:
    """The runs table (key, first seq, seqs) and ``upto``, read on a connection of its own."""
    conn = sqlite3.connect(data_dir / DB_FILE)
    try:
        row = conn.execute(f"SELECT seq FROM {kind}_upto").fetchone()
        rows = [(k, first, list(unpack(blob))) for k, first, blob in conn.execute(
            f"SELECT {kind}_id, first_seq, seqs FROM {kind}_runs ORDER BY 1, 2" if kind == "action" else
            f"SELECT {kind}, first_seq, seqs FROM {kind}_runs ORDER BY 1, 2")]
        return rows, row[0] if row else 0
    finally:
        conn.close()


def test_entries_are_written_in_bulk_one_row_per_action_not_per_record(tmp_path):
    rlog = ReceiptLog(tmp_path, action_index_every=10)
    rlog.open()
    try:
        for i in range(4):  # 4 records: below the bulk size, kept in memory
            rlog.append_sync([Entry("event", "x", "acme", {"i": i}, action_id="act_0")])
        assert runs(tmp_path) == ([], 0)
        rlog.append_sync([Entry("event", "x", "acme", {"i": i}, action_id="act_0") for i in range(6)])
        assert runs(tmp_path) == ([("act_0", 1, list(range(1, 11)))], 10)  # one row holds all ten
        assert [r.seq for r in rlog.read_action("act_0")] == list(range(1, 11))
    finally:
        rlog.close()


def one(rlog: ReceiptLog, i: int) -> None:
    rlog.append_sync([Entry("event", "x", "acme", {"i": i}, action_id=f"act_{i % 12}")])


def check_twelve(rlog: ReceiptLog, data_dir: Path) -> None:
    for k in range(12):
        assert [r.seq for r in rlog.read_action(f"act_{k}")] == scan(data_dir, f"act_{k}")


def test_a_set_is_written_in_slices_and_upto_moves_with_the_last(tmp_path):
    """Twelve actions, one record per commit: a set of twelve runs is written four rows per commit
    (``action_index_slice``);
    reads stay exact while the table holds a partly written set, and after a restart in the middle
    of one (its runs are written again, whole, over the partial ones)."""
    rlog = ReceiptLog(tmp_path, action_index_every=24, action_index_slice=4)
    rlog.open()
    try:
        for i in range(23):
            one(rlog, i)
        assert runs(tmp_path) == ([], 0)
        one(rlog, 23)  # the set starts: its first slice
        rows, upto = runs(tmp_path)
        assert (len(rows), upto) == (4, 0)
        check_twelve(rlog, tmp_path)
        one(rlog, 24)
        rows, upto = runs(tmp_path)
        assert (len(rows), upto) == (8, 0)
        check_twelve(rlog, tmp_path)
    finally:
        rlog.close()
    again = ReceiptLog(tmp_path, action_index_every=24, action_index_slice=4)
    again.open()  # memory: records 1-25 again; the next set's runs replace the 8 partial ones
    try:
        check_twelve(again, tmp_path)
        for i in range(25, 80):
            one(again, i)
            check_twelve(again, tmp_path)
        rows, upto = runs(tmp_path)
        assert upto >= 48
        covered = sorted(s for _, first, seqs in rows if first <= upto for s in seqs)
        assert covered == list(range(1, upto + 1))  # each entry once, none lost
        assert all(seqs[0] == first for _, first, seqs in rows)
    finally:
        again.close()
    assert verify_data_dir(tmp_path).ok


def test_a_log_with_one_row_per_entry_keeps_that_table(tmp_path):
    """A log written by the version that stored one ``action_keys`` row per record keeps writing
    and reading that table."""
    rnd = random.Random(11)
    rlog = ReceiptLog(tmp_path, action_index_every=4)
    rlog.open()
    append_random(rlog, rnd, 12)
    rlog.close()
    conn = sqlite3.connect(tmp_path / DB_FILE, isolation_level=None)
    last = conn.execute("SELECT MAX(seq) FROM records").fetchone()[0]
    conn.execute("DROP TABLE action_runs")
    conn.execute("DROP TABLE action_upto")
    conn.execute("CREATE TABLE action_keys (action_id TEXT NOT NULL, seq INTEGER NOT NULL, "
                 "PRIMARY KEY (action_id, seq)) WITHOUT ROWID")
    conn.execute("CREATE TABLE action_keys_upto (id INTEGER PRIMARY KEY CHECK (id = 1), seq INTEGER NOT NULL)")
    conn.execute("INSERT INTO action_keys SELECT action_id, seq FROM records WHERE action_id IS NOT NULL AND seq <= ?",
                 (last - 3,))
    conn.execute("INSERT INTO action_keys_upto VALUES (1, ?)", (last - 3,))
    conn.close()
    again = ReceiptLog(tmp_path, action_index_every=4)
    again.open()
    try:
        check(again, tmp_path)
        append_random(again, rnd, 8)
        check(again, tmp_path)
    finally:
        again.close()
    conn = sqlite3.connect(tmp_path / DB_FILE)
    try:
        names = {n for (n,) in conn.execute("SELECT name FROM sqlite_master")}
        assert "action_keys" in names and "action_runs" not in names
        assert conn.execute("SELECT seq FROM action_keys_upto").fetchone()[0] > last
    finally:
        conn.close()


def test_a_failed_append_leaves_no_entry(tmp_path):
    rlog = ReceiptLog(tmp_path)
    rlog.open()
    try:
        (good,) = rlog.append_sync([Entry("event", "x", "acme", {}, action_id="act_0")])
        with pytest.raises(ValueError, match="not appendable"):
            rlog.append_sync([Entry("event", "x", "acme", {}, action_id="act_0"),
                              Entry("event", "x", "acme", {"v": float("nan")}, action_id="act_0")])
        (after,) = rlog.append_sync([Entry("state", "y", "acme", {}, action_id="act_0")])
        assert [r.seq for r in rlog.read_action("act_0")] == [good.seq, after.seq] == [1, 2]
    finally:
        rlog.close()


TOPICS = ["t0", "t1", "t2"]


def scan_stream(data_dir: Path, tenant: str, topic: str) -> list[int]:
    conn = sqlite3.connect(data_dir / DB_FILE)
    try:
        return [s for (s,) in conn.execute("SELECT seq FROM records WHERE stream = ? ORDER BY seq",
                                           (stream_key(tenant, topic),))]
    finally:
        conn.close()


def check_streams(rlog: ReceiptLog, data_dir: Path) -> None:
    """Every page (after, limit) and the first seq of each stream equal a scan of the table."""
    for tenant in ("acme", "other"):
        for topic in TOPICS + ["none"]:
            truth = scan_stream(data_dir, tenant, topic)
            assert rlog.first_stream_seq(tenant, topic) == (truth[0] if truth else None)
            for after in [0, *truth[::3], rlog.last_seq]:
                for limit in (1, 4, 500):
                    want = [s for s in truth if s > after][:limit]
                    got = rlog.read_stream(tenant, topic, after, limit)
                    assert [r.seq for r in got] == want
                    assert all(r.stream == stream_key(tenant, topic) and r.topic == topic for r in got)


def append_streams(rlog: ReceiptLog, rnd: random.Random, batches: int) -> None:
    for _ in range(batches):
        rlog.append_sync([Entry("event", "x", rnd.choice(["acme", "other"]), {"n": rnd.random()},
                                topic=rnd.choice(TOPICS), stream=rnd.random() < 0.8)  # some are not streamed
                          for _ in range(rnd.randint(1, 9))])


@pytest.mark.parametrize(("every", "part"), [(1, 16), (9, 1), (2048, 16)])
def test_read_stream_equals_a_scan_across_bulk_writes_and_reopening(tmp_path, every, part):
    rnd = random.Random(every)
    rlog = ReceiptLog(tmp_path, action_index_every=every, action_index_slice=part)
    rlog.open()
    try:
        for _ in range(5):
            append_streams(rlog, rnd, 4)
            check_streams(rlog, tmp_path)
    finally:
        rlog.close()
    again = ReceiptLog(tmp_path, action_index_every=every, action_index_slice=part)
    again.open()
    try:
        check_streams(again, tmp_path)
        append_streams(again, rnd, 8)
        check_streams(again, tmp_path)
        conn = sqlite3.connect(tmp_path / DB_FILE)
        names = {n for (n,) in conn.execute("SELECT name FROM sqlite_master")}
        conn.close()
        assert "stream_runs" in names and "records_stream" not in names
    finally:
        again.close()
    assert verify_data_dir(tmp_path).ok


# (kind, its old SQLite index, how to append, how to check, a query the old index must serve)
OLD_INDEXES = {
    "action": ("records_action ON records(action_id, seq) WHERE action_id IS NOT NULL", append_random, check,
               "SELECT seq FROM records WHERE action_id = 'act_0' AND seq <= 10 ORDER BY seq"),
    "stream": ("records_stream ON records(stream, seq) WHERE stream IS NOT NULL", append_streams, check_streams,
               "SELECT seq FROM records WHERE stream = 'x' AND seq > 3 ORDER BY seq"),
}


@pytest.mark.parametrize("kind", sorted(OLD_INDEXES))
def test_a_log_with_the_old_sqlite_index_keeps_it_and_reads_through_it(tmp_path, kind):
    """Converting would read every record at start-up; such a log keeps SQLite's own index."""
    index, append, check_reads, query = OLD_INDEXES[kind]
    rnd = random.Random(3)
    rlog = ReceiptLog(tmp_path, action_index_every=4)
    rlog.open()
    append(rlog, rnd, 12)
    rlog.close()
    conn = sqlite3.connect(tmp_path / DB_FILE, isolation_level=None)  # as a log written before the bulk index
    conn.execute(f"DROP TABLE {kind}_runs")
    conn.execute(f"DROP TABLE {kind}_upto")
    conn.execute(f"CREATE INDEX {index}")
    conn.close()
    again = ReceiptLog(tmp_path, action_index_every=4)
    again.open()
    try:
        check_reads(again, tmp_path)
        append(again, rnd, 5)
        check_reads(again, tmp_path)
    finally:
        again.close()
    old_name = index.split()[0]
    conn = sqlite3.connect(tmp_path / DB_FILE)
    try:
        names = {n for (n,) in conn.execute("SELECT name FROM sqlite_master")}
        assert old_name in names and f"{kind}_runs" not in names
        plan = " ".join(str(r) for r in conn.execute(f"EXPLAIN QUERY PLAN {query}"))
        assert old_name in plan  # reads go through the old index, not a scan
    finally:
        conn.close()
