"""The storage-failure error (-32053): which failures map to it, and its shape (sans-I/O)."""

from __future__ import annotations

import errno
import sqlite3

import pytest

from orchestrator.errors import STORAGE_UNAVAILABLE, StorageUnavailable, storage_error
from receipts.store import StorageUnavailable as DriverStorageUnavailable


@pytest.mark.parametrize("exc", [
    StorageUnavailable("append failed: disk full"),
    sqlite3.OperationalError("database or disk is full"),
    sqlite3.OperationalError("disk I/O error"),
    sqlite3.OperationalError("attempt to write a readonly database"),
    OSError(errno.ENOSPC, "No space left on device"),
    OSError(errno.EIO, "Input/output error"),
])
def test_storage_failures_are_retryable_32053(exc):
    err = storage_error(exc)
    assert err is not None and err.code == STORAGE_UNAVAILABLE == -32053
    body = err.to_dict()
    assert body["data"]["retryable"] is True and body["data"]["reason"]
    assert "retry" in body["message"]


@pytest.mark.parametrize("exc", [
    sqlite3.OperationalError("no such table: records"),  # a bug, not the disk
    OSError(errno.ENOENT, "No such file or directory"),
    ValueError("not canonicalizable JSON"),
    RuntimeError("boom"),
])
def test_other_failures_are_not_storage_errors(exc):
    assert storage_error(exc) is None


def test_one_class_for_the_drivers_and_the_scheduler():
    assert StorageUnavailable is DriverStorageUnavailable
