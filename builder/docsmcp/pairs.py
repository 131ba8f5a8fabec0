"""(query, section) pairs the docs already hold, mined from a built bundle: the one home of the
training data of `docsmcp adapt` (static table) and `docsmcp finetune` (sentence-transformers).

Queries are what the docs say about their own sections, no LLM and no labels:
- a heading, and the last two headings of its breadcrumb -> its section;
- a page's frontmatter title and description -> the page's first section;
- an API name -> the section defining it;
- a link's anchor text -> the section it links to (inline `[text](href)`, reference-style
  `[text][label]` and `[text]` with the page's `[label]: href` definitions), where the href
  names one of the sections the builder resolved for that chunk (sections.parquet `references`).
A query text naming several sections ("Example", "Usage") is ambiguous and left out: in a batch
it would make the other sections false negatives. Sections' bodies lose their heading lines, so
a heading is not trivially matched by its own words.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TypeVar

import pyarrow.parquet as pq
from docsmcp_runtime.format import API_FILE, CHUNKS_FILE, PAGES_FILE, SECTIONS_FILE
from docsmcp_runtime.format.ranking import EMBEDDING_INPUT

# A mined query text naming more sections than this is ambiguous: left out.
MAX_QUERY_TARGETS = 1
MIN_QUERY_CHARS = 3
# Anchor texts longer than this are sentences, not names of the target.
MAX_ANCHOR_CHARS = 120

# `[text](href)` (not an image), `[text][label]`, and `[text]` alone; group 1 the text.
_INLINE = re.compile(r"(?<!!)\[([^\[\]\n]+)\]\(\s*<?([^()\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_REFERENCE = re.compile(r"(?<![!\]])\[([^\[\]\n]+)\](?:\[([^\[\]\n]*)\])?(?![(:\[])")
_DEFINITION = re.compile(r"^[ \t]{0,3}\[([^\[\]\n]+)\]:[ \t]*<?(\S+?)>?(?:[ \t]+.*)?$", re.M)
_INLINE_MARKUP = re.compile(r"[`*_]")
# Stripped from both ends of an anchor text (PDF links keep the brackets around them).
_LOOSE_PUNCTUATION = " \t()[]'\"\u2018\u2019\u201c\u201d.,;:"


class PairsError(Exception):
    """The folder is no bundle (message is shown to the user)."""


@dataclass(frozen=True)
class Mined:
    docs: list[str]  # one per section, what the builder embeds
    bodies: list[str]  # one per section, its text without the heading trail
    pages: list[int]  # page number of each section (siblings share it)
    queries: list[str]
    targets: list[int]  # the section each query names
    kinds: list[str]  # what each query is: heading, title, api, anchor


def _headings(breadcrumb: str, path: str) -> list[str]:
    parts = [p.strip() for p in breadcrumb.split(" > ")]
    if parts and parts[0] == path:
        parts = parts[1:]
    return [p for p in parts if p]


def _strip_heading_lines(text: str) -> str:
    return "\n".join(line for line in text.split("\n") if not line.lstrip().startswith("#"))


def _slug(text: str) -> str:
    """Anchors compared as xref does: lowercase letters and digits only."""
    return "".join(ch for ch in text.lower() if ch.isalnum())


def _stem(path: str) -> str:
    return posixpath.splitext(posixpath.basename(path))[0].lower()


def _links(text: str, definitions: dict[str, str]) -> list[tuple[str, str]]:
    """(anchor text, href) of the links in one chunk's markdown. A reference-style link whose
    definition is not in the bundle (chunk texts drop definition lines) gets `#label` as its
    href: its label names the target's heading (`[Timeouts]`, `[trait objects]`)."""
    out = [(m.group(1), m.group(2)) for m in _INLINE.finditer(text)]
    for m in _REFERENCE.finditer(text):
        label = (m.group(2) or m.group(1)).strip()
        href = definitions.get(label.lower()) or ("#" + label if m.group(2) is not None
                                                  or _slug(label) else "")  # fmt: skip
        if href.strip("#"):
            out.append((m.group(1), href))
    return out


def _anchor_targets(
    href: str, candidates: list[int], heads: list[list[str]], paths: list[str], first: set[int]
) -> int | None:
    """The one section among the chunk's resolved `candidates` that `href` names."""
    file, _, fragment = href.partition("#")
    if fragment:
        key = _slug(fragment)
        hits = [t for t in candidates if heads[t] and _slug(heads[t][-1]) == key]
        if not hits and not file:  # a bare label: a page's name, plural or not
            key = key.removesuffix("s")
            hits = [t for t in candidates if t in first and
                    _slug(_stem(paths[t])).removesuffix("s") == key]  # fmt: skip
        if file:
            hits = [t for t in hits if _stem(paths[t]) == _stem(file)]
    elif file:
        hits = [t for t in candidates if t in first and _stem(paths[t]) == _stem(file)]
    else:
        return None
    return hits[0] if len(hits) == 1 else None


