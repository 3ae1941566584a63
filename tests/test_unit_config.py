"""Service settings (orchestrator/config.py): defaults, METIS_* environment variables, overrides."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from orchestrator.config import Settings
from tests.support import free_port

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in list(os.environ):
        if name.startswith("METIS_"):
            monkeypatch.delenv(name)
    return monkeypatch


def test_defaults(clean_env):
    s = Settings.from_env()
    assert (s.host, s.port, s.data_dir, s.tokens_file) == ("127.0.0.1", 8787, Path(".metis"), None)
    assert (s.max_concurrent, s.warm_workers, s.max_workers) == (4, 4, 16)
    assert (s.max_message_bytes, s.max_batch, s.rate_per_s, s.rate_burst) == (1024 * 1024, 100, 500.0, 1000.0)
    assert (s.heartbeat_s, s.send_timeout_s, s.subscriber_buffer) == (15.0, 10.0, 4096)
    assert (s.tree_head_interval_s, s.max_wall_s) == (5.0, 3600.0)


def test_env_values_take_the_fields_type(clean_env):
    clean_env.setenv("METIS_PORT", "9001")
    clean_env.setenv("METIS_RATE_PER_S", "2.5")
    clean_env.setenv("METIS_DATA_DIR", "/tmp/metis-x")
    clean_env.setenv("METIS_TOKENS_FILE", "/tmp/tokens.json")
    clean_env.setenv("METIS_MAX_BATCH", "7")
    s = Settings.from_env()
    assert s.port == 9001 and isinstance(s.port, int)
    assert s.rate_per_s == 2.5 and s.max_batch == 7
    assert s.data_dir == Path("/tmp/metis-x") and s.tokens_file == Path("/tmp/tokens.json")


def test_overrides_beat_env_and_none_overrides_are_ignored(clean_env):
    clean_env.setenv("METIS_PORT", "9001")
    clean_env.setenv("METIS_MAX_CONCURRENT", "9")
    s = Settings.from_env(port=9002, max_concurrent=None, data_dir="rel/dir")
    assert s.port == 9002 and s.max_concurrent == 9
    assert s.data_dir == Path("rel/dir")


def test_bad_env_value_is_an_error(clean_env):
    clean_env.setenv("METIS_PORT", "eighty")
    with pytest.raises(ValueError):
        Settings.from_env()


def test_metis_serve_honours_metis_port(tmp_path):
    port = free_port()
    tokens = tmp_path / "tokens.json"
    tokens.write_text(json.dumps({"t": {"tenant": "acme", "roles": ["partner"]}}))
    env = {**os.environ, "PYTHONPATH": str(ROOT), "METIS_PORT": str(port), "METIS_WARM_WORKERS": "0"}
    proc = subprocess.Popen([sys.executable, "-m", "orchestrator.cli", "serve", "--data-dir", str(tmp_path / "d"),
                             "--tokens", str(tokens)], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    try:
        deadline = time.monotonic() + 60
        line = ""
        while time.monotonic() < deadline and "serving on" not in line:
            line = proc.stdout.readline()
            if not line and proc.poll() is not None:
                break
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    assert "serving on" in line
    assert f":{port} " in line, line


def test_bad_values_are_explained_with_their_variable_and_flag(clean_env):
    from pydantic import ValidationError

    from orchestrator.config import explain

    clean_env.setenv("METIS_MAX_CONCURRENT", "0")
    with pytest.raises(ValidationError) as err:
        Settings.from_env(port=70000)
    text = explain(err.value, {"port": "--port"})
    assert "--port / METIS_PORT: Input should be less than or equal to 65535" in text
    assert "METIS_MAX_CONCURRENT: Input should be greater than or equal to 1 (got '0')" in text


def test_client_settings(clean_env):
    from pydantic import ValidationError

    from orchestrator.config import ClientSettings

    clean_env.setenv("METIS_URL", "ws://h:1/toolbus")
    clean_env.setenv("METIS_RECONNECT_TIMEOUT", "2.5")
    s = ClientSettings.from_env(token="tok")
    assert (s.url, s.token, s.reconnect_timeout, s.timeout) == ("ws://h:1/toolbus", "tok", 2.5, 30.0)
    clean_env.setenv("METIS_URL", "h:1")
    with pytest.raises(ValidationError, match="not a Metis URL"):
        ClientSettings.from_env()
