"""Pandoc's fenced divs, `::: {.callout-note}` … `:::` (Quarto, R Markdown), as a reader sees them.

mdx.admonitions_to_text reads each div's opening line with `div_label`: a callout's kind as its
label, with its `title`; any other div (tabsets, layout, conditional content) no line of its
own. `::: tip` is a Docusaurus/VitePress admonition, read elsewhere.
"""

from __future__ import annotations

import re

_DIV = re.compile(r"^[ ]{0,3}:{3,}[ \t]*(\{[^{}\n]*\}|[A-Za-z][\w-]*)[ \t]*$")
_CLASS = re.compile(r"(?:^|[\s{])\.([\w-]+)")
_TITLE = re.compile(r"""\btitle=(?:"([^"\n]*)"|'([^'\n]*)')""")
_CALLOUTS = {"note": "Note", "tip": "Tip", "warning": "Warning", "caution": "Caution"}
_CALLOUTS["important"] = "Important"


def div_label(line: str) -> str | None:
    """What a fenced div's opening line reads as: a callout's label (`Note`, `Tip: Title`), ""
    for any other div, None when the line opens no div (`:::` closes one; `::: tip` is a
    Docusaurus/VitePress admonition, read elsewhere)."""
    m = _DIV.match(line)
    if m is None:
        return None
    attrs = m.group(1)
    if not attrs.startswith("{"):  # `::: callout-note`: pandoc's bare class
        if not attrs.startswith("callout-"):
            return None
        attrs = "{." + attrs + "}"
    for name in _CLASS.findall(attrs):
        kind = name.removeprefix("callout-")
        if name.startswith("callout-") and kind in _CALLOUTS:
            title = _TITLE.search(attrs)
            said = (title.group(1) or title.group(2) or "").strip() if title else ""
            return _CALLOUTS[kind] + (f": {said}" if said else "")
    return ""
