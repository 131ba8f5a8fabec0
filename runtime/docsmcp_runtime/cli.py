"""Command line: `docsmcp-runtime --bundle DIR` serves MCP over stdio; `search` prints hits."""

from __future__ import annotations

import argparse
import json
import os
import sys
import textwrap

from . import __version__
from .bundle import open_bundle
from .errors import BundleError
from .tools import DocsApp

PROG = "docsmcp-runtime"


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=PROG,
        description="Serve a docsmcp bundle over MCP (stdio), or search it from the terminal.",
        epilog=textwrap.dedent(
            """\
            examples:
              docsmcp-runtime --bundle ./idx                      serve MCP over stdio
              docsmcp-runtime --bundle ./idx search "links upsert" --language python
            """
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--bundle", required=True, metavar="DIR", help="bundle directory to serve")
    p.add_argument(
        "--transport", choices=["stdio"], default="stdio", help="MCP transport (default: stdio)"
    )
    p.add_argument(
        "--no-verify",
        action="store_true",
        help="skip sha256 checks of bundle files at start-up (sizes are still checked)",
    )
    p.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = p.add_subparsers(dest="command")
    s = sub.add_parser(
        "search",
        help="search the bundle and print ranked hits",
        description="Search the bundle. Filter with --KEY VALUE for any taxonomy key "
        "(e.g. --language python) or --filter KEY=VALUE.",
    )
    s.add_argument("query")
    s.add_argument("--limit", type=int, default=10)
    s.add_argument("--cursor")
    s.add_argument("--filter", action="append", default=[], metavar="KEY=VALUE")
    s.add_argument("--json", action="store_true", help="print the raw search_docs JSON result")
    return p


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
    try:
        bundle = open_bundle(args.bundle, verify=not args.no_verify)
    except BundleError as exc:
        return _fail(str(exc))
    app = DocsApp(bundle)
    if args.command == "search":
        try:
            return _search(app, args, extra)
        except BrokenPipeError:
            # `... search q | head`: the reader left; say nothing more, even at exit.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 0
    from .stdio import serve

    return serve(app)


def _search(app: DocsApp, args: argparse.Namespace, extra: list[str]) -> int:
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
    if data["next_cursor"]:
        print(f"more: --cursor {data['next_cursor']}")
    return 0
