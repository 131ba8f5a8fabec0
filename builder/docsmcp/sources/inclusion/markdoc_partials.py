"""Markdoc partials: `{% partial file="header.md" variables={sdk: "Ruby"} /%}` on a line of its
own is the file's text where it stands (includes.py reads it through `_Reader._inline`, so its
own partials resolve, one depth bound for all).

Where the file is, first found: beside the page (Astro's Markdoc integration resolves a partial
relative to the page), in the docs folder, then in a `partials/` or `markdoc/partials/` folder
(the Next.js plugin's default, `markdoc/partials/` of the project) of the docs folder, the
folders above it up to a source root, and each source root. A partial's own `{% $name %}` are
the `variables` the tag passes (strings, numbers, booleans); others are left to the page's
Markdoc reading (formats/markdown/markdoc.py), which shows nothing for them, as Markdoc does.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from docsmcp.sources.frontmatter import split_frontmatter
from docsmcp.sources.jsliteral import exported_literal

_CALL = re.compile(r"^([ \t]*)\{%-?[ \t]*partial\b([^%\n]*?)/[ \t]*-?%\}[ \t]*$")
_FILE = re.compile(r"""\bfile=(?:"([^"\n]+)"|'([^'\n]+)')""")
_VARIABLES = re.compile(r"\bvariables=(\{.*\})")
_VARIABLE = re.compile(r"\{%[ \t]*\$([A-Za-z_][\w]*)[ \t]*/?%\}")
FOLDERS = ("partials", "markdoc/partials")
MAX_LEVELS = 4  # folders above the docs folder looked in, within the source roots


@dataclass(frozen=True)
class Call:
    indent: str
    file: str
    variables: dict[str, str]


def may_hold(body: str) -> bool:
    return "{%" in body and "partial" in body


def call(line: str) -> Call | None:
    """The partial tag `line` holds alone, or None."""
    if "partial" not in line or not (m := _CALL.match(line)):
        return None
    found = _FILE.search(m.group(2))
    if found is None:
        return None
    variables: dict[str, str] = {}
    given = _VARIABLES.search(m.group(2))
    data = exported_literal(f"export default {given.group(1)}", loose=True) if given else None
    for name, value in (data if isinstance(data, dict) else {}).items():
        if isinstance(value, bool):
            variables[name] = "true" if value else "false"
        elif isinstance(value, (str, int, float)):
            variables[name] = str(value)
    return Call(m.group(1), found.group(1) or found.group(2), variables)


def candidates(page: str, name: str, docs_dir: Path, roots: Sequence[Path]) -> list[str]:
    """Where the partial `name` of `page` may be, relative to docs_dir (module docstring)."""
    out = [posixpath.join(posixpath.dirname(page), name), name.lstrip("/")]
    docs = docs_dir.resolve()
    real_roots = [r.resolve() for r in roots]
    folder = docs
    for _ in range(MAX_LEVELS + 1):
        if not any(folder == r or r in folder.parents for r in real_roots):
            break
        out += [os.path.relpath(folder / f / name.lstrip("/"), docs) for f in FOLDERS]
        if folder.parent == folder:
            break
        folder = folder.parent
    for root in real_roots:
        out += [os.path.relpath(root / f / name.lstrip("/"), docs) for f in ("", *FOLDERS)]
    return list(dict.fromkeys(posixpath.normpath(c) for c in out))


def included(found: Call, text: str) -> list[str]:
    """The partial's lines at the tag's indent, without front matter, its variables read."""
    body = split_frontmatter(text).body if text.startswith(("---", "+++")) else text
    lines = body.strip("\n").split("\n")
    if found.variables:
        lines = [
            _VARIABLE.sub(lambda m: found.variables.get(m.group(1), m.group(0)), x)
            if "{%" in x
            else x
            for x in lines
        ]
    return [found.indent + x if x.strip() else "" for x in lines]
