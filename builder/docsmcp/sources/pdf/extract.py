"""PDF files as sources (issue 10): read with pypdfium2, pages in parallel, cached by content.

`read_pdf(data, workers, ...)` turns the bytes of a PDF into an `Extracted`: the
markdown-like text of `pdf_layout.assemble`, the first markdown line of each page (chunks get
their page range from it), the section numbers of its headings and the document metadata.

- The pages are read in worker processes (their lines here, their links to other pages in
  links.py), in ranges of `PAGES_PER_TASK`, on up to `workers` cores (one file of 2,415 pages
  uses both cores); results come back in page order, so the text is the same whatever the
  number of workers. A worker that crashes (a PDF that breaks the library) or a file that
  takes longer than `time_limit` is one Problem, never a hang.
- The result is cached by the sha256 of the file and this code's version (cached.py); a bundle
  never depends on the cache.
- Bad input (not a PDF, encrypted with a password, damaged) is a `PdfError` whose message is one
  actionable line; pages without a text layer (scans) are counted and reported.

pypdfium2 (Apache-2.0 / BSD-3-Clause) is an optional dependency: the `pdf` extra. Without it a
PDF is one Problem saying how to install it.
"""

from __future__ import annotations

import concurrent.futures
import ctypes
import hashlib
import json
import logging
import multiprocessing
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from docsmcp.common.budget import memory_limit, parse_megabytes
from docsmcp.common.limits import PARSE_MEMORY_ENV
from docsmcp.common.progress import Reporter
from docsmcp.sources.files import PDF_SUFFIXES
from docsmcp.sources.pdf.library_log import named
from docsmcp.sources.pdf.links import page_links

if TYPE_CHECKING:  # imported when a PDF is read: a corpus without PDFs never needs it
    from docsmcp.sources.pdf.model import Line, Markdown, OutlineEntry

log = logging.getLogger(__name__)

PAGES_PER_TASK = 48
# Outline entries read at most (a damaged outline can loop or be huge).
MAX_OUTLINE = 100_000
MAX_OUTLINE_DEPTH = 16
# A line wider than this many font sizes per character may run across columns: its word gaps
# are measured, and a gap of over COLUMN_GAP font sizes splits it (at most MAX_COLUMNS times).
WIDE_LINE = 0.62
COLUMN_GAP = 2.5
MAX_COLUMNS = 3
# Word gaps of a line are measured (its first MAX_CELL_GAPS ones): a gap wider than CELL_GAP
# font sizes starts a table cell (justified prose stays under 1; table columns are wider).
CELL_GAP = 1.5
MAX_CELL_GAPS = 40
MAX_CELLS = 12
# Seconds a PDF may take to read, per 1,000 pages and per MB of file (the lesser), with a floor.
# fullrefman.pdf (6.5 MB, 2,415 pages) reads in 14 s on one core of a slow machine: 2.2 s per
# MB. By pages alone a 16 MB file of 99,999 near-empty pages had 8 hours.
SECONDS_PER_1000_PAGES = 300
SECONDS_PER_MB = 30
MIN_SECONDS = 120
INSTALL_HINT = "PDF support needs pypdfium2: pip install 'docsmcp[pdf]'"
# Font names of monospaced faces (TeX's CMTT/SFTT/LMMono, Inconsolata, Courier, DejaVu Sans
# Mono, Consolas, Menlo, Source Code Pro, ...).
_MONO_FONT = re.compile(
    r"(?i)(mono|courier|consol|inconsolata|menlo|code|fixed|typewriter|"
    r"(?:^|[+_-])(?:cm|sf|ec|lm)?tt\d|cmtt|sftt|lmtt|nimbusmon)"
)
_BOLD_FONT = re.compile(r"(?i)(bold|black|heavy|semibold|demi|medi|cmbx|sfbx|bx\d)")


@dataclass(frozen=True)
class PdfOptions:
    """How a build reads PDFs: on how many processes, and where the extraction cache lives
    (None: no cache)."""

    workers: int = 1
    cache_dir: Path | None = None
    # Makes the counter of a PDF's pages (label, total) as it is read: a terminal line, or a
    # log line every few seconds (common/progress.py); None: silent.
    progress: Reporter | None = None


