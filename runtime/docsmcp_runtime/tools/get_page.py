"""`get_page`: a whole documentation page by its path (extension optional) or title, a near
miss matched by search with the runners-up listed; a long page continues with a cursor."""

from __future__ import annotations

from typing import Any

from ..browse.pages import PageMatch
from ..bundle.shown import shown
from ..errors import SearchTimeout
from ..records import record
from ..search.budget import CHARS_PER_TOKEN
from .arguments import check_fields, cursor_arg, max_tokens_arg, str_arg
from .context import DocsContext
from .results import close_matches, json_result, not_found
from .schemas import CURSOR, MAX_TOKENS_ARG, NOTES, PAGE_ENTRY, SOURCE, STRING_MAP, tool_definition

NAME = "get_page"
TITLE = "Read a documentation page"
DESCRIPTION = (
    "Read a whole documentation page by its path (with or without extension), or by its "
    "title; a near miss is matched by search and the runners-up are listed. Long pages "
    "continue with next_cursor."
)
# Pages the search fallback weighs.
PAGE_SEARCH_DEPTH = 20

ARGUMENTS = {
    "path": {
        "type": "string",
        "minLength": 1,
        "description": "The page's path (extension optional), file name or title.",
    },
    "cursor": CURSOR,
    "max_tokens": MAX_TOKENS_ARG,
}

OUTPUT = {
    "type": "object",
    "properties": {
        "path": {"type": "string"},
        "title": {"type": "string"},
        "description": {"type": "string"},
        "matched_by": {"type": "string"},
        "runners_up": {"type": "array", "items": PAGE_ENTRY},
        "frontmatter": {"type": "object"},
        "metadata": STRING_MAP,
        "chunk_ids": {"type": "array", "items": {"type": "string"}},
        "text": {"type": "string"},
        "source": SOURCE,
        "next_cursor": {"type": ["string", "null"]},
        "notes": NOTES,
    },
    "required": ["path", "title", "matched_by", "text", "next_cursor"],
}


def definition(description: str, taxonomy: dict) -> dict:
    return tool_definition(NAME, TITLE, description, ARGUMENTS, ["path"], OUTPUT)


@record
class PageRequest:
    """One get_page call: the page found (`match.index`), and how much of it to read."""

    match: PageMatch
    cursor: str | None
    max_tokens: int
    notes: tuple[str, ...]


def parse(context: DocsContext, args: dict) -> PageRequest:
    check_fields(args, ARGUMENTS)
    wanted = str_arg(args, "path", required=True)
    assert wanted is not None
    cursor = cursor_arg(args)
    notes: list[str] = []
    max_tokens = max_tokens_arg(args, context.max_tokens, notes)
    pages = context.pages

    def search(query: str) -> list[int]:
        try:
            return context.searcher.search(query, {}, 0, PAGE_SEARCH_DEPTH).rows
        except SearchTimeout:
            return []

    match = pages.find(wanted, search)
    if match.index is None:
        raise not_found(
            f"Page '{wanted}'",
            close_matches(wanted, pages.paths),
            "Use list_sections to browse the pages or search_docs to find one.",
        )
    return PageRequest(match, cursor, max_tokens, tuple(notes))


def run(context: DocsContext, request: PageRequest) -> dict:
    notes = list(request.notes)
    budget = request.max_tokens
    # Whole chunks up to the budget, at least one per call.
    allowance = budget * CHARS_PER_TOKEN
    pages, match = context.pages, request.match
    i = match.index
    assert i is not None
    first, count = int(pages.first_rows[i]), int(pages.counts[i])
    pager = context.pager(NAME, {"path": pages.paths[i]})
    start = pager.offset(request.cursor, count)
    bundle = context.bundle
    texts: list[str] = []
    size = 0
    end = start
    while end < count:
        text = shown(bundle.text(first + end))
        if end > start and size + len(text) > allowance:
            break
        texts.append(text)
        size += len(text) + 2
        end += 1
    result: dict[str, Any] = {
        "path": pages.paths[i],
        "title": pages.titles[i],
        "matched_by": match.matched_by,
    }
    if pages.descriptions[i]:
        result["description"] = pages.descriptions[i]
    if match.runners_up:
        result["runners_up"] = [pages.entry(j) for j in match.runners_up]
    frontmatter = pages.frontmatter(i)
    if frontmatter:
        result["frontmatter"] = frontmatter
    result["metadata"] = bundle.chunk_meta(first)
    result["chunk_ids"] = [bundle.id(first + k) for k in range(start, end)]
    result["text"] = "\n\n".join(texts)
    result["source"] = {
        "file": pages.paths[i],
        "lines": [
            int(bundle.line_starts[first + start]),
            int(bundle.line_ends[first + end - 1]),
        ],
    }
    result["next_cursor"] = pager.next(start, end - start, count)
    if result["next_cursor"]:
        notes.append(
            f"Chunks {start + 1}-{end} of {count} of this page"
            + f" (max_tokens {budget})"
            + "; continue with next_cursor."
        )
    return json_result(result, notes)
