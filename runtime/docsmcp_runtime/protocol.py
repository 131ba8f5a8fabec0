"""Transport-agnostic MCP / JSON-RPC 2.0 message handling.

Serves two protocol eras side by side (a "dual-era" server in spec terms):

* Legacy (2025-11-25 and wire-compatible 2025-06-18 / 2025-03-26): an `initialize`
  handshake negotiates the version once per connection.
* Modern (2026-07-28): stateless; every request carries its protocol version and
  client capabilities in `params._meta`, and `server/discover` replaces the handshake.

A request is modern when its `params._meta` carries the protocol-version key; anything
else is served as legacy, even without a prior `initialize`, so naive clients still work.
The only per-connection state is the legacy negotiated version, kept in a `Session` the
transport owns (HTTP can pass none and stay fully stateless).

This module deliberately depends on the standard library only: the runtime must start
fast and must not pull in the `mcp` SDK or pydantic.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any, NamedTuple, Protocol

from .errors import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    UNSUPPORTED_PROTOCOL_VERSION,
    ProtocolError,
)

MODERN_VERSION = "2026-07-28"
LATEST_LEGACY_VERSION = "2025-11-25"
# Older handshake revisions differ from 2025-11-25 only in features we don't offer
# (or in optional tool fields that older clients ignore), so we accept them as-is.
LEGACY_VERSIONS = (LATEST_LEGACY_VERSION, "2025-06-18", "2025-03-26")
MODERN_VERSIONS = (MODERN_VERSION,)
# What server/discover and UnsupportedProtocolVersionError advertise: newest first.
SUPPORTED_VERSIONS = (MODERN_VERSION, LATEST_LEGACY_VERSION)

META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
META_SERVER_INFO = "io.modelcontextprotocol/serverInfo"

# Freshness hint for cacheable results. The tool list only changes when the process
# is restarted on a new bundle, but an HTTP deployment may be redeployed under the
# same URL, so keep caches reasonably short.
CACHE_TTL_MS = 300_000


class App(Protocol):
    """The application the protocol layer serves (implemented in tools.py)."""

    server_name: str
    server_version: str
    instructions: str | None

    def list_tools(self) -> list[dict]: ...

    def call_tool(self, name: str, arguments: dict) -> dict: ...


class Session:
    """Per-connection state; only meaningful for legacy (handshake) clients."""

    __slots__ = ("protocol_version",)

    def __init__(self) -> None:
        # Version agreed by `initialize`; None until then (served as latest legacy meanwhile).
        self.protocol_version: str | None = None


class _Context(NamedTuple):
    """How one request is being served."""

    version: str
    modern: bool


_Handler = Callable[[App, dict, _Context, Session], dict]


def note(text: str) -> None:
    """Write a one-line diagnostic to stderr (stdout belongs to the protocol)."""
    print("docsmcp-runtime: " + " ".join(text.split()), file=sys.stderr, flush=True)


def error_response(id_: object, code: int, message: str, data: object | None = None) -> dict:
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return {"jsonrpc": "2.0", "id": id_, "error": error}


def _reject_constant(name: str) -> object:
    # Python's json accepts NaN/Infinity by default; they are not JSON.
    raise ValueError(f"invalid JSON constant {name}")


def parse(raw: bytes | str) -> object:
    """Decode one JSON text; raises ValueError (incl. UnicodeDecodeError) if it is not valid."""
    text = raw.decode("utf-8") if isinstance(raw, (bytes, bytearray)) else raw
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except RecursionError as exc:  # absurdly deep nesting
        raise ValueError("JSON nested too deeply") from exc


def _json_default(obj: object) -> object:
    # Search scores and ids may arrive as numpy scalars/arrays; tolist() yields plain Python.
    tolist = getattr(obj, "tolist", None)
    if callable(tolist):
        return tolist()
    raise TypeError(f"{type(obj).__name__} is not JSON serializable")


def _dumps(message: dict, ascii_only: bool = False) -> str:
    return json.dumps(
        message,
        ensure_ascii=ascii_only,
        separators=(",", ":"),
        allow_nan=False,
        default=_json_default,
    )


def encode(message: dict) -> bytes:
    """Serialize a response as compact UTF-8 JSON without newlines.

    Never raises: a result that cannot be serialized becomes an internal-error response
    for the same id, so one bad result cannot break the connection.
    """
    try:
        text = _dumps(message)
    except (TypeError, ValueError, RecursionError) as exc:
        note(f"cannot serialize response: {type(exc).__name__}: {exc}")
        message = error_response(message.get("id"), INTERNAL_ERROR, "Internal error")
        text = _dumps(message)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        # Lone surrogates (legal as JSON escapes, so they can round-trip from a request)
        # have no UTF-8 form; \u escapes keep the output valid JSON.
        return _dumps(message, ascii_only=True).encode("ascii")


def _server_info(app: App) -> dict:
    return {"name": app.server_name, "version": app.server_version}


# ---------------------------------------------------------------------------
# Method handlers. Each returns the `result` object; errors are ProtocolError.
# ---------------------------------------------------------------------------


def _initialize(app: App, params: dict, ctx: _Context, session: Session) -> dict:
    requested = params.get("protocolVersion")
    # Negotiation per 2025-11-25 lifecycle: echo a version we support, otherwise offer
    # our latest and let the client decide whether to disconnect.
    version = requested if requested in LEGACY_VERSIONS else LATEST_LEGACY_VERSION
    session.protocol_version = version
    result: dict[str, Any] = {
        "protocolVersion": version,
        "capabilities": {"tools": {"listChanged": False}},
        "serverInfo": _server_info(app),
    }
    if app.instructions is not None:
        result["instructions"] = app.instructions
    return result


def _ping(app: App, params: dict, ctx: _Context, session: Session) -> dict:
    return {}


def _discover(app: App, params: dict, ctx: _Context, session: Session) -> dict:
    result: dict[str, Any] = {
        "resultType": "complete",
        "supportedVersions": list(SUPPORTED_VERSIONS),
        "capabilities": {"tools": {}},
        "ttlMs": CACHE_TTL_MS,
        "cacheScope": "public",
        "_meta": {META_SERVER_INFO: _server_info(app)},
    }
    if app.instructions is not None:
        result["instructions"] = app.instructions
    return result


def _tools_list(app: App, params: dict, ctx: _Context, session: Session) -> dict:
    result: dict[str, Any] = {"tools": app.list_tools()}
    if ctx.modern:
        result["ttlMs"] = CACHE_TTL_MS
        result["cacheScope"] = "public"
    return result


def _tools_call(app: App, params: dict, ctx: _Context, session: Session) -> dict:
    name = params.get("name")
    if not isinstance(name, str):
        raise ProtocolError(INVALID_PARAMS, "Invalid params: 'name' must be a string")
    arguments = params.get("arguments")
    if arguments is None:
        arguments = {}
    elif not isinstance(arguments, dict):
        raise ProtocolError(INVALID_PARAMS, "Invalid params: 'arguments' must be an object")
    return app.call_tool(name, arguments)


_LEGACY_METHODS: dict[str, _Handler] = {
    "initialize": _initialize,
    "ping": _ping,
    # Harmless to answer without an envelope; a modern client always sends one.
    "tools/list": _tools_list,
    "tools/call": _tools_call,
}
# 2026-07-28 removed initialize and ping.
_MODERN_METHODS: dict[str, _Handler] = {
    "server/discover": _discover,
    "tools/list": _tools_list,
    "tools/call": _tools_call,
}
# Methods that exist only in the modern era: without the envelope they are malformed.
_MODERN_ONLY = frozenset(_MODERN_METHODS) - frozenset(_LEGACY_METHODS)


def _request_context(method: str, params: dict, session: Session) -> _Context:
    """Decide the era and version of one request; raise ProtocolError if its envelope is bad."""
    meta = params.get("_meta")
    enveloped = isinstance(meta, dict) and META_PROTOCOL_VERSION in meta
    if method == "initialize" and enveloped and meta[META_PROTOCOL_VERSION] in MODERN_VERSIONS:
        # 2026-07-28 removed the handshake: a request stamped with that revision asking for it
        # is asking for a method that does not exist there (SEP-2575).
        raise ProtocolError(METHOD_NOT_FOUND, "Method not found: initialize")
    if method == "initialize" or (not enveloped and method not in _MODERN_ONLY):
        return _Context(version=session.protocol_version or LATEST_LEGACY_VERSION, modern=False)

    meta = meta if isinstance(meta, dict) else {}
    missing = [k for k in (META_PROTOCOL_VERSION, META_CLIENT_CAPABILITIES) if k not in meta]
    if missing:
        raise ProtocolError(
            INVALID_PARAMS,
            "Invalid params: params._meta is missing required key(s): " + ", ".join(missing),
        )
    version = meta[META_PROTOCOL_VERSION]
    if not isinstance(version, str):
        raise ProtocolError(
            INVALID_PARAMS, f"Invalid params: {META_PROTOCOL_VERSION} must be a string"
        )
    if not isinstance(meta[META_CLIENT_CAPABILITIES], dict):
        raise ProtocolError(
            INVALID_PARAMS, f"Invalid params: {META_CLIENT_CAPABILITIES} must be an object"
        )
    if version in MODERN_VERSIONS:
        return _Context(version=version, modern=True)
    if version in LEGACY_VERSIONS:
        # A handshake-era version stamped per request: serve it statelessly with that
        # revision's result shapes rather than refusing a version we do speak.
        return _Context(version=version, modern=False)
    raise ProtocolError(
        UNSUPPORTED_PROTOCOL_VERSION,
        "Unsupported protocol version",
        {"supported": list(SUPPORTED_VERSIONS), "requested": version},
    )


def _finish_modern(app: App, result: dict) -> dict:
    """Add the fields every 2026-07-28 result carries, without mutating the app's dict."""
    result = dict(result)
    result.setdefault("resultType", "complete")
    meta = result.get("_meta")
    meta = dict(meta) if isinstance(meta, dict) else {}
    meta.setdefault(META_SERVER_INFO, _server_info(app))
    result["_meta"] = meta
    return result


