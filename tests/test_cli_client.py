"""The ``metis`` CLI as a user meets it, against a real server. Every user mistake gets a clear
message and a documented exit code, never a traceback.

Signals, pipes, terminals and lost servers use real subprocesses; the rest calls ``main()`` in
this process (the same code path, without paying for an interpreter start per case)."""

from __future__ import annotations

import io
import json
import os
import pty
import select
import signal
import subprocess
import sys
import time

import pytest

from metis_client import SyncClient
from orchestrator.cli import main
from tests.support import ROOT, free_port

CLI = [sys.executable, "-m", "orchestrator.cli"]


def env_for(server, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("METIS_")}
    env.update({"PYTHONPATH": str(ROOT), "METIS_URL": server.http_url if server else "http://127.0.0.1:1",
                "METIS_TOKEN": server.token() if server else "t"})
    env.update(extra)
    return env


def metis(*args: str, server=None, stdin: str | None = None, timeout: float = 60, **env: str) -> subprocess.CompletedProcess:
    proc = subprocess.run([*CLI, *args], input=stdin, capture_output=True, text=True, timeout=timeout,
                          env=env_for(server, **env), cwd=ROOT)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


@pytest.fixture
def cli(monkeypatch, capsys):
    """``metis ARGS`` in this process: (returncode, stdout, stderr) like a finished subprocess."""

    def run(*args: str, server=None, stdin: str | None = None, **env: str) -> subprocess.CompletedProcess:
        for name in [n for n in os.environ if n.startswith("METIS_")]:
            monkeypatch.delenv(name)
        for name, value in env_for(server, **env).items():
            if name.startswith("METIS_"):
                monkeypatch.setenv(name, value)
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin or ""))
        capsys.readouterr()
        try:
            code = main(list(args))
        except SystemExit as exc:  # argparse's usage errors
            code = exc.code
        out, err = capsys.readouterr()
        assert "Traceback" not in err, err
        return subprocess.CompletedProcess(["metis", *args], code, out, err)

    return run


def lines(out: str) -> list[dict]:
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def test_bad_inputs_are_usage_errors_before_anything_is_sent(cli, metis_server, tmp_path):
    r = cli("run", "t_emit", "--inputs", "{bad", server=metis_server)
    assert r.returncode == 2 and "--inputs is not valid JSON" in r.stderr and "line 1 column 2" in r.stderr
    r = cli("run", "t_emit", "--inputs", "@/nonexistent.json", server=metis_server)
    assert r.returncode == 2 and "no such file: /nonexistent.json" in r.stderr
    r = cli("run", "t_emit", "--inputs", "/nonexistent.json", server=metis_server)
    assert r.returncode == 2 and "no such file" in r.stderr
    r = cli("run", "t_emit", "--inputs", "[1, 2]", server=metis_server)
    assert r.returncode == 2 and "must be a JSON object" in r.stderr
    r = cli("run", "t_emit", "--inputs", '{"n": -1}', server=metis_server)
    assert r.returncode == 2 and "inputs.n: Input should be greater than or equal to 0" in r.stderr
    r = cli("call", "no.such.method", server=metis_server)
    assert r.returncode == 2 and "-32601" in r.stderr
    r = cli("run", server=metis_server)
    assert r.returncode == 2 and "usage:" in r.stderr


def test_inputs_from_a_file_and_from_stdin(cli, metis_server, tmp_path):
    f = tmp_path / "in.json"
    f.write_text('{"n": 2}')
    r = cli("run", "t_emit", "--inputs", f"@{f}", server=metis_server)
    assert r.returncode == 0, r.stderr
    out = lines(r.stdout)
    assert list(out[0]) == ["started"] and out[-1]["result"]["status"] == "completed"
    assert len(out[-1]["result"]["outputs"]["values"]) == 2
    r = cli("run", "t_emit", "--inputs", "-", "--follow", server=metis_server, stdin='{"n": 3}')
    assert r.returncode == 0, r.stderr
    events = [x for x in lines(r.stdout) if "event" in x]
    assert [e["event"] for e in events][-1] == "action_completed"
    assert sum(e["data"].get("kind") == "plan_delta" for e in events) == 3


