"""Section ids, rule ids and cross references between chunks.

Works on the parse the chunker already made (`ParsedFile`) and on the chunks cut from it, so no
file is parsed twice. Everything is one linear pass over the tokens plus dictionary lookups:

- section ids: the number of a numbered heading (`2.4.2.1 SID String Format`, `§3.14 Foo`,
  `Appendix A.2 ...`, `Chapter 4`), see `section_id`;
- rule ids: lines holding nothing but a rule marker (`RULE_ID_LINE`, e.g. `r[items.fn.generics]`
  of mdBook specifications); a marker standing right before a heading names that heading's
  section, so it goes with the heading's chunk;
- references: markdown links (inline and reference style, relative `.md`/`.mdx`/`.html` files,
  extension-less Docusaurus routes, `#anchor`-only links, absolute `/docs/...` routes, bare rule
  ids) and text references (`see section 2.3.3`, `§3.14`, `[MS-DTYP] section 2.3.3`), each
  resolved to a chunk row of the bundle or counted as unresolved.

Counting (`CrossRefs.stats`): external URLs (with a scheme or `//`) and links to files that are no
pages (`.py`, `.png`, `.pdf`: any other extension that does not resolve) are not references. A
link to an anchor of its own chunk counts as found and resolved, but is not listed in
`CrossRefs.references`. Links leaving the docs folder (`../../other-book/x.html`) or to missing
files or anchors are found and unresolved. Anchors match headings on a normalised form (lowercase
letters and digits only), so GitHub, Docusaurus and mdBook slugs all match, duplicates included
(`usage-1`); explicit `{#id}` heading ids and HTML `id`/`name` attributes are anchors too.
A text reference `section N` resolves to the heading numbered N in the same file, else in the
same folder, else anywhere in the corpus when only one heading has that number; `[DOC] section
N` only in the document DOC (a file stem, folder name, frontmatter title or first `#` heading).
Headings finer than the chunks still count: a reference to one lands on the chunk holding it.

Nothing here raises on odd input: a reference that cannot be resolved only counts as unresolved.

Here: finding references per file (`extract_refs`); section numbers and rule markers are read
by section_ids.py, summaries by summary.py, the links of a markdown inline token by
inline_links.py, and references resolved across files by xref_resolve.py.
"""

from __future__ import annotations

import bisect
import dataclasses
import posixpath
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import unquote

from docsmcp.enrich.inline_links import XREF, Lines, html_hrefs, inline_links
from docsmcp.enrich.section_ids import (
    _TEXT_REF,
    GRAMMAR_ANCHOR_PREFIX,
    GRAMMAR_FENCE,
    GRAMMAR_LINE,
    RULE_ID_LINE,
    _has_text_ref,
    section_id,
)
from docsmcp.enrich.summary import page_description, summary
from docsmcp.model.api import OBJECT_ANCHOR
from docsmcp.model.chunk import Chunk, ParsedFile
from docsmcp.sources.formats.markdown.fences import fenced_lines

if TYPE_CHECKING:
    from docsmcp.model.source import SourceFile

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")
_DOC_EXTS = (".md", ".mdx", ".markdown", ".rst", ".qmd", ".rmd", ".rd")
_HTML_EXTS = (".html", ".htm")
# index.html / index.rst: pages of a saved HTML site or a Sphinx project (convert.py);
# page.mdx: a route of a Next.js app (Nextra 4: `/docs/guide` is `docs/guide/page.mdx`).
_INDEX_NAMES = (
    "index.md",
    "index.mdx",
    "README.md",
    "readme.md",
    "_index.md",
    "index.html",
    "index.rst",
    "page.mdx",
    "page.md",
)
_HTML_ANCHOR = re.compile(
    r"<[A-Za-z][\w-]{0,30}\s[^<>\n]{0,200}?\b(?:name|id)\s*=\s*[\"']([^\"'<>\n]{1,200})[\"']"
)
_FILE_EXT = re.compile(r"\.[a-z0-9]{1,8}")
_MAX_ROUTE = 1000  # characters of a frontmatter route, at most
_MAX_HREF = 4096
_MAX_PARTS = 64  # path segments a link may have before we give up on it

KINDS = ("link", "section", "document-section", "object")
IGNORED = -1  # resolve_link: not a reference (external URL, empty link)
_NOT_ALNUM = re.compile(r"[\W_]+")


