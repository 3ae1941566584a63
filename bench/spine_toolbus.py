"""Spine benchmark 3: ``session.whoami`` round trips/s for one ToolBus client.

Figures (each next to baselines measured in the same run, with the same client library,
``websockets``, one connection, one request in flight, the same JSON-RPC text frame):
- whoami round trips/s against a real ``metis serve`` (per-connection rate limit raised
  through ``METIS_RATE_PER_S``/``METIS_RATE_BURST`` so the limiter does not cap the figure; with
  the default of 500/s it would);
- baseline A (the target's): a bare ``websockets`` echo server (its own process);
- baseline B (diagnostic): a bare Starlette WebSocket echo endpoint on uvicorn, the same
  server stack Metis uses, so the ratio splits framework cost from Metis' own cost.
Phases are interleaved over ``--rounds`` rounds so machine load hits all of them alike.

Run from the repo root: ``PYTHONPATH=. .venv/bin/python bench/spine_toolbus.py``; writes
``bench/results/spine_toolbus.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.spine_common import REPO, ms, pct, ratio, show, write_result  # noqa: E402
from bench.spine_sse import proc_cpu_s  # noqa: E402
from tests.support import MetisServer, free_port, token_for  # noqa: E402

TARGET_RATIO = 0.8
REQUEST = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "session.whoami", "params": {}})


def serve_websockets_echo(port: int) -> None:
    import websockets.asyncio.server as wss

    async def echo(ws) -> None:  # noqa: ANN001
        async for msg in ws:
            await ws.send(msg)

    async def main() -> None:
        async with wss.serve(echo, "127.0.0.1", port, max_size=16 * 1024 * 1024):
            await asyncio.Future()

    asyncio.run(main())


def serve_starlette_echo(port: int) -> None:
    import uvicorn
    from starlette.applications import Starlette
    from starlette.routing import WebSocketRoute
    from starlette.websockets import WebSocket, WebSocketDisconnect

    async def echo(ws: WebSocket) -> None:
        await ws.accept()
        try:
            while True:
                await ws.send_text(await ws.receive_text())
        except WebSocketDisconnect:
            pass

    app = Starlette(routes=[WebSocketRoute("/ws", echo)])
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", ws_max_size=16 * 1024 * 1024)


def spawn(mode: str, port: int) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, __file__, mode, str(port)], cwd=REPO)
    import socket

    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return proc
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError(f"{mode} did not start")


async def round_trips(url: str, seconds: float, headers: dict[str, str] | None = None,
                      check: bool = False) -> tuple[int, float, list[float]]:
    import websockets

    async with websockets.connect(url, additional_headers=headers or {}, max_size=16 * 1024 * 1024) as ws:
        for _ in range(200):  # warm-up
            await ws.send(REQUEST)
            reply = await ws.recv()
        if check:
            body = json.loads(reply)
            if "result" not in body:
                raise RuntimeError(f"whoami failed: {body}")
        lat: list[float] = []
        n = 0
        t0 = time.perf_counter()
        end = t0 + seconds
        while True:
            t = time.perf_counter()
            if t >= end:
                break
            await ws.send(REQUEST)
            reply = await ws.recv()
            lat.append(time.perf_counter() - t)
            n += 1
        elapsed = time.perf_counter() - t0
        if check and "result" not in json.loads(reply):
            raise RuntimeError(f"whoami failed: {reply}")
        return n, elapsed, lat


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=3.0, help="per phase per round")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--smoke", action="store_true", help="small N, seconds (CI); results to a temp dir")
    args = ap.parse_args()
    load_at_start = [round(x, 2) for x in os.getloadavg()]  # the machine is shared: next to every figure
    if args.smoke:
        args.seconds, args.rounds = 0.3, 1
    tmp = Path(tempfile.mkdtemp(prefix="spine_toolbus_", dir=REPO / "bench"))
    server = MetisServer(tmp / "data", extra_args=["--log-level", "warning"],
                         env={"METIS_RATE_PER_S": "10000000", "METIS_RATE_BURST": "10000000"})
    p_ws, p_st = free_port(), free_port()
    procs = [spawn("--serve-websockets-echo", p_ws), spawn("--serve-starlette-echo", p_st)]
    server.start()
    totals = {k: [0, 0.0, []] for k in ("metis", "websockets_echo", "starlette_echo")}
    cpu = dict.fromkeys(totals, 0.0)  # server CPU seconds: steadier than rates on a loaded machine
    try:
        targets = {
            "websockets_echo": (f"ws://127.0.0.1:{p_ws}/", None, False, procs[0].pid),
            "starlette_echo": (f"ws://127.0.0.1:{p_st}/ws", None, False, procs[1].pid),
            "metis": (server.ws_url, {"Authorization": f"Bearer {token_for('partner')}"}, True,
                      server.proc.pid if server.proc else None),
        }
        for _ in range(args.rounds):
            for name, (url, headers, check, pid) in targets.items():
                c0 = proc_cpu_s(pid)
                n, el, lat = asyncio.run(round_trips(url, args.seconds, headers, check))
                cpu[name] += proc_cpu_s(pid) - c0
                totals[name][0] += n
                totals[name][1] += el
                totals[name][2].extend(lat)
    finally:
        server.stop()
        for p in procs:
            p.terminate()
            p.wait(10)
        shutil.rmtree(tmp, ignore_errors=True)
    fig = {name: {"round_trips": n, "seconds": round(el, 3), "round_trips_per_s": round(n / el, 1),
                  "p50_ms": ms(pct(lat, 0.5)), "p99_ms": ms(pct(lat, 0.99)),
                  "server_cpu_us_per_round_trip": round(cpu[name] / max(1, n) * 1e6, 2)}
           for name, (n, el, lat) in totals.items()}
    m, e, s = (fig[k]["round_trips_per_s"] for k in ("metis", "websockets_echo", "starlette_echo"))
    result = {"benchmark": "spine_toolbus", "load_average_at_start": load_at_start, "figures": fig, "ratio_vs_websockets_echo": ratio(m, e),
              "ratio_vs_starlette_echo": ratio(m, s), "ratio_starlette_echo_vs_websockets_echo": ratio(s, e),
              "target_ratio_vs_websockets_echo": TARGET_RATIO, "met": ratio(m, e) >= TARGET_RATIO,
              "note": "rate limit raised for the run (default 500/s per connection would cap the figure)"}
    path = write_result("spine_toolbus", result, args.smoke)
    show("ToolBus session.whoami, one client", [
        ("whoami round trips/s", f"{m:,.0f}", f"{e:,.0f}", f"{ratio(m, e):.2f}x"),
        ("  vs starlette/uvicorn echo", "", f"{s:,.0f}", f"{ratio(m, s):.2f}x"),
        ("whoami p50 / p99 ms", f"{fig['metis']['p50_ms']} / {fig['metis']['p99_ms']}",
         f"{fig['websockets_echo']['p50_ms']} / {fig['websockets_echo']['p99_ms']}", ""),
        ("server CPU us per round trip", f"{fig['metis']['server_cpu_us_per_round_trip']}",
         f"{fig['websockets_echo']['server_cpu_us_per_round_trip']}",
         f"{ratio(fig['metis']['server_cpu_us_per_round_trip'], fig['websockets_echo']['server_cpu_us_per_round_trip']):.2f}x"),
        ("load average at start; at end", f"{load_at_start[0]}", f"{os.getloadavg()[0]:.2f}", ""),
    ])
    print(f"met: {result['met']}\nwrote {path}")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--serve-websockets-echo":
        serve_websockets_echo(int(sys.argv[2]))
    elif len(sys.argv) == 3 and sys.argv[1] == "--serve-starlette-echo":
        serve_starlette_echo(int(sys.argv[2]))
    else:
        main()
