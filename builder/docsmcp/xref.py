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
"""

from __future__ import annotations

import bisect
import dataclasses
import posixpath
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import unquote

from .chunk import Chunk, ParsedFile

if TYPE_CHECKING:
    from markdown_it.token import Token
from .fences import fenced_lines

# A line that holds only a rule marker; group 1 is the rule id. Data, not code: change this
# pattern to support another marker syntax (mdBook-spec writes `r[items.fn.generics]`).
RULE_ID_LINE = re.compile(r"^[ \t]{0,3}r\[([A-Za-z0-9_][A-Za-z0-9_.:\-]*)\][ \t]*$", re.MULTILINE)
# Anchor prefixes a renderer gives rule markers (mdBook-spec: `#r-items.fn.generics`).
RULE_ANCHOR_PREFIXES = ("r-",)

# Grammar productions: in a fenced block whose info string starts with GRAMMAR_FENCE, each
# GRAMMAR_LINE defines a production that links reach as `#grammar-Name` (GRAMMAR_ANCHOR_PREFIX)
# or by its bare name (mdBook-spec grammar blocks: `Function ->`).
GRAMMAR_FENCE = "grammar"
GRAMMAR_LINE = re.compile(r"^[ \t]*([A-Za-z_][A-Za-z0-9_]*)[ \t]*->", re.MULTILINE)
GRAMMAR_ANCHOR_PREFIX = "grammar-"

# Words that may introduce a section number in a heading or in a text reference.
SECTION_WORDS = ("section", "sect", "sec", "chapter", "appendix", "annex", "part", "clause")
# Words that mark a heading as a release/version heading rather than a numbered section.
VERSION_WORDS = frozenset({"release", "released", "version", "versions", "changelog", "rc"})

_NUM = r"(?:(?-i:[A-Z])(?:\d{1,3})?(?:\.\d{1,3})+|\d{1,3}(?:\.\d{1,3})*|(?-i:[A-Z]))"
_SECTION_HEADING = re.compile(
    rf"^(?:(?P<word>{'|'.join(SECTION_WORDS)})\.?\s+|(?P<sign>§)\s*)?"
    rf"(?P<num>{_NUM})(?P<dot>\.?)(?P<rest>(?:[\s:)\u2013\u2014-].*)?)$",
    re.IGNORECASE | re.DOTALL,
)
# Text references: `see section 2.3.3`, `Section 5.9.1 [Title]`, `§3.14`, `§ 3.14`,
# `sections 2.1`, and with a document in brackets before it: `[MS-DTYP] section 2.3.3`.
_REF_NUM = r"(?:(?-i:[A-Z])\d{0,3}(?:\.\d{1,3})+|\d{1,3}(?:\.\d{1,3})*)"
_TEXT_REF = re.compile(
    r"(?:\[(?P<doc>[^\[\]\n]{1,80})\][ \t]*(?:,[ \t]*)?)?"
    rf"(?:\b(?:sections?|sect\.|sec\.)[ \t]+|§[ \t]*)(?P<num>{_REF_NUM})(?![\w.]*\w)",
    re.IGNORECASE,
)


def _has_text_ref(text: str) -> bool:
    """Cheap test before `_TEXT_REF`: whether `text` may hold a text reference at all."""
    if "§" in text:
        return True
    low = text.lower()
    return "section" in low or "sec." in low or "sect." in low


_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")
_DOC_EXTS = (".md", ".mdx", ".markdown", ".rst")
_HTML_EXTS = (".html", ".htm")
# index.html / index.rst: pages of a saved HTML site or a Sphinx project (convert.py).
_INDEX_NAMES = (
    "index.md",
    "index.mdx",
    "README.md",
    "readme.md",
    "_index.md",
    "index.html",
    "index.rst",
)
_HTML_ANCHOR = re.compile(
    r"<[A-Za-z][\w-]{0,30}\s[^<>\n]{0,200}?\b(?:name|id)\s*=\s*[\"']([^\"'<>\n]{1,200})[\"']"
)
_HTML_HREF = re.compile(r"\bhref\s*=\s*[\"']([^\"'<>\n]{1,2000})[\"']")
_FILE_EXT = re.compile(r"\.[a-z0-9]{1,8}")
_MAX_HREF = 4096
_MAX_PARTS = 64  # path segments a link may have before we give up on it

KINDS = ("link", "section", "document-section")
IGNORED = -1  # resolve_link: not a reference (external URL, empty link)
# Link paths whose file the resolver remembers at a time (bounded: ~150 bytes each).
MAX_REMEMBERED_PATHS = 1 << 17


def section_id(heading: str) -> str | None:
    """The section number of a numbered heading, else None.

    `2.4.2.1 SID String Format Syntax` -> "2.4.2.1", `D1.2.3 Exception vectors` -> "D1.2.3",
    `§3.14 Foo` -> "3.14", `Appendix A.2 Bar` -> "A.2", `1. Introduction` -> "1",
    `Chapter 4` -> "4". Not numbers: years and status codes (`2024 roadmap`, `404 errors`: a
    plain number needs a trailing dot), words (`1password`), versions (`v1.2.0`, `0.5.x`,
    `1.2.0` with a zero part, any heading mentioning a release or version), a lone letter
    without a section word (`A Tour`).
    """
    text = heading.strip().lstrip("#").strip()
    if not text or len(text) > 500:
        return None
    m = _SECTION_HEADING.match(text)
    if m is None:
        return None
    num, rest, dotted = m.group("num"), m.group("rest").strip(), bool(m.group("dot"))
    prefixed = bool(m.group("word") or m.group("sign"))
    parts = num.split(".")
    if num[0].isalpha():
        if num[0] == "V" and num[1:2].isdigit():
            return None  # V1.2: a version
        if len(parts) == 1 and not (prefixed and len(num) == 1):
            return None  # a lone letter (`A Tour`) or `H2 headings`, `S3 buckets`
    elif len(parts) == 1 and not (prefixed or dotted):
        return None  # `404 errors`, `3 ways to ...`
    if not prefixed and not rest:
        return None  # a bare `1.2` heading is a version more often than a section
    if m.group("word") and m.group("word").lower() == "part" and not rest:
        return None
    if len(parts) >= 2 and (parts[0] == "0" or (len(parts) >= 3 and "0" in parts[1:])):
        return None  # 0.5, 1.2.0: versions (sections are numbered from 1)
    words = re.findall(r"[a-z]+", rest.lower())
    if VERSION_WORDS.intersection(words):
        return None
    return num


_IMAGE = re.compile(r"!\[[^\]\n]{0,500}\]\([^)\n]{0,2000}\)")
_FOOTNOTE_REF = re.compile(r"\[\^[^\]\n]{0,200}\]")
_INLINE_LINK = re.compile(r"\[([^\]\n]{0,500})\]\([^)\n]{0,2000}\)")
_REFERENCE_LINK = re.compile(r"\[([^\]\n]{0,500})\]\[[^\]\n]{0,500}\]")
_SHORTCUT_LINK = re.compile(r"\[([^\]\n]{0,500})\]")
_TAG = re.compile(r"<[^<>]{0,2000}>")
_JSX_EXPRESSION = re.compile(r"\{[^{}\n]{0,500}\}")
_EMPHASIS = re.compile(r"(\*\*|__|\*|~~)(?=\S)|(?<=\S)(\*\*|__|\*|~~)")
_UNDERSCORE = re.compile(r"(?<![\w])_(?=\w)|(?<=\w)_(?![\w])")
_SPACES = re.compile(r"\s+")


def _strip_inline(text: str) -> str:
    """Markdown inline syntax out of a line: links/images to their text, code spans, emphasis,
    HTML/JSX tags and expressions. A pattern runs only when its first character is in the
    line (most lines of prose hold no `[`, `<` or `{`: this was ~4 % of a win32 worker)."""
    if "[" in text:
        text = _IMAGE.sub("", text)  # images
        text = _FOOTNOTE_REF.sub("", text)  # footnote references
        text = _INLINE_LINK.sub(r"\1", text)  # inline links
        text = _REFERENCE_LINK.sub(r"\1", text)  # reference links
        text = _SHORTCUT_LINK.sub(r"\1", text)  # shortcut links
    end = text.rfind(">") + 1  # tags only up to the last `>` (see chunk._strip_tags)
    if end:
        text = _TAG.sub(" ", text[:end]) + text[end:]
    if "{" in text:
        text = _JSX_EXPRESSION.sub(" ", text)  # JSX expressions
    text = text.replace("`", "")
    if "*" in text or "_" in text or "~" in text:
        text = _EMPHASIS.sub("", text)
    if "_" in text:
        text = _UNDERSCORE.sub("", text)
    return _SPACES.sub(" ", text).strip()


_SKIP_LINE = re.compile(
    r"^\s*(?:#{1,6}(?:\s|$)|\||:::|import\s|export\s|<[^>]*>?\s*$|\[[^\]]*\]:\s|[-*_=]{3,}\s*$"
    r"|!\[)"
)
_SUMMARY_WINDOWS = (40, 400)
_STRUCTURE = re.compile(r"^\s*(?:#{1,6}(?:\s|$)|\|)")  # a heading or table after prose ends it
_BULLET = re.compile(r"^\s*(?:>\s*)*(?:[-*+]|\d{1,9}[.)])\s+")
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9])")


def summary(text: str, limit: int = 200) -> str:
    """Extractive summary of a markdown text: its first sentence(s), at most `limit` characters,
    without markdown, HTML/JSX or code ("" when the text has no prose)."""
    if limit <= 0:
        return ""
    prose = ""
    for window in _SUMMARY_WINDOWS:  # the prose is at the top: look further only if needed
        lines = text.split("\n", window)[:window]
        prose, complete = _leading_prose(lines, limit)
        if complete or len(lines) < window:
            break
    if not prose:
        return ""
    out = ""
    for sentence in _SENTENCE_END.split(prose[: limit * 4]):
        candidate = f"{out} {sentence}".strip()
        if len(candidate) > limit:
            break
        out = candidate
    if out:
        return out
    return truncate(prose, limit)


def truncate(text: str, limit: int) -> str:
    """`text` cut to at most `limit` characters at a word boundary (when one lies in its second
    half), with an ellipsis when cut."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:-") + "…"


