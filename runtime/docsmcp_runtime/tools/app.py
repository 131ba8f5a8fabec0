"""The MCP tools over an opened bundle: `search_docs` and `get_doc` (the docs-mcp tool contract),
and the browse tools `list_sections`, `get_page`, `get_api_reference`, `get_code_examples`
(definitions in tooldefs.py; tables they read are loaded on their first call)."""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from functools import cached_property
from typing import Any

import numpy as np

from .. import __version__
from ..browse.apiref import ApiRegistry
from ..browse.examples import CodeIndex
from ..browse.pages import PageIndex, tree
from ..browse.sections import SectionIndex, section_query
from ..bundle.reader import Bundle
from ..bundle.versions import VERSION_KEY
from ..bundle.versions import resolve as resolve_version
from ..errors import INVALID_PARAMS, BundleError, ProtocolError, SearchTimeout
from ..search.budget import (
    CHARS_PER_TOKEN,
    MAX_TOKENS,
    MIN_TOKENS,
    approx_tokens,
    cut_point,
)
from ..search.embedding import EmbeddingError, query_embedder
from ..search.engine import Page, Searcher, SearchOptions, snippet, snippet_pattern
from ..search.languages import DIAGRAM_LANGUAGES, normalise_language
from ..search.passage import best_passage
from ..search.rerank import ChatReranker, reranked_page
from .cursor import cursor_secret, encode_cursor
from .searchcall import (
    SEARCH_OWN,
    SearchCall,
    decode_offset,
    degraded_message,
    exclude_ids,
    fit_hits,
    search_call,
    search_hint,
)
from .toolargs import (
    MAX_QUERY_CHARS,
    Pager,
    ToolInputError,
    check_fields,
    close_matches,
    cursor_arg,
    int_arg,
    json_result,
    not_found,
    query_arg,
    str_arg,
    text_result,
)
from .tooldefs import (
    DEFAULT_DEPTH,
    DEFAULT_LIMIT,
    DEFAULT_LIST,
    FILTERED,
    GET_API_REFERENCE,
    GET_CODE_EXAMPLES,
    GET_DOC,
    GET_PAGE,
    LIST_SECTIONS,
    MAX_CONTEXT,
    MAX_DEPTH,
    MAX_LIMIT,
    MAX_LIST,
    MAX_PAGE_CHARS,
    SEARCH_DOCS,
    ToolSelection,
    definitions,
)

__all__ = ["MAX_QUERY_CHARS", "DocsApp", "ToolInputError", "ToolSelection"]

log = logging.getLogger(__name__)

# Chunks searched for code examples before their blocks are gathered.
CODE_SEARCH_DEPTH = 50
# Pages get_page's search fallback weighs.
PAGE_SEARCH_DEPTH = 20
# list_sections listings remembered (oldest dropped first); each is at most a few thousand entries.
TREE_CACHE = 64
# Sections a section-lookup query (`R-exts 5.10.2`) puts first, at most.
MAX_PINNED = 5


