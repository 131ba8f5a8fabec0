"""Haskell source text as tokens, for the Haddock reader (haskell_parse.py, haddock.py).

What hides brackets and layout is one token: string and character literals (a string gap
`\\   \\` over lines included), block comments that nest `{- {- -} -}`, pragmas `{-# … #-}`.
Haddock's comments are tokens of their own, kind `doc`, with a mark: `|` (documents what
follows), `^` (what precedes), `$name` (a named chunk), `*`, `**`… (a section heading of an
export list); a `-- |` comment goes on over the `--` lines right below it, as Haddock reads it.
Other comments go, and so do CPP lines (`#if`, `#endif`: both branches are read). A token keeps
its line and column: Haskell's layout is read from columns (haskell_parse.py).

`.lhs` (literate Haskell) is read through `unlit`: bird-track lines (`> code`) and
`\\begin{code}` blocks are the code, every other line blank, so lines keep their numbers.

Nothing is compiled or run. Every step consumes at least one character, so a hostile file ends
in time proportional to its size; an unterminated string runs to the end of its line, an
unterminated comment to the end of the file.
"""

from __future__ import annotations

import re
from typing import NamedTuple

_SYMBOL = frozenset("!#$%&*+./<=>?@\\^|-~:")
_SPECIAL = frozenset("(),;[]`{}")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_']*(?:\.[A-Za-z_][A-Za-z0-9_']*)*#?")
_NUM = re.compile(r"[0-9][0-9A-Za-z_.]*")
_OP = re.compile(r"[!#$%&*+./<=>?@\\^|\-~:]+")
_SPACE = re.compile(r"[ \t\r\f\v]+")
_CHAR = re.compile(r"'(?:\\(?:[^\n]|\^.)[^'\n]{0,8}|[^'\\\n])'")
# A Haddock mark after `--` or `{-`: `|`, `^`, `$name`, `*`…
_BLOCK = re.compile(r"\{-|-\}")
_MARK = re.compile(r"[ \t]*(\||\^|\$[\w'-]*|\*+)")


class Token(NamedTuple):
    kind: str  # name, op, special, str, char, num, pragma, doc
    text: str  # a doc token's: its text, lines joined with "\n", the mark and `--` taken off
    line: int  # 0-based
    col: int  # 0-based column of its start
    mark: str = ""  # a doc token's mark: "|", "^", "$name", "*", "**"…


def unlit(text: str) -> str:
    """A literate Haskell file's code, line for line (every other line blank)."""
    out: list[str] = []
    in_code = False
    for line in text.split("\n"):
        stripped = line.strip()
        if in_code:
            if stripped.startswith("\\end{code}"):
                in_code = False
                out.append("")
            else:
                out.append(line)
        elif stripped.startswith("\\begin{code}"):
            in_code = True
            out.append("")
        elif line.startswith(">"):
            out.append(" " + line[1:])
        else:
            out.append("")
    return "\n".join(out)


def _block_end(text: str, pos: int) -> int:
    """The offset just after the `-}` closing the block comment opened at `pos`, comments
    nesting (the end of the text when it is never closed)."""
    depth = 0
    for m in _BLOCK.finditer(text, pos):
        depth += 1 if m.group() == "{-" else -1
        if depth == 0:
            return m.end()
    return len(text)


def _dedent(lines: list[str]) -> list[str]:
    margin = min((len(x) - len(x.lstrip()) for x in lines if x.strip()), default=0)
    return [x[margin:].rstrip() for x in lines]


