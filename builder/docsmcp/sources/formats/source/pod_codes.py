"""POD's formatting codes (`B<bold>`, `C<< $a->b >>`, `L<text|Module/"section">`, `E<gt>`)
as markdown, the way perldoc and metacpan render them: `B<>` bold, `I<>` italic, `C<>` and
`F<>` code, `S<>` its text, `X<>` (index entries) and `Z<>` nothing, `E<>` the character it
names, `L<>` its text, with a reference to the module or section it names (pod.py resolves
them as object references: `Module`, `Module/section`) or a markdown link to a URL.

One pass over the text with a stack of open codes: a code of one `<` ends at the first `>`
its inner codes leave, one of several (`C<<< x >>>`) at whitespace and as many `>`. Nesting is
capped (MAX_DEPTH), so the work stays linear in the text whatever it holds.
"""

from __future__ import annotations

import html.entities
import re
from dataclasses import dataclass, field

from docsmcp.sources.formats.markdown.fences import code_span

MAX_DEPTH = 32  # open codes, at most; a deeper `X<` is text
_NEXT = re.compile(r"[A-Z]<|>|\|")
# What markdown would read as markup in running text (escaped; `_` only where it may delimit
# emphasis, `<` only where it may open a tag, `&` only before an entity's name).
_ESCAPE = re.compile(r"[\\`*\[]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])|<(?=[A-Za-z/!?])|&(?=#?\w+;)")
_LINE_START = re.compile(r"^(\s*)([#>+=|~-]|\d+[.)](?=\s|$))")
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:[^:\s]\S*$")
_PUNCTUATION = frozenset("\\`*_[]<>&#|")
_MAN = re.compile(r"^[\w:.-]+\(\w*\)$")


def escape(text: str) -> str:
    """`text` as literal markdown inline text."""
    return _ESCAPE.sub(lambda m: "\\" + m.group(0), text)


def escape_lines(text: str) -> str:
    """`text` (markdown of one paragraph) with what would start a block at a line's start
    (`#`, `>`, `- `, `1.`) escaped: a paragraph of POD stays a paragraph."""
    return "\n".join(_LINE_START.sub(r"\1\\\2", line) for line in text.split("\n"))


def entity(name: str) -> str:
    """The character `E<name>` stands for: `gt`, `lt`, `verbar`, `sol`, an HTML entity's name,
    or a number (`E<0x201E>`, `E<075>` octal, `E<181>`); the name itself when unknown."""
    name = name.strip()
    special = {"lt": "<", "gt": ">", "verbar": "|", "sol": "/"}
    if name in special:
        return special[name]
    try:
        if name[:2].lower() == "0x":
            code = int(name[2:], 16)
        elif name[:1] == "0" and len(name) > 1:
            code = int(name[1:], 8)
        elif name.isdigit():
            code = int(name)
        elif name in html.entities.name2codepoint:
            code = html.entities.name2codepoint[name]
        else:
            return name
        return chr(code) if 0 < code < 0x110000 and not 0xD800 <= code < 0xE000 else ""
    except ValueError:
        return name


@dataclass
class _Open:
    letter: str  # "" for the paragraph itself
    brackets: int
    md: list[str] = field(default_factory=list)
    plain: list[str] = field(default_factory=list)
    bar: tuple[int, int] | None = None  # (md, plain) lengths at an `L<>`'s first `|`


@dataclass(frozen=True)
class Inline:
    md: str  # markdown
    plain: str  # the text a reader sees, without markup
    refs: tuple[str, ...]  # `Module`, `Module/section` the `L<>` codes name


