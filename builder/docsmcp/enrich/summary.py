"""One-line summaries of a section (its first prose sentence or two, markup stripped), shown with
references (xref.py) and in the browse tables (indexing/tables.py).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from docsmcp.enrich.section_ids import RULE_ID_LINE
from docsmcp.model.text import truncate
from docsmcp.sources.formats.markdown.fences import fenced_lines

if TYPE_CHECKING:
    from docsmcp.model.chunk import ParsedFile

_IMAGE = re.compile(r"!\[[^\]\n]{0,500}\]\([^)\n]{0,2000}\)")
_FOOTNOTE_REF = re.compile(r"\[\^[^\]\n]{0,200}\]")
_INLINE_LINK = re.compile(r"\[([^\]\n]{0,500})\]\([^)\n]{0,2000}\)")
_REFERENCE_LINK = re.compile(r"\[([^\]\n]{0,500})\]\[[^\]\n]{0,500}\]")
_SHORTCUT_LINK = re.compile(r"\[([^\]\n]{0,500})\]")
_TAG = re.compile(r"<[^<>]{0,2000}>")
_JSX_EXPRESSION = re.compile(r"\{[^{}\n]{0,500}\}")
_EMPHASIS = re.compile(r"(\*\*|__|\*|~~)(?=\S)|(?<=\S)(\*\*|__|\*|~~)")
_UNDERSCORE = re.compile(r"(?<![\w])_(?=\w)|(?<=\w)_(?![\w])")
_SPACES = re.compile(r"\s+")
_CODE_SPAN = re.compile(r"(`+)([^`\n]+?)\1(?!`)")
# An admonition's label alone (reST's and mkdocs' boxes read as their label over their text):
# a page that opens with one is described by the box's text under it.
_LABEL = re.compile(
    r"(?i)(note|warning|tip|important|caution|danger|attention|hint|error|see also|todo|info"
    r"|success|example|question|bug|abstract|quote|failure|warn|deprecated):?"
)


def _strip_inline(text: str) -> str:
    """Markdown inline syntax out of a line: links/images to their text, code spans, emphasis,
    HTML/JSX tags and expressions. A pattern runs only when its first character is in the
    line (most lines of prose hold no `[`, `<` or `{`: this was ~4 % of a win32 worker)."""
    if "[" in text:
        text = _IMAGE.sub("", text)  # images
        text = _FOOTNOTE_REF.sub("", text)  # footnote references
        text = _INLINE_LINK.sub(r"\1", text)  # inline links
        text = _REFERENCE_LINK.sub(r"\1", text)  # reference links
        text = _SHORTCUT_LINK.sub(r"\1", text)  # shortcut links
    end = text.rfind(">") + 1  # tags only up to the last `>` (see chunk._strip_tags)
    if end:
        text = _TAG.sub(" ", text[:end]) + text[end:]
    if "{" in text:
        text = _JSX_EXPRESSION.sub(" ", text)  # JSX expressions
    if "`" in text:
        # Emphasis marks are read outside code spans only: `__init__.py` and `CELERY_` are
        # names (descriptions read "init.py" and "CELERY").
        pieces = []
        at = 0
        for m in _CODE_SPAN.finditer(text):
            pieces.append(_unemphasised(text[at : m.start()].replace("`", "")))
            pieces.append(m.group(2))
            at = m.end()
        pieces.append(_unemphasised(text[at:].replace("`", "")))
        text = "".join(pieces)
    else:
        text = _unemphasised(text)
    return _SPACES.sub(" ", text).strip()


def _unemphasised(text: str) -> str:
    """`text` without emphasis marks (`**`, `_`, `~~`)."""
    if "*" in text or "_" in text or "~" in text:
        text = _EMPHASIS.sub("", text)
    if "_" in text:
        text = _UNDERSCORE.sub("", text)
    return text


_SKIP_LINE = re.compile(
    r"^\s*(?:#{1,6}(?:\s|$)|\||:::|import\s|export\s|<[^>]*>?\s*$|\[[^\]]*\]:\s|[-*_=]{3,}\s*$"
    r"|!\[)"
)
_SUMMARY_WINDOWS = (40, 400)
_STRUCTURE = re.compile(r"^\s*(?:#{1,6}(?:\s|$)|\|)")  # a heading or table after prose ends it
_BULLET = re.compile(r"^\s*(?:>\s*)*(?:[-*+]|\d{1,9}[.)])\s+")
# A line of a table of contents: a list item that is one link and nothing else, before any prose,
# in a list whose first item links to a heading of the page (Laravel's pages open with one, of
# their sections and a page or two: their summaries were its titles).
_TOC_ITEM = re.compile(r"\[[^\]\n]{0,500}\]\([^)\s]{0,2000}\)\s*$")
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9])")


def summary(text: str, limit: int = 200, plain: bool = False) -> str:
    """Extractive summary of a markdown text: its first sentence(s), at most `limit` characters,
    without markdown, HTML/JSX or code ("" when the text has no prose). `plain`: the text is a
    block's text as parsed already (no markup left: its `*`, `_`, `<` are the reader's)."""
    if limit <= 0:
        return ""
    prose = ""
    for window in _SUMMARY_WINDOWS:  # the prose is at the top: look further only if needed
        lines = text.split("\n", window)[:window]
        prose, complete = _leading_prose(lines, limit, plain)
        if complete or len(lines) < window:
            break
    if not prose:
        return ""
    out = ""
    for sentence in _SENTENCE_END.split(prose[: limit * 4]):
        candidate = f"{out} {sentence}".strip()
        if len(candidate) > limit:
            break
        out = candidate
    if out:
        return out
    return truncate(prose, limit)


def _leading_prose(lines: list[str], limit: int, plain: bool = False) -> tuple[str, bool]:
    """Plain text of the first prose paragraphs of `lines`: from the first prose line until a
    heading, table or code block follows, or more than `limit` characters are collected. Also
    whether it ended for such a reason (False: the lines ran out first)."""
    code = fenced_lines(lines)
    parts: list[str] = []
    size = 0
    toc: bool | None = None  # the lines open with a table of contents (see below)
    for line, in_code in zip(lines, code, strict=False):
        if in_code or _STRUCTURE.match(line):
            if parts:
                return " ".join(parts), True
            continue
        if not line.strip() or _SKIP_LINE.match(line) or RULE_ID_LINE.match(line):
            if size > limit:
                return " ".join(parts), True
            continue
        item = _BULLET.match(line)
        if not parts and item is not None and "](" in line and _TOC_ITEM.match(line, item.end()):
            # A table of contents before any prose, when its first item links to a heading of
            # the page; after prose, or starting with other links, a list of links it means.
            toc = line.startswith("](#", line.index("]", item.end())) if toc is None else toc
            if toc:
                continue
        clean = _BULLET.sub("", line[:5000])
        clean = _SPACES.sub(" ", clean).strip() if plain else _strip_inline(clean)
        if clean:
            parts.append(clean)
            size += len(clean) + 1
    return " ".join(parts), False


def page_description(parsed: ParsedFile) -> str:
    """Frontmatter description, else the first sentence(s) of the first paragraph."""
    keys = ("description", "metaDescription", "meta_description")
    frontmatter = parsed.source.frontmatter_with(*keys)
    for key in keys:
        described = frontmatter.get(key)
        if isinstance(described, str) and described.strip():
            return summary(described)
    label = ""
    for b in parsed.blocks:
        if b.kind == "paragraph" and b.search.strip():
            raw = parsed.lines[b.start : b.end]
            if any(RULE_ID_LINE.match(line) for line in raw):
                # (the Rust Reference's `r[abi.intro]` over its first paragraph is no text a
                # reader sees: its descriptions read "rabi.intro This section documents ...")
                text = summary("\n".join(x for x in raw if not RULE_ID_LINE.match(x)))
            else:
                # (markdown-it's text: `CELERY_`, `__init__.py` and `**kwargs` were read as
                # emphasis again, and `Array<string>` as a tag)
                text = summary(b.search, plain=True)
            if not label and _LABEL.fullmatch(text):
                label = text.rstrip(":")  # (Celery's CLI page and 20 of NumPy's read "Note")
                continue
            if text:
                return f"{label}: {text}" if label else text
    return label
