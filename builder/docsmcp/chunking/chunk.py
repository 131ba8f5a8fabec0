"""Chunking on the markdown-it token stream.

A file becomes a list of top-level blocks (heading, paragraph, code, table, list, html, ...) with
their source line ranges. Blocks are grouped into sections at the configured heading level;
oversize sections are split at finer headings, then between blocks (list items and table rows
being the finest units, a table part repeating its header); tiny chunks merge backwards.
Display text is always a slice of the original lines, never re-rendered markdown.
"""

from __future__ import annotations

import bisect
import json
import re
from collections import defaultdict
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from docsmcp.chunking.blocks import _blocks, markdown_parser
from docsmcp.chunking.levels import section_starts, structural_levels
from docsmcp.model.chunk import Block, Chunk, ParsedFile, Tab
from docsmcp.model.source import SourceFile
from docsmcp.model.text import slugify
from docsmcp.sources.formats.html.html_code import pre_blocks
from docsmcp.sources.formats.markdown import gitbook, markdoc
from docsmcp.sources.formats.markdown.banner import drop_banner
from docsmcp.sources.formats.markdown.dialects import rewrite
from docsmcp.sources.formats.markdown.fences import fenced_lines
from docsmcp.sources.formats.markdown.hidden_elements import drop_unseen
from docsmcp.sources.formats.markdown.mdx import (
    admonitions_to_text,
    code_block_components,
    drop_esm,
    esm_metadata,
    mdx_code_blocks,
    set_html_components,
    written_as_mdx,
)
from docsmcp.sources.formats.markdown.mode_badges import is_badge
from docsmcp.sources.formats.markdown.myst import rewrite_myst
from docsmcp.sources.formats.markdown.readable import reduce
from docsmcp.sources.formats.markdown.twoslash import hide_twoslash
from docsmcp.sources.formats.r.rmarkdown import is_rmarkdown, knit

if TYPE_CHECKING:
    pass

# An explicit heading id usable as it is in a chunk id (no `/` or `#`, which the id grammar uses).
_ANCHOR_ID = re.compile(r"[A-Za-z0-9][\w.:-]*")

SPLIT_LEVEL = {"file": 0, "h1": 1, "h2": 2, "h3": 3}
# Without a manifest's max_chunk_size, sections split above 2,500 characters (as PDFs do): a
# hit is what an agent reads, and 9,000-character reference sections cost more than they
# answer (issue 16, *Smaller, sharper hits*: rust-reference hits 5,600 -> 1,700 characters).
# A manifest's max_chunk_size wins, for tables too: capping tables below it (tried: 2,500) cut
# speakeasy-sdks hits from 3,100 to 1,100 characters but doubled its chunks (10,765 -> 22,919),
# broke the runtime's budgets (cold start 377 ms, RSS 180 MB) and lost 0.026 MRR@5.
DEFAULT_MAX_CHUNK_SIZE = 2500


def _heading_slug(b: Block) -> str:
    """A heading's explicit id (`## Use CORSMiddleware { #use-corsmiddleware }`) is its slug,
    as it is the site's anchor: `get_doc("tutorial/cors.md#use-corsmiddleware")` and the
    `{anchor}` of a source URL reach it (issue 27; it was `title-id`, a dead link)."""
    if b.anchor and _ANCHOR_ID.fullmatch(b.anchor):
        return b.anchor
    return slugify(b.anchor or b.title)


@dataclass
class _Section:
    id: str
    heading: str
    level: int
    trail: tuple[tuple[int, str], ...]  # (level, text) of ancestors and own heading
    blocks: list[Block]
    shallow: bool = False  # starts at a heading shallower than the split level
    segments: list[tuple[int, int]] = field(default_factory=list)
    language: str = ""  # the programming language of a code tab's own chunk
    part: bool = False  # a second or later part of a section split by size (`-part-N` id)


class _Ids:
    """Allocates ids, with '-2', '-3' suffixes counted per parent id."""

    def __init__(self) -> None:
        self._seen: dict[str, dict[str, int]] = defaultdict(dict)

    def child(self, parent: str, slug: str, sep: str) -> str:
        counts = self._seen[parent]
        n = counts.get(slug, 0) + 1
        counts[slug] = n
        return f"{parent}{sep}{slug if n == 1 else f'{slug}-{n}'}"


