"""Spine benchmark: server start-up with a big log vs an empty log vs a bare Starlette app.

Each round starts three servers the same way (a fresh ``python`` subprocess, the clock starting
just before ``Popen``) and times, from process start:
- ``ready``: the first ``/readyz`` 200 (polled every 5 ms over a raw socket);
- ``first call``: a ToolBus ``session.whoami`` answered on a WebSocket opened right after ready;
- ``first action``: a ``t_noop`` action started right after ready, until it is ``completed``
  (it waits for a worker if none is up yet: the warm pool starts after the server is ready);
- ``resume``: the first ``id:`` frame of an SSE stream resumed with ``Last-Event-ID``;
- ``ready CPU``: CPU seconds the server process had used when it became ready (what load on a
  shared machine does not stretch: wall time there is this CPU at whatever share of a core is left).
The servers: ``metis serve`` on a data dir of ``--records`` records, ``metis serve`` on an empty
data dir, and the baseline, a bare uvicorn + Starlette app with the same routes answering at
once (``/readyz`` and a WebSocket echo), started by the same interpreter. Also the server's RSS
right after the first call, big log vs empty.

With ``--pg`` the same big / empty pair is measured again on PostgreSQL (``--database``): two
throwaway databases on ``--admin-url``, the big one filled with ``--pg-records`` records through
``PostgresReceiptLog`` in big batches, both dropped at the end.

Run from the repo root: ``PYTHONPATH=. .venv/bin/python bench/spine_startup.py [--records N] [--pg]``;
``--keep DIR`` builds the big log once into DIR and reuses it. Writes
``bench/results/spine_startup.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import websockets  # noqa: E402

from bench.spine_common import REPO, ratio, show, spread, write_result  # noqa: E402
from bench.spine_resume import FRESH_TOPIC, build, first_event, rss_mb  # noqa: E402
from receipts.log import DB_FILE, Entry, ReceiptLog  # noqa: E402
from tests.support import free_port, token_for, write_tokens  # noqa: E402

TARGET_S = 1.0
BARE_APP = """
import sys, uvicorn
from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.routing import Route, WebSocketRoute

async def readyz(request):
    return JSONResponse({"status": "ready"})

async def echo(ws):
    await ws.accept()
    async for text in ws.iter_text():
        msg = __import__("json").loads(text)
        await ws.send_text(__import__("json").dumps({"jsonrpc": "2.0", "id": msg["id"], "result": {}}))

app = Starlette(routes=[Route("/readyz", readyz), WebSocketRoute("/toolbus", echo)])
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning", ws_per_message_deflate=False)
"""


async def http_status(port: int, path: str) -> int:
    """Status code of one GET (0 when the port does not answer yet)."""
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
    except OSError:
        return 0
    try:
        writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
        head = await reader.read(64)
        return int(head.split(b" ", 2)[1]) if head.startswith(b"HTTP/") else 0
    except (OSError, ValueError, IndexError):
        return 0
    finally:
        writer.close()


async def rpc(ws: Any, rid: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
    """One JSON-RPC call; notifications in between are skipped."""
    await ws.send(json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params}))
    while True:
        msg = json.loads(await asyncio.wait_for(ws.recv(), 120))
        if isinstance(msg, dict) and msg.get("id") == rid:
            return msg


async def probe(proc: subprocess.Popen, port: int, t0: float, metis: bool, resume_id: int | None) -> dict[str, Any]:
    """Times from ``t0`` (before Popen) to ready, first answered call, first action completed, resume."""
    while await http_status(port, "/readyz") != 200:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}")
        if time.perf_counter() - t0 > 600:
            raise RuntimeError("server not ready in 600 s")
        await asyncio.sleep(0.005)
    out: dict[str, Any] = {"ready_s": time.perf_counter() - t0, "ready_cpu_s": cpu_s(proc.pid)}
    headers = {"Authorization": f"Bearer {token_for('partner')}"}
    async with websockets.connect(f"ws://127.0.0.1:{port}/toolbus", additional_headers=headers) as ws:
        reply = await rpc(ws, 1, "session.whoami", {})
        out["first_call_s"] = time.perf_counter() - t0
        if "result" not in reply:
            raise RuntimeError(f"whoami: {reply}")
        if metis:
            started = await rpc(ws, 2, "actions.start", {"ability": "t_noop", "inputs": {}})
            action_id = started["result"]["action_id"]
            rid = 3
            while True:
                rid += 1
                view = (await rpc(ws, rid, "actions.get", {"action_id": action_id}))["result"]
                if view["status"] == "completed":
                    break
                if view["status"] in ("failed", "partial", "cancelled"):
                    raise RuntimeError(f"first action ended {view['status']}")
                await asyncio.sleep(0.005)
            out["first_action_s"] = time.perf_counter() - t0
    out["rss_mb"] = rss_mb(proc.pid)
    if resume_id is not None:
        t = time.perf_counter()
        _, got = await first_event(port, FRESH_TOPIC, resume_id - 1)
        if got != resume_id:
            raise RuntimeError(f"resume: first id {got}, expected {resume_id}")
        out["resume_first_event_ms"] = (time.perf_counter() - t) * 1000
    return out


def cpu_s(pid: int) -> float:
    """CPU seconds (user + system) process ``pid`` has used: start-up cost that load does not stretch."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def start(cmd: list[str], env: dict[str, str], log: Path) -> subprocess.Popen:
    with log.open("ab") as f:
        return subprocess.Popen(cmd, cwd=REPO, env=env, stdout=f, stderr=f, start_new_session=True)


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(5)


