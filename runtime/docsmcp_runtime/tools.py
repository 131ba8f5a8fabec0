"""The MCP tools `search_docs` and `get_doc` over an opened bundle (the docs-mcp tool contract)."""

from __future__ import annotations

import json
import logging
from typing import Any

from . import __version__
from .bundle import Bundle
from .cursor import CursorError, cursor_secret, decode_cursor, encode_cursor
from .embedding import EmbeddingError, query_embedder
from .errors import INVALID_PARAMS, ProtocolError, SearchTimeout
from .search import Searcher, SearchOptions, snippet, snippet_pattern

log = logging.getLogger(__name__)

MAX_LIMIT = 50
DEFAULT_LIMIT = 10
MAX_CONTEXT = 5
# Longer queries are cut here (and their terms at MAX_QUERY_TERMS, see search.py) with a note:
# an error message or a stack trace pasted as a query still searches, in bounded time.
MAX_QUERY_CHARS = 2048
_RESERVED = ("query", "limit", "cursor")

ANNOTATIONS = {
    "readOnlyHint": True,
    "destructiveHint": False,
    "idempotentHint": True,
    "openWorldHint": False,
}


_HIT_SCHEMA = {
    "type": "object",
    "properties": {
        "chunk_id": {"type": "string"},
        "score": {"type": "number"},
        "heading": {"type": "string"},
        "breadcrumb": {"type": "string"},
        "snippet": {"type": "string"},
        "filepath": {"type": "string"},
        "metadata": {"type": "object", "additionalProperties": {"type": "string"}},
        "also_in": {
            "type": "object",
            "description": "Other taxonomy values under which the same section also exists.",
            "additionalProperties": {"type": "array", "items": {"type": "string"}},
        },
    },
    "required": ["chunk_id", "score", "heading", "breadcrumb", "snippet", "filepath", "metadata"],
}

SEARCH_OUTPUT_SCHEMA = {
    "type": "object",
    "properties": {
        "hits": {"type": "array", "items": _HIT_SCHEMA},
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
        "notes": {
            "type": "array",
            "items": {"type": "string"},
            "description": "Present when an argument was adjusted: a clamped number, a cut query.",
        },
    },
    "required": ["hits", "next_cursor", "hint"],
}


class ToolInputError(ValueError):
    """Bad tool arguments: reported to the model as an isError result it can correct."""


def _int_arg(args: dict, name: str, default: int, low: int, high: int, notes: list[str]) -> int:
    """An integer argument; out of range is clamped (and noted), a wrong type is an error."""
    value = args.get(name, default)
    if isinstance(value, float) and value.is_integer():
        value = int(value)  # JSON clients may send 5.0
    if not isinstance(value, int) or isinstance(value, bool):
        raise ToolInputError(f"{name} must be an integer")
    if not low <= value <= high:
        clamped = min(max(value, low), high)
        notes.append(f"{name} {value} is outside {low}..{high}; used {clamped}.")
        return clamped
    return value


def _query_arg(args: dict, notes: list[str]) -> str:
    query = args.get("query")
    if not isinstance(query, str) or not query.strip():
        raise ToolInputError("query must be a non-empty string")
    if len(query) > MAX_QUERY_CHARS:
        notes.append(
            f"The query was cut to its first {MAX_QUERY_CHARS} of {len(query)} characters."
        )
        query = query[:MAX_QUERY_CHARS]
    return query


def _text_result(text: str, is_error: bool = False) -> dict:
    return {"content": [{"type": "text", "text": text}], "isError": is_error}


