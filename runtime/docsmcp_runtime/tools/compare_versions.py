"""`compare_versions`: what changed between two versions of a library's documentation, sections
added, removed, changed (with a short diff excerpt) or moved, and pages added, removed or moved.
Listed only by a server of several bundles where a library has two versions or more
(libraries/).

That server (libraries.app.LibraryApp) is what `parse` and `run` read: its `versioned` (name →
the library of two named versions or more: its `name`, `named` versions, and `apps` with their
`versions`, oldest first) and `report(old, new)`, the comparison of two of its bundles
(bundle/changes.py, remembered per pair)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..bundle.versions import order_key
from ..bundle.versions import resolve as resolve_version
from ..records import record
from .arguments import ToolInputError, check_fields, int_arg, str_arg
from .context import DocsContext
from .results import json_result
from .schemas import NOTES, tool_definition

if TYPE_CHECKING:
    from ..bundle.changes import Report

NAME = "compare_versions"
TITLE = "Compare two versions of the docs"
LIBRARY = "library"
COMPARE_LIMIT = 20  # entries listed per kind by default
MAX_COMPARE_LIMIT = 500

OUTPUT = {
    "type": "object",
    "properties": {
        "library": {"type": "string"},
        "old_version": {"type": "string"},
        "new_version": {"type": "string"},
        "counts": {"type": "object", "additionalProperties": {"type": "integer"}},
        "page_counts": {"type": "object", "additionalProperties": {"type": "integer"}},
        "pages": {
            "type": "object",
            "description": "Pages added, removed and moved (at most `limit` of each).",
        },
        "entries": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "kind": {"type": "string", "enum": ["added", "removed", "changed", "moved"]},
                    "old_id": {"type": ["string", "null"]},
                    "new_id": {"type": ["string", "null"]},
                    "heading": {"type": "string"},
                    "excerpt": {"type": ["string", "null"]},
                },
                "required": ["kind"],
            },
        },
        "omitted": {"type": "object", "additionalProperties": {"type": "integer"}},
        "notes": NOTES,
    },
    "required": ["library", "old_version", "new_version", "counts", "entries"],
}


def definition(versions: Mapping[str, tuple[str, ...]]) -> dict:
    """compare_versions for the libraries that have several versions (name → versions)."""
    listed = "; ".join(f"{name}: {', '.join(v)}" for name, v in versions.items())
    description = (
        "What changed between two versions of a library's documentation: sections added, "
        "removed, changed (with a short diff excerpt) or moved, and pages added, removed "
        f"or moved. Versions served: {listed}."
    )
    arguments = {
        LIBRARY: {
            "type": "string",
            "enum": list(versions),
            "description": "The library (needed when several have versions).",
        },
        "old_version": {
            "type": "string",
            "description": "The older version (default: the one before new_version).",
        },
        "new_version": {
            "type": "string",
            "description": "The newer version (default: latest). Ranges such as 1.x "
            "resolve to their newest match.",
        },
        "path": {
            "type": "string",
            "description": "Only pages under this path prefix (e.g. guides/).",
        },
        "limit": {
            "type": "integer",
            "minimum": 1,
            "maximum": MAX_COMPARE_LIMIT,
            "default": COMPARE_LIMIT,
            "description": "Entries listed per kind (the counts cover all of them).",
        },
    }
    return tool_definition(NAME, TITLE, description, arguments, [], OUTPUT)


@record
class CompareRequest:
    """One compare_versions call: the library, its two versions resolved to their bundles."""

    library: str
    old_version: str
    new_version: str
    old: DocsContext
    new: DocsContext
    path: str | None
    limit: int
    notes: tuple[str, ...]


def parse(server: Any, args: dict) -> CompareRequest:
    check_fields(args, (LIBRARY, "old_version", "new_version", "path", "limit"))
    notes: list[str] = []
    versioned = server.versioned
    name = str_arg(args, LIBRARY)
    if name is None:
        if len(versioned) > 1:
            raise ToolInputError(
                f"compare_versions needs `{LIBRARY}`: one of {', '.join(versioned)}."
            )
        name = next(iter(versioned))
    lib = versioned.get(name)
    if lib is None:
        raise ToolInputError(
            f"'{name}' has no two versions to compare; libraries with versions: "
            f"{', '.join(versioned)}."
        )
    versions = lib.named
    new_version = _version_arg(lib, args, "new_version", "latest", notes)
    before = [v for v in versions if order_key(v) < order_key(new_version)]
    default_old = before[-1] if before else None
    if str_arg(args, "old_version") is None and default_old is None:
        raise ToolInputError(
            f"{new_version} is the oldest version of {name}; give old_version "
            f"({', '.join(versions)})."
        )
    old_version = _version_arg(lib, args, "old_version", default_old, notes)
    path = str_arg(args, "path")
    limit = int_arg(args, "limit", COMPARE_LIMIT, 1, MAX_COMPARE_LIMIT, notes)
    old = lib.apps[lib.versions.index(old_version)]
    new = lib.apps[lib.versions.index(new_version)]
    return CompareRequest(name, old_version, new_version, old, new, path, limit, tuple(notes))


def _version_arg(lib: Any, args: dict, key: str, default: str | None, notes: list[str]) -> str:
    wanted = str_arg(args, key) or default
    assert wanted is not None
    versions = lib.named
    resolved = resolve_version(wanted, versions)
    if resolved is None:
        raise ToolInputError(
            f"No version of {lib.name} matches {json.dumps(wanted)} ({key}). Available "
            f"versions: {', '.join(versions)}."
        )
    if resolved != wanted and str_arg(args, key) is not None:
        notes.append(f"{key} {json.dumps(wanted)} resolved to {resolved!r}.")
    return resolved


def run(server: Any, request: CompareRequest) -> dict:
    notes = list(request.notes)
    old, new = request.old, request.new
    report = server.report(old, new)
    result = {
        LIBRARY: request.library,
        "old_version": request.old_version,
        "new_version": request.new_version,
        **compare_result(
            report, old.bundle.id_prefix, new.bundle.id_prefix, request.path, request.limit
        ),
    }
    if request.old_version == request.new_version:
        notes.append("old_version and new_version are the same version: nothing changed.")
    return json_result(result, notes)


def compare_result(
    report: Report, old_prefix: str, new_prefix: str, path: str | None, limit: int
) -> dict[str, Any]:
    """compare_versions' answer from a report: counts and pages (under `path` when given), and
    at most `limit` entries (and pages) of each kind, ids with the versions' prefixes."""
    if path:
        report = report.under(path.removeprefix("./").lstrip("/"))
    data = report.to_json(limit)
    for entry in data["entries"]:
        for side, prefix in (("old_id", old_prefix), ("new_id", new_prefix)):
            if entry[side] is not None:
                entry[side] = prefix + entry[side]
    pages = data["pages"]
    return {
        "counts": data["counts"],
        "page_counts": {kind: len(items) for kind, items in pages.items()},
        "pages": {kind: items[:limit] for kind, items in pages.items()},
        "entries": data["entries"],
        "omitted": data["omitted"],
    }
