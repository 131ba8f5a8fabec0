"""The links of a PDF page that go to a page of the same document, read in the workers that
read its lines (extract.py): each link annotation's text, its place, and where it goes.
"""

from __future__ import annotations

import ctypes

# Link annotations read per page at most.
MAX_LINKS_PER_PAGE = 500
# Characters of a link's text read at most (a longer text is not found in its line anyway).
MAX_LINK_TEXT = 300


def page_links(doc, page, tp) -> tuple[tuple, ...]:
    """(link text, bottom, top, target page index, target y or None) of each link annotation of
    `page` (its text page `tp`) that goes to a page of the same document, at most
    MAX_LINKS_PER_PAGE."""
    import pypdfium2.raw as raw

    out = []
    pos = ctypes.c_int(0)
    link = raw.FPDF_LINK()
    text_buf = (ctypes.c_ushort * (MAX_LINK_TEXT + 1))()
    while len(out) < MAX_LINKS_PER_PAGE and raw.FPDFLink_Enumerate(
        page.raw, ctypes.byref(pos), ctypes.byref(link)
    ):
        dest = raw.FPDFLink_GetDest(doc.raw, link)
        if not dest:
            action = raw.FPDFLink_GetAction(link)
            if not action or raw.FPDFAction_GetType(action) != raw.PDFACTION_GOTO:
                continue  # a URL or another file: not a reference inside the bundle
            dest = raw.FPDFAction_GetDest(doc.raw, action)
        if not dest:
            continue
        target = raw.FPDFDest_GetDestPageIndex(doc.raw, dest)
        if target < 0:
            continue
        has = [ctypes.c_int() for _ in range(3)]
        xyz = [ctypes.c_float() for _ in range(3)]
        y = None
        if raw.FPDFDest_GetLocationInPage(dest, *map(ctypes.byref, has + xyz)) and has[1].value:
            y = float(xyz[1].value)
        rect = raw.FS_RECTF()
        if not raw.FPDFLink_GetAnnotRect(link, ctypes.byref(rect)):
            continue
        # one call with a buffer for the longest link text kept (longer ones are cut)
        got = raw.FPDFText_GetBoundedText(
            tp.raw, rect.left, rect.top, rect.right, rect.bottom, text_buf, MAX_LINK_TEXT
        )
        if got <= 0:
            continue
        text = bytes(text_buf)[: 2 * min(got, MAX_LINK_TEXT)].decode("utf-16-le", "replace")
        text = text.replace("\x00", "").replace("\r\n", " ")
        low, high = sorted((float(rect.bottom), float(rect.top)))
        out.append((text, low, high, int(target), y))
    return tuple(out)
