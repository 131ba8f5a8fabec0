"""The browse tables of a bundle (bundle-spec.md, *Browse tables*): pages, sections (section ids,
rule ids, references), the API registry and code blocks, made from the one parse of each file.

Everything the browse tools answer is computed here once, so the runtime only looks up rows.
"""

from __future__ import annotations

import dataclasses
import json
import marshal
import re
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath

import numpy as np
import pyarrow as pa
from docsmcp_runtime.format import API_FILE, CODE_FILE, PAGE_UNORDERED, PAGES_FILE, SECTIONS_FILE
from docsmcp_runtime.format.schemas import API_SCHEMA, CODE_SCHEMA, PAGES_SCHEMA, SECTIONS_SCHEMA
from docsmcp_runtime.search.entry_names import entry_terms, top_level
from docsmcp_runtime.search.languages import normalise_language

from docsmcp.enrich.apiref import extract_api
from docsmcp.enrich.summary import page_description
from docsmcp.enrich.xref import CrossRefs, FileRefs, extract_refs, shift_refs
from docsmcp.enrich.xref_resolve import resolve_refs
from docsmcp.indexing.pagefield import is_code_page
from docsmcp.model.api import ApiEntry
from docsmcp.model.chunk import Chunk, ParsedFile, file_line, in_file_lines

# The prose shown before a code example: at most this many characters of its paragraph, found
# past at most CONTEXT_SKIP paragraphs of markup or headings.
CONTEXT_CHARS = 400
CONTEXT_SKIP = 3
# A line that is markup, not prose: tags, comments, headings, admonition fences.
_MARKUP_LINE = re.compile(r"^\s*(?:</?[A-Za-z][^>]*>|<!--.*-->|#{1,6}\s.*|:::.*)?\s*$")


@dataclass(frozen=True)
class Tables:
    """The browse tables by file name, and what was measured making them."""

    tables: dict[str, pa.Table]
    xref: CrossRefs
    api_entries: int
    code_blocks: int

    def lean(self) -> Tables:
        """The same without the references' per-row lists (the tables hold them; win32: 257k
        rows of section ids, targets, summaries and anchor texts as Python objects), once the
        index has taken the anchor texts: the counts (`xref.stats`) stay."""
        empty = dataclasses.replace(
            self.xref, section_ids=[], rule_ids=[], references=[], summaries=[], anchors=[]
        )
        return dataclasses.replace(self, xref=empty)


@dataclass(frozen=True)
class FileRecords:
    """What the tables need of one file, with rows counted from the file's first chunk (0), so
    it can be made in a worker process and placed in the bundle afterwards (`TableBuilder`)."""

    rows: int  # chunks of the file
    refs: FileRefs
    page: tuple[str, str, str, str, int, int] | None  # path, title, description, frontmatter,
    # chunk count, line count; None for a file without chunks
    api: tuple[tuple[ApiEntry, int], ...]
    code: tuple[tuple[int, str, int, int, int, int, int], ...]


def file_records(parsed: ParsedFile, chunks: list[Chunk]) -> FileRecords:
    """The records of one parsed and chunked file. Keeps nothing of the parse."""
    refs = extract_refs(parsed, chunks, 0)
    if not chunks:  # a page with nothing to index is not in the bundle
        return FileRecords(0, refs, None, (), ())
    source = parsed.source
    page = (
        source.path,
        page_title(parsed),
        page_description(parsed),
        source.frontmatter,
        len(chunks),
        len(source.text.split("\n")) if source.line_map else len(parsed.lines),
    )
    rows = {c.id: k for k, c in enumerate(chunks)}
    api = tuple(
        (in_file_lines(e, source), rows[e.chunk_id])
        for e in extract_api(parsed, chunks)
        if e.chunk_id in rows
    )
    return FileRecords(len(chunks), refs, page, api, tuple(_code_blocks(parsed, chunks, 0)))


