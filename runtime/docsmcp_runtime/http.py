"""MCP Streamable HTTP transport: a dependency-free ASGI application, stateless by design.

`POST /mcp` takes one JSON-RPC message and answers `application/json` (requests) or
`202 Accepted` with no body (notifications and responses). Nothing is kept between requests:
no `Mcp-Session-Id` is ever issued, the legacy `initialize` is answered without creating state
and every request gets a fresh `Session`, so any replica can answer any request.

Both protocol eras are served (see protocol.py):

* 2026-07-28 ("modern"): requests carry their version in `params._meta`. The
  `MCP-Protocol-Version`, `Mcp-Method` and (for `tools/call`) `Mcp-Name` headers are required
  and must match the body, else 400 with JSON-RPC error -32020 (HeaderMismatch). JSON-RPC
  errors map to HTTP statuses as the spec and the official SDK do: -32601 → 404,
  -32700/-32600/-32602/-32020/-32022 → 400, -32603 → 500.
* 2025-11-25 and older ("legacy"): `MCP-Protocol-Version` is optional (absent means
  2025-03-26); an unknown value → 400 with -32022. JSON-RPC errors are answered 200 (as
  legacy servers do), except malformed messages (400) and internal errors (500).

Transport-level rejections: 404 unknown path, 405 `GET`/`DELETE`/... on /mcp (`Allow: POST`),
406 an `Accept` header without `application/json`, 415 a body that is not `application/json`,
413 a body over the limit, 400 (-32700) malformed JSON, 401 a missing or wrong bearer token,
403 a disallowed `Origin` or `Host`. Their bodies are JSON-RPC errors without an id, so MCP
clients show the reason; only the unknown-path 404 is plain text, because a JSON-RPC body on a
404 tells clients "a modern server that lacks this method" rather than "wrong URL".

Security defaults (for a server on a developer machine):

* No `Origin` header (curl, SDK clients, agents) is allowed. A browser `Origin` must be in
  `allow_origins` or `cors_origins`; when bound to loopback, `http(s)://localhost`,
  `127.0.0.1` and `[::1]` origins (any port) are also allowed. Anything else → 403, which is
  what defeats DNS rebinding: a rebound page still sends its own origin.
* Bound to loopback, the `Host` header must name a loopback host (or an `allow_hosts` entry),
  a second line of defence against DNS rebinding. Bound elsewhere, `Host` is only checked
  when `allow_hosts` is given.
* With an auth token, /mcp requires `Authorization: Bearer <token>`; /healthz stays open so
  load balancers can probe it.
* No CORS headers unless `cors_origins` is given; `*` only if passed explicitly.

Searches are CPU work: each request is parsed and answered on a bounded thread pool so the
event loop keeps accepting and concurrent requests run in parallel (numpy releases the GIL for
the heavy parts; the bundle's shared text cache is lock-protected).

`create_app()` builds the app from environment variables for any ASGI server:
`DOCSMCP_BUNDLE=./idx uvicorn --factory docsmcp_runtime.http:create_app`.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import ipaddress
import json
import logging
import os
import signal
import socket
import threading
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from . import __version__, logs
from .archive import resolve_bundle
from .bundle import METADATA_FILE, Bundle, open_bundle
from .errors import (
    HEADER_MISMATCH,
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    UNSUPPORTED_PROTOCOL_VERSION,
    BundleError,
)
from .protocol import (
    LEGACY_VERSIONS,
    META_PROTOCOL_VERSION,
    MODERN_VERSIONS,
    SUPPORTED_VERSIONS,
    Dispatcher,
    Session,
    encode,
    error_response,
    parse,
)
from .search import SearchOptions, parse_fusion_weights
from .tools import DocsApp

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 20310
DEFAULT_MAX_BODY_BYTES = 1 << 20
DEFAULT_THREADS = 8
DEFAULT_WATCH_INTERVAL = 1.0
DEFAULT_SHUTDOWN_TIMEOUT = 10
MCP_PATH = "/mcp"
HEALTH_PATH = "/healthz"

ENV_BUNDLE = "DOCSMCP_BUNDLE"
ENV_AUTH_TOKEN = "DOCSMCP_AUTH_TOKEN"
ENV_ALLOW_ORIGINS = "DOCSMCP_ALLOW_ORIGINS"
ENV_ALLOW_HOSTS = "DOCSMCP_ALLOW_HOSTS"
ENV_CORS_ORIGINS = "DOCSMCP_CORS_ORIGINS"
ENV_MAX_BODY_BYTES = "DOCSMCP_MAX_BODY_BYTES"
ENV_THREADS = "DOCSMCP_THREADS"
ENV_WATCH = "DOCSMCP_WATCH"
ENV_NO_VERIFY = "DOCSMCP_NO_VERIFY"
ENV_LOG_LEVEL = "DOCSMCP_LOG_LEVEL"

SERVER_HEADER = f"docsmcp-runtime/{__version__}"
WWW_AUTHENTICATE = 'Bearer realm="docsmcp"'
LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})
# What a CORS preflight may ask to send; the MCP routing headers plus auth.
CORS_ALLOW_HEADERS = (
    "Authorization, Content-Type, Accept, MCP-Protocol-Version, Mcp-Method, Mcp-Name"
)
KNOWN_VERSIONS = frozenset(LEGACY_VERSIONS) | frozenset(MODERN_VERSIONS)
ROUTING_HEADERS = ("mcp-protocol-version", "mcp-method", "mcp-name")

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

Headers = Mapping[str, list[str]]  # lower-case name → every value sent under it


# ---------------------------------------------------------------------------------------------
# Settings and the served bundle
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class HttpSettings:
    """Everything the ASGI app needs; the CLI and `create_app` fill it from flags or env."""

    bundle: str
    verify: bool = True
    auth_token: str | None = None
    allow_origins: tuple[str, ...] = ()
    allow_hosts: tuple[str, ...] = ()
    cors_origins: tuple[str, ...] = ()
    # Bound to a loopback address: localhost origins are trusted and `Host` is checked.
    loopback: bool = False
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    threads: int = DEFAULT_THREADS
    watch: bool = False
    watch_interval: float = DEFAULT_WATCH_INTERVAL
    search: SearchOptions = SearchOptions()


@dataclass(frozen=True)
class Served:
    """One opened bundle and what answering from it needs. Replaced whole by --watch."""

    dispatcher: Dispatcher
    bundle_id: str
    health: bytes  # the /healthz body, encoded once


def load(path: str, verify: bool, search: SearchOptions) -> Served:
    """Open a bundle (directory, archive or OCI layout) for serving; raises BundleError."""
    bundle = open_bundle(resolve_bundle(path), verify=verify)
    return Served(Dispatcher(DocsApp(bundle, search)), bundle.bundle_id, _health_body(bundle))


def _health_body(bundle: Bundle) -> bytes:
    meta = bundle.metadata
    source = meta.get("source")
    doc = {
        "status": "ok",
        "bundle_id": bundle.bundle_id,
        "format_version": meta.get("format_version"),
        "name": meta.get("name"),
        "build": meta.get("build"),
        "source_commit": source.get("commit") if isinstance(source, dict) else None,
        "chunks": bundle.n_chunks,
        "runtime": __version__,
    }
    return json.dumps(doc, ensure_ascii=False).encode()


def is_loopback(host: str) -> bool:
    """Whether a bind address only accepts connections from this machine."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


