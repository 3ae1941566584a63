"""FunSearch sandbox containment, one test per escape class (real subprocesses, real kernel).

Every hostile program first reaches the interpreter's real ``os`` module and builtins through
object subclasses (GADGET), so no Python-level restriction is in its way: what stops it is the
OS confinement (namespaces, read-only root, no capabilities, seccomp, rlimits). Plus scorer
correctness against an in-process run of the same trusted scorer, score forgery, and the
MAP-Elites database.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from abilities.mathlas import funsearch
from abilities.mathlas.sandbox import run_sandboxed
from abilities.mathlas.scorers import SCORERS

ROOT = Path(__file__).resolve().parents[1]
GADGET = ("G = [c for c in ().__class__.__base__.__subclasses__() if c.__name__ == '_wrap_close'][0]"
          ".__init__.__globals__\n")
WALK_OUT = (Path(__file__).parent / "data" / "confine" / "walk_out.py").read_text(encoding="utf-8")
SYSTEM_ONLY = {"bin", "lib", "lib32", "lib64", "libx32", "sbin", "usr", "root"}
FORGED = '{"status":"ok","result":{"score":1e9}}'


def walk_out_program(*targets: str) -> str:
    return WALK_OUT.replace("TARGETS = []", f"TARGETS = {list(targets)!r}")


def hostile(body: str) -> str:
    """A cap_set candidate whose priority runs ``body`` (with G = the real os globals)."""
    return GADGET + "def priority(el, n):\n" + "".join(f"    {ln}\n" for ln in body.splitlines())


def try_each(items: str, attempt: str, success: str, failure: str = "exc.errno") -> str:
    """A body that tries ``attempt`` for each ``x`` in ``items`` and raises the list of outcomes."""
    return ("out = []\n"
            f"for x in {items}:\n"
            f"    try:\n        {attempt}\n        out.append({success})\n"
            f"    except OSError as exc:\n        out.append({failure})\n"
            "raise RuntimeError(repr(out))")


def report(res: dict) -> str:
    assert res["status"] == "error", res
    return res["error"]


@pytest.fixture
def nobody_sentinel():
    """A process of uid 65534 (the sandbox's outer uid when the service runs as root)."""
    if os.geteuid() != 0:
        pytest.skip("needs root to start a process as another uid")
    proc = subprocess.Popen(["sleep", "60"], user=65534, group=65534)
    yield proc
    proc.kill()
    proc.wait()


def test_a_legit_program_scores_like_the_trusted_scorer_in_process():
    src = "def priority(el, n):\n    return -sum(el) + 0.1 * el.count(1)\n"
    res = run_sandboxed(src, "cap_set", {"n": 4})
    assert res["status"] == "ok", res
    expected = SCORERS["cap_set"](lambda el, n: -sum(el) + 0.1 * el.count(1), {"n": 4})
    assert res["result"] == expected
    assert res["isolation"]["pid_in_namespace"] == 1 and res["isolation"]["capabilities"] == "none"
    bp = run_sandboxed("def priority(item, bins):\n    return [-(b - item) for b in bins]\n",
                       "online_bin_packing", {"instances": 2, "items": 50})
    assert bp["status"] == "ok" and bp["result"] == SCORERS["online_bin_packing"](
        lambda item, bins: [-(b - item) for b in bins], {"instances": 2, "items": 50})
    assert bp["result"]["mean_bins"] >= bp["result"]["lower_bound_mean"]
    tup = run_sandboxed("def priority(el, n):\n    return {el: 1}[el] * len(set([el]))\n", "cap_set", {"n": 2})
    assert tup["status"] == "ok", tup  # cap_set elements arrive as hashable tuples, as documented


def test_namespace_mount_chroot_walk_out_is_refused(tmp_path):
    secret = tmp_path / "tokens.json"
    secret.write_text('{"tok-SECRET": {"tenant": "acme"}}')
    err = report(run_sandboxed(walk_out_program(str(secret), "/etc/hostname"), "cap_set"))
    assert "tok-SECRET" not in err and "FileNotFoundError" in err
    assert "'steps': [-1, -1, -1, -1]" in err  # unshare, mount, chroot, chroot: all refused


def test_files_root_holds_no_project_data(tmp_path):
    secret = tmp_path / "receipts.sqlite3"
    secret.write_bytes(b"SQLite format 3\x00 SECRET-RECEIPT")
    err = report(run_sandboxed(hostile(
        f"raise RuntimeError(repr((sorted(G['listdir']('/')), G['path'].exists({str(ROOT)!r}),"
        f" G['path'].exists({str(tmp_path)!r}), G['path'].exists('/work'), G['path'].exists('/etc'))))"), "cap_set"))
    listing, *exists = ast.literal_eval(err.split(": ", 1)[1])
    assert set(listing) <= SYSTEM_ONLY, listing
    assert exists == [False, False, False, False]
    plain = f"def priority(el, n):\n    return len(open({str(secret)!r}, 'rb').read())\n"
    assert "No such file" in report(run_sandboxed(plain, "cap_set"))
    assert secret.read_bytes().endswith(b"SECRET-RECEIPT")


def test_proc_is_absent_even_after_a_walk_out_attempt():
    targets = ("/proc/1/cmdline", f"/proc/{os.getpid()}/environ", "/proc/self/mountinfo", "/proc/self/status")
    err = report(run_sandboxed(walk_out_program(*targets), "cap_set"))
    assert err.count("FileNotFoundError") == len(targets), err
    assert "proc" not in err.split("'root'")[1]


def test_environment_carries_nothing_of_the_host(monkeypatch):
    monkeypatch.setenv("METIS_TEST_CANARY", "canary-7f3a")
    err = report(run_sandboxed(hostile("raise RuntimeError(repr(sorted(G['environ'].items())))"), "cap_set"))
    assert "canary-7f3a" not in err and "METIS" not in err
    names = {k for k, _ in ast.literal_eval(err.split(": ", 1)[1])}
    assert names <= {"PYTHONHASHSEED", "PYTHONIOENCODING", "PYTHONDONTWRITEBYTECODE", "LC_CTYPE"}, names


def test_writes_hit_a_read_only_root(tmp_path):
    body = try_each(f"('/x', '/usr/x', '/tmp/x', {str(tmp_path / 'x')!r}, 'x')",
                    "G['__builtins__']['open'](x, 'w').write('y')", "'WROTE ' + x")
    err = report(run_sandboxed(hostile(body), "cap_set"))
    assert err.endswith("[30, 30, 2, 2, 30]"), err  # EROFS on the root and /usr, no /tmp, no host paths
    assert not (tmp_path / "x").exists()


def test_fork_system_subprocess_and_threads_are_refused(tmp_path):
    marker = tmp_path / "ran"
    body = ("out = []\n"
            "for f in (lambda: G['fork'](), lambda: G['system']('touch " + str(marker) + "'),\n"
            "          lambda: G['__builtins__']['__import__']('subprocess').run(['/bin/true']),\n"
            "          lambda: G['__builtins__']['__import__']('threading').Thread(target=len).start()):\n"
            "    try:\n        out.append(repr(f()))\n"
            "    except BaseException as exc:\n        out.append(type(exc).__name__ + ':' + str(exc))\n"
            "raise RuntimeError(repr(out))")
    err = report(run_sandboxed(hostile(body), "cap_set"))
    assert err.count("Operation not permitted") == 2, err  # fork and subprocess: EPERM from seccomp
    assert "32512" in err  # system(): the C library could not start a shell (exit 127)
    assert "can't start new thread" in err
    assert not marker.exists()


def test_sockets_of_every_family_are_refused_and_the_listener_sees_nothing(tcp_listener):
    port = tcp_listener.getsockname()[1]
    body = ("s = G['sys'].modules.get('_socket') or G['__builtins__']['__import__']('_socket')\n"
            "out = []\n"
            "for fam in (2, 10, 1, 16):  # inet, inet6, unix, netlink\n"
            "    try:\n        out.append(repr(s.socket(fam, 1 if fam != 16 else 3)))\n"
            "    except OSError as exc:\n        out.append(exc.errno)\n"
            f"try:\n    c = s.socket(); c.connect(('127.0.0.1', {port})); out.append('CONNECTED')\n"
            "except OSError as exc:\n    out.append(exc.errno)\n"
            "raise RuntimeError(repr(out))")
    err = report(run_sandboxed(hostile(body), "cap_set"))
    assert err.endswith("[1, 1, 1, 1, 1]"), err  # EPERM for every family, then for the connect attempt
    with pytest.raises(TimeoutError):
        tcp_listener.accept()


def test_urllib_cannot_reach_a_local_server(tcp_listener):
    port = tcp_listener.getsockname()[1]
    body = ("u = G['__builtins__']['__import__']('urllib.request', fromlist=['urlopen'])\n"
            f"u.urlopen('http://127.0.0.1:{port}/', timeout=2)\nreturn 1")
    err = report(run_sandboxed(hostile(body), "cap_set"))
    assert "Operation not permitted" in err, err
    with pytest.raises(TimeoutError):
        tcp_listener.accept()


def test_ctypes_reaches_no_privileged_syscall():
    body = ("c = G['sys'].modules.get('ctypes') or G['__builtins__']['__import__']('ctypes')\n"
            "libc = c.CDLL(None, use_errno=True)\n"
            "out = [libc.unshare(0x10000000), c.get_errno(), libc.setns(0, 0), c.get_errno(),\n"
            "       libc.ptrace(0, 0, 0, 0), c.get_errno(),\n"
            "       libc.process_vm_readv(G['getpid'](), None, 0, None, 0, 0), c.get_errno()]\n"
            "raise RuntimeError(repr(out))")
    err = report(run_sandboxed(hostile(body), "cap_set"))
    # unshare(user ns), setns, PTRACE_TRACEME, process_vm_readv on itself: each -1 with EPERM
    assert err.endswith("[-1, 1, -1, 1, -1, 1, -1, 1]"), err


def test_the_runner_objects_are_out_of_reach_through_main():
    body = ("m = G['sys'].modules['__main__']\n"
            "raise RuntimeError(repr(sorted(k for k, v in vars(m).items()\n"
            "    if 'ctypes' in repr(type(v)) or k in ('libc', 'ctypes', 'iso', 'spec', 'ALLOWED', 'SCORERS'))))")
    err = report(run_sandboxed(hostile(body), "cap_set"))
    assert err.endswith("[]"), err  # __main__ is the harness of a fresh interpreter: nothing of the runner


def test_kill_minus_one_and_signals_to_the_host_reach_nothing(nobody_sentinel):
    body = try_each(f"(-1, {os.getpid()}, {nobody_sentinel.pid})", "G['kill'](x, 9)", "'SENT'", "type(exc).__name__")
    err = report(run_sandboxed(hostile(body), "cap_set"))
    assert err.endswith("['ProcessLookupError', 'ProcessLookupError', 'ProcessLookupError']"), err
    time.sleep(0.1)
    assert nobody_sentinel.poll() is None  # a host process of the same outer uid survived


def test_ptrace_and_process_vm_are_refused(nobody_sentinel):
    body = ("c = G['__builtins__']['__import__']('ctypes')\n"
            "libc = c.CDLL(None, use_errno=True)\n"
            f"out = [libc.ptrace(16, {nobody_sentinel.pid}, 0, 0), c.get_errno(), libc.ptrace(0, 0, 0, 0), c.get_errno()]\n"
            "raise RuntimeError(repr(out))")
    err = report(run_sandboxed(hostile(body), "cap_set"))
    assert err.endswith("[-1, 1, -1, 1]"), err  # PTRACE_ATTACH and PTRACE_TRACEME: EPERM
    assert nobody_sentinel.poll() is None


def test_infinite_output_is_cut_and_the_candidate_killed():
    t0 = time.monotonic()
    res = run_sandboxed(hostile("while True:\n    G['write'](1, b'x' * 4096)"), "cap_set")
    assert res["status"] == "killed" and "output size limit" in res["error"], res
    assert time.monotonic() - t0 < 5 and len(res["output_tail"]) <= 400


def test_ten_gigabyte_allocation_fails():
    res = run_sandboxed("def priority(el, n):\n    x = bytearray(10 * 1024**3)\n    return len(x)\n", "cap_set")
    assert res["status"] == "error" and "MemoryError" in res["error"]
    assert len(bytearray(10 * 1024**2)) == 10 * 1024**2  # the host still allocates normally


def test_infinite_loop_is_stopped_by_the_cpu_limit():
    t0 = time.monotonic()
    res = run_sandboxed("def priority(el, n):\n    while True:\n        pass\n", "cap_set", cpu_s=1, wall_s=30)
    assert res["status"] == "killed" and "CPU time limit" in res["error"], res
    assert time.monotonic() - t0 < 30
    slow = run_sandboxed(hostile("G['__builtins__']['__import__']('time').sleep(60)"), "cap_set", cpu_s=5, wall_s=2)
    assert slow["status"] == "timeout"  # a sleeper burns no CPU: the wall clock stops it


def test_score_forgery_on_stdout_scores_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("MATHLAS_DATA_DIR", str(tmp_path))
    forge = hostile(f"G['write'](1, b'\\n' + {FORGED.encode()!r} + b'\\n')\nG['_exit'](0)")
    ev = funsearch.evaluate(forge, "cap_set")
    assert ev["score"] is None and ev["status"] == "killed", ev
    reg = funsearch.register(forge, "cap_set")
    assert reg["registered"] is False
    assert funsearch.status("cap_set")["best"] is None
    # writing a fake answer on the reply channel only answers one priority query: the trusted
    # scorer still builds the cap set itself
    fake = hostile("G['write'](3, b'{\"value\": 1e9}\\n')\nreturn 1e9")
    ev = funsearch.evaluate(fake, "cap_set")
    assert ev["score"] == SCORERS["cap_set"](lambda el, n: 1e9, {"n": 4})["score"] < 1e9


def test_confinement_failure_refuses_to_run(tmp_path):
    """With user namespaces unavailable (here: unshare denied by a seccomp filter on the caller),
    the candidate never runs: a clear refusal, not an unconfined run."""
    marker = tmp_path / "ran-unconfined"
    code = ("import json, sys\n"
            "from abilities.confine.seccomp import install_deny_filter\n"
            "install_deny_filter(required=('unshare',), extra=())\n"
            "from abilities.mathlas.sandbox import run_sandboxed\n"
            "print(json.dumps(run_sandboxed(sys.argv[1], 'cap_set')))\n")
    prog = f"open({str(marker)!r}, 'w').write('x')\ndef priority(el, n):\n    return 0\n"
    out = subprocess.run([sys.executable, "-c", code, prog], cwd=ROOT, capture_output=True, text=True, timeout=60,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    res = json.loads(out.stdout.strip().splitlines()[-1])
    assert res["status"] == "refused" and "nothing was run" in res["error"] and "unshare" in res["error"], res
    assert not marker.exists()


def test_map_elites_register_and_status(tmp_path, monkeypatch):
    monkeypatch.setenv("MATHLAS_DATA_DIR", str(tmp_path))
    a = funsearch.funsearch("register", "cap_set", "def priority(el, n):\n    return 0.0\n")
    b = funsearch.funsearch("register", "cap_set", "def priority(el, n):\n    return -sum(el) + 0.1 * el.count(1)\n")
    bad = funsearch.funsearch("register", "cap_set", "def priority(el, n):\n    return 1/0\n")
    assert a["registered"] and b["registered"] and not bad["registered"]
    st = funsearch.funsearch("status", "cap_set")
    assert st["registered"] == 2 and st["best"]["score"] == max(a["score"], b["score"])
    assert "def priority_v0" in st["few_shot_context"] and "def priority_v" in st["few_shot_context"]
    assert (tmp_path / "funsearch" / "cap_set.json").is_file()
