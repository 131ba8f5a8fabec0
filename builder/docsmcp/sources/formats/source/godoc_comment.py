"""A Go doc comment rendered as markdown, as pkg.go.dev renders it (Go 1.19's doc syntax).

The text (markers removed: godoc_parse.comment_text) is unindented by its common prefix, then
read as go/doc/comment reads it:
- a span of indented lines is a code block, unless its first line starts with a list marker
  (`-`, `*`, `+`, `•`, `1.`, `1)`): then it is a list, each marker starting an item;
- a line `# Heading` alone between blank lines is a heading, and so is a line of the older
  implicit form (a capitalised line without final punctuation between two paragraphs);
- `[Name]`, `[Name.Method]`, `[pkg.Name]`, `[*Name]` and `[pkg]` are doc links, given to
  `resolve` (the page's: an anchor of the page, another package page of the module, or
  pkg.go.dev); one it cannot place stays text, brackets and all;
- `[Text]: URL` lines are link definitions, and `[Text]` then links to URL;
- everything else is a paragraph of plain text: markdown's own syntax in it is escaped
  (pkg.go.dev shows `*T` and `<name>` as written), but backquoted spans stay code spans, as
  the authors who write them mean.
Paragraphs are joined to one line each; each markdown line is given with the line of the
comment it comes from.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from docsmcp.sources.formats.markdown.fences import code_block

_LIST_MARKER = re.compile(r"^([-*+•]|\d+[.)])[ \t]+")
_HEADING = re.compile(r"^#[ \t]+(\S.*)$")
_LINK_DEF = re.compile(r"^\[([^\]\n]+)\]:[ \t]*(\S+)[ \t]*$")
# A doc link: `[Name]`, `[pkg.Name.Method]`, `[*T]`, `[encoding/json.Marshal]`.
_DOC_LINK = re.compile(r"\[(\*?)((?:[\w.-]+/)*[\w.-]*[^\W\d_]\w*(?:\.\w+){0,2})\]")
_BACKQUOTED = re.compile(r"`[^`]+`")
# Markdown's inline syntax, escaped in plain text; `_` only where it may start or end
# emphasis (not inside `BASH_COMP_DEBUG_FILE`), `<` where it may open a tag, `\\` before
# punctuation: the rest reads as written. A markdown link some authors write stays a link when
# it names a web address, and reads as written otherwise (stripe-go's `[pay](/api/invoices/pay)`
# is relative to a site the comment does not name, as pkg.go.dev shows it).
_SPECIAL = re.compile(
    r"(\\(?=[!-/:-@\[-`{-~])|\*|<(?=[A-Za-z/!?])|(?<!\w)_|_(?!\w)|\](?=\((?!https?://)))"
)
_BLOCK_START = re.compile(r"^(#|>|[-+=]|\d+[.)])")
_GO_CODE = re.compile(r":=|\bfunc\b|\bpackage\b|\breturn\b|\bimport\b|\w\([^)]*\)|^\s*//")

Resolver = Callable[[str], str | None]
# Characters of a bracketed text read as a doc link, at most: `[encoding/json.Decoder.Decode]`
# is 28; the pattern's overlapping parts take time growing with the square of a longer one.
MAX_LINK_CHARS = 200


def _unindent(lines: list[str]) -> list[str]:
    indents = [len(x) - len(x.lstrip(" \t")) for x in lines if x.strip()]
    if not indents:
        return lines
    prefix = min(indents)
    # Only a prefix all non-blank lines share (tabs and spaces mixed stay as they are).
    first = next(x for x in lines if x.strip())[:prefix]
    if not all(x.startswith(first) for x in lines if x.strip()):
        return lines
    return [x[prefix:] if x.strip() else "" for x in lines]


def _indented(line: str) -> bool:
    return bool(line) and line[0] in " \t"


def _old_heading(lines: list[str], k: int) -> bool:
    """go/doc/comment's implicit heading: a line after a blank line that follows a paragraph,
    followed by a blank line and more text; capitalised, ending in a letter or digit, without
    other punctuation than parentheses, commas and `'s`."""
    line = lines[k]
    if k < 2 or lines[k - 1] or not lines[k - 2] or k + 2 >= len(lines):
        return False
    if lines[k + 1] or not lines[k + 2] or _indented(lines[k + 2]) or _indented(line):
        return False
    if not line[0].isupper() or not line[-1].isalnum():
        return False
    stripped = line.replace("'s", "")
    return all(ch.isalnum() or ch in " (),'" for ch in stripped) and "'" not in stripped


def render(
    text: str,
    first_line: int,
    resolve: Resolver,
    heading_level: int | None,
) -> list[tuple[int, str]]:
    """The comment `text` (its first line is source line `first_line`) as markdown lines, each
    with its source line. Headings become `heading_level` hashes, or bold lines when None (a
    heading inside one declaration's doc must not cut the declaration's section)."""
    lines = _unindent(text.split("\n"))
    defs: dict[str, str] = {}
    kept: list[tuple[int, str]] = []
    for k, line in enumerate(lines):
        m = _LINK_DEF.match(line)
        if m and not _indented(line):
            defs[m.group(1)] = m.group(2)
        else:
            kept.append((first_line + k, line))
    source = [n for n, _ in kept]
    lines = [x for _, x in kept]
    out: list[tuple[int, str]] = []

    def blank() -> None:
        if out and out[-1][1]:
            out.append((out[-1][0], ""))

    k = 0
    while k < len(lines):
        line = lines[k]
        if not line:
            k += 1
            continue
        if _indented(line):
            end = k
            while end < len(lines) and (not lines[end] or _indented(lines[end])):
                end += 1
            while end > k and not lines[end - 1]:
                end -= 1
            span = _unindent(lines[k:end])
            blank()
            if _LIST_MARKER.match(span[0]):
                out.extend(_list(span, source[k:end], defs, resolve))
            else:
                info = "go" if any(_GO_CODE.search(x) for x in span) else ""
                block = code_block("", info, span)
                at = [source[k], *source[k:end], source[end - 1]]
                out.extend(zip(at, block, strict=True))
            blank()
            k = end
            continue
        heading = _HEADING.match(line)
        alone = (k == 0 or not lines[k - 1]) and (k + 1 >= len(lines) or not lines[k + 1])
        if (heading and alone) or _old_heading(lines, k):
            title = inline(heading.group(1) if heading else line, defs, resolve)
            blank()
            if heading_level is None:
                out.append((source[k], f"**{title}**"))
            else:
                out.append((source[k], f"{'#' * heading_level} {title}"))
            blank()
            k += 1
            continue
        end = k
        while end < len(lines) and lines[end] and not _indented(lines[end]):
            end += 1
        words = " ".join(x.strip() for x in lines[k:end])
        blank()
        out.append((source[k], _paragraph(inline(words, defs, resolve))))
        k = end
    while out and not out[-1][1]:
        out.pop()
    return out


def _paragraph(text: str) -> str:
    """A paragraph's line, its first character escaped where markdown would read a block."""
    return "\\" + text if _BLOCK_START.match(text) else text


