"""Protocol Buffers source (`.proto`) as tokens, each with the comments protoc attaches to it.

protoc keeps a declaration's comments in its descriptors (SourceCodeInfo), and every generator
that publishes a `.proto` file's docs (protoc-gen-doc, the Buf Schema Registry, Envoy's protodoc)
shows them from there, so this lexer attaches them as protoc's tokenizer does
(`Tokenizer::NextWithComments`):

- a comment starting on the line a token ends on is that token's *trailing* comment, and so is
  the comment block on the lines after it when a blank line, or the end of a scope, follows it;
- the comment block right above a token (no blank line between) is its *leading* comment;
- a run of `//` lines is one block, a `/* */` comment is a block of its own, and blocks a blank
  line separates from both are detached (shown by no generator).

`/* */` comments do not nest in protobuf. Strings keep their escapes; an unclosed string ends at
its line, an unclosed comment at the end of the text. Every loop consumes its input left to
right: linear in the size of the text whatever it holds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NUMBER = re.compile(r"[0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?\w*|\.[0-9]+(?:[eE][+-]?[0-9]+)?")
_SPACE = re.compile(r"[ \t\r\f\v]*")
# What a `/* */` comment's continuation line starts with: its indentation and one `*` (protoc
# strips them); not the `*` of a closing `*/`.
_BLOCK_MARGIN = re.compile(r"^[ \t]*\*(?!/)")


@dataclass
class Token:
    kind: str  # "ident", "number", "string", "punct"
    text: str
    start: int  # offset in the text
    end: int
    line: int  # 0-based line of its start
    end_line: int  # 0-based line of its end (a string over no line: the same)
    leading: str | None = None  # the comment block right above it (protoc's leading comment)
    trailing: str | None = None  # the comment after it (protoc's trailing comment)


class _Collector:
    """protoc's CommentCollector: the comments between two tokens, as the previous one's
    trailing comment, detached ones, and the next one's leading comment."""

    def __init__(self, prev: Token | None) -> None:
        self.prev = prev
        self.can_attach = prev is not None
        self.buffer: list[str] = []
        self.kind = ""  # "line" or "block" while buffer holds a comment
        self.count = 0  # comments flushed (trailing or detached)
        self.trailing_end = -1  # the line a trailing comment ends on

    def add(self, kind: str, text: str) -> None:
        if self.buffer and (kind == "block" or self.kind == "block"):
            self.flush()  # (a block comment is a block of its own)
        self.kind = kind
        self.buffer.append(text)

    def flush(self, end_line: int = -1) -> None:
        if self.buffer:
            if self.can_attach and self.prev is not None:
                self.prev.trailing = _comment_text(self.buffer)
                self.trailing_end = end_line
                self.can_attach = False
            self.count += 1
        self.buffer = []
        self.kind = ""


def _comment_text(parts: list[str]) -> str:
    """One comment block's text: its lines with their common indentation removed."""
    lines = "".join(parts).split("\n")
    if lines and not lines[-1].strip():
        lines.pop()
    indents = [len(x) - len(x.lstrip(" ")) for x in lines if x.strip()]
    cut = min(indents) if indents else 0
    return "\n".join(x[cut:].rstrip() for x in lines).strip("\n")


