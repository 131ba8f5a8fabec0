"""The parts of `tools/list` that several tools share: argument schemas (`limit`, `cursor`,
`max_tokens`, the taxonomy filters), output fragments (`source`, `notes`, a page entry), the
annotations, and `tool_definition`, which puts one tool's definition together."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..bundle.versions import VERSION_KEY
from ..search.budget import DEFAULT_MAX_TOKENS, MAX_TOKENS, MIN_TOKENS
from .arguments import DEFAULT_LIMIT, MAX_LIMIT

if TYPE_CHECKING:
    from ..format import TaxonomyKey

ANNOTATIONS = {
    "readOnlyHint": True,
    "destructiveHint": False,
    "idempotentHint": True,
    "openWorldHint": False,
}

LIMIT = {
    "type": "integer",
    "minimum": 1,
    "maximum": MAX_LIMIT,
    "default": DEFAULT_LIMIT,
    "description": f"Maximum number of results to return. Default is {DEFAULT_LIMIT}.",
}
CURSOR = {
    "type": "string",
    "description": "Opaque continuation token (next_cursor of the previous call with the same "
    "arguments). Omit for the first page.",
}
MAX_TOKENS_ARG = {
    "type": "integer",
    "minimum": MIN_TOKENS,
    "maximum": MAX_TOKENS,
    "description": "Response budget in tokens (estimated as characters / 4). What does not fit "
    "is left out and the result says so; continue with the cursor. Default: the server's "
    f"(--max-tokens), else {DEFAULT_MAX_TOKENS:,}.",
}

SOURCE = {
    "type": "object",
    "description": "Where the text comes from: the file and its line range (for a PDF also "
    "its page range); when the bundle knows them, the git commit, its date, the docs version "
    "and a link to cite.",
    "properties": {
        "file": {"type": "string"},
        "lines": {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2},
        "pages": {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2},
        "commit": {"type": "string"},
        "commit_date": {"type": "string"},
        "version": {"type": "string"},
        "url": {"type": "string"},
    },
    "required": ["file"],
}
NOTES = {
    "type": "array",
    "items": {"type": "string"},
    "description": "Present when an argument was adjusted: a clamped number, a cut query.",
}
STRING_MAP = {"type": "object", "additionalProperties": {"type": "string"}}
PAGE_ENTRY = {
    "type": "object",
    "properties": {
        "path": {"type": "string"},
        "title": {"type": "string"},
        "description": {"type": "string"},
        "folder": {"type": "string"},
        "pages": {"type": "integer"},
        "depth": {"type": "integer"},
        # A server of several bundles lists its libraries first (libraries/).
        "library": {"type": "string"},
        "chunks": {"type": "integer"},
        "versions": {"type": "array", "items": {"type": "string"}},
    },
}


def filter_properties(
    taxonomy: Mapping[str, TaxonomyKey], skip: tuple[str, ...] = ()
) -> dict[str, Any]:
    """A schema property per taxonomy key (but those in `skip`): its values as an enum; a
    `version` also takes `latest` and ranges, so its values are listed in the text."""
    out: dict[str, Any] = {}
    for key, info in taxonomy.items():
        if key in skip:
            continue
        if key == VERSION_KEY:  # also `latest` and ranges: no enum, the values in the text
            out[key] = {
                "type": "string",
                "description": f"{info.description} One of: {', '.join(info.values)}; or "
                "latest, or a range such as 1.x, >=1.2, ^1.2 (the newest match answers)."
                + (
                    f" Without it, search answers from {info.latest} (the latest release) and "
                    "the pages without a version."
                    if info.latest is not None
                    else ""
                ),
                "examples": list(info.values),
            }
        else:
            out[key] = {
                "type": "string",
                "description": info.description
                + (
                    f" Without it, every {key} is searched and each section shown once, as its "
                    f"{info.default} copy where there is one (the default), unless the query "
                    f"names a {key}."
                    if info.default is not None
                    else ""
                ),
                "enum": list(info.values),
            }
    return out


def tool_definition(
    name: str,
    title: str,
    description: str,
    arguments: dict[str, Any],
    required: list[str],
    output: dict | None,
    taxonomy: Mapping[str, TaxonomyKey] | None = None,
) -> dict[str, Any]:
    """One tool as `tools/list` shows it. With a `taxonomy`, the tool also takes the bundle's
    filters: every key except those spelled like one of its own `arguments`."""
    properties = arguments
    if taxonomy is not None:
        properties = {**arguments, **filter_properties(taxonomy, tuple(arguments))}
    out: dict[str, Any] = {
        "name": name,
        "title": title,
        "description": description,
        "inputSchema": {
            "type": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": False,
        },
    }
    if output is not None:
        out["outputSchema"] = output
    out["annotations"] = {"title": title, **ANNOTATIONS}
    return out
