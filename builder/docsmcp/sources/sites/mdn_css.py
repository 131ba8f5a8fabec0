"""MDN's `{{cssxref}}` as MDN renders it where the name alone does not say it: the macro looks
up the page it links and shows a CSS function's name with its parentheses and a CSS data type's
in angle brackets (`{{cssxref("max")}}`: `max()`, `{{cssxref("gradient/linear-gradient")}}`:
`linear-gradient()`, `{{cssxref("length")}}`: `<length>`). Which page is a function or a type
is its front matter's `page-type` (`css-function`, `css-type`), so this is read once every page
is read (corpus.py, through mdn_api.py): a call without display text whose page is one gets
that text as its second argument, and kumascript.py reads the call as any other. On all of
mdn/content's en-us, 177 calls of a function (`{{cssxref("anchor")}}` read "anchor", not
"anchor()") and the types written without brackets.

Line for line, fenced code untouched (its macros are shown as written).
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Mapping, Sequence

from docsmcp.model.source import SourceFile
from docsmcp.sources.formats.markdown.fences import fenced_lines

_CSS = "web/css/"
# A cssxref call with one argument (or an empty second one): group 1 the macro's spelling,
# group 2 the quote, group 3 the name, group 4 what follows (an empty display and an anchor).
_CALL = re.compile(
    r"""\{\{[ \t]*(cssxref)[ \t]*\([ \t]*(["'])([^"'\n]{1,200})\2[ \t]*"""
    r"""((?:,[ \t]*(["'])\5[ \t]*(?:,[^()\n]{0,200})?)?)\)[ \t]*\}\}""",
    re.IGNORECASE,
)
_SHOWN = {"css-function": "{}()", "css-type": "&lt;{}&gt;"}


def _kinds(files: Sequence[SourceFile]) -> dict[str, str]:
    """The page type of each CSS function's or data type's page, by its slug below `Web/CSS/`
    in lower case ("gradient/linear-gradient": "css-function")."""
    out: dict[str, str] = {}
    for sf in files:
        if "css-" not in sf.frontmatter or "page-type" not in sf.frontmatter:
            continue
        try:
            front = json.loads(sf.frontmatter)
        except ValueError:
            continue
        if not isinstance(front, dict):
            continue
        slug, kind = str(front.get("slug", "")).lower(), str(front.get("page-type", ""))
        if slug.startswith(_CSS) and kind in _SHOWN:
            out[slug[len(_CSS) :]] = kind
    return out


def _target(name: str) -> str:
    """The slug below `Web/CSS/` a cssxref name links, in lower case (as kumascript.py's)."""
    name = name.replace("&lt;", "<").replace("&gt;", ">").replace("()", "").strip()
    if name.startswith("<") and name.endswith(">"):
        return ""  # (a type written in brackets shows as written)
    return name.lower()


def _with_display(m: re.Match[str], kinds: Mapping[str, str]) -> str:
    name = m.group(3)
    kind = kinds.get(_target(name))
    if kind is None:
        return m.group(0)
    shown = _SHOWN[kind].format(name.rstrip("/").rsplit("/", 1)[-1].replace("()", ""))
    rest = m.group(4)
    anchor = rest.split(",", 2)[2] if rest.count(",") >= 2 else ""
    tail = f", {anchor.strip()}" if anchor.strip() else ""
    return f'{{{{{m.group(1)}("{name}", "{shown}"{tail})}}}}'


def resolve(files: Sequence[SourceFile]) -> list[SourceFile]:
    """`files` with their cssxref calls of a function or data type given the text MDN shows
    (see the module docstring)."""
    users = [k for k, sf in enumerate(files) if "ssxref" in sf.body.lower()]
    kinds = _kinds(files) if users else {}
    if not kinds:
        return list(files)
    out = list(files)
    for k in users:
        sf = files[k]
        lines = sf.body.split("\n")
        code = fenced_lines(lines)
        read = [
            line
            if code[i] or "{{" not in line
            else _CALL.sub(lambda m: _with_display(m, kinds), line)
            for i, line in enumerate(lines)
        ]
        if read != lines:
            out[k] = dataclasses.replace(sf, body="\n".join(read))
    return out