def mine(bundle: Path) -> Mined:
    """Sections and (query, section) pairs from a built bundle, in bundle order."""
    bundle = Path(bundle)
    try:
        chunks = pq.read_table(bundle / CHUNKS_FILE, columns=["path", "breadcrumb", "text"])
    except (OSError, ValueError) as exc:
        raise PairsError(f"{bundle}: not a docsmcp bundle ({exc})") from None
    paths = chunks.column("path").to_pylist()
    crumbs = chunks.column("breadcrumb").to_pylist()
    texts = chunks.column("text").to_pylist()
    page_of: dict[str, int] = {}
    docs, bodies, pages, heads_of = [], [], [], []
    candidates: dict[str, set[int]] = {}
    kind_of: dict[str, str] = {}

    def offer(query: str | None, row: int, kind: str) -> None:
        query = " ".join((query or "").split())
        if len(query) >= MIN_QUERY_CHARS:
            candidates.setdefault(query, set()).add(row)
            kind_of.setdefault(query, kind)

    for row, (path, crumb, text) in enumerate(zip(paths, crumbs, texts, strict=True)):
        heads = _headings(crumb or "", path)
        heads_of.append(heads)
        docs.append(EMBEDDING_INPUT.format(headings=" > ".join(heads) or path, text=text))
        body = _strip_heading_lines(text).strip()
        bodies.append(body or text)
        pages.append(page_of.setdefault(path, len(page_of)))
        if heads:
            offer(heads[-1], row, "heading")
            if len(heads) > 1:
                offer(" ".join(heads[-2:]), row, "heading")
    first_row: dict[str, int] = {}
    for row, path in enumerate(paths):
        first_row.setdefault(path, row)
    if (bundle / PAGES_FILE).is_file():
        table = pq.read_table(bundle / PAGES_FILE, columns=["path", "title", "description"])
        for path, title, description in zip(
            *(table.column(c).to_pylist() for c in table.column_names), strict=True
        ):
            row = first_row.get(path)
            if row is not None:
                offer(title, row, "title")
                offer(description, row, "title")
    if (bundle / API_FILE).is_file():
        table = pq.read_table(bundle / API_FILE, columns=["name", "row"])
        for name, row in zip(
            *(table.column(c).to_pylist() for c in table.column_names), strict=True
        ):
            if row is not None and 0 <= int(row) < len(docs):
                offer(name, int(row), "api")
    if (bundle / SECTIONS_FILE).is_file():
        references = pq.read_table(bundle / SECTIONS_FILE, columns=["references"])
        _mine_anchors(references.column("references").to_pylist(), paths, texts, heads_of,
                      set(first_row.values()), offer)  # fmt: skip
    queries, targets, kinds = [], [], []
    for query in sorted(candidates):
        rows = candidates[query]
        if len(rows) <= MAX_QUERY_TARGETS:
            queries.append(query)
            targets.append(min(rows))
            kinds.append(kind_of[query])
    return Mined(docs, bodies, pages, queries, targets, kinds)


def _mine_anchors(references, paths, texts, heads, first: set[int], offer) -> None:
    definitions: dict[str, dict[str, str]] = {}
    for path, text in zip(paths, texts, strict=True):
        if "]:" in text:
            page = definitions.setdefault(path, {})
            for m in _DEFINITION.finditer(text):
                page.setdefault(m.group(1).strip().lower(), m.group(2))
    for row, targets in enumerate(references):
        targets = [int(t) for t in targets or () if int(t) != row and 0 <= int(t) < len(paths)]
        if not targets:
            continue
        for text, href in _links(texts[row], definitions.get(paths[row], {})):
            target = _anchor_targets(href, targets, heads, paths, first)
            anchor = _INLINE_MARKUP.sub("", text).strip(_LOOSE_PUNCTUATION)
            if target is not None and len(anchor) <= MAX_ANCHOR_CHARS:
                offer(anchor, target, "anchor")


Options = TypeVar("Options")


def with_overrides(options: Options, items: list[str]) -> Options:
    """`options` (a frozen dataclass of a training command) with the hidden `--set NAME=VALUE`
    experiments of `docsmcp adapt`/`finetune` applied, each parsed as its field's type (bool:
    1/true/yes). ValueError names an unknown field or a value of the wrong type."""
    fields = options.__dataclass_fields__  # type: ignore[attr-defined]
    for item in items:
        name, _, value = item.partition("=")
        if name not in fields:
            raise ValueError(f"--set {item}: no such option")
        kind = type(getattr(options, name))
        try:
            parsed = value.lower() in ("1", "true", "yes") if kind is bool else kind(value)
        except ValueError:
            raise ValueError(f"--set {item}: expected {kind.__name__}") from None
        options = replace(options, **{name: parsed})  # type: ignore[type-var]
    return options