class RefSpill:
    """The reference records of every file, in bundle order, with what only the file's own
    pass needs (its references and their texts, summaries, section and rule ids per row: most
    of a record, win32 ~300 MB as objects) marshalled to an unnamed temporary file. What links
    resolve against stays in memory (`targets`). Read in order; `marshal`, not pickle: the
    file is this process's own, and marshal is the fastest for plain tuples and dicts."""

    _SPILLED = ("section_ids", "rule_ids", "summaries", "refs", "texts")

    def __init__(self) -> None:
        self.targets: list[FileRefs] = []
        self._file = tempfile.TemporaryFile()  # noqa: SIM115 (closed by `close`)
        self._sizes: list[int] = []

    def append(self, refs: FileRefs) -> None:
        data = marshal.dumps(tuple(getattr(refs, name) for name in self._SPILLED))
        self._file.write(data)
        self._sizes.append(len(data))
        empty = {"section_ids": (), "rule_ids": (), "summaries": {}, "refs": (), "texts": ()}
        self.targets.append(dataclasses.replace(refs, **empty))

    def __len__(self) -> int:
        return len(self.targets)

    def __iter__(self) -> Iterator[FileRefs]:
        self._file.seek(0)
        for t, size in zip(self.targets, self._sizes, strict=True):
            section_ids, rule_ids, summaries, refs, texts = marshal.loads(self._file.read(size))
            # (not dataclasses.replace: 2x the time, a third of reading 48k records back)
            yield FileRefs(
                t.path,
                t.first_row,
                t.count,
                section_ids,
                rule_ids,
                t.anchors,
                t.rules,
                t.productions,
                t.sections,
                t.doc_keys,
                summaries,
                refs,
                texts,
                t.routes,
            )

    def close(self) -> None:
        self._file.close()


class TableBuilder:
    """Takes each file's records in bundle order (`add`), placing their rows after the rows
    before them; `finish` resolves the references across files and makes the tables."""

    def __init__(self) -> None:
        self._rows = 0
        self._pages: list[tuple[str, str, str, str, int, int, int]] = []
        self._api: list[tuple[ApiEntry, int]] = []
        self._code: list[tuple[int, str, int, int, int, int, int]] = []
        self._refs = RefSpill()
        self._api_counts = (0, 0)  # entries and the pages holding any (`api_counts`)

    def add(self, records: FileRecords) -> None:
        first = self._rows
        self._rows += records.rows
        self._refs.append(shift_refs(records.refs, first))
        if records.page is None:
            return
        path, title, description, frontmatter, count, lines = records.page
        self._pages.append((path, title, description, frontmatter, first, count, lines))
        self._api.extend((entry, first + row) for entry, row in records.api)
        entries, pages = self._api_counts
        self._api_counts = (entries + len(records.api), pages + bool(records.api))
        self._code.extend((first + row, *rest) for row, *rest in records.code)

    def api_counts(self) -> tuple[int, int]:
        """The API entries added, and on how many pages: what the bundle's registry holds
        (init reports it from its validation run, so its count is the build's)."""
        return self._api_counts

    def finish(self) -> Tables:
        try:
            xref = resolve_refs(self._refs, self._rows, self._refs.targets)
        finally:
            self._refs.close()
        _name_definitions(xref.anchors, self._api)
        code = self._code
        tables = {
            PAGES_FILE: _table(self._pages, PAGES_SCHEMA),
            SECTIONS_FILE: pa.table(
                {
                    "section_id": xref.section_ids,
                    # Arrow takes the tuples as they are (a list copy of each cost 0.1 s).
                    "rule_ids": xref.rule_ids,
                    "references": xref.references,
                    "summary": xref.summaries,
                },
                schema=SECTIONS_SCHEMA,
            ),
            API_FILE: _api_table(self._api),
            CODE_FILE: _table(code, CODE_SCHEMA),
        }
        made = Tables(tables, xref, len(self._api), len(code))
        self._pages, self._api, self._code = [], [], []  # (in the tables now)
        return made