class _Scanner:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.line = 0

    def at(self, s: str) -> bool:
        return self.text.startswith(s, self.pos)

    def spaces(self) -> None:
        self.pos = _SPACE.match(self.text, self.pos).end()  # type: ignore[union-attr]

    def newline(self) -> bool:
        if self.at("\n"):
            self.pos += 1
            self.line += 1
            return True
        return False

    def line_comment(self) -> str:
        """The `//` comment at pos, its newline included (consumed)."""
        end = self.text.find("\n", self.pos)
        end = len(self.text) if end < 0 else end + 1
        body = self.text[self.pos + 2 : end]
        self.pos = end
        if body.endswith("\n"):
            self.line += 1
        return body if body.endswith("\n") else body + "\n"

    def block_comment(self) -> str:
        """The `/* */` comment at pos (consumed), each continuation line's margin gone."""
        end = self.text.find("*/", self.pos + 2)
        stop = len(self.text) if end < 0 else end
        body = self.text[self.pos + 2 : stop]
        self.pos = len(self.text) if end < 0 else end + 2
        self.line += body.count("\n")
        lines = body.split("\n")
        # (a `/**` javadoc-style opening's extra stars are no text)
        lines = [lines[0].lstrip("*"), *(_BLOCK_MARGIN.sub("", x, count=1) for x in lines[1:])]
        return "\n".join(lines) + "\n"

    def token(self) -> Token | None:
        """The token at pos (consumed), None at the end; whitespace and comments before it
        are skipped without being kept."""
        text = self.text
        while self.pos < len(text):
            c = text[self.pos]
            if c == "\n":
                self.newline()
            elif c in " \t\r\f\v":
                self.spaces()
            elif self.at("//"):
                self.line_comment()
            elif self.at("/*"):
                self.block_comment()
            else:
                break
        if self.pos >= len(text):
            return None
        start, line = self.pos, self.line
        c = text[start]
        if m := _IDENT.match(text, start):
            kind, end = "ident", m.end()
        elif m := _NUMBER.match(text, start):
            kind, end = "number", m.end()
        elif c in "\"'":
            kind, end = "string", _string_end(text, start)
        else:
            kind, end = "punct", start + 1
        self.pos = end
        self.line += text.count("\n", start, end)
        return Token(kind, text[start:end], start, end, line, self.line)


def _string_end(text: str, start: int) -> int:
    """The offset after the string literal opening at `start`: its closing quote, or the end of
    its line when it has none (protoc reports it; here it ends there)."""
    quote = text[start]
    k = start + 1
    n = len(text)
    while k < n:
        c = text[k]
        if c == "\\":
            k += 2
            continue
        if c == quote:
            return k + 1
        if c == "\n":
            return k
        k += 1
    return n


def lex(text: str) -> list[Token]:
    """The tokens of a `.proto` text, with their leading and trailing comments."""
    scan = _Scanner(text.removeprefix("\ufeff"))
    tokens: list[Token] = []
    while True:
        prev = tokens[-1] if tokens else None
        collect = _Collector(prev)
        if prev is not None:
            scan.spaces()
            if scan.at("//"):
                collect.add("line", scan.line_comment())
                collect.flush(scan.line - 1)
            elif scan.at("/*"):
                collect.add("block", scan.block_comment())
                end = scan.line
                scan.spaces()
                if not scan.newline() and scan.pos < len(scan.text):
                    # (the next token is on this line: protoc cannot tell whose it is)
                    tok = scan.token()
                    if tok is None:
                        break
                    tokens.append(tok)
                    continue
                collect.flush(end)
            elif not scan.newline():
                tok = scan.token()  # (the next token on the same line: no comments)
                if tok is None:
                    break
                tokens.append(tok)
                continue
        # On the line after the previous token.
        last_end = -1
        while True:
            scan.spaces()
            if scan.at("//"):
                collect.add("line", scan.line_comment())
                last_end = scan.line - 1
            elif scan.at("/*"):
                collect.add("block", scan.block_comment())
                last_end = scan.line
                scan.spaces()
                scan.newline()
            elif scan.newline():
                collect.flush(last_end)  # (a blank line: what comes after is detached)
                collect.can_attach = False
            else:
                tok = scan.token()
                if tok is None or tok.text in "}])":
                    collect.flush(last_end)  # (the end of a scope: nothing to lead)
                if tok is None:
                    return tokens
                if prev is not None and collect.trailing_end == tok.line and collect.count < 2:
                    prev.trailing = None  # (protoc's MaybeDetachComment)
                if collect.buffer:
                    tok.leading = _comment_text(collect.buffer)
                tokens.append(tok)
                break
    return tokens
