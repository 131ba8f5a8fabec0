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

Methods: tools (list, call), resources (list, templates/list, read; no subscribe),
prompts (list, get) and completion/complete, in both eras. 2026-07-28 differs in the results
only: the list results and resources/read carry the cache hints `ttlMs` and `cacheScope`, and
a resource that does not exist is -32602 (Invalid params) instead of -32002.

This module deliberately depends on the standard library only: the runtime must start
fast and must not pull in the `mcp` SDK or pydantic.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import field
from typing import Any, Protocol

from ..errors import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    UNSUPPORTED_PROTOCOL_VERSION,
    BundleError,
    ProtocolError,
)
from ..records import record

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

# resources/read of a URI that names nothing: -32002 up to 2025-11-25; 2026-07-28 made it -32602
# (Invalid params). Apps raise ProtocolError(RESOURCE_NOT_FOUND, ...); _resources_read
# renumbers it for modern requests.
RESOURCE_NOT_FOUND = -32002


class App(Protocol):
    """The application the protocol layer serves (implemented in tools/)."""

    server_name: str
    server_version: str
    instructions: str | None

    def list_tools(self) -> list[dict]: ...

    def has_chunk(self, chunk_id: str) -> bool: ...

    def call_tool(self, name: str, arguments: dict) -> dict: ...

    # Resources, prompts and completions. Parameters arrive with their JSON shapes checked;
    # each returns the method's result object (without the 2026-07-28 stamps) or raises
    # ProtocolError.

    def list_resources(self, cursor: str | None) -> dict: ...

    def list_resource_templates(self) -> dict: ...

    def read_resource(self, uri: str) -> dict: ...  # unknown: ProtocolError(RESOURCE_NOT_FOUND)

    def list_prompts(self) -> dict: ...

    def get_prompt(self, name: str, arguments: dict[str, str]) -> dict: ...

    def complete(self, ref: dict, argument: dict, context: dict[str, str]) -> dict:
        """`ref`: {"type": "ref/prompt", "name": str} or {"type": "ref/resource", "uri": str};
        `argument`: {"name": str, "value": str}; `context`: context.arguments ({} if none)."""
        ...


class Session:
    """Per-connection state; only meaningful for legacy (handshake) clients."""

    __slots__ = ("protocol_version",)

    def __init__(self) -> None:
        # Version agreed by `initialize`; None until then (served as latest legacy meanwhile).
        self.protocol_version: str | None = None


log = logging.getLogger(__name__)


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
        log.error("cannot serialize response: %s: %s", type(exc).__name__, exc)
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


def _initialize(app: App, params: dict, ctx: Message, session: Session) -> dict:
    requested = params.get("protocolVersion")
    # Negotiation per 2025-11-25 lifecycle: echo a version we support, otherwise offer
    # our latest and let the client decide whether to disconnect.
    version = requested if requested in LEGACY_VERSIONS else LATEST_LEGACY_VERSION
    session.protocol_version = version
    result: dict[str, Any] = {
        "protocolVersion": version,
        "capabilities": {
            "tools": {"listChanged": False},
            "resources": {"subscribe": False, "listChanged": False},
            "prompts": {"listChanged": False},
            "completions": {},
        },
        "serverInfo": _server_info(app),
    }
    if app.instructions is not None:
        result["instructions"] = app.instructions
    return result


def _ping(app: App, params: dict, ctx: Message, session: Session) -> dict:
    return {}


def _discover(app: App, params: dict, ctx: Message, session: Session) -> dict:
    result: dict[str, Any] = {
        "resultType": "complete",
        "supportedVersions": list(SUPPORTED_VERSIONS),
        # Absent listChanged / subscribe mean false; resources/subscribe is not offered.
        "capabilities": {"tools": {}, "resources": {}, "prompts": {}, "completions": {}},
        "ttlMs": CACHE_TTL_MS,
        "cacheScope": "public",
        "_meta": {META_SERVER_INFO: _server_info(app)},
    }
    if app.instructions is not None:
        result["instructions"] = app.instructions
    return result


