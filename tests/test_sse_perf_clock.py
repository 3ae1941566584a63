"""The SSE delivery clock (``DeliveryClock``, orchestrator/observe.py) keeps one entry per commit,
not per record: every record of a commit must still map to that commit's time, records it never
saw or has forgotten to none, and at least the last ``size`` records stay known however the
commits are cut (one record each, as when paced, or hundreds, as in a burst)."""

from __future__ import annotations

import hashlib
import random
import time

from prometheus_client import CollectorRegistry

from orchestrator.observe import FAST_BUCKETS, DeliveryClock, LoopHistogram
from receipts.log import Entry, Record, build_body, stream_key


def records(first: int, n: int) -> list[Record]:
    out = []
    for seq in range(first, first + n):
        e = Entry("event", "action_checkpoint", "acme", {"i": seq}, topic="t", action_id="act_1", stream=True)
        body = build_body(seq, "2026-11-23T10:00:00.000000Z", e, "ab" * 32)
        out.append(Record(seq, e.type, e.name, e.tenant, "t", "act_1", None, stream_key("acme", "t"), body,
                          hashlib.sha256(body).hexdigest()))
    return out


def clock(size: int) -> tuple[DeliveryClock, LoopHistogram]:
    hist = LoopHistogram("metis_x_seconds", "lag", FAST_BUCKETS, CollectorRegistry())
    return DeliveryClock(hist, size=size), hist


def test_every_record_of_a_commit_has_that_commits_time() -> None:
    dc, _ = clock(size=1000)
    rng = random.Random(12)
    seq, commits = 5, []
    for _ in range(200):
        n = rng.choice((1, 1, 2, 7, 64, 300))
        dc.on_commit(records(seq, n))
        commits.append((seq, seq + n - 1, dc.committed_at(seq)))
        seq += n
    assert dc.committed_at(4) is None  # before the first commit it saw
    assert dc.committed_at(seq) is None  # not committed yet
    newest = seq - 1
    kept = [c for c in commits if c[1] > newest - 1000]
    for first, last, t in kept:
        assert t is not None
        assert all(dc.committed_at(s) == t for s in (first, (first + last) // 2, last))
    times = [t for _, _, t in commits if t is not None]
    assert times == sorted(times)
    # the oldest commits are forgotten in steps: none ends more than 2 * size records back
    assert all(dc.committed_at(s) is None for s in range(5, newest - 2 * 1000 - 300))


def test_at_least_size_records_stay_known_with_one_record_per_commit() -> None:
    dc, _ = clock(size=100)
    for seq in range(1, 1001):
        dc.on_commit(records(seq, 1))
        assert dc.committed_at(seq) is not None
        assert dc.committed_at(max(1, seq - 99)) is not None
    assert len(dc._lasts) <= 200  # forgotten in large steps: bounded, not one entry per record ever seen
    assert dc.committed_at(1) is None


def test_a_stream_observes_only_records_committed_while_it_was_open() -> None:
    dc, hist = clock(size=1000)
    old = records(1, 3)
    dc.on_commit(old)
    time.sleep(0.002)
    delivered = dc.watch()
    new = records(4, 2)
    dc.on_commit(new)
    delivered(old)  # a resume's backlog: history, not lag
    assert sum(hist.counts) == 0
    delivered(new)
    assert sum(hist.counts) == 1
    dc.sent_many(5, 64)  # the fan-out's direct sends, counted in a block
    dc.sent_many(999, 10)  # a seq the clock never saw: nothing observed
    assert sum(hist.counts) == 65
