"""Where an element's content ends, for readable.py: the closing tag of an element (any case;
`-->` for a comment, `?>` for a processing instruction), and the end of CommonMark's raw HTML
blocks of types 1 to 3 (`<script>`, `<style>`, a comment, a processing instruction), which run
to their closing tag over blank lines and fences, within MAX_SPAN characters.
"""

from __future__ import annotations

import re
from functools import cache

from docsmcp.sources.formats.markdown.inline_tags import MAX_SPAN

# CommonMark's HTML blocks of type 1 whose content no reader sees (hiding.UNSEEN_CONTENT).
# ... and type 2, a comment, which runs to its `-->` (React Router's generated pages open with
# a ten-line comment, blank lines inside: it was shown and indexed).
# ... and type 3, a processing instruction (`<?code-excerpt path-base="x"?>`: OpenTelemetry's
# code sync tool, 168 lines shown), to its `?>`.
RAW_BLOCK = re.compile(r"^[ ]{0,3}<(script|style|!--|\?)(?=[\s>]|$|(?<=--|.\?))", re.IGNORECASE)


@cache
def closing_tag(name: str) -> re.Pattern[str]:
    """The closing tag of element `name`, any case, blanks before its `>` (`-->` for `!--`,
    a comment)."""
    if name == "!--":
        return re.compile("-->")
    if name == "?":
        return re.compile(r"\?>")
    return re.compile(r"</" + re.escape(name) + r"\s*>", re.IGNORECASE)


def raw_block_end(lines: list[str], code: list[bool], i: int, name: str, j: int) -> int:
    """One past the line closing the `<script>`/`<style>` block or comment opened at line `i`,
    if it closes within MAX_SPAN characters and, but in a comment, no code line comes first;
    else `j` (the paragraph's end). A comment runs to its `-->` over fences too, as CommonMark
    reads it (Electron's API pages comment out a fenced YAML block of each method's history)."""
    close = closing_tag(name)
    read = 0
    for k in range(i, len(lines)):
        if (code[k] and name != "!--") or read > MAX_SPAN:
            return j
        if close.search(lines[k], lines[k].lower().find("<" + name) + 1 if k == i else 0):
            return max(j, k + 1)
        read += len(lines[k]) + 1
    return j
