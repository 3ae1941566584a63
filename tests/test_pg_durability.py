"""The PostgreSQL receipt log under the conditions it exists for: several replicas appending to one
database, kill -9 mid-append, lost connections, a database that goes away and comes back,
tampering, and replicas migrating the schema at the same time. Real processes, real PostgreSQL."""

from __future__ import annotations

import asyncio
import os
import selectors
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import psycopg
import pytest

from receipts import migrations
from receipts.log import Entry
from receipts.postgres import PostgresReceiptLog, connect, upgrade, verify_database
from receipts.store import StorageUnavailable
from tests.support import ROOT

WRITER = textwrap.dedent("""
    import asyncio, sys
    from receipts.log import Entry
    from receipts.postgres import PostgresReceiptLog
    url, keys, name, limit = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    log = PostgresReceiptLog(url, keys); log.open()
    async def appender(i, quota):
        for n in range(quota):
            recs = await log.append([Entry("receipt", "tick", "acme", {"w": name, "a": i, "n": n})])
            print(recs[0].seq, recs[0].hash, flush=True)
    async def main():
        log.bind_loop(asyncio.get_running_loop())
        await asyncio.gather(*(appender(i, limit // 20) for i in range(20)))
    asyncio.run(main())
    log.close()
    print("done", flush=True)
""")


def start_writer(url: str, keys, name: str, limit: int) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", WRITER, url, str(keys), name, str(limit)], cwd=ROOT,
                            stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})


def read_acks(proc: subprocess.Popen, acks: dict[int, str], until: int, timeout: float = 60) -> bool:
    """Collect ``seq hash`` lines until ``until`` acks (or 'done'); True when the writer said done."""
    deadline = time.monotonic() + timeout
    while len(acks) < until and time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            return False
        if line.strip() == "done":
            return True
        parts = line.split()
        if len(parts) == 2 and parts[0].isdigit():
            acks[int(parts[0])] = parts[1]
    return False


def stored(url: str) -> dict[int, str]:
    with psycopg.connect(url) as conn:
        return dict(conn.execute("SELECT seq, hash FROM records").fetchall())


def test_two_processes_keep_one_total_order_and_a_third_follows_it_live(pg_url, tmp_path):
    upgrade(pg_url)
    follower = PostgresReceiptLog(pg_url, tmp_path / "keys")
    follower.open()
    seen: list[int] = []
    try:
        async def follow() -> None:
            follower.bind_loop(asyncio.get_running_loop())
            follower.add_listener(lambda recs: seen.extend(r.seq for r in recs))
            procs = [start_writer(pg_url, tmp_path / "keys", name, 1000) for name in ("a", "b")]
            acks: list[dict[int, str]] = [{}, {}]
            await asyncio.gather(*(asyncio.to_thread(read_acks, p, a, 1000) for p, a in zip(procs, acks, strict=True)))
            for p in procs:
                assert p.wait(30) == 0
            for _ in range(200):
                if len(seen) >= 2000:
                    break
                await asyncio.sleep(0.05)
            assert not set(acks[0]) & set(acks[1])  # one total order: no seq handed out twice
            assert {**acks[0], **acks[1]} == stored(pg_url)

        asyncio.run(follow())
    finally:
        follower.close()
    assert seen == list(range(1, 2001))  # every record of both writers, once, in order
    report = verify_database(pg_url, tmp_path / "keys")
    assert report.ok, report
    assert report.checked == 2000


def test_kill9_of_one_appender_loses_no_acknowledged_record(pg_url, tmp_path):
    upgrade(pg_url)
    victim = start_writer(pg_url, tmp_path / "keys", "victim", 100_000)
    other = start_writer(pg_url, tmp_path / "keys", "other", 2000)
    acked: dict[int, str] = {}
    read_acks(victim, acked, 1500)
    os.kill(victim.pid, signal.SIGKILL)
    victim.wait()
    other_acks: dict[int, str] = {}
    assert read_acks(other, other_acks, 10**9) is True  # the survivor finished its quota
    assert other.wait(30) == 0
    assert len(acked) >= 1500
    on_disk = stored(pg_url)
    assert all(on_disk.get(seq) == h for seq, h in acked.items())  # every acknowledged record, same hash
    assert all(on_disk.get(seq) == h for seq, h in other_acks.items())
    assert sorted(on_disk) == list(range(1, len(on_disk) + 1))
    report = verify_database(pg_url, tmp_path / "keys")
    assert report.ok, report
    log = PostgresReceiptLog(pg_url, tmp_path / "keys")
    log.open()  # a new replica continues the chain after the crash
    try:
        (rec,) = log.append_sync([Entry("receipt", "after_crash", "acme", {})])
        assert rec.seq == len(on_disk) + 1
    finally:
        log.close()
    assert verify_database(pg_url, tmp_path / "keys").ok