@dataclass(frozen=True)
class PdfSummary:
    """What the build summary says about one PDF."""

    path: str
    pages: int
    empty_pages: int  # pages without a text layer
    outline: bool
    cached: bool  # taken from the extraction cache


# What to do with a PDF over a limit (one home for the messages).
SPLIT_HINT = "split it (qpdf --split-pages=N IN OUT) or leave it out"


class PdfError(Exception):
    """A PDF that cannot be read; the message is one line saying why and what to do."""


@dataclass(frozen=True)
class Extracted:
    text: str
    page_starts: tuple[int, ...]
    section_numbers: tuple[tuple[int, str], ...]
    title: str | None
    description: str | None
    author: str | None
    pages: int
    empty_pages: int  # pages without a text layer (scanned or blank)
    outline: bool  # whether the file had a usable outline
    bad_outline: int  # outline entries dropped (destination missing or out of range)


def available() -> bool:
    try:
        import pypdfium2  # noqa: F401
    except ImportError:
        return False
    return True


def is_pdf(path: str) -> bool:
    return path.lower().endswith(PDF_SUFFIXES)


@cache
def extractor_version() -> str:
    """Hash of the code that makes the text: a change starts a new cache entry."""
    digest = hashlib.sha256()
    for name in ("extract.py", "links.py", "visible.py", "model.py", "reading.py", "layout.py"):
        digest.update((Path(__file__).parent / name).read_bytes())
    try:
        import pypdfium2

        digest.update(str(pypdfium2.PYPDFIUM_INFO).encode())
    except (ImportError, AttributeError):
        pass
    return digest.hexdigest()[:16]


# -- reading pages (in workers) -------------------------------------------------------------

# The PDF of the extraction in progress, inherited by forked workers.
_DATA: bytes = b""


def _open(data: bytes):
    import pypdfium2 as pdfium

    try:
        return pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        message = str(exc)
        if "password" in message.lower():
            raise PdfError(
                "encrypted PDF that needs a password; decrypt it (qpdf --decrypt --password=... "
                "IN OUT) or leave it out"
            ) from None
        raise PdfError(
            f"damaged or unsupported PDF ({message}); repair it or leave it out"
        ) from None


def _line_fonts(tp, raw, start: int, text: str, buf, flags) -> tuple[float, bool, bool]:
    """(size, bold, mono) of a line: mono when every word starts in a monospaced font."""
    starts = [start] + [start + m.end() for m in re.finditer(r"\s+", text) if m.end() < len(text)]
    mono = True
    size = 0.0
    bold_first = False
    for n, i in enumerate(starts[:24]):
        raw.FPDFText_GetFontInfo(tp, i, buf, len(buf), ctypes.byref(flags))
        name = buf.value.decode("latin-1", "replace")
        if n == 0:
            weight = raw.FPDFText_GetFontWeight(tp, i)
            bold_first = bool(_BOLD_FONT.search(name)) or weight >= 600
            size = float(raw.FPDFText_GetFontSize(tp, i))
        if not _MONO_FONT.search(name) and not (flags.value & 1):
            mono = False
            if n > 0:
                break
    if len(starts) > 1 and bold_first:
        last = start + len(text) - 1
        raw.FPDFText_GetFontInfo(tp, last, buf, len(buf), ctypes.byref(flags))
        bold_first = bool(_BOLD_FONT.search(buf.value.decode("latin-1", "replace")))
    return size, bold_first, mono


def _read_page(doc, index: int) -> tuple[tuple[tuple, ...], tuple[tuple, ...]]:
    """(lines, links) of a page: each line (text, x, y, size, bold, mono, advance, right, parts,
    cells), each link annotation to a page of this document (text, bottom, top, target page,
    target y)."""
    import pypdfium2 as pdfium

    try:
        page = doc[index]
    except pdfium.PdfiumError:
        return (), ()  # a page that cannot be loaded (a page-tree loop, a missing object): empty
    try:
        tp = page.get_textpage()
        try:
            lines = _page_lines(tp, page)
            return lines, (page_links(doc, page, tp) if lines else ())
        finally:
            tp.close()
    finally:
        page.close()