def _name_definitions(anchors: list[tuple[str, ...]], api: list[tuple[ApiEntry, int]]) -> None:
    """Add the name of each API entry to the `anchors` field of the chunk that defines it, after
    the texts of the links to it: a definition names its chunk as a link to it does, and a long
    section of many definitions (Sphinx's `.. confval::` entries of one configuration section)
    is otherwise outranked by a short one that only mentions the name (sphinx-doc's
    `autodoc_mock_imports`: autosummary's *Generating stub pages* first, the definition 4th).
    Dev sets: one dev-cases-nl case up, none down (bundle-spec.md, *Full-text index*). Then
    its entry-name terms (entry_names.entry_terms): what a query that is exactly the entry's
    name (`JsonReader`, `Element.select`) searches besides its words, so the class ranks first
    for its name, not its members, whose headings and trails hold that name too. An inherited
    member (`ZodEffects.brand`, `Document.select`) defines nothing: its chunk is named by its
    full and two-part names' terms only, so "brand" finds `ZodType.brand`, not its copies in
    every schema (zod: 150 sections; a Java class's line of inherited methods, one chunk);
    where no entry of its own has that last part (a base no page shows: TypeScript's copies of
    an unexported class's methods), the copies keep it, as they are all a reader finds."""
    top = frozenset(filter(None, (top_level(entry.name) for entry, _ in api)))
    defined = frozenset(_last_part(entry.name) for entry, _ in api if not entry.inherited)
    for entry, row in api:
        if row >= len(anchors):
            continue
        own = not entry.inherited
        terms = entry_terms(entry.name, top, last=own or _last_part(entry.name) not in defined)
        # On a page a code reader made, a member's words are its own name's: the qualifier
        # (`org.jsoup.nodes.Element.`) is on every member of its type, and gave each the
        # type's words at anchor weight and `Element.cssSelector` the bigram "element css"
        # (pagefield.member_headings). Its full name is still an entry-name term.
        code = is_code_page(entry.path) and entry.kind != "type"  # (members: member_headings)
        plain = _last_part(entry.name) if code else entry.name
        if code and own:  # links whose text is the qualified name (`Element.cssSelector()`)
            anchors[row] = tuple(_unqualified(t, entry.name) for t in anchors[row])
            # Its heading's words no longer name it (`Interceptor.Chain.request`): each tail
            # of three parts or more is an entry-name term, as the full and two-part ones are.
            terms = [*terms, *_tails(entry.name, top)]
        named = [t for t in ((plain,) if own else ()) + (*terms,) if t not in anchors[row]]
        if named:
            anchors[row] = (*anchors[row], *named)


def _tails(name: str, top: frozenset[str]) -> list[str]:
    """The entry-name terms of a qualified name's tails between the full name and the last two
    parts (`okhttp3.Interceptor.Chain.request` -> `Interceptor.Chain.request`)."""
    parts = _SEPARATED.split(name.strip())  # [part, separator, part, ...]
    tails = ("".join(parts[i:]) for i in range(2, len(parts) - 4, 2))
    return [t for tail in tails for t in entry_terms(tail, top, last=False)[:1]]


_SEPARATED = re.compile(r"(::|[.#\\])")


def _unqualified(text: str, name: str) -> str:
    """A link's text that is the entry's qualified name or a tail of it (`Element.cssSelector()`,
    `org.jsoup.nodes.Element.cssSelector`) as its last part (`cssSelector`); other texts as
    they are."""
    core = _CALL.sub("", text.strip().strip("`").strip())
    if core != _last_part(core) and (name == core or name.endswith(("." + core, "::" + core))):
        return _last_part(core)
    return text


# A call's or signature's parentheses after a name: `select(String)`, `cssSelector()`.
_CALL = re.compile(r"\([^()]*\)$")


def _last_part(name: str) -> str:
    """`ZodType.brand` -> `brand` (`::`, `#` and `\\` separate parts too: entry_names)."""
    return _LAST_PART.split(name.strip())[-1]


_LAST_PART = re.compile(r"::|[.#\\]")


def _table(rows: list[tuple], schema: pa.Schema) -> pa.Table:
    columns = zip(*rows, strict=True) if rows else [[] for _ in schema.names]
    return pa.table(dict(zip(schema.names, columns, strict=True)), schema=schema)


# -- pages ------------------------------------------------------------------------------------


def page_title(parsed: ParsedFile) -> str:
    """Frontmatter title, else the first level-1 heading, else the title the site's navigation
    gives the page (navfiles.py: httpx's mkdocs nav calls `ssl.md` "SSL", whose first heading is
    "Enabling and disabling verification"), else the first heading, else the file name without
    extension (what a reader of the page would call it)."""
    if parsed.source.title:
        return parsed.source.title
    headings = [b for b in parsed.blocks if b.kind == "heading" and b.title]
    for b in headings:
        if b.level == 1:
            return b.title
    if parsed.source.nav_title.strip():
        return parsed.source.nav_title.strip()
    if headings:
        return headings[0].title
    return PurePosixPath(parsed.source.path).stem


# -- API registry -----------------------------------------------------------------------------


def _api_table(entries: list[tuple[ApiEntry, int]]) -> pa.Table:
    def params(e: ApiEntry) -> str:
        return json.dumps(
            [
                {
                    "name": p.name,
                    "type": p.type,
                    "required": p.required,
                    "description": p.description,
                }
                for p in e.parameters
            ],
            ensure_ascii=False,
        )

    def examples(e: ApiEntry) -> str:
        return json.dumps(
            [{"language": x.language, "code": x.code} for x in e.examples], ensure_ascii=False
        )

    kept = [e for e, _ in entries]
    columns = {
        "name": [e.name for e in kept],
        "category": [e.category for e in kept],
        "kind": [e.kind for e in kept],
        "signature": [e.signature for e in kept],
        "description": [e.description for e in kept],
        "parameters": [params(e) for e in kept],
        "returns": [e.returns for e in kept],
        "examples": [examples(e) for e in kept],
        "row": [row for _, row in entries],
        "line_start": [e.line_start for e in kept],
        "line_end": [e.line_end for e in kept],
    }
    return pa.table(columns, schema=API_SCHEMA)


