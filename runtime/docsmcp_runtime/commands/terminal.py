"""The terminal commands over an opened bundle (or several): `search`, `get` and `toc`, which
call the same tools an MCP client calls and print their results.
"""

from __future__ import annotations

import argparse
import json
import re
import textwrap
from typing import TYPE_CHECKING

from ..search.budget import MAX_TOKENS
from .parser import _fail

if TYPE_CHECKING:
    from ..protocol.dispatcher import App


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
    _await_models(app)
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


# A one-shot search from a terminal waits for a bundle's rescoring model, which a server loads
# while it answers (search/rescore.py): a person typing a query wants the model's order.
MODEL_WAIT = 120.0


def _await_models(app: App) -> None:
    for docs in getattr(app, "apps", None) or [app]:
        rescorer = getattr(getattr(docs, "searcher", None), "rescorer", None)
        if rescorer is not None:
            rescorer.wait(MODEL_WAIT)


def _call(app: App, tool: str, arguments: dict) -> dict | None:
    """A tool's result, or None after printing its error (one line)."""
    result = app.call_tool(tool, arguments)
    if result["isError"]:
        _fail(result["content"][0]["text"])
        return None
    return result


def _get(app: App, args: argparse.Namespace, extra: list[str]) -> int:
    """A chunk by id (get_doc) or else a page by path or title (get_page): one response budget
    (the tools' default), then a line saying how to see the rest; all of it with --full."""
    library = {"library": args.library} if args.library else {}
    cursor = {"cursor": args.cursor} if args.cursor else {}
    whole = {"max_tokens": MAX_TOKENS} if args.full else {}
    if "#" in args.id or app.has_chunk(args.id):
        arguments = {"chunk_id": args.id, "context": args.context, **library, **cursor, **whole}
        result = _call(app, "get_doc", arguments)
        if result is None:
            return 1
        texts = [block["text"] for block in result["content"]]
        if args.json:
            print(json.dumps({"chunk_id": args.id, "text": texts[0], "notes": texts[1:]}))
            return 0
        print(texts[0])
        for note in texts[1:]:
            print(f"\nnote: {_cli_words(note)}")
        return 0
    result = _call(app, "get_page", {"path": args.id, **library, **cursor, **whole})
    if result is None:
        return 1
    page = result["structuredContent"]
    if args.json:
        print(json.dumps(page, indent=2, ensure_ascii=False))
        return 0
    how = "" if page["matched_by"] == "path" else f" (matched by {page['matched_by']})"
    print(f"=== {page['path']}: {page['title']}{how} ===\n")
    print(page["text"])
    following = page["next_cursor"]
    while following and args.full:  # (a page over MAX_TOKENS: the rest, part by part)
        more = _call(app, "get_page", {"path": page["path"], "cursor": following, **library})
        if more is None:
            return 1
        print("\n" + more["structuredContent"]["text"])
        following = more["structuredContent"]["next_cursor"]
    if following:
        shown = len(page["chunk_ids"])
        print(
            f"\n--- {shown} section{'s' if shown != 1 else ''} shown; the page goes on: add "
            f"--full for all of it, or --cursor {following} for the next part ---"
        )
    return 0


def _cli_words(note: str) -> str:
    """A tool's note about continuing, in this command's words (--cursor, not the call)."""
    return re.sub(
        r"call get_doc with the same arguments and cursor '([^']+)'",
        r"add --cursor \1 (or --full)",
        note,
    )


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
