"""A Doxygen project's markdown pages read as its site shows them (packages/doxygen_project.py
applies this to the `.md` pages of a tree whose Doxyfile it found).

Doxygen reads markdown with its own commands inside: `@page name Title` (`@mainpage`) is the
page's title and `name` its anchor, `@section`/`@subsection`/`@subsubsection name Title` are
headings with that anchor, `[TOC]` is Doxygen's table of contents (dropped: the index has its
own), `@code{.c}` … `@endcode` (and `@verbatim` … `@endverbatim`) a code block,
`@note`/`@warning`/`@par` … a labelled paragraph, and `@ref name` / `[text](@ref name)` links
to a symbol, a group, a page or a section, by the project's link table. Every line stays a
line (the page's line map is unchanged); code blocks and code spans are left as written.
"""

from __future__ import annotations

import re

from docsmcp.sources.formats.source.doxygen_text import PARAGRAPHS, Links, inline

_PAGE = re.compile(r"^\s*[@\\](page|mainpage)\b[ \t]*(\S*)[ \t]*(.*)$")
_SECTION = re.compile(r"^\s*[@\\](section|subsection|subsubsection|paragraph)\s+(\S+)[ \t]*(.*)$")
_LEVEL = {"section": 2, "subsection": 3, "subsubsection": 4, "paragraph": 5}
_TOC = re.compile(r"^\s*(?:\[TOC\]|[@\\]tableofcontents\b.*)\s*$")
_CODE = re.compile(r"^(\s*)[@\\]code(?:\{\.?(\w+)\})?\s*$")
_CODE_END = re.compile(r"^(\s*)[@\\]endcode\s*$")
_VERBATIM = re.compile(r"^(\s*)[@\\]verbatim\s*$")
_VERBATIM_END = re.compile(r"^(\s*)[@\\]endverbatim\s*$")
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
_LABEL = re.compile(r"^(\s*)[@\\](\w+)\b[ \t]*(.*)$")
_SPAN = re.compile(r"(`+)(.+?)\1")
_HEADING_ID = re.compile(r"^(#{1,6})\s+(.*?)\s*\{#([\w:.-]+)\}\s*$")
_BROKEN_REF = re.compile(r"([@\\]ref)[ \t]*$")
_ANCHOR = re.compile(r"[@\\]anchor\s+(\w+)")
_ANCHOR_LINE = re.compile(r"^\s*[@\\]anchor\s+\w+\s*$")


def names(path: str, text: str) -> list[tuple[str, str, str]]:
    """(name, title, anchor) of what `@ref` can name in a page: `{#id}` headings, `@page`,
    `@section`s, and `@anchor`s, whose anchor is the section they stand in (an `@anchor`
    marks a paragraph, which has no id of its own in the bundle: GLFW's window hints)."""
    found: list[tuple[str, str, str]] = []
    section = ""
    for line in text.split("\n"):
        m = _HEADING_ID.match(line)
        if m:
            found.append((m.group(3), m.group(2), m.group(3)))
            section = m.group(3)
            continue
        m = _PAGE.match(line)
        if m and m.group(1) == "page" and m.group(2):
            found.append((m.group(2), m.group(3).strip() or m.group(2), m.group(2)))
            section = m.group(2)
            continue
        m = _SECTION.match(line)
        if m:
            found.append((m.group(2), m.group(3).strip() or m.group(2), m.group(2)))
            section = m.group(2)
            continue
        for a in _ANCHOR.finditer(line):
            found.append((a.group(1), a.group(1), section))
    return found


def _outside_code(line: str, links: Links) -> str:
    """The line's inline commands rendered, its code spans left as written."""
    out: list[str] = []
    at = 0
    for m in _SPAN.finditer(line):
        out.append(inline(line[at : m.start()], links, escapes=False))
        out.append(m.group(0))
        at = m.end()
    out.append(inline(line[at:], links, escapes=False))
    return "".join(out)


def rewrite(body: str, links: Links) -> str:
    """The page's text with Doxygen's commands as markdown, line for line."""
    out: list[str] = []
    fence = ""
    lines = body.split("\n")
    for k in range(len(lines) - 1):  # (`@ref` ending a line names what starts the next one)
        m = _BROKEN_REF.search(lines[k])
        if m and lines[k + 1].strip():
            lines[k] = lines[k][: m.start()].rstrip()
            lines[k + 1] = f"{m.group(1)} {lines[k + 1].lstrip()}"
    for line in lines:
        if fence in ("@endcode", "@endverbatim"):
            closed = (_CODE_END if fence == "@endcode" else _VERBATIM_END).match(line)
            out.append(f"{closed.group(1)}```" if closed else line)
            fence = "" if closed else fence
            continue
        if fence:
            out.append(line)
            if line.strip().startswith(fence):
                fence = ""
            continue
        m = _FENCE.match(line)
        if m:
            fence = m.group(1)
            out.append(line)
            continue
        m = _CODE.match(line)
        if m:
            out.append(f"{m.group(1)}```{(m.group(2) or '').lower()}")
            fence = "@endcode"
            continue
        m = _VERBATIM.match(line)
        if m:
            out.append(f"{m.group(1)}```")
            fence = "@endverbatim"
            continue
        m = _PAGE.match(line)
        if m:
            title = (m.group(3) if m.group(1) == "page" else f"{m.group(2)} {m.group(3)}").strip()
            anchor = f" {{#{m.group(2)}}}" if m.group(1) == "page" and m.group(2) else ""
            out.append(f"# {title or m.group(2)}{anchor}")
            continue
        m = _SECTION.match(line)
        if m:
            level = "#" * _LEVEL[m.group(1)]
            out.append(f"{level} {m.group(3).strip() or m.group(2)} {{#{m.group(2)}}}")
            continue
        if _TOC.match(line) or _ANCHOR_LINE.match(line):
            out.append("")
            continue
        m = _LABEL.match(line)
        if m and (m.group(2) in PARAGRAPHS or m.group(2) == "par"):
            label = m.group(3) if m.group(2) == "par" else PARAGRAPHS[m.group(2)]
            rest = "" if m.group(2) == "par" else _outside_code(m.group(3), links)
            out.append(f"{m.group(1)}**{label}:** {rest}".rstrip())
            continue
        out.append(_outside_code(line, links))
    return "\n".join(out)
