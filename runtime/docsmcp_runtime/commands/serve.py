"""`--transport http`: the HTTP server's settings from the arguments, then uvicorn (extra
`[http]`).
"""

from __future__ import annotations

import argparse
import os

from .. import logs
from ..distribution.specs import is_remote
from ..errors import BundleError
from .options import _search_options, _tool_selection
from .parser import _fail


def _serve_http(args: argparse.Namespace) -> int:
    try:
        import uvicorn  # noqa: F401 - only checking that the extra is installed
    except ImportError:
        return _fail(
            "--transport http needs uvicorn; install it with: pip install 'docsmcp-runtime[http]'"
        )
    from ..http import app as http_app
    from ..http import defaults
    from ..http import server as http_server
    from ..http import settings as http

    try:
        search = _search_options(args)
        selection = _tool_selection(args)
    except ValueError as exc:
        return _fail(str(exc))
    if args.watch and any(is_remote(b) for b in args.bundle):
        return _fail("--watch follows a bundle path; an https:// bundle changes only by URL or pin")
    host = args.host or defaults.DEFAULT_HOST
    port = defaults.DEFAULT_PORT if args.port is None else args.port
    token = (
        args.auth_token if args.auth_token is not None else os.environ.get(defaults.ENV_AUTH_TOKEN)
    )
    if token is not None and not token.strip():
        return _fail(f"the auth token (--auth-token or ${defaults.ENV_AUTH_TOKEN}) is empty")
    settings = http.HttpSettings(
        bundle=args.bundle[0],
        more_bundles=tuple(args.bundle[1:]),
        verify=not args.no_verify,
        auth_token=token,
        allow_origins=tuple(args.allow_origin or ()),
        allow_hosts=tuple(args.allow_host or ()),
        cors_origins=tuple(args.cors_origin or ()),
        loopback=http.is_loopback(host),
        max_body_bytes=args.max_body_bytes or defaults.DEFAULT_MAX_BODY_BYTES,
        body_timeout=args.body_timeout or defaults.DEFAULT_BODY_TIMEOUT,
        threads=args.threads or defaults.DEFAULT_THREADS,
        watch=bool(args.watch),
        watch_interval=args.watch_interval or defaults.DEFAULT_WATCH_INTERVAL,
        search=search,
        tools=selection,
        health_commit=bool(args.health_commit),
        playground=bool(args.playground),
        fetch=args.fetch,
    )
    timeout = (
        defaults.DEFAULT_SHUTDOWN_TIMEOUT
        if args.shutdown_timeout is None
        else args.shutdown_timeout
    )
    # Start-up failures stay plain one-line errors; once serving, every line is JSON.
    logs.configure(args.log_level or "info")
    try:
        app = http_app.McpHttpApp(settings)
    except BundleError as exc:
        return _fail(str(exc))
    try:
        sock = http_server.bind(host, port)
    except OSError as exc:
        app.close()
        return _fail(f"cannot listen on {host}:{port}: {exc.strerror or exc}")
    if not settings.loopback and not token:
        logs.event(
            logs.WARNING,
            "no_auth",
            message=f"listening on {host} without --auth-token: anyone who can "
            "reach the port can query the documentation",
        )
    limits = http.ConnectionLimits(
        header_timeout=args.header_timeout or defaults.DEFAULT_HEADER_TIMEOUT,
        max_connections=args.max_connections or defaults.DEFAULT_MAX_CONNECTIONS,
        max_header_bytes=args.max_header_bytes or defaults.DEFAULT_MAX_HEADER_BYTES,
    )
    if (args.workers or 1) > 1:
        try:
            return http_server.serve_workers(app, sock, timeout, limits, args.workers)
        except BundleError as exc:
            sock.close()
            app.close()
            return _fail(str(exc))
    return http_server.serve(app, sock, timeout, limits)