# -- code blocks ------------------------------------------------------------------------------

_BLANK_LINE = re.compile(r"\n[ \t]*\n")


def _code_blocks(
    parsed: ParsedFile, chunks: list[Chunk], first_row: int
) -> list[tuple[int, str, int, int, int, int, int]]:
    """(row, language, start, end, context_start, line_start, line_end) of every fenced code
    block, located by its exact source text in the chunk that holds its first line."""
    out: list[tuple[int, str, int, int, int, int, int]] = []
    lines = parsed.lines
    k = 0
    for t in parsed.tokens:
        if t.type != "fence" or t.map is None:
            continue
        m0, m1 = t.map
        while k < len(chunks) and chunks[k].line_end < m0 + 1:
            k += 1
        if k == len(chunks):
            break
        if chunks[k].line_start > m0 + 1:
            continue  # not indexed (e.g. a block the chunker dropped as empty)
        source = "\n".join(lines[m0:m1])
        # Chunks may overlap (a section and its language tabs, dialects.py): the block belongs
        # to the first one, in row order, whose text holds it.
        j, at = k, -1
        while j < len(chunks) and chunks[j].line_start <= m0 + 1:
            if chunks[j].line_end >= m0 + 1 and (at := chunks[j].text.find(source)) >= 0:
                break
            j += 1
        if at < 0:
            continue
        chunk = chunks[j]
        opening = lines[m0]
        start = at + len(opening) + 1
        end = at + len(source)
        closing = lines[m1 - 1].strip() if m1 - 1 > m0 else ""
        if closing.startswith(t.markup) and not closing.strip(t.markup[0]):
            end = at + len(source) - len(lines[m1 - 1]) - 1
        if end <= start:
            continue  # an empty block shows nothing
        context = _context_start(chunk.text, at)
        out.append(
            (
                first_row + j,
                normalise_language(t.info),
                start,
                end,
                start if context == at else context,
                file_line(parsed.source, m0) + 1,
                file_line(parsed.source, m1 - 1) + 1,
            )
        )
    # Ordered by row (bundle-spec.md), then where each block stands in its chunk: a block after
    # a section's language tabs belongs to the section's row, before the tabs' rows (React
    # Native's guides: the bundle failed verify).
    out.sort(key=lambda r: (r[0], r[2]))
    return out


def _context_start(text: str, fence_at: int) -> int:
    """Start of the prose just before a fence: the nearest paragraph, looking past up to
    CONTEXT_SKIP paragraphs of markup only (JSX/HTML tags, comments such as
    `<!-- UsageSnippet -->`) and headings, at most CONTEXT_CHARS before the fence and from a line
    start; `fence_at` when there is none (nothing, or another code block or a table first)."""
    before = text[:fence_at].rstrip()
    end = len(before)
    for _ in range(CONTEXT_SKIP + 1):
        if end <= 0:
            return fence_at
        cut = max((m.end() for m in _BLANK_LINE.finditer(before, 0, end)), default=0)
        paragraph = before[cut:end].strip()
        if paragraph.startswith(("```", "~~~", "|")) or paragraph.endswith(("```", "~~~")):
            return fence_at  # code or a table: not prose about this block
        if not all(_MARKUP_LINE.match(line) for line in paragraph.splitlines()):
            lowest = len(before) - CONTEXT_CHARS
            if cut < lowest:
                newline = before.find("\n", lowest)
                cut = newline + 1 if newline >= 0 else lowest
            return cut
        end = cut - 1
    return fence_at


def page_order(pages: pa.Table, nav: Mapping[str, int]) -> np.ndarray | None:
    """page_order.bin for `pages` (pages.parquet): each page's rank among the pages the site's
    navigation names (0, 1, 2, ... in its order), PAGE_UNORDERED for the others; None when it
    names none (the file is then left out)."""
    paths = pages.column("path").to_pylist()
    named = sorted((nav[p], i) for i, p in enumerate(paths) if p in nav)
    if not named:
        return None
    order = np.full(len(paths), PAGE_UNORDERED, dtype=np.uint32)
    for rank, (_, i) in enumerate(named):
        order[i] = rank
    return order