def _valid_id(id_: object) -> bool:
    # MCP forbids null ids; bool is an int subclass but not a valid id.
    return isinstance(id_, str) or (isinstance(id_, int) and not isinstance(id_, bool))


class Dispatcher:
    """Turns incoming JSON-RPC messages into responses for one App.

    Thread-compatible: holds no mutable state of its own; per-connection state lives in
    the `Session` passed by the transport.
    """

    def __init__(self, app: App) -> None:
        self.app = app

    def handle(self, raw: bytes | str, session: Session | None = None) -> dict | None:
        """Handle one serialized message; returns the response, or None if none is due."""
        try:
            msg = parse(raw)
        except ValueError:
            return error_response(None, PARSE_ERROR, "Parse error")
        return self.handle_message(msg, session)

    def handle_message(self, msg: object, session: Session | None = None) -> dict | None:
        """Handle one already-parsed message; returns the response, or None if none is due."""
        if session is None:
            session = Session()  # stateless: nothing carries over to the next message
        if isinstance(msg, list):
            # JSON-RPC batching was removed from MCP in 2025-06-18.
            return error_response(
                None, INVALID_REQUEST, "Invalid Request: batching is not supported"
            )
        if not isinstance(msg, dict):
            return error_response(None, INVALID_REQUEST, "Invalid Request: expected a JSON object")
        if "id" not in msg:
            # Notifications (and anything else without an id) never get a reply. The ones
            # we know need no action: notifications/initialized carries no state we use,
            # and notifications/cancelled arrives after its (synchronous) request finished.
            return None
        id_ = msg["id"]
        if "method" not in msg and ("result" in msg or "error" in msg):
            return None  # a response; we never send requests, so nothing to correlate
        if not _valid_id(id_):
            return error_response(
                None, INVALID_REQUEST, "Invalid Request: id must be a string or integer"
            )
        if msg.get("jsonrpc") != "2.0":
            return error_response(id_, INVALID_REQUEST, 'Invalid Request: jsonrpc must be "2.0"')
        method = msg.get("method")
        if not isinstance(method, str):
            return error_response(id_, INVALID_REQUEST, "Invalid Request: method must be a string")
        params = msg.get("params")
        if params is None:
            params = {}
        elif not isinstance(params, dict):
            return error_response(id_, INVALID_PARAMS, "Invalid params: params must be an object")

        try:
            result = self._dispatch(method, params, session)
        except ProtocolError as exc:
            return {"jsonrpc": "2.0", "id": id_, "error": exc.to_error()}
        except Exception as exc:  # never let an application bug kill the connection
            note(f"internal error in {method}: {type(exc).__name__}: {exc}")
            return error_response(id_, INTERNAL_ERROR, "Internal error")
        return {"jsonrpc": "2.0", "id": id_, "result": result}

    def _dispatch(self, method: str, params: dict, session: Session) -> dict:
        ctx = _request_context(method, params, session)
        handler = (_MODERN_METHODS if ctx.modern else _LEGACY_METHODS).get(method)
        if handler is None:
            raise ProtocolError(METHOD_NOT_FOUND, f"Method not found: {method}")
        result = handler(self.app, params, ctx, session)
        if not isinstance(result, dict):
            raise TypeError(f"{method} handler returned {type(result).__name__}, not a dict")
        return _finish_modern(self.app, result) if ctx.modern else result