_NOT_ALNUM = re.compile(r"[\W_]+")


def _leading_prose(lines: list[str], limit: int) -> tuple[str, bool]:
    """Plain text of the first prose paragraphs of `lines`: from the first prose line until a
    heading, table or code block follows, or more than `limit` characters are collected. Also
    whether it ended for such a reason (False: the lines ran out first)."""
    code = fenced_lines(lines)
    parts: list[str] = []
    size = 0
    for line, in_code in zip(lines, code, strict=False):
        if in_code or _STRUCTURE.match(line):
            if parts:
                return " ".join(parts), True
            continue
        if not line.strip() or _SKIP_LINE.match(line) or RULE_ID_LINE.match(line):
            if size > limit:
                return " ".join(parts), True
            continue
        clean = _strip_inline(_BULLET.sub("", line[:5000]))
        if clean:
            parts.append(clean)
            size += len(clean) + 1
    return " ".join(parts), False


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
        at = _Lines(text, 0)
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
                    at = _Lines(t.content, t.map[0])
                    for m in _HTML_ANCHOR.finditer(t.content):
                        row = self.row_from(at.at(m.start()))
                        if row is not None:
                            self.anchors.setdefault(_norm(unquote(m.group(1))), row)
            elif t.type == "fence" and grammar and t.info.strip().startswith(GRAMMAR_FENCE):
                at = _Lines(t.content, t.map[0] + 1)
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
                if "[" in content or "href" in content:
                    for offset, href, text in _inline_links(t):
                        source = self.row_at(t.map[0] + offset)
                        if source is not None and not _external(href):
                            out.append(("link", source, href))
                            self.texts.append(text)
                if texty and not heading and _has_text_ref(content):
                    at = _Lines(content, t.map[0])
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
                at = _Lines(t.content, t.map[0])
                for m in _HTML_HREF.finditer(t.content):
                    source = self.row_at(at.at(m.start()))
                    if source is not None and not _external(m.group(1)):
                        out.append(("link", source, m.group(1)))
                        self.texts.append("")
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
    )


