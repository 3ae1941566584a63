"""The shared confined runner, checked from outside (the host's /proc view of the candidate) and
from inside (raw syscalls through ctypes): namespaces, uid, capabilities, no_new_privs, seccomp,
rlimits, a read-only root, a fresh interpreter, determinism, and refusal when it cannot confine."""

from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from abilities.confine import CandidateEnded, CandidateError, ConfinementUnavailable, Limits, Session
from abilities.confine.policy import ENOSYS_INSTEAD, EXTRA_DENY, NOBODY, REQUIRED_DENY
from abilities.confine.seccomp import SeccompUnavailable, syscall_number

ROOT = Path(__file__).resolve().parents[1]
RAW = ("import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\n"
       "def f(nr, *args):\n    ctypes.set_errno(0)\n"
       "    rc = libc.syscall(nr, *(list(args) + [0] * 6)[:6])\n    return [rc, ctypes.get_errno()]\n")


def proc_status(pid: int) -> dict[str, str]:
    with open(f"/proc/{pid}/status") as fh:
        return {k: v.strip() for k, _, v in (ln.partition(":") for ln in fh)}


def test_the_host_sees_a_confined_process():
    with Session("def f():\n    return 1\n", "f", Limits(cpu_s=3, mem_mb=256)) as s:
        pid = s.pid
        st = proc_status(pid)
        assert st["Uid"].split()[0] == str(NOBODY if os.geteuid() == 0 else os.geteuid())
        assert st["Groups"] == ""  # no supplementary group of the service follows the candidate
        assert st["CapEff"] == st["CapPrm"] == st["CapInh"] == st["CapBnd"] == st["CapAmb"] == "0000000000000000"
        assert st["NoNewPrivs"] == "1" and st["Seccomp"] == "2"
        assert st["NSpid"].split()[-1] == "1"  # PID 1 of its own PID namespace
        for ns in ("user", "mnt", "pid", "net", "ipc", "uts"):
            assert os.readlink(f"/proc/{pid}/ns/{ns}") != os.readlink(f"/proc/self/ns/{ns}"), ns
        with open(f"/proc/{pid}/mountinfo") as fh:
            mounts = [ln.split() for ln in fh]
        root = next(m for m in mounts if m[4] == "/")
        assert root[5].split(",")[0] == "ro" and root[root.index("-") + 1] == "tmpfs"
        assert all(m[5].split(",")[0] == "ro" for m in mounts), mounts  # nothing writable anywhere
        with open(f"/proc/{pid}/limits") as fh:
            limits = fh.read()
        assert "Max cpu time              3                    3" in limits
        assert "Max processes             0                    0" in limits
        assert f"Max address space         {256 << 20}" in limits
        assert s.call() == 1


def test_every_denied_syscall_answers_eperm_and_others_still_work():
    names = [n for n in REQUIRED_DENY + EXTRA_DENY]
    numbers = {}
    for n in names:
        try:
            numbers[n] = syscall_number(n)
        except SeccompUnavailable:
            assert n not in REQUIRED_DENY  # every required entry exists on this architecture
    with Session(RAW, "f") as s:
        results = {n: s.call(nr) for n, nr in numbers.items()}
        getpid = s.call(syscall_number("getpid"))
    expected_errno = {n: (38 if n in ENOSYS_INSTEAD else 1) for n in numbers}
    wrong = {n: r for n, r in results.items() if r != [-1, expected_errno[n]]}
    assert not wrong, wrong
    assert len(results) >= len(REQUIRED_DENY) + 40
    assert getpid == [1, 0]


@pytest.mark.skipif(platform.machine() != "x86_64", reason="x32 numbering exists on x86_64 only")
def test_a_syscall_under_another_abi_kills_the_process():
    x32_unshare = 0x40000000 | syscall_number("unshare")
    with Session(RAW, "f") as s, pytest.raises(CandidateEnded) as ended:
        s.call(x32_unshare, 0x00020000)
    assert ended.value.status == "killed" and "seccomp" in ended.value.reason


def test_the_candidate_gets_a_fresh_interpreter():
    src = ("import sys\ndef f():\n    m = sys.modules['__main__']\n"
           "    return [sorted(sys.modules), sorted(k for k in vars(m) if not k.startswith('__')), sys.path]\n")
    with Session(src, "f") as s:
        modules, main_names, path = s.call()
    assert not [m for m in modules if m.startswith(("abilities", "orchestrator", "ctypes", "_ctypes", "subprocess"))]
    assert set(main_names) <= {"MAX_REPLY", "REPLY_FD", "builtins", "failure", "json", "main", "os", "random",
                               "reply", "sys"}, main_names
    assert not [p for p in path if "site-packages" in p or "/work" in p]


def test_same_seed_same_answers_and_hash_order():
    src = ("import random\ndef f():\n"
           "    return [hash('metis'), random.random(), list({'b', 'a', 'c', 'delta'})]\n")
    runs = []
    for seed in (7, 7, 8):
        with Session(src, "f", seed=seed) as s:
            runs.append(s.call())
    assert runs[0] == runs[1]
    assert runs[0][0] == runs[2][0] and runs[0][2] == runs[2][2]  # hashing fixed for every run
    assert runs[0][1] != runs[2][1]  # random follows the seed


