"""From the text lines of PDF pages to markdown-like text (issue 10).

Pure functions over plain records, so they are tested and fuzzed without a PDF library; `extract.py`
reads the pages (pypdfium2) and calls `assemble`. What a page line becomes:

- page headers and footers (a first or last line carrying the printed page number, or repeated
  on many pages) and table-of-contents lines (dot leaders) are dropped;
- outline (bookmark) entries become `#` headings at their depth + 1, placed on the line of their
  page that carries the title (else at the top of the page); without an outline, bold lines
  larger than the body text become headings, numbered ones at their number's depth;
- a section number in front of a heading (`5.10.2 Calling .External`) is taken off the heading
  text and recorded as its section id (`section_numbers`);
- runs of monospaced lines become fenced code blocks, with indentation rebuilt from the x
  positions; other lines are prose: paragraphs break at larger vertical gaps, words hyphenated
  at a line end are joined, ligatures, non-breaking spaces and soft hyphens are normalised, and
  characters that would start markdown syntax are escaped.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence

from docsmcp.sources.pdf.model import Line, Link, Markdown, OutlineEntry
from docsmcp.sources.pdf.reading import (
    _BLOCK_START,
    _INLINE_HTML,
    MAX_HEADING_CHARS,
    MAX_INDENT,
    MAX_LEVEL,
    MONO_ADVANCE,
    _body_size,
    _cleaned,
    _drop_headers,
    _key,
    clean,
    reading_order,
    split_number,
)
from docsmcp.sources.pdf.tables import find_tables, render


def _place_outline(
    pages: Sequence[Sequence[Line]], outline: Sequence[OutlineEntry], body: float
) -> dict[tuple[int, int], list[tuple[int, str, int]]]:
    """Where each outline entry goes: (page, line index) -> [(level, title, lines taken)].
    A title found on its page claims that line (and the next when it wraps); otherwise the
    heading goes before the first line below its destination (or at the page top)."""
    by_page: dict[int, list[OutlineEntry]] = {}
    for e in outline:
        if 0 <= e.page < len(pages):
            by_page.setdefault(e.page, []).append(e)
    placed: dict[tuple[int, int], list[tuple[int, str, int]]] = {}
    for page, entries in by_page.items():
        lines = pages[page]
        keys = [_key(split_number(x.text)[1]) for x in lines]
        full = [_key(x.text) for x in lines]
        cursor = 0
        for e in entries:
            want = _key(split_number(e.title)[1])
            want_full = _key(e.title)
            found = None
            for k in range(cursor, len(lines)):
                if want and (keys[k] == want or full[k] == want_full):
                    found = (k, 1)
                    break
                if (
                    want
                    and (lines[k].bold or lines[k].size > body + 0.5)
                    and keys[k].startswith(want)
                ):
                    found = (k, -1)  # a title line that says more: the heading goes before it
                    break
                wraps = want and k + 1 < len(lines) and len(keys[k]) >= 3
                if (
                    wraps
                    and want.startswith(keys[k])
                    and _joined_key(lines[k], lines[k + 1]) == want
                ):
                    found = (k, 2)
                    break
            if found is None:
                k = cursor
                if e.y is not None:
                    while k < len(lines) and lines[k].y > e.y + 2:
                        k += 1
                placed.setdefault((page, k), []).append((e.level, e.title, 0))
                continue
            k, taken = found
            text = " ".join(lines[j].text for j in range(k, k + taken)) if taken > 0 else e.title
            placed.setdefault((page, k), []).append((e.level, text, taken))
            cursor = k + max(taken, 1)
    return placed


def _heading_lines(
    page: int,
    lines: Sequence[Line],
    placed: dict[tuple[int, int], list[tuple[int, str, int]]],
    body: float,
) -> set[int]:
    """Lines of a page a table may not hold: outline headings (and the lines they take) and
    one-cell bold lines that may be headings."""
    out = {k for k, line in enumerate(lines) if _typographic(line, body) and not line.cells}
    for k in range(len(lines) + 1):
        for _, _, taken in placed.get((page, k), ()):
            out.update(range(k, k + max(taken, 1)))
    return out


def _joined_key(a: Line, b: Line) -> str:
    return _key(split_number(a.text + " " + b.text)[1])


def _typographic(line: Line, body: float) -> bool:
    text = line.text.strip()
    return (
        line.bold
        and not line.mono
        and line.size >= body - 0.2
        and 0 < len(text) <= MAX_HEADING_CHARS
        and not text.endswith((",", ";", ".", ":"))
        and (text[0].isupper() or text[0].isdigit())
    )


def _escape(text: str) -> str:
    """A prose line that markdown reads as prose: block syntax at its start and inline HTML
    escaped with a backslash."""
    if _BLOCK_START.match(text):
        text = "\\" + text
    return _INLINE_HTML.sub(r"\\<", text)


def _fence(code: list[str]) -> str:
    longest = max((len(m.group()) for c in code for m in re.finditer(r"`{3,}|~{3,}", c)), default=0)
    return "`" * max(3, longest + 1)


class _Writer:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.numbers: list[tuple[int, str]] = []
        self.code: list[tuple[float, str, float]] = []  # (x, text, advance) of the code run
        self.code_size = 10.0
        self.prose_open = False
        self.anchors: list[tuple[int, float, str]] = []  # (page, y, heading text) in order
        self.where: tuple[int, float] = (0, 0.0)  # page and y of what is being written

    def blank(self) -> None:
        self.flush_code()
        if self.lines and self.lines[-1] != "":
            self.lines.append("")
        self.prose_open = False

    def heading(self, level: int, title: str) -> None:
        self.blank()
        number, rest = split_number(clean(title))
        text = rest if number is not None and rest else clean(title)
        if number is not None:
            self.numbers.append((len(self.lines), number))
        self.anchors.append((*self.where, text))
        self.lines.append("#" * max(1, min(MAX_LEVEL, level)) + " " + _escape_heading(text))
        self.lines.append("")

    def prose(self, text: str, new_paragraph: bool) -> None:
        """Add an escaped prose line (joined to the last one when a word was broken there)."""
        self.flush_code()
        if new_paragraph:
            self.blank()
        if self.prose_open and self.lines:
            last = self.lines[-1]
            if re.search(r"[A-Za-z]{2}[-\x02]$", last) and text[:1].islower():
                self.lines[-1] = last[:-1] + text
                return
        self.lines.append(text)
        self.prose_open = True

    def table(self, lines: list[str]) -> None:
        self.blank()
        self.lines.extend([*lines, ""])
        self.prose_open = False

    def code_line(self, x: float, text: str, size: float, advance: float) -> None:
        if not self.code:
            self.blank()
            self.code_size = size
        self.code.append((x, text, advance))

    def flush_code(self) -> None:
        if not self.code:
            return
        left = min(x for x, _, _ in self.code)
        measured = sorted(a for _, _, a in self.code if a > 0)
        width = measured[len(measured) // 2] if measured else MONO_ADVANCE * self.code_size
        width = max(1.0, width)
        body = [
            " " * min(MAX_INDENT, max(0, round((x - left) / width))) + text
            for x, text, _ in self.code
        ]
        fence = _fence(body)
        self.code = []
        self.lines.extend([fence, *body, fence, ""])
        self.prose_open = False


def _escape_heading(text: str) -> str:
    """Heading text markdown keeps as written: closing #s (which would be dropped) and a `<`
    that may open inline HTML (which would vanish) are escaped; underscores and brackets stay
    as they are, so identifiers read the same in the text."""
    text = _INLINE_HTML.sub(r"\\<", text)
    return re.sub(r"(\s)#+\s*$", lambda m: m.group(0).replace("#", "\\#"), text)


def assemble(
    pages: Sequence[Sequence[Line]],
    outline: Sequence[OutlineEntry],
    links: Sequence[Sequence[Link]] = (),
) -> Markdown:
    """The markdown of a document's pages, given its outline and the link annotations of
    each page (either may be empty)."""
    # Headers go first (a header across a two-column page is one line), then the columns are
    # ordered (their parts are offsets into the text as read), then the text is cleaned.
    bare, dropped = _drop_headers([[x for x in p if x.text.strip()] for p in pages])
    kept = [[c for x in reading_order(p) if (c := _cleaned(x)) is not None] for p in bare]
    titles = {_key(split_number(e.title)[1]) for e in outline} - {""}
    if titles:  # table-of-contents lines without dot leaders: an outline title and a page
        kept = [[x for x in p if not _toc_entry(x.text, titles)] for p in kept]
    body = _body_size(kept)
    placed = _place_outline(kept, outline, body)
    numbered_levels = not outline
    sizes = sorted(
        {round(x.size, 1) for p in kept for x in p if _typographic(x, body)}, reverse=True
    )
    w = _Writer()
    level = 0  # the level of the last outline heading; 0: none yet
    page_starts: list[int] = []
    targets: list[tuple[int, float | None]] = []  # link destinations, by marker number
    for p, lines in enumerate(kept):
        page_starts.append(len(w.lines))
        skip = 0
        prev: Line | None = None
        page_links = links[p] if p < len(links) else ()
        marker = ""
        tables = {t.start: t for t in find_tables(lines, _heading_lines(p, lines, placed, body))}
        table_end = 0
        for k, line in enumerate(lines):
            w.where = (p, line.y)
            as_prose = False
            for lvl, title, taken in placed.get((p, k), ()):
                w.heading(lvl + 1, title)
                level = lvl + 1
                skip = max(skip, taken)
                as_prose = taken < 0
            if skip > 0:
                skip -= 1
                prev = None
                continue
            if k in tables:  # a table: its rows, one markdown line each
                w.table(render(tables[k]))
                table_end = tables[k].end
            if k < table_end:
                prev = None
                continue
            heading_ok = numbered_levels or level > 0  # no headings from a cover page
            if line.mono:
                w.code_line(line.x, line.text, line.size, line.advance)
            elif (
                heading_ok
                and not as_prose
                and _typographic(line, body)
                and not (prev is not None and prev.bold and _near(prev, line))
            ):
                if numbered_levels:
                    number, _ = split_number(line.text)
                    depth = (
                        number.count(".") + 1 if number else sizes.index(round(line.size, 1)) + 1
                    )
                    w.heading(depth, line.text)
                else:
                    w.heading(min(MAX_LEVEL, level + 1), line.text)
            elif _footnote_mark(line, body) and k + 1 < len(lines):
                marker = line.text  # a raised footnote number: it opens the next line
                prev = None
                continue
            else:
                text = _escape(line.text)
                for link in page_links:
                    if link.bottom - 2 <= line.y <= link.top + 2:
                        text = _mark_link(text, link, targets)
                if marker:
                    text, marker = f"{marker} {text}", ""
                w.prose(text, prev is None or _gap(prev, line, body))
            prev = line
        w.where = (p, -1e9)
        for lvl, title, _ in placed.get((p, len(lines)), ()):
            w.heading(lvl + 1, title)
            level = lvl + 1
    w.blank()
    text = "\n".join(w.lines).strip("\n") + "\n"
    if targets:
        text = _resolve_links(text, targets, w.anchors, body)
    return Markdown(text, tuple(page_starts), tuple(w.numbers), dropped)


# Link text that can sit inside [...] unchanged: balanced brackets, no code spans, escapes or
# HTML.
_LINKABLE = re.compile(r"^[^\[\]`\\<]*(?:\[[^\[\]`\\<]*\][^\[\]`\\<]*)*$")
_MARKER = re.compile(r"\[((?:[^\[\]\n]|\[[^\[\]\n]*\])*)\]\(#\x00(\d+)\x00\)")
_ANCHOR_DROP = re.compile(r"[\W_]+")


def _mark_link(text: str, link: Link, targets: list[tuple[int, float | None]]) -> str:
    """`text` (an escaped prose line) with the link's text made a markdown link to a marker
    that `_resolve_links` replaces by the heading anchor at the link's destination."""
    label = clean(link.text)
    if len(label) < 2 or not _LINKABLE.match(label):
        return text
    at = text.find(label)
    if at < 0:
        return text
    end = at + len(label)
    # (not within another link's marker, its text included: a text that holds `)` once let a
    # later link nest inside it, and the nested marker outlived the outer's resolution)
    if any(m.start() < end and at < m.end() for m in _MARKER.finditer(text)):
        return text
    targets.append((link.page, link.y))
    marker = f"[{label}](#\x00{len(targets) - 1}\x00)"
    return text[:at] + marker + text[at + len(label) :]