def _link(target: str, text_md: str | None, page: str) -> tuple[str, str, str | None]:
    """(markdown, plain text, reference) of an `L<>` to `target` shown as `text_md`."""
    target = " ".join(target.split())
    if _URL.match(target):
        shown = text_md if text_md and text_md.strip() else escape(target)
        return f"[{shown}]({target.replace(')', '%29').replace(' ', '%20')})", target, None
    if _MAN.match(target) and "/" not in target:
        return text_md or escape(target), target, None
    name, slash, section = target.partition("/")
    if not slash and target.startswith('"') and target.endswith('"') and len(target) > 1:
        name, section = "", target  # (`L<"section">`, the old form: this page's)
    section = section.strip()
    if len(section) >= 2 and section[0] == section[-1] == '"':
        section = section[1:-1].strip()
    name = name.strip()
    if section:
        plain = f'"{section}" in {name}' if name else f'"{section}"'
        ref = f"{name or page}/{section}" if name or page else None
    else:
        plain, ref = name, name or None
    return (text_md if text_md is not None else escape(plain)), plain, ref


def render(text: str, page: str = "") -> Inline:
    """The markdown of a POD paragraph's text; `page`: the module of the page (what a
    `L</section>` names)."""
    stack = [_Open("", 0)]
    refs: list[str] = []
    pos = 0

    def literal(chunk: str) -> None:
        top = stack[-1]
        top.plain.append(chunk)
        top.md.append(escape(chunk))

    def close(top: _Open) -> None:
        stack.pop()
        parent = stack[-1]
        plain = "".join(top.plain)
        md = "".join(top.md)
        letter = top.letter
        if letter == "B" or letter == "I":
            mark = "**" if letter == "B" else "*"
            md = f"{mark}{md.strip()}{mark}" if md.strip() else md
        elif letter in "CF":
            md = code_span(plain)
        elif letter == "E":
            plain = entity(plain)
            md = "\\" + plain if plain in _PUNCTUATION else plain  # (`E<lt>b>` is no tag)
        elif letter in "XZ":
            md = plain = ""
        elif letter == "L":
            shown = None
            target = plain
            if top.bar is not None:
                shown = "".join(top.md[: top.bar[0]])
                target = "".join(top.plain[top.bar[1] :])
                shown_plain = "".join(top.plain[: top.bar[1]])
            md, plain, ref = _link(target, shown, page)
            if top.bar is not None:
                plain = shown_plain
            if ref:
                refs.append(ref)
        parent.md.append(md)
        parent.plain.append(plain)

    while pos < len(text):
        m = _NEXT.search(text, pos)
        if m is None:
            literal(text[pos:])
            break
        if m.start() > pos:
            literal(text[pos : m.start()])
        pos = m.start()
        top = stack[-1]
        token = m.group(0)
        if token == "|":
            if top.letter == "L" and top.bar is None:
                top.bar = (len(top.md), len(top.plain))
                pos += 1
            else:
                literal("|")
                pos += 1
            continue
        if token == ">":
            if top.brackets == 1:
                close(top)
                pos += 1
                continue
            if top.brackets > 1:
                run = 0
                while run < top.brackets and pos + run < len(text) and text[pos + run] == ">":
                    run += 1
                if run == top.brackets and pos > 0 and text[pos - 1].isspace():
                    while top.md and top.md[-1].strip() == "":
                        top.md.pop()
                        top.plain.pop()
                    if top.md:
                        top.md[-1] = top.md[-1].rstrip()
                        top.plain[-1] = top.plain[-1].rstrip()
                    close(top)
                    pos += run
                    continue
            literal(">")
            pos += 1
            continue
        # `X<`: a code opens (`C<<` followed by whitespace opens one of two brackets)
        if len(stack) > MAX_DEPTH:
            literal(token)
            pos += 2
            continue
        end = pos + 1
        while end < len(text) and text[end] == "<" and end - pos < 64:
            end += 1
        brackets = end - pos - 1
        if brackets > 1 and end < len(text) and text[end].isspace():
            stack.append(_Open(token[0], brackets))
            while end < len(text) and text[end].isspace():
                end += 1
            pos = end
        else:
            stack.append(_Open(token[0], 1))
            pos += 2
    while len(stack) > 1:  # (codes left open end with the paragraph)
        close(stack[-1])
    return Inline("".join(stack[0].md), "".join(stack[0].plain), tuple(refs))
