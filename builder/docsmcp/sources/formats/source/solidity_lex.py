"""Solidity source (`.sol`) as tokens, each with the NatSpec comment solc attaches to it.

solc keeps the last doc comment before a declaration as its documentation (the `userdoc` and
`devdoc` it writes, and the AST's `documentation` that solidity-docgen and forge doc read): a run
of `///` lines (consecutive lines, only indentation between them) is one comment, a `/** */`
block is one, and the one nearest the token wins; plain `//` and `/* */` comments between them
are skipped and keep it. `/* */` comments do not nest in Solidity (unlike Dart's or Swift's), so
the block ends at the first `*/` (c_comments' nesting reader is not used).

Strings keep their escapes (`hex"…"`, `unicode"…"` are an identifier then a string); an unclosed
string ends at its line, an unclosed comment at the end of the text. Every loop consumes its input
left to right with linear patterns: the time is proportional to the text's size whatever it holds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from docsmcp.sources.formats.source.c_comments import block_doc_text, is_slash_doc, slash_doc_line

_IDENT = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
_NUMBER = re.compile(r"[0-9][0-9A-Za-z_]*(?:\.[0-9][0-9A-Za-z_]*)?")
_SPACE = re.compile(r"[ \t\r\f\v]+")
# The next `///` of a run: the following line, after its indentation only.
_RUN_NEXT = re.compile(r"\n[ \t]*(?=///)")


@dataclass
class Token:
    kind: str  # "ident", "number", "string", "punct"
    text: str
    start: int  # offset in the text
    end: int
    line: int  # 0-based line of its start
    doc: str | None = None  # the NatSpec comment right before it (solc's `documentation`)
    doc_line: int = -1  # 0-based line the comment starts on


def _string_end(text: str, start: int) -> int:
    """The offset after the string literal opening at `start`: its closing quote, else the end
    of its line."""
    quote = text[start]
    k, n = start + 1, len(text)
    while k < n:
        c = text[k]
        if c == "\\":
            k += 2
        elif c == quote:
            return k + 1
        elif c == "\n":
            return k
        else:
            k += 1
    return min(k, n)


def _slash_run(text: str, pos: int) -> tuple[str, int]:
    """The text of the run of `///` lines starting at `pos`, and the offset of its end."""
    lines: list[str] = []
    while True:
        line, end = slash_doc_line(text, pos)
        lines.append(line)
        m = _RUN_NEXT.match(text, end)
        if m is None or not is_slash_doc(text, m.end()):
            return "\n".join(lines), end
        pos = m.end()


def lex(text: str) -> list[Token]:
    """The tokens of a Solidity text, each with the doc comment before it."""
    text = text.removeprefix("\ufeff")
    tokens: list[Token] = []
    pos, line, n = 0, 0, len(text)
    doc: str | None = None
    doc_line = -1
    while pos < n:
        c = text[pos]
        if c == "\n":
            pos, line = pos + 1, line + 1
            continue
        if c in " \t\r\f\v":
            pos = _SPACE.match(text, pos).end()  # type: ignore[union-attr]
            continue
        if c == "/" and text.startswith("//", pos):
            if is_slash_doc(text, pos):
                doc, end = _slash_run(text, pos)
                doc_line = line
            else:
                end = text.find("\n", pos)
                end = n if end < 0 else end
            line += text.count("\n", pos, end)
            pos = end
            continue
        if c == "/" and text.startswith("/*", pos):
            close = text.find("*/", pos + 2)
            end = n if close < 0 else close + 2
            said = block_doc_text(text[pos:end])
            if said is not None:
                doc, doc_line = said, line
            line += text.count("\n", pos, end)
            pos = end
            continue
        start = pos
        if m := _IDENT.match(text, pos):
            kind, end = "ident", m.end()
        elif m := _NUMBER.match(text, pos):
            kind, end = "number", m.end()
        elif c in "\"'":
            kind, end = "string", _string_end(text, pos)
        elif text.startswith("=>", pos):
            kind, end = "punct", pos + 2
        else:
            kind, end = "punct", pos + 1
        tokens.append(Token(kind, text[start:end], start, end, line, doc, doc_line))
        doc, doc_line = None, -1
        line += text.count("\n", start, end) if kind == "string" else 0
        pos = end
    return tokens
