"""Include lines of three dialects whose files are read whole or by ranges: pymdownx.snippets'
`--8<-- "file.md"` (with `:section` and `:start:end`), mdBook's `{{#include file.rs:anchor}}`
and FastAPI's `{* ../../docs_src/x.py ln[3,9:12] *}`. The reader (includes.py) finds a line's
dialect and calls these with `Files`, its way to the files: each is found and read as every
include is (the source roots only), included markdown is read through `_Reader._inline` (the
one depth bound).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass

from docsmcp_runtime.search.languages import normalise_language

from docsmcp.sources.inclusion.include_ranges import (
    MDBOOK_ANCHOR,
    SNIPPET_SECTION,
    select_line_ranges,
    select_mdbook,
    select_section,
)

SNIPPET = re.compile(r"""^([ \t]*)-{1,}8<-{1,}[ \t]+(["'])([^"'\n]+)\2[ \t]*$""")
SNIPPET_BLOCK = re.compile(r"^[ \t]*-{1,}8<-{1,}[ \t]*$")
MDBOOK = re.compile(r"\{\{#(include|rustdoc_include)[ \t]+([^}\s]+)[ \t]*\}\}")
FASTAPI = re.compile(r"^([ \t]*)\{\*[ \t]+(\S+)((?:[ \t]+\w+\[[^\]\n]*\])*)[ \t]*\*\}[ \t]*$")
_FASTAPI_LN = re.compile(r"\bln\[([^\]\n]*)\]")
_OMITTED = "# Code here omitted 👈"  # (FastAPI's words between two ranges of a Python file)


@dataclass(frozen=True)
class Files:
    """How an include finds and reads its file (includes._Reader's)."""

    read_first: Callable[[list[str], str], str | None]  # candidates, spec -> text or None
    candidates: Callable[[str, str], list[str]]  # page, name -> paths to try
    inline: Callable[[str, list[str], int], list[str]]  # included markdown, read as a page
    found: Callable[[], str]  # the path read_first read last


def snippet(files: Files, page: str, spec: str, indent: str, depth: int) -> list[str]:
    name, section, start, end = spec, "", None, None
    parts = spec.rsplit(":", 2)
    if len(parts) == 3 and parts[1].lstrip("-").isdigit() and parts[2].lstrip("-").isdigit():
        name, start, end = parts[0], int(parts[1]), int(parts[2])
    elif ":" in spec and not re.match(r"^[A-Za-z]:[\\/]", spec):
        head, tail = spec.rsplit(":", 1)
        if tail.isdigit():
            name, start, end = head, int(tail), None
        elif re.fullmatch(r"[\w-]+", tail):
            name, section = head, tail
    text = files.read_first(files.candidates(page, name), spec)
    if text is None:
        return [f'{indent}--8<-- "{spec}"']
    if name.lower().endswith(".svg"):
        # A picture drawn inline: its reader sees an image, not XML (Textual's 83 diagrams
        # and screenshots were half of its indexed text, up to 183 KB a chunk).
        return [""]
    lines = text.split("\n")
    if section:
        lines = select_section(lines, section)
    elif start is not None:
        lines = lines[max(start - 1, 0) : end]
    lines = [x for x in lines if not SNIPPET_SECTION.search(x)]
    if name.endswith((".md", ".markdown", ".mdx")):
        lines = files.inline(name, lines, depth)
    return indented(indent, lines)


def mdbook(files: Files, page: str, line: str, depth: int) -> list[str] | None:
    out = line
    for m in list(MDBOOK.finditer(line))[::-1]:
        spec = m.group(2)
        name, _, selector = spec.partition(":")
        target = posixpath.normpath(posixpath.join(posixpath.dirname(page), name))
        text = files.read_first(files.candidates(page, name), spec)
        if text is None:
            continue
        lines = text.split("\n")
        if text.endswith("\n"):
            lines = lines[:-1]
        lines = select_mdbook(lines, selector)
        lines = [x for x in lines if not MDBOOK_ANCHOR.search(x)]
        if name.endswith((".md", ".markdown")):
            lines = files.inline(target, lines, depth)
        out = out[: m.start()] + "\n".join(lines) + out[m.end() :]
    return None if out == line else out.split("\n")


def fastapi(files: Files, page: str, name: str, options: str, indent: str) -> list[str]:
    text = files.read_first(files.candidates(page, name), name)
    if text is None:
        return [f"{indent}{{* {name}{options} *}}"]
    lines = text.rstrip("\n").split("\n")
    if m := _FASTAPI_LN.search(options):
        lines = select_line_ranges(lines, m.group(1), _OMITTED)
    language = normalise_language(posixpath.splitext(name)[1].lstrip(".")) or ""
    fence = "````" if any(x.lstrip().startswith("```") for x in lines) else "```"
    body = [fence + language, *lines, fence]
    return indented(indent, body)


def indented(indent: str, lines: list[str]) -> list[str]:
    """Included lines at a directive's indent (blank lines left empty)."""
    return [indent + x if x else x for x in lines]
