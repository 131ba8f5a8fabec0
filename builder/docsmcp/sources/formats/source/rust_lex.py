"""Rust source text as tokens, for the rustdoc reader (rustdoc.py) and the crate layout
(rust_crate.py): what hides brackets and keywords (strings, raw strings, character literals,
comments, nested block comments) is one token, so an item's braces are counted right; doc
comments (`///`, `//!`, `/** */`, `/*! */`) are tokens of their own; other comments go.

Nothing is compiled or run. Every step consumes at least one character and every pattern is
linear (no nested quantifiers), so a hostile file ends in time proportional to its size; an
unterminated string or comment runs to the end of the file.
"""

from __future__ import annotations

import re

from docsmcp.sources.formats.source.token_groups import Token

# Kinds: ident, punct, open, close, str, raw (a raw string: its text), char, lifetime, num,
# doc (an outer doc comment), inner (an inner one).
_SPACE = re.compile(r"\s+")
_IDENT = re.compile(r"(?:r#)?[A-Za-z_][A-Za-z0-9_]*")
_NUM = re.compile(r"[0-9][0-9A-Za-z_]*(?:\.[0-9][0-9A-Za-z_]*)?")
# `"…"`, `b"…"`, `c"…"` (escapes inside), and raw `r#"…"#` (found by their closing quote)
_STRING = re.compile(r'(?:b|c)?"(?:[^"\\]|\\.)*"?', re.DOTALL)
_RAW_OPEN = re.compile(r'(?:b|c)?r(#{0,255})"')
# `'a'`, `'\n'`, `'\u{1F600}'`, `b'x'`: a character; `'a` without a closing quote: a lifetime
_CHAR = re.compile(r"b?'(?:[^'\\\n]|\\(?:u\{[0-9A-Fa-f_]{1,8}\}|x[0-9A-Fa-f]{2}|.))'")
_LIFETIME = re.compile(r"'[A-Za-z_][A-Za-z0-9_]*")
_PUNCT = re.compile(r"::|->|=>|[^\sA-Za-z0-9_]")
_OPENERS = "([{"
_CLOSERS = ")]}"
# Most of a file in one C-level match each: white space, an identifier (not one that opens a
# string or character literal: `b"…"`, `r#"…"#`, `b'x'`; the look-ahead takes word characters
# too, so a shorter identifier never matches instead), a number, punctuation other than what may
# open a comment, string or character. Anything else takes the slower branches of `tokens`.
_FAST = re.compile(
    r"(?P<space>\s+)"
    r"|(?P<ident>(?:r#)?[A-Za-z_][A-Za-z0-9_]*(?![A-Za-z0-9_\"'#]))"
    r"|(?P<num>[0-9][0-9A-Za-z_]*(?:\.[0-9][0-9A-Za-z_]*)?)"
    r"|(?P<punct>::|->|=>|[^\sA-Za-z0-9_/\"'])"
)
_KIND = {**{c: "open" for c in _OPENERS}, **{c: "close" for c in _CLOSERS}}


