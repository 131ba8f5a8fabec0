"""Search hits: one page of a ranked search (reranked when the server reranks, section lookups
such as `R-exts 5.10.2` put first), each of its rows as a hit in the shape the tool contract
fixes, citing where its text comes from, and the hits that fit a response budget. search_docs
answers with them, as does a server of several bundles (libraries/)."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

from ..browse.sections import SectionIndex, section_query
from ..errors import BundleError, SearchTimeout
from ..search.budget import pack_encoded
from ..search.engine import Page, Searcher
from ..search.snippets import snippet, snippet_pattern
from .arguments import ToolInputError
from .context import DocsContext
from .schemas import SOURCE, STRING_MAP

log = logging.getLogger(__name__)

# Sections a section-lookup query (`R-exts 5.10.2`) puts first, at most.
MAX_PINNED = 5

_REFERENCE = {
    "type": "object",
    "properties": {
        "id": {"type": "string"},
        "title": {"type": "string"},
        "summary": {"type": "string"},
    },
    "required": ["id", "title"],
}

HIT_SCHEMA = {
    "type": "object",
    "properties": {
        "chunk_id": {"type": "string"},
        "library": {
            "type": "string",
            "description": "The library of the hit, when the server serves several.",
        },
        "score": {"type": "number"},
        "heading": {"type": "string"},
        "breadcrumb": {"type": "string"},
        "snippet": {"type": "string"},
        "filepath": {"type": "string"},
        "metadata": STRING_MAP,
        "also_in": {
            "type": "object",
            "description": "Other taxonomy values under which the same section also exists.",
            "additionalProperties": {"type": "array", "items": {"type": "string"}},
        },
        "source": SOURCE,
        "section_id": {"type": "string", "description": "The section's number, e.g. 2.4.1."},
        "rule_ids": {"type": "array", "items": {"type": "string"}},
        "references": {
            "type": "array",
            "items": _REFERENCE,
            "description": "Up to 5 sections this one refers to (links, 'see section X'), "
            "in order of appearance.",
        },
        "truncated": {
            "type": "boolean",
            "description": "Present when the hit was shortened to fit max_tokens.",
        },
        "reached_by_reference": {
            "type": "string",
            "description": "Present when the hit joined because this hit refers to it.",
        },
    },
    "required": [
        "chunk_id",
        "score",
        "heading",
        "breadcrumb",
        "snippet",
        "filepath",
        "metadata",
        "source",
    ],
}


def timed_out(searcher: Searcher) -> ToolInputError:
    """The tool error of a search that spent its time budget."""
    return ToolInputError(
        f"The search took longer than its {searcher.time_budget:g} s budget and was "
        "stopped; try a shorter or more specific query."
    )


def search_page(
    context: DocsContext,
    query: str,
    limit: int,
    expand: bool,
    filters: dict[str, str],
    offset: int,
    exclude: np.ndarray | None,
) -> Page:
    """The rows of one page of a search (the searcher's Page): `limit` rows from `offset`,
    with the sections the best ones refer to when `expand`; a spent time budget is a tool
    error."""
    sections = context.sections_or_none
    reranker = context.reranker
    depth = reranker.depth if reranker else 0
    try:
        page = context.searcher.search(
            query,
            filters,
            0 if depth else offset,
            max(depth, offset + limit) if depth else limit,
            sections.references if expand and sections else None,
            exclude,
            _section_pins(context, query, sections),
        )
    except SearchTimeout:
        raise timed_out(context.searcher) from None
    if not depth:
        return page
    from ..search.rerank import reranked_page  # a server with --rerank-url only

    return reranked_page(reranker, context.bundle, query, filters, page, offset, limit)


def _section_pins(context: DocsContext, query: str, sections: SectionIndex | None) -> list[int]:
    """The rows a section lookup query names (`R-exts 5.10.2`, `R-lang section 3.5.2`,
    `§3.14`): the section with that number, in the named document when one is named (a
    path, file stem or title, as `get_doc`'s `document`); none for other queries."""
    lookup = section_query(query)
    if lookup is None or sections is None or not sections.available:
        return []
    document, number = lookup
    try:
        rows = sections.rows_named(number)
    except BundleError as exc:  # a damaged sections.parquet: the search goes on without pins
        log.error("%s", exc)
        return []
    if not rows or document is None:
        return rows[:MAX_PINNED]
    try:
        pages = context.pages
    except BundleError:
        return []
    match = pages.find(document, lambda q: [])
    if match.index is None:
        return []
    first = int(pages.first_rows[match.index])
    end = first + int(pages.counts[match.index])
    return [r for r in rows if first <= r < end][:MAX_PINNED]


def page_hits(context: DocsContext, page: Page, query: str) -> Iterator[dict]:
    """The hits of one page of a search for `query`, made as they are consumed (fit_hits
    stops at the first that does not fit: no snippet is made for a hit not shown)."""
    pattern = snippet_pattern(query)
    context.bundle.prefetch(page.rows)
    return (
        hit(context, row, score, pattern, page, i)
        for i, (row, score) in enumerate(zip(page.rows, page.scores, strict=True))
    )


def hit(context: DocsContext, row: int, score: float, pattern: Any, page: Page, i: int) -> dict:
    """One search hit: the i-th row of `page`, in the shape the tool contract fixes."""
    bundle = context.bundle
    shown = bundle.shown(row)
    fields = shown.header
    out: dict[str, Any] = {
        "chunk_id": bundle.id_prefix + fields["id"],
        "score": round(score, 6),
        "heading": fields["heading"],
        "breadcrumb": fields["breadcrumb"],
        "snippet": snippet(shown.text, pattern),
        "filepath": fields["path"],
        "metadata": dict(fields["metadata"]),
        "source": source(context, row, fields),
    }
    if page.also_in and page.also_in[i]:
        # The same section exists for these other values: filter to read one of them.
        out["also_in"] = page.also_in[i]
    sections = context.sections_or_none
    if sections is not None:
        out.update(sections.hit_fields(row, fields))
    if row in page.reached_by:
        out["reached_by_reference"] = bundle.id(page.reached_by[row])
    return out


def source(context: DocsContext, row: int, fields: dict[str, Any]) -> dict:
    """Where a chunk comes from: file and lines, and (when the build knew them) the commit,
    its date, the corpus version and a link made from the bundle's URL template. `fields`:
    the row's shown fields (Bundle.shown)."""
    bundle = context.bundle
    file = fields["path"]
    start, end = fields["line_start"], fields["line_end"]
    out: dict[str, Any] = {"file": file, "lines": [start, end], **context.provenance}
    pages = page_range(context, row)
    if pages is not None:
        out["pages"] = list(pages)
    if bundle.metadata.source.url is not None:
        anchor = fields["id"].partition("#")[2].rpartition("/")[2]
        if anchor.startswith("_"):  # _preamble, _part-2: no heading of their own
            anchor = ""
        url = bundle.metadata.source.link(file, start, end, anchor)
        if url is not None:
            out["url"] = url
    return out


def page_range(context: DocsContext, row: int) -> tuple[int, int] | None:
    """The first and last page of a PDF's chunk (1-based); None for other chunks."""
    pages = context.bundle.arrays.get("page_ranges")
    if pages is not None and row < len(pages) and pages[row, 0]:
        return int(pages[row, 0]), int(pages[row, 1])
    return None


def fit_hits(
    hits: Iterable[dict], shown: int, budget: int, notes: list[str]
) -> tuple[list[dict], list[str]]:
    """The hits that fit `max_tokens` (whole hits first, then the best passage of the next) and
    the JSON of each (json_result's `encoded`), with a note saying what was left out. `shown`:
    how many hits `hits` holds (it may be made lazily: page_hits)."""
    kept, texts, used, shortened = pack_encoded(hits, budget)
    if len(kept) < shown or shortened:
        notes.append(
            f"max_tokens {budget}: {len(kept)} of {shown} hits fit (~{used} tokens"
            + ("; the last one shortened" if shortened else "")
            + "). Continue with next_cursor, or raise max_tokens."
        )
    return kept, texts


def hits_json(texts: list[str]) -> str:
    """The JSON array of hits encoded by fit_hits."""
    return "[" + ",".join(texts) + "]"
