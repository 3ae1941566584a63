"""Errors raised by the client: one class, the JSON-RPC code tells what happened."""

from __future__ import annotations

from typing import Any

# Codes the client raises itself (JSON-RPC leaves codes above -32000 to applications).
CONNECTION_ERROR = -1  # cannot reach the server, or lost it and could not reconnect in time
TIMEOUT = -2  # no answer in time
CONFIG_ERROR = -3  # no token, bad URL: nothing was sent

# The server's codes (docs/protocol.md); the server imports them from here, so there is one list.
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
UNAUTHENTICATED = -32001
FORBIDDEN = -32003
NOT_FOUND = -32004
CONFLICT = -32009
TOO_LARGE = -32013
RATE_LIMITED = -32029
BUDGET_EXHAUSTED = -32050
STORAGE_UNAVAILABLE = -32053


class MetisError(Exception):
    """A JSON-RPC error from the server (``code``, ``message``, ``data``) or a client-side failure
    with one of the negative codes above."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(f"{message} ({code})")
        self.code = code
        self.message = message
        self.data = data

    @classmethod
    def from_error(cls, error: Any) -> MetisError:
        """From a JSON-RPC ``error`` member, tolerating a malformed one."""
        if not isinstance(error, dict):
            return cls(INTERNAL_ERROR, f"malformed error object: {error!r}")
        code = error.get("code")
        return cls(code if isinstance(code, int) else INTERNAL_ERROR, str(error.get("message", "")), error.get("data"))

    @property
    def retryable(self) -> bool:
        """True when trying again later may succeed (connection, timeout, rate limit, storage)."""
        if self.code in (CONNECTION_ERROR, TIMEOUT, RATE_LIMITED):
            return True
        return isinstance(self.data, dict) and self.data.get("retryable") is True


class ConnectionLost(MetisError):
    """The server could not be reached (or was lost and did not come back in time)."""

    def __init__(self, message: str) -> None:
        super().__init__(CONNECTION_ERROR, message)


class CallTimeout(MetisError, TimeoutError):
    """No answer within the timeout."""

    def __init__(self, message: str) -> None:
        super().__init__(TIMEOUT, message)
