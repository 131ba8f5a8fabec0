"""A Dart doc comment's markdown as dartdoc renders it (dartdoc.py): `{@template x}` kept and
`{@macro x}` expanded from it, `{@tool snippet}`/`{@end-tool}` markers dropped (their example
shown), `{@youtube}`, `{@animation}`, `{@category}` and injected HTML left out, and references
(`[Client]`, `[Client.get]`, `[url]`) shown as code, linked to their section where the page has
one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

MAX_MACRO_DEPTH = 4  # `{@macro}` inside a template expanded, at most this deep
_TEMPLATE = re.compile(r"\{@template\s+([^\s}]+)\s*\}(.*?)\{@endtemplate\}", re.S)
_MACRO = re.compile(r"\{@macro\s+([^\s}]+)\s*\}")
# directive lines dartdoc shows nothing of (a tool's markers: the example between them stays)
_DROPPED_LINE = re.compile(
    r"^\s*\{@(?:tool|end-tool|youtube|animation|category|subCategory|image|canonicalFor|"
    r"template|endtemplate|inject-html|end-inject-html)\b[^}]*\}\s*$"
)
_INLINE_DIRECTIVE = re.compile(
    r"\{@(?:template\s+[^\s}]+|endtemplate|category\s[^}]*|subCategory\s[^}]*)\s*\}"
)
_INJECTED = re.compile(r"\{@inject-html\}.*?\{@end-inject-html\}", re.S)
# `[Name]`, `[Class.member]`, `[new Foo]`: not a link's text (`[a](b)`, `[a][b]`, `[a]: b`)
REFERENCE = re.compile(
    r"(?<![\]\\!])\[(?:new\s+)?([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*(?:\(\))?)\](?![(\[:])"
)
_FENCE = re.compile(r"^\s*(```+|~~~+)")
_CODE_SPAN = re.compile(r"(`+)(.+?)\1")
NODOC = re.compile(r"(?:^|\s)@nodoc\b")


def templates(docs: Iterable[str]) -> dict[str, str]:
    """The `{@template name}` bodies of `docs`, by name (the first of a name wins)."""
    out: dict[str, str] = {}
    for doc in docs:
        if "{@template" not in doc:
            continue
        for m in _TEMPLATE.finditer(doc):
            out.setdefault(m.group(1), m.group(2).strip("\n"))
    return out


def expand(doc: str, table: dict[str, str], depth: int = 0) -> str:
    """`doc` with each `{@macro name}` replaced by its template's text (unknown: dropped)."""
    if "{@macro" not in doc or depth >= MAX_MACRO_DEPTH:
        return _MACRO.sub("", doc)
    return _MACRO.sub(lambda m: expand(table.get(m.group(1), ""), table, depth + 1), doc)


def render(
    doc: str, table: dict[str, str], link: Callable[[str], str | None]
) -> tuple[list[str], list[str]]:
    """The markdown lines of the doc comment `doc`, and the names its references give;
    `link(name)` is the anchor of a reference's section on the page, None when it has none
    (a parameter, another package's name: shown as code)."""
    text = _INJECTED.sub("", expand(doc, table))
    lines: list[str] = []
    names: list[str] = []
    fence = ""
    for line in text.split("\n"):
        opened = _FENCE.match(line)
        if fence:
            lines.append(line)
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = ""
            continue
        if opened:
            fence = opened.group(1)
            lines.append(line)
            continue
        if _DROPPED_LINE.match(line) or NODOC.search(line) and line.strip() == "@nodoc":
            continue
        line = _INLINE_DIRECTIVE.sub("", line)
        lines.append(_references(line, link, names))
    if fence:  # (a comment's example left open: closed where the comment ends, as dartdoc does)
        lines.append(fence)
    while lines and not lines[-1].strip():
        lines.pop()
    while lines and not lines[0].strip():
        lines.pop(0)
    return lines, names


def _references(line: str, link: Callable[[str], str | None], names: list[str]) -> str:
    """`line` with its references as code (linked where the page has their section); code
    spans left as written."""
    if "[" not in line:
        return line
    out: list[str] = []
    at = 0
    for span in _CODE_SPAN.finditer(line):
        out.append(_refs_in(line[at : span.start()], link, names))
        out.append(span.group())
        at = span.end()
    out.append(_refs_in(line[at:], link, names))
    return "".join(out)


def _refs_in(text: str, link: Callable[[str], str | None], names: list[str]) -> str:
    def one(m: re.Match[str]) -> str:
        name = m.group(1).removesuffix("()")
        names.append(name)
        anchor = link(name)
        return f"[`{name}`](#{anchor})" if anchor else f"`{name}`"

    return REFERENCE.sub(one, text)


def sentence_about(doc: str, name: str) -> str:
    """The first sentence of `doc` naming the parameter `[name]` (dartdoc documents
    parameters in prose), references shown as code."""
    if f"[{name}]" not in doc:
        return ""
    prose = " ".join(x.strip() for x in doc.split("\n") if x.strip() and not _FENCE.match(x))
    for sentence in re.split(r"(?<=[.!?])\s+(?=[A-Z\[`])", prose):
        if f"[{name}]" in sentence:
            return REFERENCE.sub(lambda m: f"`{m.group(1)}`", sentence)[:300]
    return ""
