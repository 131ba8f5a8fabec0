"""A C or C++ header's text with what is not code blanked, its comments and its preprocessor
lines: what the Doxygen reader (doxygen_decls.py) splits into declarations.

A brace, `;` or `(` inside a string, a character literal, a comment or a preprocessor line must
not count, so `scan` copies the text with those replaced by spaces (newlines kept, so offsets
and lines stay the file's) and records each comment and each preprocessor line (`#define` with
its `\\` continuations). One pass over the characters, nothing nests; an unclosed comment or
string ends at the end of the text (a header cut short still reads).

Doc comments are Doxygen's four forms: `/** … */`, `/*! … */`, `///` and `//!` (a run of such
line comments is one comment); `/**<`, `///<`, `//!<` and `/*!<` document the member before
them. `/***` (a banner) and `////` are no doc comments, as Doxygen reads them.

`plain`: a header documented without Doxygen (c_headers.py: raylib, zlib, sqlite, cJSON, stb)
writes its documentation in ordinary comments, so every comment is one, and a comment after
code on its line (`InitWindow(…);  // Initialize window`, `#define SQLITE_OK 0 /* … */`)
documents what precedes it; a run of `//` lines is one comment; its text loses sqlite's `**`
margin, rule lines (`//------`) and the indentation its lines share (zlib's five spaces).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# The next character that can open something other than code.
_SPECIAL = re.compile(r"[\"'/#\n]")
_RAW_STRING = re.compile(r'R"([^()\\\s"]{0,16})\(')
_NESTING = re.compile(r"/\*|\*/")
_RULE = re.compile(r"[-=*/_#~+ \t]*")  # (a line of a banner: `//-----`, `*****`)


@dataclass(frozen=True)
class Comment:
    start: int  # offset of its first character
    end: int  # offset just past it
    text: str  # the comment's lines without its markers and the leading ` * `
    doc: bool  # a Doxygen comment
    after: bool  # `/**<` and friends: it documents what comes before it


@dataclass(frozen=True)
class Directive:
    start: int
    end: int  # offset of the newline ending it (continuations included)
    text: str  # its lines joined, continuations removed, comments blanked


@dataclass(frozen=True)
class Scanned:
    code: str  # the text with comments, strings, char literals and directives blanked
    comments: tuple[Comment, ...]
    directives: tuple[Directive, ...]


def _blank(chars: list[str], start: int, end: int) -> None:
    for k in range(start, end):
        if chars[k] != "\n":
            chars[k] = " "


def _block_text(body: str) -> str:
    """A block comment's lines without the leading ` * ` Doxygen strips."""
    lines = body.split("\n")
    out = [lines[0].strip()]
    for line in lines[1:]:
        s = line.lstrip()
        if s.startswith("*") and not s.startswith("*/"):
            s = s[1:]
            s = s[1:] if s.startswith(" ") else s
            out.append(s.rstrip())
        else:
            out.append(line.rstrip())
    return "\n".join(out).strip("\n")


def _quoted_end(text: str, k: int, quote: str) -> int:
    """The offset past the literal opened by `quote` at k (at the line's end when unclosed)."""
    n = len(text)
    j = k + 1
    while j < n:
        c = text[j]
        if c == "\\":
            j += 2
            continue
        if c == quote:
            return j + 1
        if c == "\n":
            return j
        j += 1
    return n


def _nested_close(text: str, k: int) -> int:
    """The offset of the `*/` closing a comment whose body starts at k, with `/* … */` inside
    it nested (-1 when unclosed)."""
    depth = 1
    for m in _NESTING.finditer(text, k):
        depth += 1 if m.group() == "/*" else -1
        if depth == 0:
            return m.start()
    return -1


def plain_text(text: str) -> str:
    """A plain comment's text (see the module's docstring): without a second `*` margin, rule
    lines, and the indentation its lines share."""
    lines = text.split("\n")
    starred = [x for x in lines if x.strip()]
    if starred and all(x.startswith("*") for x in starred):
        lines = [x[1:].removeprefix(" ") if x.startswith("*") else x for x in lines]
    lines = ["" if _RULE.fullmatch(x) else x.rstrip() for x in lines]
    margins = [len(x) - len(x.lstrip(" \t")) for x in lines[1:] if x.strip()]
    cut = min(margins) if margins else 0
    if cut:
        lines = [lines[0].strip(), *(x[cut:] for x in lines[1:])]
    # (`#define STB_IMAGE_IMPLEMENTATION` in a usage note is no heading of the page)
    lines = [re.sub(r"^([ \t]*)#", r"\1\\#", x) for x in lines]
    return "\n".join(lines).strip("\n")


