"""SSE catch-up storm (issue 10 item 4): many readers replaying one topic from id 0 at once.

Real server, real log on disk, real sockets. Every reader must get every event of the topic, in
order, once; the server's RSS must stay within a bound that does not grow with the number of
readers (the old gateway held a copy of the backlog per reader: ~2 MB each here), and the
memory must be given back after the readers leave.
"""

from __future__ import annotations

import asyncio

from bench.spine_replay_storm import build, storm
from tests.support import MetisServer

READERS = 250
EVENTS = 400
RSS_BOUND_MB = 100.0


def test_replay_storm_bounded_memory_every_event_in_order(tmp_path) -> None:
    seqs = build(tmp_path / "data", EVENTS, 2000, 2000)
    assert len(seqs) == EVENTS
    server = MetisServer(tmp_path / "data", extra_args=["--log-level", "warning"]).start()
    try:
        res = asyncio.run(storm(server, seqs, READERS, idle_s=1.5, settle_s=1.0, timeout=90))
    finally:
        server.stop()
    assert res["reader_errors"] == []
    assert res["readers_complete_in_order"] == READERS, res
    assert res["rss_growth_mb"] < RSS_BOUND_MB, res
    assert res["rss_after_left_growth_mb"] < RSS_BOUND_MB, res