# ---------------------------------------------------------------------------------------------
# Watching the bundle path for an atomic replacement
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Signature:
    """What changes when PATH is replaced: its resolved target and its metadata file's identity."""

    real: str
    ids: tuple[int, ...]


def _signature(path: str) -> _Signature | None:
    real = os.path.realpath(path)
    try:
        d = os.stat(real)
        m = os.stat(os.path.join(real, METADATA_FILE))
    except OSError:
        return None  # mid-swap or gone; the next poll decides
    return _Signature(real, (d.st_dev, d.st_ino, m.st_ino, m.st_mtime_ns, m.st_size))


class BundleWatcher:
    """Polls the bundle path and installs a new bundle once it has been opened completely.

    Requests in flight keep the `Served` they started with (their mmaps stay valid even if
    the old directory is deleted), so a swap never drops or mixes a request. A bundle that
    fails to open is logged and skipped; the old one keeps serving until PATH changes again.
    """

    def __init__(
        self,
        settings: HttpSettings,
        seen: _Signature | None,
        current: Callable[[], Served],
        install: Callable[[Served], None],
    ) -> None:
        self._settings = settings
        self._seen = seen
        self._current = current
        self._install = install
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._start_lock = threading.Lock()

    def start(self) -> None:
        with self._start_lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="docsmcp-watch", daemon=True)
                self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def _run(self) -> None:
        while not self._stop.wait(self._settings.watch_interval):
            try:
                self.check()
            except Exception as exc:  # the watcher must outlive any surprise
                logs.event(logging.ERROR, "watch_error", error=f"{type(exc).__name__}: {exc}")

    def check(self) -> None:
        sig = _signature(self._settings.bundle)
        if sig is None or sig == self._seen:
            return
        self._seen = sig
        old = self._current()
        try:
            new = load(sig.real, self._settings.verify, self._settings.search)
        except BundleError as exc:
            logs.event(
                logging.ERROR,
                "bundle_reload_failed",
                path=sig.real,
                error=str(exc),
                bundle_id=old.bundle_id,
            )
            return
        if new.bundle_id == old.bundle_id:
            return  # same content under a new inode (e.g. a rebuild): nothing to do
        self._install(new)
        logs.event(
            logging.INFO,
            "bundle_reloaded",
            path=sig.real,
            old_bundle_id=old.bundle_id,
            bundle_id=new.bundle_id,
        )