def tokens(source: str) -> list[Token]:
    """The tokens of `source` (see the module's docstring)."""
    out: list[Token] = []
    n = len(source)
    pos = 0
    # Tokens come in order, so a token's line is the last one's plus the newlines between them.
    counted = lines = 0  # the offset newlines are counted up to, and the lines before it
    count, append = source.count, out.append

    def add(kind: str, text: str, start: int, end: int) -> None:
        nonlocal counted, lines
        lines += count("\n", counted, start)
        counted = start
        append(Token(kind, text, start, end, lines))

    fast = _FAST.match
    while pos < n:
        m = fast(source, pos)
        if m is not None:  # the common tokens, inline (half of a tokio build's time was here)
            kind, end = m.lastgroup, m.end()
            if kind != "space":
                text = m.group()
                if kind == "ident":
                    text = text.removeprefix("r#")
                elif kind == "punct":
                    kind = _KIND.get(text, "punct")
                lines += count("\n", counted, pos)
                counted = pos
                append(Token(kind, text, pos, end, lines))  # type: ignore[arg-type]
            pos = end
            continue
        ch = source[pos]
        if ch.isspace():
            m = _SPACE.match(source, pos)
            pos = m.end() if m else pos + 1
            continue
        if source.startswith("//", pos):
            end = source.find("\n", pos)
            end = n if end < 0 else end
            line = source[pos:end]
            if line.startswith("///") and not line.startswith("////"):
                add("doc", line[3:], pos, end)
            elif line.startswith("//!"):
                add("inner", line[3:], pos, end)
            pos = end
            continue
        if source.startswith("/*", pos):
            end = _block_end(source, pos)
            body = source[pos:end]
            closed = body.endswith("*/") and len(body) >= 4
            inner = body[3 : -2 if closed else None]
            if body.startswith("/**") and not body.startswith(("/***", "/**/")):
                add("doc", inner, pos, end)
            elif body.startswith("/*!"):
                add("inner", inner, pos, end)
            pos = end
            continue
        if ch in "rbc" and (m := _RAW_OPEN.match(source, pos)):
            close = '"' + m.group(1)
            end = source.find(close, m.end())
            end = n if end < 0 else end + len(close)
            add("raw", source[m.end() : max(m.end(), end - len(close))], pos, end)
            pos = end
            continue
        if ch == '"' or (ch in "bc" and source.startswith('"', pos + 1)):
            m = _STRING.match(source, pos)
            end = m.end() if m else n
            add("str", source[pos:end], pos, end)
            pos = end
            continue
        if ch == "'" or (ch == "b" and source.startswith("'", pos + 1)):
            m = _CHAR.match(source, pos)
            if m:
                add("char", m.group(), pos, m.end())
                pos = m.end()
                continue
            m = _LIFETIME.match(source, pos)
            if m:
                add("lifetime", m.group(), pos, m.end())
                pos = m.end()
                continue
        if ch.isalpha() or ch == "_":
            m = _IDENT.match(source, pos)
            if m:
                add("ident", m.group().removeprefix("r#"), pos, m.end())
                pos = m.end()
                continue
        if ch.isdigit():
            m = _NUM.match(source, pos)
            if m:
                add("num", m.group(), pos, m.end())
                pos = m.end()
                continue
        m = _PUNCT.match(source, pos)
        text = m.group() if m else ch
        kind = "open" if text in _OPENERS else "close" if text in _CLOSERS else "punct"
        add(kind, text, pos, pos + len(text))
        pos += len(text)
    return out


def _block_end(source: str, pos: int) -> int:
    """The offset after the block comment opened at `pos` (they nest in Rust)."""
    depth = 0
    k = pos
    n = len(source)
    opening = closing = -1  # the next of each at or after k (found again once passed)
    while k < n:
        if opening < k:
            opening = source.find("/*", k)
            opening = n if opening < 0 else opening
        if closing < k:
            closing = source.find("*/", k)
            if closing < 0:
                return n
        if opening < closing:
            depth += 1
            k = opening + 2
            continue
        depth -= 1
        k = closing + 2
        if depth <= 0:
            return k
    return n


def string_value(token: Token) -> str:
    """The text a string literal token stands for (escapes read as Rust does, a line ending
    after `\\` skipped with the next line's indent); a raw string's text as written."""
    text = token.text
    if token.kind == "raw":
        return text
    m = _STRING_BODY.match(text)
    return _ESCAPE.sub(_unescape, m.group(1)) if m else text


_STRING_BODY = re.compile(r'(?:b|c)?"((?:[^"\\]|\\.)*)', re.DOTALL)
_ESCAPE = re.compile(r"\\(?:\n[ \t\r]*|u\{([0-9A-Fa-f_]{1,8})\}|x([0-9A-Fa-f]{2})|(.))", re.DOTALL)
_SIMPLE = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "\\": "\\", '"': '"', "'": "'"}


def _unescape(m: re.Match[str]) -> str:
    if m.group(1):
        try:
            return chr(int(m.group(1).replace("_", ""), 16))
        except (ValueError, OverflowError):
            return ""
    if m.group(2):
        return chr(int(m.group(2), 16))
    if m.group(3) is not None:
        return _SIMPLE.get(m.group(3), m.group(3))
    return ""  # a line continuation