class _FileChunker:
    def __init__(
        self, sf: SourceFile, lines: list[str], default_max: int, tabbed: bool = False
    ) -> None:
        self.sf = sf
        self.lines = lines
        # With language tabs split out, a chunk's blocks may skip lines of another chunk: its
        # segments then bridge blank lines only.
        self.tabbed = tabbed
        self.max = sf.strategy.max_chunk_size or default_max
        self.ids = _Ids()
        cum = [0]
        for line in lines:
            cum.append(cum[-1] + len(line) + 1)
        self.cum = cum

    def size(self, segments: list[tuple[int, int]]) -> int:
        return sum(self.cum[e] - self.cum[s] for s, e in segments)

    def block_size(self, b: Block) -> int:
        return self.cum[b.end] - self.cum[b.start]

    # -- sections at the split level ---------------------------------------------------------

    def sections(self, blocks: list[Block]) -> list[_Section]:
        path = self.sf.path
        split = SPLIT_LEVEL[self.sf.strategy.chunk_by]
        first_id = path if split == 0 else f"{path}#_preamble"
        current = _Section(first_id, self.sf.title or "", 0, (), [])
        out = [current]
        stack: list[tuple[int, str, str]] = []  # (level, id, text)
        # Split where the page's structure puts a section, not where its markup says, and at
        # each API entry the page's reader registered (levels.py).
        headings = [b for b in blocks if b.kind == "heading"]
        entry_lines = {e.line_start - 1 for e in self.sf.api}
        starts = iter(
            section_starts(
                structural_levels(b.level for b in headings),
                [b.start in entry_lines for b in headings],
                split,
            )
        )
        for b in blocks:
            if b.kind == "heading" and next(starts):
                while stack and stack[-1][0] >= b.level:
                    stack.pop()
                if stack:
                    cid = self.ids.child(stack[-1][1], _heading_slug(b), "/")
                else:
                    cid = self.ids.child(path, _heading_slug(b), "#")
                stack.append((b.level, cid, b.title))
                trail = tuple((lvl, text) for lvl, _, text in stack)
                current = _Section(cid, b.title, b.level, trail, [b], shallow=b.level < split)
                out.append(current)
            else:
                current.blocks.append(b)
        # A heading with nothing under it reads as the title of what follows: merge it forward
        # (so does one whose section holds only React Router's mode badges: mode_badges.py).
        # The carried headings are only joined to the section that keeps them, so a run of
        # bare headings costs linear time and memory (not a growing copy per heading).
        merged: list[_Section] = []
        carry: list[Block] = []
        for k, sec in enumerate(out):
            heading_only = all(
                b.kind == "heading" or (b.kind == "paragraph" and is_badge(b.search))
                for b in sec.blocks
            )
            if (carry or sec.blocks) and heading_only and k + 1 < len(out) and sec.level > 0:
                carry.extend(sec.blocks)
                continue
            if carry:
                sec.blocks = carry + sec.blocks
                carry = []
            merged.append(sec)
        return [s for s in merged if any(b.search.strip() for b in s.blocks)]

    # -- oversize splitting -------------------------------------------------------------------

    # -- language tabs -------------------------------------------------------------------------

    def split_tabs(self, sec: _Section, tabs: tuple[Tab, ...]) -> list[_Section]:
        """`sec` without the blocks of its language tabs, then one section per language holding
        that language's tabs (ids `<sec id>/<language>`), so a language filter sees its tab only.
        Tabs that are not languages (npm/yarn, macOS/Linux) stay in `sec`, labelled."""
        found: dict[str, tuple[str, list[Block]]] = {}
        rest: list[Block] = []
        for b in (piece for block in sec.blocks for piece in self._cut_at_tabs(block, tabs)):
            tab = next((t for t in tabs if t.start <= b.start and b.end <= t.end), None)
            if tab is None:
                rest.append(b)
            else:
                found.setdefault(tab.language, (tab.label, []))[1].append(b)
        if not found:
            return [sec]
        out: list[_Section] = []
        if rest:
            parent = _Section(sec.id, sec.heading, sec.level, sec.trail, rest, sec.shallow)
            parent.segments = self._segments(rest)
            out.append(parent)
        sep = "/" if "#" in sec.id[len(self.sf.path) :] else "#"
        for language, (label, blocks) in found.items():
            cid = self.ids.child(sec.id, slugify(language), sep)
            # The tab's label heads it (its first line), under the section's heading trail.
            trail = (*sec.trail, (sec.level + 1, label))
            child = _Section(cid, label, sec.level, trail, blocks, language=language)
            child.segments = self._segments(blocks)
            out.append(child)
        return out

    def _cut_at_tabs(self, b: Block, tabs: tuple[Tab, ...]) -> list[Block]:
        """`b`, or its pieces when it is a paragraph running across tab boundaries: one-line
        tabs (`<TabItem …>text</TabItem>`) on consecutive lines parse as one paragraph, and each
        tab's text must land in its own language's section."""
        if b.kind != "paragraph":
            return [b]
        cuts = sorted({x for t in tabs for x in (t.start, t.end) if b.start < x < b.end})
        if not cuts:
            return [b]
        edges = [b.start, *cuts, b.end]
        return [
            Block("paragraph", s, e, " ".join(line.strip() for line in self.lines[s:e]).strip())
            for s, e in zip(edges, edges[1:], strict=False)
        ]

    def split(self, sec: _Section) -> list[_Section]:
        span = sec.segments or [(sec.blocks[0].start, sec.blocks[-1].end)]
        limit = self.max
        if self.size(span) <= limit:
            return [sec]
        own = 1 if sec.blocks[0].kind == "heading" and sec.level > 0 else 0
        levels = [b.level for b in sec.blocks[own:] if b.kind == "heading" and b.level > sec.level]
        if levels:
            return [
                part
                for sub in self._split_headings(sec, own, min(levels))
                for part in self.split(sub)
            ]
        return self._split_blocks(sec, limit)

    def _split_headings(self, sec: _Section, own: int, level: int) -> list[_Section]:
        subs: list[_Section] = []
        head: list[Block] = sec.blocks[:own]
        current: _Section | None = None
        sep = "/" if "#" in sec.id[len(self.sf.path) :] else "#"
        for b in sec.blocks[own:]:
            if b.kind == "heading" and b.level == level:
                cid = self.ids.child(sec.id, _heading_slug(b), sep)
                current = _Section(cid, b.title, b.level, sec.trail + ((b.level, b.title),), [b])
                subs.append(current)
            elif current is None:
                head.append(b)
            else:
                current.blocks.append(b)
        if any(b.search.strip() for b in head[own:]):  # (text besides its own heading)
            subs.insert(0, _Section(sec.id, sec.heading, sec.level, sec.trail, head, sec.shallow))
        elif head and subs:  # a bare heading joins the first subsection
            subs[0].blocks = head + subs[0].blocks
        return subs

    def _split_blocks(self, sec: _Section, limit: int) -> list[_Section]:
        items: list[Block] = []
        for b in sec.blocks:
            if b.parts and self.block_size(b) > limit:
                items.extend(b.parts)
            else:
                items.append(b)
        out: list[_Section] = []
        for n, group in enumerate(self._pack(items, limit), start=1):
            if n == 1:
                cid = sec.id
            elif "#" in sec.id[len(self.sf.path) :]:
                cid = f"{sec.id}-part-{n}"
            else:
                cid = f"{sec.id}#_part-{n}"
            part = _Section(cid, sec.heading, sec.level, sec.trail, group, sec.shallow and n == 1)
            part.part = n > 1
            part.segments = self._segments(group)
            out.append(part)
        return out

    def _pack(self, items: list[Block], limit: int) -> list[list[Block]]:
        """Cut `items` into consecutive groups of at most `limit` characters (a group's first
        table row counts its repeated header), never ending a group on a heading.

        Groups are index ranges over `items`, and sizes come from prefix sums: moving the
        trailing headings of a full group into the next one is then O(1), so even a file of
        nothing but headings packs in linear time."""
        sizes = [0]
        for it in items:
            sizes.append(sizes[-1] + self.block_size(it))
        starts = [0]  # first item of each group
        size = 0
        run = 0  # first item of the trailing run of headings in the current group
        for k, it in enumerate(items):
            s = self.block_size(it)
            if it.prefix and not (k > starts[-1] and items[k - 1].prefix == it.prefix):
                s += self.cum[it.prefix[1]] - self.cum[it.prefix[0]]
            if k > starts[-1] and size + s > limit and run > starts[-1]:
                # Never end a part on a heading: it belongs with what it introduces, so a part
                # of nothing but headings takes the next block whatever its size.
                start = max(starts[-1] + 1, run)
                starts.append(start)
                run = start
                size = sizes[k] - sizes[start]
                if it.prefix and (k == start or items[k - 1].prefix != it.prefix):
                    # The new part's first row repeats the table's header: count it.
                    s = self.block_size(it) + self.cum[it.prefix[1]] - self.cum[it.prefix[0]]
            size += s
            if it.kind != "heading":
                run = k + 1
        bounds = [*starts, len(items)]
        return [items[a:b] for a, b in zip(bounds, bounds[1:], strict=False) if a < b]

    def _segments(self, blocks: list[Block]) -> list[tuple[int, int]]:
        segs: list[tuple[int, int]] = []
        prev: Block | None = None
        for b in blocks:
            if b.prefix and not (prev is not None and prev.prefix == b.prefix):
                # A table part repeats its header: a jump back in the file, so only blank
                # lines may be bridged when joining it to what precedes or follows.
                self._append(segs, b.prefix, strict=True)
                self._append(segs, (b.start, b.end), strict=True)
            else:
                self._append(segs, (b.start, b.end), strict=self.tabbed)
            prev = b
        return segs

    def _append(self, segs: list[tuple[int, int]], seg: tuple[int, int], strict: bool) -> int:
        """Add `seg`, joining it to the last segment across a gap (of blank lines only when
        `strict`); returns by how many characters the segments grew."""
        if segs and segs[-1][1] <= seg[0]:
            gap = range(segs[-1][1], seg[0])
            if not strict or not any(self.lines[k].strip() for k in gap):
                grown = self.cum[seg[1]] - self.cum[segs[-1][1]]
                segs[-1] = (segs[-1][0], seg[1])
                return grown
        segs.append(seg)
        return self.cum[seg[1]] - self.cum[seg[0]]

    # -- tiny chunks ---------------------------------------------------------------------------

    def merge_small(self, secs: list[_Section]) -> list[_Section]:
        minimum = self.sf.strategy.min_chunk_size
        out: list[_Section] = []
        last = 0  # size of out[-1], kept up to date so many merges into one chunk stay linear
        for sec in secs:
            size = self.size(sec.segments)
            if (
                out
                and not sec.shallow
                and size < minimum
                and last + size <= self.max
                and out[-1].language == sec.language
            ):
                prev = out[-1]
                prev.blocks.extend(sec.blocks)
                for seg in sec.segments:
                    last += self._append(prev.segments, seg, strict=self.tabbed)
                continue
            sec.blocks = list(sec.blocks)  # its own list: later merges extend it in place
            out.append(sec)
            last = size
        return out

    # -- output --------------------------------------------------------------------------------

    def chunk(self, sec: _Section) -> Chunk:
        text = "\n".join("\n".join(self.lines[s:e]) for s, e in sec.segments).strip("\n")
        search_blocks: list[str] = []
        seen_prefix: tuple[int, int] | None = None
        for b in sec.blocks:
            if b.prefix and b.prefix != seen_prefix and b.kind == "row":
                search_blocks.append(self._header_text(b.prefix))
            seen_prefix = b.prefix
            search_blocks.append(b.search)
        trail = list(sec.trail)
        title = self.sf.title
        if title and not any(level == 1 for level, _ in trail):
            trail.insert(0, (1, title))
        headings = [t for _, t in trail if t]
        if not headings and title:
            headings = [title]
        metadata = self.sf.metadata
        if sec.language:
            metadata = tuple(sorted({**dict(metadata), "language": sec.language}.items()))
        return Chunk(
            id=sec.id,
            path=self.sf.path,
            heading=sec.heading or (title or ""),
            breadcrumb=" > ".join([self.sf.path, *headings]),
            level=sec.level,
            text=text,
            search_text="\n".join(s for s in search_blocks if s.strip()),
            heading_text="\n".join(headings),
            line_start=sec.segments[0][0] + 1,
            line_end=sec.segments[-1][1],
            metadata=metadata,
            pages=self._pages(sec.segments[0][0], sec.segments[-1][1] - 1),
        )

    def _pages(self, first: int, last: int) -> tuple[int, int] | None:
        """1-based page range of 0-based lines first..last of a PDF's text, else None."""
        starts = self.sf.page_starts
        if not starts:
            return None
        a = max(1, bisect.bisect_right(starts, first))
        return a, max(a, bisect.bisect_right(starts, last))

    def _header_text(self, prefix: tuple[int, int]) -> str:
        cells = self.lines[prefix[0]].strip().strip("|").split("|")
        return "\n".join(c.strip() for c in cells if c.strip())


