"""Run an untrusted candidate program in a sandboxed subprocess.

Layers (each recorded in the result's ``isolation``):
- ``python -I -S`` (isolated mode, no site), an EMPTY environment, a throwaway working directory;
- POSIX rlimits set before exec: RLIMIT_CPU, RLIMIT_AS, RLIMIT_NPROC = 0 (no fork), RLIMIT_FSIZE,
  RLIMIT_NOFILE, RLIMIT_CORE = 0; a new session so the whole group is killed at the wall timeout;
- when the host runs as root, the runner drops to uid/gid 65534 before the candidate is read in
  (RLIMIT_NPROC does not bind root), after the interpreter and allowed modules are loaded;
- inside, the trusted runner unshares a new user + network namespace (no interfaces: sockets
  cannot reach anything) and chroots into the throwaway directory before the candidate runs, so
  the host file system, including the data dir, is out of sight;
- the candidate is compiled with restricted builtins (no open/exec/eval/compile; imports only from
  a small allowlist) and ``socket`` is blocked in ``sys.modules``. These Python-level layers are
  convenience; the OS layers above are the containment the tests prove.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

MAX_OUTPUT = 1 << 20

RUNNER = r'''
import sys, json, math, itertools, functools, collections, heapq, random, operator, fractions, io, os, ctypes
iso = {"netns": False, "chroot": False}
spec = json.load(open("spec.json"))
code = open("program.py").read()
iso["uid"] = os.geteuid()
if os.geteuid() == 0:
    os.setgroups([])
    os.setgid(65534)
    os.setuid(65534)
    iso["uid"] = os.geteuid()
try:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(0x10000000 | 0x40000000) == 0:
        iso["netns"] = True
        if libc.chroot(b".") == 0:
            os.chdir("/")
            iso["chroot"] = True
except Exception:
    pass
for name in ("socket", "_socket", "ssl", "_ssl", "subprocess", "ctypes", "_ctypes", "multiprocessing"):
    sys.modules[name] = None
__SCORERS_SOURCE__
ALLOWED = {m: sys.modules[m] for m in ("math", "itertools", "functools", "collections", "heapq", "random",
                                         "operator", "fractions")}
def _import(name, globals=None, locals=None, fromlist=(), level=0):
    if name in ALLOWED:
        return ALLOWED[name]
    raise ImportError("import of %r is not allowed in the sandbox" % name)
import builtins as _b
safe = {k: getattr(_b, k) for k in dir(_b) if k not in (
    "open", "exec", "eval", "compile", "input", "breakpoint", "help", "exit", "quit", "__import__", "memoryview")}
safe["__import__"] = _import
out = {"isolation": iso}
real_stdout = sys.stdout
sys.stdout = io.StringIO()
try:
    g = {"__builtins__": safe, "__name__": "candidate"}
    exec(compile(code, "candidate.py", "exec"), g)
    pr = g.get("priority")
    if not callable(pr):
        raise NameError("the program must define a function named priority")
    out.update(status="ok", result=SCORERS[spec["problem"]](pr, spec.get("params", {})))
except BaseException as exc:
    out.update(status="error", error="%s: %s" % (type(exc).__name__, str(exc)[:300]))
sys.stdout = real_stdout
os.write(1, ("\n" + json.dumps(out)).encode())
'''


def _runner_source() -> str:
    scorers = (Path(__file__).parent / "scorers.py").read_text(encoding="utf-8")
    scorers = "\n".join(ln for ln in scorers.splitlines() if not ln.startswith(("import ", "from ")))
    return RUNNER.replace("__SCORERS_SOURCE__", scorers)


def _limits(cpu_s: int, mem_mb: int) -> Any:
    def apply() -> None:
        os.setsid()
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s + 1))
        resource.setrlimit(resource.RLIMIT_AS, (mem_mb << 20, mem_mb << 20))
        resource.setrlimit(resource.RLIMIT_FSIZE, (MAX_OUTPUT, MAX_OUTPUT))
        resource.setrlimit(resource.RLIMIT_NOFILE, (32, 32))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_NPROC, (0, 0))
    return apply


def run_sandboxed(program: str, problem: str, params: dict[str, Any] | None = None, cpu_s: int = 5,
                  wall_s: float = 10.0, mem_mb: int = 512) -> dict[str, Any]:
    """Evaluate ``program`` for ``problem`` in the sandbox; never raises for anything the program does."""
    tmp = Path(tempfile.mkdtemp(prefix="mathlas-sbx-"))
    started = time.monotonic()
    try:
        os.chmod(tmp, 0o755)
        for name, text in (("runner.py", _runner_source()), ("program.py", program),
                           ("spec.json", json.dumps({"problem": problem, "params": params or {}}))):
            (tmp / name).write_text(text, encoding="utf-8")
            os.chmod(tmp / name, 0o644)
        out_path = tmp / "stdout.txt"
        with open(out_path, "wb") as out_fh:
            proc = subprocess.Popen([sys.executable, "-I", "-S", "runner.py"], cwd=tmp, env={},
                                    stdin=subprocess.DEVNULL, stdout=out_fh, stderr=subprocess.STDOUT,
                                    preexec_fn=_limits(cpu_s, mem_mb), close_fds=True)
            timed_out = False
            try:
                rc = proc.wait(timeout=wall_s)
            except subprocess.TimeoutExpired:
                timed_out = True
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                rc = proc.wait()
        raw = out_path.read_bytes()[-MAX_OUTPUT:].decode("utf-8", "replace")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    elapsed = round(time.monotonic() - started, 3)
    last = raw.strip().splitlines()[-1] if raw.strip() else ""
    try:
        parsed = json.loads(last)
    except json.JSONDecodeError:
        parsed = None
    if timed_out:
        return {"status": "timeout", "error": f"wall-clock limit of {wall_s} s exceeded; process group killed",
                "elapsed_s": elapsed}
    if parsed is None:
        sig = -rc if rc < 0 else None
        reason = {signal.SIGXCPU: "CPU time limit exceeded (RLIMIT_CPU)", signal.SIGKILL: "killed",
                  signal.SIGXFSZ: "output size limit exceeded", signal.SIGSEGV: "crashed (segmentation fault)"}.get(
            sig, f"exited with code {rc} without a result") if sig else f"exited with code {rc} without a result"
        return {"status": "killed", "error": reason, "elapsed_s": elapsed, "output_tail": raw[-400:]}
    parsed["elapsed_s"] = elapsed
    return parsed
