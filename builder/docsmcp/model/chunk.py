"""The records of a parsed page: `Block` (a top-level markdown block with its lines), `ParsedFile`
(one parse shared by the chunker and every extractor) and `Chunk` (a piece of a page as the bundle
stores it).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, TypeVar

from docsmcp.model.source import SourceFile

if TYPE_CHECKING:
    from markdown_it.token import Token

    from docsmcp.model.api import ApiEntry


@dataclass(frozen=True)
class Tab:
    group: int  # which tab set of the file (0-based, in file order)
    start: int  # the label line (0-based)
    end: int  # one past the last line of the tab
    label: str
    language: str  # canonical programming language, "" when the tab is not one


@dataclass(frozen=True)
class Block:
    kind: str  # heading | paragraph | code | table | list | html | blockquote | other
    start: int  # first line, 0-based
    end: int  # one past the last line
    search: str  # block-aware searchable text
    level: int = 0  # heading level, for headings
    title: str = ""  # heading text, for headings (without an explicit `{#id}`)
    anchor: str = ""  # a heading's explicit `{#id}` (Docusaurus, mdBook, pandoc, attr_list)
    prefix: tuple[int, int] | None = None  # table header lines a table-row part repeats
    parts: tuple[Block, ...] = ()  # list items or table rows, the finest split units


@dataclass(frozen=True)
class Chunk:
    id: str
    path: str
    heading: str
    breadcrumb: str
    level: int
    text: str  # original markdown
    search_text: str  # block-aware body text for the full-text index
    heading_text: str  # heading trail (one heading per line) for the boosted field
    line_start: int  # 1-based, inclusive
    line_end: int  # 1-based, inclusive
    metadata: tuple[tuple[str, str], ...] = ()
    pages: tuple[int, int] | None = None  # 1-based, inclusive: a PDF's pages the text came from


@dataclass(frozen=True)
class ParsedFile:
    """One markdown parse of a file, shared by the chunker and every extractor (links, API
    entries, code examples), so no file is parsed twice. Line numbers are 0-based file lines."""

    source: SourceFile
    lines: list[str]  # display lines: the text chunks are sliced from
    tokens: list[Token]  # markdown-it tokens of the parse lines
    blocks: list[Block]  # top-level blocks with their line ranges
    tabs: tuple[Tab, ...] = ()  # content tabs (found by dialects.py), in file order
    # (line, "href" | "id" | "name", value) of the tags readable.py dropped from the parse
    # lines: links and anchors the cross-references still read.
    markup: tuple[tuple[int, str, str], ...] = ()


def file_line(sf: SourceFile, line: int) -> int:
    """The line of the file itself (0-based) that line `line` of its parsed text is: they differ
    after includes (includes.py) made the text longer."""
    line_map = sf.line_map
    return line_map[line] if line_map and 0 <= line < len(line_map) else line


Lined = TypeVar("Lined", "Chunk", "ApiEntry")


def in_file_lines(item: Lined, sf: SourceFile) -> Lined:
    """`item` (a chunk, an API entry) with the line range of the file itself rather than of its
    include-expanded or converted text (the last step: extractors locate blocks in chunks by the
    parsed text's lines)."""
    if not sf.line_map:
        return item
    return replace(
        item,
        line_start=file_line(sf, item.line_start - 1) + 1,
        line_end=file_line(sf, item.line_end - 1) + 1,
    )
