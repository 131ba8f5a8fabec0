"""An HTML table in a markdown page shown as markdown pipe rows, as readable.py meets its tags.

GitBook writes every table with merged cells or widths as HTML, often on one line: its cells
were joined with spaces ("Google Cloud / Firebase Hosting and database infrastructure United
States"), the columns lost (GitBook's own docs: 44 tables). Each row becomes `| a | b |` on a
line of its own in what is shown (readable's in-line break), the first row followed by the
`| --- |` separator; a line break or block inside a cell is a space there, so the row holds.
"""

from __future__ import annotations

# Table parts that only group rows: no line of their own inside a table.
_GROUPS = frozenset({"thead", "tbody", "tfoot", "colgroup", "col", "caption"})
# Every tag `Rows.tag` reads (readable.py asks only for these).
TAGS = _GROUPS | {"table", "tr", "td", "th"}


class Rows:
    """The open tables of one scan: for each, [rows written, cells in the current row]."""

    def __init__(self, line_break: str) -> None:
        self.line_break = line_break
        self.tables: list[list[int]] = []
        self.cell_depth = 0  # open `<td>`/`<th>` of the innermost table

    def in_cell(self) -> bool:
        return bool(self.tables) and self.cell_depth > 0

    def tag(self, name: str, closing: bool) -> str | None:
        """What the tag `name` (lower case) shows as a table's markup, or None when it is no
        table tag of an open table (nor a table)."""
        if name == "table":
            if closing:
                if self.tables:
                    self.tables.pop()
                self.cell_depth = 0
            else:
                self.tables.append([0, 0])
            return self.line_break
        if not self.tables:
            return None
        table = self.tables[-1]
        if name in _GROUPS:
            return ""
        if name == "tr":
            if not closing:
                table[1], self.cell_depth = 0, 0
                return ""
            if not table[1]:
                return ""
            row = "|"
            if table[0] == 0:  # the header's separator
                row += self.line_break + "|" + " --- |" * table[1]
            table[0] += 1
            return row + self.line_break
        if name in ("td", "th"):
            if closing:
                table[1] += 1
                self.cell_depth = max(0, self.cell_depth - 1)
                return " "
            self.cell_depth += 1
            return "| "
        return None
