"""Once a client has been sent an event, every read on that server shows a view at least as new.

The log shows a commit to readers a moment before its listeners (the scheduler's views, the hub)
are called on the event loop. A subscription that replays a topic from the log could read an
action's ``action_completed`` in that moment and send it, and the client's ``actions.get`` right
after it then showed ``queued``. The replay now stops at the newest record the listeners have
been handed; what follows comes from the live buffer.

First the mechanism itself, deterministically, over a real log on disk (the event loop is held
between the commit and its listeners); then a stress loop on a real server, over ``events.subscribe``
and over SSE, reading ``actions.get`` the moment each event arrives. (Before the fix the
``events.subscribe`` loop showed 2 to 25 lagging views in each of three runs; the SSE loop, slower
to open each stream, showed none in two: both replay through the same code.)
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx

from abilities import registry
from orchestrator.hub import Hub, resume_then_live
from orchestrator.scheduler import Scheduler
from orchestrator.workers import WorkerPool
from receipts.log import Entry, ReceiptLog
from tests.support import ENDED, MetisServer, ToolBus

#: Statuses an action's view may show once the client has been sent each event.
AT_LEAST = {
    "action_started": {"running", "waiting_user", "completed", "partial", "failed", "cancelled"},
    "action_completed": {"completed"},
    "action_partial": {"partial"},
    "action_failed": {"failed", "cancelled"},
}


def _event(n: int) -> Entry:
    return Entry("event", "action_progress", "acme", {"n": n}, topic="t", action_id="act_1", stream=True)


async def test_a_replay_sends_no_record_before_the_listeners_have_it(tmp_path):
    rlog = ReceiptLog(tmp_path / "log")
    rlog.open()
    rlog.bind_loop(asyncio.get_running_loop())
    try:
        handed: list[int] = []  # what the log's listeners were given (the scheduler's views follow it)
        rlog.add_listener(lambda recs: handed.extend(r.seq for r in recs))
        hub = Hub(rlog)
        (first,) = await rlog.append([_event(1)])
        sub = hub.subscribe("acme", "t")
        rlog.submit([_event(2)])
        deadline = time.monotonic() + 30
        while len(rlog.read_stream("acme", "t", 0)) < 2:  # the loop is held: its listeners wait
            assert time.monotonic() < deadline, "the second record was not committed"
            time.sleep(0.002)
        assert handed == [first.seq]  # committed and readable, not handed to the listeners yet
        batches = resume_then_live(rlog, sub, "acme", "t", 0)
        try:
            sent = await batches.__anext__()
            assert [r.seq for r in sent] == [first.seq]  # the replay stops where the listeners are
            live = await asyncio.wait_for(batches.__anext__(), 30)
            assert [r.seq for r in live] == [first.seq + 1]  # then live: no gap, no duplicate
            assert set(handed) >= {r.seq for r in sent + live}
        finally:
            await batches.aclose()
    finally:
        rlog.close()


async def test_a_started_action_exists_when_its_created_record_is_handed_on(tmp_path, monkeypatch):
    """The events committed with ``created`` (``action_linked``...) go out from the same listener
    call: the action must be found there, not only once ``start`` has resumed."""
    monkeypatch.setenv("METIS_EXTRA_ABILITIES", "tests.abilities_testing:ABILITIES")
    # the registry reads METIS_EXTRA_ABILITIES once per process: an earlier test in this process may
    # have read it unset, so it is read again here, and again by whoever asks after this test
    registry._extras.cache_clear()
    rlog = ReceiptLog(tmp_path / "log")
    rlog.open()
    rlog.bind_loop(asyncio.get_running_loop())
    scheduler = Scheduler(rlog, WorkerPool(0, 0), b"k" * 32)  # no worker: the actions stay queued
    scheduler.outbox.start()
    found: dict[str, bool] = {}

    def listener(recs: list) -> None:  # called after the scheduler's own, like the hub
        for r in recs:
            if r.type == "state" and r.name == "created":
                found[r.action_id] = scheduler.actions.get(r.action_id) is not None

    rlog.add_listener(listener)
    try:
        producer = await scheduler.start("acme", {"ability": "t_noop", "inputs": {}, "topic": "t"})
        consumer = await scheduler.start("acme", {"ability": "t_noop", "inputs": {}, "topic": "t",
                                                  "edges": [{"kind": "waitFor", "action_id": producer.action_id}]})
        assert found == {producer.action_id: True, consumer.action_id: True}
        assert consumer.view()["status"] == "waiting"
    finally:
        await scheduler.close()
        rlog.close()
        registry._extras.cache_clear()  # read again, as the environment is then, by the next caller


class _Watcher:
    """Reads ``actions.get`` the moment an event of a watched action arrives on the connection."""

    def __init__(self, tb: ToolBus) -> None:
        self.tb = tb
        self.seen: list[tuple[str, str, str]] = []  # (action, event, status actions.get showed)
        self.ends: dict[str, int] = {}  # action -> ended events seen (one per subscription)
        self._tasks: set[asyncio.Task] = set()
        self._reader = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        while True:
            note = await self.tb.notifications.get()
            p = note.get("params", {})
            if note.get("method") == "event" and p.get("event") in AT_LEAST:
                self.check(p["data"]["action_id"], p["event"])

    def check(self, action_id: str, event: str) -> None:
        task = asyncio.get_running_loop().create_task(self._get(action_id, event))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _get(self, action_id: str, event: str) -> None:
        view = await self.tb.call("actions.get", {"action_id": action_id})
        self.seen.append((action_id, event, view["status"]))
        if event in ENDED:
            self.ends[action_id] = self.ends.get(action_id, 0) + 1

    async def wait_ended(self, action_id: str, times: int, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while self.ends.get(action_id, 0) < times:
            assert time.monotonic() < deadline, f"{action_id}: {self.ends.get(action_id, 0)} of {times} ends seen"
            await asyncio.sleep(0.005)

    async def drain(self) -> None:
        """Until every ``actions.get`` sent so far has been answered."""
        while self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)

    async def close(self) -> None:
        self._reader.cancel()
        await asyncio.gather(self._reader, *self._tasks, return_exceptions=True)


def _lagging(seen: list[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
    return [s for s in seen if s[2] not in AT_LEAST[s[1]]]


async def _subscribe_loop(server: MetisServer, actions: int, subs: int) -> list[tuple[str, str, str]]:
    """Start ``actions`` no-op actions one after another; subscribe to each one's topic ``subs``
    times, from the start, while it runs (each subscription replays it from the log)."""
    async with ToolBus.connect(server) as tb:
        watcher = _Watcher(tb)
        try:
            for _ in range(actions):
                s = await tb.start("t_noop", {})
                sids = []
                for _ in range(subs):
                    sids.append((await tb.call("events.subscribe", {"topic": s["topic"]}))["subscription_id"])
                await watcher.wait_ended(s["action_id"], subs)
                for sid in sids:
                    await tb.call("events.unsubscribe", {"subscription_id": sid})
            await watcher.drain()
            return watcher.seen
        finally:
            await watcher.close()


async def test_actions_get_right_after_each_subscribed_event_is_as_new(metis_server: MetisServer):
    seen = [s for part in await asyncio.gather(*(_subscribe_loop(metis_server, 30, 8) for _ in range(6)))
            for s in part]
    assert len([s for s in seen if s[1] in ENDED]) >= 6 * 30 * 8  # every subscription saw its action end
    assert _lagging(seen) == []


async def _sse_events(server: MetisServer, topic: str, on_event: Any) -> None:
    """Read ``/streams/{topic}`` from the start until the action ends, calling ``on_event`` on each."""
    headers = {"Authorization": f"Bearer {server.token('canvas')}"}
    async with httpx.AsyncClient(timeout=httpx.Timeout(60)) as client:
        async with client.stream("GET", f"{server.http_url}/streams/{topic}", headers=headers) as resp:
            assert resp.status_code == 200
            event = ""
            async for line in resp.aiter_lines():
                if line.startswith("event: "):
                    event = line[7:]
                elif line.startswith("data: ") and event in AT_LEAST:
                    on_event(event)
                    if event in ENDED:
                        return


async def _sse_loop(server: MetisServer, actions: int, streams: int) -> list[tuple[str, str, str]]:
    async with ToolBus.connect(server) as tb:
        watcher = _Watcher(tb)
        try:
            for _ in range(actions):
                s = await tb.start("t_noop", {})
                await asyncio.wait_for(asyncio.gather(*(
                    _sse_events(server, s["topic"], lambda ev, aid=s["action_id"]: watcher.check(aid, ev))
                    for _ in range(streams))), 60)
                await watcher.wait_ended(s["action_id"], streams)
            await watcher.drain()
            return watcher.seen
        finally:
            await watcher.close()


async def test_actions_get_right_after_each_streamed_event_is_as_new(metis_server: MetisServer):
    seen = [s for part in await asyncio.gather(*(_sse_loop(metis_server, 10, 4) for _ in range(3))) for s in part]
    assert len([s for s in seen if s[1] in ENDED]) >= 3 * 10 * 4
    assert _lagging(seen) == []