# ---------------------------------------------------------------------------------------------
# Replies
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Reply:
    status: int
    body: bytes = b""
    content_type: str | None = None
    headers: tuple[tuple[str, str], ...] = ()
    # Facts for the request log line (rpc_method, tool, protocol_version, rpc_error...).
    log: dict[str, Any] = field(default_factory=dict)


def _rpc_reply(status: int, message: dict, log: dict[str, Any] | None = None, **kw: Any) -> Reply:
    log = dict(log or {})
    error = message.get("error")
    if isinstance(error, dict):
        log["rpc_error"] = error.get("code")
    return Reply(status, encode(message), "application/json", log=log, **kw)


def _rpc_error(
    status: int,
    code: int,
    message: str,
    id_: object = None,
    data: object | None = None,
    log: dict[str, Any] | None = None,
    headers: tuple[tuple[str, str], ...] = (),
) -> Reply:
    return _rpc_reply(status, error_response(id_, code, message, data), log, headers=headers)


def _unsupported_version(id_: object, requested: str, log: dict[str, Any]) -> Reply:
    return _rpc_error(
        400,
        UNSUPPORTED_PROTOCOL_VERSION,
        "Unsupported protocol version",
        id_,
        {"supported": list(SUPPORTED_VERSIONS), "requested": requested},
        log,
    )


def _plain(status: int, text: str, headers: tuple[tuple[str, str], ...] = ()) -> Reply:
    return Reply(status, text.encode(), "text/plain; charset=utf-8", headers)


# ---------------------------------------------------------------------------------------------
# POST /mcp: one JSON-RPC message (runs on the thread pool)
# ---------------------------------------------------------------------------------------------


