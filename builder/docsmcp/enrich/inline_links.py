"""Where xref.py finds links in a file's tokens: the links of a markdown inline token (markdown
links and HTML `href`s, with the line each stands on and its text, `MAX_ANCHOR_CHARS` at most),
the `href` of an HTML tag (`HTML_HREF`), and the line of an offset in a block's text (`Lines`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from markdown_it.token import Token

HTML_HREF = re.compile(r"\bhref\s*=\s*[\"']([^\"'<>\n]{1,2000})[\"']")


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
            for m in HTML_HREF.finditer(child.content):
                yield offset, m.group(1), ""
        elif kind == "text" or kind == "code_inline":
            if open_at is not None:
                words.append(child.content)
            if "\n" in child.content:
                offset += child.content.count("\n")
    if open_at is not None:
        yield open_at[0], open_at[1], _link_text(words)


# At most this many characters of one link's text are kept as anchor text.
MAX_ANCHOR_CHARS = 200


def _link_text(words: list[str]) -> str:
    return " ".join("".join(words).split())[:MAX_ANCHOR_CHARS]
