"""Comments as the C family of languages writes them, shared by the lexers of the languages
whose doc comments are `/** … */` blocks and runs of `///` lines (Dart, Swift, Kotlin, Java):
one home for how far a nesting block comment runs, what a doc comment's text is and which
bracket a character is, so the readers cannot drift apart on the same rule.

Every function consumes its input left to right with linear patterns: a hostile file ends in
time proportional to its size; an unclosed comment runs to the end of the source.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# A bracket's token kind; any other punctuation is "punct".
BRACKET_KIND = {"(": "open", "[": "open", "{": "open", ")": "close", "]": "close", "}": "close"}
_COMMENT_MARK = re.compile(r"/\*|\*/")
# A `/** */` line's margin: its indentation, one `*` and one space after it.
_DOC_MARGIN = re.compile(r"^[ \t]*\*?[ \t]?")


def nested_comment_end(source: str, start: int) -> int:
    """The offset after the `*/` closing the block comment whose `/*` is at `start`, a
    `/* … */` inside it nesting (Dart, Swift and Kotlin read them so), or the end of `source`.
    The marks are taken left to right without overlap, so in `/*/` the `/*` opens and the
    `*/` that shares its star closes nothing."""
    depth = 1
    for m in _COMMENT_MARK.finditer(source, start + 2):
        depth += 1 if m.group() == "/*" else -1
        if depth == 0:
            return m.end()
    return len(source)


def comment_at(source: str, pos: int) -> tuple[int, str | None] | None:
    """The comment starting at `pos` (a `//` line, whose end is its newline, or a nesting
    `/* */` block): its end and, for a `/** */` doc comment, its text (block_doc_text); None
    when no comment starts there. A `///` doc line is read as a `//` comment here: lexers
    that keep those ask is_slash_doc first."""
    if source.startswith("//", pos):
        end = source.find("\n", pos)
        return (len(source) if end < 0 else end), None
    if source.startswith("/*", pos):
        end = nested_comment_end(source, pos)
        return end, block_doc_text(source[pos:end])
    return None


def is_slash_doc(source: str, pos: int) -> bool:
    """Whether a `///` doc line starts at `pos` (`////` is a plain comment, as dartdoc and
    DocC read it)."""
    return source.startswith("///", pos) and not source.startswith("////", pos)


def slash_doc_line(source: str, pos: int) -> tuple[str, int]:
    """The text of the `///` line at `pos` (without the `///` and one space after it) and
    the offset of its end (its newline, or the end of `source`)."""
    end = source.find("\n", pos)
    end = len(source) if end < 0 else end
    text = source[pos + 3 : end]
    return (text[1:] if text.startswith(" ") else text), end


@dataclass
class DocRun:
    """A run of `///` lines being read, which is one doc comment: its lines, and where it
    starts and ends. (Mutable: a lexer fills it line by line and takes it when code follows.)"""

    lines: list[str] = field(default_factory=list)
    line: int = 0  # 0-based line of its first `///`
    start: int = 0  # offset of its first `///`
    end: int = 0  # offset of its last line's end

    def add(self, source: str, pos: int, line: int) -> int:
        """Reads the `///` line at `pos` (0-based line `line`) into the run; its end."""
        text, end = slash_doc_line(source, pos)
        if not self.lines:
            self.line, self.start = line, pos
        self.end = end
        self.lines.append(text)
        return end

    def take(self) -> str | None:
        """The run's text, its lines joined (None when it has none), leaving it empty; its
        `line`, `start` and `end` stay for the token made of it."""
        if not self.lines:
            return None
        text = "\n".join(self.lines)
        self.lines.clear()
        return text


def block_doc_text(body: str) -> str | None:
    """The text of a `/** … */` doc comment whose whole source is `body`, each line's margin
    (indentation, a `*`, a space) gone; None when `body` is no doc comment (`/*`, `/**/`, or a
    `/***` banner)."""
    if not (body.startswith("/**") and not body.startswith("/***") and len(body) > 4):
        return None
    inner = body[3:-2] if body.endswith("*/") else body[3:]
    lines = [_DOC_MARGIN.sub("", x, count=1) for x in inner.split("\n")]
    return "\n".join(lines).strip("\n")


def doc_content(text: str) -> str:
    """A `/** … */` comment's content without its delimiters (an unclosed one: without the
    `/**`); Java and Kotlin leave its margins to their doc readers."""
    return text[3:-2] if text.endswith("*/") and len(text) >= 5 else text[3:]
