"""What a Texinfo definition reads as (texinfo.py): the parts of a `@deffn`-like line, and the
API registry entry of a definition or of a table item a code index names (Bash's builtins,
Make's functions)."""

from __future__ import annotations

import re

from docsmcp.model.api import ApiEntry

DEF = re.compile(r"^def(?:type)?(fn|un|mac|spec|vr|var|opt|op|method|ivar|cv|tp|typefun)?x?$")
_CATEGORIES = {
    "un": "Function",
    "mac": "Macro",
    "spec": "Special Form",
    "var": "Variable",
    "opt": "User Option",
    "typefun": "Function",
}
_MAX_DESCRIPTION = 500


def parts(name: str, arg: str) -> tuple[str, str, list[str]]:
    """(category, type, words: the name then the arguments) of definition command `name`
    with line `arg` (Texinfo source: the caller reads their commands)."""
    words = _words(arg)
    kind = DEF.match(name)
    group = kind.group(1) if kind else None
    category = _CATEGORIES.get(group or "", "")
    if not category and words:
        category = words.pop(0)
    if group in ("op", "cv", "method", "ivar") and len(words) > 1:
        words.pop(0)  # (the class: `@defop Operation Window resize args`)
    # (the type: `@deftypefun int rl_bind_key (...)`)
    type_ = words.pop(0) if name.startswith("deftype") and len(words) > 1 else ""
    return category, type_, words


def kind_of(category: str) -> str:
    """A definition's kind by its category: a variable, option or type is a type."""
    return "type" if re.search(r"variable|option|type|constant", category, re.I) else "method"


def entry(
    path: str,
    name: str,
    where: tuple[str, str],
    signature: str,
    lines: list[str],
    span: tuple[int, int],
) -> ApiEntry:
    """The entry of `name` (`where`: its section and kind), whose markdown `lines` follow its
    definition line (`span`: that 0-based line and the line after its text); with no
    signature, the first line of the example that opens its text is one."""
    first, text = prose(lines)
    category, kind = where
    start, end = span
    return ApiEntry(
        name=name,
        category=category,
        kind=kind,
        signature=signature or first,
        description=text[:_MAX_DESCRIPTION],
        parameters=(),
        returns="",
        examples=(),
        chunk_id="",
        path=path,
        line_start=start + 1,
        line_end=max(start + 1, end),
    )


def prose(lines: list[str]) -> tuple[str, str]:
    """The first line of the code block that opens `lines` (markdown), and their prose."""
    text: list[str] = []
    code, first = False, ""
    for row in (strip_marks(x).strip() for x in lines):
        if row.startswith("```"):
            code = not code
        elif code:
            first = first or (row if not text else "")
        elif row:
            text.append(row)
    return first, " ".join(text)


def strip_marks(text: str) -> str:
    return re.sub("\x01[0-9]+\x01|\x00[^\x00]*\x00", "", text)


def _words(arg: str) -> list[str]:
    """The words of a definition line: `{a b}` groups stay one word."""
    out: list[str] = []
    for m in re.finditer(r"\{((?:[^{}]|\{[^{}]*\})*)\}|(\S+)", arg):
        out.append(m.group(1) if m.group(1) is not None else m.group(2))
    return out
