"""Page-level evidence of the full-text index (bundle-spec.md, *Full-text index*): the `page`
field every chunk of a page carries (its title, what its frontmatter says about it, its lead
paragraph), and how informative each chunk's own heading is across the corpus.

Docs sites are read page by page: a reader who asks for "rendering a list" wants the page
titled *Rendering Lists*, even from a section whose own words are about keys or filters. What
Algolia DocSearch does with its hierarchy levels (`lvl0`, `lvl1`, `content`), the `page` field
does here: every section is also indexed under its page's words. Headings that repeat on many
pages ("Fields", "Applying on hover", "Customizing your theme") say little about which page
answers, so their weight shrinks with the number of pages they appear on.
"""

from __future__ import annotations

import hashlib
import json
import re
from array import array

import numpy as np

from docsmcp.model.chunk import Block, Chunk, ParsedFile
from docsmcp.sources.files import CODE_PAGE_SUFFIXES

# Frontmatter keys whose text describes a page (strings, or lists of strings).
PAGE_KEYS = ("description", "keywords", "tags", "summary")
# The lead paragraph is cut at this many characters (at a word boundary): a page's opening
# sentences, not its first section again.
LEAD_CHARS = 300
_SPACE = re.compile(r"\s+")


def page_text(frontmatter: str) -> str:
    """PAGE_KEYS of a file's frontmatter (canonical JSON), one value per line."""
    try:
        data = json.loads(frontmatter)
    except ValueError:
        return ""
    if not isinstance(data, dict):
        return ""
    lines: list[str] = []
    for key in PAGE_KEYS:
        value = data.get(key)
        values = value if isinstance(value, list) else [value]
        lines.extend(v.strip() for v in values if isinstance(v, str) and v.strip())
    return "\n".join(lines)


def lead_text(blocks: list[Block]) -> str:
    """The page's lead: its first paragraph before any heading below level 1, cut at
    LEAD_CHARS on a word boundary ("" when a level-2+ heading or nothing comes first)."""
    for b in blocks:
        if b.kind == "heading" and b.level > 1:
            return ""
        if b.kind == "paragraph":
            text = _SPACE.sub(" ", b.search).strip()
            if len(text) <= LEAD_CHARS:
                return text
            cut = text.rfind(" ", 0, LEAD_CHARS + 1)
            return text[: cut if cut > 0 else LEAD_CHARS]
    return ""


def page_title(parsed: ParsedFile) -> str:
    """The page's title (its frontmatter title, else its first level-1 heading), and on a line
    of its own the title its site's navigation file gives it (navfiles.py) when that differs."""
    title = (parsed.source.title or "").strip()
    if not title:
        title = next(
            (b.title.strip() for b in parsed.blocks if b.kind == "heading" and b.level == 1), ""
        )
    nav = parsed.source.nav_title.strip()
    if nav and nav.casefold() != title.casefold():
        return f"{title}\n{nav}" if title else nav
    return title


def page_field(parsed: ParsedFile) -> str:
    """The `page` field of every chunk of a file: title (and navigation title), frontmatter
    description and keywords, one per line (bigrams never cross them). Its lead paragraph is
    the `lead` field (`lead_text`)."""
    parts = (page_title(parsed), page_text(parsed.source.frontmatter))
    return "\n".join(p for p in parts if p)


def page_of(chunk: Chunk) -> str:
    """Which page a chunk is on, for counting the pages a heading is on: its path without its
    suffix and the folders named by one of its taxonomy values, so the copies of a page in
    version or language folders (`2025-06-18/…`, `python/…`) count once, while "Fields" on
    2,000 model pages counts 2,000 times."""
    values = {value for _, value in chunk.metadata}
    folders, _, name = chunk.path.rpartition("/")
    kept = [f for f in folders.split("/") if f and f not in values] if folders else []
    stem = name.rsplit(".", 1)[0] or name  # `widgets.md` and `widgets.mdx` alike
    return "/".join([*kept, stem])


def heading_key(heading: str) -> int:
    """A chunk's own heading as an informativeness key: case-folded, whitespace collapsed,
    hashed to 63 bits (deterministic; 0 for no heading, which is never discounted)."""
    text = _SPACE.sub(" ", heading).strip().casefold()
    if not text:
        return 0
    digest = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return (int.from_bytes(digest, "little") >> 1) or 1


