"""Texinfo's `@include file.texi` (a line of its own), resolved as includes.py resolves every
dialect's: through its reader, so inside the source roots, one depth bound, one size bound.

The file is looked up beside the including file (as makeinfo does), then where every include
looks (the docs folder, each source root: makeinfo's `-I` folders are the Makefile's); an
included Texinfo file's own includes are resolved in turn, up to the depth bound. A file not
found leaves the line as written (texinfo.py shows nothing for it). A `.texi` file another
manual of the docs includes is no page of its own (`no_pages`): it reads in that manual.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from docsmcp.common.limits import MAX_FILE_BYTES
from docsmcp.sources.files import TEXINFO_SUFFIXES, Refused, read_file

_INCLUDE = re.compile(r"^@include[ \t]+(\S[^\n]*?)[ \t]*$")

# (candidates, spec) -> the text of the first candidate found, or None.
Read = Callable[[list[str], str], str | None]


def expand(
    page: str,
    lines: list[str],
    max_depth: int,
    read: Read,
    found: Callable[[], str],
    candidates: Callable[[str, str], list[str]],
) -> tuple[list[str], list[int]]:
    """`lines` of the manual at `page` with its includes resolved, and each line's line of
    `lines` (an included line: its directive's). Iterative: a stack of the files being read."""
    out: list[str] = []
    line_map: list[int] = []
    # (path, lines, next index, the line of `lines` it maps to or None for the page itself)
    stack: list[tuple[str, list[str], int, int | None]] = [(page, lines, 0, None)]
    while stack:
        path, rows, i, at = stack.pop()
        if i >= len(rows):
            continue
        line = rows[i]
        stack.append((path, rows, i + 1, at))
        where = i if at is None else at
        m = _INCLUDE.match(line) if line.startswith("@include") else None
        text = None
        if m is not None and len(stack) < max_depth:
            name = m.group(1)
            text = read(candidates(path, name), name)
        if text is None:
            out.append(line)
            line_map.append(where)
            continue
        stack.append((found(), text.rstrip("\n").split("\n"), 0, where))
    return out, line_map


def no_pages(docs_dir: Path, roots: Sequence[Path], paths: Iterable[str]) -> set[str]:
    """The Texinfo files among `paths` that another one includes (a manual's chapters, its
    `version.texi`, the license appendix): they read in the manual that includes them."""
    texi = [p for p in paths if p.lower().endswith(TEXINFO_SUFFIXES)]
    known = set(texi)
    included: set[str] = set()
    for page in sorted(texi):
        try:
            body = read_file(docs_dir, page, roots, MAX_FILE_BYTES).decode("utf-8", "replace")
        except (Refused, OSError):
            continue
        if "@include" not in body:
            continue
        for line in body.split("\n"):
            m = _INCLUDE.match(line) if line.startswith("@include") else None
            if m is not None:
                target = posixpath.normpath(posixpath.join(posixpath.dirname(page), m.group(1)))
                if target in known and target != page:
                    included.add(target)
    return included
