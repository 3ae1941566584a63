"""The scheduler's ordered path to the log (orchestrator/outbox.py), over a real log on disk."""

from __future__ import annotations

import pytest

from receipts.log import Entry


def _entry(i: int, payload: object | None = None) -> Entry:
    return Entry("receipt", "step", "acme", {"i": i} if payload is None else payload, topic="t", action_id="act_1")




async def test_groups_land_in_order_and_callbacks_run_only_once_durable(outbox):
    seen: list[tuple[int, int]] = []  # (i, seq) in callback order
    for i in range(200):
        outbox.put([_entry(i)], lambda recs: seen.extend((r.payload["i"], r.seq) for r in recs))
    assert seen == []  # nothing is durable before the outbox task ran
    await outbox.flush()
    assert [i for i, _ in seen] == list(range(200))
    assert [s for _, s in seen] == sorted(s for _, s in seen)
    for i, seq in seen:  # each callback came after its own record was on disk
        assert outbox.log.get(seq).payload == {"i": i}


async def test_commit_returns_the_durable_records_after_what_was_put_before(outbox):
    outbox.put([_entry(1), _entry(2)])
    recs = await outbox.commit([_entry(3)])
    assert [r.payload["i"] for r in recs] == [3]
    assert [r.payload["i"] for r in outbox.log.read_range(1, 3)] == [1, 2, 3]
    assert outbox.failing is None


async def test_a_payload_that_is_not_json_fails_alone(outbox):
    outbox.put([_entry(1)])
    with pytest.raises(ValueError):
        await outbox.commit([_entry(2, {"x": float("nan")})])
    recs = await outbox.commit([_entry(3)])
    assert [r.payload["i"] for r in outbox.log.read_range(1, recs[0].seq)] == [1, 3]
    assert outbox.failing is None  # a bad payload is not a storage failure
