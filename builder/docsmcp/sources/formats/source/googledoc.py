"""Google-style docstring sections (`Args:`, `Returns:`, `Raises:`, `Examples:`, `Note:`, ...),
read as Sphinx's napoleon and mkdocstrings' griffe read them, into one shape both renderers
use (napoleon.py writes Sphinx's reST, docstring_md.py mkdocstrings' markdown)::

    Args:
        obj: The object to validate.
        strict (bool, optional): Whether to enforce types strictly.
            Continued, indented further.

    Returns:
        dict[str, int]: The counts.

A section is a title at the docstring's left margin, a colon, and an indented line right
under it (`griffe`: also a blank line or the docstring's start above it; napoleon asks no
such line). Its items start at the block's first indentation: `name (type): text` for
parameters and attributes, `Type: text` for raises and warns, `name (type): text`,
`(type): text`, `type: text` or plain text for returns, yields and receives (a plain line
continues the item above, as napoleon reads a returns section). Titles that are no list
(`Examples`, `Note`, `Warning`, ...) keep their body, dedented. Fenced code in a docstring is
never read for titles. Everything else is text, as written.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

# Section kinds.
PARAMS, OTHER_PARAMS, RETURNS, YIELDS, RECEIVES = "params", "other", "returns", "yields", "recv"
RAISES, WARNS, ATTRIBUTES, METHODS = "raises", "warns", "attributes", "methods"
EXAMPLES, ADMONITION, TEXT = "examples", "admonition", "text"
# A project's own titles (napoleon_custom_sections): a body under a rubric, or a list read as
# parameters or as returned values but shown under the section's own title.
GENERIC, PARAMS_STYLE, RETURNS_STYLE = "generic", "params_style", "returns_style"

KINDS: dict[str, str] = {
    **dict.fromkeys(("args", "arguments", "params", "parameters"), PARAMS),
    **dict.fromkeys(
        (
            "keyword args",
            "keyword arguments",
            "other args",
            "other arguments",
            "other params",
            "other parameters",
        ),
        OTHER_PARAMS,
    ),  # fmt: skip
    **dict.fromkeys(("returns", "return"), RETURNS),
    **dict.fromkeys(("yields", "yield"), YIELDS),
    **dict.fromkeys(("receives", "receive"), RECEIVES),
    **dict.fromkeys(("raises", "raise", "exceptions"), RAISES),
    **dict.fromkeys(("warns", "warn"), WARNS),
    "attributes": ATTRIBUTES,
    "methods": METHODS,
    **dict.fromkeys(("examples", "example"), EXAMPLES),
}
# napoleon's admonitions and generic sections (a title it knows that holds no list).
ADMONITIONS = frozenset(
    "attention caution danger error hint important note notes tip todo warning warnings "
    "references seealso".split()
) | {"see also"}
_LISTS = frozenset((PARAMS, OTHER_PARAMS, RETURNS, YIELDS, RECEIVES, RAISES, WARNS, ATTRIBUTES,
                    METHODS, PARAMS_STYLE, RETURNS_STYLE))  # fmt: skip
_RETURNED = (RETURNS, YIELDS, RECEIVES, RETURNS_STYLE)  # (items read as returned values)

# `Args:`, `Keyword Arguments:`, `Note: A title` (a title after the colon: griffe's admonitions).
_HEADER = re.compile(r"^([A-Za-z][\w -]{0,40}?)[ \t]*:(?:[ \t]+(\S.*?))?[ \t]*$")
_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})")
# `name (type)` before an item's colon; `(type)` alone, for a returned value.
_TYPED = re.compile(r"^(.*?)\s*\((.*)\)$")
# A returned value's type written bare: no space outside brackets but around `|` (`int`,
# `dict[str, Any]`, `str | None`, `` :class:`Foo` ``).
_BARE_TYPE = re.compile(r"^[\w.`~:*\[\]-]+(?:\s*\|\s*[\w.`~:*\[\]-]+)*$")
_ROLE = re.compile(r":[\w:.+-]+:`[^`]*`")
MAX_LINES = 2000  # docstring lines read for sections, at most (the rest stays text)


@dataclass(frozen=True)
class Item:
    """One entry of a list section: its name, type and description lines (dedented)."""

    name: str
    type: str
    description: tuple[str, ...]


@dataclass(frozen=True)
class Section:
    """A run of a docstring: `kind` (TEXT for lines outside any section, ADMONITION for a note
    or warning), the title as written (no colon), its items (list sections) or its body."""

    kind: str
    title: str
    items: tuple[Item, ...] = ()
    body: tuple[str, ...] = ()
    heading: str = ""  # a title after the colon (`Note: Beware`), for an admonition


def kind_of(
    title: str, any_admonition: bool = False, custom: Mapping[str, str] | None = None
) -> str | None:
    """The section kind of a title (`Args` -> PARAMS), ADMONITION for a note-like one (any
    other word with `any_admonition`, as griffe reads one), a project's own title's kind
    (`custom`: lowercased title -> kind, napoleon_custom_sections), else None."""
    key = " ".join(title.lower().split())
    if custom and key in custom:
        return custom[key]
    if key in KINDS:
        return KINDS[key]
    if key in ADMONITIONS or (any_admonition and key.replace(" ", "").isalpha()):
        return ADMONITION
    return None


def parse(
    lines: list[str],
    blank_above: bool = False,
    any_admonition: bool = False,
    custom: Mapping[str, str] | None = None,
) -> list[Section]:
    """The sections of the dedented docstring `lines`, in order (text between them as TEXT
    sections). `blank_above`: a title needs a blank line or the start above it (griffe);
    `any_admonition`: any other `Word:` over an indented block is an admonition (griffe);
    `custom`: a project's own titles (kind_of)."""
    out: list[Section] = []
    text: list[str] = []
    fence = ""
    i = 0
    limit = min(len(lines), MAX_LINES)
    while i < limit:
        line = lines[i]
        if m := _FENCE.match(line):
            fence = "" if fence and m.group(1)[0] == fence[0] else fence or m.group(1)
        header = None if fence else _header(lines, i, blank_above, any_admonition, custom)
        if header is None:
            text.append(line)
            i += 1
            continue
        kind, title, heading = header
        end = i + 1
        while end < len(lines) and (not lines[end].strip() or lines[end][:1] in (" ", "\t")):
            end += 1
        body = _dedent(lines[i + 1 : end])
        while text and not text[-1].strip():
            text.pop()
        if text:
            out.append(Section(TEXT, "", body=tuple(text)))
        text = []
        if kind in _LISTS:
            out.append(Section(kind, title, items=tuple(_items(kind, body))))
        else:
            out.append(Section(kind, title, body=tuple(body), heading=heading))
        i = end
    text += lines[limit:]
    while text and not text[-1].strip():
        text.pop()
    if text:
        out.append(Section(TEXT, "", body=tuple(text)))
    return out


