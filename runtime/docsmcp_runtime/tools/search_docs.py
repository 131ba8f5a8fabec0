"""`search_docs`: ranked sections for a query, within the taxonomy filters, a page at a time
(signed cursors), within a response budget (`max_tokens`), without the chunks already seen
(`exclude`). The docs-mcp tool contract."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..protocol.cursor import encode_cursor
from ..records import record
from .arguments import (
    MAX_EXCLUDE,
    SearchCall,
    exclude_arg,
    filter_args,
    max_tokens_arg,
    search_call,
    search_offset,
)
from .context import DocsContext
from .hits import HIT_SCHEMA, fit_hits, hits_json, page_hits, search_page
from .results import json_result
from .schemas import LIMIT, MAX_TOKENS_ARG, NOTES, tool_definition

NAME = "search_docs"
TITLE = "Search documentation"
DESCRIPTION = None  # the bundle's own (metadata `tools`)

ARGUMENTS = {
    "query": {
        "type": "string",
        "minLength": 1,
        "description": (
            "The search query: method names, class names, error types, or a short "
            "description of the task (e.g. 'links.create', 'RateLimitError', "
            "'how to paginate')."
        ),
    },
    "limit": LIMIT,
    "cursor": {
        "type": "string",
        "description": (
            "Opaque pagination token (next_cursor of a previous search with the same "
            "query and filters). Omit for the first page."
        ),
    },
    "expand_references": {
        "type": "boolean",
        "description": "Also return the sections the best hits refer to (one hop), "
        "marked reached_by_reference.",
    },
    "max_tokens": MAX_TOKENS_ARG,
    "exclude": {
        "type": "array",
        "items": {"type": "string"},
        "maxItems": MAX_EXCLUDE,
        "description": "chunk_ids already seen: they are never returned, so a "
        "follow-up search brings new material.",
    },
}
# search_docs' own arguments (the taxonomy filters and, over several bundles, `library` come on
# top).
OWN = tuple(ARGUMENTS)

OUTPUT = {
    "type": "object",
    "properties": {
        "hits": {"type": "array", "items": HIT_SCHEMA},
        "next_cursor": {"type": ["string", "null"]},
        "hint": {
            "type": ["object", "null"],
            "properties": {
                "message": {"type": "string"},
                "suggested_filters": {
                    "type": "object",
                    "additionalProperties": {"type": "array", "items": {"type": "string"}},
                },
            },
            "required": ["message", "suggested_filters"],
        },
        "degraded": {
            "type": "string",
            "description": "Present when semantic search failed and results are full-text only.",
        },
        "notes": NOTES,
    },
    "required": ["hits", "next_cursor", "hint"],
}


def definition(description: str, taxonomy: dict) -> dict:
    return tool_definition(NAME, TITLE, description, ARGUMENTS, ["query"], OUTPUT, taxonomy)


@record(eq=False)
class SearchRequest:
    """One search_docs call over one bundle: what is searched, from which offset (the cursor's),
    and how much is shown."""

    call: SearchCall
    filters: dict[str, str]
    max_tokens: int
    exclude: np.ndarray | None  # rows never returned
    # What a cursor is bound to besides query and filters: a page of another result list
    # (expanded, other rows excluded) must not continue this one.
    bound: str
    offset: int
    notes: tuple[str, ...]


def parse(context: DocsContext, args: dict) -> SearchRequest:
    notes: list[str] = []
    filters = filter_args(context.taxonomy, args, OWN, notes)
    call = search_call(args, notes, context.expand_references)
    max_tokens = max_tokens_arg(args, context.max_tokens, notes)
    exclude, excluded = exclude_arg(context.bundle, args, notes)
    bound = call.bound + excluded
    offset = 0
    if call.cursor is not None:
        bundle = context.bundle
        offset = search_offset(
            context.secret, bundle.bundle_id, bound, filters, call.cursor, bundle.n_chunks
        )
    return SearchRequest(call, filters, max_tokens, exclude, bound, offset, tuple(notes))


def run(context: DocsContext, request: SearchRequest) -> dict:
    notes = list(request.notes)
    call, filters, offset = request.call, request.filters, request.offset
    page = search_page(
        context, call.query, call.limit, call.expand, filters, offset, request.exclude
    )
    notes.extend(page.notes)
    hits, texts = fit_hits(
        page_hits(context, page, call.query), len(page.rows), request.max_tokens, notes
    )
    next_offset = offset + len(hits)
    next_cursor = None
    if hits and next_offset < page.total:
        next_cursor = encode_cursor(
            context.secret, context.bundle.bundle_id, request.bound, filters, next_offset
        )
    hint = None
    if not hits:
        hint = search_hint(call.query, filters, page.suggested_filters, page.corpus_matches, offset)
    result: dict[str, Any] = {"hits": hits, "next_cursor": next_cursor, "hint": hint}
    if page.degraded:
        context.warn_degraded(page.degraded)
        result["degraded"] = degraded_message(page.degraded)
    return json_result(result, notes, {"hits": hits_json(texts)})


def degraded_message(reason: str) -> str:
    return f"Semantic search was unavailable ({reason}); results are full-text only."


def search_hint(
    query: str, filters: dict[str, str], suggested: dict, corpus_matches: int, offset: int
) -> dict[str, Any]:
    """What an empty page says: last page, no match anywhere, or a filter that excluded them."""
    if offset > 0:
        message = "No more results for this query; this was the last page."
    elif corpus_matches == 0:
        message = (
            "0 results found. No matches were found for this query in the indexed corpus; "
            "try other words or an identifier that appears in the docs."
        )
    elif filters:
        active = ", ".join(f"{k}='{v}'" for k, v in filters.items())
        message = f"0 results found for query '{query}' with filters {active}."
        if suggested:
            message += " Matches exist under the values listed in suggested_filters."
        else:
            message += " Remove a filter to see matches elsewhere in the corpus."
    else:
        message = f"0 results found for query '{query}'."
    return {"message": message, "suggested_filters": suggested}
