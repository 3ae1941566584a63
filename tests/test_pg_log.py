"""The receipt-log contract, run on both drivers: the embedded SQLite log and PostgreSQL.

Each test gets a fresh store (a temporary data dir, or a fresh schema of the throwaway test
database) and checks what the service relies on: chained records, reads, listeners, reopen,
signed tree heads and proofs, offline verification."""

from __future__ import annotations

import asyncio
import base64
import hashlib
from collections.abc import Callable
from pathlib import Path

import pytest

from receipts.log import GENESIS_HASH, Entry, Record, build_body
from receipts.merkle import leaf_hash, verify_consistency, verify_inclusion
from receipts.postgres import PostgresReceiptLog
from receipts.signing import verify_tree_head
from receipts.store import ReceiptStore, open_store, verify_store

Factory = Callable[[], ReceiptStore]


@pytest.fixture(params=["sqlite", "postgres"])
def make_store(request: pytest.FixtureRequest, tmp_path: Path) -> Factory:
    """Builds (unopened) stores over one and the same storage; every store it built is closed at the end."""
    opened: list[ReceiptStore] = []
    url = request.getfixturevalue("pg_url") if request.param == "postgres" else None

    def make() -> ReceiptStore:
        store = open_store(url, tmp_path / "data", tmp_path / "keys")
        opened.append(store)
        return store

    yield make
    for s in opened:
        s.close()


def opened(make: Factory) -> ReceiptStore:
    store = make()
    store.open()
    return store


def entry(i: int, tenant: str = "acme", topic: str = "t1") -> Entry:
    kind = i % 3
    if kind == 0:
        return Entry("event", "action_progress", tenant, {"i": i, "text": f"é{i}"}, topic=topic,
                     action_id=f"act_{i % 2}", stream=True)
    if kind == 1:
        return Entry("receipt", "tool_call", tenant, {"i": i, "x": 0.5 * i}, topic=topic, action_id=f"act_{i % 2}",
                     ref=f"art_{i}")
    return Entry("state", "running", tenant, {"view": {"i": i}}, topic=topic, action_id=f"act_{i % 2}")


def check_chain(recs: list[Record], first_seq: int = 1, prev: str = GENESIS_HASH) -> None:
    for n, r in enumerate(recs):
        assert r.seq == first_seq + n
        assert r.fields["prev"] == prev
        assert hashlib.sha256(r.body).hexdigest() == r.hash
        prev = r.hash


def test_both_drivers_satisfy_the_protocol(make_store):
    assert isinstance(make_store(), ReceiptStore)


def test_append_sync_returns_chained_canonical_records(make_store):
    store = opened(make_store)
    recs = store.append_sync([entry(i) for i in range(5)]) + store.append_sync([entry(5)])
    check_chain(recs)
    for i, r in enumerate(recs):
        e = entry(i)
        assert r.body == build_body(r.seq, r.ts, e, r.fields["prev"])  # the one record format
        assert (r.type, r.name, r.tenant, r.topic, r.action_id) == (e.type, e.name, e.tenant, e.topic, e.action_id)
    assert store.last_seq == 6 and store.tree_size == 6


def test_a_bad_payload_fails_only_its_own_append(make_store):
    store = opened(make_store)

    async def go() -> tuple[list[Record], BaseException | list[Record], list[Record]]:
        store.bind_loop(asyncio.get_running_loop())
        return await asyncio.gather(store.append([entry(0)]),
                                    store.append([Entry("receipt", "bad", "acme", {"x": float("nan")})]),
                                    store.append([entry(1)]), return_exceptions=True)

    good1, bad, good2 = asyncio.run(go())
    assert isinstance(bad, ValueError) and "not appendable" in str(bad)
    check_chain(good1 + good2)


