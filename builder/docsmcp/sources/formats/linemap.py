"""Which line of a converted page's source file each line of its markdown comes from.

A converter (rst.py, htmlpage.py) writes a line mark (`\\x01N\\x01`, N the 0-based source line)
at the start of each block it writes from an element whose source line it knows; `take_lines`
removes the marks and gives the line map (`SourceFile.line_map`, as for includes): a marked
line gets its mark (the largest, when blocks nest on one line), a line without one the line
after the previous one (code and reST paragraphs keep their line breaks) but never beyond the
next mark. The map is made monotone and kept within the file, so chunk, code and API line
ranges stay ranges of the file whatever the converter's positions (docutils' are not always
exact).
"""

from __future__ import annotations

import contextvars
import re

# The control character never written by a converter otherwise: converters remove it from
# their input first (`strip_mark_char`).
MARK_CHAR = "\x01"
_LINE_MARK = re.compile("\x01([0-9]+)\x01")


# While a page converts: the line of its file each line of the text converted comes from (its
# includes' line map), so that a converter's warnings name the file's line, not the expanded
# text's (Scrapy's settings.rst:2427 for a directive at line 2419 of a 2,422-line file).
SOURCE_LINES: contextvars.ContextVar[tuple[int, ...]] = contextvars.ContextVar(
    "source_lines", default=()
)


def monotone(line_map: list[int]) -> tuple[int, ...]:
    """`line_map` with no line before the one above it, as every converted page's map is (a
    reader that writes a page's parts out of source order: a class's inherited members, a
    re-exported item), so chunk and API line ranges stay ranges of the file."""
    out = list(line_map)
    for k in range(1, len(out)):
        out[k] = max(out[k], out[k - 1])
    return tuple(out)


def file_line(line: int) -> int:
    """The 1-based line of the page's file that 1-based line `line` of the converted text
    comes from (itself without includes)."""
    lines = SOURCE_LINES.get()
    return lines[min(line, len(lines)) - 1] + 1 if lines and line > 0 else line


def line_mark(line: int | None) -> str:
    """The mark of 0-based source line `line` (nothing when unknown)."""
    return "" if line is None or line < 0 else f"{MARK_CHAR}{line}{MARK_CHAR}"


def strip_mark_char(text: str) -> str:
    return text.replace(MARK_CHAR, "") if MARK_CHAR in text else text


def without_marks(text: str) -> str:
    return _LINE_MARK.sub("", text) if MARK_CHAR in text else text


def mark_first(blocks: list[str], line: int | None) -> list[str]:
    """`blocks` with the mark of `line` before the first one that has text (in place)."""
    mark = line_mark(line)
    if mark:
        for i, block in enumerate(blocks):
            if without_marks(block).strip("\x00 \n"):
                blocks[i] = mark + block
                break
    return blocks


def take_lines(text: str, source_lines: int) -> tuple[str, tuple[int, ...]]:
    """`text` without its line marks, and for each of its lines the 0-based line of the source
    (of `source_lines` lines) it comes from: non-decreasing, within 0..source_lines-1."""
    lines = text.split("\n")
    top = max(source_lines - 1, 0)
    marked: list[int | None] = []
    for i, line in enumerate(lines):
        if MARK_CHAR in line:
            found = [int(m.group(1)) for m in _LINE_MARK.finditer(line)]
            lines[i] = _LINE_MARK.sub("", line)
            marked.append(min(max(found), top) if found else None)
        else:
            marked.append(None)
    # Marks in order (a mark below an earlier one keeps the earlier line: monotone).
    highest = 0
    for i, value in enumerate(marked):
        if value is not None:
            highest = max(highest, value)
            marked[i] = highest
    # Unmarked lines: one after the line before, but not past the next mark.
    out = [0] * len(lines)
    ceiling = top
    for i in range(len(lines) - 1, -1, -1):
        value = marked[i]
        if value is not None:
            ceiling = value
        out[i] = ceiling  # the next mark at or after i (its own mark if it has one)
    previous = -1
    for i, value in enumerate(marked):
        out[i] = value if value is not None else max(min(previous + 1, out[i]), max(previous, 0))
        previous = out[i]
    return "\n".join(lines), tuple(out)
