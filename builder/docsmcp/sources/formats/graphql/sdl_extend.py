"""The line packages/graphql_extend.py appends to a schema page: the extensions other files
make of the page's types (their SDL, merged into the types' sections), the types this page
extends whose home is another page (each shown as a line naming the home), and the fields of
the input and payload types its operations name that other pages define (a schema of one file
per type: the operation's *Input fields* and *Return fields*).

The page converts alone, so the tree-wide pass hands it what it needs in one marker line.
"""

from __future__ import annotations

from typing import Any

from docsmcp.sources.formats.source import pass_line

MARKER = "\n#@docsmcp-graphql-extend "  # (a comment to GraphQL: the page without it still parses)


# Another page's type an operation names: (its kind, `input` or `type`; its field names).
Fields = dict[str, tuple[str, list[str]]]


def encode(moved: list[list[object]], homes: dict[str, str], fields: Fields | None = None) -> str:
    data: dict[str, object] = {"ext": moved, "home": homes}
    if fields:  # (written only when some type is another page's: earlier lines unchanged)
        data["fields"] = {k: [kind, names] for k, (kind, names) in fields.items()}
    return pass_line.encode(MARKER, data)


def split(text: str) -> tuple[str, list[tuple[str, str]], dict[str, str], Fields]:
    """`text` without the pass's line; the extensions (extending page, SDL), homes and other
    pages' types' fields it names."""
    head, (ext, homes, fields) = pass_line.split(text, MARKER, _read, lambda: ([], {}, {}))
    return head, ext, homes, fields


def _read(data: Any) -> tuple[list[tuple[str, str]], dict[str, str], Fields]:
    ext = [(str(p), str(t)) for p, t in data.get("ext", [])]
    homes = {str(k): str(v) for k, v in data.get("home", {}).items()}
    fields = {
        str(k): (str(kind), [str(n) for n in names])
        for k, (kind, names) in data.get("fields", {}).items()
    }
    return ext, homes, fields
