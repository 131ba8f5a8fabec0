"""Code blocks whose text is a file: Rspress' ```` ```tsx file="./_demo.tsx" ```` with nothing
inside is that file's text, as its site shows it (Rspress' own docs: 29 blocks were empty).

Where the file is (Rspress' rules): `./x` and `../x` relative to the page; `/x` in the docs
folder, Rspress' `root` (`docs/` beside `rspress.config.*`, else the docs folder itself);
`<root>/x` in the project, the folder holding `rspress.config.*`. includes.py reads the file
(inside the source roots only) and writes the block with `fences.code_block`, the info string
kept but for the `file` option. A block with text of its own, one inside another block (an
example of the syntax), or a file not found, stays as written.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from docsmcp.sources.formats.markdown.fences import code_block
from docsmcp.sources.site_config import config_above
from docsmcp.sources.sites.rspress_site import CONFIGS

_OPEN = re.compile(r"^([ \t]*)(`{3,}|~{3,})(.*)$")
_FILE = re.compile(r"""(?:^|[ \t])file=(?:"([^"\n]+)"|'([^'\n]+)')""")
MAX_BLANK = 20  # blank lines an empty block may hold


@dataclass(frozen=True)
class FileFence:
    """An empty fenced block naming a file: its closing line, indent, info without `file=`,
    and its lines as written (what stays when the file is not found)."""

    end: int
    indent: str
    info: str
    path: str
    lines: tuple[str, ...]


def may_hold(body: str) -> bool:
    return "file=" in body


def fences(lines: list[str]) -> dict[int, FileFence]:
    """The empty blocks of `lines` whose info names a file, by opening line (top-level blocks
    only: one inside a longer fence is an example)."""
    found: dict[int, FileFence] = {}
    i = 0
    while i < len(lines):
        m = _OPEN.match(lines[i])
        if m is None or (m.group(2)[0] == "`" and "`" in m.group(3)):
            i += 1
            continue
        fence = m.group(2)
        end = next(
            (
                j
                for j in range(i + 1, len(lines))
                if (c := _OPEN.match(lines[j]))
                and c.group(2)[0] == fence[0]
                and len(c.group(2)) >= len(fence)
                and not c.group(3).strip()
            ),
            len(lines),
        )
        named = _FILE.search(m.group(3)) if "file=" in m.group(3) else None
        empty = end < len(lines) and end - i - 1 <= MAX_BLANK
        if named and empty and not any(x.strip() for x in lines[i + 1 : end]):
            info = (m.group(3)[: named.start()] + m.group(3)[named.end() :]).rstrip()
            spec = named.group(1) or named.group(2)
            found[i] = FileFence(end, m.group(1), info, spec, tuple(lines[i : end + 1]))
        i = end + 1
    return found


def block(fence: FileFence, text: str) -> list[str]:
    """The block with the file's text."""
    return code_block(fence.indent, fence.info, text.rstrip("\n").split("\n"))


def candidates(page: str, spec: str, docs_dir: Path, roots: Sequence[Path]) -> list[str]:
    """Where the file a block of `page` names may be, relative to docs_dir."""
    if spec.startswith(("./", "../")):
        return [posixpath.normpath(posixpath.join(posixpath.dirname(page), spec))]
    config = config_above(docs_dir, roots, CONFIGS)
    if spec.startswith("<root>/"):
        return [os.path.relpath(config.parent / spec[7:], docs_dir)] if config else []
    if spec.startswith("/"):
        rest = spec.lstrip("/")
        out = [rest]
        if config is not None and (config.parent / "docs").is_dir():
            out.insert(0, os.path.relpath(config.parent / "docs" / rest, docs_dir))
        return [posixpath.normpath(x) for x in out]
    return [posixpath.normpath(posixpath.join(posixpath.dirname(page), spec))]
