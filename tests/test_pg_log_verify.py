"""Verification of a live log, on both drivers: records and signed tree heads come from one
snapshot, so a server that appends and signs tree heads meanwhile never makes a clean log look
truncated or rewritten (the embedded verifier used to read them in separate steps)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from receipts.log import Entry
from receipts.store import ReceiptStore, open_store, verify_store
from receipts.verify import verify_data_dir


@pytest.fixture(params=["sqlite", "postgres"])
def live_store(request: pytest.FixtureRequest, tmp_path: Path) -> ReceiptStore:
    url = request.getfixturevalue("pg_url") if request.param == "postgres" else None
    store = open_store(url, tmp_path / "data", tmp_path / "keys")
    store.open()
    yield store
    store.close()


def test_verify_while_appends_and_tree_heads_run(live_store: ReceiptStore, tmp_path: Path):
    store = live_store
    stop = threading.Event()
    errors: list[BaseException] = []

    def churn() -> None:
        """Appends and signs as fast as it can: each head covers records the verifier may not have read."""
        i = 0
        try:
            while not stop.is_set():
                store.append_sync([Entry("receipt", "tick", "acme", {"i": i + k}) for k in range(20)])
                store.sign_tree_head()
                i += 20
        except BaseException as exc:  # surfaced below: a failing writer must fail the test
            errors.append(exc)

    store.append_sync([Entry("receipt", "first", "acme", {})])
    store.sign_tree_head()
    writer = threading.Thread(target=churn)
    writer.start()
    try:
        reports = [verify_store(store) for _ in range(25)]
        if store.__class__.__name__ == "ReceiptLog":  # the offline command's path, on the live data dir
            reports += [verify_data_dir(tmp_path / "data") for _ in range(25)]
    finally:
        stop.set()
        writer.join()
    assert not errors, errors
    bad = [r.reason for r in reports if not r.ok]
    assert bad == [], bad
    assert reports[-1].checked > reports[0].checked >= 1  # the log grew while it was verified
    assert verify_store(store).checked == store.last_seq


def test_tenant_scoped_verification_counts_only_that_tenant(live_store: ReceiptStore):
    store = live_store
    store.append_sync([Entry("receipt", "a", "acme", {"i": i}) for i in range(3)])
    store.append_sync([Entry("receipt", "g", "globex", {"i": i}) for i in range(5)])
    store.sign_tree_head()
    acme = verify_store(store, tenant="acme")
    assert acme.ok and acme.checked == 3 and acme.tree_head is None
    whole = verify_store(store)
    assert whole.ok and whole.checked == 8 and whole.tree_head["tree_size"] == 8
