"""``metis worker``: a process of the worker tier that runs abilities and serves nothing.

It opens the shared PostgreSQL log, keeps every action's view from it, and claims ready jobs
from the work queue (``orchestrator/replicas.py``): as many as it has free slots, under leases
it heartbeats. Replicas started with ``--workers 0`` only serve (ToolBus, SSE); these processes
run the actions, on any machine that reaches the database. SIGTERM stops it cleanly: runs in
progress are left ``running`` in the log, their leases are released, and another worker resumes
them by replay at once.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import signal
import sys
from pathlib import Path
from typing import Any

import structlog

log = structlog.get_logger("metis.worker_tier")


def add_command(sub: argparse._SubParsersAction) -> None:
    """Register ``metis worker``."""
    from orchestrator import db

    w = sub.add_parser("worker", help="run actions for the replicas of a PostgreSQL deployment (serves nothing)")
    db.database_option(w, " (required)")
    db.keys_option(w)
    w.add_argument("--data-dir", default=os.environ.get("METIS_DATA_DIR") or ".metis-worker",
                   help="scratch directory for abilities (default .metis-worker, or METIS_DATA_DIR)")
    w.add_argument("--workers", type=int, default=int(os.environ.get("METIS_WARM_WORKERS") or 2),
                   help="worker processes started up front (default 2)")
    w.add_argument("--concurrency", type=int, default=int(os.environ.get("METIS_MAX_CONCURRENT") or 4),
                   help="actions running at once; also how many jobs it claims (default 4)")
    w.add_argument("--log-level", default="info", choices=["debug", "info", "warning", "error"])
    w.add_argument("--check", type=float, default=None, metavar="SECONDS",
                   help="liveness probe: exit 0 if the worker of --data-dir showed life within SECONDS, else 1")
    w.set_defaults(fn=cmd_worker)


ALIVE_FILE = "worker.alive"
ALIVE_EVERY_S = 5.0


def _fail(message: str) -> int:
    print(f"metis: {message}", file=sys.stderr)
    return 2


def check_alive(data_dir: Path, within_s: float) -> int:
    """``metis worker --check``: the worker's event loop touches ``worker.alive`` every few seconds;
    a stale (or missing) file means a hung or dead worker (its leases lapse; the probe restarts it)."""
    import time

    path = data_dir / ALIVE_FILE
    try:
        age = time.time() - path.stat().st_mtime
    except FileNotFoundError:
        print(f"metis: no {path}: the worker has not started", file=sys.stderr)
        return 1
    if age > within_s:
        print(f"metis: {path} is {age:.0f} s old (limit {within_s:.0f} s): the worker is stuck", file=sys.stderr)
        return 1
    return 0


async def _show_life(path: Path) -> None:
    while True:
        path.touch()
        await asyncio.sleep(ALIVE_EVERY_S)


def cmd_worker(args: argparse.Namespace) -> int:
    from receipts.store import is_postgres_url

    if args.check is not None:
        return check_alive(Path(args.data_dir), args.check)
    if not args.database:
        return _fail("metis worker needs --database postgresql://... (or METIS_DATABASE_URL)")
    if not is_postgres_url(args.database):
        return _fail("--database must be a postgresql:// URL (workers share the replicas' database)")
    if args.workers < 1:
        return _fail(f"--workers must be at least 1 (got {args.workers})")
    if args.concurrency < 1:
        return _fail(f"--concurrency must be at least 1 (got {args.concurrency})")
    keys = Path(args.keys_dir) if args.keys_dir else None
    if keys is None or not (keys / "server.key").is_file():
        return _fail("--keys-dir (or METIS_KEYS_DIR) must hold the replicas' server.key: seeds of sub-actions "
                     "derive from it (create it once with `metis keys init --keys-dir DIR`)")
    from orchestrator.logconfig import configure_logging

    configure_logging(args.log_level)
    try:
        return _event_loop_runner()(run_worker(args.database, keys, Path(args.data_dir), args.workers, args.concurrency))
    except KeyboardInterrupt:
        return 0


def _event_loop_runner() -> Any:
    """``uvloop.run`` where uvloop is installed (the loop ``metis serve`` runs on, through uvicorn:
    less CPU per loop turn), else ``asyncio.run``."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run
    return uvloop.run


async def run_worker(database_url: str, keys_dir: Path, data_dir: Path, warm: int, concurrency: int) -> int:
    """Open, claim and run until SIGTERM/SIGINT; then release every lease and stop."""
    from orchestrator.approvals import Approvals
    from orchestrator.config import Settings
    from orchestrator.replicas import owned
    from orchestrator.scheduler import Scheduler
    from orchestrator.seeds import load_or_create_key
    from orchestrator.workers import WorkerPool
    from receipts.store import open_store

    settings = Settings.from_env()
    data_dir.mkdir(parents=True, exist_ok=True)
    rlog = owned(open_store(database_url, data_dir, keys_dir), database_url)
    rlog.follow_only(("state",))  # its scheduler reads state records; it serves no stream, proof or tree head
    rlog.open()
    loop = asyncio.get_running_loop()
    rlog.bind_loop(loop)
    pool = WorkerPool(warm, max(warm, settings.max_workers), env={"METIS_DATA_DIR": str(data_dir.resolve())})
    scheduler: Scheduler | None = None
    approvals: Approvals | None = None
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    try:
        await pool.start()
        scheduler = Scheduler(rlog, pool, load_or_create_key(keys_dir), concurrency, settings.max_wall_s,
                              retry={"max_attempts": settings.retry_attempts, "backoff_s": settings.retry_backoff_s},
                              probe=getattr(rlog, "probe", None))
        approvals = Approvals(rlog)  # an approval an ability asks for here gets its row in the shared state
        scheduler.approval_hook = approvals.asked
        counts = await scheduler.recover()
        from abilities import registry

        registry.available()  # import every ability now, not inside the first claimed run
        gc.collect()
        gc.freeze()
        life = asyncio.get_running_loop().create_task(_show_life(data_dir / ALIVE_FILE))
        print(json.dumps({"event": "worker_ready", "owner": rlog.owner, "workers": warm,
                          "concurrency": concurrency, "actions": counts["restored"]}), flush=True)
        await stop.wait()
        life.cancel()
    finally:
        if scheduler is not None:
            await scheduler.close()
        await pool.close()
        if approvals is not None:
            approvals.state.close()
        with contextlib.suppress(Exception):
            rlog.close()
        log.info("worker_stopped", owner=rlog.owner)
    return 0
