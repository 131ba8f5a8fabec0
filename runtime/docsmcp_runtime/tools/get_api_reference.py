"""`get_api_reference`: an API method or type extracted from the docs (signature, parameters,
return type, description, examples); without `method`, every entry grouped by category."""

from __future__ import annotations

from typing import Any

from ..records import record
from ..search.budget import budget_note, fit_entries
from .arguments import (
    DEFAULT_LIMIT,
    DEFAULT_LIST,
    MAX_LIST,
    ToolInputError,
    cursor_arg,
    filter_args,
    limit_arg,
    max_tokens_arg,
    str_arg,
)
from .context import DocsContext
from .results import close_matches, json_result, not_found
from .schemas import CURSOR, LIMIT, MAX_TOKENS_ARG, NOTES, SOURCE, STRING_MAP, tool_definition

NAME = "get_api_reference"
TITLE = "Look up an API method"
DESCRIPTION = (
    "Look up an API method or type extracted from the docs: signature, parameters (name, "
    "type, required, description), return type, description and examples. Without "
    "`method`, lists every entry grouped by category."
)

ARGUMENTS = {
    "method": {
        "type": "string",
        "minLength": 1,
        "description": "The method or type, e.g. 'create_channel', 'links.create'.",
    },
    "limit": {**LIMIT, "maximum": MAX_LIST},
    "cursor": CURSOR,
    "max_tokens": MAX_TOKENS_ARG,
}
OWN = tuple(ARGUMENTS)

_PARAMETER = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "type": {"type": "string"},
        "required": {"type": ["boolean", "null"]},
        "description": {"type": "string"},
    },
    "required": ["name"],
}
_EXAMPLE = {
    "type": "object",
    "properties": {"language": {"type": "string"}, "code": {"type": "string"}},
    "required": ["code"],
}
ENTRY = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "category": {"type": "string"},
        "kind": {"type": "string"},
        "signature": {"type": "string"},
        "description": {"type": "string"},
        "parameters": {"type": "array", "items": _PARAMETER},
        "returns": {"type": "string"},
        "examples": {"type": "array", "items": _EXAMPLE},
        "chunk_id": {"type": "string"},
        "filepath": {"type": "string"},
        "metadata": STRING_MAP,
        "source": SOURCE,
    },
    "required": ["name", "kind", "chunk_id"],
}
OUTPUT = {
    "type": "object",
    "properties": {
        "method": {"type": "string"},
        "entries": {"type": "array", "items": ENTRY},
        "categories": {
            "type": "object",
            "description": "Without `method`: entry summaries grouped by category.",
            "additionalProperties": {"type": "array", "items": ENTRY},
        },
        "total": {"type": "integer"},
        "next_cursor": {"type": ["string", "null"]},
        "notes": NOTES,
    },
    "required": ["total", "next_cursor"],
}


def definition(description: str, taxonomy: dict) -> dict:
    return tool_definition(NAME, TITLE, description, ARGUMENTS, [], OUTPUT, taxonomy)


@record
class ApiRequest:
    """One get_api_reference call: the entries it names (all of them without `method`, within
    the filters), and the page of them asked for."""

    method: str | None
    entries: list[int]
    filters: dict[str, str]
    limit: int
    cursor: str | None
    max_tokens: int
    notes: tuple[str, ...]


def parse(context: DocsContext, args: dict) -> ApiRequest:
    notes: list[str] = []
    filters = filter_args(context.taxonomy, args, OWN, notes)
    method = str_arg(args, "method")
    cursor = cursor_arg(args)
    api = context.api
    if not api.available:
        raise ToolInputError(
            "This bundle has no API registry (built before docsmcp 0.2); rebuild it to use "
            "get_api_reference, or use search_docs."
        )
    entries = list(range(len(api))) if method is None else api.lookup(method)
    if filters:
        mask = context.searcher.mask(filters)
        entries = [i for i in entries if mask[int(api.rows[i])]]
    if method is not None and entries:
        entries = _in_scope(context, entries, filters, notes)
    if method is not None and not entries:
        raise not_found(
            f"Method '{method}'" + (f" with {filters}" if filters else ""),
            close_matches(method, api.known_names()),
            "Call get_api_reference without method to list every entry.",
        )
    limit = limit_arg(args, notes, DEFAULT_LIMIT if method else DEFAULT_LIST, MAX_LIST)
    max_tokens = max_tokens_arg(args, context.max_tokens, notes)
    return ApiRequest(method, entries, filters, limit, cursor, max_tokens, tuple(notes))


def _in_scope(
    context: DocsContext, entries: list[int], filters: dict[str, str], notes: list[str]
) -> list[int]:
    """A method's entries in the version (and variant) search answers from by default
    (search/versions.py: the latest release and the pages without a version), saying so; all
    of them when none is there (a type only older versions document)."""
    versions = context.searcher.versions
    _, scope = versions.scope("", [], filters)
    if not scope.keys:
        return entries
    reached = versions.reached(scope, context.bundle.n_chunks)
    api = context.api
    kept = [i for i in entries if reached[int(api.rows[i])]]
    if not kept or len(kept) == len(entries):
        return entries
    # (what the restricted keys say: variants are not folded here, every entry is listed)
    notes.extend(s.note for s in scope.keys)
    return kept


def run(context: DocsContext, request: ApiRequest) -> dict:
    api, method, entries = context.api, request.method, request.entries
    pager = context.pager(NAME, {"method": method, "filters": request.filters})
    offset = pager.offset(request.cursor, len(entries))
    shown = entries[offset : offset + request.limit]
    items = [api.spec(i) if method is not None else api.summary(i) for i in shown]
    notes = list(request.notes)
    fit, used = fit_entries(items, request.max_tokens)
    if fit < len(items):
        notes.append(budget_note(request.max_tokens, fit, len(items), "entries", used))
        shown, items = shown[:fit], items[:fit]
    result: dict[str, Any] = {}
    if method is not None:
        result["method"] = method
        result["entries"] = items
    else:
        grouped: dict[str, list[dict]] = {}
        for i, item in zip(shown, items, strict=True):
            grouped.setdefault(api.categories[i] or "(none)", []).append(item)
        result["categories"] = grouped
    result["total"] = len(entries)
    result["next_cursor"] = pager.next(offset, len(shown), len(entries))
    return json_result(result, notes)