def _cacheable(result: dict, ctx: Message) -> dict:
    """2026-07-28 CacheableResult fields (list results, resources/read): the docs are public
    and change only with a new bundle."""
    if ctx.modern:
        result = dict(result)
        result["ttlMs"] = CACHE_TTL_MS
        result["cacheScope"] = "public"
    return result


def _tools_list(app: App, params: dict, ctx: Message, session: Session) -> dict:
    return _cacheable({"tools": app.list_tools()}, ctx)


def _tools_call(app: App, params: dict, ctx: Message, session: Session) -> dict:
    name = params.get("name")
    if not isinstance(name, str):
        raise ProtocolError(INVALID_PARAMS, "Invalid params: 'name' must be a string")
    arguments = params.get("arguments")
    if arguments is None:
        arguments = {}
    elif not isinstance(arguments, dict):
        raise ProtocolError(INVALID_PARAMS, "Invalid params: 'arguments' must be an object")
    return app.call_tool(name, arguments)


def _invalid_params(message: str) -> ProtocolError:
    return ProtocolError(INVALID_PARAMS, f"Invalid params: {message}")


def _cursor(params: dict) -> str | None:
    cursor = params.get("cursor")
    if cursor is not None and (not isinstance(cursor, str) or not cursor):
        raise _invalid_params("'cursor' must be a non-empty string")
    return cursor


def _no_cursor(params: dict, method: str) -> None:
    """Lists that fit one page: any cursor is one this server never issued."""
    if _cursor(params) is not None:
        raise _invalid_params(f"invalid cursor; {method} has a single page, omit the cursor")