def test_candidate_errors_and_printing_do_not_touch_the_answer():
    src = "def f(x):\n    print('{\"value\": 999}')\n    if x < 0:\n        raise ValueError('negative')\n    return x + 1\n"
    with Session(src, "f") as s:
        assert s.call(1) == 2
        with pytest.raises(CandidateError, match="ValueError: negative"):
            s.call(-1)
        assert s.call(2) == 3
    assert b'{"value": 999}' in bytes(s.output)  # kept for diagnostics, never parsed
    with pytest.raises(CandidateError, match="must define a function named g"):
        Session("def f():\n    return 1\n", "g").__enter__()


def test_a_data_dir_inside_the_exposed_root_is_refused(monkeypatch):
    monkeypatch.setenv("METIS_DATA_DIR", "/usr/share/metis-data")
    with pytest.raises(ConfinementUnavailable, match="data directory lies under /usr"):
        Session("def f():\n    return 1\n", "f").__enter__()


def test_the_worked_example_in_the_security_doc_runs():
    doc = (ROOT / "docs" / "security.md").read_text(encoding="utf-8")
    example = doc.split("## Using it from an ability", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    out = subprocess.run([sys.executable, "-c", example], cwd=ROOT, capture_output=True, text=True, timeout=60,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "1 [0, 1, 4, 9]"


def test_the_jail_dies_with_the_process_that_started_it():
    """A cancelled action's worker is SIGKILLed: its sleeping candidate must not outlive it."""
    code = ("from abilities.confine import Limits, Session\n"
            "s = Session('import time\\ndef f():\\n    time.sleep(1000)\\n', 'f', Limits(wall_s=600))\n"
            "s.start()\nprint(s.pid, flush=True)\ns.call()\n")
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    pid = int(proc.stdout.readline())
    time.sleep(0.3)
    assert proc_status(pid)["NSpid"].split()[-1] == "1"  # alive in its jail
    proc.kill()
    proc.wait()
    deadline = time.monotonic() + 10
    while os.path.exists(f"/proc/{pid}") and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not os.path.exists(f"/proc/{pid}")


def _world_readable(path: Path) -> bool:
    return all(os.stat(p).st_mode & 0o005 == 0o005 for p in [path, *path.parents])


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("setpriv") or not Path("/usr/bin/python3").is_file()
                    or not _world_readable(ROOT / "abilities" / "confine"),
                    reason="needs root to start an unprivileged service, a system python3 and a readable tree")
def test_an_unprivileged_service_confines_as_well():
    """As in a container that runs the service as an ordinary user: the same jail, mapped to that uid."""
    code = ("import json, os\nfrom abilities.confine import Session\n"
            "src = 'import os, socket\\ndef f():\\n    try:\\n        socket.socket()\\n    except OSError as e:\\n"
            "        return [os.getuid(), os.getpid(), sorted(os.listdir(\"/\")), e.errno]\\n'\n"
            "with Session(src, 'f') as s:\n    print(json.dumps([os.getuid(), s.isolation['outer_uid'], s.call()]))\n")
    out = subprocess.run(["setpriv", "--reuid=1000", "--regid=1000", "--clear-groups", "env", "-i",
                          f"PYTHONPATH={ROOT}", "/usr/bin/python3", "-c", code],
                         cwd="/", capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    service_uid, outer_uid, (uid, pid, listing, err) = json.loads(out.stdout)
    assert service_uid == outer_uid == 1000 and uid == 0 and pid == 1 and err == 1
    assert set(listing) <= {"bin", "lib", "lib32", "lib64", "libx32", "sbin", "usr"}


def test_the_host_check_command_reports_the_jail_or_the_refusal():
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    ok = subprocess.run([sys.executable, "-m", "abilities.confine"], cwd=ROOT, capture_output=True, text=True,
                        timeout=60, env=env)
    assert ok.returncode == 0 and json.loads(ok.stdout)["inside"]["pid"] == 1
    no_userns = ("from abilities.confine.seccomp import install_deny_filter\n"
                 "install_deny_filter(required=('unshare',), extra=())\n"
                 "import runpy\nrunpy.run_module('abilities.confine', run_name='__main__')\n")
    refused = subprocess.run([sys.executable, "-c", no_userns], cwd=ROOT, capture_output=True, text=True,
                             timeout=60, env=env)
    assert refused.returncode == 1
    report = json.loads(refused.stdout)
    assert report["ok"] is False and "unshare" in report["error"] and "nothing was run" in report["error"]


def test_a_flood_on_the_reply_channel_is_cut():
    src = ("import os\ndef f():\n    line = b'{\"value\": 1}\\n' * 4096\n"
           "    while True:\n        os.write(3, line)\n")
    with Session(src, "f", Limits(reply_bytes=1 << 12)) as s, pytest.raises(CandidateEnded) as ended:
        s.call()
    assert ended.value.reason == "more than 4096 bytes on the reply channel"