def _norm(anchor: str) -> str:
    """Anchor key: lowercase letters and digits only (our slugs drop `_`, GitHub and Docusaurus
    keep it, and they differ on punctuation)."""
    return _NOT_ALNUM.sub("", anchor.lower())


@dataclass(frozen=True)
class CrossRefs:
    section_ids: list[str | None]  # per chunk row
    rule_ids: list[tuple[str, ...]]  # per chunk row: every rule id inside the chunk, in order
    # per chunk row: target rows, in order of first appearance, deduplicated, never the row
    references: list[tuple[int, ...]]
    # per chunk row: extractive summary, only for rows some reference targets (None elsewhere)
    summaries: list[str | None]
    # per reference kind ("link", "section", "document-section"): (found, resolved)
    stats: dict[str, tuple[int, int]]
    # per chunk row: distinct texts of the links (from other chunks) that resolve to it
    anchors: list[tuple[str, ...]] = dataclasses.field(default_factory=list)
    # the first MAX_UNRESOLVED_SHOWN links that resolve to no page: (page, link as written)
    unresolved: tuple[tuple[str, str], ...] = ()


# Unresolved links a build names (its summary shows three, `--json` all of these).
MAX_UNRESOLVED_SHOWN = 20


@dataclass(frozen=True, slots=True)
class FileRefs:
    """What the resolver needs of one file, made right after the file is parsed and chunked
    (`extract_refs`) so the parse need not outlive it: strings and ints only. Rows are rows of
    the bundle (`first_row` + the chunk's index in the file)."""

    path: str
    first_row: int
    count: int  # rows (chunks) of the file
    section_ids: tuple[str | None, ...]  # per row of the file: the section id of its heading
    rule_ids: tuple[tuple[str, ...], ...]  # per row of the file: its rule ids, in order
    anchors: dict[str, int]  # normalised anchor -> row (headings, `{#id}`, HTML ids, grammar)
    rules: dict[str, int]  # rule id -> row of its first marker
    productions: dict[str, int]  # grammar production -> row of its first definition
    sections: dict[str, int]  # section id -> row of its first heading
    doc_keys: tuple[str, ...]  # names of the document (`[DOC] section N`); () without sections
    summaries: dict[int, str]  # row -> summary, for rows a reference may target (non-empty)
    # unresolved references in order: ("link", row, href), ("section", row, sid),
    # ("document-section", row, (doc, sid)); external URLs are left out
    refs: tuple[tuple[str, int, str | tuple[str, str]], ...]
    # per reference in `refs`: a link's text (its anchor text), "" for other references
    texts: tuple[str, ...] = ()
    # the URL paths the page's frontmatter gives it (Jekyll `permalink`, Docusaurus `slug`,
    # Hugo `url`), without their slashes at either end: what other pages link to
    routes: tuple[str, ...] = ()
    # the modules an Elixir page documents (`Ecto.Repo`): ExDoc publishes each as a page of
    # that name, which links name (exdoc_links.py)
    modules: tuple[str, ...] = ()


