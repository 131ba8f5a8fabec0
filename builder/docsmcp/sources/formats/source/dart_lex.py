"""Dart source text as tokens, for the dartdoc reader (dartdoc.py, dart_parse.py): what hides
brackets and keywords is one token (string literals, with their `${…}` interpolations and the
strings inside those, `$name`, raw strings `r'…'`, triple-quoted `'''`/`\"\"\"` strings, block
comments that nest `/* /* */ */`), so a declaration's braces are counted right; doc comments
(a run of `///` lines, `/** */`) are tokens of their own; other comments go. Annotations are
one token with their arguments (`@Deprecated('Use x')`), so their parentheses never read as a
declaration's.

Nothing is compiled or run. Every step consumes at least one character, so a hostile file ends
in time proportional to its size (times MAX_DEPTH at worst); an unterminated string or comment
runs to the end of the file (a one-line string: to the end of its line), an interpolation
nested deeper than MAX_DEPTH is read as text.
"""

from __future__ import annotations

import re

from docsmcp.sources.formats.source.c_comments import (
    BRACKET_KIND,
    DocRun,
    comment_at,
    is_slash_doc,
)
from docsmcp.sources.formats.source.token_groups import Token

MAX_DEPTH = 32  # string interpolations inside interpolations, at most
# Kinds: word, num, punct, open, close, str, annot (`@name` and its parenthesised arguments),
# doc (a doc comment: its text, without `///` or `/**`…`*/` and their margins).
_FAST = re.compile(
    r"(?P<space>[ \t\r\f\v]+)"
    r"|(?P<word>[A-Za-z_$][A-Za-z0-9_$]*)"
    r"|(?P<num>[0-9][0-9A-Za-z_.]*)"
    r"|(?P<punct>=>|\.\.\.|\.\.|\?\.|\?\?=|\?\?|==|!=|<=|[^\sA-Za-z0-9_$\"'/@])"
)
_ANNOT = re.compile(r"@[A-Za-z_$][A-Za-z0-9_$]*(?:\s*\.\s*[A-Za-z_$][A-Za-z0-9_$]*)*")
_QUOTE = re.compile(r"r?('''|\"\"\"|'|\")")


def tokens(source: str) -> list[Token]:
    """The tokens of `source` (see the module's docstring)."""
    out: list[Token] = []
    n = len(source)
    pos = 0
    line = 0
    run = DocRun()  # the `///` lines being read

    def flush() -> None:
        text = run.take()
        if text is not None:
            out.append(Token("doc", text, run.start, run.end, run.line))

    while pos < n:
        c = source[pos]
        if c == "\n":
            line += 1
            pos += 1
            continue
        if c in "'\"" or (c == "r" and source.startswith(("'", '"'), pos + 1)):
            flush()
            end = string_end(source, pos, 0)
            out.append(Token("str", source[pos:end], pos, end, line))
            line += source.count("\n", pos, end)
            pos = end
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
                out.append(Token("doc", doc_text, pos, end, line))
            line += source.count("\n", pos, end)
            pos = end
            continue
        flush()
        if m is not None:
            kind = m.lastgroup or "punct"
            text = m.group()
            if kind == "punct":
                kind = BRACKET_KIND.get(text, "punct")
            out.append(Token(kind, text, pos, m.end(), line))
            pos = m.end()
            continue
        if c == "@":
            a = _ANNOT.match(source, pos)
            if a is None:
                out.append(Token("punct", c, pos, pos + 1, line))
                pos += 1
                continue
            end = a.end()
            at = end
            while at < n and source[at] in " \t":
                at += 1
            if at < n and source[at] == "(":
                end = _group_end(source, at)
            text = source[pos:end]
            out.append(Token("annot", text, pos, end, line))
            line += text.count("\n")
            pos = end
            continue
        out.append(Token("punct", c, pos, pos + 1, line))  # (`/`, a stray character)
        pos += 1
    flush()
    return out


def string_end(source: str, pos: int, depth: int) -> int:
    """The end of the string literal at `pos` (`pos` + 1 when none opens there). `${…}`
    interpolations of a string that is not raw are read through, with the strings inside
    them, up to MAX_DEPTH deep; a `\\` escapes the next character."""
    m = _QUOTE.match(source, pos)
    if m is None:
        return pos + 1
    raw = source[pos] == "r"
    quote = m.group(1)
    n = len(source)
    i = m.end()
    while i < n:
        c = source[i]
        if c == "\n" and len(quote) == 1:
            return i  # (an unterminated one-line string ends with its line)
        if source.startswith(quote, i):
            return i + len(quote)
        if raw:
            i += 1
            continue
        if c == "\\":
            i += 2
            continue
        if c == "$" and source.startswith("{", i + 1) and depth < MAX_DEPTH:
            i = _interpolation_end(source, i + 1, depth + 1)
            continue
        i += 1
    return n


def _interpolation_end(source: str, pos: int, depth: int) -> int:
    """The end of the interpolation `{…}` at `pos`, the strings inside it read as strings."""
    braces = 0
    n = len(source)
    while pos < n:
        c = source[pos]
        if c in "'\"" or (c == "r" and source.startswith(("'", '"'), pos + 1)):
            pos = string_end(source, pos, depth)
            continue
        if c == "{":
            braces += 1
        elif c == "}":
            braces -= 1
            if braces == 0:
                return pos + 1
        pos += 1
    return n


def _group_end(source: str, pos: int) -> int:
    """The end of the parenthesised group opening at `pos` (an annotation's arguments),
    strings inside read as strings."""
    depth = 0
    n = len(source)
    while pos < n:
        c = source[pos]
        if c in "'\"":
            pos = string_end(source, pos, 0)
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return pos + 1
        pos += 1
    return n
