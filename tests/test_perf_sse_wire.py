"""Event-stream body chunks written straight to the connection (``Wire`` in
orchestrator/sse_response.py), on a real uvicorn server in this process with a real receipt log
and hub, under uvloop and plain asyncio: the fast path is found behind the app's own ``send``;
the body is well-formed chunked HTTP holding every record's frame once, in order, whichever path
(the hub's commit callback, the stream's task, ``send`` after back-pressure) wrote it; and a client
that stops reading gets back-pressure: the server's write buffer stays near its high-water mark
(the rest waits in the subscriber's bounded buffer) instead of taking the whole backlog."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import pytest
import uvicorn
import uvloop
from prometheus_client import CollectorRegistry
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from orchestrator.app import MetisApp
from orchestrator.events import sse_frame
from orchestrator.hub import Hub, resume_then_live
from orchestrator.observe import FAST_BUCKETS, DeliveryClock, LoopHistogram
from orchestrator.observe import SEND_BLOCK as BLOCK
from orchestrator.sse_response import SseResponse
from receipts.log import Entry, ReceiptLog
from tests.support import free_port

RUNNERS: dict[str, Callable[[Coroutine[Any, Any, None]], None]] = {"uvloop": uvloop.run, "asyncio": asyncio.run}
TENANT, TOPIC = "acme", "wire"


class Harness:
    """A uvicorn (httptools) server of one ``/streams`` route over a real log and hub."""

    def __init__(self, data_dir: Path, lag: DeliveryClock | None = None) -> None:
        self.rlog = ReceiptLog(data_dir)
        self.lag = lag
        self.hub: Hub | None = None
        self.responses: list[SseResponse] = []
        self.port = free_port()
        self.server: uvicorn.Server | None = None
        self.task: asyncio.Task | None = None

    async def stream(self, request: Request) -> SseResponse | PlainTextResponse:
        if request.query_params.get("fail"):  # an error before the response starts is still a 500
            raise RuntimeError("refused")
        hub, rlog = self.hub, self.rlog
        assert hub is not None
        sub = hub.subscribe(TENANT, TOPIC, 1_000_000)
        lag = self.lag
        resp = SseResponse(lambda sink: resume_then_live(rlog, sub, TENANT, TOPIC, 0, sink), sse_frame, {},
                           ping_s=60, send_timeout_s=60, on_close=sub.close,
                           sent=(lambda batch: None) if lag is None else lag.watch(),
                           on_end=lambda: hub.unsubscribe(sub), tally=None if lag is None else lag.tally())
        self.responses.append(resp)
        return resp

    async def __aenter__(self) -> Harness:
        self.rlog.open()
        self.rlog.bind_loop(asyncio.get_running_loop())
        if self.lag is not None:
            self.rlog.add_listener(self.lag.on_commit)
        self.hub = Hub(self.rlog)
        app = MetisApp(routes=[Route("/streams", self.stream)])
        config = uvicorn.Config(app, host="127.0.0.1", port=self.port, http="httptools", lifespan="off",
                                log_level="warning", timeout_graceful_shutdown=2)
        self.server = uvicorn.Server(config)
        self.task = asyncio.get_running_loop().create_task(self.server.serve())
        while not self.server.started:
            assert not self.task.done(), "the server did not start"
            await asyncio.sleep(0.01)
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self.hub is not None and self.server is not None and self.task is not None
        self.hub.close_all()
        self.server.should_exit = True
        await asyncio.wait_for(self.task, 20)
        self.rlog.close()

    async def append(self, count: int, per_commit: int, pad: int = 0) -> None:
        for first in range(0, count, per_commit):
            await self.rlog.append([Entry("event", "action_checkpoint", TENANT, {"i": i, "pad": "x" * pad},
                                          topic=TOPIC, stream=True)
                                    for i in range(first, min(count, first + per_commit))])

    async def subscribe(self, rcvbuf: int | None = None) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        sock = socket.socket()
        if rcvbuf is not None:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        sock.setblocking(False)
        await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", self.port))
        reader, writer = await asyncio.open_connection(sock=sock, limit=1 << 24)
        known = len(self.responses)
        writer.write(b"GET /streams HTTP/1.1\r\nHost: x\r\n\r\n")
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 20)
        assert head.startswith(b"HTTP/1.1 200") and b"transfer-encoding: chunked" in head.lower(), head
        while len(self.responses) == known or self.responses[-1]._wire is None:  # the stream is under way
            await asyncio.sleep(0.01)
        return reader, writer


async def read_chunks(reader: asyncio.StreamReader, frames: int) -> bytes:
    """The body of a chunked response until ``frames`` SSE frames have come, checking each chunk's
    framing strictly (hex size line, exactly that many bytes, CRLF)."""
    parts: list[bytes] = []
    seen = 0
    while seen < frames:
        size_line = await asyncio.wait_for(reader.readuntil(b"\r\n"), 30)
        size = int(size_line[:-2], 16)
        assert size > 0, "the response ended early"
        chunk = await asyncio.wait_for(reader.readexactly(size + 2), 30)
        assert chunk.endswith(b"\r\n"), "chunk longer than its size line says"
        parts.append(chunk[:-2])
        seen += chunk.count(b"\n\n")
    return b"".join(parts)


def expected_body(rlog: ReceiptLog, count: int) -> bytes:
    return b"".join(sse_frame(rec) for rec in rlog.read_stream(TENANT, TOPIC, 0, count + 10))


@pytest.mark.parametrize("runner", sorted(RUNNERS))
def test_live_frames_go_straight_to_the_socket_well_formed_and_in_order(runner: str, tmp_path: Path) -> None:
    async def scenario() -> None:
        async with Harness(tmp_path / "data") as h:
            streams = [await h.subscribe() for _ in range(3)]
            await h.append(60, 1)  # one record per commit: the hub's sinks write them
            await h.append(240, 16)  # several per commit: one chunk per commit and subscriber
            expected = expected_body(h.rlog, 300)
            assert expected.count(b"\n\n") == 300
            for reader, writer in streams:
                assert await read_chunks(reader, 300) == expected
                writer.close()
            for resp in h.responses:
                assert resp._wire is not None, "the fast path was not found behind the app's send"
                assert resp._wire.writes >= 60, resp._wire.writes

            # an error before the response starts still goes through the framework: a 500
            r, w = await asyncio.open_connection("127.0.0.1", h.port)
            w.write(b"GET /streams?fail=1 HTTP/1.1\r\nHost: x\r\n\r\n")
            assert (await asyncio.wait_for(r.readuntil(b"\r\n"), 20)).startswith(b"HTTP/1.1 500")
            w.close()

    RUNNERS[runner](scenario())


@pytest.mark.parametrize("runner", sorted(RUNNERS))
def test_a_client_that_stops_reading_gets_back_pressure_then_every_frame(runner: str, tmp_path: Path) -> None:
    async def scenario() -> None:
        async with Harness(tmp_path / "data") as h:
            reader, writer = await h.subscribe(rcvbuf=4096)
            resp = h.responses[-1]
            assert resp._wire is not None
            cycle = resp._wire.cycle
            count = 0
            while not cycle.flow.write_paused:  # until the kernel's buffers are full (a few MB on loopback)
                assert count < 40_000, "the socket never pushed back"
                await h.append(500, 10, pad=4096)
                count += 500
                await asyncio.sleep(0.05)  # the last commits reach the hub
            await h.append(1000, 1, pad=4096)  # and more, one per commit, while it pushes back
            count += 1000
            await asyncio.sleep(0.2)
            buffered = cycle.transport.get_write_buffer_size()
            assert buffered < 1 << 20, f"{buffered} bytes buffered by the server for a client that does not read"
            assert await read_chunks(reader, count) == expected_body(h.rlog, count)
            assert resp._wire.writes > 0
            writer.close()

    RUNNERS[runner](scenario())


@pytest.mark.parametrize("runner", sorted(RUNNERS))
def test_every_send_is_counted_once_in_the_delivery_lag_histogram(runner: str, tmp_path: Path) -> None:
    """Sends from the commit callback are counted in blocks of ``BLOCK`` (and the rest right after
    the callback), sends of the stream's task one by one: each (stream, record) once, whichever path."""
    async def scenario() -> None:
        hist = LoopHistogram("metis_lag_seconds", "lag", FAST_BUCKETS, CollectorRegistry())
        async with Harness(tmp_path / "data", DeliveryClock(hist)) as h:
            streams = [await h.subscribe() for _ in range(BLOCK + 6)]
            commits = 4
            for _ in range(commits):
                await h.append(1, 1)
                for reader, _ in streams:
                    assert (await read_chunks(reader, 1)).count(b"\n\n") == 1
            await asyncio.sleep(0.05)  # the callback that observes the rest of the last block has run
            assert sum(hist.counts) == len(streams) * commits, hist.counts
            assert 0 < hist.sum < 5.0 * len(streams) * commits
            assert sum(resp._wire.writes for resp in h.responses if resp._wire) >= len(streams) * (commits - 1)
            for _, writer in streams:
                writer.close()

    RUNNERS[runner](scenario())
