"""pymdownx.blocks (`/// note | Title` … `///`, `/// tab | Label`, `/// html | div`): what a
reader sees of their lines is a label over the block's text (`Note: Title`); the closers and the
block's options (`    type: warning`) show nothing. readable.py blanks or labels those lines.
"""

from __future__ import annotations

import re

BLOCK_LINE = re.compile(r"^[ \t]*(/{3,})[ \t]*([A-Za-z][\w-]*)?[ \t]*(?:\|[ \t]*(.*?))?[ \t]*$")
_OPTION = re.compile(r"^[ \t]{2,}[\w-]+:(?:\s|$)")


def block_labels(lines: list[str], code: list[bool]) -> dict[int, str]:
    """pymdownx blocks: label lines (`Note: Title`) and blanked closers and options, by line."""
    out: dict[int, str] = {}
    i = 0
    while i < len(lines):
        line = lines[i]
        if code[i] or "///" not in line or (m := BLOCK_LINE.match(line)) is None:
            i += 1
            continue
        kind, title = m.group(2), (m.group(3) or "").strip()
        if kind is None:
            out[i] = title
            i += 1
            continue
        low = kind.lower()
        label = title if low in ("tab", "html") else kind.capitalize()
        if title and low not in ("tab", "html"):
            label = title if low in title.lower() else f"{label}: {title}"
        out[i] = label if low != "html" else ""
        i += 1
        while i < len(lines) and not code[i] and _OPTION.match(lines[i]):
            out[i] = ""
            i += 1
    return out
