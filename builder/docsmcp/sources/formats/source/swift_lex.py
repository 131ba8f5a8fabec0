"""Swift source text as tokens, for the DocC reader of Swift sources (swiftdoc.py): what hides
brackets and keywords (string literals with their `\\(…)` interpolations, multi-line `\"\"\"`
strings, raw strings `#"…"#`, regex literals `#/…/#`, nested block comments) is one token, so a
declaration's braces are counted right; doc comments (a run of `///` lines, `/** */`) are tokens
of their own; other comments go. Attributes are one token with their arguments
(`@available(macOS 10.15, *)`), so their parentheses never read as a declaration's.

Nothing is compiled or run. Every step consumes at least one character and every pattern is
linear, so a hostile file ends in time proportional to its size; an unterminated string or
comment runs to the end of the file, an interpolation nested deeper than MAX_DEPTH is read as
text.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from docsmcp.sources.formats.source.c_comments import (
    BRACKET_KIND,
    DocRun,
    comment_at,
    is_slash_doc,
)

MAX_DEPTH = 32  # string interpolations inside interpolations, at most
# Kinds: word, punct, open, close, str, num, attr (`@name` and its parenthesised arguments),
# doc (a doc comment: its text, without `///` or `/**`…`*/` and their margins).
_FAST = re.compile(
    r"(?P<space>[ \t\r\f\v]+)"
    r"|(?P<word>`[^`\n]*`|[A-Za-z_$\u0080-\uffff][A-Za-z0-9_$\u0080-\uffff]*)"
    r"|(?P<num>[0-9][0-9A-Za-z_.]*)"
    r"|(?P<punct>->|\.\.\.|\.\.<|[^\sA-Za-z0-9_\"#/@])"
)
_ATTR = re.compile(r"@[A-Za-z_][A-Za-z0-9_.]*")


class Token(NamedTuple):
    kind: str
    text: str
    line: int  # 0-based line of the token's start
    first: bool  # whether the token is the first of its line
    start: int  # offset in the source (a doc token's: its first line's)


def tokens(source: str) -> list[Token]:
    """The tokens of `source` (see the module's docstring)."""
    out: list[Token] = []
    n = len(source)
    pos = 0
    line = 0
    first = True  # no token yet on this line
    run = DocRun()  # the `///` lines being read

    def flush() -> None:
        text = run.take()
        if text is not None:
            out.append(Token("doc", text, run.line, True, run.start))

    while pos < n:
        c = source[pos]
        if c == "\n":
            line += 1
            first = True
            pos += 1
            continue
        m = _FAST.match(source, pos)
        if m is not None and m.lastgroup == "space":
            pos = m.end()
            continue
        if is_slash_doc(source, pos):
            pos = run.add(source, pos, line)
            continue
        comment = comment_at(source, pos)
        if comment is not None:
            end, doc_text = comment
            if doc_text is not None:
                flush()
                out.append(Token("doc", doc_text, line, True, pos))
            line += source.count("\n", pos, end)
            pos = end
            continue
        flush()
        if m is not None:
            kind = m.lastgroup or "punct"
            text = m.group()
            if kind == "punct":
                kind = BRACKET_KIND.get(text, "punct")
            out.append(Token(kind, text, line, first, pos))
            first = False
            pos = m.end()
            continue
        if c == "@":
            a = _ATTR.match(source, pos)
            if a is None:
                out.append(Token("punct", c, line, first, pos))
                first, pos = False, pos + 1
                continue
            end = a.end()
            if end < n and source[end] == "(":
                end = _group_end(source, end)
            text = source[pos:end]
            out.append(Token("attr", text, line, first, pos))
            first = False
            line += text.count("\n")
            pos = end
            continue
        if c == '"' or c == "#":
            end = _string_end(source, pos, 0)
            if end == pos:  # (`#if`, `#available`, a lone `#`: a word or punctuation)
                w = re.compile(r"#[A-Za-z_]\w*").match(source, pos)
                end = w.end() if w else pos + 1
                out.append(Token("word" if w else "punct", source[pos:end], line, first, pos))
            else:
                out.append(Token("str", source[pos:end], line, first, pos))
                line += source.count("\n", pos, end)
            first = False
            pos = end
            continue
        if c == "/":  # division (regex literals without `#` read as operators: harmless)
            out.append(Token("punct", c, line, first, pos))
            first, pos = False, pos + 1
            continue
        out.append(Token("punct", c, line, first, pos))  # (not reached: _FAST takes the rest)
        first, pos = False, pos + 1
    flush()
    return out


def _group_end(source: str, pos: int) -> int:
    """The end of the parenthesised group opening at `pos` (an attribute's arguments), strings
    inside read as strings."""
    depth = 0
    n = len(source)
    while pos < n:
        c = source[pos]
        if c == '"' or c == "#":
            end = _string_end(source, pos, 0)
            if end > pos:
                pos = end
                continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return pos + 1
        elif c == "\n" and depth == 0:
            return pos
        pos += 1
    return n


_OPEN = re.compile(r'(#*)("""|"|/)')


def _string_end(source: str, pos: int, depth: int) -> int:
    """The end of the string (or `#/…/#` regex) literal at `pos`, or `pos` when none opens
    there. `\\(…)` interpolations (`\\#(…)` in a raw string) are read through, with the strings
    inside them, up to MAX_DEPTH deep."""
    m = _OPEN.match(source, pos)
    if m is None:
        return pos
    hashes, quote = m.group(1), m.group(2)
    if quote == "/" and not hashes:
        return pos
    n = len(source)
    close = quote + hashes
    escape = "\\" + hashes
    i = m.end()
    while i < n:
        c = source[i]
        if c == "\n" and quote == '"':
            return i  # (an unterminated single-line string ends with its line)
        if source.startswith(close, i):
            return i + len(close)
        if c == "\\" and source.startswith(escape, i):
            j = i + len(escape)
            if j < n and source[j] == "(" and depth < MAX_DEPTH:
                i = _interpolation_end(source, j, depth + 1)
                continue
            i = j + 1
            continue
        i += 1
    return n


def _interpolation_end(source: str, pos: int, depth: int) -> int:
    """The end of the interpolation `(…)` at `pos`, the strings inside it read as strings."""
    parens = 0
    n = len(source)
    while pos < n:
        c = source[pos]
        if c == '"' or c == "#":
            end = _string_end(source, pos, depth)
            if end > pos:
                pos = end
                continue
        if c == "(":
            parens += 1
        elif c == ")":
            parens -= 1
            if parens == 0:
                return pos + 1
        pos += 1
    return n