def test_records_are_append_only_in_the_database(pg_url, tmp_path):
    log = PostgresReceiptLog(pg_url, tmp_path / "keys")
    log.open()
    log.append_sync([Entry("receipt", "r", "acme", {"i": i}) for i in range(3)])
    log.close()
    with psycopg.connect(pg_url, autocommit=True) as conn:
        for sql in ("UPDATE records SET name = 'x' WHERE seq = 2", "DELETE FROM records WHERE seq = 3",
                    "TRUNCATE records"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege, match="append-only"):
                conn.execute(sql)
        assert conn.execute("SELECT count(*) FROM records").fetchone()[0] == 3


def tampered(pg_url: str, keys, sql: str):
    with psycopg.connect(pg_url, autocommit=True) as conn:  # as an attacker with superuser rights would
        conn.execute("ALTER TABLE records DISABLE TRIGGER USER")
        conn.execute(sql)
        conn.execute("ALTER TABLE records ENABLE TRIGGER USER")
    return verify_database(pg_url, keys)


@pytest.mark.parametrize(("sql", "bad_seq", "reason"), [
    ("UPDATE records SET body = replace(body::text, '\\x7b', '\\x7b')::bytea || '\\x20'::bytea WHERE seq = 4", 4,
     "not canonical"),
    ("UPDATE records SET hash = repeat('0', 64) WHERE seq = 5", 5, "hash does not match"),
    ("DELETE FROM records WHERE seq = 3", 3, "sequence gap"),
    ("DELETE FROM records WHERE seq >= 7", 7, "truncated"),
    ("UPDATE records SET tenant = 'globex' WHERE seq = 2", 2, "column tenant"),
])
def test_tampering_is_found_by_offline_verification(pg_url, tmp_path, sql, bad_seq, reason):
    log = PostgresReceiptLog(pg_url, tmp_path / "keys")
    log.open()
    log.append_sync([Entry("receipt", "r", "acme", {"i": i}) for i in range(10)])
    log.close()  # signs a final tree head over all 10
    assert verify_database(pg_url, tmp_path / "keys").ok
    report = tampered(pg_url, tmp_path / "keys", sql)
    assert not report.ok
    assert report.first_bad_seq == bad_seq
    assert reason in report.reason


def test_replicas_migrating_at_once_apply_each_migration_once(pg_url):
    with ThreadPoolExecutor(6) as pool:
        results = list(pool.map(lambda _: upgrade(pg_url), range(6)))
    versions = [m.version for m in migrations.available()]
    assert sorted(v for r in results for v in r) == versions  # applied exactly once in all
    with connect(pg_url) as conn:
        assert migrations.applied_versions(conn) == versions
        assert migrations.pending(conn) == []
    assert upgrade(pg_url) == []  # idempotent


def test_a_killed_connection_is_retried_and_appends_go_on(pg_url, tmp_path):
    log = PostgresReceiptLog(pg_url, tmp_path / "keys")
    log.open()
    try:
        log.append_sync([Entry("receipt", "before", "acme", {})])
        with psycopg.connect(pg_url, autocommit=True) as admin:
            killed = admin.execute("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                                   "WHERE datname = current_database() AND application_name LIKE 'metis-%' "
                                   "AND pid <> pg_backend_pid()").fetchone()[0]
        assert killed >= 2  # writer, follower, pooled reader
        recs = log.append_sync([Entry("receipt", "after", "acme", {"i": i}) for i in range(3)])
        assert [r.seq for r in recs] == [2, 3, 4]
        assert log.get(1).name == "before"  # the reader pool replaced its dead connection
    finally:
        log.close()
    assert verify_database(pg_url, tmp_path / "keys").ok


