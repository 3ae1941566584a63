"""The /streams response (orchestrator/sse_response.py) on a real server: pings when idle, HEAD
answered with headers only, a hung-up client's subscription released, a client that stops
reading cut after the send timeout while another reader gets every event."""

from __future__ import annotations

import asyncio
import re
import socket

import httpx

from tests.support import MetisServer, run_action, sse_read

ABILITIES = "tests.abilities_testing:ABILITIES,bench.spine_abilities:ABILITIES"
AUTH = b"Authorization: Bearer tok-acme-canvas\r\n"


async def _open(server: MetisServer, topic: str, method: str = "GET",
                rcvbuf: int | None = None) -> tuple[asyncio.StreamReader, asyncio.StreamWriter, bytes]:
    sock = None
    if rcvbuf is not None:
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        sock.connect(("127.0.0.1", server.port))
        sock.setblocking(False)
    reader, writer = (await asyncio.open_connection(sock=sock) if sock is not None
                      else await asyncio.open_connection("127.0.0.1", server.port))
    writer.write(f"{method} /streams/{topic} HTTP/1.1\r\nHost: x\r\n".encode() + AUTH + b"\r\n")
    await writer.drain()
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 20)
    return reader, writer, head


def _subscribers(server: MetisServer) -> float:
    text = httpx.get(f"{server.http_url}/metrics", timeout=10).text
    return float(re.search(r"^metis_sse_subscribers (\S+)$", text, re.M).group(1))


async def test_idle_stream_gets_pings_and_head_gets_headers_only(server_factory, tmp_path):
    server = server_factory(tmp_path / "ping", env={"METIS_HEARTBEAT_S": "0.5"})
    reader, writer, head = await _open(server, "quiet")
    lowered = head.lower()
    assert head.startswith(b"HTTP/1.1 200")
    for header in (b"content-type: text/event-stream", b"cache-control: no-store", b"x-accel-buffering: no",
                   b"metis-resumed-after: 0"):
        assert header in lowered, (header, head)
    body = b""
    while body.count(b": ping\n\n") < 2:
        body += await asyncio.wait_for(reader.read(4096), 10)
    writer.close()

    reader, writer, head = await _open(server, "quiet", method="HEAD")
    assert head.startswith(b"HTTP/1.1 200") and b"text/event-stream" in head.lower()
    rest = await asyncio.wait_for(reader.read(4096), 10)  # the empty body's last chunk, then nothing
    assert b"ping" not in rest and b"id:" not in rest
    writer.close()


async def test_hung_up_client_releases_its_subscription(metis_server):
    before = _subscribers(metis_server)
    streams = [await _open(metis_server, "hangup") for _ in range(5)]
    for _ in range(50):
        if _subscribers(metis_server) == before + 5:
            break
        await asyncio.sleep(0.1)
    assert _subscribers(metis_server) == before + 5
    for _, writer, _ in streams:
        writer.close()
    for _ in range(100):
        if _subscribers(metis_server) == before:
            break
        await asyncio.sleep(0.1)
    assert _subscribers(metis_server) == before


async def test_client_that_stops_reading_is_cut_after_the_send_timeout(server_factory, tmp_path):
    server = server_factory(tmp_path / "slow", env={"METIS_SEND_TIMEOUT_S": "1", "METIS_EXTRA_ABILITIES": ABILITIES})
    topic = "slowpoke"
    before = _subscribers(server)
    s_reader, s_writer, _ = await _open(server, topic, rcvbuf=4096)  # never read below, until the end
    reader = asyncio.create_task(sse_read(server, topic, until=lambda e: e["event"] == "action_completed",
                                          timeout=120))
    # ~9 MB of frames: more than the kernel buffers between the server and a client that does not read
    view, events = await run_action(server, "b_stamp", {"n": 2000, "pad": 4096}, topic=topic)
    assert view["status"] == "completed"
    _, read = await reader
    assert [e["id"] for e in read] == [e["id"] for e in events]  # the reading client got all, in order
    # Not a byte read yet: the server must give up on its own (reading now would unblock its send).
    # Its subscription is released when it does; a generous bound, the machine may be loaded.
    for _ in range(300):
        if _subscribers(server) == before:
            break
        await asyncio.sleep(0.1)
    assert _subscribers(server) == before, "a client that stopped reading was not cut after the send timeout"
    data = b""
    deadline = asyncio.get_running_loop().time() + 60
    while asyncio.get_running_loop().time() < deadline:  # what was buffered before the cut, then the close
        try:
            chunk = await asyncio.wait_for(s_reader.read(1 << 20), 30)
        except ConnectionResetError:
            break
        if not chunk:
            break
        data += chunk
    else:
        raise AssertionError("the connection of the cut client was not closed")
    s_writer.close()
    assert b"event: action_completed" not in data  # cut before the end
    assert not data.endswith(b"0\r\n\r\n")  # and not ended like a finished response
    ids = [int(x) for x in re.findall(rb"^id: (\d+)$", data, re.M)]
    assert ids == sorted(ids) and len(ids) == len(set(ids))


async def test_slow_but_steady_reader_gets_every_event_in_order(server_factory, tmp_path):
    """Sends that wait for the socket (a reader slower than the producer) keep order: no gap, no
    duplicate, whichever path (direct from the commit, or the stream's task) sent each frame."""
    server = server_factory(tmp_path / "steady", env={"METIS_EXTRA_ABILITIES": ABILITIES})
    topic = "steady"
    reader, writer, _ = await _open(server, topic, rcvbuf=4096)

    async def read_slowly() -> bytes:
        data = b""
        while b"event: action_completed" not in data[-8192:]:
            chunk = await asyncio.wait_for(reader.read(16384), 60)
            assert chunk, "stream ended early"
            data += chunk
            await asyncio.sleep(0.01)
        return data

    slow = asyncio.create_task(read_slowly())
    view, events = await run_action(server, "b_stamp", {"n": 1500, "pad": 4096, "interval_s": 0.001},
                                   topic=topic)  # paced: the stream is caught up when the socket fills
    data = await asyncio.wait_for(slow, 120)
    writer.close()
    ids = [int(x) for x in re.findall(rb"^id: (\d+)$", data, re.M)]
    assert ids == [e["id"] for e in events]
