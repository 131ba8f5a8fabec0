"""Which characters of a PDF page no reader sees (issue 31, prompt-injection hygiene).

pdfium reports every character a page's content shows, painted or not; an agent should read
what a human reader of the page reads. `hidden_chars(page, textpage, n)` gives the indices
(in the text page) of the characters a reader cannot see, whose text the reader leaves out:

- **not painted** (render mode 3 "invisible", 7 "clip only"): hidden, unless an image lies
  under it: scanned pages carry their OCR text layer that way, invisible over the page image,
  and what it says is what the reader sees in the image;
- **transparent or white** (alpha 0; a white fill, or stroke for outlined text, on white
  paper): hidden, unless a filled path, shading or image (a dark table header, a coloured box)
  lies under its centre;
- **tiny**: under `MIN_SIZE` points after its text matrix (pdfium's font sizes leave the matrix
  out: `0.01 0 0 0.01 x y Tm` with 10 pt is 0.1 pt) and its box under `MIN_SIZE` thick;
- **off the page**: its box wholly outside the page's visible box (crop box within media box);
  of a text object mostly outside the box, the characters outside it (a line that overflows
  the page edge, mostly inside, stays whole: an overfull line of a manual's code).

The test is made per text object (a page of a TeX manual has ~100 of them, its text ~2,000
characters): a page none of whose objects is hidden costs those calls only. Characters are
matched to hidden objects only on pages that have one (FPDFText_GetTextObject, pypdfium2 5;
pypdfium2 4 has no such call: its characters are tested one by one with the text page's own
per-character calls). Where a call is missing altogether the text is kept, as before.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from functools import cache

# Below this many points (after the text matrix) text is a speck, not something read.
MIN_SIZE = 1.0
# Colour components at or above this are white on white paper (255 is exact white; a near
# white is as unreadable).
WHITE = 250
# Box tests (is this text on an image, on a coloured box?) per page at most; past them, text
# that needs one is judged hidden.
MAX_TESTS = 2_000_000
# Form XObjects nested deeper than this are not looked into (their text is kept).
MAX_FORM_DEPTH = 12
# A text object that runs off the visible box keeps its characters outside when this share of
# it is inside: an overfull code line or URL of a TeX manual runs past the page edge, and a
# reader copies it whole; a text object mostly outside has its characters outside dropped.
KEPT_OVERFLOW = 0.5
# Points a text object may run over the visible box before its characters are tested one by
# one (fonts' boxes run a little past a glyph).
SLACK = 2.0

_NOT_PAINTED = frozenset({3, 7})
_STROKED = frozenset({1, 2, 5, 6})
_FILLED = frozenset({0, 2, 4, 6})


@dataclass(frozen=True)
class Ink:
    """How a text object (or one character) is painted: render mode, RGBA fill and stroke
    colours, size in points after its matrix (None: not needed, its box is thick enough), and
    its box (left, bottom, right, top) in page space."""

    mode: int
    fill: tuple[int, int, int, int]
    stroke: tuple[int, int, int, int] | None
    size: float | None
    box: tuple[float, float, float, float]


@dataclass(frozen=True)
class Under:
    """What is painted on a page besides text: boxes of images, and of every image, shading
    or filled non-white path (what white text may stand on)."""

    images: tuple[tuple[float, float, float, float], ...]
    grounds: tuple[tuple[float, float, float, float], ...]


@dataclass
class _Page:
    """What the tests of one page share: its visible box, its objects other than text, what
    lies under its text (made on first use), and how many box tests are left (a page of
    thousands of boxes and thousands of white words must not cost their product)."""

    view: tuple[float, float, float, float]
    others: list
    under: Under | None = None
    tests_left: int = 0


def _available() -> bool:
    try:
        import pypdfium2.raw as raw
    except ImportError:
        return False
    needed = (
        "FPDF_GetPageBoundingBox",
        "FPDFPage_CountObjects",
        "FPDFPage_GetObject",
        "FPDFPageObj_GetType",
        "FPDFPageObj_GetBounds",
        "FPDFPageObj_GetFillColor",
        "FPDFPageObj_GetStrokeColor",
        "FPDFPageObj_GetMatrix",
        "FPDFTextObj_GetTextRenderMode",
        "FPDFTextObj_GetFontSize",
        "FPDFFormObj_CountObjects",
        "FPDFFormObj_GetObject",
        "FPDFPath_GetDrawMode",
        "FPDFText_GetCharBox",
    )
    per_char = (
        ("FPDFText_GetTextObject",)
        if hasattr(raw, "FPDFText_GetTextObject")
        else (
            "FPDFText_GetTextRenderMode",
            "FPDFText_GetFillColor",
            "FPDFText_GetStrokeColor",
            "FPDFText_GetFontSize",
            "FPDFText_GetMatrix",
            "FPDFText_IsGenerated",
        )
    )
    return all(hasattr(raw, name) for name in needed + per_char)


AVAILABLE = _available()


def hidden_chars(page, tp, count: int) -> frozenset[int]:
    """Indices of the `count` characters of text page `tp` (of `page`, raw pdfium handles) that
    no reader of the page sees; empty where pypdfium2 lacks a call this needs."""
    if not AVAILABLE or count <= 0:
        return frozenset()
    import pypdfium2.raw as raw

    rect = raw.FS_RECTF()
    if not raw.FPDF_GetPageBoundingBox(page, ctypes.byref(rect)):
        return frozenset()
    # (the intersection of media and crop box, inherited ones included, unlike GetCropBox)
    view = (rect.left, min(rect.bottom, rect.top), rect.right, max(rect.bottom, rect.top))
    texts, others = _objects(raw, page, view)
    state = _Page(view, others, tests_left=MAX_TESTS)
    hidden: set[int] = set()
    straddling: set[int] = set()
    off: list[tuple[float, float, float, float]] = []  # boxes of text objects off the page
    for obj in texts:
        ink = _ink(raw, obj)
        verdict = _verdict(raw, ink, state)
        if verdict is not False:
            key = ctypes.cast(obj, ctypes.c_void_p).value or 0
            (hidden if verdict else straddling).add(key)
            if verdict is None or _outside(ink.box, view):
                off.append(ink.box)
    if not hidden and not straddling:
        return frozenset()
    if not hasattr(raw, "FPDFText_GetTextObject"):
        return _by_char(raw, tp, count, state, off)
    out = set()
    box = [ctypes.c_double() for _ in range(4)]
    refs = [ctypes.byref(x) for x in box]
    for i in range(count):
        key = ctypes.cast(raw.FPDFText_GetTextObject(tp, i), ctypes.c_void_p).value
        if key is None:
            continue  # a space or line break pdfium made up
        if key in hidden:
            out.add(i)
        elif key in straddling:  # a text object running off the page: its characters outside
            raw.FPDFText_GetCharBox(tp, i, *refs)
            if _outside((box[0].value, box[2].value, box[1].value, box[3].value), view):
                out.add(i)
    return frozenset(out)


def masked(tp, text: str, n: int, hidden: frozenset[int]) -> str:
    """The page text with its `hidden` characters as spaces; one character per index (where
    pdfium's text is not, a character it cannot map is U+FFFD)."""
    import pypdfium2.raw as raw

    if len(text) != n:
        codes = (raw.FPDFText_GetUnicode(tp, i) for i in range(n))
        text = "".join(
            chr(c) if c < 0x110000 and not 0xD800 <= c < 0xE000 else "\ufffd" for c in codes
        )
    return "".join(" " if i in hidden else c for i, c in enumerate(text))


def _objects(raw, page, view) -> tuple[list, list]:
    """(text objects that need a closer look, objects other than text) of a page, those inside
    form XObjects too. Text plainly seen (filled in a colour that shows, of a readable size,
    on the page: a TeX page has ~100 such objects and nothing else) is told in as few calls as
    can tell it."""
    texts: list = []
    others: list = []
    rgba, colour, box, bounds = _buffers()[:4]
    get_mode, get_fill = raw.FPDFTextObj_GetTextRenderMode, raw.FPDFPageObj_GetFillColor
    get_bounds = raw.FPDFPageObj_GetBounds
    left, low, right, top = view[0] - SLACK, view[1] - SLACK, view[2] + SLACK, view[3] + SLACK
    stack = [(page, raw.FPDFPage_CountObjects(page), raw.FPDFPage_GetObject, 0)]
    while stack:
        parent, n, get, depth = stack.pop()
        for k in range(n):
            obj = get(parent, k)
            mode = get_mode(obj)  # (-1 for an object that is not text)
            if (
                mode == 0
                and get_fill(obj, *colour)
                and get_bounds(obj, *bounds)
                and rgba[3].value
                and min(rgba[0].value, rgba[1].value, rgba[2].value) < WHITE
                and left <= box[0].value <= box[2].value - MIN_SIZE
                and box[2].value <= right
                and low <= box[1].value <= box[3].value - MIN_SIZE
                and box[3].value <= top
            ):
                continue
            kind = raw.FPDFPageObj_GetType(obj)
            if kind == raw.FPDF_PAGEOBJ_TEXT:
                texts.append(obj)
            elif kind == raw.FPDF_PAGEOBJ_FORM:
                if depth < MAX_FORM_DEPTH:
                    children = raw.FPDFFormObj_CountObjects(obj)
                    stack.append((obj, children, raw.FPDFFormObj_GetObject, depth + 1))
            elif kind in (raw.FPDF_PAGEOBJ_PATH, raw.FPDF_PAGEOBJ_IMAGE, raw.FPDF_PAGEOBJ_SHADING):
                others.append((obj, kind))
    return texts, others


@cache
def _buffers() -> tuple:
    """Reused out-parameters (each worker process reads one page at a time): four colour
    components, four float box sides, a font size, a matrix, two ints."""
    import pypdfium2.raw as raw

    rgba = [ctypes.c_uint() for _ in range(4)]
    box = [ctypes.c_float() for _ in range(4)]
    return (
        rgba,
        [ctypes.byref(x) for x in rgba],
        box,
        [ctypes.byref(x) for x in box],
        ctypes.c_float(),
        raw.FS_MATRIX(),
        ctypes.c_int(),
        ctypes.c_int(),
    )


def _color(get, obj) -> tuple[int, int, int, int]:
    rgba, refs = _buffers()[:2]
    if not get(obj, *refs):
        return (0, 0, 0, 255)  # unknown: painted
    return (rgba[0].value, rgba[1].value, rgba[2].value, rgba[3].value)


def _bounds(raw, obj) -> tuple[float, float, float, float] | None:
    box, refs = _buffers()[2:4]
    if not raw.FPDFPageObj_GetBounds(obj, *refs):
        return None
    return (box[0].value, box[1].value, box[2].value, box[3].value)


def _scale(m) -> float:
    """How much a matrix scales a length (1 for none; the mean of its two axes' factors)."""
    return abs(m.a * m.d - m.b * m.c) ** 0.5


def _ink(raw, obj) -> Ink:
    mode = raw.FPDFTextObj_GetTextRenderMode(obj)
    fill = _color(raw.FPDFPageObj_GetFillColor, obj)
    stroke = _color(raw.FPDFPageObj_GetStrokeColor, obj) if mode in _STROKED else None
    box = _bounds(raw, obj) or (0.0, 0.0, 0.0, 0.0)
    size = None
    if _thin(box):  # (most text is thick enough not to ask)
        points, matrix = _buffers()[4:6]
        if raw.FPDFTextObj_GetFontSize(obj, ctypes.byref(points)) and raw.FPDFPageObj_GetMatrix(
            obj, ctypes.byref(matrix)
        ):
            size = points.value * _scale(matrix)
    return Ink(mode, fill, stroke, size, box)


def _thin(box: tuple[float, float, float, float]) -> bool:
    return min(box[2] - box[0], box[3] - box[1]) < MIN_SIZE


def _outside(box: tuple[float, float, float, float], view: tuple[float, ...]) -> bool:
    left, bottom, right, top = box
    return right <= view[0] or left >= view[2] or top <= view[1] or bottom >= view[3]


def _overlap(box: tuple[float, float, float, float], view: tuple[float, ...]) -> float:
    """The share of a box's area (its length, for a flat one) inside the visible box."""
    width = min(box[2], view[2]) - max(box[0], view[0])
    height = min(box[3], view[3]) - max(box[1], view[1])
    full_width, full_height = box[2] - box[0], box[3] - box[1]
    share = 1.0
    for part, full in ((width, full_width), (height, full_height)):
        share *= max(0.0, part) / full if full > 0 else (1.0 if part >= 0 else 0.0)
    return share


def _inside(box: tuple[float, float, float, float], view: tuple[float, ...]) -> bool:
    return (
        box[0] >= view[0] - SLACK
        and box[2] <= view[2] + SLACK
        and box[1] >= view[1] - SLACK
        and box[3] <= view[3] + SLACK
    )


def _invisible(color: tuple[int, int, int, int]) -> bool:
    return color[3] == 0 or min(color[:3]) >= WHITE


def _verdict(raw, ink: Ink, page: _Page) -> bool | None:
    """True: no reader sees it; False: seen; None: it runs off the visible box (its characters
    decide)."""
    if ink.box == (0.0, 0.0, 0.0, 0.0):
        return False  # no box: nothing to judge (and nothing shown either)
    view = page.view
    if _outside(ink.box, view):
        return True
    # small type, in a thin box (a Type 3 font's size can be tiny with big glyphs)
    if ink.size is not None and ink.size < MIN_SIZE and _thin(ink.box):
        return True
    centre = ((ink.box[0] + ink.box[2]) / 2, (ink.box[1] + ink.box[3]) / 2)
    if ink.mode in _NOT_PAINTED:
        return not _on(centre, _under(raw, page).images, page)
    filled = ink.mode in _FILLED
    if (not filled or _invisible(ink.fill)) and (ink.stroke is None or _invisible(ink.stroke)):
        clear = (not filled or ink.fill[3] == 0) and (ink.stroke is None or ink.stroke[3] == 0)
        if clear or not _on(centre, _under(raw, page).grounds, page):
            return True
    if _inside(ink.box, view) or _overlap(ink.box, view) >= KEPT_OVERFLOW:
        return False  # (a typeset line whose end the page edge cuts: the reader copies it whole)
    return None


def _on(point: tuple[float, float], boxes, page: _Page) -> bool:
    """Whether a point lies in one of the boxes (False once the page's tests are spent)."""
    page.tests_left -= len(boxes)
    if page.tests_left < 0:
        return False
    x, y = point
    return any(left <= x <= right and low <= y <= top for left, low, right, top in boxes)


def _under(raw, page: _Page) -> Under:
    """The page's images and grounds, computed on first use."""
    if page.under is not None:
        return page.under
    images = []
    grounds = []
    fill_mode, stroke = _buffers()[6:8]
    for obj, kind in page.others:
        if kind == raw.FPDF_PAGEOBJ_PATH:
            if not raw.FPDFPath_GetDrawMode(obj, ctypes.byref(fill_mode), ctypes.byref(stroke)):
                continue
            if fill_mode.value == raw.FPDF_FILLMODE_NONE:
                continue
            if _invisible(_color(raw.FPDFPageObj_GetFillColor, obj)):
                continue  # a white box on white paper
        box = _bounds(raw, obj)
        if box is None:
            continue
        grounds.append(box)
        if kind == raw.FPDF_PAGEOBJ_IMAGE:
            images.append(box)
    page.under = Under(tuple(images), tuple(grounds))
    return page.under


def _by_char(raw, tp, count: int, page: _Page, off) -> frozenset[int]:
    """The hidden characters of a page by each one's own mode, colours, size and box (pypdfium2
    4, which cannot tell a character's text object); one outside the page is hidden when it
    lies on a text object judged off the page (`off`: not on an overfull line's end)."""
    out = set()
    box = [ctypes.c_double() for _ in range(4)]
    refs = [ctypes.byref(x) for x in box]
    rgba = [ctypes.c_uint() for _ in range(4)]
    colour_refs = [ctypes.byref(x) for x in rgba]
    matrix = raw.FS_MATRIX()
    for i in range(count):
        if raw.FPDFText_IsGenerated(tp, i):
            continue
        mode = raw.FPDFText_GetTextRenderMode(tp, i)
        raw.FPDFText_GetFillColor(tp, i, *colour_refs)
        fill = tuple(x.value for x in rgba)
        stroke = None
        if mode in _STROKED:
            raw.FPDFText_GetStrokeColor(tp, i, *colour_refs)
            stroke = tuple(x.value for x in rgba)
        raw.FPDFText_GetCharBox(tp, i, *refs)
        char = (box[0].value, box[2].value, box[1].value, box[3].value)  # left, bottom, ...
        size = None
        if raw.FPDFText_GetMatrix(tp, i, ctypes.byref(matrix)):
            size = raw.FPDFText_GetFontSize(tp, i) * _scale(matrix)
        if _outside(char, page.view):
            if _on(((char[0] + char[2]) / 2, (char[1] + char[3]) / 2), off, page):
                out.add(i)
            continue
        ink = Ink(mode, fill, stroke, size, char)  # type: ignore[arg-type]
        if _verdict(raw, ink, page):
            out.add(i)
    return frozenset(out)
