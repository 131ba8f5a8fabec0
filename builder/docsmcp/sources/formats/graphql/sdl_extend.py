"""The line packages/graphql_extend.py appends to a schema page: the extensions other files
make of the page's types (their SDL, merged into the types' sections), and the types this
page extends whose home is another page (each shown as a line naming the home).

The page converts alone, so the tree-wide pass hands it what it needs in one marker line.
"""

from __future__ import annotations

import json
import logging

log = logging.getLogger("docsmcp.sources.formats.graphql.sdl_extend")

MARKER = "\n#@docsmcp-graphql-extend "  # (a comment to GraphQL: the page without it still parses)


def encode(moved: list[list[object]], homes: dict[str, str]) -> str:
    return MARKER + json.dumps({"ext": moved, "home": homes}, ensure_ascii=False, sort_keys=True)


def split(text: str) -> tuple[str, list[tuple[str, str]], dict[str, str]]:
    """`text` without the pass's line; the extensions (extending page, SDL) and homes it names."""
    head, found, line = text.rpartition(MARKER)
    if not found:
        return text, [], {}
    try:
        data = json.loads(line)
        ext = [(str(p), str(t)) for p, t in data.get("ext", [])]
        homes = {str(k): str(v) for k, v in data.get("home", {}).items()}
        return head, ext, homes
    except (ValueError, AttributeError, TypeError):
        log.debug("a broken extension line is ignored")
        return head, [], {}