def test_exit_codes_for_failed_runs_refused_tokens_and_no_server(cli, metis_server, tmp_path):
    r = cli("run", "t_fail", "--inputs", '{"reason": "nope"}', server=metis_server)
    assert r.returncode == 1 and lines(r.stdout)[-1]["result"]["error"]["reason"] == "nope"
    r = cli("call", "session.whoami", "--token", "bogus", server=metis_server)
    assert r.returncode == 2 and "the server refused the token from --token" in r.stderr
    t0 = time.monotonic()
    r = cli("call", "session.whoami", server=None, METIS_URL=f"http://127.0.0.1:{free_port()}")
    assert r.returncode == 3 and "connection refused" in r.stderr and time.monotonic() - t0 < 10
    r = cli("call", "session.whoami", server=metis_server, METIS_URL="nope")
    assert r.returncode == 2 and "--url / METIS_URL: Value error, not a Metis URL" in r.stderr
    r = cli("receipts", "verify", "--data-dir", str(tmp_path / "none"))
    assert r.returncode == 2 and "no receipt log" in r.stderr


def test_serve_settings_and_busy_port_fail_at_once(cli, metis_server, tmp_path):
    r = cli("serve", "--data-dir", str(tmp_path / "d"), server=None, METIS_PORT="abc")
    assert r.returncode == 2 and "METIS_PORT: Input should be a valid integer" in r.stderr and "'abc'" in r.stderr
    t0 = time.monotonic()
    r = cli("serve", "--port", str(metis_server.port), "--data-dir", str(tmp_path / "d2"), server=None)
    assert r.returncode == 2 and f"port {metis_server.port} on 127.0.0.1 is already in use" in r.stderr
    assert "serving on" not in r.stdout and time.monotonic() - t0 < 10
    r = cli("serve", "--port", "0", "--data-dir", str(metis_server.data_dir), server=None)
    assert r.returncode == 2 and "is in use by another metis serve" in r.stderr
    bad = tmp_path / "tokens.json"
    bad.write_text('{"t": 1}')
    r = cli("serve", "--port", "0", "--data-dir", str(tmp_path / "d3"), "--tokens", str(bad), server=None)
    assert r.returncode == 2 and "is not a valid tokens file" in r.stderr


def test_mathlas_help(cli, tmp_path):
    for args in (["mathlas", "--help"], ["mathlas", "help"]):
        r = cli(*args)
        assert r.returncode == 0 and "The mathlas CLI" in r.stdout and "identify_sequence" in r.stdout, args


def test_a_closed_pipe_is_quiet(metis_server):
    r = subprocess.run(["bash", "-c", f"set -o pipefail; {' '.join(CLI)} call abilities.list | head -c 10"],
                       capture_output=True, text=True, env=env_for(metis_server), cwd=ROOT, timeout=60)
    assert r.stdout == '{\n  "abili' and r.stderr == "" and r.returncode in (0, 141)


def test_ctrl_c_exits_130_without_a_traceback(server_factory):
    metis_server = server_factory()  # a server of its own: no other test's actions or connections around it
    # as a user's terminal does: the default SIGINT action (this test process may run with SIGINT ignored,
    # which a child would inherit across exec)
    proc = subprocess.Popen([*CLI, "run", "t_sleep", "--inputs", '{"seconds": 60}', "--follow"], text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env_for(metis_server), cwd=ROOT,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    started = json.loads(proc.stdout.readline())["started"]
    proc.stdout.readline()  # action_started: it is following
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=90)  # it closes its connections first: slow on a busy shared server
    with SyncClient(metis_server.http_url, metis_server.token()) as c:
        c.action(started["action_id"]).cancel("test over")
    assert proc.returncode == 130 and "Traceback" not in err and "interrupted" in err
    assert f"metis follow {started['topic']} --until-done" in err


def test_run_off_a_terminal_prints_the_request_id_and_waits_for_metis_input(metis_server):
    proc = subprocess.Popen([*CLI, "run", "t_ask", "--inputs", '{"question": "which colour?"}'], text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env_for(metis_server), cwd=ROOT)
    first = json.loads(proc.stdout.readline())
    asked = json.loads(proc.stdout.readline())
    assert asked["event"] == "action_waiting_user" and asked["data"]["payload"]["question"] == "which colour?"
    rid, aid = asked["data"]["payload"]["request_id"], first["started"]["action_id"]
    r = metis("input", aid, rid, '{"colour": "red"}', server=metis_server)
    assert r.returncode == 0 and json.loads(r.stdout) == {"accepted": True}
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert f"metis input {aid} {rid} VALUE_JSON" in err
    assert lines(out)[-1]["result"]["outputs"] == {"answer": {"colour": "red"}}
    again = metis("input", aid, rid, "1", server=metis_server)
    assert again.returncode == 1 and "no open request" in again.stderr


