"""Shared fixtures: real servers (see tests/support.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

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