def one(kind: str, data_dir: Path | None, tokens: Path, logs: Path, resume_id: int | None,
        database: str | None = None) -> dict[str, Any]:
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(REPO), "METIS_EXTRA_ABILITIES": "tests.abilities_testing:ABILITIES"}
    if data_dir is None:
        cmd = [sys.executable, "-c", BARE_APP, str(port)]
    else:
        cmd = [sys.executable, "-m", "orchestrator.cli", "serve", "--port", str(port), "--data-dir", str(data_dir),
               "--tokens", str(tokens), "--log-level", "warning"]
        if database:
            cmd += ["--database", database]
    load_1m = round(os.getloadavg()[0], 2)  # per start: the machine is shared
    t0 = time.perf_counter()
    log = logs / f"{kind}.log"
    proc = start(cmd, env, log)
    try:
        return {**asyncio.run(probe(proc, port, t0, data_dir is not None, resume_id)), "load_1m": load_1m}
    except Exception:
        sys.stderr.write(log.read_text()[-3000:])
        raise
    finally:
        stop(proc)


def last_seq(data_dir: Path) -> int:
    conn = sqlite3.connect(data_dir / DB_FILE)
    try:
        return conn.execute("SELECT MAX(seq) FROM records WHERE topic = ?", (FRESH_TOPIC,)).fetchone()[0]
    finally:
        conn.close()


def build_pg(url: str, keys_dir: Path, records: int, batch: int = 4096) -> int:
    """Fill a PostgreSQL log with ``records`` stream records (the same mix as ``build``, the fresh
    topic's one event last); returns that event's seq."""
    from receipts.postgres import PostgresReceiptLog

    rlog = PostgresReceiptLog(url, keys_dir)
    rlog.open()
    try:
        i = 0
        while i < records - 1:
            n = min(batch, records - 1 - i)
            rlog.append_sync([Entry("event", "action_checkpoint", "acme",
                                    {"ability": "b_stamp", "revision": 1, "kind": "plan_delta", "payload": {"i": j}},
                                    topic="resume-target" if j % 100 == 0 else f"noise-{j % 9}",
                                    action_id=f"act_{j // 1000}", stream=True) for j in range(i, i + n)])
            i += n
        last = rlog.append_sync([Entry("event", "action_checkpoint", "acme",
                                       {"ability": "b_stamp", "revision": 1, "kind": "plan_delta", "payload": {"i": i}},
                                       topic=FRESH_TOPIC, action_id="act_fresh", stream=True)])
        return last[-1].seq
    finally:
        rlog.close()