class DocsApp:
    """What the protocol layer serves: server identity, instructions and the tools."""

    server_name = "docsmcp"
    server_version = __version__

    def __init__(
        self,
        bundle: Bundle,
        options: SearchOptions | None = None,
        selection: ToolSelection | None = None,
    ) -> None:
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
        rerank = (options or SearchOptions()).rerank
        self.reranker = ChatReranker(rerank) if rerank else None
        self.taxonomy = bundle.metadata.taxonomy
        self.instructions: str | None = bundle.metadata.instructions
        self.selection = selection or ToolSelection()
        self.expand_references = self.searcher.expand_references  # search_docs' default
        self._secret = cursor_secret(bundle.bundle_id)
        all_tools = definitions(bundle.metadata.tools.descriptions, self.taxonomy)
        self._handlers: dict[str, Callable[[dict], dict]] = {
            SEARCH_DOCS: self.search_docs,
            GET_DOC: self.get_doc,
            LIST_SECTIONS: self.list_sections,
            GET_PAGE: self.get_page,
            GET_API_REFERENCE: self.get_api_reference,
            GET_CODE_EXAMPLES: self.get_code_examples,
        }
        self._schemas = {name: all_tools[name]["inputSchema"] for name in all_tools}
        prefix = self.selection.prefix
        names = [name for name in self.selection.names if name in all_tools]
        self._tools = [{**all_tools[name], "name": prefix + name} for name in names]
        self._by_exposed = {prefix + name: name for name in names}
        self._trees: dict[tuple, list[dict]] = {}
        source = bundle.metadata.source
        provenance = {
            "commit": source.commit,
            "commit_date": source.commit_date,
            "version": bundle.metadata.version,
        }
        self._provenance = {k: v for k, v in provenance.items() if v is not None}
        self._trees_lock = threading.Lock()

    # -- tables, loaded on first use -----------------------------------------------------------

    def warm(self) -> None:
        """Load now what searches load on first use (before `--workers` fork, so every worker
        shares it): the chunk text cache and the section table."""
        self.bundle.warm()
        _ = self._sections_or_none

    @cached_property
    def pages(self) -> PageIndex:
        return PageIndex(self.bundle)

    @cached_property
    def sections(self) -> SectionIndex:
        return SectionIndex(self.bundle)

    @cached_property
    def api(self) -> ApiRegistry:
        return ApiRegistry(self.bundle)

    @cached_property
    def code(self) -> CodeIndex:
        return CodeIndex(self.bundle)

    def _warn_degraded(self, reason: str) -> None:
        if not self._degraded_warned:
            self._degraded_warned = True
            log.warning("vector search unavailable (%s); searching full-text only", reason)

    def list_tools(self) -> list[dict]:
        return self._tools

    def has_chunk(self, chunk_id: str) -> bool:
        return self.bundle.row_of(chunk_id) is not None

    def call_tool(self, name: str, arguments: dict) -> dict:
        tool = self._by_exposed.get(name)
        if tool is None:
            raise ProtocolError(INVALID_PARAMS, f"Unknown tool '{name}'.")
        try:
            self.bundle.ready()  # a large file still being checked, or failed (integrity.py)
            return self._handlers[tool](arguments)
        except ToolInputError as exc:
            return text_result(str(exc), is_error=True)
        except BundleError as exc:  # a browse table failed its checks on first use
            log.error("%s", exc)
            return text_result(f"The bundle is damaged: {exc}", is_error=True)

    def _pager(self, tool: str, binding: dict) -> Pager:
        return Pager(self._secret, self.bundle.bundle_id, tool, binding)

    # -- shared argument handling ----------------------------------------------------------------

    def _filter_args(
        self, tool: str, args: dict, own: tuple[str, ...], notes: list[str] | None = None
    ) -> dict[str, str]:
        """The taxonomy filters of a call, checked against the bundle's values; a `version`
        may be `latest` or a range, resolved to one value (noted in `notes`)."""
        allowed = [k for k in self.taxonomy if k not in own] if tool in FILTERED else []
        check_fields(args, (*own, *allowed))
        filters: dict[str, str] = {}
        for key in sorted(allowed):
            if key not in args or args[key] is None:
                continue
            value = args[key]
            values = self.taxonomy[key].values
            if key == VERSION_KEY and isinstance(value, str) and value not in values:
                resolved = resolve_version(value, values)
                if resolved is None:
                    raise ToolInputError(
                        f"No version matches {json.dumps(value)}. Available versions: "
                        f"{', '.join(values)} (or latest, or a range such as 1.x, >=1.2, ^1.2)."
                    )
                if notes is not None:
                    notes.append(f"version {json.dumps(value)} resolved to {resolved!r}.")
                value = resolved
            elif not isinstance(value, str) or value not in values:
                raise ToolInputError(
                    f"Invalid taxonomy value for '{key}': {json.dumps(value)}. "
                    f"Allowed values: {', '.join(values)}"
                )
            filters[key] = value
        return filters

    def _budget_arg(self, args: dict, notes: list[str]) -> int | None:
        """`max_tokens` of a call, else the server's default (--max-tokens), else None."""
        if args.get("max_tokens") is None:
            return self.searcher.max_tokens
        return int_arg(args, "max_tokens", 0, MIN_TOKENS, MAX_TOKENS, notes)

    def _exclude_arg(self, args: dict, notes: list[str]) -> tuple[np.ndarray | None, str]:
        """Rows of the chunk ids in `exclude`, and what cursors must be bound to for them."""
        value = exclude_ids(args)
        if value is None:
            return None, ""
        rows = sorted({r for r in map(self.bundle.row_of, value) if r is not None})
        unknown = len(set(value)) - len(rows)
        if unknown:
            notes.append(f"{unknown} chunk id(s) in exclude do not exist and were ignored.")
        if not rows:
            return None, ""
        return np.asarray(rows, dtype=np.int64), "\0exclude:" + ",".join(map(str, rows))

    def _pages(self, row: int) -> tuple[int, int] | None:
        """The first and last page of a PDF's chunk (1-based); None for other chunks."""
        pages = self.bundle.arrays.get("page_ranges")
        if pages is not None and row < len(pages) and pages[row, 0]:
            return int(pages[row, 0]), int(pages[row, 1])
        return None

    def _source(self, row: int) -> dict:
        """Where a chunk comes from: file and lines, and (when the build knew them) the commit,
        its date, the corpus version and a link made from the bundle's URL template."""
        bundle = self.bundle
        file = bundle.cell(row, "path")
        start, end = bundle.cell(row, "line_start"), bundle.cell(row, "line_end")
        out: dict[str, Any] = {"file": file, "lines": [start, end], **self._provenance}
        pages = self._pages(row)
        if pages is not None:
            out["pages"] = list(pages)
        if bundle.metadata.source.url is not None:
            anchor = bundle.id(row).partition("#")[2].rpartition("/")[2]
            if anchor.startswith("_"):  # _preamble, _part-2: no heading of their own
                anchor = ""
            url = bundle.metadata.source.link(file, start, end, anchor)
            if url is not None:
                out["url"] = url
        return out

    # -- search_docs ----------------------------------------------------------------------

    def search_docs(self, args: dict) -> dict:
        notes: list[str] = []
        filters = self._filter_args(SEARCH_DOCS, args, SEARCH_OWN, notes)
        call = search_call(args, notes, self.expand_references)
        budget = self._budget_arg(args, notes)
        exclude, excluded_key = self._exclude_arg(args, notes)
        # What a cursor is bound to besides query and filters: a page of another result list
        # (expanded, other rows excluded) must not continue this one.
        bound = call.bound + excluded_key
        offset = 0
        if call.cursor is not None:
            offset = decode_offset(
                self._secret,
                self.bundle.bundle_id,
                bound,
                filters,
                call.cursor,
                self.bundle.n_chunks,
            )
        page = self.ranked(call, filters, offset, exclude)
        notes.extend(page.notes)
        pattern = snippet_pattern(call.query)
        self.bundle.prefetch(page.rows)
        hits = [
            self.hit(row, score, pattern, page, i)
            for i, (row, score) in enumerate(zip(page.rows, page.scores, strict=True))
        ]
        hits = fit_hits(hits, budget, notes)
        next_offset = offset + len(hits)
        next_cursor = None
        if hits and next_offset < page.total:
            next_cursor = encode_cursor(
                self._secret, self.bundle.bundle_id, bound, filters, next_offset
            )
        hint = None
        if not hits:
            hint = search_hint(
                call.query, filters, page.suggested_filters, page.corpus_matches, offset
            )
        result: dict[str, Any] = {"hits": hits, "next_cursor": next_cursor, "hint": hint}
        if page.degraded:
            self._warn_degraded(page.degraded)
            result["degraded"] = degraded_message(page.degraded)
        return json_result(result, notes)

    @cached_property
    def _sections_or_none(self) -> SectionIndex | None:
        try:
            return self.sections
        except BundleError as exc:  # search goes on without section ids and references
            log.error("%s", exc)
            return None

    def ranked(
        self, call: SearchCall, filters: dict[str, str], offset: int, exclude: np.ndarray | None
    ) -> Page:
        """The rows of one page of a search (the searcher's Page); a spent time budget is a
        tool error."""
        sections = self._sections_or_none
        depth = self.reranker.depth if self.reranker else 0
        try:
            page = self.searcher.search(
                call.query,
                filters,
                0 if depth else offset,
                max(depth, offset + call.limit) if depth else call.limit,
                sections.references if call.expand and sections else None,
                exclude,
                self._section_pins(call.query, sections),
            )
        except SearchTimeout:
            raise ToolInputError(
                f"The search took longer than its {self.searcher.time_budget:g} s budget and was "
                "stopped; try a shorter or more specific query."
            ) from None
        if not depth:
            return page
        return reranked_page(
            self.reranker, self.bundle, call.query, filters, page, offset, call.limit
        )

    def hit(self, row: int, score: float, pattern: Any, page: Page, i: int) -> dict[str, Any]:
        """One search hit: the i-th row of `page`, in the shape the tool contract fixes."""
        bundle = self.bundle
        hit: dict[str, Any] = {
            "chunk_id": bundle.id(row),
            "score": round(score, 6),
            "heading": bundle.cell(row, "heading"),
            "breadcrumb": bundle.cell(row, "breadcrumb"),
            "snippet": snippet(bundle.text(row), pattern),
            "filepath": bundle.cell(row, "path"),
            "metadata": bundle.chunk_meta(row),
            "source": self._source(row),
        }
        if page.also_in and page.also_in[i]:
            # The same section exists for these other values: filter to read one of them.
            hit["also_in"] = page.also_in[i]
        sections = self._sections_or_none
        if sections is not None:
            hit.update(sections.hit_fields(row))
        if row in page.reached_by:
            hit["reached_by_reference"] = bundle.id(page.reached_by[row])
        return hit

    # -- get_doc --------------------------------------------------------------------------

    def get_doc(self, args: dict) -> dict:
        check_fields(
            args, ("chunk_id", "section", "document", "context", "max_tokens", "cursor", "query")
        )
        notes: list[str] = []
        context = int_arg(args, "context", 0, 0, MAX_CONTEXT, notes)
        query = str_arg(args, "query")
        chunk_id = args.get("chunk_id")
        section = str_arg(args, "section")
        document = str_arg(args, "document")
        budget = self._budget_arg(args, notes)
        cursor = cursor_arg(args)
        if chunk_id is None and section is None:
            raise ToolInputError("chunk_id must be a non-empty string (or give section)")
        if chunk_id is not None and section is not None:
            raise ToolInputError("give chunk_id or section, not both")
        if document is not None and section is None:
            raise ToolInputError("document is only used with section")
        if section is not None:
            row = self._section_row(section, document)
        else:
            row = self._chunk_row(chunk_id)
        bundle = self.bundle
        position = bundle.cell(row, "position")
        total = bundle.cell(row, "file_chunk_count")
        first = row - position
        parts = []
        passage = None  # (start, end, length) of the target's text when trimmed to the query
        for r in range(max(first, row - context), min(first + total, row + context + 1)):
            offset = r - row
            role = "Target" if offset == 0 else f"Context: {offset:+d}"
            header = f"--- Chunk: {bundle.id(r)} (Chunk {r - first + 1} of {total}) ({role})"
            pages = self._pages(r)
            if pages is not None:  # a PDF's chunk names its pages, as its hits do
                a, b = pages
                header += f" (page {a})" if a == b else f" (pages {a}-{b})"
            header += " ---"
            body = bundle.text(r)
            if query and not context and cursor is None:
                span = best_passage(body, snippet_pattern(query))
                if span is not None:
                    passage = (*span, len(body))
                    body = body[span[0] : span[1]]
            parts.append(f"{header}\n{body}")
        text = "\n\n".join(parts)
        pager = self._pager(GET_DOC, {"row": row, "context": context})
        start = pager.offset(cursor, len(text))
        end = len(text) if budget is None else cut_point(text, start, budget)
        result = text_result(text[start:end])
        if start or end < len(text):
            # A separate block, so the document text stays exactly (a part of) the chunks.
            part = (
                f"Characters {start}-{end} of {len(text)} (~{approx_tokens(text)} tokens)"
                + (f" with max_tokens {budget}" if budget is not None else "")
                + "."
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

    def _chunk_row(self, chunk_id: object) -> int:
        if not isinstance(chunk_id, str):
            raise ToolInputError("chunk_id must be a non-empty string")
        if not chunk_id or chunk_id != chunk_id.strip() or any(ord(ch) < 32 for ch in chunk_id):
            raise ToolInputError(
                f"Chunk ID '{chunk_id}' has invalid format. "
                "Expected {filepath} or {filepath}#{heading-path}."
            )
        row = self.bundle.row_of(chunk_id)
        if row is None:
            raise ToolInputError(
                f"Chunk ID '{chunk_id}' not found. Use search_docs to discover valid chunk IDs."
            )
        return row

    def _section_pins(self, query: str, sections: SectionIndex | None) -> list[int]:
        """The rows a section lookup query names (`R-exts 5.10.2`, `R-lang section 3.5.2`,
        `§3.14`): the section with that number, in the named document when one is named (a
        path, file stem or title, as `get_doc`'s `document`); none for other queries."""
        lookup = section_query(query)
        if lookup is None or sections is None or not sections.available:
            return []
        document, number = lookup
        rows = sections.rows_named(number)
        if not rows or document is None:
            return rows[:MAX_PINNED]
        try:
            pages = self.pages
        except BundleError:
            return []
        match = pages.find(document, lambda q: [])
        if match.index is None:
            return []
        first = int(pages.first_rows[match.index])
        end = first + int(pages.counts[match.index])
        return [r for r in rows if first <= r < end][:MAX_PINNED]

    def _section_row(self, section: str, document: str | None) -> int:
        rows = self.sections.rows_named(section)
        pages = self.pages
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
                close_matches(section, self.sections.names()),
                "Section numbers and rule ids appear as section_id / rule_ids in search hits.",
            )
        documents = sorted({pages.paths[pages.page_of_row(r)] for r in rows}, key=str.encode)
        if len(documents) > 1:
            raise ToolInputError(
                f"Section '{section}' exists in {len(documents)} documents: "
                f"{', '.join(documents[:10])}. Give document to choose one."
            )
        return rows[0]

    # -- list_sections --------------------------------------------------------------------

    def list_sections(self, args: dict) -> dict:
        notes: list[str] = []
        own = ("category", "path", "depth", "limit", "cursor")
        filters = self._filter_args(LIST_SECTIONS, args, own, notes)
        category = str_arg(args, "category")
        path = str_arg(args, "path")
        depth = int_arg(args, "depth", DEFAULT_DEPTH, 1, MAX_DEPTH, notes)
        limit = int_arg(args, "limit", DEFAULT_LIST, 1, MAX_LIST, notes)
        cursor = cursor_arg(args)
        pages = self.pages
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
            filters, root, matched_by = self._category(category, filters, root)
        entries = self._tree(root, depth, tuple(sorted(filters.items())))
        pager = self._pager(
            LIST_SECTIONS, {"root": root, "depth": depth, "filters": filters, "by": matched_by}
        )
        offset = pager.offset(cursor, len(entries))
        shown = entries[offset : offset + limit]
        result: dict[str, Any] = {
            "root": root,
            "matched_by": matched_by,
            "entries": shown,
            "total": len(entries),
            "next_cursor": pager.next(offset, len(shown), len(entries)),
        }
        if offset == 0 and not root and not filters:
            result["categories"] = self._category_counts()
        return json_result(result, notes)

    def _tree(self, root: str, depth: int, filters: tuple[tuple[str, str], ...]) -> list[dict]:
        """The entries of one listing, remembered: the bundle never changes under a server."""
        key = (root, depth, filters)
        entries = self._trees.get(key)
        if entries is None:
            pages = self.pages
            indices = list(pages.under(root))
            if filters:
                mask = self.searcher.mask(dict(filters))
                keep = mask[pages.first_rows[indices[0] : indices[-1] + 1]] if indices else []
                indices = [i for i, kept in zip(indices, keep, strict=True) if kept]
            entries = tree(pages, indices, root, depth)
            with self._trees_lock:  # HTTP serves calls from several threads
                if len(self._trees) >= TREE_CACHE:
                    self._trees.pop(next(iter(self._trees)))
                self._trees[key] = entries
        return entries

    def _category(
        self, category: str, filters: dict[str, str], root: str
    ) -> tuple[dict[str, str], str, str]:
        """A category is a taxonomy value ('python', or 'language=python') or a folder name."""
        key, _, value = category.partition("=")
        if value and key.strip() in self.taxonomy:
            key, value = key.strip(), value.strip()
            if value not in self.taxonomy[key].values:
                raise not_found(
                    f"Value '{value}' of '{key}'",
                    close_matches(value, self.taxonomy[key].values),
                    f"Values: {', '.join(self.taxonomy[key].values)}.",
                )
            return {**filters, key: value}, root, "taxonomy"
        # A folder of that name first (its tree is what a reader browses), then a filter value.
        folder = self.pages.folder(root + category) or self.pages.folder(category)
        if folder is not None and folder.startswith(root):
            return filters, folder, "folder"
        for key, info in self.taxonomy.items():
            if category in info.values and key not in filters:
                return {**filters, key: category}, root, "taxonomy"
        values = [v for info in self.taxonomy.values() for v in info.values]
        raise not_found(
            f"Category '{category}'",
            close_matches(category, [*values, *self.pages.folder_paths()]),
            "A category is a folder name or a filter value; call list_sections without "
            "arguments to see them.",
        )

    def _category_counts(self) -> dict[str, dict[str, int]]:
        """Pages per taxonomy value; without a taxonomy, pages per top folder (key `folder`)."""
        if not self.taxonomy:
            tops: dict[str, int] = {}
            for path in self.pages.paths:
                top = path.split("/", 1)[0] if "/" in path else "."
                tops[top] = tops.get(top, 0) + 1
            return {"folder": tops}
        firsts = self.pages.first_rows
        facets = self.bundle.arrays["facets"]
        out: dict[str, dict[str, int]] = {}
        for col, (key, info) in enumerate(self.taxonomy.items()):
            codes = np.asarray(facets[firsts, col], dtype=np.int64)
            counts = np.bincount(codes, minlength=len(info.values) + 1)
            out[key] = {v: int(counts[i + 1]) for i, v in enumerate(info.values) if counts[i + 1]}
        return out

    # -- get_page ---------------------------------------------------------------------------

    def get_page(self, args: dict) -> dict:
        check_fields(args, ("path", "cursor", "max_tokens"))
        wanted = str_arg(args, "path", required=True)
        assert wanted is not None
        cursor = cursor_arg(args)
        notes: list[str] = []
        budget = self._budget_arg(args, notes)
        # Whole chunks up to the budget (or MAX_PAGE_CHARS), at least one per call.
        allowance = MAX_PAGE_CHARS if budget is None else budget * CHARS_PER_TOKEN
        pages = self.pages

        def search(query: str) -> list[int]:
            try:
                return self.searcher.search(query, {}, 0, PAGE_SEARCH_DEPTH).rows
            except SearchTimeout:
                return []

        match = pages.find(wanted, search)
        if match.index is None:
            raise not_found(
                f"Page '{wanted}'",
                close_matches(wanted, pages.paths),
                "Use list_sections to browse the pages or search_docs to find one.",
            )
        i = match.index
        first, count = int(pages.first_rows[i]), int(pages.counts[i])
        pager = self._pager(GET_PAGE, {"path": pages.paths[i]})
        start = pager.offset(cursor, count)
        bundle = self.bundle
        texts: list[str] = []
        size = 0
        end = start
        while end < count:
            text = bundle.text(first + end)
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
                + (f" (max_tokens {budget})" if budget is not None else "")
                + "; continue with next_cursor."
            )
        return json_result(result, notes)

    # -- get_api_reference ----------------------------------------------------------------

    def get_api_reference(self, args: dict) -> dict:
        notes: list[str] = []
        own = ("method", "limit", "cursor")
        filters = self._filter_args(GET_API_REFERENCE, args, own, notes)
        method = str_arg(args, "method")
        cursor = cursor_arg(args)
        api = self.api
        if not api.available:
            raise ToolInputError(
                "This bundle has no API registry (built before docsmcp 0.2); rebuild it to use "
                "get_api_reference, or use search_docs."
            )
        entries = list(range(len(api))) if method is None else api.lookup(method)
        if filters:
            mask = self.searcher.mask(filters)
            entries = [i for i in entries if mask[int(api.rows[i])]]
        if method is not None and not entries:
            raise not_found(
                f"Method '{method}'" + (f" with {filters}" if filters else ""),
                close_matches(method, api.known_names()),
                "Call get_api_reference without method to list every entry.",
            )
        limit = int_arg(
            args, "limit", DEFAULT_LIMIT if method else DEFAULT_LIST, 1, MAX_LIST, notes
        )
        pager = self._pager(GET_API_REFERENCE, {"method": method, "filters": filters})
        offset = pager.offset(cursor, len(entries))
        shown = entries[offset : offset + limit]
        result: dict[str, Any] = {}
        if method is not None:
            result["method"] = method
            result["entries"] = [api.spec(i) for i in shown]
        else:
            grouped: dict[str, list[dict]] = {}
            for i in shown:
                grouped.setdefault(api.categories[i] or "(none)", []).append(api.summary(i))
            result["categories"] = grouped
        result["total"] = len(entries)
        result["next_cursor"] = pager.next(offset, len(shown), len(entries))
        return json_result(result, notes)

    # -- get_code_examples ----------------------------------------------------------------

    def get_code_examples(self, args: dict) -> dict:
        notes: list[str] = []
        own = ("query", "topic", "language", "limit")
        filters = self._filter_args(GET_CODE_EXAMPLES, args, own, notes)
        if "query" in args and "topic" in args:
            raise ToolInputError("give query or topic, not both")
        query = query_arg(args, notes, "topic" if "topic" in args else "query")
        limit = int_arg(args, "limit", DEFAULT_LIMIT, 1, MAX_LIMIT, notes)
        language = str_arg(args, "language")
        code = self.code
        if not code.available:
            raise ToolInputError(
                "This bundle has no code table (built before docsmcp 0.2); rebuild it to use "
                "get_code_examples, or use search_docs."
            )
        wanted = normalise_language(language) if language else None
        # A corpus documented per language (a taxonomy key `language`) is filtered too.
        facet = self.taxonomy.get("language")
        if wanted and facet is not None:
            value = next((v for v in facet.values if normalise_language(v) == wanted), None)
            if value is not None and "language" not in filters:
                filters = {**filters, "language": value}
        try:
            page = self.searcher.search(query, filters, 0, CODE_SEARCH_DEPTH)
        except SearchTimeout:
            raise ToolInputError(
                f"The search took longer than its {self.searcher.time_budget:g} s budget and was "
                "stopped; try a shorter or more specific query."
            ) from None
        notes.extend(page.notes)
        examples: list[dict] = []
        for row in page.rows:
            for i in code.of_row(row):
                language = code.languages[i]
                if (wanted and language != wanted) or (
                    not wanted and language in DIAGRAM_LANGUAGES
                ):
                    continue
                examples.append(code.example(i))
                if len(examples) == limit:
                    break
            if len(examples) == limit:
                break
        result: dict[str, Any] = {"examples": examples}
        if not examples:
            result["languages"] = code.language_set()
            notes.append(
                "No code examples matched"
                + (f" in {wanted}" if wanted else "")
                + "; try other words"
                + (" or another language" if wanted else "")
                + "."
            )
        return json_result(result, notes)

    # -- the playground's "why this rank" (explain.py; not an MCP tool) -------------------------

    def explain(self, args: dict) -> dict:
        """{chunk_id: the parts of its score} for a search_docs query and filters; ToolInputError
        for bad arguments."""
        from ..search.explain import explain

        filters = self._filter_args(SEARCH_DOCS, args, ("query", "chunk_ids"), [])
        query = query_arg(args, [])
        ids = args.get("chunk_ids")
        if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
            raise ToolInputError("chunk_ids must be an array of chunk ids")
        rows = {cid: self.bundle.row_of(cid) for cid in ids[:MAX_LIMIT]}
        known = [(cid, row) for cid, row in rows.items() if row is not None]
        parts = explain(self.searcher, query, filters, [row for _, row in known])
        return {cid: part for (cid, _), part in zip(known, parts, strict=True)}

    # -- resources, prompts and completions (resources.py; built on first use) ----------------

    @cached_property
    def docs_resources(self) -> Any:
        from .resources import DocsResources

        return DocsResources(self.bundle, lambda: self.pages)

    def list_resources(self, cursor: str | None) -> dict:
        return self.docs_resources.list_resources(cursor)

    def list_resource_templates(self) -> dict:
        return self.docs_resources.list_resource_templates()

    def read_resource(self, uri: str) -> dict:
        return self.docs_resources.read_resource(uri)

    def list_prompts(self) -> dict:
        return self.docs_resources.list_prompts()

    def get_prompt(self, name: str, arguments: dict[str, str]) -> dict:
        return self.docs_resources.get_prompt(name, arguments)

    def complete(self, ref: dict, argument: dict, context: dict[str, str]) -> dict:
        return self.docs_resources.complete(ref, argument, context)