def split_off(
    lines: list[str], kind: str, blank_above: bool = False
) -> tuple[list[str], list[Section]]:
    """The dedented docstring `lines` without its sections of `kind` (as `parse` finds them),
    and those sections: pdoc's page shows a class's `Attributes:` items as members of their
    own (pydoc.py), as napoleon shows them as attribute objects."""
    kept: list[str] = []
    found: list[Section] = []
    fence = ""
    i = 0
    while i < len(lines):
        line = lines[i]
        if m := _FENCE.match(line):
            fence = "" if fence and m.group(1)[0] == fence[0] else fence or m.group(1)
        header = None if fence or i >= MAX_LINES else _header(lines, i, blank_above, False)
        if header is None or header[0] != kind:
            kept.append(line)
            i += 1
            continue
        end = i + 1
        while end < len(lines) and (not lines[end].strip() or lines[end][:1] in (" ", "\t")):
            end += 1
        items = tuple(_items(kind, _dedent(lines[i + 1 : end])))
        found.append(Section(kind, header[1], items=items))
        i = end
    while kept and not kept[-1].strip():
        kept.pop()
    return kept, found


def has_sections(
    lines: list[str], blank_above: bool = False, custom: Mapping[str, str] | None = None
) -> bool:
    """Whether the docstring `lines` hold a section napoleon or griffe would read (a known
    title: a plain `Usage:` paragraph does not make a docstring Google-style)."""
    return any(
        (h := _header(lines, i, blank_above, False, custom)) is not None and h[0] != ADMONITION
        for i in range(min(len(lines), MAX_LINES))
    )