def scan(text: str, nested: bool = False, plain: bool = False) -> Scanned:
    """`text` split into code, comments and preprocessor lines (see the module's docstring);
    `nested`: a `/* … */` inside a comment nests, as Doxygen reads a `.dox` file (JsonCpp's
    main page shows a JSON example holding `/*embedded comment*/`); `plain`: every comment a
    doc comment (see the module's docstring)."""
    chars = list(text)
    comments: list[Comment] = []
    directives: list[Directive] = []
    n = len(text)
    k = 0
    line_start = True  # only white space since the line's start
    while k < n:
        m = _SPECIAL.search(text, k)
        if m is None:
            break
        j = m.start()
        if line_start and text[k:j].strip():
            line_start = False
        c = text[j]
        if c == "\n":
            line_start = True
            k = j + 1
        elif c == "#" and line_start:
            end = j
            while True:  # (to the newline that no backslash continues)
                nl = text.find("\n", end)
                if nl < 0:
                    end = n
                    break
                end = nl
                if text[j:nl].rstrip().endswith("\\"):
                    end = nl + 1
                    continue
                break
            raw = text[j:end]
            # Comments inside the directive are comments of their own (a trailing `/**<`).
            inner = scan(raw[1:], plain=plain) if ("/*" in raw or "//" in raw) else None
            blanked = inner.code if inner is not None else raw[1:]
            if inner is not None:
                comments.extend(
                    Comment(c.start + j + 1, c.end + j + 1, c.text, c.doc, c.after or plain)
                    for c in inner.comments
                )
            joined = re.sub(r"\\\n", " ", "#" + blanked)
            directives.append(Directive(j, end, " ".join(joined.split())))
            _blank(chars, j, end)
            k = end
        elif c == "/" and text.startswith("/*", j):
            close = _nested_close(text, j + 2) if nested else text.find("*/", j + 2)
            end = n if close < 0 else close + 2
            body = text[j + 2 : end - 2 if close >= 0 else n]
            doc = (body.startswith("*") and not body.startswith("**")) or body.startswith("!")
            doc = doc and body not in ("*", "!")  # (`/**/` is empty)
            after = doc and body[1:2] == "<"
            inner_text = body[2:] if after else body[1:] if doc else body
            if plain:
                said = plain_text(_block_text(inner_text))
                comments.append(Comment(j, end, said, bool(said.strip()), after or not line_start))
            else:
                comments.append(Comment(j, end, _block_text(inner_text), doc, after))
            _blank(chars, j, end)
            k = end
        elif c == "/" and text.startswith("//", j):
            # A run of `///` (or `//!`) lines is one comment.
            first = j
            pieces: list[str] = []
            end = j
            kind = text[j + 2 : j + 3]
            doc = kind in ("/", "!") and text[j + 3 : j + 4] != "/"
            after = doc and text[j + 3 : j + 4] == "<"
            skip = 4 if after else 3 if doc else 2  # (the markers before the text)
            if plain:  # (every `//` comment; one after code on its line documents that code)
                kind = "" if not doc else kind
                doc, after = True, after or not line_start
            while True:
                nl = text.find("\n", end)
                nl = n if nl < 0 else nl
                line = text[end:nl]
                pieces.append(line[skip:])
                _blank(chars, end, nl)
                end = nl
                if not doc or after:
                    break
                nxt = nl + 1
                stripped = text[nxt : nxt + 200].lstrip(" \t")
                if not stripped.startswith("//" + kind) or stripped.startswith("//" + kind + "<"):
                    break
                if stripped.startswith("////") and not plain:
                    break
                end = nxt + (len(text[nxt : nxt + 200]) - len(stripped))
            lines = [p[1:] if p.startswith(" ") else p for p in pieces]
            said = "\n".join(x.rstrip() for x in lines)
            if plain:
                said = plain_text(said)
                doc = bool(said.strip())
            comments.append(Comment(first, end, said, doc, after))
            k = end
        elif c in "\"'":
            if c == '"' and j > 0 and text[j - 1] == "R":
                raw = _RAW_STRING.match(text, j - 1)
                if raw:
                    close = text.find(f'){raw.group(1)}"', raw.end())
                    end = n if close < 0 else close + len(raw.group(1)) + 2
                    _blank(chars, j + 1, end - 1 if close >= 0 else end)
                    k = end
                    line_start = False
                    continue
            if c == "'" and j > 0 and (text[j - 1].isalnum()) and text[j + 1 : j + 2].isdigit():
                k = j + 1  # (a digit separator: 1'000'000)
                continue
            end = _quoted_end(text, j, c)
            _blank(chars, j + 1, end - 1 if end > j + 1 and text[end - 1] == c else end)
            k = end
            line_start = False
        else:
            k = j + 1
            line_start = False
    return Scanned("".join(chars), tuple(comments), tuple(directives))
