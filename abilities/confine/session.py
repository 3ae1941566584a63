"""The trusted side of the confined runner: start a jail, load a candidate, call its function.

``Session`` spawns ``launcher.py`` (which builds the jail and execs a fresh interpreter running
``harness.py``), sends the candidate's source and then one JSON line per call. What comes back is
only ever *data* (the function's return value) that trusted code checks or scores; the candidate's
stdout/stderr are drained, capped and kept for diagnostics, never parsed. Facts about the jail
and about how the candidate ended arrive on a status pipe that the candidate cannot write (it is
close-on-exec before the candidate's interpreter starts).
"""

from __future__ import annotations

import fcntl
import json
import os
import select
import signal
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from abilities.confine.policy import NOBODY

HERE = Path(__file__).resolve().parent
STARTUP_S = 15.0
SYSTEM_DIRS = ("/lib", "/lib64", "/lib32", "/libx32", "/bin", "/sbin")


class ConfinementUnavailable(RuntimeError):
    """The jail could not be built (no user namespaces, no libseccomp...): nothing was run."""


class CandidateError(Exception):
    """The candidate's code raised (or did not define the function); ``str`` is ``Type: message``."""


class CandidateEnded(Exception):
    """The candidate process ended or was stopped before answering.

    ``status`` is ``"timeout"`` (wall clock) or ``"killed"`` (CPU limit, output cap, a crash, or an
    exit without an answer); ``reason`` says which, in words.
    """

    def __init__(self, status: str, reason: str, output_tail: str = "") -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason
        self.output_tail = output_tail


@dataclass(frozen=True)
class Limits:
    """Per-candidate limits. ``output_bytes`` caps stdout+stderr (more kills the candidate)."""

    cpu_s: int = 5
    wall_s: float = 10.0
    mem_mb: int = 512
    output_bytes: int = 1 << 16
    reply_bytes: int = 1 << 20
    fsize: int = 1 << 20
    nofile: int = 32


def interpreter() -> str:
    """The real interpreter binary (a venv's ``python`` is a symlink into the base install)."""
    return os.path.realpath(getattr(sys, "_base_executable", sys.executable))


def layout() -> dict[str, Any]:
    """What the read-only root holds: /usr, the Python install, the system-library links."""
    binds = ["/usr"]
    prefix = os.path.realpath(sys.base_prefix)
    if not (prefix + "/").startswith("/usr/"):
        binds.append(prefix)
    symlinks: dict[str, str] = {}
    for path in SYSTEM_DIRS:
        if os.path.islink(path):
            symlinks[path] = os.readlink(path)
        elif os.path.isdir(path):
            binds.append(path)
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    masks = [p for p in (f"{prefix}/lib/{version}/site-packages",) if os.path.isdir(p)]
    data_dir = os.environ.get("METIS_DATA_DIR")
    if data_dir:
        real = os.path.realpath(data_dir)
        for b in binds:
            if (real + "/").startswith(b.rstrip("/") + "/"):
                raise ConfinementUnavailable(f"the data directory lies under {b}, which the sandbox root "
                                             "would expose; move the data directory")
    return {"bind_paths": binds, "symlinks": symlinks, "masks": masks}


def _nonblocking(fd: int) -> None:
    fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_NONBLOCK)


