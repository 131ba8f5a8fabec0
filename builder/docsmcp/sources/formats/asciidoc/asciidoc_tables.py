"""AsciiDoc tables (`|===`, nested `!===`, CSV `,===`, DSV `:===`) as markdown pipe rows.

Cells are read as Asciidoctor reads them: a cell starts at its separator (`|`), preceded by an
optional spec (`2+|` spans two columns, `.2+|` two rows, `3*|` repeats the cell, `a|` is
AsciiDoc, `m|`/`l|` monospace); cells may sit one per line or several per line, and rows are
made of as many cells as the table has columns: the `cols` attribute's count, else the cells
of the first line. The first row is the header when `options="header"` (`%header`) says so or
when the first line is followed by a blank line (the implicit header), as Asciidoctor decides;
markdown needs a header row, so a table without one shows its first row there. The block's
title is a bold line before it.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Callable

from docsmcp.sources.formats.asciidoc.asciidoc_lines import Attributes
from docsmcp.sources.formats.linemap import line_mark

# Cells in one table, at most (a hostile `cols="10000*"` or a million `|`).
MAX_CELLS = 20_000
MAX_COLUMNS = 64
_SPEC = re.compile(
    r"(?:(?P<dup>\d+)\*)?(?:(?P<col>\d+)?(?:\.(?P<row>\d+))?\+)?(?:[<^>])?(?:\.[<^>])?"
    r"(?:\d+%)?(?P<style>[adehlmsv])?$"
)
_SPEC_TAIL = re.compile(r"(?:^|(?<=[ \t]))([\d.*+<^>%adehlmsv]{1,16})$")

Cell = tuple[str, int, int, str, int]  # (text, colspan, rowspan, style, line)


def table(
    content: list[tuple[str, int]],
    delimiter: str,
    attrs: Attributes,
    cell_text: Callable[[str, bool], str],
    number: int,
) -> list[str]:
    """The markdown of a table block's `content` lines; `cell_text(text, asciidoc)` reduces a
    cell to one line."""
    # Line comments between cells are no text (Asciidoctor skips them).
    content = [(x, n) for x, n in content if not (x.startswith("//") and x[2:3] != "/")]
    fmt = attrs.named.get("format", "")
    separator = attrs.named.get("separator", "")
    if delimiter == "," or fmt == "csv" or fmt == "tsv":
        cells, first_count = _delimited(content, "\t" if fmt == "tsv" else separator or ",", True)
    elif delimiter == ":" or fmt == "dsv":
        cells, first_count = _delimited(content, separator or ":", False)
    else:
        cells, first_count = _psv(content, separator or ("!" if delimiter == "!" else "|"))
    if not cells:
        return []
    styles = _column_styles(attrs.named.get("cols", ""))
    columns = min(len(styles) or first_count or 1, MAX_COLUMNS)
    rows = _rows(cells, columns)
    header = "header" in attrs.options or (
        "noheader" not in attrs.options and _implicit_header(content, first_count, columns)
    )
    out: list[str] = []
    for k, row in enumerate(rows):
        # (markdown shows the first row as the header either way; a header row's cells take
        # no column style, as Asciidoctor styles them as headers)
        column = styles if not (header and k == 0) else []
        row = [
            (t, style or (column[c] if c < len(column) else ""), n)
            for c, (t, style, n) in enumerate(row)
        ]
        texts = [cell_text(t, style == "a") if t else "" for t, style, _ in row]
        texts = [
            _code(t) if style in ("m", "l") and t else t
            for t, (_, style, _) in zip(texts, row, strict=True)
        ]
        mark = line_mark(next((line for t, _, line in row if t), None))
        out.append(mark + "| " + " | ".join(t.replace("|", "\\|") for t in texts) + " |")
        if k == 0:
            out.append("|" + "---|" * columns)
    if len(rows) == 1:
        out.append("| " + " | ".join([""] * columns) + " |")
    return [line_mark(number) + "\n".join(out)]


def _code(text: str) -> str:
    return f"`{text}`" if "`" not in text else text


def _column_styles(cols: str) -> list[str]:
    """The style of each column a `cols` attribute names (`1,2a,3`, `3*`, `2*,1m`, `4`):
    its count is the table's column count."""
    cols = cols.strip().strip('"')
    if not cols:
        return []
    if cols.isdigit():
        return [""] * min(int(cols), MAX_COLUMNS)
    styles: list[str] = []
    for part in re.split(r"[,;]", cols):
        m = re.match(r"^\s*(?:(\d+)\*)?[^a-z]*([adehlmsv])?\s*$", part)
        count = int(m.group(1)) if m and m.group(1) else 1
        styles.extend([(m.group(2) or "") if m else ""] * min(count, MAX_COLUMNS))
        if len(styles) > MAX_COLUMNS:
            break
    return styles


