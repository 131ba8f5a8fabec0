"""A small PHP tokenizer: the tokens phpdoc_parse.py reads declarations from, in one linear pass.

PHP code stands between `<?php` (or `<?=`) and `?>`; everything outside is inline HTML, one
`html` token (a template's markup is no declaration). Inside:

- `/** … */` is a `doc` token (its text whole, for phpdoc.py); `/* */`, `//` and `#` comments
  are dropped (a line comment ends at the line's end or at `?>`, as PHP ends it).
- `#[…]` is one `attr` token (an attribute, brackets balanced, strings inside read as strings).
- Strings are `str` tokens: single-quoted, double-quoted and backtick strings (with `{$…}` and
  `${…}` holes, whose braces and strings are read, at most 32 holes deep), heredoc
  (`<<<ID`, `<<<"ID"`) and nowdoc (`<<<'ID'`), closed by a line whose first word is the
  identifier (PHP 7.3's indented closing marker too).
- Names (`Foo`, `\\Foo\\Bar`, `namespace\\Foo`) are `name` tokens, `$x` a `var`, numbers
  `num`, and every other character (or `::`, `->`, `?->`, `=>`, `...`, `??`) an `op`.

Unterminated input (a string, a comment, a heredoc) runs to the end of the file: the tokenizer
never fails and never loops, whatever the text.
"""

from __future__ import annotations

import re
from typing import NamedTuple

MAX_HOLE_DEPTH = 32


class Token(NamedTuple):
    kind: str  # html, doc, attr, str, name, var, num, op
    text: str
    line: int  # 0-based line of its first character
    start: int  # offset of its first character in the text


_OPEN = re.compile(r"<\?(?:php\b|=)?", re.I)
_ID = r"[A-Za-z_\x80-\U0010ffff][\w\x80-\U0010ffff]*"
_NAME = re.compile(rf"\\?{_ID}(?:\\{_ID})*")
_VAR = re.compile(rf"\$+{_ID}")
_NUM = re.compile(r"\d[\w.]*(?:[eE][+-]?\d+)?|\.\d\w*")
_HEREDOC = re.compile(rf"<<<[ \t]*(['\"]?)({_ID})\1\r?\n")
_OPS = ("?->", "...", "<=>", "::", "->", "=>", "??", "==", "!=", "<=", ">=", "&&", "||")


def tokens(text: str) -> list[Token]:
    """The tokens of the PHP file `text` (see the module's docstring)."""
    return _Lexer(text).run()


class _Lexer:
    def __init__(self, text: str) -> None:
        self.text = text
        self.out: list[Token] = []
        self.line = 0

    def emit(self, kind: str, start: int, end: int) -> None:
        piece = self.text[start:end]
        self.out.append(Token(kind, piece, self.line, start))
        self.line += piece.count("\n")

    def skip(self, start: int, end: int) -> None:
        self.line += self.text.count("\n", start, end)

    def run(self) -> list[Token]:
        text, i, n = self.text, 0, len(self.text)
        while i < n:
            m = _OPEN.search(text, i)
            start = m.start() if m else n
            if start > i:
                self.emit("html", i, start)
            if m is None:
                break
            self.skip(m.start(), m.end())
            i = self.code(m.end())
        return self.out

    def code(self, i: int) -> int:
        """Reads PHP code from `i` to its `?>` (returned past it) or the end of the text."""
        text, n = self.text, len(self.text)
        while i < n:
            c = text[i]
            if c in " \t\r\n":
                j = i + 1
                while j < n and text[j] in " \t\r\n":
                    j += 1
                self.skip(i, j)
                i = j
            elif text.startswith("?>", i):
                self.skip(i, i + 2)
                return i + 2
            elif text.startswith("/*", i):
                end = text.find("*/", i + 2)
                end = n if end < 0 else end + 2
                if text.startswith("/**", i) and not text.startswith("/**/", i):
                    self.emit("doc", i, end)
                else:
                    self.skip(i, end)
                i = end
            elif text.startswith("#[", i):
                end = self.balanced(i + 1, "[", "]")
                self.emit("attr", i, end)
                i = end
            elif c == "#" or text.startswith("//", i):
                end = i
                while end < n and text[end] != "\n" and not text.startswith("?>", end):
                    end += 1
                self.skip(i, end)
                i = end
            elif c in "'\"`":
                end = self.string(i, c, 0)
                self.emit("str", i, end)
                i = end
            elif text.startswith("<<<", i) and (h := _HEREDOC.match(text, i)):
                end = self.heredoc(h)
                self.emit("str", i, end)
                i = end
            elif c == "$" and (v := _VAR.match(text, i)):
                self.emit("var", i, v.end())
                i = v.end()
            elif (c.isdigit() or (c == "." and text[i + 1 : i + 2].isdigit())) and (
                num := _NUM.match(text, i)
            ):
                self.emit("num", i, num.end())
                i = num.end()
            elif nm := _NAME.match(text, i):
                self.emit("name", i, nm.end())
                i = nm.end()
            else:
                op = next((o for o in _OPS if text.startswith(o, i)), c)
                self.emit("op", i, i + len(op))
                i += len(op)
        return n

    def string(self, i: int, quote: str, depth: int) -> int:
        """The end of the string opening at `i` (past its closing quote)."""
        text, n = self.text, len(self.text)
        j = i + 1
        while j < n:
            c = text[j]
            if c == "\\":
                j += 2
            elif c == quote:
                return j + 1
            elif (
                quote != "'"
                and depth < MAX_HOLE_DEPTH
                and (text.startswith("{$", j) or text.startswith("${", j))
            ):
                j = self.hole(j + (1 if c == "{" else 2), depth + 1)
            else:
                j += 1
        return n

    def hole(self, j: int, depth: int) -> int:
        """Past the `}` closing an interpolation hole whose code starts at `j`."""
        text, n = self.text, len(self.text)
        level = 1
        while j < n:
            c = text[j]
            if c in "'\"`":
                j = self.string(j, c, depth)
                continue
            if c == "{":
                level += 1
            elif c == "}":
                level -= 1
                if level == 0:
                    return j + 1
            j += 1
        return n

    def heredoc(self, m: re.Match[str]) -> int:
        """The end of the heredoc or nowdoc `m` opens: past its closing identifier."""
        ident = m.group(2)
        close = re.compile(rf"^[ \t]*{re.escape(ident)}(?![\w\x80-\U0010ffff])", re.M)
        found = close.search(self.text, m.end())
        return found.end() if found else len(self.text)

    def balanced(self, i: int, open_: str, close: str) -> int:
        """Past the `close` matching the `open_` at `i` (strings inside read as strings)."""
        text, n = self.text, len(self.text)
        level, j = 0, i
        while j < n:
            c = text[j]
            if c in "'\"":
                j = self.string(j, c, 0)
                continue
            if c == open_:
                level += 1
            elif c == close:
                level -= 1
                if level == 0:
                    return j + 1
            j += 1
        return n