class _Resolver:
    def __init__(self, files: Sequence[FileRefs], n_rows: int) -> None:
        self.files = files
        self.rows = n_rows
        self.by_path: dict[str, int] = {}
        self.by_lower_path: dict[str, int] = {}
        self.folders: set[str] = set()
        self.rules: dict[str, int] = {}  # rule id -> row, over the corpus
        self.productions: dict[str, int] = {}  # grammar production -> row, over the corpus
        self.sections_global: dict[str, list[int]] = {}  # section id -> rows
        self.sections_by_dir: dict[tuple[str, str], int] = {}
        self.sections_by_doc: dict[tuple[str, str], int] = {}
        # Anchors of every reST page: Sphinx's `:ref:` labels are global (rst.py writes a
        # label of another page as `#label`).
        self.rst_anchors: dict[str, int] = {}
        # (link path, source folder) -> file: pages of a folder link to the same pages, and
        # each path tries up to ~10 candidate files (win32: 768k link paths, 8 M lookups).
        self._paths: dict[tuple[str, str], int | None] = {}
        self._source, self._base, self._top = "", "", ""  # the last page, its folders
        for k, f in enumerate(files):
            if f.path.lower().endswith(".rst"):
                for key, row in f.anchors.items():
                    self.rst_anchors.setdefault(key, row)
            self.by_path.setdefault(f.path, k)
            self.by_lower_path.setdefault(f.path.lower(), k)
            folder = posixpath.dirname(f.path)
            while folder and folder not in self.folders:
                self.folders.add(folder)
                folder = posixpath.dirname(folder)
            for rule, row in f.rules.items():
                self.rules.setdefault(rule, row)
            for name, row in f.productions.items():
                self.productions.setdefault(name, row)
            folder = posixpath.dirname(f.path)
            for sid, row in f.sections.items():
                self.sections_global.setdefault(sid, []).append(row)
                self.sections_by_dir.setdefault((folder, sid), row)
                for doc in f.doc_keys:
                    self.sections_by_doc.setdefault((doc, sid), row)

        self.lower_folders = {folder.lower() for folder in self.folders}

    # -- links ----------------------------------------------------------------------------------

    def _file(self, path: str) -> int | None:
        """The file at `path`, else the first whose path is `path` but for case."""
        k = self.by_lower_path.get(path.lower())
        if k is None:  # (most candidates name no file: one lookup decides)
            return None
        exact = self.by_path.get(path)
        return k if exact is None else exact

    def _candidates(self, path: str) -> Iterator[str]:
        """File paths a link path may mean, most literal first."""
        folder = path.endswith("/")
        trimmed = path.rstrip("/")
        if not trimmed:
            yield from _INDEX_NAMES
            return
        lower = trimmed.lower()
        if lower.endswith(_DOC_EXTS) and not folder:
            yield trimmed
            return
        if lower.endswith(_HTML_EXTS) and not folder:  # mdBook: `x.html` is `x.md`
            yield trimmed  # a page of a saved HTML site (convert.py)
            stem = trimmed[: trimmed.rfind(".")]
            yield stem + ".md"
            yield stem + ".mdx"
            if posixpath.basename(stem).lower() == "index":
                yield posixpath.join(posixpath.dirname(stem), "README.md")
            return
        if not folder:  # a route: `./authentication` is `authentication.md(x)`
            yield trimmed + ".md"
            yield trimmed + ".mdx"
        if lower in self.lower_folders:  # (no index page of a folder that holds no page)
            for name in _INDEX_NAMES:
                yield f"{trimmed}/{name}"

    def _find(self, path: str) -> int | None:
        for cand in self._candidates(path):
            k = self._file(cand)
            if k is not None:
                return k
        return None

    def resolve_link(self, href: str, source: FileRefs) -> int | None:
        """Row a link points to; None when unresolved; IGNORED when it is not a reference we
        count (an external URL, an empty link)."""
        href = href.strip()
        if not href:
            return IGNORED
        if len(href) > _MAX_HREF:
            return None
        if href.startswith("//") or _SCHEME.match(href):
            return IGNORED
        path, _, anchor = href.partition("#")
        path = path.partition("?")[0]
        # (unquote only where there is something to unquote: two calls a link were ~10 % here)
        path = (unquote(path) if "%" in path else path).replace("\\", "/")
        anchor = (unquote(anchor) if "%" in anchor else anchor).strip()
        if path.count("/") > _MAX_PARTS or "\x00" in path:
            return None
        if not path:
            if not anchor:
                return IGNORED
            row = self._anchor(source, anchor)
            if row is None and source.path.lower().endswith(".rst"):
                row = self.rst_anchors.get(_norm(anchor))
            return row
        target = self._resolve_path(path, source)
        if target is None:
            if "/" not in path and not anchor:
                # mdBook-spec: a bare rule id or grammar production as link destination
                row = self.rules.get(path)
                if row is None:
                    row = self.productions.get(path)
                if row is not None:
                    return row
            ext = posixpath.splitext(posixpath.basename(path.rstrip("/")))[1].lower()
            if _FILE_EXT.fullmatch(ext) and ext not in _DOC_EXTS + _HTML_EXTS:
                return IGNORED  # a source file, image or PDF: not a page of the bundle
            return None
        return self._anchor(self.files[target], anchor)

    def _resolve_path(self, path: str, source: FileRefs) -> int | None:
        if source.path != self._source:  # links come file by file
            self._source, self._base = source.path, posixpath.dirname(source.path)
            self._top = source.path.partition("/")[0] if "/" in source.path else ""
        # What the path resolves to depends on the source's folder, or for an absolute path
        # only on its top folder: pages all over a corpus share those (win32: 780k links,
        # most absolute, from 48k pages in ~5k folders).
        key = (path, self._top if path.startswith("/") else self._base)
        found = self._paths.get(key, IGNORED)
        if found == IGNORED:
            if len(self._paths) >= MAX_REMEMBERED_PATHS:
                self._paths.clear()  # (files come folder by folder: recent paths repeat)
            found = self._paths[key] = self._resolve_path_from(path, self._base, source.path)
        return found

    def _resolve_path_from(self, path: str, base: str, source_path: str) -> int | None:
        """`_resolve_path` of a link in a page of folder `base` (its path: `source_path`)."""
        slash = "/" if path.endswith("/") else ""
        if path.startswith("/"):
            return self._resolve_absolute(path, source_path, slash)
        joined = posixpath.normpath(posixpath.join(base, path))
        if joined == ".." or joined.startswith("../"):
            return None  # escapes the docs: not in the bundle
        k = self._find("" if joined == "." else joined + slash)
        if k is not None or not base:
            return k
        # Docusaurus serves `dir/foo.md` as the route `/dir/foo`: a relative link from it may
        # be written against the page's route rather than its folder.
        alt = posixpath.normpath(posixpath.join(base, "..", path))
        if alt == ".." or alt.startswith("../"):
            return None
        return self._find("" if alt == "." else alt + slash)

    def _resolve_absolute(self, path: str, source_path: str, slash: str) -> int | None:
        """`/docs/x`: against the docs root, under the source's top folder, and without a
        leading route segment that is no folder of the docs (`/docs/` when the docs root is
        the `docs` folder itself)."""
        rel = posixpath.normpath("/" + path.lstrip("/")).lstrip("/")
        tries = [rel]
        top = source_path.partition("/")[0] if "/" in source_path else ""
        if top:
            tries.append(f"{top}/{rel}" if rel else top)
        head, _, tail = rel.partition("/")
        if tail and head not in self.folders:
            tries.append(tail)
            if top:
                tries.append(f"{top}/{tail}")
        for t in tries:
            k = self._find(t + slash if t else "")
            if k is not None:
                return k
        return None

    def _anchor(self, f: FileRefs, anchor: str) -> int | None:
        if not f.count:
            return None
        if not anchor:
            return f.first_row
        row = f.anchors.get(_norm(anchor))
        if row is not None:
            return row
        for prefix in RULE_ANCHOR_PREFIXES:
            if anchor.startswith(prefix):
                rule = anchor[len(prefix) :]
                row = f.rules.get(rule)
                if row is None:
                    row = self.rules.get(rule)
                if row is not None:
                    return row
        if anchor in f.rules:
            return f.rules[anchor]
        if anchor.startswith(GRAMMAR_ANCHOR_PREFIX):
            return self.productions.get(anchor[len(GRAMMAR_ANCHOR_PREFIX) :])
        return None

    # -- text references ------------------------------------------------------------------------

    def resolve_section(self, sid: str, source: FileRefs) -> int | None:
        row = source.sections.get(sid)
        if row is not None:
            return row
        row = self.sections_by_dir.get((posixpath.dirname(source.path), sid))
        if row is not None:
            return row
        rows = self.sections_global.get(sid)
        if rows is not None and len(rows) == 1:
            return rows[0]
        return None

    def resolve_doc_section(self, doc: str, sid: str) -> int | None:
        key = doc.strip().lower()
        row = self.sections_by_doc.get((key, sid))
        if row is None and key.endswith((".md", ".mdx")):
            row = self.sections_by_doc.get((key.rsplit(".", 1)[0], sid))
        return row


