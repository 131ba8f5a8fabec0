"""Where xref.py finds links in a file's tokens: the links of a markdown inline token (markdown
links, HTML `href`s and docfx's `@uid` shorthand, with the line each stands on and its text,
`MAX_ANCHOR_CHARS` at most), the `href`s of HTML (`html_hrefs`: docfx's `<xref href>` tag as
`xref:uid`), and the line of an offset in a block's text (`Lines`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from markdown_it.token import Token

HTML_HREF = re.compile(r"\bhref\s*=\s*[\"']([^\"'<>\n]{1,2000})[\"']")
# docfx's cross reference scheme: a link to `xref:uid` is to the page whose front matter says
# `uid: uid` (a page's routes hold `xref:` + its uid); one naming no page of the corpus (a .NET
# type of Microsoft's xrefmap) counts for nothing, as another project's object does.
XREF = "xref:"
# docfx's HTML form of `<xref:uid>`: `<xref href="uid" displayProperty="name"/>` (its href is a
# uid, no file: docfx's own docs counted two as links to no page).
_XREF_TAG = re.compile(r"<xref\s[^<>\n]{0,200}?\bhref\s*=\s*[\"']([^\"'<>\n]{1,2000})[\"']", re.I)
# docfx's shorthand `@uid`: a letter after `@` (not within a word: `me@example.com`), up to
# white space or punctuation before white space or the end, or two punctuation marks; or a
# quoted uid, `@"System.String?text=string"`.
_XREF_SHORT = re.compile(
    r"(?<![\w@`])@(?:\"([^\"\n]{1,500})\"|'([^'\n]{1,500})'|"
    r"([A-Za-z][^\s]{0,500}?)(?=[.,;:!?`~]?(?:\s|$)|[.,;:!?`~]{2}))"
)


class Lines:
    """Line of an offset in a text, for offsets visited in increasing order (linear overall,
    where counting newlines from the start for each match would be quadratic)."""

    def __init__(self, text: str, first: int) -> None:
        self.text = text
        self.pos = 0
        self.line = first

    def at(self, pos: int) -> int:
        if pos > self.pos:
            self.line += self.text.count("\n", self.pos, pos)
            self.pos = pos
        return self.line


def inline_links(token: Token) -> Iterator[tuple[int, str, str]]:
    """(line offset in the block, href, link text) of each link in an inline token (the text
    of an HTML link is "")."""
    offset = 0
    open_at: tuple[int, str] | None = None  # the markdown link being read: (offset, href)
    words: list[str] = []
    for child in token.children or ():
        kind = child.type
        if kind == "softbreak" or kind == "hardbreak":
            offset += 1
            words.append(" ")
        elif kind == "link_open":
            href = child.attrs.get("href")
            if open_at is not None:  # nested (invalid in markdown): the outer one ends here
                yield open_at[0], open_at[1], _link_text(words)
            open_at = (offset, href) if isinstance(href, str) else None
            words = []
        elif kind == "link_close":
            if open_at is not None:
                yield open_at[0], open_at[1], _link_text(words)
            open_at = None
        elif kind == "html_inline" and "href" in child.content:
            for _, href in html_hrefs(child.content):
                yield offset, href, ""
        elif kind == "text" or kind == "code_inline":
            if open_at is not None:
                words.append(child.content)
            elif kind == "text" and "@" in child.content:
                for m in _XREF_SHORT.finditer(child.content):
                    uid = next(g for g in m.groups() if g is not None)
                    yield offset + child.content.count("\n", 0, m.start()), XREF + uid, ""
            if "\n" in child.content:
                offset += child.content.count("\n")
    if open_at is not None:
        yield open_at[0], open_at[1], _link_text(words)


def html_hrefs(html: str) -> Iterator[tuple[int, str]]:
    """(offset, href) of each `href` in `html`; a docfx `<xref href="uid"/>` tag's as `xref:uid`
    (what `<xref:uid>` names)."""
    tags = {m.start(1): m.group(1) for m in _XREF_TAG.finditer(html)} if "<xref" in html else {}
    for m in HTML_HREF.finditer(html):
        uid = tags.get(m.start(1))
        yield m.start(), m.group(1) if uid is None else XREF + uid


# At most this many characters of one link's text are kept as anchor text.
MAX_ANCHOR_CHARS = 200


def _link_text(words: list[str]) -> str:
    return " ".join("".join(words).split())[:MAX_ANCHOR_CHARS]
