"""A run's start lingers briefly in the outbox so a short run's end shares its commit
(orchestrator/outbox.py), over a real log on disk: fewer fsyncs, same order, nothing held for ever."""

from __future__ import annotations

import asyncio

import pytest

from orchestrator import outbox as outbox_module
from receipts.log import Entry


def _state(name: str, run: dict | None = None) -> Entry:
    payload: dict = {"view": {"status": name}}
    if run is not None:
        payload["run"] = run
    return Entry("state", name, "acme", payload, topic="t", action_id="act_1")


def _start() -> Entry:
    return _state("running", {"revision": 1, "start": True})


@pytest.fixture
async def outbox(outbox):
    """The shared outbox (tests/conftest.py), flushed once so a test starts from an idle writer."""
    await outbox.flush()
    return outbox


@pytest.fixture
def long_linger(monkeypatch):
    """A linger no scheduling delay on a loaded machine can outlast, so the test sees the hold."""
    monkeypatch.setattr(outbox_module, "LINGER_S", 30.0)


async def _turns(n: int = 5) -> None:
    for _ in range(n):
        await asyncio.sleep(0)


async def test_a_run_start_and_the_end_that_follows_share_one_commit(outbox, long_linger):
    seen: list[str] = []
    commits = outbox.log.commits_total
    outbox.put([_start()], lambda recs: seen.append("running"))
    await _turns()
    assert outbox.queued == 1 and seen == []  # held: waiting for company
    outbox.put([_state("completed")], lambda recs: seen.append("completed"))
    await asyncio.wait_for(outbox.flush(), 10)
    assert seen == ["running", "completed"]
    assert outbox.log.commits_total - commits == 1
    assert [r.name for r in outbox.log.read_range(1, 2)] == ["running", "completed"]


async def test_a_lone_run_start_is_committed_after_the_linger(outbox):
    commits = outbox.log.commits_total
    done = asyncio.Event()
    outbox.put([_start()], lambda recs: done.set())
    await asyncio.wait_for(done.wait(), 10)
    assert outbox.log.commits_total - commits == 1
    assert outbox.log.read_range(1, 1)[0].name == "running"


@pytest.mark.parametrize("entry", [_state("running", {"revision": 1}), _state("queued"), _state("running")],
                         ids=["resume", "other-state", "running-without-run"])
async def test_only_a_fresh_run_start_lingers(outbox, long_linger, entry):
    outbox.put([entry])
    await _turns()
    assert outbox.queued == 0  # taken for an append at once


async def test_a_client_commit_does_not_wait_behind_a_lingering_start(outbox, long_linger):
    outbox.put([_start()])
    await _turns()
    recs = await asyncio.wait_for(outbox.commit([_state("created")]), 10)
    assert [r.name for r in outbox.log.read_range(1, recs[0].seq)] == ["running", "created"]


async def test_close_flushes_a_lingering_start(outbox):
    outbox.put([_start()])
    await outbox.close()
    for _ in range(1000):  # handed to the log by close; its commit may still be on its way to disk
        if outbox.log.last_seq >= 1:
            break
        await asyncio.sleep(0.01)
    assert outbox.log.read_range(1, 1)[0].name == "running"
