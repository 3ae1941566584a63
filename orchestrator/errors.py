"""JSON-RPC error codes of the contract, and the exception that carries one to the client."""

from __future__ import annotations

import errno
import re
import sqlite3
from typing import Any

# A durable write failed (disk full, I/O error, unreachable database): nothing was recorded. Raised
# by the storage drivers (receipts/ may not import orchestrator/) and by the scheduler; the ToolBus
# answers it with -32053 and ``retryable``.
from receipts.store import StorageUnavailable

__all__ = [
    "BUDGET_EXHAUSTED", "CONFLICT", "FORBIDDEN", "INTERNAL_ERROR", "INVALID_PARAMS", "INVALID_REQUEST",
    "METHOD_NOT_FOUND", "NOT_FOUND", "PARSE_ERROR", "RATE_LIMITED", "STORAGE_UNAVAILABLE", "TOO_LARGE",
    "UNAUTHENTICATED", "RpcError", "StorageUnavailable", "storage_error",
]

# The contract's codes, defined once in the client package (which must import without the server).
from metis_client.errors import (  # noqa: E402
    BUDGET_EXHAUSTED,
    CONFLICT,
    FORBIDDEN,
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    NOT_FOUND,
    PARSE_ERROR,
    RATE_LIMITED,
    STORAGE_UNAVAILABLE,
    TOO_LARGE,
    UNAUTHENTICATED,
)

#: OS errors that mean "the storage cannot take a write now" (retry later), not a bug.
_STORAGE_ERRNOS = {errno.ENOSPC, errno.EDQUOT, errno.EIO, errno.EROFS}
#: SQLite's messages for the same (a syntax error or a missing table stays a bug: -32603).
_STORAGE_WORDS = re.compile(r"disk|full|I/O|readonly|read-only|locked|unable to open", re.IGNORECASE)


class RpcError(Exception):
    """Raised anywhere below a ToolBus method; becomes the JSON-RPC ``error`` member."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    def to_dict(self) -> dict[str, Any]:
        err: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            err["data"] = self.data
        return err


def storage_error(exc: BaseException) -> RpcError | None:
    """The -32053 error for an exception that means the storage refused a write, else None."""
    if isinstance(exc, StorageUnavailable):
        reason = str(exc) or "storage unavailable"
    elif isinstance(exc, sqlite3.OperationalError) and _STORAGE_WORDS.search(str(exc)):
        reason = f"storage error: {exc}"
    elif isinstance(exc, OSError) and exc.errno in _STORAGE_ERRNOS:
        reason = f"storage error: {exc.strerror or exc}"
    else:
        return None
    return RpcError(STORAGE_UNAVAILABLE, "storage unavailable: nothing was recorded; retry later",
                    {"retryable": True, "reason": reason[:200]})
