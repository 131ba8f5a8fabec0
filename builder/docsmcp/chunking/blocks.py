"""Markdown parsing for the chunker: the markdown-it parser (with the fast paths of mdfast.py) and
its tokens turned into top-level blocks with their line ranges and block-aware search text.
"""

from __future__ import annotations

import re
from functools import cache
from typing import TYPE_CHECKING

from docsmcp.model.chunk import Block
from docsmcp.sources.formats.markdown.dialects import EXPLICIT_ID

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token


_TAG = re.compile(r"<[^>]*>")
# String props of JSX/HTML tags that hold reader-facing text (`<Card title="Install">`).
_TEXT_PROP = re.compile(
    r"""\b(?:title|description|label|alt|caption|summary|content|text|heading|subtitle)"""
    r"""=(?:"([^"<>]*)"|'([^'<>]*)'|\{["']([^"'<>{}]*)["']\})"""
)


@cache
def markdown_parser() -> MarkdownIt:
    """Made on first parse: a rebuild whose files all come from the parse cache never imports
    markdown-it."""
    from markdown_it import MarkdownIt

    from docsmcp.sources.formats.markdown.mdfast import install as install_fast_paths

    return install_fast_paths(MarkdownIt("commonmark").enable(["table", "strikethrough"]))


def _inline_text(token: Token) -> str:
    children = token.children
    if not children:
        return ""
    if len(children) == 1:  # most cells and paragraphs: one text token
        only = children[0]
        if only.type in ("text", "code_inline", "image"):
            return only.content
    out: list[str] = []
    for child in children:
        if child.type in ("text", "code_inline"):
            out.append(child.content)
        elif child.type == "softbreak":
            out.append(" ")
        elif child.type == "hardbreak":
            out.append("\n")
        elif child.type == "image":
            out.append(child.content)
    return "".join(out)


def _heading_text(token: Token) -> str:
    """A heading's inline text as a reader sees it: images (a README's status badges,
    `# Serilog [![Build status](…)](…)`) show as pictures, not as their alt text, so they are
    left out when the heading has words of its own; a heading that is only an image keeps its
    alt text."""
    children = token.children or []
    if any(c.type == "image" for c in children):
        kept = [c for c in children if c.type != "image"]
        words = "".join(c.content for c in kept if c.type in ("text", "code_inline"))
        if words.strip():  # (the spaces around a badge close up)
            return " ".join(_inline_text(token.copy(children=kept)).split())
    return _inline_text(token).strip()


def _strip_tags(html: str) -> str:
    """`html` with every `<...>` replaced by a space. Only the text up to the last `>` can hold a
    tag: after it, each `<` would make the regex scan to the end in vain (quadratic in a block
    of unclosed `<!--` lines)."""
    end = html.rfind(">") + 1
    return _TAG.sub(_tag_text, html[:end]) + html[end:]


def _tag_text(tag: re.Match[str]) -> str:
    """A tag as the text its string props show the reader (` Install `), else a space."""
    if "=" not in tag.group(0):
        return " "
    props = [
        next(g for g in m.groups() if g is not None) for m in _TEXT_PROP.finditer(tag.group(0))
    ]
    return " " + " ".join(p.strip() for p in props if p.strip()) + " " if props else " "


def _token_text(t: Token) -> str | None:
    """The searchable text of one token of a group, None for a token without any."""
    kind = t.type
    if kind == "inline":
        return _inline_text(t)
    if kind in ("fence", "code_block"):
        return t.content.rstrip("\n")
    if kind == "html_block":
        return _strip_tags(t.content).strip()
    return None


def _group_text(tokens: list[Token]) -> str:
    """Searchable text of a token group: each paragraph, cell, item or code block on a line."""
    out: list[str] = []
    for t in tokens:
        text = _token_text(t)
        if text is not None and text.strip():
            out.append(text)
    return "\n".join(out)


def _blocks(tokens: list[Token]) -> list[Block]:
    blocks: list[Block] = []
    i = 0
    while i < len(tokens):
        t = tokens[i]
        j = i
        if t.nesting == 1:
            while tokens[j].level != 0 or tokens[j].nesting != -1:
                j += 1
        group = tokens[i : j + 1]
        i = j + 1
        if t.map is None:
            continue
        start, end = t.map
        if t.type == "heading_open":
            title = _heading_text(group[1])
            explicit = EXPLICIT_ID.search(title)
            anchor = explicit.group(1) if explicit else ""
            title = title[: explicit.start()] if explicit else title
            blocks.append(Block("heading", start, end, title, int(t.tag[1]), title, anchor=anchor))
        elif t.type == "table_open":
            blocks.append(_table_block(group, start, end))
        elif t.type in ("bullet_list_open", "ordered_list_open"):
            blocks.append(_list_block(group, start, end))
        elif t.type in ("fence", "code_block"):
            blocks.append(Block("code", start, end, _group_text(group)))
        elif t.type == "paragraph_open":
            blocks.append(Block("paragraph", start, end, _group_text(group)))
        elif t.type == "html_block":
            blocks.append(Block("html", start, end, _group_text(group)))
        elif t.type == "blockquote_open":
            blocks.append(Block("blockquote", start, end, _group_text(group)))
        else:
            blocks.append(Block("other", start, end, _group_text(group)))
    return blocks


def _table_block(group: list[Token], start: int, end: int) -> Block:
    """A table and its body rows (each repeating the header lines, `prefix`). Each token's
    text is made once: the table's text is its rows' texts in order."""
    header_end = start
    texts: list[str] = []  # the non-blank texts of the table's tokens, in order
    rows: list[tuple[int, int, int, int]] = []  # body rows: lines, and their slice of `texts`
    in_body = False
    tr: Token | None = None  # the open row
    first = 0  # where the open row's texts begin
    for t in group:
        kind = t.type
        if kind == "tbody_open" and t.map:
            header_end = t.map[0]
            in_body = True
        if kind == "tr_open":
            tr, first = t, len(texts)
            continue
        text = _token_text(t)
        if text is not None and text.strip():
            texts.append(text)
        if kind == "tr_close" and tr is not None:
            if in_body and tr.map:
                rows.append((tr.map[0], tr.map[1], first, len(texts)))
            tr = None
    if header_end == start:  # a table with no body rows
        header_end = end
    prefix = (start, header_end)
    parts = tuple(Block("row", s, e, "\n".join(texts[a:b]), prefix=prefix) for s, e, a, b in rows)
    return Block("table", start, end, "\n".join(texts), parts=parts)


def _list_block(group: list[Token], start: int, end: int) -> Block:
    items: list[Block] = []
    bounds = [t.map[0] for t in group if t.type == "list_item_open" and t.level == 1 and t.map]
    bounds.append(end)
    item_tokens: list[list[Token]] = []
    for t in group[1:-1]:
        if t.type == "list_item_open" and t.level == 1:
            item_tokens.append([])
        if item_tokens:
            item_tokens[-1].append(t)
    for k, toks in enumerate(item_tokens):
        items.append(Block("item", bounds[k], bounds[k + 1], _group_text(toks)))
    return Block("list", start, end, _group_text(group), parts=tuple(items))
