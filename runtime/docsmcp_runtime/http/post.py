"""`POST /mcp`: one JSON-RPC message answered on the thread pool: the routing headers checked
against the body (2026-07-28), the protocol era decided, the reply's HTTP status chosen
(app.py's docstring tells the rules).
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from ..errors import HEADER_MISMATCH, INVALID_PARAMS, PARSE_ERROR
from ..protocol.dispatcher import (
    LEGACY_VERSIONS,
    META_PROTOCOL_VERSION,
    MODERN_VERSIONS,
    Message,
    Session,
    classify,
    parse,
)
from .replies import (
    LEGACY_STATUS,
    MODERN_STATUS,
    Headers,
    Reply,
    first,
    rpc_error,
    rpc_reply,
    unsupported_version,
)
from .watch import Served

KNOWN_VERSIONS = frozenset(LEGACY_VERSIONS) | frozenset(MODERN_VERSIONS)


ROUTING_HEADERS = ("mcp-protocol-version", "mcp-method", "mcp-name")


# The requests that carry Mcp-Name, and the body field it repeats (2026-07-28 transport).
NAMED_METHODS = {"tools/call": "name", "resources/read": "uri", "prompts/get": "name"}


def _decode_header_value(value: str) -> str | None:
    """Undo the `=?base64?...?=` sentinel encoding of Mcp-Name; None if it is malformed."""
    if value.startswith("=?base64?") and value.endswith("?=") and len(value) >= 11:
        try:
            return base64.b64decode(value[9:-2], validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            return None
    return value


def _routing_mismatch(headers: Headers, method: str, params: dict, required: bool) -> str | None:
    """Why Mcp-Method / Mcp-Name disagree with the body, or None. Absent is fine unless required."""
    sent_method = headers.get("mcp-method", [None])[0]
    if sent_method is None:
        if required:
            return "Header mismatch: required header Mcp-Method is missing"
    elif sent_method != method:
        return (
            f"Header mismatch: Mcp-Method header value {sent_method!r} does not match "
            f"body value {method!r}"
        )
    source = NAMED_METHODS.get(method)
    name = params.get(source) if source else None
    if isinstance(name, str):
        sent_name = headers.get("mcp-name", [None])[0]
        if sent_name is None:
            if required:
                return "Header mismatch: required header Mcp-Name is missing"
        elif _decode_header_value(sent_name) != name:
            return (
                f"Header mismatch: Mcp-Name header value {sent_name!r} does not match "
                f"body value {name!r}"
            )
    return None


def answer_post(served: Served, body: bytes, headers: Headers) -> Reply:
    """Answer the body of one `POST /mcp` (transport checks already passed)."""
    try:
        msg = parse(body)
    except ValueError:
        return rpc_error(400, PARSE_ERROR, "Parse error")
    log: dict[str, Any] = {}
    version_header = first(headers, "mcp-protocol-version")
    session = Session()  # fresh per request: nothing outlives it
    if version_header in LEGACY_VERSIONS:
        session.protocol_version = version_header  # the version the client negotiated
    message = classify(msg, session)
    log["rpc_method"] = message.method
    if message.method == "tools/call" and isinstance(message.params.get("name"), str):
        log["tool"] = message.params["name"]
    if message.id is not None and len(str(message.id)) <= 100:
        log["rpc_id"] = message.id  # lets a client's request be found in the logs
    for name in ROUTING_HEADERS:
        if len(headers.get(name, ())) > 1:
            # First-copy and last-copy readers along the way would disagree.
            return rpc_error(
                400,
                HEADER_MISMATCH,
                f"Header mismatch: {name} header appears more than once",
                message.id,
            )
    if version_header is not None:
        log["protocol_version"] = version_header
    dispatcher = served.dispatcher
    if message.kind in ("notification", "response"):
        # Accept, answer nothing.
        if version_header is not None and version_header not in KNOWN_VERSIONS:
            return unsupported_version(None, version_header, log)
        return Reply(202, log=log)
    if message.kind == "invalid":
        return rpc_reply(400, dispatcher.respond(message, session) or {}, log)
    problem = _transport_problem(message, headers, version_header)
    if problem is not None:
        code, text = problem
        if code == UNSUPPORTED:
            assert version_header is not None
            return unsupported_version(message.id, version_header, log)
        return rpc_error(400, code, text, message.id, log=log)
    if message.modern:
        log["protocol_version"] = message.version
    response = dispatcher.respond(message, session)
    if response is None:  # cannot happen for a request; be safe anyway
        return Reply(202, log=log)
    error = response.get("error")
    status = 200
    if isinstance(error, dict):
        status = (MODERN_STATUS if message.modern else LEGACY_STATUS).get(error.get("code"), 200)
    return rpc_reply(status, response, log)


UNSUPPORTED = -1  # _transport_problem: the version header names no revision we speak


def _transport_problem(
    message: Message, headers: Headers, version_header: str | None
) -> tuple[int, str] | None:
    """What the HTTP headers of a request get wrong, given what its body says."""
    if message.error is not None:
        return None  # the body's own problem is the answer
    assert message.method is not None
    if message.modern:
        # Header checks come before the body's version is used, as in the spec's validation
        # ladder: a client that disagrees with itself is told so.
        if version_header is None:
            return (
                HEADER_MISMATCH,
                "Header mismatch: required header MCP-Protocol-Version is missing",
            )
        if version_header != message.version:
            return HEADER_MISMATCH, (
                f"Header mismatch: MCP-Protocol-Version header value {version_header!r} does not "
                f"match body value {message.version!r}"
            )
        problem = _routing_mismatch(headers, message.method, message.params, required=True)
        return (HEADER_MISMATCH, problem) if problem else None
    # A handshake-era request: the header is optional, but when the body stamps a version too,
    # the two must agree.
    meta = message.params.get("_meta")
    stamped = meta.get(META_PROTOCOL_VERSION) if isinstance(meta, dict) else None
    if stamped is not None and version_header is not None and stamped != version_header:
        return HEADER_MISMATCH, (
            f"Header mismatch: MCP-Protocol-Version header value {version_header!r} does not "
            f"match body value {stamped!r}"
        )
    if version_header in MODERN_VERSIONS:
        # A 2026-07-28 request whose body lacks the required _meta envelope: invalid params
        # (SEP-2575), the answer protocol.classify gives on stdio too.
        return INVALID_PARAMS, (
            f"Invalid params: params._meta is missing required key {META_PROTOCOL_VERSION} "
            f"(sent with MCP-Protocol-Version {version_header!r})"
        )
    if message.method != "initialize" and version_header not in (None, *KNOWN_VERSIONS):
        return UNSUPPORTED, ""
    problem = _routing_mismatch(headers, message.method, message.params, required=False)
    return (HEADER_MISMATCH, problem) if problem else None