def _resolve_links(
    text: str,
    targets: list[tuple[int, float | None]],
    anchors: list[tuple[int, float, str]],
    body: float,
) -> str:
    """Markers replaced by `#anchor` of the heading at or before each destination (the anchor
    xref computes: letters and digits of the heading, a count after a repeated one); a
    destination before every heading leaves plain text."""
    names: list[str] = []
    seen: dict[str, int] = {}
    for _, _, title in anchors:
        key = _ANCHOR_DROP.sub("", _unescape(title).lower())
        n = seen.get(key, 0)
        seen[key] = n + 1
        names.append(key if n == 0 else f"{key}{n}")
    near = 12 * body  # how far below its destination a heading may start
    keys: list[tuple[int, float]] = []
    for page, y, _ in anchors:  # kept non-decreasing, so bisect finds neighbours
        key = (page, -y)
        keys.append(max(keys[-1], key) if keys else key)

    def anchor(target: tuple[int, float | None]) -> str | None:
        page, y = target
        probe = (page, -y if y is not None else -float("inf"))
        k = bisect.bisect_left(keys, probe)
        # A destination names the heading just below it on its page (a chapter title sits
        # well below the top of the page its destination points at), else the section it
        # falls in: the last heading above it.
        if k < len(keys) and anchors[k][0] == page and (y is None or y - anchors[k][1] <= near):
            return names[k] or None
        return names[k - 1] if k > 0 and names[k - 1] else None

    def replace(m: re.Match[str]) -> str:
        name = anchor(targets[int(m.group(2))])
        return f"[{m.group(1)}](#{name})" if name else m.group(1)

    return _MARKER.sub(replace, text)


def _unescape(text: str) -> str:
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", text)


_PAGE_AT_END = re.compile(r"^(.*\S)\s+(?:\d{1,5}|[ivxlc]{1,6})$")


def _toc_entry(text: str, titles: set[str]) -> bool:
    """Whether a line is an outline title followed by a page number (a contents entry)."""
    m = _PAGE_AT_END.match(text)
    return m is not None and _key(split_number(m.group(1))[1]) in titles


def _footnote_mark(line: Line, body: float) -> bool:
    """A footnote's number on a line of its own: 1-3 digits in a smaller font."""
    return len(line.text) <= 3 and line.text.isdigit() and line.size < 0.9 * body


def _near(a: Line, b: Line) -> bool:
    """Whether b continues the line a (a wrapped heading)."""
    return 0 < a.y - b.y <= 1.6 * max(a.size, b.size)


def _gap(a: Line, b: Line, body: float) -> bool:
    """Whether b starts a new paragraph after a: a larger vertical gap than line spacing, or a
    jump up (a new column or page)."""
    dy = a.y - b.y
    # the same baseline (a table row or a label split off its text) continues the paragraph
    return dy < -1 or dy > 1.45 * max(body, b.size)