class Session:
    """One confined interpreter serving calls of ``entry`` defined by ``source``.

    Use as a context manager; ``call(*args)`` returns the function's JSON return value or raises
    ``CandidateError`` (it raised) or ``CandidateEnded`` (it died, was killed, or timed out). The
    wall-clock limit covers the whole session.
    """

    def __init__(self, source: str, entry: str, limits: Limits | None = None, seed: int = 0) -> None:
        self.source, self.entry, self.seed = source, entry, seed
        self.limits = limits or Limits()
        self.isolation: dict[str, Any] = {}
        self.exit: dict[str, Any] | None = None
        self.output = bytearray()
        self.output_total = 0
        self.calls = 0
        self._proc: subprocess.Popen[bytes] | None = None
        self._pid: int | None = None
        self._reply_buf = bytearray()
        self._status_buf = bytearray()
        self._deadline = 0.0
        self._session_deadline = 0.0
        self._limit_s = self.limits.wall_s
        self._fds: dict[str, int] = {}
        self._pending: list[dict[str, Any]] = []
        self._pidfd: int | None = None

    @property
    def pid(self) -> int | None:
        """The candidate's pid as the host sees it (it is PID 1 inside its own namespace)."""
        return self._pid

    # -- lifecycle ------------------------------------------------------------------------
    def __enter__(self) -> Session:
        try:
            self.start()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self) -> None:
        """Build the jail and load the candidate (raises ``ConfinementUnavailable`` if impossible)."""
        self._deadline = self._session_deadline = time.monotonic() + self.limits.wall_s
        req_r, req_w = os.pipe()
        rep_r, rep_w = os.pipe()
        out_r, out_w = os.pipe()
        st_r, st_w = os.pipe()
        self._fds = {"req": req_w, "rep": rep_r, "out": out_r, "st": st_r}
        for fd in (req_w, rep_r, out_r, st_r):
            _nonblocking(fd)
        root = os.geteuid() == 0
        lim = asdict(self.limits)
        cfg = {"python": interpreter(), "fds": {"reply": rep_w, "status": st_w},
               "limits": {k: lim[k] for k in ("cpu_s", "mem_mb", "fsize", "nofile")}, "wall_s": lim["wall_s"],
               "reply_bytes": lim["reply_bytes"],
               "outer_uid": NOBODY if root else os.geteuid(), "outer_gid": NOBODY if root else os.getegid(),
               "harness": (HERE / "harness.py").read_text(encoding="utf-8"), **layout()}
        try:
            self._proc = subprocess.Popen(
                [interpreter(), "-I", "-S", "-B", str(HERE / "launcher.py"), json.dumps(cfg)],
                stdin=req_r, stdout=out_w, stderr=out_w, pass_fds=(rep_w, st_w), env={},
                start_new_session=True, close_fds=True)
        except OSError as exc:
            raise ConfinementUnavailable(f"sandbox unavailable, nothing was run: cannot start the launcher: {exc}") from exc
        finally:
            for fd in (req_r, rep_w, out_w, st_w):
                os.close(fd)
        startup = min(time.monotonic() + STARTUP_S, self._session_deadline)
        while not self.isolation:
            msg = self._status_message(startup)
            if msg is None and time.monotonic() >= self._session_deadline:
                self._timeout()  # the session's own wall clock ran out while the jail was being built
            if msg is None or "refused" in msg:
                self._kill()
                why = msg["refused"] if msg else "the launcher ended without confining the candidate"
                tail = bytes(self.output[-400:]).decode("utf-8", "replace")
                raise ConfinementUnavailable(f"sandbox unavailable, nothing was run: {why}"
                                             + (f" ({tail.strip()})" if tail.strip() and not msg else ""))
            if "pid" in msg:
                self._pid = msg["pid"]
                try:
                    self._pidfd = os.pidfd_open(msg["pid"])  # kills reach this process, never a reused pid
                except OSError:
                    self._pidfd = None
            if "confined" in msg:
                self.isolation = msg["confined"]
        self._send({"source": self.source, "entry": self.entry, "seed": self.seed})
        first = self._reply()
        if "error" in first:
            raise CandidateError(str(first["error"]))
        if first.get("loaded") is not True:
            raise CandidateError("the candidate answered before it was loaded")

    def close(self) -> dict[str, Any] | None:
        """Stop the candidate (gracefully if it is idle) and return how it ended."""
        req = self._fds.pop("req", None)
        if req is not None:
            os.close(req)  # EOF: an idle harness exits by itself
        if self._proc is not None and self.exit is None:
            end = min(time.monotonic() + 1.0, max(self._deadline, time.monotonic() + 0.2))
            while self.exit is None and self._status_message(end) is not None:
                pass
        self._kill()
        for fd in self._fds.values():
            os.close(fd)
        self._fds = {}
        return self.exit

    def _kill(self) -> None:
        """SIGKILL the candidate (PID 1 of its namespace: only an ancestor can) and the launcher's
        group; the kernel's parent-death signals would take the candidate down with the keeper too."""
        if self._pidfd is not None:
            try:
                signal.pidfd_send_signal(self._pidfd, signal.SIGKILL)
            except ProcessLookupError:
                pass
            os.close(self._pidfd)
            self._pidfd = None
        if self._proc is not None:
            try:
                os.killpg(self._proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            self._proc.wait()

    # -- calls ----------------------------------------------------------------------------
    def call(self, *args: Any) -> Any:
        """Call the candidate's function with JSON ``args``; its JSON return value."""
        return self.invoke(list(args))

    def invoke(self, args: list[Any], kwargs: dict[str, Any] | None = None, timeout_s: float | None = None) -> Any:
        """``call`` with keyword arguments and an optional wall-clock limit for this call alone
        (within the session's); past it the candidate is killed (``CandidateEnded("timeout")``)."""
        self.calls += 1
        if timeout_s is not None and time.monotonic() + timeout_s < self._session_deadline:
            self._deadline, self._limit_s = time.monotonic() + timeout_s, timeout_s
        try:
            self._send({"args": args, "kwargs": kwargs or {}})
            ans = self._reply()
        finally:
            self._deadline, self._limit_s = self._session_deadline, self.limits.wall_s
        if "error" in ans:
            raise CandidateError(str(ans["error"])[:400])
        if "value" not in ans:
            raise CandidateError("the candidate's reply carries no value")
        return ans["value"]

    def _send(self, obj: dict[str, Any]) -> None:
        data = memoryview((json.dumps(obj, separators=(",", ":")) + "\n").encode())
        while data:
            left = self._deadline - time.monotonic()
            if left <= 0:
                self._timeout()
            _, writable, _ = select.select([self._fds["out"], self._fds["st"]], [self._fds["req"]], [], left)
            self._drain()
            if writable:
                try:
                    data = data[os.write(self._fds["req"], data):]
                except BrokenPipeError:
                    self._ended()

    def _reply(self) -> dict[str, Any]:
        while b"\n" not in self._reply_buf:
            self._check_reply_size()
            left = self._deadline - time.monotonic()
            if left <= 0:
                self._timeout()
            readable, _, _ = select.select([self._fds["rep"], self._fds["out"], self._fds["st"]], [], [], left)
            self._drain()
            if self._fds["rep"] in readable:
                chunk = self._read(self._fds["rep"])
                if chunk == b"":
                    self._ended()
                self._reply_buf += chunk or b""
        self._check_reply_size()
        line, _, rest = bytes(self._reply_buf).partition(b"\n")
        self._reply_buf = bytearray(rest)
        try:
            ans = json.loads(line)
        except (ValueError, RecursionError):
            raise CandidateError("the candidate's reply is not JSON") from None
        if not isinstance(ans, dict):
            raise CandidateError("the candidate's reply is not an object")
        return ans

    def _check_reply_size(self) -> None:
        """The harness writes one reply per call: more buffered than one reply is a flood."""
        if len(self._reply_buf) > self.limits.reply_bytes + 1:
            self._kill()
            raise CandidateEnded("killed", f"more than {self.limits.reply_bytes} bytes on the reply channel",
                                 self.tail())

    # -- pipes ----------------------------------------------------------------------------
    @staticmethod
    def _read(fd: int) -> bytes | None:
        try:
            return os.read(fd, 1 << 16)
        except BlockingIOError:
            return None

    def _drain(self) -> None:
        """Keep what the candidate printed (capped: past the cap it is killed); read status lines."""
        while (chunk := self._read(self._fds["out"])):
            self.output_total += len(chunk)
            room = self.limits.output_bytes - len(self.output)
            self.output += chunk[:max(0, room)]
            if self.output_total > self.limits.output_bytes:
                self._kill()
                raise CandidateEnded("killed", f"output size limit exceeded ({self.limits.output_bytes} bytes "
                                     "of stdout/stderr)", self.tail())
        while (chunk := self._read(self._fds["st"])):
            self._status_buf += chunk
        self._parse_status()

    def _parse_status(self) -> list[dict[str, Any]]:
        msgs = []
        while b"\n" in self._status_buf:
            line, _, rest = bytes(self._status_buf).partition(b"\n")
            self._status_buf = bytearray(rest)
            msg = json.loads(line)
            if "exit" in msg:
                self.exit = msg["exit"]
            msgs.append(msg)
        self._pending += msgs
        return msgs

    def _status_message(self, deadline: float) -> dict[str, Any] | None:
        """Next status message, or None at EOF / the deadline."""
        while True:
            if self._pending:
                return self._pending.pop(0)
            left = deadline - time.monotonic()
            if left <= 0 or "st" not in self._fds:
                return None
            readable, _, _ = select.select([self._fds["st"], self._fds["out"]], [], [], left)
            if self._fds["out"] in readable:
                while (chunk := self._read(self._fds["out"])):
                    self.output_total += len(chunk)
                    self.output += chunk[:max(0, self.limits.output_bytes - len(self.output))]
            if self._fds["st"] in readable:
                chunk = self._read(self._fds["st"])
                if chunk == b"":
                    return None
                self._status_buf += chunk or b""
                self._parse_status()

    def tail(self) -> str:
        return bytes(self.output[-400:]).decode("utf-8", "replace")

    def _timeout(self) -> None:
        self._kill()
        raise CandidateEnded("timeout", f"wall-clock limit of {self._limit_s:g} s exceeded; the sandbox "
                             "was killed", self.tail())

    def _ended(self) -> None:
        """The reply channel closed: learn from the keeper how the candidate ended, then stop it."""
        end = min(time.monotonic() + 2.0, self._deadline)
        while self.exit is None and self._status_message(end) is not None:
            pass
        self._kill()
        raise CandidateEnded("killed", self._reason(), self.tail())

    def _reason(self) -> str:
        if self.exit is None:
            return "closed its reply channel without answering"
        code = self.exit["code"]
        if code >= 0:
            return f"exited with code {code} without a result"
        sig = -code
        if self.exit.get("killed_by_keeper"):
            return f"wall-clock limit of {self.limits.wall_s:g} s exceeded; the sandbox was killed"
        # Nothing here sends SIGKILL before reading the exit, so it is the kernel's RLIMIT_CPU
        # (rusage under-reports CPU time on a busy host, hence the loose bound).
        if sig == signal.SIGKILL and self.exit.get("cpu_s", 0) >= self.limits.cpu_s * 0.5:
            return "CPU time limit exceeded (RLIMIT_CPU)"
        names = {signal.SIGSEGV: "crashed (segmentation fault)", signal.SIGSYS: "killed by the seccomp filter",
                 signal.SIGXFSZ: "file size limit exceeded", signal.SIGKILL: "killed"}
        return names.get(sig, f"killed by signal {signal.Signals(sig).name}")
