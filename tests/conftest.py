"""Shared fixtures: real servers (see tests/support.py)."""

from __future__ import annotations

import asyncio
import os
import secrets
import socket
from collections.abc import Callable, Iterator

import pytest

from orchestrator.outbox import Outbox
from receipts.log import ReceiptLog
from tests.support import MetisServer


@pytest.fixture(scope="session")
def metis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MetisServer]:
    """One real server shared by the whole test session (tenants acme and globex)."""
    server = MetisServer(tmp_path_factory.mktemp("metis") / "data").start()
    yield server
    server.stop()


@pytest.fixture
def server_factory(tmp_path) -> Iterator[Callable[..., MetisServer]]:
    """Fresh servers on their own data dirs; all stopped at the end of the test."""
    servers: list[MetisServer] = []

    def make(data_dir=None, **kwargs) -> MetisServer:
        server = MetisServer(data_dir or tmp_path / f"data{len(servers)}", **kwargs)
        servers.append(server)
        return server.start()

    yield make
    for s in servers:
        s.stop(kill=True)


# -- PostgreSQL (the distributed backend): one throwaway database per run, one schema per test --------

PG_ADMIN_URL = os.environ.get("METIS_TEST_PG_ADMIN_URL", "postgresql://postgres@127.0.0.1:5432/postgres")


@pytest.fixture(scope="session")
def pg_database() -> Iterator[str]:
    """URL of a fresh database ``metis_test_<random>`` on the local PostgreSQL, dropped at the end."""
    import psycopg

    name = "metis_test_" + secrets.token_hex(4)
    try:
        admin = psycopg.connect(PG_ADMIN_URL, autocommit=True, connect_timeout=5)
    except psycopg.OperationalError as exc:
        pytest.fail(f"PostgreSQL is not reachable at {PG_ADMIN_URL} (scripts/test starts it): {exc}")
    with admin:
        admin.execute(f"CREATE DATABASE {name}")
    yield PG_ADMIN_URL.rsplit("/", 1)[0] + "/" + name
    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as admin:
        admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def new_pg_schema(database: str) -> str:
    """A fresh schema of ``database``, as a URL whose search_path is that schema (dropped with the database)."""
    import psycopg

    schema = "t_" + secrets.token_hex(5)
    with psycopg.connect(database, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    return f"{database}?options=-csearch_path%3D{schema}"


@pytest.fixture
def pg_url(pg_database: str) -> str:
    """A URL whose search_path is a fresh schema: an empty PostgreSQL receipt log for this test."""
    return new_pg_schema(pg_database)


@pytest.fixture
def tcp_listener() -> Iterator[socket.socket]:
    """A listening TCP socket on 127.0.0.1 whose ``accept`` times out after 0.5 s, so a test can show
    that nothing connected (``pytest.raises(TimeoutError)``)."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen()
    srv.settimeout(0.5)
    yield srv
    srv.close()


@pytest.fixture
async def outbox(tmp_path):
    """An outbox on a real receipt log in a fresh data dir, closed after the test."""
    rlog = ReceiptLog(tmp_path / "data")
    rlog.open()
    rlog.bind_loop(asyncio.get_running_loop())
    box = Outbox(rlog)
    box.start()
    yield box
    await box.close()
    rlog.close()
