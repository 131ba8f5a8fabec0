"""`get_doc`: the full text of one section, named by its chunk id or by its section number or
rule id, with neighbouring sections of its page on request; a long answer continues with a
cursor, and a query trims a long section to its best passage. The docs-mcp tool contract."""

from __future__ import annotations

from ..bundle.shown import shown
from ..records import record
from ..search.budget import approx_tokens, cut_point
from ..search.passage import PASSAGE_CHARS, best_passage, passage_pattern
from .arguments import (
    ToolInputError,
    check_fields,
    cursor_arg,
    int_arg,
    max_tokens_arg,
    str_arg,
)
from .context import DocsContext
from .hits import page_range
from .results import close_matches, not_found, text_result
from .schemas import CURSOR, MAX_TOKENS_ARG, tool_definition

NAME = "get_doc"
TITLE = "Read a documentation section"
DESCRIPTION = None  # the bundle's own (metadata `tools`)
MAX_CONTEXT = 5

ARGUMENTS = {
    "chunk_id": {
        "type": "string",
        "minLength": 1,
        "description": (
            "The exact chunk_id returned by search_docs "
            "(e.g. 'guides/retries.md#backoff-strategy')."
        ),
    },
    "section": {
        "type": "string",
        "minLength": 1,
        "description": "Instead of chunk_id: a section number (e.g. '2.4.1') or a "
        "rule id (e.g. 'items.fn.generics') as shown in section_id / rule_ids.",
    },
    "document": {
        "type": "string",
        "minLength": 1,
        "description": "With section: the page (path, file name or title) whose "
        "numbering is meant, when several documents share numbers.",
    },
    "context": {
        "type": "integer",
        "minimum": 0,
        "maximum": MAX_CONTEXT,
        "default": 0,
        "description": (
            "Number of adjacent sections of the same page to include before "
            "and after the target. Default 0 (recommended)."
        ),
    },
    "query": {
        "type": "string",
        "minLength": 1,
        "description": "The search query the hit came from: a section longer than "
        f"{PASSAGE_CHARS:,} characters then returns only its passage where the "
        "query's words are densest (a note says which part; omit query for all).",
    },
    "max_tokens": MAX_TOKENS_ARG,
    "cursor": CURSOR,
}


def definition(description: str, taxonomy: dict) -> dict:
    return tool_definition(NAME, TITLE, description, ARGUMENTS, [], None)


@record
class DocRequest:
    """One get_doc call: the row of the section it names, and how much around it to read."""

    row: int
    around: int  # `context`: sections of the same page before and after
    query: str | None
    max_tokens: int
    cursor: str | None
    notes: tuple[str, ...]


def parse(context: DocsContext, args: dict) -> DocRequest:
    check_fields(args, ARGUMENTS)
    notes: list[str] = []
    around = int_arg(args, "context", 0, 0, MAX_CONTEXT, notes)
    query = str_arg(args, "query")
    chunk_id = args.get("chunk_id")
    section = str_arg(args, "section")
    document = str_arg(args, "document")
    max_tokens = max_tokens_arg(args, context.max_tokens, notes)
    cursor = cursor_arg(args)
    if chunk_id is None and section is None:
        raise ToolInputError("chunk_id must be a non-empty string (or give section)")
    if chunk_id is not None and section is not None:
        raise ToolInputError("give chunk_id or section, not both")
    if document is not None and section is None:
        raise ToolInputError("document is only used with section")
    if section is not None:
        row = _section_row(context, section, document)
    else:
        row = _chunk_row(context, chunk_id)
    return DocRequest(row, around, query, max_tokens, cursor, tuple(notes))


def _chunk_row(context: DocsContext, chunk_id: object) -> int:
    if not isinstance(chunk_id, str):
        raise ToolInputError("chunk_id must be a non-empty string")
    if not chunk_id or chunk_id != chunk_id.strip() or any(ord(ch) < 32 for ch in chunk_id):
        raise ToolInputError(
            f"Chunk ID '{chunk_id}' has invalid format. "
            "Expected {filepath} or {filepath}#{heading-path}."
        )
    row = context.bundle.row_of(chunk_id)
    if row is None:
        row = context.bundle.row_of_anchor(chunk_id)
    if row is None:
        raise ToolInputError(
            f"Chunk ID '{chunk_id}' not found. Use search_docs to discover valid chunk IDs."
        )
    return row


def _section_row(context: DocsContext, section: str, document: str | None) -> int:
    rows = context.sections.rows_named(section)
    pages = context.pages
    if document is not None:
        match = pages.find(document, lambda q: [])
        if match.index is None:
            raise not_found(
                f"Document '{document}'",
                close_matches(document, pages.paths),
                "Give a page path, file name or title.",
            )
        first = int(pages.first_rows[match.index])
        end = first + int(pages.counts[match.index])
        rows = [r for r in rows if first <= r < end]
    if not rows:
        raise not_found(
            f"Section '{section}'" + (f" in '{document}'" if document else ""),
            close_matches(section, context.sections.names()),
            "Section numbers and rule ids appear as section_id / rule_ids in search hits.",
        )
    documents = sorted({pages.paths[pages.page_of_row(r)] for r in rows}, key=str.encode)
    if len(documents) > 1:
        raise ToolInputError(
            f"Section '{section}' exists in {len(documents)} documents: "
            f"{', '.join(documents[:10])}. Give document to choose one."
        )
    return rows[0]


def run(context: DocsContext, request: DocRequest) -> dict:
    notes = list(request.notes)
    row, around, query, cursor = request.row, request.around, request.query, request.cursor
    budget = request.max_tokens
    bundle = context.bundle
    position = bundle.cell(row, "position")
    total = bundle.cell(row, "file_chunk_count")
    first = row - position
    parts = []
    passage = None  # (start, end, length) of the target's text when trimmed to the query
    for r in range(max(first, row - around), min(first + total, row + around + 1)):
        offset = r - row
        role = "Target" if offset == 0 else f"Context: {offset:+d}"
        header = f"--- Chunk: {bundle.id(r)} (Chunk {r - first + 1} of {total}) ({role})"
        pages = page_range(context, r)
        if pages is not None:  # a PDF's chunk names its pages, as its hits do
            a, b = pages
            header += f" (page {a})" if a == b else f" (pages {a}-{b})"
        header += " ---"
        body = shown(bundle.text(r))
        if query and not around and cursor is None:
            span = best_passage(body, passage_pattern(query))
            if span is not None:
                passage = (*span, len(body))
                body = body[span[0] : span[1]]
        parts.append(f"{header}\n{body}")
    text = "\n\n".join(parts)
    pager = context.pager(NAME, {"row": row, "context": around})
    start = pager.offset(cursor, len(text))
    end = cut_point(text, start, budget)
    result = text_result(text[start:end])
    if start or end < len(text):
        # A separate block, so the document text stays exactly (a part of) the chunks.
        part = (
            f"Characters {start}-{end} of {len(text)} (~{approx_tokens(text)} tokens)"
            + f" with max_tokens {budget}."
        )
        following = pager.next(start, end - start, len(text))
        if following:
            part += f" The rest: call get_doc with the same arguments and cursor {following!r}."
        result["content"].append({"type": "text", "text": part})
    if passage is not None:
        a, b, n = passage
        result["content"].append(
            {
                "type": "text",
                "text": f"Passage: characters {a}-{b} of this section's {n}, where the "
                "query's words are densest. The whole section: call get_doc with this "
                "chunk_id and no query.",
            }
        )
    if notes:
        result["content"].append({"type": "text", "text": "Note: " + " ".join(notes)})
    return result