def _header(
    lines: list[str],
    i: int,
    blank_above: bool,
    any_admonition: bool,
    custom: Mapping[str, str] | None = None,
) -> tuple[str, str, str] | None:
    line = lines[i]
    if not line or line[0] in " \t" or ":" not in line:
        return None
    m = _HEADER.match(line)
    if m is None or i + 1 >= len(lines):
        return None
    below = lines[i + 1]
    if not below.strip() or below[0] not in " \t":
        return None
    if blank_above and i > 0 and lines[i - 1].strip():
        return None
    kind = kind_of(m.group(1), any_admonition, custom)
    if kind is None or (m.group(2) and kind != ADMONITION):
        return None
    return kind, m.group(1), m.group(2) or ""


def _dedent(lines: list[str]) -> list[str]:
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    while lines and not lines[0].strip():
        lines = lines[1:]
    depth = min((len(x) - len(x.lstrip()) for x in lines if x.strip()), default=0)
    return [x[depth:].rstrip() if x.strip() else "" for x in lines]


def _items(kind: str, body: list[str]) -> list[Item]:
    """The items of a list section's dedented body."""
    found: list[tuple[str, str, list[str]]] = []
    for line in body:
        starts = line.strip() and not line[:1].isspace()
        if starts and kind in _RETURNED and found:
            starts = _returned(line) is not None  # (else its text goes on)
        if starts:
            found.append(_head(kind, line.strip()))
        elif found:
            found[-1][2].append(line)
    return [Item(n, t, tuple(_description(d))) for n, t, d in found]


def _description(lines: list[str]) -> list[str]:
    """An item's text: the text after its colon, then the lines under it dedented on their
    own, as napoleon reads them (dedented together, they stayed indented under the first)."""
    if lines and lines[0][:1] not in (" ", "\t", ""):
        rest = lines[1:]
        gap = [""] if rest and not rest[0].strip() and _dedent(rest) else []
        return [lines[0], *gap, *_dedent(rest)]
    return _dedent(lines)


def _head(kind: str, line: str) -> tuple[str, str, list[str]]:
    """(name, type, [first line of text]) of an item's first line."""
    if kind in _RETURNED:
        name, type_, text = _returned(line) or ("", "", line)
        return name, type_, [text] if text else []
    parts = split_colon(line)
    head, text = parts if parts else (line, "")
    if kind in (RAISES, WARNS):
        return "", head.strip(), [text] if text else []
    name, type_ = head.strip(), ""
    if kind != METHODS and (m := _TYPED.match(name)) and m.group(1):
        name, type_ = m.group(1).strip(), m.group(2).strip()
    return name, type_, [text] if text else []


def _returned(line: str) -> tuple[str, str, str] | None:
    """(name, type, text) of a returned value's line when it is written as one (`name (type):
    text`, `(type): text`, `type: text`), else None."""
    parts = split_colon(line)
    if parts is None:
        return None
    head, text = parts[0].strip(), parts[1]
    if (m := _TYPED.match(head)) and (not m.group(1) or m.group(1).isidentifier()):
        return m.group(1), m.group(2).strip(), text
    if _BARE_TYPE.match(_ROLE.sub("x", _unbracketed(head))):
        return "", head, text
    return None


def _unbracketed(text: str) -> str:
    """`text` without what its brackets hold (`dict[str, Any]` -> `dict[]`)."""
    out: list[str] = []
    depth = 0
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth = max(depth - 1, 0)
            if depth == 0:
                out.append(ch)
            continue
        if depth == 0:
            out.append(ch)
    return "".join(out)


def split_colon(line: str) -> tuple[str, str] | None:
    """(before, after) the item's colon: the first `:` outside brackets, code spans and roles
    (`` :class:`Foo` ``), not one of `::`, as napoleon partitions a field; None without one."""
    depth = 0
    i = 0
    n = len(line)
    while i < n:
        ch = line[i]
        if ch == "`":
            close = line.find("`", i + 1)
            if close < 0:
                return None
            i = close + 1
            continue
        if ch == ":" and (role := _ROLE.match(line, i)):
            i = role.end()
            continue
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth = max(depth - 1, 0)
        elif ch == ":" and depth == 0 and ":" not in (line[i + 1 : i + 2], line[i - 1 : i]):
            return line[:i].rstrip(), line[i + 1 :].strip()
        i += 1
    return None