def _page_lines(tp, page) -> tuple[tuple, ...]:
    import pypdfium2.raw as raw

    from docsmcp.sources.pdf.visible import hidden_chars, masked

    n = tp.count_chars()
    if n <= 0:
        return ()
    text = tp.get_text_range()
    hidden = hidden_chars(page.raw, tp.raw, n)
    if hidden:  # what no reader sees becomes spaces, so indices still locate characters
        text = masked(tp.raw, text, n, hidden)
    exact = len(text) == n  # else char indices cannot be located: no font info
    buf = ctypes.create_string_buffer(128)
    flags = ctypes.c_int()
    left, right, bottom, top = (ctypes.c_double() for _ in range(4))
    out = []
    pos = 0
    for piece in text.split("\r\n"):
        stripped = piece.strip()
        if stripped and exact:
            first = pos + (len(piece) - len(piece.lstrip()))
            raw.FPDFText_GetCharBox(
                tp.raw,
                first,
                ctypes.byref(left),
                ctypes.byref(right),
                ctypes.byref(bottom),
                ctypes.byref(top),
            )
            x, y = left.value, bottom.value
            size, bold, mono = _line_fonts(tp.raw, raw, first, stripped, buf, flags)
            raw.FPDFText_GetCharBox(
                tp.raw,
                first + len(stripped) - 1,
                ctypes.byref(left),
                ctypes.byref(right),
                ctypes.byref(bottom),
                ctypes.byref(top),
            )
            end = max(x, right.value)
            if "\ufffe" in stripped:  # pdfium joined a hyphenated word's two lines: the
                y = bottom.value  # paragraph goes on from the lower one
            advance = (end - x) / len(stripped) if mono and len(stripped) > 1 else 0.0
            parts: tuple[tuple[int, int, float, float], ...] = ()
            if not mono and len(stripped) > 20 and end - x > WIDE_LINE * size * len(stripped):
                cuts = _column_gaps(tp.raw, raw, first, stripped, size)
                if cuts:  # maybe one text line across columns: where each column's part is
                    bounds = [(0, x), *cuts, (len(stripped), 0.0)]
                    parts = tuple(
                        (
                            a,
                            b,
                            ax,
                            _box(tp.raw, raw, first + a + len(stripped[a:b].rstrip()) - 1)[1],
                        )
                        for (a, ax), (b, _) in zip(bounds, bounds[1:], strict=False)
                    )
            cells = _cell_starts(tp.raw, raw, first, stripped, size)
            if hidden and not hidden.isdisjoint(range(first, first + len(stripped))):
                # hidden text inside a line leaves a gap that is no column or table cell
                stripped, parts, cells = " ".join(stripped.split()), (), ()
            out.append((stripped, x, y, size, bold, mono, advance, end, parts, cells))
        elif stripped:
            out.append((stripped, 0.0, -float(len(out)), 10.0, False, False, 0.0, 0.0, (), ()))
        pos += len(piece) + 2
    return tuple(out)


def _box(tp, raw, index: int) -> tuple[float, float]:
    """(left, right) of a character."""
    box = [ctypes.c_double() for _ in range(4)]
    raw.FPDFText_GetCharBox(tp, index, *map(ctypes.byref, box))
    return box[0].value, box[1].value


def _column_gaps(tp, raw, first: int, text: str, size: float) -> list[tuple[int, float]]:
    """Where a line pdfium joined across columns breaks: (offset in text, x) of each word that
    starts more than COLUMN_GAP font sizes right of the word before it."""
    cuts = []
    for m in re.finditer(r"\s+", text):
        if m.end() >= len(text):
            break
        before = _box(tp, raw, first + m.start() - 1)[1]
        after = _box(tp, raw, first + m.end())[0]
        if after - before > COLUMN_GAP * size:
            cuts.append((m.end(), after))
    return cuts[:MAX_COLUMNS]


