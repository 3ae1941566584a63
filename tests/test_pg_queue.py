"""The PostgreSQL work queue: SKIP LOCKED claims, leases and heartbeats, the rescuer, fencing on
append, parking and waking. Real processes where a death matters (kill -9 of a lease holder)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest

from receipts.log import Entry
from receipts.postgres import PostgresReceiptLog, upgrade
from receipts.store import FencedOut
from receipts.workqueue import WorkQueue, retry_delay_s
from tests.support import ROOT


@pytest.fixture
def queue(pg_url: str) -> Iterator[WorkQueue]:
    upgrade(pg_url)
    q = WorkQueue(pg_url, lease_s=1.0)
    yield q
    q.close()


def test_concurrent_claimers_take_each_job_exactly_once(queue):
    for i in range(200):
        assert queue.enqueue(f"act_{i:03d}", "acme", "t_emit", {"i": i})
    assert not queue.enqueue("act_000", "acme", "t_emit")  # enqueue is idempotent per action
    claimed: list[str] = []
    lock = threading.Lock()

    def worker(n: int) -> None:
        while True:
            got = queue.claim(f"w{n}", limit=5)
            if not got:
                return
            with lock:
                claimed.extend(lease.action_id for lease in got)
            for lease in got:
                assert lease.epoch == 1 and lease.attempt == 1 and lease.owner == f"w{n}"
                assert queue.complete(lease)

    with ThreadPoolExecutor(4) as pool:
        list(pool.map(worker, range(4)))
    assert sorted(claimed) == [f"act_{i:03d}" for i in range(200)]  # each once, none lost
    assert queue.counts() == {"done": 200}


def test_a_lost_lease_is_fenced_out_of_the_log(queue, pg_url, tmp_path):
    queue.enqueue("act_x", "acme", "t_emit")
    (first,) = queue.claim("w1")
    assert queue.heartbeat(first)
    log = PostgresReceiptLog(pg_url, tmp_path / "keys")
    log.open()
    try:
        log.append_sync([Entry("receipt", "step", "acme", {"by": "w1"}, action_id="act_x")], fence=first.fence)
        time.sleep(1.2)  # w1 stops heartbeating: its lease expires
        assert queue.rescue() == {"requeued": ["act_x"], "failed": []}
        (second,) = queue.claim("w2")
        assert second.epoch == first.epoch + 1 and second.attempt == 2
        assert not queue.heartbeat(first)  # the old holder learns it lost the lease
        with pytest.raises(FencedOut, match="act_x"):
            log.append_sync([Entry("receipt", "step", "acme", {"by": "w1"}, action_id="act_x")], fence=first.fence)
        ok = log.append_sync([Entry("receipt", "step", "acme", {"by": "w2"}, action_id="act_x")], fence=second.fence)
        unfenced = log.append_sync([Entry("receipt", "other", "acme", {})])  # appends without a fence go on
        assert unfenced[0].seq == ok[0].seq + 1
        assert not queue.complete(first) and queue.complete(second)
        with pytest.raises(FencedOut):  # a finished job takes no more fenced appends
            log.append_sync([Entry("receipt", "late", "acme", {})], fence=second.fence)
        assert [r.payload["by"] for r in log.read_action("act_x")] == ["w1", "w2"]
    finally:
        log.close()


HOLDER = textwrap.dedent("""
    import sys, time
    from receipts.workqueue import WorkQueue
    q = WorkQueue(sys.argv[1], lease_s=float(sys.argv[2]), pool_size=1)
    (lease,) = q.claim("doomed")
    print(lease.epoch, flush=True)
    while True:
        q.heartbeat(lease)
        time.sleep(0.2)
