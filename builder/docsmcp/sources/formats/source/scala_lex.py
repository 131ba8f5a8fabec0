"""Scala source as tokens, for the Scaladoc reader (scala_parse.py, scaladoc.py).

What the parser needs and nothing more: identifiers (plain, operator and backquoted), keywords,
literals as opaque tokens, brackets, and for each token its line, its column and whether it
starts its line (Scala 3 reads indentation as structure), plus the `/** */` doc comment written
just before it. Strings of every kind are read whole so no bracket or comment inside one
counts: `"…"`, `\"\"\"…\"\"\"`, and interpolated ones (`s"…${x}…"`, `f\"\"\"…\"\"\"`), whose `${ }`
may hold strings of their own; character literals (`'a'`, `'\\n'`) are told from Scala 2's
symbols and Scala 3's quotes (`'sym`, `'{ … }`). Block comments nest, as scalac reads them
(c_comments.nested_comment_end).

One left-to-right pass with patterns that match at one offset each: a hostile file ends in time
proportional to its size; an unclosed string or comment runs to the end of its line or file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from docsmcp.sources.formats.source.c_comments import BRACKET_KIND, comment_at

KEYWORDS = frozenset(
    "abstract case catch class def do else enum export extends false final finally for forSome "
    "given if implicit import lazy match new null object override package private protected "
    "return sealed super then this throw trait try true type val var while with yield".split()
)
# Words that are keywords only where a declaration starts (Scala 3's soft keywords).
SOFT = frozenset("extension inline opaque open transparent infix using derives end erased".split())

_IDENT = re.compile(r"[^\W\d][\w$]*|\$[\w$]*")
_OP_TAIL = re.compile(r"[!#%&*+\-/:<=>?@\\^|~]+")  # (after `_`: `unary_!`, `x_=`)
_OPERATOR = re.compile(r"(?:[!#%&*+\-:<=>?@\\^|~]|/(?![/*]))+")
_NUMBER = re.compile(r"\d[\w]*(?:\.\d[\w]*)?")
_SPACE = re.compile(r"[ \t\r\f]+")


@dataclass(frozen=True)
class Token:
    kind: str  # "id", "kw", "str", "num", "open", "close", "punct", "op"
    text: str
    start: int
    end: int
    line: int  # 0-based
    col: int  # 0-based column of its start
    first: bool  # whether it is the first token of its line
    doc: str | None = None  # the `/** */` comment written just before it (its text)
    doc_line: int = -1  # 0-based line where that comment starts


def _string_end(src: str, pos: int, interpolated: bool) -> int:
    """The offset after the string literal whose opening quote is at `pos`."""
    n = len(src)
    if src.startswith('"""', pos):
        k, end = pos + 3, -1
        while True:
            if end < k:  # (found again only past a splice that ran beyond it: linear)
                end = src.find('"""', k)
            if end < 0:
                return n
            if interpolated:
                dollar = src.find("${", k, end)
                if dollar >= 0:
                    k = _splice_end(src, dollar + 2)
                    continue
            end += 3
            while end < n and src[end] == '"':  # (`""""a""""`: the last three close)
                end += 1
            return end
    k = pos + 1
    while k < n:
        c = src[k]
        if c == '"':
            return k + 1
        if c == "\n":
            return k
        if c == "\\":
            k += 2
            continue
        if interpolated and c == "$" and src.startswith("${", k):
            k = _splice_end(src, k + 2)
            continue
        k += 1
    return n


def _splice_end(src: str, pos: int) -> int:
    """The offset after the `}` closing an interpolation's `${` (its content starts at
    `pos`), strings inside it read as strings; a line end stops an unclosed one."""
    depth, k, n = 1, pos, len(src)
    while k < n:
        c = src[k]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return k + 1
        elif c == '"':
            if src.startswith('"""', k):
                end = src.find('"""', k + 3)
                k = n if end < 0 else end + 3
            else:
                k = _string_end(src, k, False)
            continue
        k += 1
    return n


def _char_end(src: str, pos: int) -> int:
    """The offset after a character literal at `pos`, or `pos` when the quote starts none
    (a Scala 2 symbol, a Scala 3 quote)."""
    if src.startswith("\\", pos + 1):
        end = src.find("'", pos + 2, pos + 10)
        return end + 1 if end > 0 else pos
    if pos + 2 < len(src) and src[pos + 2] == "'" and src[pos + 1] != "\n":
        return pos + 3
    return pos


def tokenize(src: str) -> list[Token]:
    """The tokens of `src` (see the module's docstring)."""
    out: list[Token] = []
    n = len(src)
    pos = line = line_start = 0
    first = True
    doc: str | None = None
    doc_line = -1

    def add(kind: str, end: int) -> None:
        nonlocal first, doc, doc_line
        out.append(Token(kind, src[pos:end], pos, end, line, pos - line_start, first, doc,
                         doc_line))  # fmt: skip
        first = False
        doc, doc_line = None, -1

    while pos < n:
        c = src[pos]
        if c == "\n":
            pos += 1
            line += 1
            line_start = pos
            first = True
            continue
        if c in " \t\r\f":
            m = _SPACE.match(src, pos)
            pos = m.end() if m else pos + 1
            continue
        if c == "/" and (found := comment_at(src, pos)) is not None:
            end, text = found
            if text is not None:
                doc, doc_line = text, line
            nl = src.count("\n", pos, end)
            if nl:
                line += nl
                line_start = src.rfind("\n", pos, end) + 1
            pos = max(end, pos + 1)
            continue
        if c == '"':
            end = _string_end(src, pos, False)
            add("str", end)
            line, line_start = _lines_in(src, pos, end, line, line_start)
            pos = end
            continue
        if c == "`":
            end = src.find("`", pos + 1)
            stop = src.find("\n", pos + 1)
            end = end + 1 if end > 0 and (stop < 0 or end < stop) else pos + 1
            add("id", end)
            pos = end
            continue
        if c == "'":
            end = _char_end(src, pos)
            if end > pos:
                add("str", end)
                pos = end
            else:
                add("op", pos + 1)
                pos += 1
            continue
        if c in BRACKET_KIND:
            add(BRACKET_KIND[c], pos + 1)
            pos += 1
            continue
        if c in ",;.":
            add("punct", pos + 1)
            pos += 1
            continue
        if c.isdigit():
            m = _NUMBER.match(src, pos)
            end = m.end() if m else pos + 1
            add("num", end)
            pos = end
            continue
        m = _IDENT.match(src, pos)
        if m is not None and m.end() > pos:
            end = m.end()
            if src[end - 1] == "_" and (tail := _OP_TAIL.match(src, end)) is not None:
                end = tail.end()
            if end < n and src[end] == '"':  # (an interpolated string: `s"…"`)
                stop = _string_end(src, end, True)
                add("str", stop)
                line, line_start = _lines_in(src, pos, stop, line, line_start)
                pos = stop
                continue
            add("kw" if src[pos:end] in KEYWORDS else "id", end)
            pos = end
            continue
        m = _OPERATOR.match(src, pos)
        if m is not None and m.end() > pos:
            add("op", m.end())
            pos = m.end()
            continue
        add("punct", pos + 1)  # (any other character, one token)
        pos += 1
    return out


def _lines_in(src: str, start: int, end: int, line: int, line_start: int) -> tuple[int, int]:
    """The line and line start after a token spanning `start`..`end` (a multi-line string)."""
    nl = src.count("\n", start, end)
    if not nl:
        return line, line_start
    return line + nl, src.rfind("\n", start, end) + 1
