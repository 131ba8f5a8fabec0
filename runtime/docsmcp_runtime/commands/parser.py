"""The command line's arguments: the `docsmcp-runtime` parser with its subcommands and HTTP
options, and the one-line error every command prints.
"""

from __future__ import annotations

import argparse
import os
import sys
import textwrap

from .. import __version__, logs
from ..distribution import specs
from ..format import FUSION_LISTS
from ..search.options import DEFAULT_TIME_BUDGET, EXPAND_ENV, MAX_TOKENS_ENV, TIME_BUDGET_ENV
from ..tools.registry import TOOL_NAMES, TOOL_PREFIX_ENV, TOOLS_ENV, VERSION_TOOLS
from .argparsing import OneLineParser, RawDescriptionHelpFormatter

PROG = "docsmcp-runtime"
# The MCP clients `docsmcp-runtime config` writes for (clientconfig.py).
CLIENTS = ("claude-code", "claude-desktop", "cursor", "vscode")


BUNDLE_HELP = (
    "bundle directory, .tar.gz archive (docsmcp pack), OCI layout directory[:tag], "
    "https:// URL of an archive, or oci://REGISTRY/REPO[:TAG|@sha256:...] (pulled into the "
    "cache; docsmcp push)"
)


def _parser() -> argparse.ArgumentParser:
    p = OneLineParser(
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
        formatter_class=RawDescriptionHelpFormatter,
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
        f"order); default: ${specs.ENV_SHA256}, else the URL.sha256 sidecar",
    )
    p.add_argument(
        "--bundle-unverified",
        action="store_true",
        default=None,
        help="serve an https:// bundle that has neither a pin nor a sidecar, unchecked "
        f"(default: ${specs.ENV_UNVERIFIED} set to 1, else refused)",
    )
    p.add_argument(
        "--bundle-max-bytes",
        metavar="N",
        default=os.environ.get(specs.ENV_MAX_BYTES),
        help="largest https:// archive downloaded, else refused (default: "
        f"${specs.ENV_MAX_BYTES}, else {specs.DEFAULT_MAX_BYTES})",
    )
    p.add_argument(
        "--bundle-timeout",
        metavar="SECONDS",
        default=os.environ.get(specs.ENV_TIMEOUT),
        help="an https:// download waits this long for a connection or data, and takes at most "
        f"{specs.DEADLINE_FACTOR} times this in all (default: ${specs.ENV_TIMEOUT}, else "
        f"{specs.DEFAULT_TIMEOUT:g})",
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
    p.add_argument(
        "--no-rescore",
        action="store_true",
        help="leave out the bundle's rescoring model (docsmcp build --rescore-model): searches "
        "keep the first stage's order and the model's encoder is never loaded",
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
            formatter_class=RawDescriptionHelpFormatter,
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
        docsmcp-runtime --bundle ./idx get python/payments --full
        """,
    )
    g.add_argument("id", metavar="ID", help="a chunk id (path#heading) or a page path or title")
    g.add_argument(
        "--context", type=int, default=0, metavar="N", help="sections before and after (0-5)"
    )
    g.add_argument(
        "--full",
        action="store_true",
        help="print the whole page or section (default: one response budget, then a line saying "
        "how to see more)",
    )
    g.add_argument("--cursor", metavar="TOKEN", help="continue where a previous get stopped")
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
    from ..http.defaults import DEFAULT_PORT

    w.add_argument(  # (the same check as the HTTP option's: 99999 once bound a random port)
        "--port",
        type=_int_at_least(0, 65535),
        default=argparse.SUPPRESS,
        metavar="N",
        help=f"port (default: {DEFAULT_PORT})",
    )
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
        default=PROG,
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


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be > 0, got {text}")
    return value


def _http_options(p: argparse.ArgumentParser) -> None:
    from ..http import defaults as http

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
        help="also serve the playground page at /playground (and /playground/explain, /about), "
        "under the same Host, Origin and token checks as /mcp",
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
