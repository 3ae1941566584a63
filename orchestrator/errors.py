"""JSON-RPC error codes of the contract, and the exception that carries one to the client."""

from __future__ import annotations

from typing import Any

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