def _implicit_header(content: list[tuple[str, int]], first_count: int, columns: int) -> bool:
    """The first line holds a whole row and a blank line follows it."""
    lines = [x for x, _ in content]
    k = next((n for n, x in enumerate(lines) if x.strip()), None)
    return (
        k is not None and first_count == columns and k + 1 < len(lines) and not lines[k + 1].strip()
    )


def _psv(content: list[tuple[str, int]], sep: str) -> tuple[list[Cell], int]:
    """The cells of a prefix-separated table, and how many the first line holding one has."""
    cells: list[Cell] = []
    current: list[str] | None = None  # the open cell's lines
    spec = _parse_spec("", 0)
    first_count = 0
    for text, number in content:
        parts = _split_escaped(text, sep)
        if len(parts) == 1:
            if current is not None:
                current.append(text)
            continue
        head, spec_text = _take_spec(parts[0])
        if current is not None and head.strip():
            current.append(head)
        for k in range(1, len(parts)):
            if current is not None:
                _close(cells, current, spec)
            spec = _parse_spec(spec_text or "", number)
            body, spec_text = _take_spec(parts[k]) if k < len(parts) - 1 else (parts[k], None)
            current = [body]
        first_count = first_count or len(parts) - 1
        if len(cells) > MAX_CELLS:
            return cells, first_count
    if current is not None:
        _close(cells, current, spec)
    return cells, first_count


def _take_spec(part: str) -> tuple[str, str | None]:
    """`part` without the cell spec at its end (the next cell's: `text 2+`), and that spec."""
    m = _SPEC_TAIL.search(part)
    if m and _SPEC.match(m.group(1)):
        return part[: m.start()], m.group(1)
    return part, None


def _parse_spec(spec: str, number: int) -> tuple[str, int, int, str, int]:
    m = _SPEC.match(spec) if spec else None
    if m is None:
        return ("", 1, 1, "", number)
    col = int(m.group("col") or 1) if "+" in spec and not spec.startswith(".") else 1
    row = int(m.group("row") or 1)
    dup = int(m.group("dup") or 1)
    return (
        str(min(dup, MAX_COLUMNS)),
        min(col, MAX_COLUMNS),
        min(row, 1000),
        m.group("style") or "",
        number,
    )


def _close(cells: list[Cell], lines: list[str], spec: tuple[str, int, int, str, int]) -> None:
    dup, colspan, rowspan, style, number = spec
    text = "\n".join(lines).strip()
    for _ in range(int(dup or 1)):
        cells.append((text, colspan, rowspan, style, number))


def _split_escaped(text: str, sep: str) -> list[str]:
    """`text` split at `sep`, but for escaped ones (`\\|`, kept as the character)."""
    if sep not in text:
        return [text]
    parts = re.split(r"(?<!\\)" + re.escape(sep), text)
    return [p.replace("\\" + sep, sep) for p in parts]


def _delimited(content: list[tuple[str, int]], sep: str, quoted: bool) -> tuple[list[Cell], int]:
    cells: list[Cell] = []
    first_count = 0
    for text, number in content:
        if not text.strip():
            continue
        try:
            row = (
                next(csv.reader([text], delimiter=sep[:1] or ","))
                if quoted
                else text.split(sep[:1] or ":")
            )
        except csv.Error:
            row = text.split(sep[:1] or ",")
        first_count = first_count or len(row)
        cells.extend((c.strip(), 1, 1, "", number) for c in row)
        if len(cells) > MAX_CELLS:
            break
    return cells, first_count


def _rows(cells: list[Cell], columns: int) -> list[list[tuple[str, str, int]]]:
    """Cells grouped into rows of `columns`, spans filled with empty cells."""
    rows: list[list[tuple[str, str, int]]] = []
    row: list[tuple[str, str, int]] = []
    carried: dict[int, int] = {}  # column -> rows a rowspan still fills

    def fill() -> None:
        while len(row) < columns and carried.get(len(row), 0) > 0:
            carried[len(row)] -= 1
            row.append(("", "", 0))

    for text, colspan, rowspan, style, number in cells:
        fill()
        if len(row) >= columns:
            rows.append(row)
            row = []
            fill()
        at = len(row)
        row.append((text, style, number))
        for _ in range(1, colspan):
            if len(row) < columns:
                row.append(("", "", number))
        if rowspan > 1:
            for c in range(at, min(at + colspan, columns)):
                carried[c] = rowspan - 1
        fill()
        if len(row) >= columns:
            rows.append(row)
            row = []
    if row:
        rows.append(row + [("", "", 0)] * (columns - len(row)))
    return rows