def _cell_starts(tp, raw, first: int, text: str, size: float) -> tuple[tuple[int, float], ...]:
    """Where a line's table cells start after its first: (offset in text, x) of each word that
    starts more than CELL_GAP font sizes right of the word before it (pdfium writes such a gap
    as one space, so the text alone cannot tell a table row from a sentence)."""
    cuts: list[tuple[int, float]] = []
    for n, m in enumerate(re.finditer(r"\s+", text)):
        if n >= MAX_CELL_GAPS or m.end() >= len(text) or len(cuts) >= MAX_CELLS - 1:
            break
        before = _box(tp, raw, first + m.start() - 1)[1]
        after = _box(tp, raw, first + m.end())[0]
        if after - before > CELL_GAP * max(size, 1.0):
            cuts.append((m.end(), after))
    return tuple(cuts)


def _read_range(
    start: int, end: int, megabytes: float = 0
) -> list[tuple[tuple[tuple, ...], tuple[tuple, ...]]]:
    """Pages `start` to `end`, read within a memory budget (in a child process only: pdfium
    aborts the process an allocation fails in)."""
    with memory_limit(megabytes):
        doc = _open(_DATA)
        try:
            return [_read_page(doc, i) for i in range(start, end)]
        finally:
            doc.close()


def _outline(doc, pages: int) -> tuple[list[OutlineEntry], int]:
    from docsmcp.sources.pdf.model import OutlineEntry
    from docsmcp.sources.pdf.reading import clean

    entries: list[OutlineEntry] = []
    bad = 0
    for n, mark in enumerate(doc.get_toc(max_depth=MAX_OUTLINE_DEPTH)):
        if n >= MAX_OUTLINE:
            log.warning("outline has over %d entries; the rest are ignored", MAX_OUTLINE)
            break
        title = clean(mark.get_title() or "")
        dest = mark.get_dest()
        index = dest.get_index() if dest is not None else None
        if not title or index is None or not 0 <= index < pages:
            bad += 1
            continue
        y = None
        try:
            _, view = dest.get_view()
            if len(view) >= 2 and view[1]:
                y = float(view[1])
        except Exception:  # noqa: BLE001 - a damaged view is only a missing position
            y = None
        entries.append(OutlineEntry(title, mark.level, index, y))
    return entries, bad


def _metadata(doc) -> dict[str, str]:
    from docsmcp.sources.pdf.reading import clean

    try:
        meta = doc.get_metadata_dict(skip_empty=True)
    except Exception:  # noqa: BLE001 - damaged metadata is no metadata
        return {}
    return {k: clean(v) for k, v in meta.items() if isinstance(v, str) and clean(v)}


def _title_from_first_page(lines: Sequence[Line]) -> str | None:
    """The largest text of the first page with text (a manual's cover title)."""
    if not lines:
        return None
    top = max(x.size for x in lines)
    parts = [x.text for x in lines if abs(x.size - top) < 0.1][:3]
    title = " ".join(parts).strip()
    return title[:200] or None


def _check_header(data: bytes) -> None:
    head = data[:1024]
    if b"%PDF-" not in head:
        shown = head[:40].decode("latin-1").strip().replace("\n", " ")
        kind = "HTML" if re.search(rb"(?i)<(!doctype|html)", head) else "not a PDF"
        raise PdfError(
            f"{'is HTML, ' if kind == 'HTML' else 'is '}not a PDF (it starts with {shown!r}); "
            "download the real file or leave it out"
        )