class _FileIndex:
    """Rows of one file while it is extracted: the line -> row mapping and what is found."""

    def __init__(self, parsed: ParsedFile, chunks: list[Chunk], first_row: int) -> None:
        self.parsed = parsed
        self.path = parsed.source.path
        self.first_row = first_row
        self.count = len(chunks)
        self.starts = [c.line_start - 1 for c in chunks]  # 0-based, inclusive
        ends: list[int] = []
        top = -1
        for c in chunks:
            top = max(top, c.line_end - 1)  # 0-based, inclusive, made non-decreasing
            ends.append(top)
        self.ends = ends
        self.anchors: dict[str, int] = {}
        self.rules: dict[str, int] = {}
        self.productions: dict[str, int] = {}
        self.sections: dict[str, int] = {}
        self.rule_ids: dict[int, list[str]] = {}  # row -> rule ids, rows that have some
        self.doc_keys: tuple[str, ...] = ()
        # Section numbers a PDF's headings carried (taken off the heading text), by line.
        self.numbers = dict(parsed.source.section_numbers)

    def chunk_section_ids(self, chunks: list[Chunk]) -> tuple[str | None, ...]:
        """Each chunk's section id: the number of its own heading."""
        if not self.numbers:
            return tuple(section_id(c.heading) for c in chunks)
        out: list[str | None] = []
        for c in chunks:
            sid = None
            for line in range(c.line_start - 1, c.line_end):
                number = self.numbers.get(line)
                if number is not None and _heading_title(self.parsed.lines[line]) == c.heading:
                    sid = number
                    break
            out.append(sid or section_id(c.heading))
        return tuple(out)

    def row_at(self, line: int) -> int | None:
        """Row of the chunk covering 0-based `line`, else None."""
        k = bisect.bisect_left(self.ends, line)
        if k >= self.count or self.starts[k] > line:
            return None
        return self.first_row + k

    def row_from(self, line: int) -> int | None:
        """Row of the chunk covering `line` or else the next one (a heading merged forward),
        else the file's last chunk."""
        if not self.count:
            return None
        k = bisect.bisect_left(self.ends, line)
        return self.first_row + min(k, self.count - 1)

    # -- indexing -------------------------------------------------------------------------------

    def index(self) -> None:
        if not self.count:
            return
        self._index_headings()
        self._index_rules()
        self._index_html_anchors()

    def _doc_keys(self) -> tuple[str, ...]:
        keys = {posixpath.splitext(posixpath.basename(self.path))[0].lower()}
        title = self.parsed.source.title
        if title:
            keys.add(title.strip().lower())
        blocks = self.parsed.blocks
        h1 = next((b.title for b in blocks if b.kind == "heading" and b.level == 1), "")
        if h1:
            keys.add(h1.strip().lower())
        keys.update(part.lower() for part in posixpath.dirname(self.path).split("/") if part)
        return tuple(sorted(keys))

    def _index_headings(self) -> None:
        counts: dict[str, int] = {}
        for b in self.parsed.blocks:
            if b.kind != "heading":
                continue
            row = self.row_from(b.start)
            if row is None:
                continue
            if b.anchor:
                self.anchors.setdefault(_norm(b.anchor), row)
            key = _norm(b.title)
            n = counts.get(key, 0)
            counts[key] = n + 1
            self.anchors.setdefault(key if n == 0 else f"{key}{n}", row)
            sid = self.numbers.get(b.start) or section_id(b.title)
            if sid is not None:
                self.sections.setdefault(sid, row)
        if self.sections:
            self.doc_keys = self._doc_keys()

    def _index_rules(self) -> None:
        if "r[" not in self.parsed.source.body:
            return
        lines = self.parsed.lines
        text = "\n".join(lines)
        matches = list(RULE_ID_LINE.finditer(text))
        if not matches:
            return
        code = fenced_lines(lines)
        heading_lines = {b.start for b in self.parsed.blocks if b.kind == "heading"}
        rule_lines: dict[int, str] = {}
        at = Lines(text, 0)
        for m in matches:
            line = at.at(m.start())
            if not code[line]:
                rule_lines[line] = m.group(1)
        # A marker right before a heading (blank lines and other markers between) names that
        # heading's section: walk back from the end so chains of markers stay linear.
        target: dict[int, int] = {}
        nxt: int | None = None  # the line the marker on the previous (lower) line points to
        for k in range(len(lines) - 1, -1, -1):
            if k in rule_lines:
                target[k] = nxt if nxt is not None else k
                nxt = target[k]
            elif k in heading_lines:
                nxt = k
            elif lines[k].strip():
                nxt = None
        for k in sorted(rule_lines):
            row = self.row_at(target[k])
            if row is None:
                row = self.row_from(target[k])
            if row is None:
                continue
            rule = rule_lines[k]
            self.rule_ids.setdefault(row, []).append(rule)
            self.rules.setdefault(rule, row)

    def _index_html_anchors(self) -> None:
        """Anchors of HTML elements (`<a name="x">`, `<span id="x">`), of a converted page's
        elements (`SourceFile.anchors`) and grammar productions."""
        for line, name in self.parsed.source.anchors:
            row = self.row_from(line)
            if row is not None:
                self.anchors.setdefault(_norm(name), row)
        for line, key, value in self.parsed.markup:  # tags reduced to their text
            row = self.row_from(line) if key != "href" else None
            if row is not None:
                self.anchors.setdefault(_norm(unquote(value)), row)
        body = self.parsed.source.body
        html = "id=" in body or "name=" in body
        grammar = GRAMMAR_FENCE in body
        if not (html or grammar):
            return
        for t in self.parsed.tokens:
            if t.map is None:
                continue
            if t.type in ("html_block", "inline"):
                if html and ("id=" in t.content or "name=" in t.content):
                    at = Lines(t.content, t.map[0])
                    for m in _HTML_ANCHOR.finditer(t.content):
                        row = self.row_from(at.at(m.start()))
                        if row is not None:
                            self.anchors.setdefault(_norm(unquote(m.group(1))), row)
            elif t.type == "fence" and grammar and t.info.strip().startswith(GRAMMAR_FENCE):
                at = Lines(t.content, t.map[0] + 1)
                for m in GRAMMAR_LINE.finditer(t.content):
                    row = self.row_from(at.at(m.start()))
                    if row is not None:
                        name = m.group(1)
                        self.anchors.setdefault(_norm(GRAMMAR_ANCHOR_PREFIX + name), row)
                        self.productions.setdefault(name, row)

    # -- references -----------------------------------------------------------------------------

    def references(self) -> list[tuple[str, int, str | tuple[str, str]]]:
        """The references of the file, unresolved, in order (those without a source row and
        external URLs left out: they count for nothing)."""
        out: list[tuple[str, int, str | tuple[str, str]]] = []
        self.texts: list[str] = []  # anchor text per reference of `out`
        if not self.count:
            return out
        texty = _has_text_ref(self.parsed.source.body)
        heading = False  # whether the next inline token is a heading's (no text references)
        for t in self.parsed.tokens:
            kind = t.type
            if t.map is None:
                continue
            if kind == "heading_open":
                heading = True
                continue
            if kind == "inline":
                content = t.content
                if "[" in content or "href" in content or XREF in content or "@" in content:
                    for offset, href, text in inline_links(t):
                        source = self.row_at(t.map[0] + offset)
                        if source is not None and href.startswith(XREF):
                            # docfx's `<xref:uid>`, `[text](xref:uid)`, `@uid`, `<xref href=…/>`
                            out.append(("object", source, _uid_ref(href)))
                            self.texts.append(text)
                        elif source is not None and not _external(href):
                            out.append(("link", source, href))
                            self.texts.append(text)
                if texty and not heading and _has_text_ref(content):
                    at = Lines(content, t.map[0])
                    for m in _TEXT_REF.finditer(content):
                        source = self.row_at(at.at(m.start()))
                        if source is None:
                            continue
                        doc = m.group("doc")
                        sid = m.group("num")
                        if sid[0].isalpha():
                            sid = sid[0].upper() + sid[1:]
                        if doc is not None and _is_doc_name(doc):
                            out.append(("document-section", source, (doc, sid)))
                        else:
                            out.append(("section", source, sid))
                        self.texts.append("")
                heading = False
            elif kind == "html_block" and "href" in t.content:
                at = Lines(t.content, t.map[0])
                for start, href in html_hrefs(t.content):
                    source = self.row_at(at.at(start))
                    if source is not None and href.startswith(XREF):
                        out.append(("object", source, _uid_ref(href)))
                        self.texts.append("")
                    elif source is not None and not _external(href):
                        out.append(("link", source, href))
                        self.texts.append("")
        for line, key, href in self.parsed.markup:  # links of tags reduced to their text
            source = self.row_at(line) if key == "href" else None
            if source is not None and not _external(href):
                out.append(("link", source, href))
                self.texts.append("")
        # Objects a reST page's code roles name (`:func:`x``): resolved against the objects
        # the reST pages describe; one naming nothing of the corpus counts for nothing.
        for line, name in self.parsed.source.object_refs:
            source = self.row_at(line)
            if source is not None:
                out.append(("object", source, OBJECT_ANCHOR + name))
                self.texts.append(name)
        return out


