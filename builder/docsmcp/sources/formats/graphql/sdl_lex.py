"""GraphQL's lexical grammar (the spec's *Source Text*), read in linear time on any text.

A token is a name, a punctuator, a number, a string (`"…"`) or a block string (`\"\"\"…\"\"\"`,
its value dedented as the spec says), each with its offsets and 0-based line. Commas,
whitespace and comments are ignored, but a run of `#` comments each alone on its line, ending
on the line just above a token, is kept with it: older schemas (graphql-js'
`commentDescriptions`, graphql-tools before v5) described types and fields that way, and the
reader shows that comment where the definition has no description. A character that starts no
token is a token of its own (`other`), so no input stops the lexer.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import NamedTuple

# One pattern per token kind that fits on one line; block strings are found with str.find.
# No alternative can match a character two ways, so a failed match costs its own length.
_TOKEN = re.compile(
    r"""(?P<ws>[ \t\r\n,\ufeff]+)
    |(?P<comment>\#[^\n\r]*)
    |(?P<name>[_A-Za-z][_0-9A-Za-z]*)
    |(?P<number>-?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)
    |(?P<spread>\.\.\.)
    |(?P<punct>[!$&():=@\[\]{|}])
    |(?P<string>"(?:[^"\\\n\r]|\\[^\n\r])*")""",
    re.X,
)
_ESCAPE = re.compile(r"\\(u\{[0-9A-Fa-f]{1,6}\}|u[0-9A-Fa-f]{4}|.)")
_SIMPLE = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


class Token(NamedTuple):
    kind: str  # name | punct | spread | number | string | block | other
    value: str  # the text, a string's value
    start: int
    end: int
    line: int  # 0-based
    comment: str | None = None  # the `#` lines just above it (legacy descriptions)
    # (a NamedTuple: a schema of 1.2 MB is 61,000 tokens, made 3x faster than a dataclass)


def _unescape(m: re.Match[str]) -> str:
    code = m.group(1)
    if code.startswith("u") and len(code) > 1:
        try:
            return chr(int(code[1:].strip("{}"), 16))
        except (ValueError, OverflowError):
            return code
    return _SIMPLE.get(code, code)


def block_value(raw: str) -> str:
    """A block string's value: `\\\"\"\"` unescaped, common indentation removed and blank first
    and last lines dropped (the spec's BlockStringValue)."""
    lines = raw.replace('\\"""', '"""').replace("\r\n", "\n").replace("\r", "\n").split("\n")
    common = None
    for line in lines[1:]:
        stripped = line.lstrip(" \t")
        if stripped:
            indent = len(line) - len(stripped)
            common = indent if common is None else min(common, indent)
    if common:
        lines = [lines[0], *(x[common:] for x in lines[1:])]
    while lines and not lines[0].strip(" \t"):
        lines.pop(0)
    while lines and not lines[-1].strip(" \t"):
        lines.pop()
    return "\n".join(lines)


def tokens(text: str) -> list[Token]:
    """The tokens of `text` (see the module's docstring)."""
    return list(iter_tokens(text))


def iter_tokens(text: str) -> Iterator[Token]:
    """The tokens of `text`, one after the other (a caller may stop early)."""
    comments: list[tuple[int, str]] = []  # the run of own-line comments before the next token
    line = 0
    last_line = -1  # the line of the last token (a comment after code on its line is no run)
    pos, n = 0, len(text)
    while pos < n:
        if text.startswith('"""', pos):
            end = _block_end(text, pos + 3)
            raw = text[pos + 3 : end]
            stop = min(end + 3, n)
            yield _token("block", block_value(raw), pos, stop, line, comments)
            comments = []
            line += text.count("\n", pos, stop)
            last_line, pos = line, stop
            continue
        m = _TOKEN.match(text, pos)
        if m is None:
            yield _token("other", text[pos], pos, pos + 1, line, comments)
            comments, last_line, pos = [], line, pos + 1
            continue
        kind = m.lastgroup or "other"
        end = m.end()
        if kind == "ws":
            line += text.count("\n", pos, end)
        elif kind == "comment":
            if line == last_line:
                comments = []
            elif comments and comments[-1][0] != line - 1:
                comments = [(line, m.group()[1:])]
            else:
                comments.append((line, m.group()[1:]))
        else:
            value = m.group()
            if kind == "string":
                value = _ESCAPE.sub(_unescape, value[1:-1])
            yield _token(kind, value, pos, end, line, comments)
            comments, last_line = [], line
        pos = end


def _token(kind: str, value: str, start: int, end: int, line: int,
           comments: list[tuple[int, str]]) -> Token:  # fmt: skip
    comment = None
    if comments and comments[-1][0] == line - 1:
        comment = "\n".join(_comment_line(c) for _, c in comments).strip("\n") or None
    return Token(kind, value, start, end, line, comment)


def _comment_line(text: str) -> str:
    return text[1:] if text.startswith(" ") else text


def _block_end(text: str, start: int) -> int:
    """Where the block string whose text starts at `start` ends (its closing quotes' offset;
    the end of `text` when it is never closed). An escaped `\\\"\"\"` does not close it."""
    k = start
    while True:
        j = text.find('"""', k)
        if j < 0:
            return len(text)
        if j > 0 and text[j - 1] == "\\":
            k = j + 3
            continue
        return j