class Proxy:
    """A TCP proxy in front of PostgreSQL that the test can cut (an outage) and restore."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.up = True
        self.socks: list[socket.socket] = []
        self.stop = False
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self) -> None:
        sel = selectors.DefaultSelector()
        sel.register(self.listener, selectors.EVENT_READ)
        peers: dict[socket.socket, socket.socket] = {}
        while not self.stop:
            for key, _ in sel.select(0.05):
                s = key.fileobj
                if s is self.listener:
                    client, _ = self.listener.accept()
                    if not self.up:
                        client.close()
                        continue
                    server = socket.create_connection(self.target)
                    peers[client], peers[server] = server, client
                    self.socks += [client, server]
                    sel.register(client, selectors.EVENT_READ)
                    sel.register(server, selectors.EVENT_READ)
                    continue
                try:
                    data = s.recv(65536)
                except OSError:
                    data = b""
                if data and self.up:
                    peers[s].sendall(data)
                    continue
                for x in (s, peers.get(s)):
                    if x is not None and x in peers:
                        sel.unregister(x)
                        peers.pop(x)
                        x.close()
            if not self.up:
                for x in list(peers):
                    sel.unregister(x)
                    peers.pop(x).close()
                peers.clear()

    def cut(self) -> None:
        self.up = False

    def restore(self) -> None:
        self.up = True

    def close(self) -> None:
        self.stop = True
        self.thread.join()
        self.listener.close()


def test_outage_gives_a_retryable_error_then_recovers(pg_url, pg_database, tmp_path):
    proxy = Proxy(("127.0.0.1", 5432))
    url = pg_url.replace("127.0.0.1:5432", f"127.0.0.1:{proxy.port}")
    log = PostgresReceiptLog(url, tmp_path / "keys", retry_window_s=1.0)
    log.open()
    try:
        log.append_sync([Entry("receipt", "before", "acme", {})])
        proxy.cut()
        time.sleep(0.2)
        t0 = time.monotonic()
        with pytest.raises(StorageUnavailable) as err:
            log.append_sync([Entry("receipt", "during", "acme", {})])
        assert err.value.code == "storage_unavailable" and err.value.retryable
        assert 0.9 <= time.monotonic() - t0 < 5  # retried for its window, then a clear error
        assert log.available is False
        with pytest.raises(StorageUnavailable):
            log.read_range(1, 10)
        assert asyncio.run(log.probe()) is False
        proxy.restore()
        assert asyncio.run(log.probe()) is True
        (rec,) = log.append_sync([Entry("receipt", "after", "acme", {})])
        assert rec.seq == 2 and log.available is True
        assert [r.name for r in log.read_range(1, 10)] == ["before", "after"]
    finally:
        log.close()
        proxy.close()
    assert verify_database(pg_url, tmp_path / "keys").ok


def test_an_unreachable_database_is_a_storage_error_not_a_driver_error(tmp_path):
    with socket.create_server(("127.0.0.1", 0)) as s:
        port = s.getsockname()[1]  # nothing listens once closed
    url = f"postgresql://postgres@127.0.0.1:{port}/postgres"
    with pytest.raises(StorageUnavailable, match="database unavailable"):
        PostgresReceiptLog(url, tmp_path / "keys", start_wait_s=0).open()
    with pytest.raises(StorageUnavailable):
        verify_database(url)


def test_a_follower_whose_connection_dies_catches_up_without_gap_or_duplicate(pg_url, tmp_path):
    upgrade(pg_url)
    writer = PostgresReceiptLog(pg_url, tmp_path / "keys")
    reader = PostgresReceiptLog(pg_url, tmp_path / "keys", poll_s=0.2)
    writer.open()
    reader.open()
    seen: list[int] = []
    try:
        async def go() -> None:
            reader.bind_loop(asyncio.get_running_loop())
            reader.add_listener(lambda recs: seen.extend(r.seq for r in recs))
            for round_ in range(3):
                await asyncio.to_thread(writer.append_sync, [Entry("receipt", "r", "acme", {"i": i}) for i in range(50)])
                with psycopg.connect(pg_url, autocommit=True) as admin:  # cut the reader's follower mid-stream
                    admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() "
                                  "AND application_name = 'metis-log-follower' AND pid <> pg_backend_pid()")
                await asyncio.to_thread(writer.append_sync, [Entry("receipt", "r", "acme", {"round": round_})])
            for _ in range(200):
                if len(seen) >= 153:
                    break
                await asyncio.sleep(0.05)

        asyncio.run(go())
    finally:
        writer.close()
        reader.close()
    assert seen == list(range(1, 154))
    assert reader.tree_size == 153
