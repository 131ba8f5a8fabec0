"""Includes written as tags: Fumadocs' `<include>` tag, `<include>../page.mdx</include>` inserts
another page's markdown where it stands, `<include cwd
meta='title="route.ts"'>../../examples/route.ts</include>` a code file as a code block (its
suffix's language, the `meta` as the fence's title); `cwd` paths start at the site's project
folder (the nearest folder above the docs holding a `package.json`), others at the page. The tag
may stand on one line or on three (opening tag, path, closing tag). Before, 77 tags on 30 of
Fumadocs' pages were indexed as markup and the partials they name were lost. docsify's embed,
`[x](_media/example.md ':include')` alone on a line (`:type=code` for a code block), reads the
same way (`DOCSIFY`).
"""

from __future__ import annotations

import os
import posixpath
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docsmcp_runtime.search.languages import normalise_language

from docsmcp.model.text import slugify
from docsmcp.sources.formats.markdown.dialects import ATX
from docsmcp.sources.formats.markdown.fences import code_block as fenced_block

# docsify's embed: a link alone on its line whose title holds `:include` (`:type=code` shows
# a markdown file as code; `:fragment=name`, the lines between `### [name]` markers, is not
# selected).
DOCSIFY = re.compile(
    r"""^([ \t]*)\[[^\]\n]*\]\([ \t]*([^\s()]+)[ \t]+"""
    r"""['"]([^'"\n]*:include\b[^'"\n]*)['"]\)[ \t]*$"""
)
ONE_LINE = re.compile(r"^([ \t]*)<include(\s[^<>]*)?>[ \t]*([^<>\s]+)[ \t]*</include>[ \t]*$")
# (not self-closing: Writerside's `<include from="lib.topic" element-id="x"/>` is no Fumadocs
# tag; read as one, it waited for a closing tag and took the rest of the page: 28 ktor pages)
OPEN = re.compile(r"^([ \t]*)<include(\s[^<>]*?)?(?<!/)>[ \t]*$")
CLOSE = re.compile(r"^[ \t]*</include>[ \t]*$")
_TITLE = re.compile(r"""title=["']([^"'\n]+)["']""")
_MARKDOWN = (".md", ".mdx")
MAX_LEVELS = 4


@dataclass
class Tag:
    indent: str
    attrs: str
    path: str = ""
    held: tuple[str, ...] = ()  # the lines read of a three-line tag, given back if it is none


def step(open_tag: Tag | None, line: str) -> tuple[Tag | None, Tag | list[str] | None]:
    """One line read for the tags (`open_tag`: one opened on an earlier line): (the tag still
    open, then a whole tag to resolve, or the lines `line` becomes, or None: itself)."""
    if open_tag is None:
        if m := ONE_LINE.match(line):
            return None, Tag(m.group(1), m.group(2) or "", m.group(3))
        if "://" not in line and (m := DOCSIFY.match(line)):
            return None, Tag(m.group(1), m.group(3), m.group(2))
        if m := OPEN.match(line):
            return Tag(m.group(1), m.group(2) or "", held=(line,)), []
        return None, None
    if CLOSE.match(line):
        return None, open_tag
    if open_tag.path:  # a second line before `</include>`: no tag, its lines are text
        return None, [*open_tag.held, line]
    open_tag.path = line.strip()
    open_tag.held += (line,)
    return open_tag, []


def candidates(page: str, tag: Tag, docs_dir: Path) -> list[str]:
    """Where the tag's file may be, relative to docs_dir (its `#section` aside)."""
    path = tag.path.partition("#")[0]
    if "cwd" not in tag.attrs.split():
        return [posixpath.normpath(posixpath.join(posixpath.dirname(page), path))]
    here = docs_dir.resolve()
    folders = [f for f in [here, *here.parents][:MAX_LEVELS] if (f / "package.json").is_file()]
    return [
        posixpath.normpath(os.path.relpath(os.path.join(f, path), docs_dir))
        for f in folders or [here]
    ]


def section(tag: Tag, lines: list[str]) -> list[str]:
    """The lines of the section `#id` the tag names (its heading to the next one of its level
    or higher), else all of them."""
    _, _, wanted = tag.path.partition("#")
    if not wanted:
        return lines
    for i, line in enumerate(lines):
        m = ATX.match(line)
        if m and slugify(m.group(2)) == wanted:
            level = len(m.group(1))
            end = next(
                (j for j in range(i + 1, len(lines)) if (h := ATX.match(lines[j]))
                 and len(h.group(1)) <= level),
                len(lines),
            )  # fmt: skip
            return lines[i:end]
    return lines


def code_block(tag: Tag, text: str) -> list[str] | None:
    """A code file's lines as a fenced block, or None for a markdown file (inlined)."""
    markdown = tag.path.partition("#")[0].lower().endswith(_MARKDOWN)
    if markdown and ":type=code" not in tag.attrs:
        return None
    language = normalise_language(posixpath.splitext(tag.path)[1].lstrip(".")) or "text"
    title = _TITLE.search(tag.attrs)
    info = language + (f' title="{title.group(1)}"' if title else "")
    return fenced_block(tag.indent, info, text.rstrip("\n").split("\n"))


def resolve(
    reader: Any, pending: Tag | None, page: str, line: str, depth: int
) -> tuple[Tag | None, list[str] | None]:
    """The tag still open and what `line` becomes (None: itself): an `<include>` on one line,
    or the path and closing tag of one opened on an earlier line (`pending`), read through
    includes._Reader `reader` (its files, its depth bound)."""
    pending, tag = step(pending, line)
    if not isinstance(tag, Tag):
        return pending, tag
    text = reader._read_first(candidates(page, tag, reader.docs_dir), tag.path)
    if text is None:
        return pending, []
    block = code_block(tag, text)
    if block is not None:
        return pending, block
    lines = section(tag, text.rstrip("\n").split("\n"))
    return pending, reader._inline(reader._found, lines, depth)