def tokens(text: str) -> list[Token]:
    """The tokens of `text` (see the module's docstring)."""
    out: list[Token] = []
    n = len(text)
    pos = 0
    line = 0
    line_start = 0
    while pos < n:
        c = text[pos]
        if c == "\n":
            pos += 1
            line += 1
            line_start = pos
            continue
        if c in " \t\r\f\v":
            pos = _SPACE.match(text, pos).end()  # type: ignore[union-attr]
            continue
        col = pos - line_start
        if c == "#" and col == 0 and text[pos + 1 : pos + 2].isalpha():  # (a CPP line)
            end = text.find("\n", pos)
            pos = n if end < 0 else end
            continue
        if c == "-" and text.startswith("--", pos):
            m = _OP.match(text, pos)
            op = m.group() if m else "--"
            if op.strip("-") == "":  # (a line comment: `--`, `---`, not `-->`)
                pos, line, line_start = _line_comment(text, pos, line, line_start, col, out)
                continue
        if c == "{" and text.startswith("{-", pos):
            end = _block_end(text, pos)
            body = text[pos:end]
            if body.startswith("{-#"):
                out.append(
                    Token("pragma", " ".join(body[3:].removesuffix("#-}").split()), line, col)
                )
            else:
                inner = body[2:].removesuffix("-}")
                m = _MARK.match(inner)
                if m:
                    rest = inner[m.end() :]
                    first, _, more = rest.partition("\n")
                    lines = [first.strip(), *_dedent(more.split("\n"))] if more else [first.strip()]
                    out.append(Token("doc", "\n".join(lines).strip("\n"), line, col, m.group(1)))
            line += body.count("\n")
            if "\n" in body:
                line_start = pos + body.rfind("\n") + 1
            pos = end
            continue
        if c == '"':
            pos, line, line_start = _string(text, pos, line, line_start, col, out)
            continue
        if c == "'":
            m = _CHAR.match(text, pos)
            if m:
                out.append(Token("char", m.group(), line, col))
                pos = m.end()
                continue
            out.append(Token("op", "'", line, col))  # (a promoted constructor, TH's quote)
            pos += 1
            continue
        if c.isalpha() or c == "_":
            m = _NAME.match(text, pos)
            word = m.group()  # type: ignore[union-attr]
            if word.endswith(".") or (
                "." in word and not word.split(".")[0][:1].isupper()
            ):  # (`f.g` is composition, `Data.Map.insert` a qualified name)
                word = word.split(".")[0]
            out.append(Token("name", word, line, col))
            pos += len(word)
            continue
        if c.isdigit():
            m = _NUM.match(text, pos)
            out.append(Token("num", m.group(), line, col))  # type: ignore[union-attr]
            pos = m.end()  # type: ignore[union-attr]
            continue
        if c in _SPECIAL:
            out.append(Token("special", c, line, col))
            pos += 1
            continue
        if c in _SYMBOL:
            m = _OP.match(text, pos)
            out.append(Token("op", m.group(), line, col))  # type: ignore[union-attr]
            pos = m.end()  # type: ignore[union-attr]
            continue
        out.append(Token("op", c, line, col))  # (any other character: one token)
        pos += 1
    return out


def _line_comment(
    text: str, pos: int, line: int, line_start: int, col: int, out: list[Token]
) -> tuple[int, int, int]:
    """A `--` comment from `pos`: a doc token where Haddock's mark follows (with the `--`
    lines right below a `|`, `^` or `$` one), nothing otherwise."""
    end = text.find("\n", pos)
    end = len(text) if end < 0 else end
    body = text[pos:end].lstrip("-")
    m = _MARK.match(body)
    if not m:
        return end, line, line_start
    mark = m.group(1)
    if mark.startswith("*"):  # (a section heading: its one line)
        out.append(Token("doc", body[m.end() :].strip(), line, col, mark))
        return end, line, line_start
    lines = [body[m.end() :]]
    first = line
    # the `--` lines right below, at any indentation, that start no other doc comment
    while end < len(text):
        nxt = text.find("\n", end + 1)
        nxt = len(text) if nxt < 0 else nxt
        row = text[end + 1 : nxt]
        stripped = row.lstrip()
        if not stripped.startswith("--") or (_OP.match(stripped) or [""])[0].strip("-"):
            break
        rest = stripped.lstrip("-")
        if _MARK.match(rest):
            break
        lines.append(rest[1:] if rest.startswith(" ") else rest)
        line += 1
        line_start = end + 1
        end = nxt
    first_line = lines[0].strip()
    shown = [first_line, *_dedent(lines[1:])] if len(lines) > 1 else [first_line]
    out.append(Token("doc", "\n".join(shown).strip("\n"), first, col, mark))
    return end, line, line_start


def _string(
    text: str, pos: int, line: int, line_start: int, col: int, out: list[Token]
) -> tuple[int, int, int]:
    """A string literal from `pos` (its escapes and gaps); unterminated, it ends with its
    line."""
    n = len(text)
    k = pos + 1
    first = line
    while k < n:
        c = text[k]
        if c == '"':
            k += 1
            break
        if c == "\n":
            break
        if c == "\\" and k + 1 < n:
            if text[k + 1] in " \t\r\n":  # (a gap: to the next backslash)
                close = text.find("\\", k + 1)
                close = n - 1 if close < 0 else close
                gap = text[k:close]
                line += gap.count("\n")
                if "\n" in gap:
                    line_start = k + gap.rfind("\n") + 1
                k = close + 1
                continue
            k += 2
            continue
        k += 1
    out.append(Token("str", text[pos:k], first, col))
    return k, line, line_start