# Files written in markdown: converted pages (PDF, reST, saved HTML) hold no markup of their own
# to reduce, and their `<` and `&` are text.
_ZOLA_ESCAPE = re.compile(r"(\{\{|\{%)/\*[ \t]*(.*?)[ \t]*\*/(\}\}|%\})")
_MARKDOWN = (
    ".md",
    ".mdx",
    ".markdown",
    ".mdown",
    ".mkd",
    ".qmd",
    ".rmd",
    ".rmarkdown",
    *markdoc.SUFFIXES,
)


def _is_mdx(sf: SourceFile, lines: list[str]) -> bool:
    """An `.mdx` file, or a markdown file written as MDX (mdx.written_as_mdx)."""
    if sf.path.endswith(".mdx"):
        return True
    return sf.path.lower().endswith(_MARKDOWN) and not sf.page_starts and written_as_mdx(lines)


def split_lines(
    sf: SourceFile,
) -> tuple[list[str], list[str], tuple[Tab, ...], tuple[tuple[int, str, str], ...]]:
    """(display lines, parse lines, code tabs, links and anchors of the markup reduced) of a
    file; the lines keep the file's numbering."""
    lines = sf.body.split("\n")
    if is_rmarkdown(sf.path):
        lines = knit(lines)  # knitr's chunks and inline code, bookdown's references
    elif sf.path.lower().endswith(".qmd") and "```{" in sf.body:
        lines = knit(lines, book=False)  # Quarto's code chunks: the same syntax
    if sf.path.lower().endswith(_MARKDOWN) and not sf.page_starts:
        if "/*" in sf.body and _ZOLA_ESCAPE.search(sf.body):
            # Zola shows `{{/* get_url() */}}` as `{{ get_url() }}`, in code too (280 escapes
            # of its docs were shown as written: code an agent copies that is no Tera)
            lines = [_ZOLA_ESCAPE.sub(r"\1 \2 \3", line) for line in lines]
        lines = hide_twoslash(drop_banner(lines))
        if "<pre" in sf.body:
            lines = pre_blocks(lines)
        lines = mdx_code_blocks(lines)
    mdx = _is_mdx(sf, lines)
    if mdx:
        lines = drop_esm(code_block_components(set_html_components(lines)))
    elif sf.path.lower().endswith(_MARKDOWN) and not sf.page_starts:
        # Sphinx and Jupyter Book markdown (MDX has no MyST)
        lines = rewrite_myst(lines, dict(sf.link_titles))
        if markdoc.is_markdoc(sf.path, sf.body):  # (before the template rules take its tags)
            lines = markdoc.read(lines, sf.frontmatter)
        elif gitbook.may_hold(sf.body):  # (GitBook's blocks, before the template rules too)
            lines = gitbook.read(lines, fenced_lines(lines), dict(sf.link_titles))
    dialect = rewrite(lines)
    display = admonitions_to_text(dialect.display, hard_break=False)
    parse = admonitions_to_text(dialect.parse)
    if not sf.path.lower().endswith(_MARKDOWN) or sf.page_starts:
        return display, parse, dialect.tabs, ()
    # Markup reduced to the text a reader sees, in what is shown and what is indexed alike.
    display, parse, markup = reduce(display, parse, mdx)
    return display, parse, dialect.tabs, markup


