"""Kotlin source text as tokens, for the KDoc reader (kdoc.py): what hides brackets and
keywords is one token, so a member's braces are counted right:

- string literals with their templates (`"a ${map["}"]} b"`: a template's code may hold strings
  and braces of its own, read to its closing brace), raw strings (`\"\"\"…\"\"\"`, templates too,
  no escapes) and character literals;
- comments, which nest in Kotlin (`/* a /* b */ still a comment */`); a doc comment (`/** … */`,
  KDoc) is a token of its own, its content without the delimiters; others go;
- backticked names (`` `my test` ``) are one identifier, without the backticks.

Nothing is compiled or run. Every step consumes at least one character and string templates
nest at most MAX_NESTING deep (deeper, a template is read as plain text to its string's end),
so a hostile file ends in time proportional to its size (times the nesting); an unterminated
comment or raw string runs to the end of the file, a plain string to the end of its line.
"""

from __future__ import annotations

import re

from docsmcp.sources.formats.source.c_comments import (
    BRACKET_KIND,
    doc_content,
    nested_comment_end,
)
from docsmcp.sources.formats.source.token_groups import Token

MAX_NESTING = 8  # string templates inside string templates, at most
# Kinds: ident, num, str (a string or character literal: its source text), punct (one
# character, or `->`/`::`/`?.`/`?:`/`..`), open, close, doc (a `/** */` comment's content).
_TOKEN = re.compile(
    r"(?P<space>\s+)"
    r"|(?P<ident>(?:[^\W\d])\w*|`[^`\n]+`)"
    r"|(?P<num>\.?\d(?:[eE][+-]|[\w.])*)"
    r"|(?P<line>//[^\n]*)"
    r"|(?P<doc>/\*\*(?!/))"
    r"|(?P<block>/\*)"
    r'|(?P<raw>""")'
    r'|(?P<str>")'
    r"|(?P<char>'(?:\\.|[^'\\\n])*'?)"
    r"|(?P<punct>->|::|\?\.|\?:|\.\.|[^\s\w])"
)
_PLAIN_STOP = re.compile(r'["\\$\n]')
_RAW_STOP = re.compile(r'"""|\$')


def _string_end(source: str, pos: int, raw: bool, nesting: int) -> int:
    """The offset after the string whose content starts at `pos` (after its opening quotes)."""
    n = len(source)
    stop = _RAW_STOP if raw else _PLAIN_STOP
    while pos < n:
        m = stop.search(source, pos)
        if m is None:
            return n
        at, c = m.start(), m.group()
        if c == '"""':  # (a raw string ends at its last quote of a run: `""""` keeps one)
            end = at + 3
            while end < n and source[end] == '"':
                end += 1
            return end
        if c == '"':
            return at + 1
        if c == "\n":
            return at  # (an unterminated string ends with its line)
        if c == "\\":
            pos = at + 2
            continue
        # `$`: a template `${ … }` is code (read as tokens to its brace); `$name` is plain text
        if at + 1 < n and source[at + 1] == "{" and nesting < MAX_NESTING:
            pos = _template_end(source, at + 2, nesting + 1)
        else:
            pos = at + 1
    return n


def _template_end(source: str, pos: int, nesting: int) -> int:
    """The offset after the `}` closing a string template whose code starts at `pos`."""
    depth = 1
    n = len(source)
    while pos < n:
        m = _TOKEN.match(source, pos)
        if m is None:
            pos += 1
            continue
        kind, end = m.lastgroup, m.end()
        if kind in ("doc", "block"):
            end = nested_comment_end(source, pos)
        elif kind in ("raw", "str"):
            end = _string_end(source, end, kind == "raw", nesting)
        elif kind == "punct":
            if m.group() == "{":
                depth += 1
            elif m.group() == "}":
                depth -= 1
                if depth == 0:
                    return end
        pos = end
    return n


def tokens(source: str) -> list[Token]:
    """The tokens of `source` (see the module's docstring)."""
    out: list[Token] = []
    pos, n = 0, len(source)
    counted = lines = 0  # the offset newlines are counted up to, and the lines before it
    count, append, match = source.count, out.append, _TOKEN.match
    while pos < n:
        m = match(source, pos)
        if m is None:  # (every character matches some branch: `punct` takes any other)
            pos += 1
            continue
        kind, end = m.lastgroup or "punct", m.end()
        if kind in ("doc", "block"):
            end = nested_comment_end(source, pos)
        elif kind in ("raw", "str"):
            end = _string_end(source, end, kind == "raw", 0)
        if kind not in ("space", "line", "block"):
            text = source[pos:end]
            if kind == "doc":
                text = doc_content(text)
            elif kind in ("raw", "char"):
                kind = "str"
            elif kind == "ident" and text.startswith("`"):
                text = text[1:-1]
            elif kind == "punct":
                kind = BRACKET_KIND.get(text, "punct")
            lines += count("\n", counted, pos)
            counted = pos
            append(Token(kind, text, pos, end, lines))
        pos = end
    return out