def heading_factors(keys: array, pages: array, alpha: float) -> np.ndarray:
    """Per chunk, the factor of its `heading` field: 1 / (1 + alpha · ln n), n the number of
    distinct pages with a chunk of the same own heading (`keys`: `heading_key` of each chunk's
    heading; `pages`: of its `page_of`); 1 for chunks without a heading, or when alpha is 0."""
    key = _keys(keys)
    if not len(key) or alpha <= 0:
        return np.ones(len(key), np.float64)
    pairs = np.unique(np.stack([key, np.asarray(pages, np.int64)], axis=1), axis=0)
    return _discount(key, pairs[:, 0], alpha)


def shared_factors(keys: array, alpha: float) -> np.ndarray:
    """Per chunk, the factor of its `trail`, `page` and `lead` fields: 1 / (1 + alpha · ln n),
    n the chunks with the same key (`heading_key` of `member_key`; 0, never discounted, for a
    chunk that is no API member). The words of a class's name, package and summary are on
    every one of its members: on 117 of circe's `Decoder` members "decode … into … type class"
    ranked them all above the guide, and `Selector`'s lead ("CSS-like element selector")
    lifted each of its members above `Element.select` for "select elements with CSS selector".
    They say which member answers as little as a heading on a hundred pages does
    (heading_factors); the member's own heading and text keep their weight."""
    key = _keys(keys)
    if not len(key) or alpha <= 0:
        return np.ones(len(key), np.float64)
    return _discount(key, key, alpha)


def _keys(keys: array) -> np.ndarray:
    return np.frombuffer(keys, np.int64) if keys.itemsize == 8 else np.asarray(keys, np.int64)


def _discount(key: np.ndarray, counted: np.ndarray, alpha: float) -> np.ndarray:
    """1 / (1 + alpha · ln n) per `key`, n its occurrences in `counted`; 1 for key 0."""
    distinct, counts = np.unique(counted, return_counts=True)
    n = counts[np.searchsorted(distinct, key)].astype(np.float64)
    factor = 1.0 / (1.0 + alpha * np.log(n))
    factor[key == 0] = 1.0
    return factor


# The last separator of a qualified name as code readers write a member's heading
# (`Element.select`, `sf::RenderWindow::close`, `Foo#bar`): what is before it names the type.
_QUALIFIER = re.compile(r"^(.+?)(?:\.|::|#)([^.:#\s]+)$")


def member_headings(chunks: list[Chunk], api: tuple) -> dict[int, str]:
    """Per chunk row of a page a code reader made, the heading its `heading` field is indexed
    with when it is an API member's (`Type.member`, the qualified entry name ending in it, with
    headings above it): the member's own name alone. The type's name is in the trail and page
    fields above every member (discounted: shared_factors); in each heading it gave all of
    `Selector`'s members `selector` at heading weight, and `Element.cssSelector` the bigram
    "element css" of "select elements with CSS selector" (session 18). `api`: the file's
    records' (entry, row) pairs. A nested type keeps its heading (`Http2Connection.Listener`):
    it is named so, and its members' trails hold that name too."""
    out: dict[int, str] = {}
    for entry, row in api:
        if row in out or not 0 <= row < len(chunks) or entry.inherited or entry.kind == "type":
            continue
        chunk = chunks[row]
        heading = chunk.heading.strip()
        if "\n" not in chunk.heading_text or not (
            entry.name == heading or entry.name.endswith(("." + heading, "::" + heading))
        ):
            continue
        if m := _QUALIFIER.match(heading):
            out[row] = m.group(2)
    return out


def member_key(page: str, trail: str) -> str:
    """What an API member's chunk shares with the other members of its type: its page and the
    headings above it (the type, its package); "" for a chunk with nothing above it."""
    return f"{page}\n{trail}" if trail else ""


def is_code_page(path: str) -> bool:
    """Whether a page is one a reader of code made (a class's, a module's, a header's), whose
    members' headings and shared fields are weighed as members' (member_headings, member_key)."""
    return path.lower().endswith(CODE_PAGE_SUFFIXES)
