"""What the HTTP transport answers: a status, a body, headers, and facts for the log line."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field
from typing import Any

from ..errors import (
    HEADER_MISMATCH,
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    UNSUPPORTED_PROTOCOL_VERSION,
)
from ..protocol.dispatcher import SUPPORTED_VERSIONS, encode, error_response
from ..records import record

Headers = Mapping[str, list[str]]  # lower-case name → every value sent under it

# JSON-RPC error code → HTTP status (anything else is 200).
MODERN_STATUS = {
    PARSE_ERROR: 400,
    INVALID_REQUEST: 400,
    INVALID_PARAMS: 400,
    HEADER_MISMATCH: 400,
    UNSUPPORTED_PROTOCOL_VERSION: 400,
    METHOD_NOT_FOUND: 404,
    INTERNAL_ERROR: 500,
}
LEGACY_STATUS = {
    PARSE_ERROR: 400,
    INVALID_REQUEST: 400,
    UNSUPPORTED_PROTOCOL_VERSION: 400,
    INTERNAL_ERROR: 500,
}


@record(eq=False)
class Reply:
    status: int
    body: bytes = b""
    content_type: str | None = None
    headers: tuple[tuple[str, str], ...] = ()
    # Facts for the request log line (rpc_method, tool, protocol_version, rpc_error...).
    log: dict[str, Any] = field(default_factory=dict)


def rpc_reply(status: int, message: dict, log: dict[str, Any] | None = None, **kw: Any) -> Reply:
    log = dict(log or {})
    error = message.get("error")
    if isinstance(error, dict):
        log["rpc_error"] = error.get("code")
    return Reply(status, encode(message), "application/json", log=log, **kw)


def rpc_error(
    status: int,
    code: int,
    message: str,
    id_: object = None,
    data: object | None = None,
    log: dict[str, Any] | None = None,
    headers: tuple[tuple[str, str], ...] = (),
) -> Reply:
    return rpc_reply(status, error_response(id_, code, message, data), log, headers=headers)


def unsupported_version(id_: object, requested: str, log: dict[str, Any]) -> Reply:
    return rpc_error(
        400,
        UNSUPPORTED_PROTOCOL_VERSION,
        "Unsupported protocol version",
        id_,
        {"supported": list(SUPPORTED_VERSIONS), "requested": requested},
        log,
    )


def plain(status: int, text: str, headers: tuple[tuple[str, str], ...] = ()) -> Reply:
    return Reply(status, text.encode(), "text/plain; charset=utf-8", headers)


def first(headers: Headers, name: str) -> str | None:
    values = headers.get(name)
    return values[0] if values else None
