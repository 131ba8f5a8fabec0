"""Tables on a PDF page, kept row by row (issue 10).

A PDF has no table structure, only words at positions: the reader (`extract.py`) records where a
line's words start after a wide gap (`Line.cells`), and a run of consecutive lines whose cells
start at the same x positions is a table. Each row becomes one markdown pipe-table row, so a
table is never joined into a paragraph nor cut inside a row:

- a row starts at the first column; a line that starts at a later column continues the cell
  above it (a description wrapped inside its column, as in the argument tables of an R
  reference manual); a line on the same baseline (a superscript, a line pdfium split) joins
  the row it sits in;
- the first row is the header when its typography differs from the rows below it (bold, or
  prose above rows of code, as in texinfo's multitables); otherwise the header is empty;
- all-monospaced runs are left alone: aligned code output (`summary(x)`) stays a code block.

Pure functions over `pdf_layout.Line`, so they are tested and fuzzed without a PDF.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from docsmcp.sources.pdf.model import Line

# Cells whose starts are this many points apart are in one column.
COLUMN_TOL = 4.0
# A table has at least this many rows with two or more cells.
MIN_ROWS = 2
# Rows and wrapped lines of a table are at most this many font sizes apart.
ROW_GAP = 2.2
# Lines whose baselines are this many font sizes apart or less are one text line.
SAME_LINE = 0.7
# At most this many columns (more is a layout this reader does not understand).
MAX_COLUMNS = 12

_HTML = re.compile(r"<(?=[A-Za-z/!?])")
_BROKEN = re.compile(r"[A-Za-z]{2}-$")


@dataclass(frozen=True)
class Table:
    start: int  # index of its first line on the page
    end: int  # index after its last line
    header: tuple[str, ...] | None  # None: the first row is a row like the others
    rows: tuple[tuple[str, ...], ...]


def cells_of(line: Line) -> list[tuple[float, str]]:
    """(x, text) of each cell of a line: one cell when no wide gap was measured."""
    out: list[tuple[float, str]] = []
    start, x = 0, line.x
    for offset, cx in line.cells:
        if offset <= start or offset >= len(line.text) or cx <= x:
            continue  # out of order or out of range: not a cell start
        out.append((x, line.text[start:offset].strip()))
        start, x = offset, cx
    out.append((x, line.text[start:].strip()))
    return [c for c in out if c[1]] or [(line.x, line.text.strip())]


def find_tables(lines: Sequence[Line], stops: Collection[int] = ()) -> list[Table]:
    """The tables among a page's lines (in reading order); `stops` are lines no table may hold
    (headings)."""
    out: list[Table] = []
    k = 0
    while k < len(lines):
        table = None if k in stops else _table_at(lines, k, stops)
        if table is None:
            k += 1
        else:
            out.append(table)
            k = table.end
    return out


def _column(x: float, columns: Sequence[float]) -> int | None:
    for i, c in enumerate(columns):
        if abs(x - c) <= COLUMN_TOL:
            return i
    return None


def _table_at(lines: Sequence[Line], start: int, stops: Collection[int]) -> Table | None:
    first = cells_of(lines[start])
    if len(first) < 2 or len(first) > MAX_COLUMNS:
        return None
    columns: list[float] = []  # first-seen x of each column
    rows: list[dict[int, str]] = []  # column index -> text
    starts: list[int] = []  # the line each row starts at
    support: dict[int, int] = {}  # column index -> lines with a cell starting there
    size = lines[start].size or 10.0

    def add(row: dict[int, str], col: int, text: str) -> None:
        before = row.get(col, "")
        if before and _BROKEN.search(before) and text[:1].islower():
            row[col] = before[:-1] + text  # a word hyphenated at the end of a wrapped line
        else:
            row[col] = f"{before} {text}".strip()

    def place(cells: list[tuple[float, str]], row: dict[int, str], may_grow: bool) -> bool:
        for x, text in cells:
            col = _column(x, columns)
            if col is None:
                if not may_grow or x <= columns[0] + COLUMN_TOL or len(columns) >= MAX_COLUMNS:
                    return False
                columns.append(x)
                col = len(columns) - 1
            support[col] = support.get(col, 0) + 1
            add(row, col, text)
        return True

    columns.append(first[0][0])
    row: dict[int, str] = {}
    place(first, row, True)
    rows.append(row)
    starts.append(start)
    prev = lines[start]
    last_col = max(row)
    end = start + 1
    j = start + 1
    while j < len(lines) and j not in stops:
        line = lines[j]
        cells = cells_of(line)
        dy = prev.y - line.y
        if abs(dy) <= SAME_LINE * max(prev.size, line.size, 1.0):
            # the same text line: joins the cell it sits in
            col = max((i for i, c in enumerate(columns) if c <= line.x + COLUMN_TOL), default=0)
            col = col if col in rows[-1] else last_col
            add(rows[-1], col, line.text.strip())
            j += 1
            end = j
            continue
        if dy < 0 or dy > ROW_GAP * size or abs(line.size - size) > 0.3 * size:
            break
        col = _column(cells[0][0], columns)
        if col is None:
            break
        if col == 0:
            if len(cells) == 1 and not _continues(lines, j, columns, size, stops):
                break
            new: dict[int, str] = {}
            if not place(cells, new, True):
                break
            rows.append(new)
            starts.append(j)
        elif not place(cells, rows[-1], False):
            break
        last_col = _column(cells[-1][0], columns) or 0
        prev = line
        j += 1
        end = j
    multi = sum(1 for r in rows if len(r) >= 2)
    shared = [c for c, n in support.items() if c > 0 and n >= 2]
    if multi < MIN_ROWS or not shared:
        return None
    if all(lines[i].mono for i in range(start, end)):
        return None  # aligned code output: a code block keeps it
    order = sorted(range(len(columns)), key=lambda i: columns[i])
    table = [tuple(r.get(i, "") for i in order) for r in rows]
    header = None
    if _header_row(lines, starts):
        header, table = table[0], table[1:]
    return Table(start, end, header, tuple(table))


def _continues(
    lines: Sequence[Line], j: int, columns: Sequence[float], size: float, stops: Collection[int]
) -> bool:
    """Whether the line after j continues a row that starts at j (a first cell too wide for its
    column, with the rest of its row on the next line)."""
    if j + 1 >= len(lines) or j + 1 in stops:
        return False
    nxt = lines[j + 1]
    col = _column(nxt.x, columns)
    return col is not None and col > 0 and 0 < lines[j].y - nxt.y <= ROW_GAP * size


def _header_row(lines: Sequence[Line], starts: Sequence[int]) -> bool:
    head = lines[starts[0]]
    rest = [lines[i] for i in starts[1:] if lines[i].cells]  # rows like it, not wrapped ones
    if not rest:
        return False
    if head.bold and not all(x.bold for x in rest):
        return True
    return not head.mono and sum(x.mono for x in rest) * 2 > len(rest)


def _cell(text: str) -> str:
    return _HTML.sub(r"\\<", text.replace("|", "\\|"))


def render(table: Table) -> list[str]:
    """A table as markdown pipe-table lines (an empty header when it has none)."""
    width = len(table.header) if table.header else max(len(r) for r in table.rows)
    head = table.header or ("",) * width

    def line(cells: Sequence[str]) -> str:
        return "| " + " | ".join(_cell(c) for c in cells) + " |"

    return [line(head), "|" + "---|" * width, *(line(r) for r in table.rows)]
