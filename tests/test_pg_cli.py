"""``metis db upgrade|status``, ``metis keys init`` and ``metis receipts verify --database`` as a
user runs them: real subprocesses against the throwaway PostgreSQL database."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys

import psycopg

from receipts import migrations
from receipts.log import Entry
from receipts.postgres import PostgresReceiptLog
from tests.support import ROOT


def metis(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "orchestrator.cli", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=60, env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})


def test_db_upgrade_from_several_processes_at_once_then_status(pg_url):
    procs = [subprocess.Popen([sys.executable, "-m", "orchestrator.cli", "db", "upgrade", "--database", pg_url],
                              cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(3)]
    outs = [p.communicate(timeout=60) for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0], outs
    applied = [v for out, _ in outs for v in json.loads(out)["applied"]]
    assert sorted(applied) == [m.version for m in migrations.available()]  # each once, whoever won
    status = metis("db", "status", env={"METIS_DATABASE_URL": pg_url})  # the environment variable works too
    assert status.returncode == 0
    assert json.loads(status.stdout) == {"applied": [m.version for m in migrations.available()], "pending": []}


def test_db_commands_name_a_missing_or_unreachable_database():
    missing = metis("db", "upgrade", env={"METIS_DATABASE_URL": ""})
    assert missing.returncode != 0 and "--database" in missing.stderr
    with socket.create_server(("127.0.0.1", 0)) as s:
        port = s.getsockname()[1]
    down = metis("db", "upgrade", "--database", f"postgresql://postgres@127.0.0.1:{port}/postgres")
    assert down.returncode == 2
    assert "database unavailable" in down.stderr and "Traceback" not in down.stderr


def test_keys_init_then_verify_the_database_offline_with_the_pinned_key(pg_url, tmp_path):
    keys = tmp_path / "keys"
    made = metis("keys", "init", "--keys-dir", str(keys))
    assert made.returncode == 0, made.stderr
    info = json.loads(made.stdout)
    assert {"server.key", "signing_key.pem", "signing_key.pub.pem"} <= set(info["files"])
    again = json.loads(metis("keys", "init", "--keys-dir", str(keys)).stdout)
    assert again["signing_key_id"] == info["signing_key_id"]  # kept, not replaced
    log = PostgresReceiptLog(pg_url, keys)
    log.open()
    log.append_sync([Entry("receipt", "r", "acme", {"i": i}) for i in range(25)])
    log.close()
    ok = metis("receipts", "verify", "--database", pg_url, "--keys-dir", str(keys))
    assert ok.returncode == 0, ok.stderr
    report = json.loads(ok.stdout)
    assert report["ok"] is True and report["checked"] == 25
    assert report["tree_head"]["signed"]["key_id"] == info["signing_key_id"]
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("ALTER TABLE records DISABLE TRIGGER USER")
        conn.execute("UPDATE records SET hash = repeat('a', 64) WHERE seq = 11")
    bad = metis("receipts", "verify", "--database", pg_url, "--keys-dir", str(keys))
    assert bad.returncode == 1
    assert json.loads(bad.stdout)["first_bad_seq"] == 11


def test_verify_on_an_empty_database_says_there_is_no_log(pg_url):
    out = metis("receipts", "verify", "--database", pg_url)
    assert out.returncode == 1
    assert "no receipt log" in json.loads(out.stdout)["reason"]
