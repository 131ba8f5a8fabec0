"""What changed between two bundles of the same documentation: which sections were added,
removed, changed or moved. Used by the builder's `docsmcp diff OLD NEW` and by the runtime's
`compare_versions` tool when a server holds several versions of one library (libraries/).

A section is a chunk. Sections are paired in three stages, each over what the earlier ones left:

1. **id**: the same chunk id (`path#heading-slugs`) on both sides;
2. **heading**: the same heading trail (the breadcrumb without its leading file path:
   `Title > Section`, compared casefolded with whitespace collapsed) and a word similarity of at
   least `HEADING_SIMILARITY`, so a page that moved keeps its sections and a page that happens to
   share a title with an unrelated one does not;
3. **text**: a word similarity of at least `min_similarity` (default `MIN_SIMILARITY`), for pages
   and headings that were both renamed.

Similarity is `difflib.SequenceMatcher.ratio()` over whitespace-separated words. Stage 3 never
compares every pair: chunks are cut into word 3-gram shingles, candidate pairs are found through
a shingle index in numpy (shingles present in more than `COMMON_SHINGLE` chunks of either side
propose nothing), each chunk keeps its `CANDIDATES` best pairs by shingle Jaccard, and only those
pairs get SequenceMatcher's length and multiset upper bounds, then a full ratio. Within a stage
pairs are taken greedily: best similarity first, then the pair whose paths share more trailing
segments (`manuals/a.md` goes to `guides/manuals/a.md` rather than to `sdk/a.md`), then bundle
order, so the result is deterministic. Sections with identical words pair first without any
SequenceMatcher (they are the pairs of similarity 1.0 the greedy choice would take first).

Bundles are opened with the runtime's reader without sha256 checks (sizes, shapes and metadata
are still checked; `docsmcp verify` checks the rest): a bundle it cannot open is one line, exit 2.

A pair with the same id is `unchanged` when the texts are equal, else `changed`; a pair whose id
differs is `moved` (the page moved or was renamed, or the heading was renamed), with or without
text changes. The others are `added` or `removed`. Changed and moved sections with text changes
carry a short unified diff of the chunk texts (at most `EXCERPT_LINES` lines, `EXCERPT_CHARS`
characters; line numbers are those of the source files).
"""

from __future__ import annotations

import dataclasses
import os
from collections import Counter
from typing import Any

import pyarrow as pa

from ..errors import BundleError
from ..records import record
from .reader import Bundle, open_bundle

SCHEMA = "docsmcp-diff/1"
# Kinds of entries, in the order reports list and count them.
KINDS = ("added", "removed", "changed", "moved", "unchanged")
# Kinds that reports list entry by entry (unchanged sections are only counted).
LISTED = KINDS[:4]
# How a pair was found.
MATCH_STAGES = ("id", "heading", "text")
MIN_SIMILARITY = 0.5


class DiffError(Exception):
    """A bundle cannot be read; the message is one line."""


@record
class Section:
    """One chunk of a bundle, as the diff sees it."""

    row: int
    id: str
    path: str
    heading: str  # the heading trail: breadcrumb minus the leading path, "Title > Section"
    line_start: int
    line_end: int
    text: str


@record
class Side:
    """One bundle: where it is, what it is called, its sections in bundle order."""

    location: str
    name: str
    bundle_id: str
    sections: tuple[Section, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "bundle": self.location,
            "name": self.name,
            "bundle_id": self.bundle_id,
            "sections": len(self.sections),
        }


@record
class Match:
    old: int  # row in the old bundle
    new: int  # row in the new bundle
    stage: str  # MATCH_STAGES
    similarity: float


@record
class Entry:
    kind: str  # KINDS
    old: Section | None
    new: Section | None
    match: str | None = None  # MATCH_STAGES, None for added and removed
    similarity: float | None = None
    excerpt: str | None = None

    @property
    def heading(self) -> str:
        section = self.new if self.new is not None else self.old
        assert section is not None
        return section.heading

    def to_json(self) -> dict[str, Any]:
        old, new = self.old, self.new
        return {
            "kind": self.kind,
            "match": self.match,
            "old_id": old.id if old else None,
            "new_id": new.id if new else None,
            "heading": self.heading,
            "old_heading": old.heading if old else None,
            "old_path": old.path if old else None,
            "new_path": new.path if new else None,
            "old_lines": [old.line_start, old.line_end] if old else None,
            "new_lines": [new.line_start, new.line_end] if new else None,
            "similarity": None if self.similarity is None else round(self.similarity, 3),
            "excerpt": self.excerpt,
        }


