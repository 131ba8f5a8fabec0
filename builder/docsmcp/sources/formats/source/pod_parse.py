"""A file's POD as paragraphs (perlpodspec): where POD is (from a line starting `=word` to
`=cut`; in a `.pm` the rest is code, never shown), its command, verbatim and ordinary
paragraphs, `=begin`/`=end`/`=for` regions kept or dropped by format, and Pod::Weaver's
`=attr`/`=method`/`=func` gathered into ATTRIBUTES, METHODS and FUNCTIONS sections as the
released distribution shows them (Dancer2 writes its source so; metacpan shows the woven POD).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_COMMAND = re.compile(r"=([A-Za-z][\w-]*)")
_BLANK = re.compile(r"^\s*$")
_HTML_TAG = re.compile(r"<[^<>]*>")
# Formats whose text is shown (`=begin html` without its tags); `:name` regions are POD.
_SHOWN_FORMATS = frozenset(("html", "xhtml", "text", "txt", "markdown"))
# Pod::Weaver's collected commands: the section each becomes, in its order after OVERVIEW.
WEAVER = {"attr": "ATTRIBUTES", "method": "METHODS", "func": "FUNCTIONS"}
# Sections Pod::Weaver places before what it collects.
_BEFORE_COLLECTED = ("NAME", "VERSION", "SYNOPSIS", "DESCRIPTION", "OVERVIEW")
_PACKAGE = re.compile(r"^[ \t]*package[ \t]+([A-Za-z_]\w*(?:::\w+)*)[ \t]*[;{]", re.M)
_ABSTRACT = re.compile(r"^[ \t]*#+[ \t]*ABSTRACT:[ \t]*(\S.*?)[ \t]*$", re.M)
_PODNAME = re.compile(r"^[ \t]*#+[ \t]*PODNAME:[ \t]*([A-Za-z_]\w*(?:::\w+)*)[ \t]*$", re.M)


@dataclass(frozen=True)
class Para:
    kind: str  # "command", "verbatim", "text", "data" (a shown format's text, no codes)
    name: str  # the command (`head2`, `item`, `over`...); "" for other kinds
    text: str  # the command's argument, the paragraph's text
    line: int  # 0-based line of the file where it starts
    end: int  # 0-based line where it ends (inclusive)


def paragraphs(text: str) -> list[Para]:
    """The POD paragraphs of a file, in order (nothing of its code)."""
    return split(text)[0]


def split(text: str) -> tuple[list[Para], str]:
    """(the POD paragraphs of a file, its code: the lines outside POD)."""
    lines = text.split("\n")
    out: list[Para] = []
    code: list[str] = []
    in_pod = False
    buf: list[str] = []
    start = 0

    def flush(end: int) -> None:
        if not buf:
            return
        first = buf[0]
        m = _COMMAND.match(first)
        if m and first.startswith("="):
            arg = "\n".join([first[m.end() :], *buf[1:]]).strip()
            out.append(Para("command", m.group(1), arg, start, end))
        elif first[:1] in (" ", "\t"):
            text = "\n".join(buf)
            if out and out[-1].kind == "verbatim":  # (verbatim paragraphs in a row: one block)
                last = out.pop()
                text = last.text + "\n" * (start - last.end) + text
                out.append(Para("verbatim", "", text, last.line, end))
            else:
                out.append(Para("verbatim", "", text, start, end))
        else:
            out.append(Para("text", "", "\n".join(buf), start, end))
        buf.clear()

    for n, line in enumerate(lines):
        line = line.rstrip("\r")
        if not in_pod:
            if line.startswith("=") and _COMMAND.match(line):
                in_pod = True
            else:
                code.append(line)
                continue
        if _BLANK.match(line):
            flush(n - 1)
            continue
        if line.startswith("=") and _COMMAND.match(line):
            flush(n - 1)  # (a command starts a paragraph, a blank line before it or not)
            if line.startswith("=cut") and not line[4:5].isalnum():
                in_pod = False
                continue
        if not buf:
            start = n
        buf.append(line)
    flush(len(lines) - 1)
    return _regions(out), "\n".join(code)


def _regions(paras: list[Para]) -> list[Para]:
    """`=begin`/`=end` and `=for` resolved: a shown format's text as data, a `:format`'s
    paragraphs as POD, every other format's dropped (`=for comment`, `=begin latex`)."""
    out: list[Para] = []
    stack: list[str] = []  # the formats open: "shown", "pod" or "drop"
    drops = 0  # how many of them are "drop" (a region inside a dropped one is dropped)
    for p in paras:
        if p.kind == "command" and p.name == "begin":
            stack.append(_mode(p.text.split()[0] if p.text.split() else ""))
            drops += stack[-1] == "drop"
            continue
        if p.kind == "command" and p.name == "end":
            if stack:
                drops -= stack.pop() == "drop"
            continue
        mode = "drop" if drops else (stack[-1] if stack else "pod")
        if mode == "drop":
            continue
        if p.kind == "command" and p.name == "for":
            fmt, _, rest = p.text.partition(" ") if " " in p.text else p.text.partition("\n")
            m = _mode(fmt)
            if m == "shown" and rest.strip():
                out.append(Para("data", "", _data(fmt, rest), p.line, p.end))
            elif m == "pod" and rest.strip():
                out.append(Para("text", "", rest.strip(), p.line, p.end))
            continue
        if mode == "shown" and p.kind != "command":
            out.append(Para("data", "", _data("html", p.text), p.line, p.end))
            continue
        out.append(p)
    return out


