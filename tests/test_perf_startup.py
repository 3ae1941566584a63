"""Start-up: the server serves before it imports any ability's heavy libraries or any worker is up.

No timing asserts (the machine is shared): what makes start-up fast is checked structurally, on a
real ``metis serve`` subprocess. Its ``started`` log line lists the heavy libraries it has loaded
(``orchestrator.app.HEAVY_MODULES``) and ``/proc/<pid>/maps`` shows the shared objects mapped
(z3, numpy, spaCy), while the workers, its children, do map them. An action started right after
``/readyz`` waits for the first worker and completes; an SSE resume answers from the first moment.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import httpx

from orchestrator.app import HEAVY_MODULES
from tests.support import ROOT, MetisServer, ToolBus, ended, sse_read

#: Shared objects of libraries that only workers need (z3's library, numpy's core, spaCy's).
HEAVY_SO = ("libz3", "_multiarray_umath", "/spacy/", "/thinc/")


def mapped_heavy(pid: int) -> list[str]:
    """Heavy shared objects mapped into process ``pid``."""
    with open(f"/proc/{pid}/maps") as f:
        paths = {line.split()[-1] for line in f if "/" in line}
    return sorted(p for p in paths if any(mark in p for mark in HEAVY_SO))


def children(pid: int) -> list[int]:
    """Direct children of ``pid`` (the worker processes of a server)."""
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(entry))
    return out


def started_line(server: MetisServer) -> dict:
    """The server's ``started`` log line."""
    log = server.data_dir.parent / f"{server.data_dir.name}-server.log"
    for line in log.read_text().splitlines():
        if '"event": "started"' in line:
            return json.loads(line)
    raise AssertionError(f"no started line in {log}")


def start_ready(server: MetisServer, timeout: float = 120.0) -> MetisServer:
    """``server.start`` returns on ``/healthz``; also wait for ``/readyz`` (polled every 10 ms)."""
    server.start(timeout)
    deadline = time.monotonic() + timeout
    while httpx.get(server.http_url + "/readyz", timeout=5).status_code != 200:
        assert time.monotonic() < deadline, "never ready"
        time.sleep(0.01)
    return server


async def test_server_serves_before_heavy_imports_and_workers(tmp_path):
    server = start_ready(MetisServer(tmp_path / "data"))
    try:
        pid = server.proc.pid
        line = started_line(server)
        assert set(line["heavy_modules"]) <= set(HEAVY_MODULES)
        assert not {"sympy", "z3", "spacy", "pint", "bm25s", "numpy", "mpmath"} & set(line["heavy_modules"]), line
        assert mapped_heavy(pid) == []
        # an action started at once completes: it waits in the queue for the first worker
        async with ToolBus.connect(server) as tb:
            assert (await tb.call("session.whoami"))["tenant"] == "acme"
            started = await tb.start("t_emit", {"n": 3})
            view = await tb.wait_status(started["action_id"], {"completed", "failed", "partial"}, timeout=120)
            assert view["status"] == "completed", view
            # validating and routing an action did not pull a heavy library into the server either
            assert mapped_heavy(pid) == []
            # the heavy libraries live in the workers (imported there in the background after they
            # said ready, so wait for it, bounded)
            workers = children(pid)
            assert workers, "no worker process"
            deadline = time.monotonic() + 120
            while not any(any("libz3" in p for p in mapped_heavy(w)) for w in children(pid)):
                assert time.monotonic() < deadline, "no worker imported z3"
                await asyncio.sleep(0.2)
        _, events = await sse_read(server, started["topic"], last_event_id=0, until=ended(started["action_id"]))
        assert [e["event"] for e in events][-1] == "action_completed"
    finally:
        server.stop()


async def test_resume_and_first_action_right_after_restart(tmp_path):
    data = tmp_path / "data"
    server = start_ready(MetisServer(data))
    async with ToolBus.connect(server) as tb:
        view, events = await tb.run("t_emit", {"n": 4})
    assert view["status"] == "completed"
    server.stop()
    ids = [e["id"] for e in events if e["data"]["action_id"] == view["action_id"]]

    again = start_ready(MetisServer(data))  # a log with records: resume answers at once, no worker needed
    try:
        _, resumed = await sse_read(again, view["topic"], last_event_id=ids[1], until=ended(view["action_id"]))
        assert [e["id"] for e in resumed] == [i for i in ids if i > ids[1]]
        async with ToolBus.connect(again) as tb:
            started = await tb.start("t_noop", {})
            done = await tb.wait_status(started["action_id"], {"completed", "failed", "partial"}, timeout=120)
            assert done["status"] == "completed", done
        assert mapped_heavy(again.proc.pid) == []
    finally:
        again.stop()


def test_registry_imports_one_ability_by_name_and_classes_stay_light():
    """``names()`` imports nothing; ``get`` imports only the named ability; no ability class pulls
    z3 or spaCy into the process that validates its inputs (crl_math's models parse with sympy)."""
    code = """
import json, sys
from abilities import registry
heavy = ("sympy", "z3", "spacy", "numpy", "pint", "bm25s")
names = registry.names()
before = sorted(m for m in sys.modules if m.startswith("abilities.") and m.endswith(".ability"))
registry.get("sandbox")
after_one = sorted(m for m in sys.modules if m.startswith("abilities.") and m.endswith(".ability"))
per_class = {}
for name in ("cda", "scu_guard", "ariadne_audit", "research", "sandbox", "crl_math"):
    loaded = set(sys.modules)
    registry.get(name)
    per_class[name] = sorted(h for h in heavy if h in sys.modules and h not in loaded)
print(json.dumps({"names": names, "before": before, "after_one": after_one, "per_class": per_class}))
"""
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}, check=True)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert {"cda", "crl_math", "scu_guard", "sandbox", "research"} <= set(got["names"])
    assert got["before"] == []
    assert got["after_one"] == ["abilities.sandbox.ability"]
    for name in ("cda", "scu_guard", "ariadne_audit", "research", "sandbox"):
        assert got["per_class"][name] == [], (name, got["per_class"][name])
    assert not {"z3", "spacy"} & set(got["per_class"]["crl_math"])


async def test_get_async_imports_off_the_loop_and_returns_the_same_class():
    """``registry.get_async`` imports a not-yet-loaded ability in a thread: the loop keeps ticking."""
    code = """
import asyncio, json, sys, time
from abilities import registry

async def main():
    ticks = 0
    async def tick():
        nonlocal ticks
        while True:
            await asyncio.sleep(0.005)
            ticks += 1
    ticker = asyncio.get_running_loop().create_task(tick())
    await asyncio.sleep(0.02)
    before = ticks
    cls = await registry.get_async("crl_math")
    during = ticks - before
    ticker.cancel()
    again = await registry.get_async("crl_math")
    print(json.dumps({"name": cls.name, "same": again is cls and registry.get("crl_math") is cls,
                      "ticks_during_import": during, "unknown": await registry.get_async("nope") is None}))

asyncio.run(main())
"""
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}, check=True)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["name"] == "crl_math" and got["same"] and got["unknown"]
    assert got["ticks_during_import"] >= 2  # sympy's import did not hold the loop
