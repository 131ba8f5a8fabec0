"""`list_sections`: the documentation tree, pages with titles and descriptions under a folder
or category, folded below `depth` levels into folders with page counts; the first page of the
whole tree also counts the pages per category."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..browse.pages import tree
from ..bundle.versions import VERSION_KEY
from ..records import record
from ..search.budget import budget_note, fit_entries
from ..search.roles import ROLE_KEY
from .arguments import (
    DEFAULT_LIST,
    MAX_LIST,
    cursor_arg,
    filter_args,
    int_arg,
    limit_arg,
    max_tokens_arg,
    str_arg,
)
from .context import DocsContext
from .results import close_matches, json_result, not_found
from .schemas import CURSOR, LIMIT, MAX_TOKENS_ARG, NOTES, PAGE_ENTRY, tool_definition

NAME = "list_sections"
TITLE = "Browse the documentation tree"
DESCRIPTION = (
    "Browse the documentation tree: pages with titles, descriptions and paths under a "
    "folder (path prefix) or category (a folder name or a filter value), folded below "
    "`depth` levels into folders with page counts. Start here to see what the docs cover."
)
MAX_DEPTH = 10
DEFAULT_DEPTH = 2

ARGUMENTS = {
    "category": {
        "type": "string",
        "description": "A folder name (e.g. 'protocol') or a filter value (e.g. "
        "'python') to list; omit for the whole tree.",
    },
    "path": {
        "type": "string",
        "description": "A folder path prefix to list, e.g. 'docs/guides/'.",
    },
    "depth": {
        "type": "integer",
        "minimum": 1,
        "maximum": MAX_DEPTH,
        "default": DEFAULT_DEPTH,
        "description": "Folder levels to expand; deeper pages are counted per folder.",
    },
    "limit": {**LIMIT, "maximum": MAX_LIST, "default": DEFAULT_LIST},
    "cursor": CURSOR,
    "max_tokens": MAX_TOKENS_ARG,
}
OWN = tuple(ARGUMENTS)

OUTPUT = {
    "type": "object",
    "properties": {
        "root": {"type": "string"},
        "matched_by": {"type": "string"},
        "entries": {"type": "array", "items": PAGE_ENTRY},
        "total": {"type": "integer"},
        "next_cursor": {"type": ["string", "null"]},
        "categories": {
            "type": "object",
            "description": "Pages per filter value, and per top folder (key `folder`) when the "
            "docs have no filters but the page `role`; on the first page of the whole tree only.",
            "additionalProperties": {"type": "object", "additionalProperties": {"type": "integer"}},
        },
        "notes": NOTES,
    },
    "required": ["root", "entries", "total", "next_cursor"],
}


def definition(description: str, taxonomy: dict) -> dict:
    return tool_definition(NAME, TITLE, description, ARGUMENTS, [], OUTPUT, taxonomy)


@record
class ListRequest:
    """One list_sections call: the folder listed (`root`, "" for the whole tree), how it was
    named, the filters, and the page of entries asked for."""

    root: str
    matched_by: str  # all, path, folder or taxonomy
    filters: dict[str, str]
    depth: int
    limit: int
    cursor: str | None
    max_tokens: int
    notes: tuple[str, ...]


def parse(context: DocsContext, args: dict) -> ListRequest:
    notes: list[str] = []
    filters = filter_args(context.taxonomy, args, OWN, notes)
    category = str_arg(args, "category")
    path = str_arg(args, "path")
    depth = int_arg(args, "depth", DEFAULT_DEPTH, 1, MAX_DEPTH, notes)
    limit = limit_arg(args, notes, DEFAULT_LIST, MAX_LIST)
    cursor = cursor_arg(args)
    max_tokens = max_tokens_arg(args, context.max_tokens, notes)
    pages = context.pages
    root, matched_by = "", "all"
    if path is not None:
        root = path.removeprefix("./").lstrip("/")
        if root and not root.endswith("/") and not pages.under(root + "/"):
            found = pages.folder(root)
            if found is None and not pages.under(root):
                raise not_found(
                    f"Path '{path}'",
                    close_matches(root, pages.folder_paths()),
                    "Call list_sections without arguments to see the top folders.",
                )
            root = found or root
        elif root and not root.endswith("/"):
            root += "/"
        matched_by = "path"
    if category is not None:
        filters, root, matched_by = _category(context, category, filters, root)
    return ListRequest(root, matched_by, filters, depth, limit, cursor, max_tokens, tuple(notes))


def _category(
    context: DocsContext, category: str, filters: dict[str, str], root: str
) -> tuple[dict[str, str], str, str]:
    """A category is a taxonomy value ('python', or 'language=python') or a folder name."""
    taxonomy = context.taxonomy
    key, _, value = category.partition("=")
    if value and key.strip() in taxonomy:
        key, value = key.strip(), value.strip()
        if value not in taxonomy[key].values:
            raise not_found(
                f"Value '{value}' of '{key}'",
                close_matches(value, taxonomy[key].values),
                f"Values: {', '.join(taxonomy[key].values)}.",
            )
        return {**filters, key: value}, root, "taxonomy"
    # A folder of that name first (its tree is what a reader browses), then a filter value.
    folder = context.pages.folder(root + category) or context.pages.folder(category)
    if folder is not None and folder.startswith(root):
        return filters, folder, "folder"
    for key, info in taxonomy.items():
        if category in info.values and key not in filters:
            return {**filters, key: category}, root, "taxonomy"
    values = [v for info in taxonomy.values() for v in info.values]
    raise not_found(
        f"Category '{category}'",
        close_matches(category, [*values, *context.pages.folder_paths()]),
        "A category is a folder name or a filter value; call list_sections without "
        "arguments to see them.",
    )


def run(context: DocsContext, request: ListRequest) -> dict:
    notes = list(request.notes)
    root, filters = request.root, request.filters
    shown_version = _shown_version(context, root, filters)
    if shown_version is not None:
        notes.append(
            f"Listed version {shown_version} (latest release) and unversioned pages; pass "
            f"version=… for another."
        )
    entries = _tree(context, root, request.depth, tuple(sorted(filters.items())), shown_version)
    pager = context.pager(
        NAME,
        {"root": root, "depth": request.depth, "filters": filters, "by": request.matched_by},
    )
    offset = pager.offset(request.cursor, len(entries))
    shown = entries[offset : offset + request.limit]
    fit, used = fit_entries(shown, request.max_tokens)
    if fit < len(shown):
        notes.append(budget_note(request.max_tokens, fit, len(shown), "entries", used))
        shown = shown[:fit]
    result: dict[str, Any] = {
        "root": root,
        "matched_by": request.matched_by,
        "entries": shown,
        "total": len(entries),
        "next_cursor": pager.next(offset, len(shown), len(entries)),
    }
    if offset == 0 and not root and not filters:
        result["categories"] = _category_counts(context)
    return json_result(result, notes)


def _shown_version(context: DocsContext, root: str, filters: dict[str, str]) -> str | None:
    """The version a listing shows when the call names none and the pages under `root` are of
    several versions, one of them the latest release: that one, as a site's sidebar shows its
    current version (search answers from it too: search/versions.py). The pages of no version
    stay (a version filter keeps them, as in search); a folder of one version lists as it is."""
    info = context.taxonomy.get(VERSION_KEY)
    if info is None or info.latest is None or VERSION_KEY in filters:
        return None
    latest = info.latest

    def shown() -> str | None:  # (remembered with the listings: a gather over the pages)
        indices = list(context.pages.under(root))
        if not indices:
            return None
        present = set(np.unique(_version_codes(context, indices)).tolist()) - {0}
        return latest if len(present) > 1 and info.code(latest) in present else None

    return context.memo.get((NAME, "shown-version", root), shown)


def _tree(
    context: DocsContext,
    root: str,
    depth: int,
    filters: tuple[tuple[str, str], ...],
    version: str | None = None,
) -> list[dict]:
    """The entries of one listing (with `version`, only that version's pages and the pages of
    none), remembered: the bundle never changes under a server."""

    def listing() -> list[dict]:
        pages = context.pages
        indices = list(pages.under(root))
        if filters:
            mask = context.searcher.mask(dict(filters))
            keep = mask[pages.first_rows[indices[0] : indices[-1] + 1]] if indices else []
            indices = [i for i, kept in zip(indices, keep, strict=True) if kept]
        if version is not None and indices:
            codes = _version_codes(context, indices)
            wanted = (0, context.taxonomy[VERSION_KEY].code(version))
            indices = [i for i, code in zip(indices, codes.tolist(), strict=True) if code in wanted]
        return tree(pages, indices, root, depth)

    return context.memo.get((NAME, root, depth, filters, version), listing)


def _version_codes(context: DocsContext, indices: list[int]) -> np.ndarray:
    """The version facet code of each page (0: none)."""
    column = list(context.taxonomy).index(VERSION_KEY)
    return np.asarray(context.bundle.arrays["facets"][context.pages.first_rows[indices], column])


def _category_counts(context: DocsContext) -> dict[str, dict[str, int]]:
    """Pages per taxonomy value; without a taxonomy of the author's own (the built-in page
    `role` aside), pages per top folder too (key `folder`)."""
    pages = context.pages
    out: dict[str, dict[str, int]] = {}
    if not set(context.taxonomy) - {ROLE_KEY}:
        tops: dict[str, int] = {}
        for path in pages.paths:
            top = path.split("/", 1)[0] if "/" in path else "."
            tops[top] = tops.get(top, 0) + 1
        out["folder"] = tops
    firsts = pages.first_rows
    facets = context.bundle.arrays["facets"]
    for col, (key, info) in enumerate(context.taxonomy.items()):
        codes = np.asarray(facets[firsts, col], dtype=np.int64)
        counts = np.bincount(codes, minlength=len(info.values) + 1)
        out[key] = {v: int(counts[i + 1]) for i, v in enumerate(info.values) if counts[i + 1]}
    return out
