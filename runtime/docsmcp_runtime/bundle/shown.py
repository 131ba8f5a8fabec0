"""A chunk's text as the reading tools show it (get_doc, get_page, resources).

The stored text keeps one line per line of the source file: what a reader never sees (MDX
components, twoslash setup, HTML comments, hidden elements) leaves blank lines behind, so that
the text's lines stay the file's lines (`docsmcp diff` numbers its excerpts by them, and
`code.parquet` counts characters of the stored text). On real sites that is 15 % of chunks
with runs of three or more blank lines (React's `<Intro>`, tRPC's twoslash setup: nine blank
lines before a code block), which an agent reads as gaps and pays for. Shown, a run of blank
lines outside code blocks is one blank line; code blocks keep theirs.
"""

from __future__ import annotations

import re

# A fenced block's opening or closing line, as the builder writes them (``` or ~~~, three or
# more; indented inside list items).
_FENCE = re.compile(r"[ \t]*(`{3,}|~{3,})")
# Two blank lines in a row (lines of spaces count as blank).
_RUN = re.compile(r"\n[ \t]*\n[ \t]*\n")


def shown(text: str) -> str:
    """`text` with each run of two or more blank lines outside fenced code made one."""
    if _RUN.search(text) is None:
        return text
    out: list[str] = []
    fence = ""  # the open fence's marker, "" outside code
    blank = False  # the last line kept was blank
    for line in text.split("\n"):
        m = _FENCE.match(line)
        if m is not None:
            marker = m.group(1)
            if not fence:
                fence = marker
            elif (
                marker[0] == fence[0]
                and len(marker) >= len(fence)
                and not line.strip(marker[0] + " \t")  # a closing fence has no info string
            ):
                fence = ""
        elif not fence and not line.strip():
            if blank:
                continue
            blank = True
            out.append("")
            continue
        blank = False
        out.append(line)
    return "\n".join(out)
