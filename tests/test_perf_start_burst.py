"""A burst of starts is answered before the runs of its first actions take the event loop.

Over a real log on disk and a real worker process: 200 ``Scheduler.start`` calls, the first
``BURST_STARTS`` at once, the rest a few at a time (so their ``created`` records land in several
commits, and the first starts return while later ones are still waiting), then every action runs to
its end. While the burst lasts no run begins (the code before the hold began runs as soon as the
first commit returned); starts that keep coming hold runs back for a bounded time only; a start
below the burst size lets its run begin at once.
"""

from __future__ import annotations

import asyncio

from abilities import registry
from orchestrator import scheduler as sched_mod
from orchestrator.scheduler import Scheduler
from orchestrator.workers import WorkerPool
from receipts.log import ReceiptLog

STARTED = {"running", "completed", "failed"}


async def _scheduler(tmp_path, monkeypatch) -> tuple[ReceiptLog, Scheduler]:
    monkeypatch.setenv("METIS_EXTRA_ABILITIES", "tests.abilities_testing:ABILITIES")
    registry._extras.cache_clear()  # read once per process: read it again with the variable set
    rlog = ReceiptLog(tmp_path / "log")
    rlog.open()
    rlog.bind_loop(asyncio.get_running_loop())
    pool = WorkerPool(1, 1)
    await pool.start()
    scheduler = Scheduler(rlog, pool, b"k" * 32)
    scheduler.outbox.start()
    return rlog, scheduler


async def _close(rlog: ReceiptLog, scheduler: Scheduler) -> None:
    await scheduler.close()
    await scheduler.pool.close()
    rlog.close()
    registry._extras.cache_clear()


async def _all_ended(scheduler: Scheduler, ids: list[str], timeout: float = 60.0) -> list[str]:
    async def ended(aid: str) -> str:
        a = scheduler.actions[aid]
        await a.wait_ended()
        return a.status.value

    return await asyncio.wait_for(asyncio.gather(*(ended(i) for i in ids)), timeout)


async def test_no_run_begins_while_a_burst_of_starts_is_answered(tmp_path, monkeypatch):
    # a loaded machine may pause the test longer than the defaults: the burst's own bounds here
    monkeypatch.setattr(sched_mod, "BURST_QUIET_S", 1.0)
    monkeypatch.setattr(sched_mod, "BURST_HOLD_S", 30.0)
    rlog, scheduler = await _scheduler(tmp_path, monkeypatch)
    runs_seen_at_return: list[int] = []

    async def start() -> str:
        a = await scheduler.start("acme", {"ability": "t_noop", "inputs": {}, "topic": "burst"})
        runs_seen_at_return.append(sum(1 for x in scheduler.actions.values() if x.view()["status"] in STARTED))
        return a.action_id

    try:
        tasks = []
        for i in range(200):
            tasks.append(asyncio.get_running_loop().create_task(start()))
            if i >= sched_mod.BURST_STARTS and i % 10 == 9:
                await asyncio.sleep(0.001)  # a burst by now; later starts begin while earlier ones commit
        ids = await asyncio.gather(*tasks)
        assert len(runs_seen_at_return) == 200
        assert max(runs_seen_at_return) == 0, f"runs began during the burst: {runs_seen_at_return[-20:]}"
        assert set(await _all_ended(scheduler, ids)) == {"completed"}
    finally:
        await _close(rlog, scheduler)


async def test_a_burst_holds_runs_back_for_a_bounded_time(tmp_path, monkeypatch):
    """Starts that keep coming do not starve the runs: after ``BURST_HOLD_S`` they go on."""
    monkeypatch.setattr(sched_mod, "BURST_HOLD_S", 0.1)
    monkeypatch.setattr(sched_mod, "BURST_STARTS", 8)
    rlog, scheduler = await _scheduler(tmp_path, monkeypatch)
    stop = False
    ids: list[str] = []

    async def lane() -> None:
        while not stop:
            ids.append((await scheduler.start("acme", {"ability": "t_noop", "inputs": {}})).action_id)

    try:
        lanes = [asyncio.get_running_loop().create_task(lane()) for _ in range(16)]
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 30
        first: str | None = None
        while first is None and loop.time() < deadline:
            await asyncio.sleep(0.01)
            first = next((i for i in list(ids) if scheduler.actions[i].view()["status"] in STARTED), None)
        stop = True
        await asyncio.gather(*lanes)
        assert first is not None, "no run began while starts kept coming"
        assert set(await _all_ended(scheduler, ids)) == {"completed"}
    finally:
        await _close(rlog, scheduler)


async def test_a_start_below_the_burst_size_runs_at_once(tmp_path, monkeypatch):
    rlog, scheduler = await _scheduler(tmp_path, monkeypatch)
    try:
        ids = [(await scheduler.start("acme", {"ability": "t_noop", "inputs": {}})).action_id for _ in range(3)]
        assert scheduler._held_since is None
        assert set(await _all_ended(scheduler, ids, 30)) == {"completed"}
    finally:
        await _close(rlog, scheduler)