def _heading_title(line: str) -> str:
    """The text of an ATX heading line as the chunker reads it (markdown escapes removed)."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", line.lstrip("#").strip())


def _external(href: str) -> bool:
    """Whether `resolve_link` ignores `href` whatever the other files are (empty, a URL)."""
    href = href.strip()
    if not href:
        return True
    return len(href) <= _MAX_HREF and (href.startswith("//") or bool(_SCHEME.match(href)))


def shift_refs(refs: FileRefs, offset: int) -> FileRefs:
    """The same record with every row moved by `offset` (a file extracted on its own, at row 0,
    then placed in the bundle)."""
    if not offset:
        return refs

    def moved(rows: dict[str, int]) -> dict[str, int]:
        return {key: row + offset for key, row in rows.items()}

    return dataclasses.replace(
        refs,
        first_row=refs.first_row + offset,
        anchors=moved(refs.anchors),
        rules=moved(refs.rules),
        productions=moved(refs.productions),
        sections=moved(refs.sections),
        summaries={row + offset: text for row, text in refs.summaries.items()},
        refs=tuple((kind, row + offset, payload) for kind, row, payload in refs.refs),
    )


def extract_refs(parsed: ParsedFile, chunks: list[Chunk], first_row: int) -> FileRefs:
    """The reference record of one file whose chunks are rows `first_row`, `first_row + 1`, ...
    of the bundle. Keeps nothing of `parsed` or `chunks`."""
    f = _FileIndex(parsed, chunks, first_row)
    f.index()
    refs = f.references()
    # Only a first row, an anchor, a rule, a production or a section can be a target.
    targets: set[int] = {first_row} if chunks else set()
    for rows in (f.anchors, f.rules, f.productions, f.sections):
        targets.update(rows.values())
    summaries: dict[int, str] = {}
    for row in sorted(targets):
        text = summary(chunks[row - first_row].text)
        if not text and row == first_row:
            # A link to the page whose first section holds no prose (a title over the page's
            # table of contents: Laravel's) reads as the page's description.
            text = page_description(parsed)
        if text:
            summaries[row] = text
    no_rules: tuple[str, ...] = ()
    return FileRefs(
        path=f.path,
        first_row=first_row,
        count=f.count,
        section_ids=f.chunk_section_ids(chunks),
        rule_ids=tuple(
            tuple(f.rule_ids[row]) if row in f.rule_ids else no_rules
            for row in range(first_row, first_row + f.count)
        ),
        anchors=f.anchors,
        rules=f.rules,
        productions=f.productions,
        sections=f.sections,
        doc_keys=f.doc_keys,
        summaries=summaries,
        refs=tuple(refs),
        texts=tuple(f.texts),
        routes=page_routes(parsed.source),
        modules=tuple(
            e.name
            for e in parsed.source.api
            if e.name == e.category and e.signature.startswith(("defmodule ", "defprotocol "))
        ),
    )


# Frontmatter keys that give a page its URL path.
_ROUTE_KEYS = ("permalink", "slug", "url")


def page_routes(source: SourceFile) -> tuple[str, ...]:
    """The URL paths a page's frontmatter gives it: `permalink: /docs/installation/`
    (Jekyll) is `docs/installation`; a Docusaurus `slug` without a leading `/` is relative to
    the page's folder."""
    data = source.frontmatter_with(*_ROUTE_KEYS, "id", "uid")
    out = []
    uid = data.get("uid")
    if isinstance(uid, str) and uid.strip() and len(uid) <= _MAX_ROUTE:
        out.append(XREF + uid.strip().lower())  # docfx's `uid: file1`, what `xref:file1` names
    keys: tuple[str, ...] = _ROUTE_KEYS
    if "slug" not in data and isinstance(data.get("id"), str):
        # A Docusaurus doc's `id` names it in its folder's route (`x.api.mdx` with `id: x`)
        keys = (*keys, "id")
    for key in keys:
        value = data.get(key)
        if not isinstance(value, str) or not value.strip() or len(value) > _MAX_ROUTE:
            continue
        value = value.strip().partition("#")[0].partition("?")[0]
        if not value.startswith("/"):
            value = posixpath.join(posixpath.dirname(source.path), value)
        route = posixpath.normpath("/" + value).strip("/").lower()
        if route:
            out.append(route)
    return tuple(dict.fromkeys(out))


def _uid_ref(href: str) -> str:
    """The reference `xref:uid…` names: its uid, lower case, without a query (`?text=x`) or
    fragment (what a page's routes hold: page_routes)."""
    uid = unquote(href[len(XREF) :].partition("?")[0].partition("#")[0])
    return XREF + uid.lower()


def _is_doc_name(doc: str) -> bool:
    """Whether a bracketed text before `section N` names a document (`[MS-DTYP]`, `[RFC 4120]`)
    rather than being link text or a footnote."""
    doc = doc.strip()
    return bool(doc) and not doc.startswith(("^", "!", "`")) and len(doc.split()) <= 4
