"""ExDoc's admonitions: a blockquote whose first line is a heading ending in one of ExDoc's
classes (`> #### Why the macros? {: .info}`, `> ### Requirement {: .tip}`). hexdocs draws a box
labelled by its title; the reader sees `> Info: Why the macros?`, as GitHub alerts read
(dialects.py), not a heading inside a quote nor the attribute list.
"""

from __future__ import annotations

import re

# ExDoc's admonition classes and the label each reads as (`neutral` is a plain note).
LABELS = {"info": "Info", "tip": "Tip", "warning": "Warning", "error": "Error", "neutral": "Note"}
_ADMONITION = re.compile(
    r"^([ \t]*(?:>[ \t]*)+)#{1,6}[ \t]+(.*?)[ \t]*\{:[ \t]*\.(info|tip|warning|error|neutral)"
    r"[ \t]*\}[ \t]*$"
)


def admonition_line(line: str) -> str | None:
    """The label line of an ExDoc admonition's title line, else None."""
    m = _ADMONITION.match(line)
    if m is None:
        return None
    return f"{m.group(1)}{LABELS[m.group(3)]}: {m.group(2)}"
