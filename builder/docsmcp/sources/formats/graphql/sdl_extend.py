"""The line packages/graphql_extend.py appends to a schema page: the extensions other files
make of the page's types (their SDL, merged into the types' sections), and the types this
page extends whose home is another page (each shown as a line naming the home).

The page converts alone, so the tree-wide pass hands it what it needs in one marker line.
"""

from __future__ import annotations

from typing import Any

from docsmcp.sources.formats.source import pass_line

MARKER = "\n#@docsmcp-graphql-extend "  # (a comment to GraphQL: the page without it still parses)


def encode(moved: list[list[object]], homes: dict[str, str]) -> str:
    return pass_line.encode(MARKER, {"ext": moved, "home": homes})


def split(text: str) -> tuple[str, list[tuple[str, str]], dict[str, str]]:
    """`text` without the pass's line; the extensions (extending page, SDL) and homes it names."""
    head, (ext, homes) = pass_line.split(text, MARKER, _read, lambda: ([], {}))
    return head, ext, homes


def _read(data: Any) -> tuple[list[tuple[str, str]], dict[str, str]]:
    ext = [(str(p), str(t)) for p, t in data.get("ext", [])]
    return ext, {str(k): str(v) for k, v in data.get("home", {}).items()}