def _id_or_none(msg: dict) -> object:
    id_ = msg.get("id")
    valid = isinstance(id_, str) or (isinstance(id_, int) and not isinstance(id_, bool))
    return id_ if valid else None


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
    name = params.get("name")
    if method == "tools/call" and isinstance(name, str):
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
        return _rpc_error(400, PARSE_ERROR, "Parse error")
    if not isinstance(msg, dict):
        # A batch or a bare value: the dispatcher words the -32600 error.
        return _rpc_reply(400, served.dispatcher.handle_message(msg) or {})

    method = msg.get("method")
    log: dict[str, Any] = {"rpc_method": method if isinstance(method, str) else None}
    params = msg.get("params") if isinstance(msg.get("params"), dict) else {}
    if method == "tools/call" and isinstance(params.get("name"), str):
        log["tool"] = params["name"]
    id_ = _id_or_none(msg)
    if id_ is not None and len(str(id_)) <= 100:
        log["rpc_id"] = id_  # lets a client's request be found in the logs
    for name in ROUTING_HEADERS:
        if len(headers.get(name, ())) > 1:
            # First-copy and last-copy readers along the way would disagree.
            return _rpc_error(
                400, HEADER_MISMATCH, f"Header mismatch: {name} header appears more than once", id_
            )
    version_header = headers.get("mcp-protocol-version", [None])[0]
    if version_header is not None:
        log["protocol_version"] = version_header

    if "id" not in msg or ("method" not in msg and ("result" in msg or "error" in msg)):
        # A notification, or a response to a request we never send: accept, answer nothing.
        if "method" not in msg and "result" not in msg and "error" not in msg:
            return _rpc_error(
                400, INVALID_REQUEST, "Invalid Request: not a JSON-RPC request or notification"
            )
        if version_header is not None and version_header not in KNOWN_VERSIONS:
            return _unsupported_version(None, version_header, log)
        return Reply(202, log=log)

    meta = params.get("_meta")
    enveloped = isinstance(meta, dict) and META_PROTOCOL_VERSION in meta
    if method == "initialize" and enveloped and meta[META_PROTOCOL_VERSION] not in MODERN_VERSIONS:
        enveloped = False  # a legacy handshake that happens to carry _meta
    session: Session | None = None
    if enveloped:
        body_version = meta[META_PROTOCOL_VERSION]
        log["protocol_version"] = body_version
        # Header checks come before the version check, as in the spec's validation ladder:
        # a client that disagrees with itself is told so.
        if version_header is None:
            problem: str | None = "Header mismatch: required header MCP-Protocol-Version is missing"
        elif version_header != body_version:
            problem = (
                f"Header mismatch: MCP-Protocol-Version header value {version_header!r} does not "
                f"match body value {body_version!r}"
            )
        else:
            problem = _routing_mismatch(headers, str(method), params, required=True)
        if problem:
            return _rpc_error(400, HEADER_MISMATCH, problem, id_, log=log)
    elif isinstance(method, str):
        session = Session()  # fresh per request: nothing outlives it
        if version_header in MODERN_VERSIONS:
            # A 2026-07-28 request whose body lacks the required _meta envelope: invalid
            # params (SEP-2575), the same answer protocol.py gives on stdio.
            return _rpc_error(
                400,
                INVALID_PARAMS,
                f"Invalid params: params._meta is missing required key {META_PROTOCOL_VERSION} "
                f"(sent with MCP-Protocol-Version {version_header!r})",
                id_,
                log=log,
            )
        if method != "initialize" and version_header is not None:
            if version_header not in KNOWN_VERSIONS:
                return _unsupported_version(id_, version_header, log)
            session.protocol_version = version_header  # the version the client negotiated
        problem = _routing_mismatch(headers, method, params, required=False)
        if problem:
            return _rpc_error(400, HEADER_MISMATCH, problem, id_, log=log)

    response = served.dispatcher.handle_message(msg, session)
    if response is None:  # cannot happen for a message with an id; be safe anyway
        return Reply(202, log=log)
    error = response.get("error")
    status = 200
    if isinstance(error, dict):
        status = (MODERN_STATUS if enveloped else LEGACY_STATUS).get(error.get("code"), 200)
    return _rpc_reply(status, response, log)


# ---------------------------------------------------------------------------------------------
# The ASGI application
# ---------------------------------------------------------------------------------------------

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]


class _BodyTooLarge(Exception):
    pass


class _Disconnected(Exception):
    pass


def _header_map(scope: Scope) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for raw_name, raw_value in scope.get("headers", ()):
        out.setdefault(raw_name.decode("latin-1").lower(), []).append(raw_value.decode("latin-1"))
    return out


def _first(headers: Headers, name: str) -> str | None:
    values = headers.get(name)
    return values[0] if values else None