def test_listeners_see_every_committed_record_once_in_order(make_store):
    store = opened(make_store)
    seen: list[int] = []

    async def go() -> None:
        store.bind_loop(asyncio.get_running_loop())
        store.add_listener(lambda recs: seen.extend(r.seq for r in recs))
        await asyncio.gather(*(store.append([entry(i), entry(i + 1)]) for i in range(0, 60, 2)))
        for _ in range(100):
            if len(seen) >= 60:
                break
            await asyncio.sleep(0.02)

    asyncio.run(go())
    assert seen == list(range(1, 61))


def test_reads_by_stream_action_ref_range_and_control(make_store):
    store = opened(make_store)
    recs = store.append_sync([entry(i) for i in range(12)] + [entry(12, tenant="globex")])
    stream = store.read_stream("acme", "t1", 0)
    assert [r.seq for r in stream] == [r.seq for r in recs if r.stream and r.tenant == "acme"]
    assert store.read_stream("acme", "t1", stream[1].seq, limit=1)[0].seq == stream[2].seq
    assert [r.seq for r in store.read_stream("globex", "t1", 0)] == [13]  # tenants never share a stream
    assert store.first_stream_seq("acme", "t1") == stream[0].seq
    assert store.first_stream_seq("acme", "nope") is None
    act0 = store.read_action("act_0")
    assert [r.seq for r in act0] == [r.seq for r in recs if r.action_id == "act_0"]
    assert {r.type for r in store.read_action("act_0", ["state"])} == {"state"}
    assert [r.seq for r in store.read_range(3, 5)] == [3, 4, 5]
    assert store.get(4).hash == recs[3].hash and store.get(99) is None
    assert [r.seq for r in store.get_ref("art_4")] == [5]
    assert [r.seq for r in store.iter_control()] == [r.seq for r in recs if r.type == "state"]


def test_reopen_continues_the_chain_and_the_tree(make_store):
    first = opened(make_store)
    before = first.append_sync([entry(i) for i in range(7)])
    sth = first.sign_tree_head()
    first.close()
    again = opened(make_store)
    assert again.last_seq == 7 and again.tree_size == 7
    after = again.append_sync([entry(7)])
    check_chain(before + after)
    proof = again.consistency_proof(7, 8)
    new = again.sign_tree_head()
    verify_consistency(7, 8, bytes.fromhex(sth["root_hash"]), bytes.fromhex(new["root_hash"]),
                       [bytes.fromhex(p) for p in proof])


def test_signed_tree_head_and_inclusion_proof_check_out(make_store):
    store = opened(make_store)
    recs = store.append_sync([entry(i) for i in range(9)])
    sth = store.sign_tree_head()
    assert sth["tree_size"] == 9
    verify_tree_head(sth, sth["public_key"])
    pub = base64.b64decode(sth["public_key"])
    assert len(pub) == 32
    for r in (recs[0], recs[4], recs[8]):
        p = store.inclusion_proof(r.seq, sth)
        assert p["leaf_hash"] == leaf_hash(r.body).hex()
        verify_inclusion(leaf_hash(r.body), r.seq - 1, 9, [bytes.fromhex(x) for x in p["proof"]],
                         bytes.fromhex(sth["root_hash"]))


def test_verify_passes_on_a_clean_log(make_store):
    store = opened(make_store)
    store.append_sync([entry(i) for i in range(10)])
    store.sign_tree_head()
    report = verify_store(store)
    assert report.ok, report
    assert report.checked == 10
    assert report.tree_head["signed"]["tree_size"] == 10


def test_postgres_log_shares_the_signing_key_of_its_keys_dir(pg_url, tmp_path):
    a = PostgresReceiptLog(pg_url, tmp_path / "keys")
    b = PostgresReceiptLog(pg_url, tmp_path / "keys")
    a.open()
    b.open()
    try:
        assert a.signer.key_id == b.signer.key_id
        assert (tmp_path / "keys" / "signing_key.pem").stat().st_mode & 0o077 == 0
    finally:
        a.close()
        b.close()