@record
class PageMove:
    old_path: str
    new_path: str
    sections: int  # sections matched between the two files

    def to_json(self) -> dict[str, Any]:
        return {"old_path": self.old_path, "new_path": self.new_path, "sections": self.sections}


@record
class Report:
    old: Side
    new: Side
    entries: tuple[Entry, ...]  # every section of both sides, in KINDS order, then bundle order
    pages_added: tuple[str, ...]
    pages_removed: tuple[str, ...]
    pages_moved: tuple[PageMove, ...]

    @property
    def counts(self) -> dict[str, int]:
        counts = Counter(e.kind for e in self.entries)
        return {kind: counts[kind] for kind in KINDS}

    def listed(self, limit: int | None = None) -> list[Entry]:
        """The entries a report lists: all but unchanged ones, at most `limit` of each kind."""
        shown: Counter[str] = Counter()
        entries = []
        for entry in self.entries:
            if entry.kind in LISTED and (limit is None or shown[entry.kind] < limit):
                shown[entry.kind] += 1
                entries.append(entry)
        return entries

    def under(self, prefix: str) -> Report:
        """The report restricted to pages under the path `prefix` (either side's path)."""

        def inside(path: str | None) -> bool:
            return path is not None and path.startswith(prefix)

        return dataclasses.replace(
            self,
            entries=tuple(
                e
                for e in self.entries
                if inside(e.old.path if e.old else None) or inside(e.new.path if e.new else None)
            ),
            pages_added=tuple(p for p in self.pages_added if inside(p)),
            pages_removed=tuple(p for p in self.pages_removed if inside(p)),
            pages_moved=tuple(
                m for m in self.pages_moved if inside(m.old_path) or inside(m.new_path)
            ),
        )

    def to_json(self, limit: int | None = None) -> dict[str, Any]:
        listed = self.listed(limit)
        return {
            "schema": SCHEMA,
            "old": self.old.to_json(),
            "new": self.new.to_json(),
            "counts": self.counts,
            "pages": {
                "added": list(self.pages_added),
                "removed": list(self.pages_removed),
                "moved": [m.to_json() for m in self.pages_moved],
            },
            "entries": [e.to_json() for e in listed],
            "omitted": {k: self.counts[k] - sum(e.kind == k for e in listed) for k in LISTED},
        }


# --- reading -----------------------------------------------------------------------------------


def load_side(location: str | os.PathLike[str]) -> Side:
    """The sections of a bundle directory; DiffError (one line) when it is not a readable one."""
    try:
        bundle = open_bundle(location, verify=False)
    except BundleError as exc:
        raise DiffError(_one_line(str(exc))) from None
    return side_of(bundle, str(location))


def side_of(bundle: Bundle, location: str) -> Side:
    """The sections of an opened bundle (ids without any library prefix)."""
    try:
        paths = bundle.paths.to_pylist()
        crumbs = bundle.breadcrumbs.to_pylist()
        sections = tuple(
            Section(
                row=row,
                id=cid,
                path=path,
                heading=_trail(path, crumb),
                line_start=int(bundle.line_starts[row]),
                line_end=int(bundle.line_ends[row]),
                text=bundle.text(row),
            )
            for row, (cid, path, crumb) in enumerate(
                zip(bundle.ids.to_pylist(), paths, crumbs, strict=True)
            )
        )
    except (OSError, ValueError, pa.ArrowException) as exc:  # text unreadable after open
        raise DiffError(f"{location}: unreadable bundle ({_one_line(str(exc))})") from None
    return Side(location, bundle.metadata.name, bundle.metadata.bundle_id, sections)


def _trail(path: str, breadcrumb: str) -> str:
    """The breadcrumb's headings (`Title > Section`), without the leading file path."""
    prefix = f"{path} > "
    if breadcrumb.startswith(prefix):
        return breadcrumb[len(prefix) :]
    return "" if breadcrumb == path else breadcrumb


def _one_line(text: str) -> str:
    return " ".join(text.split())
