"""MyST's include directives (Sphinx with myst_parser, Jupyter Book, mystmd), as includes.py
reads every dialect's: a fence ```` ```{include} ../CHANGES.md ```` (or `:::{include}`) with
option lines (`:start-line: 2`, `:start-after:`, `:end-before:`, `:lines:`, as Sphinx's reST
`include` takes them: include_ranges.select_rst) inserts the file's markdown where it stands;
`{literalinclude}` a code block of the file (its `:language:`, else its suffix's). Before, the
directive left nothing, silently (Black's 95 KB change log, its authors and license pages;
Jupyter Book's release guide and plugin code).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from docsmcp_runtime.search.languages import normalise_language

from docsmcp.sources.formats.markdown.fences import code_block
from docsmcp.sources.inclusion.include_ranges import select_rst

OPEN = re.compile(r"^([ \t]*)(`{3,}|:{3,})\{(include|literalinclude)\}[ \t]+(\S+)[ \t]*$")
_OPTION = re.compile(r"^[ \t]*:([\w-]+):(?:[ \t]+(.*?))?[ \t]*$")


@dataclass
class Pending:
    """An include directive opened, its options read so far."""

    indent: str
    fence: str
    kind: str
    name: str
    options: dict[str, str] = field(default_factory=dict)

    def read(self, line: str) -> bool:
        """Take `line` (an option, or anything else inside the directive): whether it closes
        the directive."""
        stripped = line.strip()
        if stripped and set(stripped) == {self.fence[0]} and len(stripped) >= len(self.fence):
            return True
        if m := _OPTION.match(line):
            value = m.group(2) or ""
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
                value = value[1:-1]  # (MyST reads options as YAML: attrs quotes its markers)
            self.options[m.group(1)] = value
        return False


def opening(line: str) -> Pending | None:
    m = OPEN.match(line)
    return Pending(m.group(1), m.group(2), m.group(3), m.group(4)) if m else None


def included(pending: Pending, text: str, nested: Callable[[list[str]], list[str]]) -> list[str]:
    """The lines the directive stands for, given the file's `text`; `nested(lines)` resolves
    the includes of included markdown."""
    lines = select_rst(text.rstrip("\n").split("\n"), pending.options)
    if pending.kind == "literalinclude" or "literal" in pending.options:
        suffix = posixpath.splitext(pending.name)[1].lstrip(".")
        language = pending.options.get("language") or normalise_language(suffix) or "text"
        return code_block(pending.indent, language, lines)
    return nested(lines)
