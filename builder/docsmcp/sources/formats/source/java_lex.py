"""Java source text as tokens, for the Javadoc reader (javadoc.py): what hides brackets and
keywords (string literals, text blocks, character literals, comments) is one token, so a
member's braces are counted right; doc comments (`/** … */`, and Java 23's runs of `///`
lines, whose text is markdown) are tokens of their own; other comments go.

Nothing is compiled or run. Every pattern is linear (no nested quantifiers over the same
characters) and every step consumes at least one character, so a hostile file ends in time
proportional to its size; an unterminated comment, text block or string runs to the end of the
file (of its line, for a string or character literal).

Generics need no token of their own: `<` and `>` are single punctuation tokens (`>>` of
`Map<K, List<V>>` is two), and the reader counts them only where a type is written.
"""

from __future__ import annotations

import re

from docsmcp.sources.formats.source.c_comments import (
    BRACKET_KIND,
    doc_content,
)
from docsmcp.sources.formats.source.token_groups import Token

# Kinds: ident, num, str (a string literal, a text block or a character literal: its source
# text), punct (one character, or `...`/`::`/`->`), open, close, doc (a `/** */` comment: its
# content without the delimiters), mdoc (a run of `///` lines: its lines without `///`).
_TOKEN = re.compile(
    r"(?P<space>\s+)"
    r"|(?P<ident>(?:[^\W\d]|\$)[\w$]*)"
    r"|(?P<num>\.?\d(?:[eEpP][+-]|[\w.])*)"
    r"|(?P<mdoc>///[^\n]*(?:\n[ \t]*///[^\n]*)*)"
    r"|(?P<line>//[^\n]*)"
    r"|(?P<doc>/\*\*(?!/))"  # (its end is found with str.find: `tokens`)
    r"|(?P<block>/\*)"
    r'|(?P<text>""")'  # (a text block: its end is found in `_text_block_end`)
    r'|(?P<str>"[^"\\\n]*(?:\\.[^"\\\n]*)*"?|\'[^\'\\\n]*(?:\\.[^\'\\\n]*)*\'?)'
    r"|(?P<punct>\.\.\.|::|->|[^\s\w$])"
)
_MDOC_PREFIX = re.compile(r"^[ \t]*///", re.M)


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
            close = source.find("*/", end)
            end = n if close < 0 else close + 2
        elif kind == "text":
            end = _text_block_end(source, end)
        if kind not in ("space", "line", "block"):
            text = source[pos:end]
            if kind == "doc":
                text = doc_content(text)
            elif kind == "mdoc":
                text = _MDOC_PREFIX.sub("", text)
            elif kind == "text":
                kind = "str"
            elif kind == "punct":
                kind = BRACKET_KIND.get(text, "punct")
            lines += count("\n", counted, pos)
            counted = pos
            append(Token(kind, text, pos, end, lines))
        pos = end
    return out


def _text_block_end(source: str, pos: int) -> int:
    """The offset after the `\"\"\"` closing the text block whose content starts at `pos` (a
    quote escaped by a backslash closes nothing), or the end of `source`."""
    while True:
        close = source.find('"""', pos)
        if close < 0:
            return len(source)
        slashes = 0
        while close - slashes - 1 >= pos and source[close - slashes - 1] == "\\":
            slashes += 1
        if slashes % 2 == 0:
            return close + 3
        pos = close + 1
