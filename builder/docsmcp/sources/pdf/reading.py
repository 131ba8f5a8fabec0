"""Reading order of a PDF page: text cleaned, lines put in reading order (columns detected), and
repeated headers and footers dropped, before layout.py writes markdown.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Sequence

from docsmcp.sources.pdf.model import Line
from docsmcp.sources.pdf.tables import cells_of, find_tables

# Heading markers deeper than this are not markdown headings.
MAX_LEVEL = 6
# A header or footer repeated (digits ignored) on at least this share of the pages is dropped.
REPEAT_SHARE = 0.25
# Headings recognised by typography are at most this long.
MAX_HEADING_CHARS = 90
# Monospace characters are about this many font sizes wide (CMTT 0.525, Inconsolata 0.5).
MONO_ADVANCE = 0.52
# At most this many spaces of rebuilt indentation.
MAX_INDENT = 40
# A page is two columns when at least this many lines sit in each half, and at most this share
# of its lines cross the middle (points of slack around the middle).
MIN_COLUMN_LINES = 5
SPANNING_SHARE = 0.2
COLUMN_SLACK = 5.0

_ODD = {
    "\u00a0": " ",  # no-break space
    "\u2007": " ",
    "\u202f": " ",
    "\u2009": " ",
    "\u200a": " ",
    "\u2002": " ",
    "\u2003": " ",
    "\u00ad": "",  # soft hyphen
    "\u200b": "",
    "\u200c": "",
    "\u200d": "",
    "\u2060": "",
    "\ufeff": "",
    "\ufb00": "ff",
    "\ufb01": "fi",
    "\ufb02": "fl",
    "\ufb03": "ffi",
    "\ufb04": "ffl",
    "\ufb05": "st",
    "\ufb06": "st",
    "\u2010": "-",
    "\u2011": "-",
    "\u2212": "-",
    "\ufffe": "",  # pdfium: a hyphen where it joined a word broken across lines
    "\uffff": "",
}
_ODD_TABLE = str.maketrans(_ODD)
# Control characters (pdfium's \x02 marks a hyphen it broke a word at; \r appears inside lines).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_DOT_LEADER = re.compile(r"(?:\.\s?){3,}\s*[0-9ivxlc]+(?:\s*,\s*[0-9ivxlc]+)*\s*$|…{2,}")
_NUMBER_EDGE = re.compile(r"^\s*(\d{1,5})\b|\b(\d{1,5})\s*$")
_ROMAN = re.compile(r"^\s*[ivxlcdm]{1,8}\s*$|^\s*\d{1,5}\s*$", re.IGNORECASE)
_SECTION_NUMBER = re.compile(
    r"^(?:(?:chapter|appendix|section|part)\s+)?"
    r"((?:[A-Z]|\d{1,3})(?:\.\d{1,3})*)(?:\.|:)?\s+(?=\S)(.*)$",
    re.IGNORECASE,
)
_LETTERS = re.compile(r"[^0-9a-z]+")
# Markdown syntax a prose line must not start with (`<` is escaped wherever it may open HTML).
_BLOCK_START = re.compile(r"^(?:[#>|]|[-+*](?:\s|$)|\d{1,9}[.)](?:\s|$)|[=-]+\s*$|```|~~~)")
_INLINE_HTML = re.compile(r"<(?=[A-Za-z/!?])")


def clean(text: str) -> str:
    """Ligatures, odd spaces, soft hyphens and control characters normalised; NFC."""
    text = _CONTROL.sub("", text.translate(_ODD_TABLE))
    return unicodedata.normalize("NFC", text).strip()


def split_number(title: str) -> tuple[str | None, str]:
    """(section number, rest) of a numbered title: `5.10.2 Calling .External` -> ("5.10.2",
    "Calling .External"); (None, title) when it has none. A plain number needs more text after
    it, and years/large numbers are not section numbers."""
    m = _SECTION_NUMBER.match(title.strip())
    if m is None:
        return None, title.strip()
    number, rest = m.group(1), m.group(2).strip()
    first = number.split(".")[0]
    if first.isdigit() and int(first) > 199:
        return None, title.strip()
    # a lone letter is a number only after a word such as Appendix
    lone = len(number) == 1 and number.isalpha()
    if lone and not re.match(r"(?i)(appendix|annex|part)\s", title.strip()):
        return None, title.strip()
    return number, rest


def _key(text: str) -> str:
    return _LETTERS.sub("", text.casefold())


def reading_order(lines: list[Line]) -> list[Line]:
    """A two-column page's lines column by column: within each band between lines that span
    both columns (titles, figures), the left column top to bottom, then the right one; lines
    the reader joined across the columns are split first. Other pages keep the order and the
    lines the PDF gave (content order, which is right for one column)."""
    if _has_table(lines):
        return lines
    split = _split_parts(lines)
    ordered = _columns(split)
    return lines if ordered is None else ordered


# A table's first column is narrow: its cells have at most this many characters on average
# (lines pdfium joined across two columns of prose have long first parts).
TABLE_FIRST_CELL = 30


def _has_table(lines: list[Line]) -> bool:
    """Whether a page holds a table (whose aligned cells would look like two columns)."""
    for table in find_tables(lines):
        firsts = [len(row[0]) for row in table.rows]
        if sum(firsts) <= TABLE_FIRST_CELL * len(firsts):
            return True
    return False


def _split_parts(lines: list[Line]) -> list[Line]:
    out = []
    for x in lines:
        if not x.parts:
            out.append(x)
            continue
        for a, b, left, right in x.parts:
            text = x.text[max(0, a) : max(0, b)].strip()
            if text:
                out.append(Line(text, left, x.y, x.size, x.bold, x.mono, 0.0, right))
    return out


def _columns(lines: list[Line]) -> list[Line] | None:
    known = [x for x in lines if x.right > x.x]
    if len(known) < MIN_COLUMN_LINES * 2 or len(known) < len(lines):
        return None
    mid = (min(x.x for x in known) + max(x.right for x in known)) / 2
    left = [x for x in known if x.right <= mid + COLUMN_SLACK]
    right = [x for x in known if x.x >= mid - COLUMN_SLACK and x.right > mid + COLUMN_SLACK]
    if len(left) < MIN_COLUMN_LINES or len(right) < MIN_COLUMN_LINES:
        return None
    spanning = [x for x in known if x.right > mid + COLUMN_SLACK and x.x < mid - COLUMN_SLACK]
    if len(spanning) > SPANNING_SHARE * len(known):
        return None
    out: list[Line] = []
    above = float("inf")
    for cut in [*sorted(spanning, key=lambda x: -x.y), None]:
        below = cut.y if cut is not None else -float("inf")
        for column in (left, right):
            out.extend(sorted((x for x in column if below < x.y <= above), key=lambda x: -x.y))
        if cut is not None:
            out.append(cut)
        above = below
    return out if len(out) == len(lines) else None


def _cleaned(line: Line) -> Line | None:
    """A line with its text cleaned (each table cell on its own, so cell starts stay right);
    None when nothing is left."""
    if not line.cells:
        text = clean(line.text)
        return (
            Line(text, line.x, line.y, line.size, line.bold, line.mono, line.advance, line.right)
            if text
            else None
        )
    pieces = [(x, t) for x, raw in cells_of(line) if (t := clean(raw))]
    if not pieces:
        return None
    text, cells = pieces[0][1], []
    for x, t in pieces[1:]:
        text += " "
        cells.append((len(text), x))
        text += t
    return Line(
        text,
        pieces[0][0],
        line.y,
        line.size,
        line.bold,
        line.mono,
        line.advance,
        line.right,
        (),
        tuple(cells),
    )


def _drop_headers(pages: Sequence[Sequence[Line]]) -> tuple[list[list[Line]], int]:
    """Pages without their running headers/footers and table-of-contents lines."""
    n = len(pages)
    offsets: Counter[int] = Counter()
    shapes: Counter[str] = Counter()
    for i, lines in enumerate(pages):
        for line in _edges(lines):
            shapes[re.sub(r"\d+", "#", line.text.strip())] += 1
            m = _NUMBER_EDGE.search(line.text)
            if m:
                offsets[int(m.group(1) or m.group(2)) - i] += 1
    offset, count = offsets.most_common(1)[0] if offsets else (None, 0)
    if count < max(2, n // 5):
        offset = None
    repeated = {s for s, c in shapes.items() if n >= 4 and c >= max(3, REPEAT_SHARE * n)}
    out: list[list[Line]] = []
    dropped = 0
    for i, lines in enumerate(pages):
        edges = {id(x) for x in _edges(lines)}
        kept = []
        for line in lines:
            if id(line) in edges and _is_header(line, i, offset, repeated):
                dropped += 1
                continue
            if _DOT_LEADER.search(line.text):
                continue
            kept.append(line)
        out.append(kept)
    return out, dropped


def _edges(lines: Sequence[Line]) -> list[Line]:
    """The first and last line of a page (by position: the top and bottom ones)."""
    if not lines:
        return []
    top = max(lines, key=lambda x: x.y)
    bottom = min(lines, key=lambda x: x.y)
    return [top] if top is bottom else [top, bottom]


def _is_header(line: Line, page: int, offset: int | None, repeated: set[str]) -> bool:
    text = line.text.strip()
    if _ROMAN.match(text):
        return True
    if re.sub(r"\d+", "#", text) in repeated:
        return True
    if offset is not None and len(text) <= 120:
        m = _NUMBER_EDGE.search(text)
        if m and int(m.group(1) or m.group(2)) - page == offset:
            return True
    return False


def _body_size(pages: Sequence[Sequence[Line]]) -> float:
    sizes: Counter[float] = Counter()
    for lines in pages:
        for line in lines:
            sizes[round(line.size, 1)] += len(line.text)
    return sizes.most_common(1)[0][0] if sizes else 10.0
