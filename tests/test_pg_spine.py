"""The spine's service tests where storage matters, run again on a server whose receipt log is in
PostgreSQL (``metis serve --database``): the same test functions, with the ``metis_server`` and
``server_factory`` fixtures pointed at the throwaway database. A restarted server on the same
data dir gets the same database schema back, as a real deployment would."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterator
from pathlib import Path

import psycopg
import pytest

from tests import test_spine_service as spine
from tests.support import MetisServer

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
    "test_concurrency_limit_queues_and_queued_actions_survive_a_crash",
]
for _name in STORAGE_TESTS:
    globals()[_name] = getattr(spine, _name)

# reflect.verify opens the SQLite file of the log (service.py); on PostgreSQL it must call the store's
# own verifier (``receipts.store.verify_store``). Strict: this fails loudly once that is fixed.
test_proof_verify_and_replay = pytest.mark.xfail(
    strict=True, reason="service.reflect_verify reads log.path (SQLite only)")(spine.test_proof_verify_and_replay)


def _schema_url(database: str) -> str:
    schema = "s_" + secrets.token_hex(5)
    with psycopg.connect(database, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    return f"{database}?options=-csearch_path%3D{schema}"


@pytest.fixture(scope="module")
def metis_server(tmp_path_factory: pytest.TempPathFactory, pg_database: str) -> Iterator[MetisServer]:
    """One PostgreSQL-backed server for this module (tenants acme and globex)."""
    server = MetisServer(tmp_path_factory.mktemp("metis_pg") / "data",
                         extra_args=["--database", _schema_url(pg_database)]).start()
    yield server
    server.stop()


@pytest.fixture
def server_factory(tmp_path: Path, pg_database: str) -> Iterator[Callable[..., MetisServer]]:
    """Fresh PostgreSQL-backed servers; a server started again on a data dir gets that dir's schema."""
    servers: list[MetisServer] = []
    schemas: dict[Path, str] = {}

    def make(data_dir: Path | None = None, **kwargs) -> MetisServer:
        data_dir = data_dir or tmp_path / f"data{len(servers)}"
        url = schemas.setdefault(data_dir, _schema_url(pg_database))
        kwargs["extra_args"] = [*kwargs.get("extra_args", []), "--database", url]
        server = MetisServer(data_dir, **kwargs)
        servers.append(server)
        return server.start()

    yield make
    for s in servers:
        s.stop(kill=True)
