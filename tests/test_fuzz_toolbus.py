"""Bounded property-based fuzz of the ToolBus against a real server (see bench/fuzz_toolbus.py).

Every frame hypothesis generates (message shapes, every method's params, huge integers and floats,
NaN, deep nesting, unicode with lone surrogates, invalid UTF-8) is answered with well-formed
JSON-RPC carrying the right id and an expected code, never -32603; the connection stays open and
the server stays healthy. The long mode: ``bench/fuzz_toolbus.py --minutes 60``.
"""

from __future__ import annotations

import httpx
import pytest
from hypothesis import HealthCheck, given, settings

from bench.fuzz_toolbus import Frame, Fuzzer, frames
from tests.support import MetisServer, ToolBus

pytestmark = pytest.mark.timeout(240)


@pytest.fixture(scope="module")
def fuzz_server(tmp_path_factory):
    # the limiter would answer most frames -32029 at fuzzing speed: raise it (it is tested elsewhere)
    server = MetisServer(tmp_path_factory.mktemp("fuzz") / "data",
                         env={"METIS_RATE_PER_S": "100000", "METIS_RATE_BURST": "100000"}).start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def fuzzer(fuzz_server):
    f = Fuzzer(fuzz_server.ws_url, "tok-acme-fuzz")
    yield f
    f.close()


def test_fuzzed_frames_get_well_formed_answers(fuzzer):
    @settings(max_examples=500, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(frames())
    def one(frame: Frame) -> None:
        fuzzer.run(frame)

    one()
    assert fuzzer.frames >= 500
    for code in ("-32700", "-32600", "-32602", "-32013"):  # the fuzz reached each layer
        assert fuzzer.counts[code] > 0, fuzzer.counts


async def test_server_is_healthy_after_the_fuzz(fuzz_server, fuzzer):
    assert fuzzer.frames > 0  # runs after the fuzz
    async with httpx.AsyncClient(timeout=10) as client:
        assert (await client.get(fuzz_server.http_url + "/healthz")).status_code == 200
    async with ToolBus.connect(fuzz_server) as tb:
        view, _ = await tb.run("t_noop", {})
        assert view["status"] == "completed"
    log = (fuzz_server.data_dir.parent / f"{fuzz_server.data_dir.name}-server.log").read_text()
    assert '"method_failed"' not in log and "Traceback" not in log
