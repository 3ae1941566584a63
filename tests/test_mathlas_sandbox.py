"""FunSearch sandbox containment (real subprocesses): a socket connect, reading the data dir, a fork
bomb, an infinite loop and a 10 GB allocation all fail inside; the host is unharmed. Plus scorer
correctness against an in-process run of the same trusted scorer, and the MAP-Elites database."""

from __future__ import annotations

import os
import socket
import time

import pytest

from abilities.mathlas import funsearch
from abilities.mathlas.sandbox import run_sandboxed
from abilities.mathlas.scorers import SCORERS

# Reach the interpreter's real os module and builtins through object subclasses: this bypasses
# every Python-level restriction, so what stops these programs is the OS layer.
GADGET = ("G = [c for c in ().__class__.__base__.__subclasses__() if c.__name__ == '_wrap_close'][0]"
          ".__init__.__globals__\n")


def _children_of_nobody() -> int:
    n = 0
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open(f"/proc/{pid}/status") as fh:
                    if any(ln.startswith("Uid:") and ln.split()[1] == "65534" for ln in fh):
                        n += 1
            except OSError:
                pass
    return n


def test_a_legit_program_scores_like_the_trusted_scorer_in_process():
    src = "def priority(el, n):\n    return -sum(el) + 0.1 * el.count(1)\n"
    res = run_sandboxed(src, "cap_set", {"n": 4})
    assert res["status"] == "ok"
    expected = SCORERS["cap_set"](lambda el, n: -sum(el) + 0.1 * el.count(1), {"n": 4})
    assert res["result"] == expected
    bp = run_sandboxed("def priority(item, bins):\n    return [-(b - item) for b in bins]\n",
                       "online_bin_packing", {"instances": 2, "items": 50})
    assert bp["status"] == "ok" and bp["result"] == SCORERS["online_bin_packing"](
        lambda item, bins: [-(b - item) for b in bins], {"instances": 2, "items": 50})
    assert bp["result"]["mean_bins"] >= bp["result"]["lower_bound_mean"]


def test_socket_connect_fails_and_the_host_listener_sees_nothing():
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen()
    srv.settimeout(0.5)
    port = srv.getsockname()[1]
    plain = f"import socket\ndef priority(el, n):\n    socket.create_connection(('127.0.0.1', {port}))\n    return 0\n"
    sneaky = GADGET + (
        "def priority(el, n):\n"
        "    for k in ('socket', '_socket'):\n        G['sys'].modules.pop(k, None)\n"
        "    s = G['__builtins__']['__import__']('socket')\n"
        f"    c = s.socket(); c.settimeout(2); c.connect(('127.0.0.1', {port}))\n    return 1\n")
    try:
        for src in (plain, sneaky):
            res = run_sandboxed(src, "cap_set")
            assert res["status"] == "error" and ("socket" in res["error"] or "Network" in res["error"])
        with pytest.raises(TimeoutError):
            srv.accept()
    finally:
        srv.close()


def test_reading_the_data_dir_fails(tmp_path):
    secret = tmp_path / "findings.jsonl"
    secret.write_text("TOP-SECRET-FINDING\n")
    plain = f"def priority(el, n):\n    return len(open({str(secret)!r}).read())\n"
    sneaky = GADGET + f"def priority(el, n):\n    return len(G['__builtins__']['open']({str(secret)!r}).read())\n"
    listing = GADGET + f"def priority(el, n):\n    return len(G['listdir']({str(tmp_path)!r}))\n"
    for src in (plain, sneaky, listing):
        res = run_sandboxed(src, "cap_set")
        assert res["status"] == "error", res
        assert "TOP-SECRET" not in str(res)
    assert secret.read_text() == "TOP-SECRET-FINDING\n"


def test_fork_bomb_fails_and_leaves_no_processes():
    before = _children_of_nobody()
    res = run_sandboxed(GADGET + "def priority(el, n):\n    while True:\n        G['fork']()\n", "cap_set")
    assert res["status"] == "error" and ("Resource temporarily unavailable" in res["error"] or "fork" in res["error"])
    time.sleep(0.2)
    assert _children_of_nobody() <= before


def test_infinite_loop_is_stopped_within_the_limits():
    t0 = time.monotonic()
    res = run_sandboxed("def priority(el, n):\n    while True:\n        pass\n", "cap_set", cpu_s=1, wall_s=3)
    assert res["status"] in ("killed", "timeout") and time.monotonic() - t0 < 6


def test_ten_gigabyte_allocation_fails():
    res = run_sandboxed("def priority(el, n):\n    x = bytearray(10 * 1024**3)\n    return len(x)\n", "cap_set")
    assert res["status"] == "error" and "MemoryError" in res["error"]
    assert len(bytearray(10 * 1024**2)) == 10 * 1024**2  # the host still allocates normally


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
