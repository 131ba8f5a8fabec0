"""C# source text as tokens, for the docfx reader (csharpdoc.py): what hides braces and keywords
(strings of every kind, character literals, comments, preprocessor lines) is one token, so a
member's braces are counted right; XML doc comments (runs of `///` lines, and `/** */`) are
tokens of their own, with the `///` margins gone; other comments go.

The strings C# has: regular `"a\\"b"`, verbatim `@"C:\\x"` (`""` is a quote, newlines allowed),
interpolated `$"{a}"` and `$@"…"`/`@$"…"` (holes may hold strings and braces: read recursively,
at most 32 deep), and raw strings (three or more quotes, interpolated with `$$` too), whose end
is the same run of quotes. A preprocessor line (`#if`, `#region`, `#nullable`) is one `pp` token, so
both branches of an `#if` are read as written.

Nothing is compiled or run. Every step consumes at least one character and each pattern is
linear, so a hostile file ends in time proportional to its size (an interpolated string's holes
are bounded by the depth); an unterminated comment or raw/verbatim string runs to the end of
the file, a regular string or character literal to the end of its line.
"""

from __future__ import annotations

import re

from docsmcp.sources.formats.source.token_groups import Token

# Kinds: ident (`@class` is `class` the identifier: its text keeps the `@`), num, str (any
# string or character literal: its source text), pp (a preprocessor line), punct (one
# character), doc (a run of `///` lines or a `/** */` comment: its text without the markers).
_TOKEN = re.compile(
    r"(?P<space>\s+)"
    r"|(?P<ident>@?(?:[^\W\d]|_)\w*)"
    r"|(?P<num>\.?\d(?:[eE][+-]|[\w.])*)"
    r"|(?P<doc>///[^\n]*(?:\n[ \t]*///[^\n]*)*)"
    r"|(?P<line>//[^\n]*)"
    r"|(?P<block>/\*)"
    r"|(?P<char>'(?:[^'\\\n]|\\[^\n])*'?)"
    r"|(?P<string>[$@]*\")"  # (its end: `_string_end`)
    r"|(?P<punct>[^\s\w])"
)
_DOC_MARGIN = re.compile(r"^[ \t]*/// ?", re.M)
_BLOCK_MARGIN = re.compile(r"^[ \t]*\* ?", re.M)
MAX_DEPTH = 32  # interpolation holes inside holes, at most


def tokens(source: str) -> list[Token]:
    """The tokens of `source` (see the module's docstring)."""
    out: list[Token] = []
    pos, n = 0, len(source)
    counted = lines = 0
    line_start = True  # (only blanks since the last newline: a `#` there is a preprocessor line)
    while pos < n:
        if line_start and source[pos] == "#":
            end = source.find("\n", pos)
            end = n if end < 0 else end
            lines += source.count("\n", counted, pos)
            counted = pos
            out.append(Token("pp", source[pos:end], pos, end, lines))
            pos, line_start = end, False
            continue
        m = _TOKEN.match(source, pos)
        if m is None:  # (unreachable: `punct` takes any other character)
            pos += 1
            continue
        kind, end = m.lastgroup or "punct", m.end()
        if kind == "space":
            line_start = line_start or "\n" in m.group()
            pos = end
            continue
        line_start = False
        if kind == "block":
            close = source.find("*/", end)
            end = n if close < 0 else close + 2
            if source.startswith("/**", pos) and not source.startswith("/**/", pos):
                kind = "doc"
        elif kind == "string":
            end = _string_end(source, pos, 0)
        lines += source.count("\n", counted, pos)
        counted = pos
        if kind == "line":
            pos = end
            continue
        if kind == "doc":
            raw = source[pos:end]
            if raw.startswith("/**"):
                text = _BLOCK_MARGIN.sub("", raw[3:-2] if raw.endswith("*/") else raw[3:])
            else:
                text = _DOC_MARGIN.sub("", raw)
            out.append(Token("doc", text, pos, end, lines))
        elif kind in ("char", "string"):
            out.append(Token("str", source[pos:end], pos, end, lines))
        else:
            out.append(Token(kind, m.group(), pos, end, lines))
        pos = end
    return out


def _string_end(source: str, pos: int, depth: int) -> int:
    """The offset after the string literal starting at `pos` (its `$`/`@` prefix included)."""
    n = len(source)
    q = source.index('"', pos)
    prefix = source[pos:q]
    dollars = prefix.count("$")
    verbatim = "@" in prefix
    quotes = q
    while quotes < n and source[quotes] == '"':
        quotes += 1
    run = quotes - q
    if run >= 3:  # a raw string: ends at the same run of quotes
        close = source.find('"' * run, quotes)
        return n if close < 0 else close + run
    if run == 2 and not verbatim:  # `""`: the empty string
        return q + 2
    i = q + 1
    while i < n:
        c = source[i]
        if c == '"':
            if verbatim and i + 1 < n and source[i + 1] == '"':
                i += 2
                continue
            return i + 1
        if c == "\\" and not verbatim:
            i += 2
            continue
        if c == "\n" and not verbatim:
            return i
        if c == "{" and dollars:
            if i + 1 < n and source[i + 1] == "{":
                i += 2
                continue
            i = _hole_end(source, i + 1, depth + 1)
            continue
        i += 1
    return n


def _hole_end(source: str, pos: int, depth: int) -> int:
    """The offset after the `}` closing an interpolation hole opened before `pos`: braces are
    counted and the strings in it skipped (deeper than MAX_DEPTH, a string is read as text)."""
    n = len(source)
    braces = 0
    i = pos
    while i < n:
        c = source[i]
        if c == '"' or (c in "$@" and i + 1 < n and source[i + 1] in '"$@'):
            if depth < MAX_DEPTH:
                q = source.find('"', i)
                if q < 0:
                    return n
                i = _string_end(source, i, depth) if q - i <= 3 else i + 1
                continue
        elif c == "'":
            m = _TOKEN.match(source, i)
            i = m.end() if m else i + 1
            continue
        elif c == "{":
            braces += 1
        elif c == "}":
            if braces == 0:
                return i + 1
            braces -= 1
        elif c == "\n" and depth > MAX_DEPTH:
            return i
        i += 1
    return n
