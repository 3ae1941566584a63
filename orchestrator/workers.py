"""Worker processes seen from the orchestrator: start, message, kill, pool.

Each worker is ``python -m orchestrator.worker`` with line-delimited JSON on stdin/stdout (the
protocol is documented in ``orchestrator/worker.py``). asyncio subprocess pipes mean no threads
on this side, and killing a worker is one syscall.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections import deque
from collections.abc import AsyncIterator, Coroutine
from typing import Any

import structlog

from orchestrator.jsonrpc import loads

try:
    import orjson
except ImportError:  # pragma: no cover - platforms without an orjson wheel
    orjson = None  # type: ignore[assignment]

log = structlog.get_logger("metis.workers")
_LINE_LIMIT = 256 * 1024 * 1024


def encode_line(msg: dict[str, Any]) -> bytes:
    """One protocol line: compact UTF-8 JSON and a newline, written straight to bytes (orjson; the
    stdlib for what orjson refuses: integers beyond 64 bits, lone surrogates, which are escaped)."""
    if orjson is not None:
        try:
            return orjson.dumps(msg, option=orjson.OPT_APPEND_NEWLINE)
        except (TypeError, orjson.JSONEncodeError):
            pass
    text = json.dumps(msg, separators=(",", ":"), ensure_ascii=False) + "\n"
    try:
        return text.encode()
    except UnicodeEncodeError:
        return (json.dumps(msg, separators=(",", ":")) + "\n").encode()


class WorkerDied(RuntimeError):
    """The worker's pipe closed before the action ended."""


class WorkerProc:
    """One worker process."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.pid = proc.pid
        self.killed = False

    @classmethod
    async def start(cls, env: dict[str, str]) -> WorkerProc:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "orchestrator.worker",
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            env=env, limit=_LINE_LIMIT, start_new_session=True,
        )
        worker = cls(proc)
        try:
            msg = await worker.recv()
        except BaseException:  # cancelled (the pool closes) or a broken pipe: no half-started worker left
            worker.kill()
            raise
        if msg is None or msg.get("op") != "ready":
            worker.kill()
            raise WorkerDied(f"worker failed to start: {msg!r}")
        return worker

    @property
    def alive(self) -> bool:
        return not self.killed and self.proc.returncode is None

    def send(self, msg: dict[str, Any]) -> None:
        if self.proc.stdin is None or self.proc.stdin.is_closing():
            raise WorkerDied("worker stdin closed")
        self.proc.stdin.write(encode_line(msg))

    async def recv(self) -> dict[str, Any] | None:
        assert self.proc.stdout is not None
        line = await self.proc.stdout.readline()
        if not line:
            return None
        return loads(line)

    async def messages(self) -> AsyncIterator[dict[str, Any]]:
        while True:
            msg = await self.recv()
            if msg is None:
                return
            yield msg

    def kill(self) -> None:
        """SIGKILL the worker's whole process group (an ability may have started children)."""
        self.killed = True
        if self.proc.returncode is None:
            try:
                os.killpg(self.proc.pid, 9)
            except ProcessLookupError:
                pass


class WorkerPool:
    """Pre-started workers; grows up to ``max_size`` when actions block on sub-actions."""

    def __init__(self, warm: int, max_size: int, env: dict[str, str] | None = None, umask: int = -1) -> None:
        self.warm = warm
        self.max_size = max_size
        self.env = {**os.environ, **(env or {})}
        if umask >= 0:  # the server runs under umask 077; abilities get the operator's back
            self.env["METIS_WORKER_UMASK"] = oct(umask)
        self._idle: deque[WorkerProc] = deque()
        self._all: set[WorkerProc] = set()
        self._starting = 0
        self._waiters = 0
        self._available = asyncio.Condition()
        self._closed = False
        self._spawning: set[asyncio.Task[None]] = set()

    @property
    def size(self) -> int:
        return len(self._all)

    @property
    def idle(self) -> int:
        return len(self._idle)

    async def start(self) -> None:
        """Start the warm workers and wait until they are all up."""
        await asyncio.gather(*(self._spawn() for _ in range(self.warm)))

    def start_background(self) -> None:
        """Start the warm workers without waiting (the server is ready meanwhile): ``acquire``
        waits for the first one up, and starts no extra worker while warm ones are starting."""
        self._starting += self.warm
        self._in_background(self._warm_up())

    async def _warm_up(self) -> None:
        """One worker first, alone, then the rest: each imports every ability, so on two cores
        the first one up (the one a waiting action needs) comes about twice as soon."""
        if self.warm:
            await self._spawn(counted=True)
        await asyncio.gather(*(self._spawn(counted=True) for _ in range(self.warm - 1)))

    def _in_background(self, spawn: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(spawn)
        self._spawning.add(task)
        task.add_done_callback(self._spawning.discard)

    async def _spawn(self, counted: bool = False) -> None:
        if not counted:
            self._starting += 1
        try:
            worker = await WorkerProc.start(self.env)
        except Exception as exc:
            log.error("worker_start_failed", error=str(exc))
            self._starting -= 1
            await asyncio.sleep(1.0)  # do not spin on a broken interpreter
            async with self._available:
                self._available.notify_all()  # a waiter will try again
            return
        self._starting -= 1
        if self._closed:
            worker.kill()
            return
        self._all.add(worker)
        async with self._available:
            self._idle.append(worker)
            self._available.notify()

    async def acquire(self) -> WorkerProc:
        """An idle worker; a new one is started only for a caller that would otherwise wait
        (never more starting than waiting callers), so the pool grows to the demand, not past it."""
        while self._idle and not self._waiters:  # the common case: nothing to wait for, no lock
            worker = self._idle.popleft()
            if worker.alive:
                return worker
            self._all.discard(worker)
        async with self._available:
            self._waiters += 1
            try:
                while True:
                    while self._idle:
                        worker = self._idle.popleft()
                        if worker.alive:
                            return worker
                        self._all.discard(worker)
                    if self._starting < self._waiters and len(self._all) + self._starting < self.max_size:
                        self._starting += 1
                        self._in_background(self._spawn(counted=True))
                    await self._available.wait()
            finally:
                self._waiters -= 1

    async def release(self, worker: WorkerProc) -> None:
        if not worker.alive or self._closed:
            self.discard(worker)
            return
        if not self._waiters:  # nobody to wake (all on the event loop: no lock needed to append)
            self._idle.append(worker)
            return
        async with self._available:
            self._idle.append(worker)
            self._available.notify()

    def discard(self, worker: WorkerProc) -> None:
        worker.kill()
        self._all.discard(worker)
        if not self._closed and len(self._all) + self._starting < self.warm:
            self._in_background(self._spawn())

    async def close(self) -> None:
        self._closed = True
        for task in list(self._spawning):  # workers still starting: killed by WorkerProc.start
            task.cancel()
        await asyncio.gather(*self._spawning, return_exceptions=True)
        for worker in list(self._all):
            worker.kill()
        for worker in list(self._all):
            try:
                await asyncio.wait_for(worker.proc.wait(), 2)
            except (TimeoutError, ProcessLookupError):
                pass
        self._all.clear()
        self._idle.clear()