class DocsApp:
    """What the protocol layer serves: server identity, instructions and the two tools."""

    server_name = "docsmcp"
    server_version = __version__

    def __init__(self, bundle: Bundle, options: SearchOptions | None = None) -> None:
        self.bundle = bundle
        spec = bundle.metadata.embedding
        embedder = None
        self._degraded_warned = False
        if spec:
            try:
                embedder = query_embedder(spec, bundle.path)
            except EmbeddingError as exc:
                self._warn_degraded(str(exc))
        self.searcher = Searcher(bundle, embedder, options or SearchOptions())
        self.taxonomy = bundle.metadata.taxonomy
        self.instructions: str | None = bundle.metadata.instructions
        self._secret = cursor_secret(bundle.bundle_id)
        self._tools = self._build_tools()

    # -- tool definitions -----------------------------------------------------------------

    def _build_tools(self) -> list[dict]:
        descriptions = self.bundle.metadata.tools.descriptions
        properties: dict[str, Any] = {
            "query": {
                "type": "string",
                "minLength": 1,
                "description": (
                    "The search query: method names, class names, error types, or a short "
                    "description of the task (e.g. 'links.create', 'RateLimitError', "
                    "'how to paginate')."
                ),
            },
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_LIMIT,
                "default": DEFAULT_LIMIT,
                "description": f"Maximum number of results to return. Default is {DEFAULT_LIMIT}.",
            },
            "cursor": {
                "type": "string",
                "description": (
                    "Opaque pagination token (next_cursor of a previous search with the same "
                    "query and filters). Omit for the first page."
                ),
            },
        }
        for key, info in self.taxonomy.items():
            if key in _RESERVED:
                continue
            properties[key] = {
                "type": "string",
                "description": info.description,
                "enum": list(info.values),
            }
        search = {
            "name": "search_docs",
            "title": "Search documentation",
            "description": descriptions["search_docs"],
            "inputSchema": {
                "type": "object",
                "properties": properties,
                "required": ["query"],
                "additionalProperties": False,
            },
            "outputSchema": SEARCH_OUTPUT_SCHEMA,
            "annotations": {"title": "Search documentation", **ANNOTATIONS},
        }
        get_doc = {
            "name": "get_doc",
            "title": "Read a documentation section",
            "description": descriptions["get_doc"],
            "inputSchema": {
                "type": "object",
                "properties": {
                    "chunk_id": {
                        "type": "string",
                        "minLength": 1,
                        "description": (
                            "The exact chunk_id returned by search_docs "
                            "(e.g. 'guides/retries.md#backoff-strategy')."
                        ),
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
                },
                "required": ["chunk_id"],
                "additionalProperties": False,
            },
            "annotations": {"title": "Read a documentation section", **ANNOTATIONS},
        }
        return [search, get_doc]

    def _warn_degraded(self, reason: str) -> None:
        if not self._degraded_warned:
            self._degraded_warned = True
            log.warning("vector search unavailable (%s); searching full-text only", reason)

    def list_tools(self) -> list[dict]:
        return self._tools

    def call_tool(self, name: str, arguments: dict) -> dict:
        if name == "search_docs":
            handler = self.search_docs
        elif name == "get_doc":
            handler = self.get_doc
        else:
            raise ProtocolError(INVALID_PARAMS, f"Unknown tool '{name}'.")
        try:
            return handler(arguments)
        except ToolInputError as exc:
            return _text_result(str(exc), is_error=True)

    # -- search_docs ----------------------------------------------------------------------

    def _search_args(
        self, args: dict, notes: list[str]
    ) -> tuple[str, int, str | None, dict[str, str]]:
        allowed = set(_RESERVED) | set(self.taxonomy)
        for key in args:
            if key not in allowed:
                raise ToolInputError(
                    f"Unexpected field '{key}'. Allowed fields: {', '.join(sorted(allowed))}."
                )
        query = _query_arg(args, notes)
        limit = _int_arg(args, "limit", DEFAULT_LIMIT, 1, MAX_LIMIT, notes)
        cursor = args.get("cursor")
        if cursor is not None and (not isinstance(cursor, str) or not cursor):
            raise ToolInputError("cursor must be a non-empty string")
        filters: dict[str, str] = {}
        for key in sorted(self.taxonomy):
            if key not in args or args[key] is None:
                continue
            value = args[key]
            values = self.taxonomy[key].values
            if not isinstance(value, str) or value not in values:
                raise ToolInputError(
                    f"Invalid taxonomy value for '{key}': {json.dumps(value)}. "
                    f"Allowed values: {', '.join(values)}"
                )
            filters[key] = value
        return query, limit, cursor, filters

    def search_docs(self, args: dict) -> dict:
        notes: list[str] = []
        query, limit, cursor, filters = self._search_args(args, notes)
        offset = 0
        if cursor is not None:
            try:
                offset = decode_cursor(
                    self._secret,
                    self.bundle.bundle_id,
                    query,
                    filters,
                    cursor,
                    max_offset=self.bundle.n_chunks,
                )
            except CursorError as exc:
                raise ToolInputError(str(exc)) from None
        try:
            page = self.searcher.search(query, filters, offset, limit)
        except SearchTimeout:
            raise ToolInputError(
                f"The search took longer than its {self.searcher.time_budget:g} s budget and was "
                "stopped; try a shorter or more specific query."
            ) from None
        notes.extend(page.notes)
        bundle = self.bundle
        pattern = snippet_pattern(query)
        hits = []
        for i, (row, score) in enumerate(zip(page.rows, page.scores, strict=True)):
            hit = {
                "chunk_id": bundle.ids[row].as_py(),
                "score": round(score, 6),
                "heading": bundle.headings[row].as_py(),
                "breadcrumb": bundle.breadcrumbs[row].as_py(),
                "snippet": snippet(bundle.text(row), pattern),
                "filepath": bundle.paths[row].as_py(),
                "metadata": bundle.chunk_meta(row),
            }
            if page.also_in and page.also_in[i]:
                # The same section exists for these other values: filter to read one of them.
                hit["also_in"] = page.also_in[i]
            hits.append(hit)
        next_offset = offset + len(hits)
        next_cursor = None
        if hits and next_offset < page.total:
            next_cursor = encode_cursor(self._secret, bundle.bundle_id, query, filters, next_offset)
        hint = None
        if not hits:
            hint = self._hint(query, filters, page.suggested_filters, page.corpus_matches, offset)
        result: dict[str, Any] = {"hits": hits, "next_cursor": next_cursor, "hint": hint}
        if notes:
            result["notes"] = notes
        if page.degraded:
            self._warn_degraded(page.degraded)
            result["degraded"] = (
                f"Semantic search was unavailable ({page.degraded}); results are full-text only."
            )
        return {
            "content": [{"type": "text", "text": json.dumps(result, indent=2, ensure_ascii=False)}],
            "structuredContent": result,
            "isError": False,
        }

    def _hint(
        self, query: str, filters: dict[str, str], suggested: dict, corpus_matches: int, offset: int
    ) -> dict:
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

    # -- get_doc --------------------------------------------------------------------------

    def get_doc(self, args: dict) -> dict:
        for key in args:
            if key not in ("chunk_id", "context"):
                raise ToolInputError(
                    f"Unexpected field '{key}'. Allowed fields: chunk_id, context."
                )
        chunk_id = args.get("chunk_id")
        if not isinstance(chunk_id, str):
            raise ToolInputError("chunk_id must be a non-empty string")
        notes: list[str] = []
        context = _int_arg(args, "context", 0, 0, MAX_CONTEXT, notes)
        if not chunk_id or chunk_id != chunk_id.strip() or any(ord(ch) < 32 for ch in chunk_id):
            raise ToolInputError(
                f"Chunk ID '{chunk_id}' has invalid format. "
                "Expected {filepath} or {filepath}#{heading-path}."
            )
        bundle = self.bundle
        row = bundle.row_of(chunk_id)
        if row is None:
            raise ToolInputError(
                f"Chunk ID '{chunk_id}' not found. Use search_docs to discover valid chunk IDs."
            )
        position = int(bundle.positions[row])
        total = int(bundle.file_counts[row])
        first = row - position
        parts = []
        for r in range(max(first, row - context), min(first + total, row + context + 1)):
            offset = r - row
            role = "Target" if offset == 0 else f"Context: {offset:+d}"
            header = f"--- Chunk: {bundle.id(r)} (Chunk {r - first + 1} of {total}) ({role}) ---"
            parts.append(f"{header}\n{bundle.text(r)}")
        result = _text_result("\n\n".join(parts))
        if notes:  # a separate block, so the document text stays exactly the chunks
            result["content"].append({"type": "text", "text": "Note: " + " ".join(notes)})
        return result