""")


def test_kill9_of_a_lease_holder_is_rescued_within_its_lease_plus_two_seconds(queue, pg_url):
    queue.enqueue("act_k", "acme", "t_emit")
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, pg_url, "1.0"], cwd=ROOT, stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.stdout.readline().strip() == "1"
    time.sleep(1.5)  # heartbeats keep the lease alive past its first expiry
    assert queue.rescue()["requeued"] == []
    assert queue.claim("rescuer") == []
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    died = time.monotonic()
    resumed: list = []
    while not resumed and time.monotonic() - died < 10:
        queue.rescue()
        resumed = queue.claim("survivor")
        time.sleep(0.1)
    took = time.monotonic() - died
    assert resumed and resumed[0].epoch == 2 and resumed[0].attempt == 2
    assert took <= 1.0 + 2.0, took
    assert "stopped heartbeating" in queue.get("act_k")["last_error"]


def test_attempts_are_bounded_and_retries_back_off(queue):
    queue.enqueue("act_r", "acme", "t_emit", max_attempts=2)
    (lease,) = queue.claim("w")
    assert queue.retry(lease, "boom") == "available"
    assert queue.claim("w") == []  # not before its backoff
    job = queue.get("act_r")
    assert job["last_error"] == "boom" and job["state"] == "available"
    assert retry_delay_s(1) == 1.0 and retry_delay_s(3) == 4.0 and retry_delay_s(30) == 60.0
    time.sleep(retry_delay_s(1) + 0.1)
    (again,) = queue.claim("w")
    assert again.attempt == 2
    time.sleep(1.2)
    assert queue.rescue() == {"requeued": [], "failed": ["act_r"]}  # its last attempt's lease expired
    assert queue.get("act_r")["state"] == "failed"


def test_a_parked_job_holds_no_worker_and_wakes_a_waiting_claimer(queue):
    queue.enqueue("act_p", "acme", "t_ask")
    (lease,) = queue.claim("w1")
    assert queue.park(lease)
    assert queue.claim("w2") == []  # parked: nothing to run, no lease to rescue
    time.sleep(1.1)
    assert queue.rescue() == {"requeued": [], "failed": []}
    got: list = []
    waiter = threading.Thread(target=lambda: got.extend(queue.claim_wait("w2", timeout_s=10, poll_s=5)))
    waiter.start()
    time.sleep(0.3)
    t0 = time.monotonic()
    assert queue.wake("act_p")
    waiter.join(10)
    assert got and got[0].action_id == "act_p" and got[0].epoch == 2
    assert time.monotonic() - t0 < 2.0  # woken by NOTIFY, not by its 5 s poll
    assert not queue.wake("act_p")  # only a parked job wakes


def test_take_gives_an_action_to_one_replica_until_its_lease_lapses(queue):
    first = queue.take("act_t", "acme", "t_emit", owner="replica-1")
    assert first is not None and first.epoch == 1
    assert queue.take("act_t", "acme", "t_emit", owner="replica-2") is None  # a live lease: hands off
    queue.enqueue("act_u", "acme", "t_emit")
    (other,) = queue.claim("replica-1")
    time.sleep(0.7)
    assert queue.renew_all("replica-1") == 2  # one statement renews both leases
    time.sleep(0.7)  # past the first expiry, within the renewed one
    assert queue.take("act_t", "acme", "t_emit", owner="replica-2") is None
    time.sleep(1.1)  # replica-1 stopped renewing
    second = queue.take("act_t", "acme", "t_emit", owner="replica-2")
    assert second is not None and second.epoch == 2 and second.owner == "replica-2"
    assert not queue.heartbeat(first) and queue.heartbeat(second)
    assert queue.complete(second)
    again = queue.take("act_t", "acme", "t_emit", owner="replica-3")  # an ended action runs again (a revision)
    assert again is not None and again.epoch == 3
    assert queue.take("act_t", "acme", "t_emit", owner="replica-4") is None
    assert queue.release_all("replica-3") == 1  # a clean shutdown: takeable at once, no lease to wait out
    assert queue.take("act_t", "acme", "t_emit", owner="replica-4").epoch == 4
