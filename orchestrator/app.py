"""App assembly: one Starlette app, one port, all parts wired in the lifespan."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import structlog
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.types import Receive, Scope, Send

from abilities import registry
from orchestrator import observe
from orchestrator.approvals import Approvals
from orchestrator.auth import StreamTokens, TokenStore
from orchestrator.config import Settings
from orchestrator.datadir import DataDirInUse, DataDirLock, make_private
from orchestrator.gateway import stream_endpoint
from orchestrator.hub import Hub
from orchestrator.metrics import Metrics
from orchestrator.scheduler import Scheduler
from orchestrator.seeds import load_or_create_key
from orchestrator.service import Service
from orchestrator.sse_response import RAW_SEND
from orchestrator.toolbus import serve_asgi, toolbus_endpoint
from orchestrator.workers import WorkerPool
from receipts.store import ReceiptStore, open_store

log = structlog.get_logger("metis.app")
CANVAS_DIR = Path(__file__).parent / "canvas"
TOOLBUS_PATH = "/toolbus"


async def healthz(request: Request) -> Response:
    service: Service = request.app.state.service
    return JSONResponse({"status": "ok", "log_records": service.log.last_seq,
                         "workers": service.scheduler.pool.size, "actions": service.status_counts()})


async def readyz(request: Request) -> Response:
    """200 only while the log takes appends; 503 with the reason while storage refuses them."""
    service: Service = request.app.state.service
    failing = service.scheduler.outbox.failing
    if not failing and getattr(service.log, "available", True) is False:  # a store that knows it is cut off
        failing = "the database does not answer"
    if failing:
        return JSONResponse({"status": "not_ready", "reason": f"storage unavailable: {failing}"}, status_code=503)
    return JSONResponse({"status": "ready"})


def file_probe(data_dir: Path) -> Callable[[], Awaitable[bool]]:
    """Can the data directory take a write again? (64 KiB written, fsynced, removed.)"""
    path = data_dir / ".storage-probe"

    def attempt() -> bool:
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            try:
                os.write(fd, b"\0" * 65536)
                os.fsync(fd)
            finally:
                os.close(fd)
            return True
        except OSError:
            return False
        finally:
            with contextlib.suppress(OSError):
                path.unlink()

    async def probe() -> bool:
        return await asyncio.to_thread(attempt)

    return probe


async def metrics_endpoint(request: Request) -> Response:
    service: Service = request.app.state.service
    m = service.metrics
    m.log_records.set(service.log.last_seq)
    m.log_commits.set(service.log.commits_total)
    m.workers.set(service.scheduler.pool.size)
    m.workers_idle.set(service.scheduler.pool.idle)
    m.sse_dropped.set(service.hub.dropped_total)
    for status, n in service.status_counts().items():
        m.actions_status.labels(status).set(n)
    scheduler = service.scheduler
    for tenant in service.tokens.tenants:
        stats = scheduler.tenant_stats().get(tenant, {})
        m.tenant_queued.labels(tenant).set(stats.get("queued", 0))
        m.tenant_running.labels(tenant).set(stats.get("running", 0))
        m.tenant_parked.labels(tenant).set(stats.get("parked", 0))
    m.storage_ready.set(0 if scheduler.outbox.failing else 1)
    m.storage_failures.set(scheduler.outbox.failures_total)
    m.actions_resumed.set(scheduler.counters["resumed"])
    return Response(m.render(), media_type="text/plain; version=0.0.4")


async def _sign_periodically(rlog: ReceiptStore, interval: float) -> None:
    signed = -1
    while True:
        await asyncio.sleep(interval)
        if rlog.last_seq != signed:
            try:
                await rlog.sign_tree_head_async()
            except Exception as exc:  # storage refused the write: try again next time, never die
                log.warning("tree_head_sign_failed", error=str(exc)[:200])
                continue
            signed = rlog.last_seq


#: Libraries only abilities need; the server loads none of them at start-up (``started`` lists
#: those loaded anyway, so a test or an operator can see a regression).
HEAVY_MODULES = ("sympy", "z3", "spacy", "networkx", "numpy", "pint", "lark", "bm25s", "mpmath")


def heavy_modules() -> list[str]:
    """The ``HEAVY_MODULES`` this process has imported."""
    return [name for name in HEAVY_MODULES if name in sys.modules]


#: Middle-generation collections between two full ones (Python's default: 10). A full collection
#: walks every object alive, and the server keeps every action in memory: at a few thousand actions
#: one pass took 60-180 ms of the event loop, about once per burst of 1,000 starts. Ten times
#: rarer, they stay out of bursts; cyclic garbage old enough for the last generation waits longer.
FULL_GC_EVERY = 100


def tune_gc() -> None:
    """Full collections ``FULL_GC_EVERY`` middle ones apart (the young thresholds unchanged)."""
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, FULL_GC_EVERY)


def _ability_loaded(metrics: Metrics, cls: type) -> None:
    """An ability class was imported into the server: declare its metrics, freeze the heap
    again (the import's objects are permanent: no full GC pass should walk them)."""
    metrics.abilities.declare_all([cls])
    gc.freeze()


class MetisApp(Starlette):
    """The Starlette app, which also hands the server's own ``send`` down in the scope
    (``RAW_SEND``) so a ``/streams`` response can send its body chunks without passing each one
    through the framework's send wrappers (error and exception middleware, route), which only watch
    for the response start; and hands a ``/toolbus`` connection to the ToolBus with the server's
    own ``receive`` and ``send`` (``toolbus.serve_asgi``), which are called for every message of
    the connection. Neither is done once a middleware is added (it might rewrite messages)."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not self.user_middleware:
            kind = scope["type"]
            if kind == "http":
                scope[RAW_SEND] = send
            elif kind == "websocket" and scope["path"] == TOOLBUS_PATH:
                scope["app"] = self
                await serve_asgi(scope, receive, send)
                return
        await super().__call__(scope, receive, send)


def create_app(settings: Settings) -> Starlette:
    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        tune_gc()  # before recovery, which allocates an object per recovered action
        previous_umask = make_private(settings.data_dir)
        lock = DataDirLock(settings.data_dir)
        try:
            lock.acquire()
        except DataDirInUse as exc:
            log.error("data_dir_in_use", data_dir=str(settings.data_dir), holder_pid=exc.pid)
            sys.stderr.write(f"metis: {exc}\n")
            raise
        rlog = open_store(settings.database_url or None, settings.data_dir, settings.keys_dir)
        if settings.database_url:  # several replicas may share the log: each action is leased to one
            from orchestrator.replicas import owned  # PostgreSQL mode only: psycopg loads with it

            rlog = owned(rlog, settings.database_url)
        rlog.open()
        rlog.bind_loop(asyncio.get_running_loop())
        key = load_or_create_key(settings.keys_dir or settings.data_dir)
        if settings.tokens_file:
            tokens = TokenStore.load(settings.tokens_file)
        else:
            tokens, path = TokenStore.create_default(settings.data_dir)
            log.info("tokens", path=str(path))
        pool = WorkerPool(settings.warm_workers, settings.max_workers,
                          env={"METIS_DATA_DIR": str(settings.data_dir.resolve())}, umask=previous_umask)
        metrics = Metrics()
        scheduler = Scheduler(rlog, pool, key, settings.max_concurrent, settings.max_wall_s,
                              tenants=len(tokens.tenants),
                              retry={"max_attempts": settings.retry_attempts, "backoff_s": settings.retry_backoff_s},
                              probe=getattr(rlog, "probe", None) or file_probe(settings.data_dir))
        scheduler.on_ended.append(lambda a: observe.child(metrics.actions_ended, a.ability, str(a.status)).inc())
        observe.wire(rlog, scheduler, metrics, ())  # histograms, spans; ability metrics as each ability loads
        forget_abilities = registry.on_load(lambda cls: _ability_loaded(metrics, cls))
        hub = Hub(rlog, settings.subscriber_buffer)
        approvals = Approvals(rlog)
        approvals.rebuild()
        start_rate = ((settings.tenant_start_rate_per_s, settings.tenant_start_burst)
                      if settings.tenant_start_rate_per_s else None)
        service = Service(rlog, scheduler, hub, approvals, tokens, StreamTokens(key), metrics,
                          settings.subscriber_buffer, start_rate=start_rate)
        pool.start_background()  # ready soon; an action started before a worker is up waits for it
        counts = await scheduler.recover()
        # Abilities are imported on their first use (validation needs only their input models);
        # workers import them in their own processes. What is loaded so far lives as long as the
        # process: frozen, full GC passes skip it (each later ability import freezes again).
        gc.freeze()  # no gc.collect() first: it walked the whole young heap for little garbage (~0.1 s)
        log.info("started", data_dir=str(settings.data_dir), records=rlog.last_seq,
                 heavy_modules=heavy_modules(), **counts)
        app.state.service = service
        app.state.settings = settings
        signer = asyncio.get_running_loop().create_task(_sign_periodically(rlog, settings.tree_head_interval_s))
        try:
            yield
        finally:
            signer.cancel()
            forget_abilities()
            hub.close_all()
            await scheduler.close()
            service.close()
            await pool.close()
            rlog.close()
            lock.release()
            os.umask(previous_umask)
            log.info("stopped", records=rlog.last_seq)

    routes = [
        WebSocketRoute(TOOLBUS_PATH, toolbus_endpoint),
        Route("/streams/{topic:path}", stream_endpoint),
        Route("/healthz", healthz),
        Route("/readyz", readyz),
        Route("/metrics", metrics_endpoint),
        Mount("/canvas", StaticFiles(directory=CANVAS_DIR, html=True), name="canvas"),
    ]
    return MetisApp(routes=routes, lifespan=lifespan)