class _Lines:
    """Line of an offset in a text, for offsets visited in increasing order (linear overall,
    where counting newlines from the start for each match would be quadratic)."""

    def __init__(self, text: str, first: int) -> None:
        self.text = text
        self.pos = 0
        self.line = first

    def at(self, pos: int) -> int:
        if pos > self.pos:
            self.line += self.text.count("\n", self.pos, pos)
            self.pos = pos
        return self.line


def _inline_links(token: Token) -> Iterator[tuple[int, str, str]]:
    """(line offset in the block, href, link text) of each link in an inline token (the text
    of an HTML link is "")."""
    offset = 0
    open_at: tuple[int, str] | None = None  # the markdown link being read: (offset, href)
    words: list[str] = []
    for child in token.children or ():
        kind = child.type
        if kind == "softbreak" or kind == "hardbreak":
            offset += 1
            words.append(" ")
        elif kind == "link_open":
            href = child.attrs.get("href")
            if open_at is not None:  # nested (invalid in markdown): the outer one ends here
                yield open_at[0], open_at[1], _link_text(words)
            open_at = (offset, href) if isinstance(href, str) else None
            words = []
        elif kind == "link_close":
            if open_at is not None:
                yield open_at[0], open_at[1], _link_text(words)
            open_at = None
        elif kind == "html_inline" and "href" in child.content:
            for m in _HTML_HREF.finditer(child.content):
                yield offset, m.group(1), ""
        elif kind == "text" or kind == "code_inline":
            if open_at is not None:
                words.append(child.content)
            if "\n" in child.content:
                offset += child.content.count("\n")
    if open_at is not None:
        yield open_at[0], open_at[1], _link_text(words)