@pytest.mark.parametrize(("kind", "prompt", "typed", "shown"), [
    ("question", b"answer (JSON, or plain text) > ", b"not json, a sentence\n", "Answer: not json, a sentence"),
    ("approval", b"approve? [y/n] ", b"perhaps\ny\n", "Granted: true"),
])
def test_run_on_a_terminal_asks_in_place_and_renders_the_end(metis_server, kind, prompt, typed, shown):
    master, slave = pty.openpty()
    inputs = json.dumps({"question": "favourite prime?", "kind": kind})
    proc = subprocess.Popen([*CLI, "run", "t_ask", "--follow", "--inputs", inputs],
                            stdin=slave, stdout=slave, stderr=slave, env=env_for(metis_server), cwd=ROOT)
    os.close(slave)
    seen = b""

    def read_until(needle: bytes | None, timeout: float = 30) -> None:
        """Read the terminal until ``needle`` shows (None: until the program has exited)."""
        nonlocal seen
        deadline = time.monotonic() + timeout
        while needle is None or needle not in seen:
            assert time.monotonic() < deadline, seen.decode(errors="replace")
            if select.select([master], [], [], 0.2)[0]:
                try:
                    chunk = os.read(master, 4096)
                except OSError:  # EIO: the program exited and the terminal closed
                    return
                if not chunk:
                    return
                seen += chunk

    try:
        read_until(prompt)
        assert f"waiting for input ({kind}): favourite prime?".encode() in seen and b"request_id: req_" in seen
        os.write(master, typed)
        read_until(None)
        assert proc.wait(30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(master)
    text = seen.decode()
    assert "answered req_" in text and "✔ t_ask" in text and "completed" in text
    assert shown in text and '{"' not in text


def test_follow_until_done_exits_after_the_last_end(cli, metis_server):
    with SyncClient(metis_server.http_url, metis_server.token()) as c:
        a = c.start("t_emit", {"n": 4, "delay_s": 0.2}, topic="cli-follow-topic")
        b = c.start("t_emit", {"n": 1}, topic="cli-follow-topic")
        r = cli("follow", "cli-follow-topic", "--until-done", "--json", server=metis_server)
        assert r.returncode == 0, r.stderr
        events = lines(r.stdout)
        ends = [e["data"]["action_id"] for e in events if e["event"] == "action_completed"]
        assert sorted(ends) == sorted([a.action_id, b.action_id]) and events[-1]["event"] == "action_completed"
        ids = [e["id"] for e in events]
        assert ids == sorted(set(ids))
        # again, once everything has ended: the history, then exit
        again = cli("follow", "cli-follow-topic", "--until-done", "--json", "--last-event-id", str(ids[0]),
                      server=metis_server)
        assert again.returncode == 0 and [e["id"] for e in lines(again.stdout)] == ids[1:]


def test_losing_the_server_during_run_follow_exits_3(server_factory):
    server = server_factory(extra_args=["--workers", "1"], env={"METIS_WORKER_PREIMPORT": "0"})
    proc = subprocess.Popen([*CLI, "run", "t_sleep", "--inputs", '{"seconds": 60}', "--follow"], text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=env_for(server, METIS_RECONNECT_TIMEOUT="1.5"), cwd=ROOT)
    proc.stdout.readline()
    proc.stdout.readline()
    server.stop(kill=True)
    t0 = time.monotonic()
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 3, err
    assert "lost the stream" in err and "Traceback" not in err
    assert time.monotonic() - t0 < 15


@pytest.mark.parametrize("role", ["canvas"])
def test_call_with_another_role_from_the_tokens_file(cli, metis_server, tmp_path, role):
    data = tmp_path / "dd"
    data.mkdir()
    (data / "tokens.json").write_text(json.dumps({metis_server.token(role): {"tenant": "acme", "roles": [role]}}))
    r = cli("call", "session.whoami", "--role", role, "--data-dir", str(data), "--json", server=metis_server,
              METIS_TOKEN="")
    assert r.returncode == 0 and json.loads(r.stdout) == {"tenant": "acme", "roles": [role]}
    r = cli("call", "session.whoami", "--role", "reviewer", "--data-dir", str(data), server=metis_server, METIS_TOKEN="")
    assert r.returncode == 2 and "no token" in r.stderr and "'reviewer'" in r.stderr


def test_help_documents_the_exit_codes(cli):
    r = cli("--help")
    assert r.returncode == 0 and "130 interrupted" in r.stdout and "3 cannot reach the server" in r.stdout