def _list(
    span: list[str], source: list[int], defs: dict[str, str], resolve: Resolver
) -> list[tuple[int, str]]:
    out: list[tuple[int, str]] = []
    item: list[str] = []
    marker = "-"
    at = source[0]

    def flush() -> None:
        if item:
            out.append((at, f"{marker} {inline(' '.join(item), defs, resolve)}"))

    for n, line in zip(source, span, strict=True):
        m = _LIST_MARKER.match(line)
        if m:
            flush()
            number = m.group(1)[:-1]
            marker = f"{number}." if number.isdigit() else "-"
            item = [line[m.end() :].strip()]
            at = n
        elif line.strip():
            item.append(line.strip())
    flush()
    return out


def inline(text: str, defs: dict[str, str], resolve: Resolver) -> str:
    """Plain text as markdown: backquoted spans kept, doc links and defined links made links,
    the rest escaped."""
    out: list[str] = []
    pos = 0
    for m in _BACKQUOTED.finditer(text):
        out.append(_links(text[pos : m.start()], defs, resolve))
        out.append(m.group())
        pos = m.end()
    out.append(_links(text[pos:], defs, resolve))
    return "".join(out)


def _links(text: str, defs: dict[str, str], resolve: Resolver) -> str:
    out: list[str] = []
    pos = 0
    # (`[Name]()`, as some write a call, is a doc link too; `[text](url)` is left as written)
    for m in re.finditer(r"\[([^\[\]\n]+)\](?!\((?!\))|\[|:)", text):
        target = defs.get(m.group(1))
        title = m.group(1)
        if (
            target is None
            and len(title) <= MAX_LINK_CHARS
            and (doc := _DOC_LINK.fullmatch(m.group()))
        ):
            target = resolve(doc.group(2))
            title = doc.group(1) + doc.group(2)
        if target is None:
            continue
        out.append(_escape(text[pos : m.start()]))
        out.append(f"[{_escape(title)}](<{target}>)")
        pos = m.end()
    out.append(_escape(text[pos:]))
    return "".join(out)


def _escape(text: str) -> str:
    return _SPECIAL.sub(r"\\\1", text)