# At most this many characters of one link's text are kept as anchor text.
MAX_ANCHOR_CHARS = 200


def _link_text(words: list[str]) -> str:
    return " ".join("".join(words).split())[:MAX_ANCHOR_CHARS]


def resolve_refs(
    files: Iterable[FileRefs], n_rows: int, targets: list[FileRefs] | None = None
) -> CrossRefs:
    """Section ids, rule ids, resolved references and target summaries of every chunk row, from
    the records of every file of the bundle in row order (`n_rows`: the rows of all of them).
    `targets`: the same records with only what a link is resolved against (path, rows,
    anchors, rules, productions, sections, document keys), when `files` is only iterable
    (tables.RefSpill reads records back from disk; `files` is iterated twice)."""
    res = _Resolver(list(files) if targets is None else targets, n_rows)
    refs: dict[int, dict[int, None]] = {}  # source row -> targets (an ordered set)
    found = dict.fromkeys(KINDS, 0)
    resolved = dict.fromkeys(KINDS, 0)
    anchors: dict[int, dict[str, None]] = {}  # target row -> link texts (an ordered set)
    for f in files:
        texts = f.texts if len(f.texts) == len(f.refs) else ("",) * len(f.refs)
        for (kind, source, payload), text in zip(f.refs, texts, strict=True):
            if isinstance(payload, tuple):  # document-section: (doc, sid)
                target = res.resolve_doc_section(*payload)
            elif kind == "link":
                target = res.resolve_link(payload, f)
                if target == IGNORED:
                    continue
            else:
                target = res.resolve_section(payload, f)
            found[kind] += 1
            if target is None or not 0 <= target < n_rows:
                continue
            resolved[kind] += 1
            if target != source:
                refs.setdefault(source, {}).setdefault(target, None)
                if anchor_text(text):
                    anchors.setdefault(target, {}).setdefault(text, None)

    references = [tuple(refs[k]) if k in refs else () for k in range(n_rows)]
    targeted = {t for r in references for t in r}
    summaries: list[str | None] = [None] * n_rows
    section_ids: list[str | None] = [None] * n_rows
    rule_ids: list[tuple[str, ...]] = [()] * n_rows
    for f in files:
        for row, text in f.summaries.items():
            if row in targeted:
                summaries[row] = text
        section_ids[f.first_row : f.first_row + f.count] = f.section_ids
        rule_ids[f.first_row : f.first_row + f.count] = f.rule_ids
    return CrossRefs(
        section_ids=section_ids,
        rule_ids=rule_ids,
        references=references,
        summaries=summaries,
        stats={k: (found[k], resolved[k]) for k in KINDS},
        anchors=[tuple(anchors[k])[:MAX_ANCHORS] if k in anchors else () for k in range(n_rows)],
    )


