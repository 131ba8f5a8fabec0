"""MDN's reference pages as API registry entries: a page whose front matter says it documents a
JavaScript or Web API object (`page-type: javascript-static-method`, `web-api-instance-method`,
`web-api-interface`, ...) is the entry its title names, as MDN titles it: "Promise.allSettled()",
"FormData: append() method" (`FormData.append()`), "Headers() constructor" (`Headers()`).

The registry's heading rule finds no entry there: the name is the front matter's title, not a
heading of the body (55 entries on all of mdn/content's 13,043 pages, which hold 8,000
reference pages). What the entry holds is MDN's template: the `## Syntax` block is the
signature, `### Parameters` the parameters (`- \\`name\\` {{optional_inline}}` over `  - :
description`), `### Return value` the return value, the first paragraph the description.
Read once every page is read (corpus.py), from the page's text, macros as kumascript.py reads
them; the page's lines are its entry's.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Sequence

from docsmcp.model.api import ApiEntry, Parameter
from docsmcp.model.api_fields import MAX_DESCRIPTION_CHARS, MAX_RETURNS_CHARS, MAX_SIGNATURE_CHARS
from docsmcp.model.source import SourceFile
from docsmcp.model.text import truncate
from docsmcp.sources.formats.markdown import kumascript
from docsmcp.sources.formats.markdown.fences import fenced_lines
from docsmcp.sources.sites import mdn_css

# MDN's page types of an API object, and the registry's kind of each.
_KINDS = {
    "method": "method",
    "function": "method",
    "constructor": "method",
    "property": "type",
    "interface": "type",
    "class": "type",
    "type": "type",
}
_PAGE_TYPE = re.compile(
    r"^(?:javascript|web-api|webextension-api)-(?:instance-|static-|global-)?"
    r"(method|function|constructor|property|interface|class|type)$"
)
# "FormData: append() method", "Window: fetch() method", "AbortSignal: timeout() static method".
_MEMBER_TITLE = re.compile(
    r"^(?P<owner>[\w.$]+): (?P<member>\S+?) (?:static |instance )?(?:method|property|constructor)$"
)
_HEADING = re.compile(r"^(#{2,3})[ \t]+(.+?)[ \t]*$")
_TERM = re.compile(r"^- (.+?)[ \t]*$")
_NAME = re.compile(r"`([^`]+)`")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")


def _plain(text: str) -> str:
    """Markdown (macros read) as its words: links as their text, code and emphasis marks off."""
    text = _LINK.sub(r"\1", kumascript.read_line(text))
    return " ".join(re.sub(r"\*\*|`|(?<!\w)_|_(?!\w)", "", text).split())


def _name(title: str, page_type: str) -> str:
    """The entry's name, as MDN's title says it (`FormData: append() method`: FormData.append())."""
    if m := _MEMBER_TITLE.match(title):
        member = m.group("member")
        if page_type.endswith("constructor"):
            return member
        return f"{m.group('owner')}.{member}"
    return title.removesuffix(" constructor").strip()


def _sections(lines: list[str]) -> dict[str, tuple[int, int]]:
    """`## Syntax`, `### Parameters`, ... (lower case) -> their body's (start, end) lines."""
    code = fenced_lines(lines)
    heads = [
        (i, m.group(2).strip().lower())
        for i, line in enumerate(lines)
        if not code[i] and (m := _HEADING.match(line))
    ]
    out: dict[str, tuple[int, int]] = {}
    for k, (i, title) in enumerate(heads):
        end = heads[k + 1][0] if k + 1 < len(heads) else len(lines)
        out.setdefault(title, (i + 1, end))
    return out


def _paragraph(lines: list[str], start: int, end: int) -> str:
    """The first paragraph of prose in lines start..end (macro-only lines and quotes, the
    banners MDN sets above the text, passed over)."""
    words: list[str] = []
    code = fenced_lines(lines)
    for i in range(start, end):
        line = lines[i].strip()
        shown = kumascript.read_line(line) if "{{" in line else line  # (a banner: a quote)
        if code[i] or shown.startswith(("```", "#", "<", "|", "---", ">")):
            if words:
                break
            continue
        if not line or (not words and not _plain(line)):
            if words:
                break
            continue
        words.append(line)
    return _plain(" ".join(words))


def _signature(lines: list[str], span: tuple[int, int] | None) -> str:
    if span is None:
        return ""
    code = fenced_lines(lines)
    body = [lines[i] for i in range(*span) if code[i] and not lines[i].lstrip().startswith("```")]
    return truncate("; ".join(x.strip() for x in body if x.strip()), MAX_SIGNATURE_CHARS)


def _parameters(lines: list[str], span: tuple[int, int] | None) -> tuple[Parameter, ...]:
    """MDN's definition list of parameters: `- \\`name\\` {{optional_inline}}` / `  - : text`."""
    if span is None:
        return ()
    out = []
    for i in range(*span):
        m = _TERM.match(lines[i])
        # (the definition may follow a blank line: Window.fetch()'s `resource`)
        j = next((k for k in range(i + 1, span[1]) if lines[k].strip()), span[1])
        if m is None or j >= span[1] or not lines[j].lstrip().startswith("- :"):
            continue
        term = m.group(1)
        name = _NAME.search(term)
        description = _plain(lines[j].lstrip()[3:])
        optional = "optional_inline" in term.lower()
        out.append(
            Parameter(name.group(1) if name else _plain(term), "", not optional, description)
        )
    return tuple(out)


def _entry(sf: SourceFile, front: dict) -> ApiEntry | None:
    page_type = str(front.get("page-type", ""))
    m = _PAGE_TYPE.match(page_type)
    title = str(front.get("title") or "").strip()
    if m is None or not title:
        return None
    lines = sf.body.split("\n")
    sections = _sections(lines)
    first = next((i for i, line in enumerate(lines) if line.strip()), 0)
    heading = next((i for i in range(first, len(lines)) if _HEADING.match(lines[i])), len(lines))
    returns = sections.get("return value")
    return ApiEntry(
        name=_name(title, page_type),
        category=title.split(":")[0] if ":" in title else title.split(".")[0],
        kind=_KINDS[m.group(1)],
        signature=_signature(lines, sections.get("syntax")),
        description=truncate(_paragraph(lines, first, heading), MAX_DESCRIPTION_CHARS),
        parameters=_parameters(lines, sections.get("parameters")),
        returns=truncate(_paragraph(lines, *returns), MAX_RETURNS_CHARS) if returns else "",
        examples=(),
        chunk_id="",
        path=sf.path,
        line_start=first + 1,
        line_end=max(first + 1, len(lines)),
    )


def resolve(files: Sequence[SourceFile]) -> list[SourceFile]:
    """`files` with an API entry on each MDN reference page (see the module docstring), and
    their `{{cssxref}}` calls of CSS functions and types shown as MDN shows them (mdn_css.py)."""
    files = mdn_css.resolve(files)
    out = list(files)
    for k, sf in enumerate(files):
        if "page-type" not in sf.frontmatter or sf.api:
            continue
        try:
            front = json.loads(sf.frontmatter)
        except ValueError:
            continue
        if isinstance(front, dict) and "slug" in front and (entry := _entry(sf, front)):
            out[k] = dataclasses.replace(sf, api=(entry,))
    return out