def read_pdf(
    data: bytes,
    workers: int,
    time_limit: float | None = None,
    max_pages: int | None = None,
    progress: Reporter | None = None,
    name: str = "PDF",
    max_text: int | None = None,
) -> Extracted:
    """Read a PDF's pages (on up to ``workers`` processes) and assemble its markdown;
    `progress` counts the pages of `name` as they are read. Past `max_text` characters of page
    text the reading stops with a PdfError."""
    global _DATA
    _check_header(data)
    try:
        import pypdfium2  # noqa: F401
    except ImportError:
        raise PdfError(INSTALL_HINT) from None
    doc = _open(data)
    try:
        pages = len(doc)
        if max_pages is not None and pages > max_pages:
            raise PdfError(f"has {pages:,} pages; at most {max_pages:,} are allowed; split it")
        with named(name):  # (the library's own messages, with the file's name)
            outline, bad = _outline(doc, pages)
        meta = _metadata(doc)
    finally:
        doc.close()
    limit = time_limit or max(
        MIN_SECONDS,
        min(SECONDS_PER_1000_PAGES * pages / 1000, SECONDS_PER_MB * len(data) / 1e6),
    )
    ranges = [(a, min(pages, a + PAGES_PER_TASK)) for a in range(0, pages, PAGES_PER_TASK)]
    raw_pages: list[tuple[tuple[tuple, ...], tuple[tuple, ...]]] = []
    _DATA = data
    counter = progress(f"reading {name} pages", pages) if progress else None
    try:
        raw_pages = _run(ranges, workers, limit, counter.advance if counter else None, max_text)
    finally:
        _DATA = b""
        if counter is not None:
            counter.close()
    from docsmcp.sources.pdf.layout import assemble
    from docsmcp.sources.pdf.model import Line, Link

    lines = [[Line(*x) for x in page] for page, _ in raw_pages]
    links = [[Link(*x) for x in found] for _, found in raw_pages]
    md: Markdown = assemble(lines, outline, links)
    empty = sum(1 for page, _ in raw_pages if not page)
    first = next((p for p in lines if p), [])
    title = meta.get("Title") or _title_from_first_page(first)
    return Extracted(
        text=md.text,
        page_starts=md.page_starts,
        section_numbers=md.section_numbers,
        title=title,
        description=meta.get("Subject"),
        author=meta.get("Author"),
        pages=pages,
        empty_pages=empty,
        outline=bool(outline),
        bad_outline=bad,
    )


def _run(
    ranges: list[tuple[int, int]],
    workers: int,
    limit: float,
    advance: Callable[[int], None] | None = None,
    max_text: int | None = None,
) -> list:
    """The pages of every range, in order, read by worker processes (forked, so they share the
    PDF's bytes). Even one worker runs in a child: a PDF that crashes the library or never
    finishes costs a Problem, not the build. `advance(pages)` is called as each range is in;
    text past `max_text` characters stops the reading as soon as its range is in."""
    seen = 0

    def arrived(pages: list, a: int, b: int) -> None:
        nonlocal seen
        seen += sum(len(line[0]) for lines, _ in pages for line in lines)
        if max_text is not None and seen > max_text:
            raise PdfError(
                f"PDF text passes {max_text:,} characters by page {b:,}; at most {max_text:,} "
                f"are allowed per PDF; {SPLIT_HINT}"
            )
        if advance is not None:
            advance(b - a)

    if not ranges:
        return []
    context = multiprocessing.get_context(
        "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    )
    if context.get_start_method() != "fork":  # the bytes cannot be inherited: read here
        out: list = []
        for a, b in ranges:
            out.extend(_read_range(a, b))
            arrived(out[-(b - a) :], a, b)
        return out
    deadline = time.monotonic() + limit
    pool = concurrent.futures.ProcessPoolExecutor(
        max_workers=max(1, min(workers, len(ranges))), mp_context=context
    )
    megabytes = parse_megabytes()
    try:
        futures = [pool.submit(_read_range, a, b, megabytes) for a, b in ranges]
        out = []
        for future, (a, b) in zip(futures, ranges, strict=True):
            remaining = deadline - time.monotonic()
            pages = future.result(timeout=max(0.0, remaining))
            out.extend(pages)
            arrived(pages, a, b)
        return out
    except concurrent.futures.TimeoutError:
        raise PdfError(
            f"reading took over {limit:.0f} s; the PDF may be damaged or hostile; leave it out"
        ) from None
    except concurrent.futures.process.BrokenProcessPool:
        budget = f"needed over {megabytes:g} MiB ({PARSE_MEMORY_ENV}) or " if megabytes else ""
        raise PdfError(
            f"the PDF library {budget}crashed reading this file; repair it or leave it out"
        ) from None
    finally:
        for process in list(getattr(pool, "_processes", {}).values()):
            if process.is_alive():
                process.kill()
        pool.shutdown(wait=True, cancel_futures=True)


def frontmatter(result: Extracted) -> str:
    """The PDF's document metadata as the page's frontmatter JSON (shown by get_page)."""
    data = {
        "title": result.title,
        "description": result.description,
        "author": result.author,
        "pages": result.pages,
    }
    return json.dumps({k: v for k, v in data.items() if v}, sort_keys=True, ensure_ascii=False)