# Link texts that say nothing about their target ("see here"); compared casefolded.
GENERIC_ANCHORS = frozenset(
    {
        "here",
        "click here",
        "this",
        "this page",
        "link",
        "this link",
        "more",
        "read more",
        "learn more",
        "see",
        "see here",
        "docs",
        "documentation",
        "details",
        "see more",
        "source",
    }
)
# Distinct anchor texts kept per target row (in order of first appearance).
MAX_ANCHORS = 64


def anchor_text(text: str) -> bool:
    """Whether a link's text says something about its target: not empty, generic or a URL."""
    low = text.strip().casefold()
    return bool(low) and low not in GENERIC_ANCHORS and not _external(low) and "://" not in low


def cross_references(files: list[ParsedFile], chunks_per_file: list[list[Chunk]]) -> CrossRefs:
    """Section ids, rule ids, resolved references and target summaries of every chunk row (rows
    are the chunks of `chunks_per_file` concatenated in order): `extract_refs` of each file,
    then `resolve_refs`."""
    out: list[FileRefs] = []
    row = 0
    for parsed, chunks in zip(files, chunks_per_file, strict=False):
        out.append(extract_refs(parsed, chunks, row))
        row += len(chunks)
    return resolve_refs(out, row)


def _is_doc_name(doc: str) -> bool:
    """Whether a bracketed text before `section N` names a document (`[MS-DTYP]`, `[RFC 4120]`)
    rather than being link text or a footnote."""
    doc = doc.strip()
    return bool(doc) and not doc.startswith(("^", "!", "`")) and len(doc.split()) <= 4
