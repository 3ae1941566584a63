"""The spine's service tests where storage matters, run again on a server whose receipt log is in
PostgreSQL (``metis serve --database``): the same test functions, with the ``metis_server`` and
``server_factory`` fixtures pointed at the throwaway database. A restarted server on the same
data dir gets the same database schema back, as a real deployment would."""

from __future__ import annotations

import asyncio
import inspect
import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from receipts.canonical import canonical_json
from tests import test_scheduler_durable as durable
from tests import test_spine_service as spine
from tests.conftest import new_pg_schema
from tests.support import ROOT, MetisServer, ToolBus, ended, sse_read

STORAGE_TESTS = [
    "test_sse_resume_at_several_points_no_gap_no_duplicate",
    "test_sse_resume_while_live",
    "test_events_subscribe_resume_over_toolbus",
    "test_waiting_user_and_input",
    "test_idempotency_key",
    "test_depends_on_passes_outputs_and_unknown_edges_refused",
    "test_bind_bump_update_available_and_accept_update",
    "test_spawn_sub_action",
    "test_tenant_isolation_calls_and_streams",
    "test_reflect_requires_approval_and_is_recorded",
    "test_approval_as_input_granted_by_approver",
    "test_thousand_sse_subscribers_receive_every_event",
]
MISSING = [name for name in STORAGE_TESTS if not hasattr(spine, name)]
for _name in STORAGE_TESTS:
    if hasattr(spine, _name):
        globals()[_name] = getattr(spine, _name)
# every durable-execution test whose checks do not read the SQLite file itself (those have their own
# PostgreSQL versions below)
for _name, _fn in vars(durable).items():
    if _name.startswith("test_") and callable(_fn) and "_verify(" not in inspect.getsource(_fn):
        globals()[_name] = _fn


def test_the_selected_spine_tests_still_exist():
    assert MISSING == [], f"renamed or removed in tests/test_spine_service.py: {MISSING}"


# reflect.verify goes through the store's own verifier (``receipts.store.verify_store``), so the
# embedded test runs here unchanged on a PostgreSQL-backed server.
async def test_proof_verify_and_replay(metis_server):
    """Proofs, ``reflect.verify`` (an approved reviewer's tenant-scoped check) and replay on PostgreSQL."""
    await spine.test_proof_verify_and_replay(metis_server)


@pytest.fixture(scope="module")
def metis_server(tmp_path_factory: pytest.TempPathFactory, pg_database: str) -> Iterator[MetisServer]:
    """One PostgreSQL-backed server for this module (tenants acme and globex)."""
    server = MetisServer(tmp_path_factory.mktemp("metis_pg") / "data",
                         extra_args=["--database", new_pg_schema(pg_database)]).start()
    yield server
    server.stop()


@pytest.fixture
def server_factory(tmp_path: Path, pg_database: str) -> Iterator[Callable[..., MetisServer]]:
    """Fresh PostgreSQL-backed servers; a server started again on a data dir gets that dir's schema."""
    servers: list[MetisServer] = []
    schemas: dict[Path, str] = {}

    def make(data_dir: Path | None = None, **kwargs) -> MetisServer:
        """Start a server; ``server.database`` is its URL."""
        data_dir = data_dir or tmp_path / f"data{len(servers)}"
        url = schemas.setdefault(data_dir, new_pg_schema(pg_database))
        kwargs["extra_args"] = [*kwargs.get("extra_args", []), "--database", url]
        server = MetisServer(data_dir, **kwargs)
        server.database = url  # type: ignore[attr-defined]
        servers.append(server)
        return server.start()

    yield make
    for s in servers:
        s.stop(kill=True)


async def test_kill9_mid_run_on_postgres_resumes_by_replay_with_identical_outputs(server_factory, tmp_path):
    """The embedded test of the same name, with the log in PostgreSQL and the offline check of it."""
    lease = {"METIS_LEASE_S": "3"}  # the restarted replica takes the action once the dead one's lease ran out
    server = server_factory(tmp_path / "crash", env=lease)
    inputs, seed = {"n": 12, "delay_s": 0.25}, {"purpose": "undisturbed-vs-resumed"}
    async with ToolBus.connect(server) as tb:
        reference, ref_events = await tb.run("t_emit", inputs, seed=seed)
        started = await tb.start("t_emit", inputs, seed=seed)
    _, early = await sse_read(server, started["topic"], max_events=5)
    assert sum(e["event"] == "action_checkpoint" for e in early) >= 3
    server.stop(kill=True)
    await asyncio.sleep(3.5)  # past the dead replica's lease: a replica adopts orphaned actions at start
    restarted = server_factory(server.data_dir, env=lease)  # same data dir, same database
    async with ToolBus.connect(restarted) as tb:
        view = await tb.wait_status(started["action_id"], {"completed", "failed", "partial"}, timeout=60)
    assert view["status"] == "completed", view
    assert canonical_json(view["outputs"]) == canonical_json(reference["outputs"])
    _, events = await sse_read(restarted, started["topic"], until=ended(started["action_id"]))
    checkpoints = [e["data"]["payload"] for e in events if e["event"] == "action_checkpoint"]
    assert checkpoints == [e["data"]["payload"] for e in ref_events if e["event"] == "action_checkpoint"]
    restarted.stop()
    out = subprocess.run([sys.executable, "-m", "orchestrator.cli", "receipts", "verify", "--database",
                          restarted.database, "--keys-dir", str(server.data_dir)],
                         capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 0 and json.loads(out.stdout)["ok"] is True, out.stdout + out.stderr