def _mode(fmt: str) -> str:
    if fmt.startswith(":"):
        return "pod"
    return "shown" if fmt.lower() in _SHOWN_FORMATS else "drop"


def _data(fmt: str, text: str) -> str:
    """A shown format's text: HTML without its tags (entities stay as written)."""
    if fmt.lower() in ("html", "xhtml"):
        text = _HTML_TAG.sub("", text)
    return text.strip()


def woven(paras: list[Para]) -> list[Para]:
    """`paras` with Pod::Weaver's `=attr`/`=method`/`=func` blocks (each up to the next
    `=head1` or collected command) gathered under `=head1 ATTRIBUTES`/`METHODS`/`FUNCTIONS`
    as `=head2`s, placed after NAME/SYNOPSIS/DESCRIPTION/OVERVIEW; `paras` as they are when
    there is none."""
    if not any(p.kind == "command" and p.name in WEAVER for p in paras):
        return paras
    sections: list[tuple[str, list[Para]]] = [("", [])]
    collected: dict[str, list[Para]] = {}
    current = sections[0][1]
    for p in paras:
        if p.kind == "command" and p.name == "head1":
            current = []
            sections.append((" ".join(p.text.split()).upper(), current))
        elif p.kind == "command" and p.name in WEAVER:
            current = collected.setdefault(WEAVER[p.name], [])
            p = Para("command", "head2", p.text, p.line, p.end)
        current.append(p)
    out = list(sections[0][1])
    ordered = sections[1:]
    first = [s for s in ordered if s[0] in _BEFORE_COLLECTED]
    rest = [s for s in ordered if s[0] not in _BEFORE_COLLECTED]
    for _, body in first:
        out += body
    for title in WEAVER.values():
        body = collected.get(title)
        if not body:
            continue
        own = next((s for s in rest if s[0] == title), None)
        if own is not None:  # (a section written by hand takes what is collected for it)
            own[1].extend(body)
            continue
        out.append(Para("command", "head1", title, body[0].line, body[0].line))
        out += body
    for _, body in rest:
        out += body
    return out


def package(code: str) -> str | None:
    """The module a file's code names: Pod::Weaver's `# PODNAME:`, else its first `package`."""
    m = _PODNAME.search(code) or _PACKAGE.search(code)
    return m.group(1) if m else None


def abstract(code: str) -> str | None:
    """A Pod::Weaver `# ABSTRACT: …` comment's text (the NAME line of the woven POD)."""
    m = _ABSTRACT.search(code)
    return m.group(1) if m else None
