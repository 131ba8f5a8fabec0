"""tbl(1) tables (`.TS` … `.TE`) as markdown tables: the options line (its `tab(x)`), the
format lines up to the one ending in `.`, then the data rows, cells split at the tab
character, `T{ … T}` text blocks as one cell, `_` and `=` rules dropped. The first row is the
header (tbl has none; markdown needs one). Spans are empty cells.
"""

from __future__ import annotations

import re

from docsmcp.sources.formats.roff.roff_text import Fonts, markdown, runs

_TAB = re.compile(r"tab\s*\(\s*(.)\s*\)")
MAX_ROWS = 2_000


def table(lines: list[str], strings: dict[str, str]) -> list[str]:
    """The markdown lines of a table's body (the lines between `.TS` and `.TE`)."""
    i = 0
    tab = "\t"
    if lines and lines[0].rstrip().endswith(";"):
        m = _TAB.search(lines[0])
        if m:
            tab = m.group(1)
        i = 1
    while i < len(lines) and not lines[i].rstrip().endswith("."):
        i += 1
    i += 1
    rows: list[list[str]] = []
    cells: list[str] = []
    block: list[str] | None = None
    for line in lines[i:]:
        if len(rows) >= MAX_ROWS:
            break
        if block is not None:
            if line.startswith("T}"):
                cells.append(" ".join(block))
                block = None
                rest = line[2:]
                if rest.startswith(tab):
                    cells += rest[1:].split(tab)
                if not rest.endswith("T{"):
                    rows.append(cells)
                    cells = []
                continue
            if not line.startswith((".", "'")):
                block.append(_cell(line, strings))
            continue
        if line.startswith((".", "'")) or line.strip() in ("_", "=", ""):
            continue
        parts = line.split(tab)
        if parts[-1].endswith("T{"):
            cells += [_cell(p, strings) for p in parts[:-1]]
            block = []
            continue
        rows.append(cells + [_cell(p, strings) for p in parts])
        cells = []
    if cells:
        rows.append(cells)
    rows = [r for r in rows if any(c.strip() for c in r)]
    if not rows:
        return []
    width = max(len(r) for r in rows)
    out = []
    for k, row in enumerate(rows):
        row = [c.replace("|", "\\|").strip() or " " for c in row] + [" "] * (width - len(row))
        out.append("| " + " | ".join(row) + " |")
        if k == 0:
            out.append("|" + "---|" * width)
    return out


def _cell(text: str, strings: dict[str, str]) -> str:
    if text.strip() in ("\\^", "^", "s", "\\_", "_"):
        return ""
    return markdown(runs(text, Fonts(), strings))