def _media_type(value: str) -> tuple[str, dict[str, str]]:
    kind, *params = value.split(";")
    parsed = {}
    for p in params:
        key, _, val = p.partition("=")
        parsed[key.strip().lower()] = val.strip().strip('"').lower()
    return kind.strip().lower(), parsed


def _accepts_json(accept: str | None) -> bool:
    if accept is None or not accept.strip():
        return True  # no preference stated
    for item in accept.split(","):
        kind, params = _media_type(item)
        if kind in ("application/json", "application/*", "*/*") and params.get("q") not in (
            "0",
            "0.0",
            "0.00",
            "0.000",
        ):
            return True
    return False


def _normalize_origin(origin: str) -> str:
    return origin.strip().lower().rstrip("/")


def _host_name(host: str) -> str:
    """`example.com:8080` → `example.com`; `[::1]:8080` → `::1`."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host
    name, sep, port = host.rpartition(":")
    return name if sep and port.isdigit() else host


class McpHttpApp:
    """The ASGI application. Holds the served bundle, the thread pool and the optional watcher."""

    def __init__(self, settings: HttpSettings) -> None:
        self.settings = settings
        seen = _signature(settings.bundle) if settings.watch else None
        # With --watch, open the resolved directory: PATH may be swapped while we read it.
        self._served = load(
            seen.real if seen else settings.bundle, settings.verify, settings.search
        )
        # Imported here, not at module level, so `docsmcp-runtime --help` and the stdio
        # transport (which import this module for its defaults) stay quick to start.
        from concurrent.futures import ThreadPoolExecutor

        self._executor = ThreadPoolExecutor(
            max_workers=settings.threads, thread_name_prefix="docsmcp-http"
        )
        self._watcher = (
            BundleWatcher(settings, seen, lambda: self._served, self._install)
            if settings.watch
            else None
        )
        self._origins = frozenset(
            _normalize_origin(o) for o in settings.allow_origins + settings.cors_origins
        )
        self._cors = frozenset(_normalize_origin(o) for o in settings.cors_origins)
        hosts = {h.strip().lower() for h in settings.allow_hosts if h.strip()}
        if settings.loopback:
            hosts |= LOOPBACK_HOSTS
        # None: no Host check (bound to a public interface without an explicit list).
        self._hosts: frozenset[str] | None = frozenset(hosts) if hosts else None
        self._token_digest = (
            hashlib.sha256(settings.auth_token.encode()).digest() if settings.auth_token else None
        )

    @property
    def bundle_id(self) -> str:
        return self._served.bundle_id

    def _install(self, served: Served) -> None:
        self._served = served  # one reference assignment: atomic for concurrent readers

    def start(self) -> None:
        """Start background work (the watcher); idempotent, also triggered by the first request."""
        if self._watcher is not None:
            self._watcher.start()

    def close(self) -> None:
        if self._watcher is not None:
            self._watcher.stop()
        self._executor.shutdown(wait=False, cancel_futures=True)

    # -- ASGI entry point ---------------------------------------------------------------------

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope.get("type")
        if kind == "lifespan":
            await self._lifespan(receive, send)
            return
        if kind != "http":  # websockets: not part of MCP
            await receive()
            await send({"type": "websocket.close", "code": 1003})
            return
        self.start()
        started = time.perf_counter()
        served = self._served  # the whole request is answered from one bundle
        headers = _header_map(scope)
        try:
            reply = await self._route(scope, receive, headers, served)
        except _Disconnected:
            logs.event(
                logging.DEBUG,
                "client_disconnected",
                method=scope.get("method"),
                path=scope.get("path"),
            )
            return
        except Exception as exc:  # a bug must cost one request, never the server
            logs.event(
                logging.ERROR,
                "internal_error",
                error=f"{type(exc).__name__}: {exc}",
                path=scope.get("path"),
            )
            reply = _rpc_error(500, INTERNAL_ERROR, "Internal error")
        await self._send(scope, send, headers, reply, served)
        client = scope.get("client")
        logs.event(
            logging.ERROR if reply.status >= 500 else logging.INFO,
            "request",
            method=scope.get("method"),
            path=scope.get("path"),
            status=reply.status,
            duration_ms=round((time.perf_counter() - started) * 1000, 2),
            client=client[0] if client else None,
            bundle_id=served.bundle_id,
            bytes_out=len(reply.body),
            **reply.log,
        )

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                self.start()
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                self.close()
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def _send(
        self, scope: Scope, send: Send, headers: Headers, reply: Reply, served: Served
    ) -> None:
        out = [
            (b"server", SERVER_HEADER.encode()),
            (b"x-docsmcp-bundle", served.bundle_id.encode()),
            (b"cache-control", b"no-store"),
        ]
        if reply.content_type:
            out.append((b"content-type", reply.content_type.encode()))
        if reply.status not in (204, 304):
            out.append((b"content-length", str(len(reply.body)).encode()))
        out.extend((k.lower().encode(), v.encode("latin-1")) for k, v in reply.headers)
        out.extend(self._cors_headers(_first(headers, "origin")))
        await send({"type": "http.response.start", "status": reply.status, "headers": out})
        body = b"" if scope.get("method") == "HEAD" else reply.body
        await send({"type": "http.response.body", "body": body})

    # -- routing and transport checks ---------------------------------------------------------

    async def _route(
        self, scope: Scope, receive: Receive, headers: Headers, served: Served
    ) -> Reply:
        path = scope.get("path", "")
        method = scope.get("method", "")
        forbidden = self._check_host(headers) or self._check_origin(headers)
        if forbidden is not None:
            return forbidden
        if path == HEALTH_PATH:
            if method in ("GET", "HEAD"):
                return Reply(200, served.health, "application/json")
            return _plain(405, "Method Not Allowed\n", (("Allow", "GET, HEAD"),))
        if path != MCP_PATH:
            return _plain(404, f"Not Found: the MCP endpoint is {MCP_PATH}\n")
        if method == "OPTIONS":
            return self._preflight(headers)
        unauthorized = self._check_auth(headers)
        if unauthorized is not None:
            return unauthorized
        if method != "POST":
            # 2026-07-28 removed the GET stream and sessions (so DELETE); 2025-11-25 allows a
            # server without them to say 405.
            return _rpc_error(
                405,
                INVALID_REQUEST,
                f"Method Not Allowed: {method} is not supported; send JSON-RPC messages with POST",
                headers=(("Allow", "POST, OPTIONS" if self._cors else "POST"),),
            )
        if not _accepts_json(_first(headers, "accept")):
            return _rpc_error(
                406, INVALID_REQUEST, "Not Acceptable: the client must accept application/json"
            )
        kind, params = _media_type(_first(headers, "content-type") or "")
        if kind != "application/json" or params.get("charset", "utf-8") not in ("utf-8", "utf8"):
            return _rpc_error(
                415,
                INVALID_REQUEST,
                "Unsupported Media Type: the body must be application/json (UTF-8)",
            )
        limit = self.settings.max_body_bytes
        length = _first(headers, "content-length")
        try:
            if length is not None and int(length) > limit:
                raise _BodyTooLarge
            body = await self._read_body(receive, limit)
        except _BodyTooLarge:
            return _rpc_error(
                413,
                INVALID_REQUEST,
                f"Payload Too Large: the limit is {limit} bytes",
                # The rest of the body is not read, so this connection cannot be reused.
                headers=(("Connection", "close"),),
            )
        except ValueError:
            return _rpc_error(400, INVALID_REQUEST, "Invalid Content-Length")
        import asyncio  # already loaded by any ASGI server; see __init__ for why it is here

        loop = asyncio.get_running_loop()
        reply = await loop.run_in_executor(self._executor, answer_post, served, body, headers)
        reply.log["bytes_in"] = len(body)
        return reply

    async def _read_body(self, receive: Receive, limit: int) -> bytes:
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                raise _Disconnected
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                raise _BodyTooLarge
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)

    def _check_host(self, headers: Headers) -> Reply | None:
        if self._hosts is None:
            return None
        host = (_first(headers, "host") or "").strip().lower()
        if host in self._hosts or _host_name(host) in self._hosts:
            return None
        return _rpc_error(403, INVALID_REQUEST, f"Forbidden: Host {host!r} is not allowed")

    def _origin_allowed(self, origin: str) -> bool:
        normalized = _normalize_origin(origin)
        if "*" in self._origins or normalized in self._origins:
            return True
        if self.settings.loopback:
            parts = urlsplit(normalized)
            return parts.scheme in ("http", "https") and parts.hostname in LOOPBACK_HOSTS
        return False

    def _check_origin(self, headers: Headers) -> Reply | None:
        origin = _first(headers, "origin")
        if origin is None or self._origin_allowed(origin):
            return None  # no Origin: not a browser, nothing to rebind
        return _rpc_error(403, INVALID_REQUEST, f"Forbidden: Origin {origin!r} is not allowed")

    def _check_auth(self, headers: Headers) -> Reply | None:
        if self._token_digest is None:
            return None
        scheme, _, credentials = (_first(headers, "authorization") or "").strip().partition(" ")
        if scheme.lower() != "bearer" or not credentials.strip():
            return _rpc_error(
                401,
                INVALID_REQUEST,
                "Unauthorized: send Authorization: Bearer <token>",
                headers=(("WWW-Authenticate", WWW_AUTHENTICATE),),
            )
        # Digests have equal length, so the comparison leaks neither content nor length.
        digest = hashlib.sha256(credentials.strip().encode("utf-8", "surrogateescape")).digest()
        if hmac.compare_digest(digest, self._token_digest):
            return None
        return _rpc_error(
            401,
            INVALID_REQUEST,
            "Unauthorized: invalid bearer token",
            headers=(("WWW-Authenticate", WWW_AUTHENTICATE + ', error="invalid_token"'),),
        )

    def _cors_match(self, origin: str | None) -> str | None:
        """The Access-Control-Allow-Origin value for this request, or None for no CORS."""
        if origin is None or not self._cors:
            return None
        if _normalize_origin(origin) in self._cors:
            return origin.strip()
        return "*" if "*" in self._cors else None

    def _cors_headers(self, origin: str | None) -> list[tuple[bytes, bytes]]:
        allowed = self._cors_match(origin)
        if allowed is None:
            return []
        out = [
            (b"access-control-allow-origin", allowed.encode("latin-1")),
            (b"access-control-expose-headers", b"X-Docsmcp-Bundle"),
        ]
        if allowed != "*":
            out.append((b"vary", b"Origin"))
        return out

    def _preflight(self, headers: Headers) -> Reply:
        if self._cors_match(_first(headers, "origin")) is None:
            allow = "POST, OPTIONS" if self._cors else "POST"
            return _plain(405, "Method Not Allowed\n", (("Allow", allow),))
        return Reply(
            204,
            headers=(
                ("Access-Control-Allow-Methods", "POST, OPTIONS"),
                ("Access-Control-Allow-Headers", CORS_ALLOW_HEADERS),
                ("Access-Control-Max-Age", "600"),
            ),
        )


# ---------------------------------------------------------------------------------------------
# ASGI factory (environment) and the uvicorn runner (CLI)
# ---------------------------------------------------------------------------------------------


def _env_list(name: str) -> tuple[str, ...]:
    return tuple(v.strip() for v in os.environ.get(name, "").split(",") if v.strip())


def _env_int(name: str, default: int, low: int) -> int:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        value = low - 1
    if value < low:
        raise SystemExit(f"docsmcp-runtime: error: {name} must be an integer >= {low}, got {raw!r}")
    return value


def _env_flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")


def settings_from_env() -> HttpSettings:
    """HttpSettings from DOCSMCP_* variables; exits with a one-line message when they are bad.

    The host's bind address is unknown here, so nothing is trusted implicitly: no localhost
    origins, and `Host` is checked only when DOCSMCP_ALLOW_HOSTS is set.
    """
    bundle = os.environ.get(ENV_BUNDLE, "").strip()
    if not bundle:
        raise SystemExit(f"docsmcp-runtime: error: set {ENV_BUNDLE} to the bundle directory")
    level = os.environ.get(ENV_LOG_LEVEL, "info").strip().lower() or "info"
    if level not in logs.LEVELS:
        raise SystemExit(
            f"docsmcp-runtime: error: {ENV_LOG_LEVEL} must be one of {', '.join(logs.LEVELS)}"
        )
    logs.configure_if_unset(level)
    return HttpSettings(
        bundle=bundle,
        verify=not _env_flag(ENV_NO_VERIFY),
        auth_token=os.environ.get(ENV_AUTH_TOKEN) or None,
        allow_origins=_env_list(ENV_ALLOW_ORIGINS),
        allow_hosts=_env_list(ENV_ALLOW_HOSTS),
        cors_origins=_env_list(ENV_CORS_ORIGINS),
        max_body_bytes=_env_int(ENV_MAX_BODY_BYTES, DEFAULT_MAX_BODY_BYTES, 1),
        threads=_env_int(ENV_THREADS, DEFAULT_THREADS, 1),
        watch=_env_flag(ENV_WATCH),
        search=_env_search_options(),
    )


def _env_search_options() -> SearchOptions:
    floor = os.environ.get("DOCSMCP_SIMILARITY_FLOOR", "").strip()
    try:
        weights = parse_fusion_weights(os.environ.get("DOCSMCP_FUSION_WEIGHTS"))
        return SearchOptions(tuple(sorted(weights.items())), float(floor) if floor else None)
    except ValueError as exc:
        raise SystemExit(f"docsmcp-runtime: error: DOCSMCP_FUSION_WEIGHTS / FLOOR: {exc}") from None


def create_app() -> McpHttpApp:
    """ASGI app factory for `uvicorn --factory docsmcp_runtime.http:create_app` and friends."""
    settings = settings_from_env()
    try:
        app = McpHttpApp(settings)
    except BundleError as exc:
        # SystemExit with a message: ASGI servers print it and stop, without a traceback.
        raise SystemExit(f"docsmcp-runtime: error: {exc}") from None
    logs.event(logging.INFO, "app_created", bundle=settings.bundle, bundle_id=app.bundle_id)
    return app


def bind(host: str, port: int) -> socket.socket:
    """A listening socket, so the real port is known (and logged) before serving starts."""
    info = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    family, kind, proto, _, address = info[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        # Listening now means clients that connect before uvicorn's loop runs wait in the
        # backlog instead of being refused.
        sock.listen(2048)
    except OSError:
        sock.close()
        raise
    return sock


def serve(app: McpHttpApp, sock: socket.socket, shutdown_timeout: int) -> int:
    """Run uvicorn on `sock` until SIGTERM/SIGINT; requests in flight finish first.

    Logging must already be set up (`logs.configure`); uvicorn is told to leave it alone.
    """
    import uvicorn  # the `http` extra; the CLI checked it is installed

    config = uvicorn.Config(
        app,
        log_config=None,  # keep logs.configure's JSON handlers for uvicorn's loggers too
        access_log=False,  # our `request` events replace it
        server_header=False,  # we send our own Server header
        lifespan="on",
        timeout_graceful_shutdown=shutdown_timeout,
    )
    server = uvicorn.Server(config)
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    logs.event(
        logging.INFO,
        "listening",
        host=host,
        port=port,
        url=f"http://{shown}:{port}{MCP_PATH}",
        bundle_id=app.bundle_id,
        pid=os.getpid(),
        version=__version__,
    )
    # uvicorn re-raises the stopping signal once it has shut down gracefully; with the default
    # handlers that would kill the process (SIGTERM) or raise KeyboardInterrupt (SIGINT). These
    # handlers absorb it, so a graceful stop exits 0.
    received: list[int] = []
    stops = (signal.SIGTERM, signal.SIGINT)
    previous = {sig: signal.signal(sig, lambda s, _f: received.append(s)) for sig in stops}
    try:
        server.run(sockets=[sock])
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        sock.close()
        app.close()
    logs.event(
        logging.INFO,
        "stopped",
        signal=signal.Signals(received[0]).name if received else None,
    )
    return 0 if server.started else 1
