"""reST pages' include directives (includes.py reads the files): `.. literalinclude:: path` and
`.. include:: path` with `:literal:` or `:code:` become a `code-block` of the file (its
`:language:`, else its suffix's), a plain `.. include:: path` inserts the file's reST where it
stands, as docutils would; `:lines:`, `:start-after:`, `:end-before:`, `:start-line:`,
`:end-line:` and `:dedent:` select (include_ranges.select_rst), other options go."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable

from docsmcp_runtime.search.languages import normalise_language

from docsmcp.sources.inclusion.include_ranges import select_rst

_INCLUDE = re.compile(r"^([ \t]*)\.\.[ \t]+(literalinclude|include)::[ \t]+(\S+)[ \t]*$")
_OPTION = re.compile(r"^([ \t]+):([\w-]+):(?:[ \t]+(.*?))?[ \t]*$")

# What one directive stands for: (kind, path as written, options, indent) -> lines, or None
# (left as written).
Include = Callable[[str, str, dict[str, str], str], "list[str] | None"]


def expand(lines: list[str], include: Include) -> tuple[list[str], list[int]]:
    """A reST page's lines with its include directives resolved by `include`, and each line's
    line of `lines` (an included line: its directive's)."""
    out: list[str] = []
    line_map: list[int] = []
    i = 0
    while i < len(lines):
        m = _INCLUDE.match(lines[i]) if "include::" in lines[i] else None
        if m is None:
            out.append(lines[i])
            line_map.append(i)
            i += 1
            continue
        indent, kind, name = m.group(1), m.group(2), m.group(3)
        options: dict[str, str] = {}
        end = i + 1
        while end < len(lines) and (o := _OPTION.match(lines[end])):
            if len(o.group(1).expandtabs()) <= len(indent.expandtabs()):
                break
            options[o.group(2)] = o.group(3) or ""
            end += 1
        block = include(kind, name, options, indent)
        kept = lines[i:end] if block is None else block
        out.extend(kept)
        line_map.extend(range(i, end) if block is None else [i] * len(kept))
        i = end
    return out, line_map


def block(
    page: str,
    kind: str,
    name: str,
    options: dict[str, str],
    indent: str,
    text: str,
    nested: Callable[[str, list[str]], list[str]] | None,
) -> list[str]:
    """The lines a directive of `page` including `name` (whose text is `text`) stands for;
    `nested` resolves an included reST file's own includes (None: past the depth bound)."""
    lines = select_rst(text.split("\n"), options)
    if kind == "literalinclude" or "literal" in options or "code" in options:
        suffix = posixpath.splitext(name)[1].lstrip(".")
        language = options.get("language") or options.get("code") or ""
        language = language or normalise_language(suffix) or "text"
        body = [f"{indent}   {x}" if x.strip() else "" for x in lines]
        return [f"{indent}.. code-block:: {language}", "", *body, ""]
    if nested is not None:
        lines = nested(posixpath.normpath(posixpath.join(posixpath.dirname(page), name)), lines)
    return [indent + x if x.strip() else "" for x in lines]
