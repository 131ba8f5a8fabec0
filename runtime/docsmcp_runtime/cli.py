"""Command line: `docsmcp-runtime --bundle DIR` serves MCP over stdio (or HTTP with
`--transport http`); `search` prints hits."""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import os
import sys
import textwrap

from . import __version__, logs
from .distribution import remote
from .distribution.archive import is_remote
from .errors import BundleError
from .format import FUSION_LISTS
from .libraries.app import open_bundles, serving_app
from .protocol.dispatcher import App
from .search.engine import (
    DEFAULT_TIME_BUDGET,
    EXPAND_ENV,
    MAX_TOKENS_ENV,
    TIME_BUDGET_ENV,
    SearchOptions,
    parse_flag,
)
from .search.rerank import MAX_DEPTH as MAX_RERANK_DEPTH
from .search.rerank import RerankOptions
from .tools.registry import TOOL_NAMES, TOOL_PREFIX_ENV, TOOLS_ENV, VERSION_TOOLS, ToolSelection

PROG = "docsmcp-runtime"
BUNDLE_HELP = (
    "bundle directory, .tar.gz archive (docsmcp pack), OCI layout directory[:tag], "
    "https:// URL of an archive, or oci://REGISTRY/REPO[:TAG|@sha256:...] (pulled into the "
    "cache; docsmcp push)"
)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=PROG,
        description="Serve a docsmcp bundle over MCP (stdio or HTTP), or search it from the "
        "terminal.",
        epilog=textwrap.dedent(
            """\
            examples:
              docsmcp-runtime --bundle ./idx                      serve MCP over stdio
              docsmcp-runtime --bundle ./idx --transport http     serve http://127.0.0.1:20310/mcp
              docsmcp-runtime --bundle ./idx search "links upsert" --language python
            """
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--bundle",
        metavar="PATH",
        action="append",
        help=f"{BUNDLE_HELP}, or a directory of bundles; repeat it to serve several bundles "
        "as libraries (required)",
    )
    p.add_argument(
        "--transport",
        choices=["stdio", "http"],
        default="stdio",
        help="MCP transport (default: stdio); http needs docsmcp-runtime[http]",
    )
    p.add_argument(
        "--bundle-sha256",
        metavar="HEX",
        action="append",
        help="sha256 of the archive an https:// --bundle names (repeatable: one per URL, in "
        f"order); default: ${remote.ENV_SHA256}, else the URL.sha256 sidecar",
    )
    p.add_argument(
        "--bundle-unverified",
        action="store_true",
        default=None,
        help="serve an https:// bundle that has neither a pin nor a sidecar, unchecked "
        f"(default: ${remote.ENV_UNVERIFIED} set to 1, else refused)",
    )
    p.add_argument(
        "--bundle-max-bytes",
        metavar="N",
        default=os.environ.get(remote.ENV_MAX_BYTES),
        help="largest https:// archive downloaded, else refused (default: "
        f"${remote.ENV_MAX_BYTES}, else {remote.DEFAULT_MAX_BYTES})",
    )
    p.add_argument(
        "--bundle-timeout",
        metavar="SECONDS",
        default=os.environ.get(remote.ENV_TIMEOUT),
        help="an https:// download waits this long for a connection or data, and takes at most "
        f"{remote.DEADLINE_FACTOR} times this in all (default: ${remote.ENV_TIMEOUT}, else "
        f"{remote.DEFAULT_TIMEOUT:g})",
    )
    p.add_argument(
        "--no-verify",
        action="store_true",
        help="skip sha256 checks of bundle files at start-up (sizes are still checked)",
    )
    p.add_argument(
        "--fusion-weights",
        metavar="NAME=W,...",
        help="fuse hybrid results by Reciprocal Rank Fusion with these weights of the "
        f"{', '.join(FUSION_LISTS)} lists, e.g. vector=0.2 (others keep the bundle's values), "
        "instead of the default query-aware fusion of normalised scores",
    )
    p.add_argument(
        "--similarity-floor",
        metavar="COSINE",
        help="override the bundle's minimum similarity of vector-only hits (-1 to 1)",
    )
    p.add_argument(
        "--ivf-probe",
        metavar="N",
        help="lists an IVF bundle's vector search reads per query, instead of the bundle's "
        "(lists/16): more finds more of the exact nearest vectors, more slowly",
    )
    rr = p.add_argument_group("reranking (optional, off by default)")
    rr.add_argument(
        "--rerank-url",
        metavar="URL",
        help="OpenAI-compatible endpoint whose chat model reranks the top hits of each search, "
        "e.g. http://localhost:8080/v1; on a timeout or a bad reply the search order is kept "
        "and the result says so in a note",
    )
    rr.add_argument(
        "--rerank-model",
        default="gpt-4o-mini",
        metavar="NAME",
        help="chat model of --rerank-url (default: gpt-4o-mini)",
    )
    rr.add_argument(
        "--rerank-api-key-env",
        default="OPENAI_API_KEY",
        metavar="VAR",
        help="environment variable holding the endpoint's API key (default: OPENAI_API_KEY)",
    )
    rr.add_argument(
        "--rerank-depth",
        type=int,
        default=30,
        metavar="N",
        help="candidates sent to the model (1-50, default: 30)",
    )
    rr.add_argument(
        "--rerank-timeout",
        type=float,
        default=5.0,
        metavar="SECONDS",
        help="socket timeout of the rerank request (default: 5)",
    )
    p.add_argument(
        "--search-timeout",
        metavar="SECONDS",
        default=os.environ.get(TIME_BUDGET_ENV),
        help=f"time budget of one search; past it the search stops with a tool error, never "
        f"a partial result (default: ${TIME_BUDGET_ENV}, else {DEFAULT_TIME_BUDGET:g})",
    )
    p.add_argument(
        "--expand-references",
        action="store_true",
        default=None,
        help="search_docs also returns the sections its best hits refer to, unless a call says "
        f"otherwise (default: ${EXPAND_ENV} set to 1, else off)",
    )
    p.add_argument(
        "--max-tokens",
        metavar="N",
        default=os.environ.get(MAX_TOKENS_ENV),
        help="response budget of calls that name none (search_docs, get_doc, get_page), in "
        f"tokens estimated as characters / 4 (default: ${MAX_TOKENS_ENV}, else unbounded)",
    )
    p.add_argument(
        "--tools",
        metavar="LIST",
        default=os.environ.get(TOOLS_ENV),
        help=f"comma-separated tools to expose (default: ${TOOLS_ENV}, else all: "
        f"{', '.join(TOOL_NAMES)}; and {', '.join(VERSION_TOOLS)} when several versions of a "
        "library are served)",
    )
    p.add_argument(
        "--tool-prefix",
        metavar="PREFIX",
        default=os.environ.get(TOOL_PREFIX_ENV),
        help="put PREFIX before every tool name, so two docs servers can sit side by side in one "
        f"client (default: ${TOOL_PREFIX_ENV}, else none)",
    )
    p.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    _http_options(p)
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    def command(name: str, help_: str, description: str, examples: str) -> argparse.ArgumentParser:
        c = sub.add_parser(
            name,
            help=help_,
            description=description,
            epilog="examples:\n" + textwrap.indent(textwrap.dedent(examples).strip(), "  "),
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        # --bundle is accepted after the command too (`search "x" --bundle ./idx`).
        c.add_argument(
            "--bundle", metavar="PATH", action="append", default=argparse.SUPPRESS, help=BUNDLE_HELP
        )
        c.add_argument(
            "--bundle-sha256",
            metavar="HEX",
            action="append",
            default=argparse.SUPPRESS,
            help=argparse.SUPPRESS,
        )
        c.add_argument(
            "--library", metavar="NAME", help="with several bundles: the library to read (its name)"
        )
        c.add_argument("--json", action="store_true", help="print the tool's JSON result")
        return c

    s = command(
        "search",
        "search the bundle and print ranked hits",
        "Search the bundle and print the ranked hits: id, score, breadcrumb and snippet. Filter "
        "with --KEY VALUE for any taxonomy key (e.g. --language python) or --filter KEY=VALUE. "
        "Scores rank hits within one result list only: full-text scores are BM25 sums (often "
        "1-30), hybrid scores are rank-fusion sums (about 0.01-0.05); compare order, not values.",
        """
        docsmcp-runtime --bundle ./idx search "links upsert" --language python
        docsmcp-runtime search "retry" --bundle ./idx --limit 3 --show-cursor
        """,
    )
    s.add_argument("query", help="what to search for: identifiers or a few words")
    s.add_argument("--limit", type=int, default=10, metavar="N", help="hits per page (1-50)")
    s.add_argument("--cursor", help="continue a previous search: the cursor --show-cursor printed")
    s.add_argument(
        "--show-cursor",
        action="store_true",
        help="print the cursor of the next page (for --cursor) when there are more hits",
    )
    s.add_argument(
        "--filter",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="taxonomy filter (repeatable), same as --KEY VALUE",
    )
    g = command(
        "get",
        "print a section (chunk id) or a whole page (path)",
        "Print one section by its chunk id (as search prints it), with --context neighbouring "
        "sections, or a whole page by its path (extension optional) or title.",
        """
        docsmcp-runtime --bundle ./idx get "python/payments.md#payments/create"
        docsmcp-runtime --bundle ./idx get python/payments --json
        """,
    )
    g.add_argument("id", metavar="ID", help="a chunk id (path#heading) or a page path or title")
    g.add_argument(
        "--context", type=int, default=0, metavar="N", help="sections before and after (0-5)"
    )
    t = command(
        "toc",
        "print the table of contents (the page tree)",
        "Print the page tree with titles, under a folder or category when given; folders deeper "
        "than --depth are folded into one line with their page count.",
        """
        docsmcp-runtime --bundle ./idx toc
        docsmcp-runtime --bundle ./idx toc guides --depth 3
        """,
    )
    t.add_argument(
        "prefix", nargs="?", metavar="PREFIX", help="a folder path or name, or a filter value"
    )
    t.add_argument("--depth", type=int, default=2, metavar="N", help="folder levels (1-10)")
    w = command(
        "playground",
        "serve the playground page over HTTP on this machine",
        "Serve MCP over HTTP on 127.0.0.1 with the playground page at /playground: search with "
        "the filters, see why each hit ranks (the parts of its score), read hits with their "
        "neighbours, browse the page tree, and the exact MCP request and response of each action. "
        "Same as --transport http --playground; the HTTP options apply.",
        """
        docsmcp-runtime --bundle ./idx playground
        docsmcp-runtime --bundle ./idx --port 8080 playground
        """,
    )
    for action in w._actions:  # the readers' options mean nothing here
        if action.dest in ("json", "library"):
            action.help = argparse.SUPPRESS
    w.add_argument(
        "--port", type=int, default=argparse.SUPPRESS, metavar="N", help="port (default: 20310)"
    )
    from .commands.clientconfig import CLIENTS, RUNTIME_COMMAND

    k = command(
        "config",
        "print the snippet or command that adds this server to an MCP client",
        "Print the exact command (claude-code) or JSON (claude-desktop, cursor, vscode) that "
        "registers this bundle's server in an MCP client, with the bundle's absolute path; "
        "where it goes is printed on stderr. The bundle is not opened.",
        """
        docsmcp-runtime config --client claude-code --bundle ./idx
        docsmcp-runtime config --client vscode --bundle ./idx > .vscode/mcp.json
        docsmcp-runtime config --client cursor --bundle ./idx --transport http --url http://127.0.0.1:20310/mcp
        """,
    )
    next(
        a for a in k._actions if a.dest == "json"
    ).help = "print client, name, where it goes and the snippet as one JSON object"
    k.add_argument("--client", required=True, choices=CLIENTS, help="the MCP client")
    k.add_argument(
        "--name", metavar="NAME", help="server name (default: the bundle's name in metadata.json)"
    )
    k.add_argument(
        "--transport",
        choices=["stdio", "http"],
        default=argparse.SUPPRESS,
        help="stdio: the client starts docsmcp-runtime (default); http: it connects to --url",
    )
    k.add_argument("--url", metavar="URL", help="with --transport http: the server's /mcp URL")
    k.add_argument(
        "--command",
        dest="command_name",
        default=RUNTIME_COMMAND,
        metavar="CMD",
        help="the runtime command the client runs, e.g. an absolute path when the client's PATH "
        "lacks it",
    )
    return p


# Options of `--transport http`; their defaults live in http/settings.py and are applied in
# _serve_http (None here tells "not given" apart, so they can be refused with the stdio transport).
_HTTP_OPTIONS = (
    "host",
    "playground",
    "port",
    "allow_origin",
    "allow_host",
    "cors_origin",
    "auth_token",
    "max_body_bytes",
    "body_timeout",
    "header_timeout",
    "max_header_bytes",
    "max_connections",
    "threads",
    "workers",
    "log_level",
    "health_commit",
    "watch",
    "watch_interval",
    "shutdown_timeout",
)


def _int_at_least(low: int, high: int | None = None):  # noqa: ANN202 - argparse type factory
    def convert(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if value < low or (high is not None and value > high):
            bound = f"between {low} and {high}" if high is not None else f">= {low}"
            raise argparse.ArgumentTypeError(f"must be {bound}, got {value}")
        return value

    return convert


def _search_options(args: argparse.Namespace) -> SearchOptions:
    """The search options (search.CLI_NAMES): parsed here, so a mistake is one line (argparse's
    own errors print the usage too)."""
    expand = "1" if args.expand_references else os.environ.get(EXPAND_ENV)
    options = SearchOptions.parse(
        args.fusion_weights,
        args.similarity_floor,
        args.search_timeout,
        expand,
        args.max_tokens,
        args.ivf_probe,
    )
    if not getattr(args, "rerank_url", None):
        return options
    if not 1 <= args.rerank_depth <= MAX_RERANK_DEPTH:
        raise ValueError(f"--rerank-depth: must be between 1 and {MAX_RERANK_DEPTH}")
    if not args.rerank_timeout > 0:
        raise ValueError("--rerank-timeout: must be > 0")
    rerank = RerankOptions(
        args.rerank_url,
        args.rerank_model,
        args.rerank_api_key_env,
        args.rerank_depth,
        args.rerank_timeout,
    )
    return dataclasses.replace(options, rerank=rerank)


def _remote_bundles(args: argparse.Namespace) -> tuple[list[str], remote.FetchOptions]:
    """--bundle values with their --bundle-sha256 pins, and the download bounds; ValueError."""
    pins = args.bundle_sha256 or []
    env_pin = os.environ.get(remote.ENV_SHA256, "").strip()
    if not pins and env_pin and any(is_remote(b) for b in args.bundle):
        pins = [env_pin]
    unverified = args.bundle_unverified or parse_flag(os.environ.get(remote.ENV_UNVERIFIED, ""))
    fetch = remote.FetchOptions.parse(args.bundle_max_bytes, args.bundle_timeout, unverified)
    return remote.pin_specs(args.bundle, pins), fetch


def _tool_selection(args: argparse.Namespace) -> ToolSelection:
    """--tools and --tool-prefix; ValueError naming the bad one."""
    return ToolSelection.parse(args.tools, args.tool_prefix)


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be > 0, got {text}")
    return value


def _http_options(p: argparse.ArgumentParser) -> None:
    from .http import settings as http

    g = p.add_argument_group("HTTP transport (--transport http)")
    g.add_argument(
        "--host", help=f"address to bind (default: {http.DEFAULT_HOST}; 0.0.0.0 for all)"
    )
    g.add_argument(
        "--port",
        type=_int_at_least(0, 65535),
        help=f"port to bind (default: {http.DEFAULT_PORT}; 0 picks a free one, see the log)",
    )
    g.add_argument(
        "--allow-origin",
        action="append",
        metavar="ORIGIN",
        help="browser Origin allowed to call /mcp (repeatable); others get 403 "
        "(DNS-rebinding protection). Requests without Origin are always allowed; localhost "
        "origins are allowed when bound to loopback",
    )
    g.add_argument(
        "--allow-host",
        action="append",
        metavar="HOST",
        help="Host header value to accept besides localhost/127.0.0.1/[::1] (repeatable; "
        "without it, Host is only checked when bound to loopback)",
    )
    g.add_argument(
        "--cors-origin",
        action="append",
        metavar="ORIGIN",
        help="send CORS headers and answer preflights for this origin (repeatable; none by "
        "default, and '*' only if you pass it)",
    )
    g.add_argument(
        "--auth-token",
        metavar="TOKEN",
        help="require Authorization: Bearer TOKEN on /mcp, else 401 (default: "
        f"${http.ENV_AUTH_TOKEN}; prefer the variable, command lines are visible to other users)",
    )
    g.add_argument(
        "--max-body-bytes",
        type=_int_at_least(1),
        metavar="N",
        help=f"largest request body accepted, else 413 (default: {http.DEFAULT_MAX_BODY_BYTES})",
    )
    g.add_argument(
        "--body-timeout",
        type=_positive_float,
        metavar="SECONDS",
        help="a request body must arrive within this time after its headers, else 408 "
        f"(default: {http.DEFAULT_BODY_TIMEOUT:g})",
    )
    g.add_argument(
        "--header-timeout",
        type=_positive_float,
        metavar="SECONDS",
        help="a request's line and headers must arrive within this time of the connection "
        "opening (or of their first byte on a kept-alive connection), however slowly they "
        f"trickle in, else 408 and close (default: {http.DEFAULT_HEADER_TIMEOUT:g})",
    )
    g.add_argument(
        "--max-header-bytes",
        type=_int_at_least(1024),
        metavar="N",
        help="largest request line and headers accepted, else 431 and close "
        f"(default: {http.DEFAULT_MAX_HEADER_BYTES})",
    )
    g.add_argument(
        "--max-connections",
        type=_int_at_least(1),
        metavar="N",
        help="open connections served at once; a connection beyond them is answered 503 at "
        f"once and closed (default: {http.DEFAULT_MAX_CONNECTIONS})",
    )
    g.add_argument(
        "--threads",
        type=_int_at_least(1, 256),
        metavar="N",
        help=f"worker threads answering requests in parallel (default: {http.DEFAULT_THREADS})",
    )
    g.add_argument(
        "--workers",
        type=_int_at_least(1, 64),
        metavar="N",
        help="processes answering requests, sharing the port and the memory-mapped bundle "
        "(pre-forked; each has its own --threads); use up to one per core (default: 1)",
    )
    g.add_argument(
        "--log-level",
        choices=logs_levels(),
        help="JSON log lines on stderr at this level and above (default: info)",
    )
    g.add_argument(
        "--playground",
        action="store_const",
        const=True,
        help="also serve the playground page at /playground (and /playground/explain), under "
        "the same Host, Origin and token checks as /mcp",
    )
    g.add_argument(
        "--health-commit",
        action="store_const",
        const=True,
        help="name the docs' source commit in /healthz (default: off, so a public health check "
        f"does not reveal it; ${http.ENV_HEALTH_COMMIT}=1 under plain uvicorn)",
    )
    g.add_argument(
        "--watch",
        action="store_const",
        const=True,
        help="serve a new bundle when --bundle is atomically replaced (symlink swap or rename), "
        "between requests; cursors of the old bundle then ask to search again",
    )
    g.add_argument(
        "--watch-interval",
        type=_positive_float,
        metavar="SECONDS",
        help=f"how often --watch checks the bundle path (default: {http.DEFAULT_WATCH_INTERVAL})",
    )
    g.add_argument(
        "--shutdown-timeout",
        type=_int_at_least(0),
        metavar="SECONDS",
        help="on SIGTERM/SIGINT, how long requests in flight may take to finish "
        f"(default: {http.DEFAULT_SHUTDOWN_TIMEOUT})",
    )


def logs_levels() -> tuple[str, ...]:
    return logs.LEVELS


def _fail(message: str) -> int:
    print(f"{PROG}: error: {message}", file=sys.stderr)
    return 2


def _lean_arrow_allocator() -> None:
    """Use the system allocator for Arrow unless the user chose one.

    Arrow's default (mimalloc) keeps ~45 MB of arenas after reading the chunk table; the
    server's reads are small and few, so the system allocator's footprint is what we want.
    """
    if "ARROW_DEFAULT_MEMORY_POOL" not in os.environ:
        import pyarrow

        pyarrow.set_memory_pool(pyarrow.system_memory_pool())


def main(argv: list[str] | None = None) -> int:
    _lean_arrow_allocator()
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


def _serve_http(args: argparse.Namespace) -> int:
    try:
        import uvicorn  # noqa: F401 - only checking that the extra is installed
    except ImportError:
        return _fail(
            "--transport http needs uvicorn; install it with: pip install 'docsmcp-runtime[http]'"
        )
    from .http import app as http_app
    from .http import settings as http

    try:
        search = _search_options(args)
        selection = _tool_selection(args)
    except ValueError as exc:
        return _fail(str(exc))
    if args.watch and any(is_remote(b) for b in args.bundle):
        return _fail("--watch follows a bundle path; an https:// bundle changes only by URL or pin")
    host = args.host or http.DEFAULT_HOST
    port = http.DEFAULT_PORT if args.port is None else args.port
    token = args.auth_token if args.auth_token is not None else os.environ.get(http.ENV_AUTH_TOKEN)
    if token is not None and not token.strip():
        return _fail(f"the auth token (--auth-token or ${http.ENV_AUTH_TOKEN}) is empty")
    settings = http.HttpSettings(
        bundle=args.bundle[0],
        more_bundles=tuple(args.bundle[1:]),
        verify=not args.no_verify,
        auth_token=token,
        allow_origins=tuple(args.allow_origin or ()),
        allow_hosts=tuple(args.allow_host or ()),
        cors_origins=tuple(args.cors_origin or ()),
        loopback=http.is_loopback(host),
        max_body_bytes=args.max_body_bytes or http.DEFAULT_MAX_BODY_BYTES,
        body_timeout=args.body_timeout or http.DEFAULT_BODY_TIMEOUT,
        threads=args.threads or http.DEFAULT_THREADS,
        watch=bool(args.watch),
        watch_interval=args.watch_interval or http.DEFAULT_WATCH_INTERVAL,
        search=search,
        tools=selection,
        health_commit=bool(args.health_commit),
        playground=bool(args.playground),
        fetch=args.fetch,
    )
    timeout = (
        http.DEFAULT_SHUTDOWN_TIMEOUT if args.shutdown_timeout is None else args.shutdown_timeout
    )
    # Start-up failures stay plain one-line errors; once serving, every line is JSON.
    logs.configure(args.log_level or "info")
    try:
        app = http_app.McpHttpApp(settings)
    except BundleError as exc:
        return _fail(str(exc))
    try:
        sock = http_app.bind(host, port)
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
        header_timeout=args.header_timeout or http.DEFAULT_HEADER_TIMEOUT,
        max_connections=args.max_connections or http.DEFAULT_MAX_CONNECTIONS,
        max_header_bytes=args.max_header_bytes or http.DEFAULT_MAX_HEADER_BYTES,
    )
    if (args.workers or 1) > 1:
        try:
            return http_app.serve_workers(app, sock, timeout, limits, args.workers)
        except BundleError as exc:
            sock.close()
            app.close()
            return _fail(str(exc))
    return http_app.serve(app, sock, timeout, limits)


def _search(app: App, args: argparse.Namespace, extra: list[str]) -> int:
    filters: dict[str, str] = {}
    for item in args.filter:
        key, sep, value = item.partition("=")
        if not sep:
            return _fail(f"--filter expects KEY=VALUE, got {item!r}")
        filters[key] = value
    it = iter(extra)
    for flag in it:
        if not flag.startswith("--"):
            return _fail(f"unexpected argument {flag!r}")
        key, sep, value = flag[2:].partition("=")
        if not sep:
            value = next(it, None)
            if value is None:
                return _fail(f"{flag} expects a value")
        if key not in app.taxonomy:
            known = ", ".join(f"--{k}" for k in app.taxonomy) or "none in this bundle"
            return _fail(f"unknown option {flag} (filters: {known})")
        filters[key] = value
    arguments: dict = {"query": args.query, "limit": args.limit, **filters}
    if args.library:
        arguments["library"] = args.library
    if args.cursor:
        arguments["cursor"] = args.cursor
    result = app.call_tool("search_docs", arguments)
    if result["isError"]:
        return _fail(result["content"][0]["text"])
    data = result["structuredContent"]
    if args.json:
        print(json.dumps(data, indent=2, ensure_ascii=False))
        return 0
    if not data["hits"]:
        print(data["hint"]["message"])
        for key, values in data["hint"]["suggested_filters"].items():
            print(f"  try --{key} {' | '.join(values)}")
        return 0
    for n, hit in enumerate(data["hits"], start=1):
        meta = " ".join(f"{k}={v}" for k, v in hit["metadata"].items())
        print(f"{n:>2}. {hit['chunk_id']}  (score {hit['score']:.3f}{', ' + meta if meta else ''})")
        print(f"    {hit['breadcrumb']}")
        print(textwrap.indent(textwrap.fill(hit["snippet"], 96), "    "))
        print()
    for note in data.get("notes", ()):
        print(f"note: {note}")
    if data["next_cursor"]:
        if args.show_cursor:
            print(f"more: --cursor {data['next_cursor']}")
        else:
            print("more hits: raise --limit, or add --show-cursor for the next page")
    return 0


def _call(app: App, tool: str, arguments: dict) -> dict | None:
    """A tool's result, or None after printing its error (one line)."""
    result = app.call_tool(tool, arguments)
    if result["isError"]:
        _fail(result["content"][0]["text"])
        return None
    return result


def _get(app: App, args: argparse.Namespace, extra: list[str]) -> int:
    """A chunk by id (get_doc) or else a page by path or title (get_page)."""
    library = {"library": args.library} if args.library else {}
    if "#" in args.id or app.has_chunk(args.id):
        result = _call(app, "get_doc", {"chunk_id": args.id, "context": args.context, **library})
        if result is None:
            return 1
        texts = [block["text"] for block in result["content"]]
        if args.json:
            print(json.dumps({"chunk_id": args.id, "text": texts[0], "notes": texts[1:]}))
        else:
            print("\n\n".join(texts))
        return 0
    result = _call(app, "get_page", {"path": args.id, **library})
    if result is None:
        return 1
    page = result["structuredContent"]
    if args.json:
        print(json.dumps(page, indent=2, ensure_ascii=False))
        return 0
    how = "" if page["matched_by"] == "path" else f" (matched by {page['matched_by']})"
    print(f"=== {page['path']}: {page['title']}{how} ===\n")
    print(page["text"])
    cursor = page["next_cursor"]
    while cursor:  # a terminal reader wants the whole page
        more = _call(app, "get_page", {"path": page["path"], "cursor": cursor, **library})
        if more is None:
            return 1
        print("\n" + more["structuredContent"]["text"])
        cursor = more["structuredContent"]["next_cursor"]
    return 0


def _toc(app: App, args: argparse.Namespace, extra: list[str]) -> int:
    """The page tree of list_sections, every page of it, as an indented outline."""
    arguments: dict = {"depth": args.depth, "limit": 500}
    if args.library:
        arguments["library"] = args.library
    if args.prefix:
        arguments["category"] = args.prefix
    entries: list[dict] = []
    first: dict | None = None
    while True:
        result = _call(app, "list_sections", arguments)
        if result is None:
            return 1
        data = result["structuredContent"]
        if data.get("matched_by") == "libraries":  # several bundles, no --library: name them
            for lib in data["entries"]:
                print(f"{lib['library']}: {lib['description']}  ({lib['pages']} pages)")
            print("note: add --library NAME to see one library's pages")
            return 0
        first = first or data
        entries.extend(data["entries"])
        if not data["next_cursor"]:
            break
        arguments["cursor"] = data["next_cursor"]
    assert first is not None
    if args.json:
        print(json.dumps({**first, "entries": entries, "next_cursor": None}, indent=2))
        return 0
    root = first["root"]
    print(f"{root or '(all pages)'}  {len(entries)} entries")
    for entry in entries:
        indent = "  " * (entry["depth"] + 1)
        if "folder" in entry:
            print(f"{indent}{entry['folder'][len(root) :]}  ({entry['pages']} pages)")
        else:
            print(f"{indent}{entry['path'][len(root) :]}: {entry['title']}")
    for note in first.get("notes", ()):
        print(f"note: {note}")
    return 0