def parse_file(sf: SourceFile) -> ParsedFile:
    if sf.path.endswith(".mdx") and "export " in sf.body:
        sf = _with_esm_metadata(sf)
    display, parse, tabs, markup = split_lines(sf)
    tokens = markdown_parser().parse("\n".join(parse))
    return ParsedFile(sf, display, tokens, _blocks(tokens), tabs, markup)


# Inline markup: blanked in the parse lines of a file indexed as plain text, so that the parse
# is linear (links, images, code spans, emphasis and raw HTML are where markdown-it's quadratic
# paths are).
_INLINE_MARKUP = re.compile(r"[\[\]!<>`*_\\]")


def parse_plain(sf: SourceFile) -> ParsedFile:
    """`sf` as plain text: its lines shown as they are, their headings, lists, paragraphs and
    tables still found, no inline markup. For a file whose parse ran past its budget
    (common/budget.py); `sf` as read, before any conversion, but for what no reader of the
    rendered page sees (comments, hidden elements, scripts: hidden_elements.drop_unseen; the setup
    and markers of twoslash blocks: twoslash.hide_twoslash)."""
    lines = sf.body.split("\n")
    if is_rmarkdown(sf.path):
        lines = knit(lines)
    if sf.path.lower().endswith(_MARKDOWN) and not sf.page_starts:
        lines = drop_unseen(hide_twoslash(lines), _is_mdx(sf, lines))
    tokens = markdown_parser().parse("\n".join(_INLINE_MARKUP.sub(" ", line) for line in lines))
    return ParsedFile(sf, lines, tokens, _blocks(tokens))


