"""Exceptions shared by the runtime's protocol layer and application code."""

from __future__ import annotations

# JSON-RPC 2.0 standard error codes.
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603

# MCP-reserved codes (-32020..-32099), as renumbered in revision 2026-07-28.
HEADER_MISMATCH = -32020
UNSUPPORTED_PROTOCOL_VERSION = -32022


class ProtocolError(Exception):
    """An error to be sent back as a JSON-RPC error response (not a tool-level isError result)."""

    def __init__(self, code: int, message: str, data: object | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    def to_error(self) -> dict:
        """The JSON-RPC `error` member for this exception."""
        error: dict = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error


class SearchTimeout(Exception):
    """A search ran past its time budget (it is abandoned: never a partial result)."""


class BundleError(Exception):
    """An index bundle is missing, unreadable or malformed; the message is a single line."""