def pg_rounds(args: argparse.Namespace, tmp: Path, tokens: Path) -> dict[str, Any]:
    """The big / empty pair on PostgreSQL: two throwaway databases, dropped at the end."""
    import psycopg

    names = {k: f"metis_startup_{k}_{secrets.token_hex(4)}" for k in ("big", "empty")}
    base = args.admin_url.rsplit("/", 1)[0]
    with psycopg.connect(args.admin_url, autocommit=True) as admin:
        for name in names.values():
            admin.execute(f"CREATE DATABASE {name}")
    try:
        urls = {k: f"{base}/{name}" for k, name in names.items()}
        t = time.perf_counter()
        resume_id = build_pg(urls["big"], tmp / "pg-keys", args.pg_records)
        built = time.perf_counter() - t
        runs: dict[str, list[dict[str, Any]]] = {"pg_big": [], "pg_empty": []}
        for _ in range(args.rounds):
            for kind, rid in (("big", resume_id), ("empty", None)):
                data_dir = tmp / f"pg-{kind}-data"
                data_dir.mkdir(exist_ok=True)
                runs[f"pg_{kind}"].append(one(f"pg_{kind}", data_dir, tokens, tmp, rid, urls[kind]))
        return {"records": resume_id, "build_seconds": round(built, 1), "runs": runs}
    finally:
        with psycopg.connect(args.admin_url, autocommit=True) as admin:
            for name in names.values():
                admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", type=int, default=5_000_000)
    ap.add_argument("--rounds", type=int, default=3, help="start-ups of each server, interleaved")
    ap.add_argument("--keep", type=Path, default=None, help="build the big log into / reuse it from this data dir")
    ap.add_argument("--pg", action="store_true", help="also measure on PostgreSQL (throwaway databases)")
    ap.add_argument("--pg-records", type=int, default=1_000_000)
    ap.add_argument("--admin-url", default="postgresql://postgres@127.0.0.1:5432/postgres")
    ap.add_argument("--smoke", action="store_true", help="small N, seconds (CI); results to a temp dir")
    args = ap.parse_args()
    if args.smoke:
        args.records, args.rounds, args.pg_records = 2_000, 1, 2_000
    tmp = Path(tempfile.mkdtemp(prefix="spine_startup_"))
    big = args.keep or tmp / "big"
    try:
        if (big / DB_FILE).exists():
            info: dict[str, Any] = {"reused": True}
        else:
            info = build(big, args.records, 4096, 9, 100)
            info.pop("target_seqs")
        resume_id = last_seq(big)
        conn = sqlite3.connect(big / DB_FILE)
        info["records"] = conn.execute("SELECT MAX(seq) FROM records").fetchone()[0]
        conn.close()
        empty = tmp / "empty"
        ReceiptLog(empty).open()
        tokens = write_tokens(tmp / "tokens.json")
        runs: dict[str, list[dict[str, Any]]] = {"big": [], "empty": [], "bare": []}
        for _ in range(args.rounds):  # interleaved: load hits each server alike
            runs["big"].append(one("big", big, tokens, tmp, resume_id))
            runs["empty"].append(one("empty", empty, tokens, tmp, None))
            runs["bare"].append(one("bare", None, tokens, tmp, None))
        pg = pg_rounds(args, tmp, tokens) if args.pg else None
        if pg:
            runs.update(pg.pop("runs"))
            info["pg"] = pg
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    def med(kind: str, key: str) -> float:
        v = sorted(r[key] for r in runs[kind])
        return v[len(v) // 2]

    result = {"benchmark": "spine_startup", "log": info, "rounds": args.rounds, "runs": runs,
              "ready_s_median": {k: round(med(k, "ready_s"), 3) for k in runs},
              "first_call_s_median": {k: round(med(k, "first_call_s"), 3) for k in runs},
              "ready_cpu_s_median": {k: round(med(k, "ready_cpu_s"), 3) for k in runs},
              "rss_mb_median": {k: round(med(k, "rss_mb"), 1) for k in runs},
              "target_s": TARGET_S,
              "met": med("big", "first_call_s") <= TARGET_S}

    def col(kind: str, key: str) -> str:
        return spread([r[key] for r in runs[kind]], ".3g")

    rows = [
        ("ready (/readyz 200) s, big log", col("big", "ready_s"), col("bare", "ready_s") + " bare",
         f"{ratio(med('big', 'ready_s'), med('bare', 'ready_s')):.2f}x"),
        ("ready s, empty log", col("empty", "ready_s"), col("bare", "ready_s") + " bare",
         f"{ratio(med('empty', 'ready_s'), med('bare', 'ready_s')):.2f}x"),
        ("server CPU s until ready, big log", col("big", "ready_cpu_s"), col("bare", "ready_cpu_s") + " bare",
         f"{ratio(med('big', 'ready_cpu_s'), med('bare', 'ready_cpu_s')):.2f}x"),
        ("server CPU s until ready, empty log", col("empty", "ready_cpu_s"), col("bare", "ready_cpu_s") + " bare",
         f"{ratio(med('empty', 'ready_cpu_s'), med('bare', 'ready_cpu_s')):.2f}x"),
        ("first ToolBus answer s, big log", col("big", "first_call_s"), col("bare", "first_call_s") + " bare",
         f"{ratio(med('big', 'first_call_s'), med('bare', 'first_call_s')):.2f}x"),
        ("first ToolBus answer s, empty log", col("empty", "first_call_s"), col("bare", "first_call_s") + " bare",
         f"{ratio(med('empty', 'first_call_s'), med('bare', 'first_call_s')):.2f}x"),
        ("first no-op action completed s, big", col("big", "first_action_s"), col("empty", "first_action_s") + " empty",
         f"{ratio(med('big', 'first_action_s'), med('empty', 'first_action_s')):.2f}x"),
        ("SSE resume first event ms, big", col("big", "resume_first_event_ms"), "", ""),
        ("server RSS after start MB", col("big", "rss_mb"), col("empty", "rss_mb") + " empty",
         f"{ratio(med('big', 'rss_mb'), med('empty', 'rss_mb')):.2f}x"),
        ("bare app RSS MB", col("bare", "rss_mb"), "", ""),
        ("records in the big log", f"{info['records']:,}", "", ""),
    ]
    if "pg_big" in runs:
        rows += [
            ("PostgreSQL: ready s, big log", col("pg_big", "ready_s"), col("bare", "ready_s") + " bare",
             f"{ratio(med('pg_big', 'ready_s'), med('bare', 'ready_s')):.2f}x"),
            ("PostgreSQL: ready s, empty database", col("pg_empty", "ready_s"), col("bare", "ready_s") + " bare",
             f"{ratio(med('pg_empty', 'ready_s'), med('bare', 'ready_s')):.2f}x"),
            ("PostgreSQL: server CPU s until ready, big", col("pg_big", "ready_cpu_s"),
             col("pg_empty", "ready_cpu_s") + " empty",
             f"{ratio(med('pg_big', 'ready_cpu_s'), med('pg_empty', 'ready_cpu_s')):.2f}x"),
            ("PostgreSQL: first ToolBus answer s, big", col("pg_big", "first_call_s"),
             col("pg_empty", "first_call_s") + " empty",
             f"{ratio(med('pg_big', 'first_call_s'), med('pg_empty', 'first_call_s')):.2f}x"),
            ("PostgreSQL: first no-op action s, big", col("pg_big", "first_action_s"),
             col("pg_empty", "first_action_s") + " empty", ""),
            ("PostgreSQL: SSE resume first event ms, big", col("pg_big", "resume_first_event_ms"), "", ""),
            ("PostgreSQL: server RSS MB", col("pg_big", "rss_mb"), col("pg_empty", "rss_mb") + " empty",
             f"{ratio(med('pg_big', 'rss_mb'), med('pg_empty', 'rss_mb')):.2f}x"),
            ("PostgreSQL: records in the big log", f"{info['pg']['records']:,}", "", ""),
        ]
    path = write_result("spine_startup", result, args.smoke)
    show("server start-up (min/median/max)", rows)
    loads = [r["load_1m"] for k in runs for r in runs[k]]
    print(f"load average (1 min) at the starts: {min(loads)}-{max(loads)}; now {os.getloadavg()}")
    print(f"met (first answer <= {TARGET_S} s at the big log): {result['met']}\nwrote {path}")


if __name__ == "__main__":
    main()