def _with_esm_metadata(sf: SourceFile) -> SourceFile:
    """`sf` with the title and description its MDX exports give, where frontmatter gives none
    (the description joins the frontmatter JSON, where `get_page` and the page table read it)."""
    exported = esm_metadata(sf.body.split("\n"))
    if not exported:
        return sf
    frontmatter = json.loads(sf.frontmatter)
    if "description" in exported and not frontmatter.get("description"):
        frontmatter["description"] = exported["description"]
    return replace(
        sf,
        title=sf.title or exported.get("title"),
        frontmatter=json.dumps(frontmatter, ensure_ascii=False, sort_keys=True),
    )


def chunk_parsed(parsed: ParsedFile, default_max: int = DEFAULT_MAX_CHUNK_SIZE) -> list[Chunk]:
    tabs = tuple(t for t in parsed.tabs if t.language)
    fc = _FileChunker(parsed.source, parsed.lines, default_max, tabbed=bool(tabs))
    sections: list[_Section] = []
    for whole in fc.sections(parsed.blocks):
        for sec in fc.split_tabs(whole, tabs) if tabs else [whole]:
            for part in fc.split(sec):
                if not part.segments:
                    part.segments = fc._segments(part.blocks)
                part.language = sec.language
                sections.append(part)
    sections = fc.merge_small(sections)
    _unique_ids(sections)
    return [fc.chunk(s) for s in sections]


def _unique_ids(sections: list[_Section]) -> None:
    """A part's id (`x-part-2`) can be a heading's (win32's factoid pages: a table under
    "Korean Factoids" split in parts, then "## Korean Factoids, part 2"): the heading keeps its
    id (the one its slug gives), the part takes `-2`, `-3`, ... (one not taken in the file)."""
    if len({s.id for s in sections}) == len(sections):
        return
    taken = {s.id for s in sections if not s.part}
    for s in sections:
        if s.part:
            if s.id in taken:
                n = 2
                while f"{s.id}-{n}" in taken:
                    n += 1
                s.id = f"{s.id}-{n}"
            taken.add(s.id)


def chunk_file(sf: SourceFile, default_max: int = DEFAULT_MAX_CHUNK_SIZE) -> list[Chunk]:
    return chunk_parsed(parse_file(sf), default_max)