def _string_map(value: object, what: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise _invalid_params(f"'{what}' must be an object of string values")
    return value


def _resources_list(app: App, params: dict, ctx: Message, session: Session) -> dict:
    return _cacheable(app.list_resources(_cursor(params)), ctx)


def _resources_templates_list(app: App, params: dict, ctx: Message, session: Session) -> dict:
    _no_cursor(params, "resources/templates/list")
    return _cacheable(app.list_resource_templates(), ctx)


def _resources_read(app: App, params: dict, ctx: Message, session: Session) -> dict:
    uri = params.get("uri")
    if not isinstance(uri, str) or not uri:
        raise _invalid_params("'uri' must be a non-empty string")
    try:
        result = app.read_resource(uri)
    except ProtocolError as exc:
        if exc.code == RESOURCE_NOT_FOUND and ctx.modern:
            raise ProtocolError(INVALID_PARAMS, exc.message, exc.data) from None
        raise
    return _cacheable(result, ctx)


def _prompts_list(app: App, params: dict, ctx: Message, session: Session) -> dict:
    _no_cursor(params, "prompts/list")
    return _cacheable(app.list_prompts(), ctx)


def _prompts_get(app: App, params: dict, ctx: Message, session: Session) -> dict:
    name = params.get("name")
    if not isinstance(name, str):
        raise _invalid_params("'name' must be a string")
    return app.get_prompt(name, _string_map(params.get("arguments"), "arguments"))


def _completion_complete(app: App, params: dict, ctx: Message, session: Session) -> dict:
    ref = params.get("ref")
    if not isinstance(ref, dict):
        raise _invalid_params("'ref' must be an object")
    kind = ref.get("type")
    if kind == "ref/prompt":
        if not isinstance(ref.get("name"), str):
            raise _invalid_params("'ref.name' must be a string")
    elif kind == "ref/resource":
        if not isinstance(ref.get("uri"), str):
            raise _invalid_params("'ref.uri' must be a string")
    else:
        raise _invalid_params('\'ref.type\' must be "ref/prompt" or "ref/resource"')
    argument = params.get("argument")
    if (
        not isinstance(argument, dict)
        or not isinstance(argument.get("name"), str)
        or not isinstance(argument.get("value"), str)
    ):
        raise _invalid_params("'argument' must be an object with string 'name' and 'value'")
    context = params.get("context")
    if context is not None and not isinstance(context, dict):
        raise _invalid_params("'context' must be an object")
    arguments = _string_map((context or {}).get("arguments"), "context.arguments")
    return app.complete(ref, argument, arguments)


_Handler = Callable[[App, dict, "Message", Session], dict]

# What both eras answer alike (a modern client always sends the envelope; a legacy one never
# does, and it is harmless to answer these without one).
_SHARED_METHODS: dict[str, _Handler] = {
    "tools/list": _tools_list,
    "tools/call": _tools_call,
    "resources/list": _resources_list,
    "resources/templates/list": _resources_templates_list,
    "resources/read": _resources_read,
    "prompts/list": _prompts_list,
    "prompts/get": _prompts_get,
    "completion/complete": _completion_complete,
}
_LEGACY_METHODS: dict[str, _Handler] = {
    "initialize": _initialize,
    "ping": _ping,
    **_SHARED_METHODS,
}
# 2026-07-28 removed initialize and ping (and resources/subscribe, which we never offered).
_MODERN_METHODS: dict[str, _Handler] = {"server/discover": _discover, **_SHARED_METHODS}
# Methods that exist only in the modern era: without the envelope they are malformed.
_MODERN_ONLY = frozenset(_MODERN_METHODS) - frozenset(_LEGACY_METHODS)


@record
class Message:
    """One incoming JSON-RPC message, classified: what it is, and for a request, which protocol
    era and version serve it. Both transports use this, so they never disagree.

    kind: "request" (answer it), "notification" or "response" (answer nothing), "invalid"
    (answer `error`). A request may carry `error` too: its envelope was bad, answer that.
    """

    kind: str
    id: str | int | None = None
    method: str | None = None
    params: dict = field(default_factory=dict)
    modern: bool = False
    version: str = LATEST_LEGACY_VERSION
    error: ProtocolError | None = None


def _invalid(message: str, id_: str | int | None = None, code: int = INVALID_REQUEST) -> Message:
    return Message("invalid", id_, error=ProtocolError(code, message))


def classify(msg: object, session: Session) -> Message:
    """Classify one parsed message. `session` holds the version a legacy client negotiated
    (HTTP sets it from the MCP-Protocol-Version header; stdio from `initialize`)."""
    if isinstance(msg, list):
        # JSON-RPC batching was removed from MCP in 2025-06-18.
        return _invalid("Invalid Request: batching is not supported")
    if not isinstance(msg, dict):
        return _invalid("Invalid Request: expected a JSON object")
    method = msg.get("method")
    if "id" not in msg:
        # Notifications (and anything else without an id) never get a reply. The ones we know
        # need no action: notifications/initialized carries no state we use, and
        # notifications/cancelled arrives after its (synchronous) request finished.
        if not isinstance(method, str) and "result" not in msg and "error" not in msg:
            return _invalid("Invalid Request: not a JSON-RPC request or notification")
        return Message("notification", method=method if isinstance(method, str) else None)
    if "method" not in msg and ("result" in msg or "error" in msg):
        return Message("response")  # we never send requests, so nothing to correlate
    id_ = msg["id"]
    if not _valid_id(id_):
        return _invalid("Invalid Request: id must be a string or integer")
    if msg.get("jsonrpc") != "2.0":
        return _invalid('Invalid Request: jsonrpc must be "2.0"', id_)
    if not isinstance(method, str):
        return _invalid("Invalid Request: method must be a string", id_)
    params = msg.get("params")
    if params is None:
        params = {}
    elif not isinstance(params, dict):
        return _invalid("Invalid params: params must be an object", id_, INVALID_PARAMS)
    return _request(id_, method, params, session)


def _request(id_: str | int, method: str, params: dict, session: Session) -> Message:
    """Decide the era and version of one request, or the error its envelope deserves.

    A request is modern when `params._meta` carries a protocol version that is a modern one; a
    handshake-era version stamped there is served statelessly as that legacy revision.
    """
    meta = params.get("_meta")
    stamped = meta.get(META_PROTOCOL_VERSION) if isinstance(meta, dict) else None
    enveloped = isinstance(meta, dict) and META_PROTOCOL_VERSION in meta
    legacy = Message(
        "request", id_, method, params, False, session.protocol_version or LATEST_LEGACY_VERSION
    )
    if method == "initialize":
        if enveloped and stamped in MODERN_VERSIONS:
            # 2026-07-28 removed the handshake: a request stamped with that revision asking for
            # it asks for a method that does not exist there (SEP-2575).
            return _error(legacy, True, METHOD_NOT_FOUND, "Method not found: initialize")
        return legacy
    if not enveloped:
        if method in _MODERN_ONLY:
            return _error(
                legacy,
                True,
                INVALID_PARAMS,
                f"Invalid params: params._meta is missing required key(s): "
                f"{META_PROTOCOL_VERSION}, {META_CLIENT_CAPABILITIES}",
            )
        return legacy
    assert isinstance(meta, dict)
    # A handshake-era version in the envelope is served as that revision, statelessly.
    modern = stamped not in LEGACY_VERSIONS
    missing = [k for k in (META_PROTOCOL_VERSION, META_CLIENT_CAPABILITIES) if k not in meta]
    if missing and modern:
        return _error(
            legacy,
            modern,
            INVALID_PARAMS,
            "Invalid params: params._meta is missing required key(s): " + ", ".join(missing),
        )
    if not isinstance(stamped, str):
        return _error(
            legacy,
            modern,
            INVALID_PARAMS,
            f"Invalid params: {META_PROTOCOL_VERSION} must be a string",
        )
    capabilities = meta.get(META_CLIENT_CAPABILITIES, {})
    if not isinstance(capabilities, dict):
        return _error(
            legacy,
            modern,
            INVALID_PARAMS,
            f"Invalid params: {META_CLIENT_CAPABILITIES} must be an object",
        )
    if stamped in MODERN_VERSIONS or stamped in LEGACY_VERSIONS:
        return Message("request", id_, method, params, modern, stamped)
    return _error(
        legacy,
        True,
        UNSUPPORTED_PROTOCOL_VERSION,
        "Unsupported protocol version",
        {"supported": list(SUPPORTED_VERSIONS), "requested": stamped},
    )


def _error(
    base: Message, modern: bool, code: int, text: str, data: object | None = None
) -> Message:
    return Message(
        "request",
        base.id,
        base.method,
        base.params,
        modern,
        base.version,
        ProtocolError(code, text, data),
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
        return self.respond(classify(msg, session), session)

    def respond(self, message: Message, session: Session) -> dict | None:
        """The response to a classified message (None for notifications and responses)."""
        if message.kind in ("notification", "response"):
            return None
        if message.error is not None:
            return {"jsonrpc": "2.0", "id": message.id, "error": message.error.to_error()}
        assert message.method is not None
        try:
            result = self._dispatch(message, session)
        except ProtocolError as exc:
            return {"jsonrpc": "2.0", "id": message.id, "error": exc.to_error()}
        except BundleError as exc:  # a file that failed its (background) check: never served
            log.error("%s", exc)
            return error_response(message.id, INTERNAL_ERROR, f"The bundle is damaged: {exc}")
        except Exception as exc:  # never let an application bug kill the connection
            log.error("internal error in %s: %s: %s", message.method, type(exc).__name__, exc)
            log.debug("traceback of the internal error", exc_info=True)
            return error_response(message.id, INTERNAL_ERROR, "Internal error")
        return {"jsonrpc": "2.0", "id": message.id, "result": result}

    def _dispatch(self, message: Message, session: Session) -> dict:
        method = message.method
        assert method is not None
        handler = (_MODERN_METHODS if message.modern else _LEGACY_METHODS).get(method)
        if handler is None:
            raise ProtocolError(METHOD_NOT_FOUND, f"Method not found: {method}")
        result = handler(self.app, message.params, message, session)
        if not isinstance(result, dict):
            raise TypeError(f"{method} handler returned {type(result).__name__}, not a dict")
        return _finish_modern(self.app, result) if message.modern else result
