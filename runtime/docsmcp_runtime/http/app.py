"""MCP Streamable HTTP transport: a dependency-free ASGI application, stateless by design.

`POST /mcp` takes one JSON-RPC message and answers `application/json` (requests) or
`202 Accepted` with no body (notifications and responses). Nothing is kept between requests:
no `Mcp-Session-Id` is ever issued, the legacy `initialize` is answered without creating state
and every request gets a fresh `Session`, so any replica can answer any request.

Both protocol eras are served; `protocol.classify` decides which one a message belongs to, for
this transport and for stdio alike:

* 2026-07-28 ("modern"): requests carry their version in `params._meta`. The
  `MCP-Protocol-Version`, `Mcp-Method` and (for `tools/call`, `resources/read` and
  `prompts/get`) `Mcp-Name` headers are required and must match the body, else 400 with
  JSON-RPC error -32020 (HeaderMismatch). JSON-RPC errors map to HTTP statuses as the spec
  and the official SDK do: -32601 → 404, -32700/-32600/-32602/-32020/-32022 → 400, -32603 →
  500.
* 2025-11-25 and older ("legacy"): `MCP-Protocol-Version` is optional (absent means
  2025-03-26); an unknown value → 400 with -32022. JSON-RPC errors are answered 200 (as
  legacy servers do), except malformed messages (400) and internal errors (500).

Transport-level rejections: 404 unknown path, 405 `GET`/`DELETE`/... on /mcp (`Allow: POST`),
406 an `Accept` header without `application/json`, 415 a body that is not `application/json`,
413 a body over the limit, 408 a body that did not arrive within the body timeout, 400 (-32700)
malformed JSON, 401 a missing or wrong bearer token, 403 a disallowed `Origin` or `Host`
(security.py). Their bodies are JSON-RPC errors without an id, so MCP clients show the reason;
only the unknown-path 404 is plain text, because a JSON-RPC body on a 404 tells clients "a
modern server that lacks this method" rather than "wrong URL".

Searches are CPU work: each request is parsed and answered on a bounded thread pool so the
event loop keeps accepting and concurrent requests run in parallel (numpy releases the GIL for
the heavy parts; the bundle's shared text cache is lock-protected).

Slow and excess clients are bounded below the app, in uvicorn's HTTP protocol
(`guard.guarded_protocol`): a deadline for the request head, a cap on its size and a cap on open
connections. `serve` (server.py) always uses it; plain uvicorn gets it with
`--http docsmcp_runtime.http.guard:GuardedH11Protocol` (guard.py).
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Awaitable, Callable
from typing import Any

from .. import logs
from ..bundle.reader import Bundle
from ..errors import INTERNAL_ERROR, INVALID_REQUEST, BundleError
from . import guard
from .defaults import HEALTH_PATH, LIMIT_ENVS, MCP_PATH
from .playground import (
    ABOUT_PATH,
    EXPLAIN_PATH,
    PLAYGROUND_PATH,
    about_reply,
    explain_reply,
    page_reply,
)
from .post import answer_post
from .replies import Headers, Reply, first, plain, rpc_error
from .security import TransportSecurity
from .settings import SERVER_HEADER, HttpSettings, settings_from_env
from .watch import BundleWatcher, Served, load, signature

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


class McpHttpApp:
    """The ASGI application. Holds the served bundle, the thread pool and the optional watcher."""

    def __init__(self, settings: HttpSettings) -> None:
        self.settings = settings
        self.security = TransportSecurity(settings)
        self.worker: int | None = None  # the process id of a --workers process, for the logs
        seen = signature(settings.bundle) if settings.watch else None
        # With --watch, open the resolved directory: PATH may be swapped while we read it.
        self._served = load(seen.real if seen else settings.bundle, settings)
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

    @property
    def bundle_id(self) -> str:
        return self._served.bundle_id

    def _install(self, served: Served) -> None:
        self._served = served  # one reference assignment: atomic for concurrent readers

    def bundles(self) -> tuple[Bundle, ...]:
        return self._served.bundles

    def ready(self) -> None:
        """Wait for the background check of the served bundles' large files (integrity.py);
        BundleError naming a file that failed."""
        for bundle in self._served.bundles:
            bundle.ready()

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
            reply = rpc_error(500, INTERNAL_ERROR, "Internal error")
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
            **({"worker": self.worker} if self.worker else {}),
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
        out.extend(self.security.cors_headers(first(headers, "origin")))
        await send({"type": "http.response.start", "status": reply.status, "headers": out})
        body = b"" if scope.get("method") == "HEAD" else reply.body
        await send({"type": "http.response.body", "body": body})

    # -- routing and transport checks ---------------------------------------------------------

    async def _route(
        self, scope: Scope, receive: Receive, headers: Headers, served: Served
    ) -> Reply:
        path = scope.get("path", "")
        method = scope.get("method", "")
        forbidden = self.security.check_host(headers) or self.security.check_origin(headers)
        if forbidden is not None:
            return forbidden
        if path == HEALTH_PATH:
            if method in ("GET", "HEAD"):
                status, body = served.health_reply()
                return Reply(status, body, "application/json")
            return plain(405, "Method Not Allowed\n", (("Allow", "GET, HEAD"),))
        if self.settings.playground and path in (PLAYGROUND_PATH, EXPLAIN_PATH, ABOUT_PATH):
            return await self._playground(path, method, receive, headers, served)
        if path != MCP_PATH:
            return plain(404, f"Not Found: the MCP endpoint is {MCP_PATH}\n")
        if method == "OPTIONS":
            return self.security.preflight(headers)
        unauthorized = self.security.check_auth(headers)
        if unauthorized is not None:
            return unauthorized
        if method != "POST":
            # 2026-07-28 removed the GET stream and sessions (so DELETE); 2025-11-25 allows a
            # server without them to say 405.
            return rpc_error(
                405,
                INVALID_REQUEST,
                f"Method Not Allowed: {method} is not supported; send JSON-RPC messages with POST",
                headers=(("Allow", self.security.allowed_methods()),),
            )
        if not _accepts_json(first(headers, "accept")):
            return rpc_error(
                406, INVALID_REQUEST, "Not Acceptable: the client must accept application/json"
            )
        kind, params = _media_type(first(headers, "content-type") or "")
        if kind != "application/json" or params.get("charset", "utf-8") not in ("utf-8", "utf8"):
            return rpc_error(
                415,
                INVALID_REQUEST,
                "Unsupported Media Type: the body must be application/json (UTF-8)",
            )
        body = await self._body(receive, headers)
        if isinstance(body, Reply):
            return body
        import asyncio  # already loaded by any ASGI server; see __init__ for why it is here

        loop = asyncio.get_running_loop()
        reply = await loop.run_in_executor(self._executor, answer_post, served, body, headers)
        reply.log["bytes_in"] = len(body)
        return reply

    async def _playground(
        self, path: str, method: str, receive: Receive, headers: Headers, served: Served
    ) -> Reply:
        if path == PLAYGROUND_PATH:
            if method in ("GET", "HEAD"):
                return page_reply()
            return plain(405, "Method Not Allowed\n", (("Allow", "GET, HEAD"),))
        unauthorized = self.security.check_auth(headers)
        if unauthorized is not None:
            return unauthorized
        import asyncio  # already loaded by any ASGI server; see __init__ for why it is here

        app = served.dispatcher.app
        loop = asyncio.get_running_loop()
        if path == ABOUT_PATH:
            if method in ("GET", "HEAD"):
                return await loop.run_in_executor(self._executor, about_reply, app)
            return plain(405, "Method Not Allowed\n", (("Allow", "GET, HEAD"),))
        if method != "POST":
            return plain(405, "Method Not Allowed\n", (("Allow", "POST"),))
        body = await self._body(receive, headers)
        if isinstance(body, Reply):
            return body
        return await loop.run_in_executor(self._executor, explain_reply, app, body)

    async def _body(self, receive: Receive, headers: Headers) -> bytes | Reply:
        """The request body, bounded in size and time; the error reply otherwise."""
        import asyncio

        limit = self.settings.max_body_bytes
        length = first(headers, "content-length")
        try:
            if length is not None and int(length) > limit:
                raise _BodyTooLarge
            # A deadline for the whole body, so trickling bytes cannot hold the request open.
            body = await asyncio.wait_for(
                self._read_body(receive, limit), self.settings.body_timeout
            )
        except asyncio.TimeoutError:
            seconds = self.settings.body_timeout
            return rpc_error(
                408,
                INVALID_REQUEST,
                f"Request Timeout: the body did not arrive within {seconds:g} s",
                headers=(("Connection", "close"),),
            )
        except _BodyTooLarge:
            return rpc_error(
                413,
                INVALID_REQUEST,
                f"Payload Too Large: the limit is {limit} bytes",
                # The rest of the body is not read, so this connection cannot be reused.
                headers=(("Connection", "close"),),
            )
        except ValueError:
            return rpc_error(400, INVALID_REQUEST, "Invalid Content-Length")
        return body

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


# ---------------------------------------------------------------------------------------------
# ASGI factory (environment); the uvicorn runner is server.py's
# ---------------------------------------------------------------------------------------------


def create_app() -> McpHttpApp:
    """ASGI app factory for `uvicorn --factory docsmcp_runtime.http:create_app` and friends."""
    settings = settings_from_env()
    try:
        app = McpHttpApp(settings)
    except BundleError as exc:
        # SystemExit with a message: ASGI servers print it and stop, without a traceback.
        raise SystemExit(f"docsmcp-runtime: error: {exc}") from None
    logs.event(logging.INFO, "app_created", bundle=settings.bundle, bundle_id=app.bundle_id)
    unused = [name for name in LIMIT_ENVS if os.environ.get(name, "").strip()]
    if unused and "GuardedH11Protocol" not in vars(guard):
        # The server loads its protocol before the app: the guard would exist by now.
        logs.event(
            logging.WARNING,
            "connection_limits_unused",
            message=f"{', '.join(unused)} apply only with uvicorn's "
            "--http docsmcp_runtime.http.guard:GuardedH11Protocol (or docsmcp-runtime itself)",
        )
    return app
