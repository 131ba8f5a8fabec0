"""Command line: `docsmcp-runtime --bundle DIR` serves MCP over stdio (or HTTP with
`--transport http`); `search` prints hits. `main` dispatches; the arguments, the commands and
the HTTP server's start live in commands/."""

from __future__ import annotations

import logging
import os
import sys

from . import (
    blas,  # noqa: F401 - first: numpy reads its thread count on import
    logs,
)
from .commands.options import _remote_bundles, _search_options, _tool_selection
from .commands.parser import _HTTP_OPTIONS, PROG, _fail, _parser
from .commands.serve import _serve_http
from .commands.terminal import _get, _search, _toc
from .errors import BundleError
from .libraries.serving import open_bundles, serving_app


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args, extra = parser.parse_known_args(argv)
    if extra and args.command != "search":
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    if args.bundle is None:
        parser.error("the following arguments are required: --bundle")
    try:
        args.bundle, args.fetch = _remote_bundles(args)
    except ValueError as exc:
        return _fail(str(exc))
    if args.command == "config":
        from .commands.clientconfig import run as config_run

        return config_run(args)
    if args.command == "playground":
        args.transport, args.playground = "http", True
    if args.transport == "http" and args.command in (None, "playground"):
        return _serve_http(args)
    if args.command is None:
        for name in _HTTP_OPTIONS:
            if getattr(args, name) is not None:
                flag = "--" + name.replace("_", "-")
                parser.error(f"{flag} only applies to --transport http")
    logs.configure_text(PROG)
    try:
        options = _search_options(args)
        selection = _tool_selection(args)
    except ValueError as exc:
        return _fail(str(exc))
    try:
        bundles = open_bundles(args.bundle, verify=not args.no_verify, fetch=args.fetch)
        app = serving_app(bundles, options, selection)
    except BundleError as exc:
        return _fail(str(exc))
    if args.command is not None:
        reader = {"search": _search, "get": _get, "toc": _toc}[args.command]
        try:
            return reader(app, args, extra)
        except BrokenPipeError:
            # `... search q | head`: the reader left; say nothing more, even at exit.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 0
    from .protocol.stdio import serve

    tools = ", ".join(t["name"] for t in app.list_tools())
    for bundle in bundles:
        logging.getLogger(__name__).info(
            "serving %s (bundle %s, %d chunks) over stdio; tools: %s",
            bundle.metadata.name,
            bundle.bundle_id,
            bundle.n_chunks,
            tools,
        )
    return serve(app)
