"""The records of PDF extraction: a text `Line` as the reader found it, an `OutlineEntry`, a
`Link`, and the `Markdown` a PDF becomes.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Line:
    """One text line of a page, as the reader found it (PDF user space: y grows upwards)."""

    text: str
    x: float  # left of the first character
    y: float  # baseline (bottom) of the first character
    size: float  # font size
    bold: bool
    mono: bool  # every word starts in a monospaced font
    advance: float = 0.0  # mean character advance of a monospaced line (0: unknown)
    right: float = 0.0  # right edge of the last character (0: unknown)
    # Where a line with wide gaps would split if its page has columns: (start, end) offsets in
    # text, with the part's left and right edges.
    parts: tuple[tuple[int, int, float, float], ...] = ()
    # Where table cells start after the first (words after a wide gap): (offset in text, x).
    cells: tuple[tuple[int, float], ...] = ()


@dataclass(frozen=True)
class OutlineEntry:
    title: str
    level: int  # 0 for top level
    page: int  # 0-based
    y: float | None  # target position on the page, when the destination has one


@dataclass(frozen=True)
class Link:
    """A link annotation of a page to a place in the same document."""

    text: str  # the text under the annotation's rectangle
    bottom: float
    top: float
    page: int  # target page, 0-based
    y: float | None  # target position on that page, when the destination has one


@dataclass(frozen=True)
class Markdown:
    text: str
    page_starts: tuple[int, ...]  # per page, the first markdown line (0-based) it produced
    section_numbers: tuple[tuple[int, str], ...]  # (heading line, 0-based; section number)
    headers_dropped: int  # header/footer lines removed
