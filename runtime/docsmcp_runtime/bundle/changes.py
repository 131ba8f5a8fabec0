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
import difflib
import os
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from ..errors import BundleError
from .reader import Bundle, open_bundle

SCHEMA = "docsmcp-diff/1"
# Kinds of entries, in the order reports list and count them.
KINDS = ("added", "removed", "changed", "moved", "unchanged")
# Kinds that reports list entry by entry (unchanged sections are only counted).
LISTED = KINDS[:4]
# How a pair was found.
MATCH_STAGES = ("id", "heading", "text")
MIN_SIMILARITY = 0.5
HEADING_SIMILARITY = 0.3
SHINGLE = 3
COMMON_SHINGLE = 32
CANDIDATES = 8
JACCARD_FLOOR = 0.05
# A heading trail shared by more pairs than this (after identical texts) is left to the text
# stage; identical texts repeated in more pairs than this pair in bundle order.
HEADING_GROUP_MAX = 4096
IDENTICAL_GROUP_MAX = 4096
EXCERPT_LINES = 12
EXCERPT_CHARS = 800
EXCERPT_LINE_CHARS = 160

_SPACE = re.compile(r"\s+")


class DiffError(Exception):
    """A bundle cannot be read; the message is one line."""


@dataclass(frozen=True)
class Section:
    """One chunk of a bundle, as the diff sees it."""

    row: int
    id: str
    path: str
    heading: str  # the heading trail: breadcrumb minus the leading path, "Title > Section"
    line_start: int
    line_end: int
    text: str


@dataclass(frozen=True)
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


@dataclass(frozen=True)
class Match:
    old: int  # row in the old bundle
    new: int  # row in the new bundle
    stage: str  # MATCH_STAGES
    similarity: float


@dataclass(frozen=True)
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


@dataclass(frozen=True)
class PageMove:
    old_path: str
    new_path: str
    sections: int  # sections matched between the two files

    def to_json(self) -> dict[str, Any]:
        return {"old_path": self.old_path, "new_path": self.new_path, "sections": self.sections}


@dataclass(frozen=True)
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


# --- matching ----------------------------------------------------------------------------------


def _words(text: str) -> list[str]:
    return text.split()


def _key(heading: str) -> str:
    return _SPACE.sub(" ", heading).strip().casefold()


def _common_suffix(a: str, b: str) -> int:
    """How many trailing path segments two paths share (`x/a/b.md`, `y/a/b.md`: 2)."""
    n = 0
    for x, y in zip(reversed(a.split("/")), reversed(b.split("/")), strict=False):
        if x != y:
            break
        n += 1
    return n


def similarity(a: Sequence[str], b: Sequence[str], floor: float = 0.0) -> float:
    """SequenceMatcher ratio of two word lists; 0.0 when it is certainly below `floor` (checked
    with the length bound, then the multiset bound, before the full ratio)."""
    if a == b:
        return 1.0
    if not a or not b:
        return 0.0
    matcher = difflib.SequenceMatcher(None, a, b)
    if floor > 0 and (matcher.real_quick_ratio() < floor or matcher.quick_ratio() < floor):
        return 0.0
    return matcher.ratio()


def _greedy(
    scored: Iterable[tuple[float, int, int]], old: Side, new: Side, taken_old: set, taken_new: set
) -> list[tuple[int, int, float]]:
    """Pairs best first (similarity, then most path segments in common from the end, then
    bundle order), each row once."""
    ranked = sorted(
        scored,
        key=lambda s: (
            -s[0],
            -_common_suffix(old.sections[s[1]].path, new.sections[s[2]].path),
            s[1],
            s[2],
        ),
    )
    chosen = []
    for score, o, n in ranked:
        if o in taken_old or n in taken_new:
            continue
        taken_old.add(o)
        taken_new.add(n)
        chosen.append((o, n, score))
    return chosen


def _shingles(words: Sequence[str], vocabulary: dict[tuple[str, ...], int]) -> np.ndarray:
    if len(words) < SHINGLE:
        grams: Iterable[tuple[str, ...]] = [tuple(words)] if words else []
    else:
        grams = zip(*(words[i:] for i in range(SHINGLE)), strict=False)
    ids = {vocabulary.setdefault(g, len(vocabulary)) for g in grams}
    return np.fromiter(sorted(ids), dtype=np.int64, count=len(ids))


def _candidates(old_sets: list[np.ndarray], new_sets: list[np.ndarray]) -> np.ndarray:
    """Candidate pairs (i, j) of indices into old_sets / new_sets: pairs sharing a shingle that
    is not common, with a Jaccard of at least JACCARD_FLOOR, among the CANDIDATES best of either
    chunk. An int64 array of shape (k, 2), sorted."""
    empty = np.zeros((0, 2), dtype=np.int64)
    if not old_sets or not new_sets:
        return empty
    size_o = np.array([len(s) for s in old_sets], dtype=np.int64)
    size_n = np.array([len(s) for s in new_sets], dtype=np.int64)
    ho = np.concatenate(old_sets)
    hn = np.concatenate(new_sets)
    ro = np.repeat(np.arange(len(old_sets), dtype=np.int64), size_o)
    rn = np.repeat(np.arange(len(new_sets), dtype=np.int64), size_n)
    if not len(ho) or not len(hn):
        return empty
    common = np.union1d(*(_frequent(h) for h in (ho, hn)))
    keep_o = ~np.isin(ho, common)
    keep_n = ~np.isin(hn, common)
    ho, ro, hn, rn = ho[keep_o], ro[keep_o], hn[keep_n], rn[keep_n]
    order = np.argsort(ho, kind="stable")
    ho, ro = ho[order], ro[order]
    left = np.searchsorted(ho, hn, side="left")
    count = np.searchsorted(ho, hn, side="right") - left
    total = int(count.sum())
    if not total:
        return empty
    starts = np.repeat(left - (np.cumsum(count) - count), count)
    old_rows = ro[starts + np.arange(total)]
    new_rows = np.repeat(rn, count)
    keys, overlap = np.unique(old_rows * len(new_sets) + new_rows, return_counts=True)
    i, j = keys // len(new_sets), keys % len(new_sets)
    jaccard = overlap / (size_o[i] + size_n[j] - overlap)
    keep = jaccard >= JACCARD_FLOOR
    i, j, jaccard = i[keep], j[keep], jaccard[keep]
    best = _top(i, j, jaccard) | _top(j, i, jaccard)
    return np.stack([i[best], j[best]], axis=1)


def _frequent(hashes: np.ndarray) -> np.ndarray:
    values, counts = np.unique(hashes, return_counts=True)
    return values[counts > COMMON_SHINGLE]


def _top(group: np.ndarray, other: np.ndarray, score: np.ndarray) -> np.ndarray:
    """Mask of the CANDIDATES best pairs of each `group` value (ties: lower `other` first)."""
    order = np.lexsort((other, -score, group))
    g = group[order]
    first = np.searchsorted(g, g, side="left")
    rank = np.arange(len(g)) - first
    mask = np.zeros(len(g), dtype=bool)
    mask[order] = rank < CANDIDATES
    return mask


def _identical(
    olds: Sequence[int], news: Sequence[int], old_words: list, new_words: list
) -> list[tuple[float, int, int]]:
    """Pairs of rows with the same words (similarity 1.0, no SequenceMatcher needed). A text
    repeated in more than IDENTICAL_GROUP_MAX pairs is paired in bundle order instead."""
    by_text: dict[tuple[str, ...], list[int]] = defaultdict(list)
    for n in news:
        by_text[tuple(new_words[n])].append(n)
    same: dict[tuple[str, ...], list[int]] = defaultdict(list)
    for o in olds:
        key = tuple(old_words[o])
        if key in by_text:
            same[key].append(o)
    pairs = []
    for key, rows in same.items():
        targets = by_text[key]
        if len(rows) * len(targets) > IDENTICAL_GROUP_MAX:
            pairs.extend((1.0, o, n) for o, n in zip(rows, targets, strict=False))
        else:
            pairs.extend((1.0, o, n) for o in rows for n in targets)
    return pairs


def match(old: Side, new: Side, min_similarity: float = MIN_SIMILARITY) -> list[Match]:
    """Pair the sections of two bundles: by id, then heading trail, then text (module doc).
    Within the heading and text stages, sections with identical words pair first: they are
    the pairs of similarity 1.0 that the greedy choice would take first anyway."""
    old_words = [_words(s.text) for s in old.sections]
    new_words = [_words(s.text) for s in new.sections]
    matches: list[Match] = []
    taken_old: set[int] = set()
    taken_new: set[int] = set()

    def take(scored: Iterable[tuple[float, int, int]], stage: str) -> None:
        for o, n, score in _greedy(scored, old, new, taken_old, taken_new):
            matches.append(Match(o, n, stage, score))

    new_by_id = {s.id: s.row for s in new.sections}
    for s in old.sections:
        n = new_by_id.get(s.id)
        if n is not None:
            matches.append(Match(s.row, n, "id", similarity(old_words[s.row], new_words[n])))
            taken_old.add(s.row)
            taken_new.add(n)

    old_groups: dict[str, list[int]] = defaultdict(list)
    new_groups: dict[str, list[int]] = defaultdict(list)
    for side, taken, groups in ((old, taken_old, old_groups), (new, taken_new, new_groups)):
        for s in side.sections:
            if s.row not in taken and _key(s.heading):
                groups[_key(s.heading)].append(s.row)
    keys = sorted(old_groups.keys() & new_groups.keys())
    take(
        (p for k in keys for p in _identical(old_groups[k], new_groups[k], old_words, new_words)),
        "heading",
    )
    scored = []
    for key in keys:
        olds = [o for o in old_groups[key] if o not in taken_old]
        news = [n for n in new_groups[key] if n not in taken_new]
        if len(olds) * len(news) > HEADING_GROUP_MAX:
            continue
        for o in olds:
            for n in news:
                score = similarity(old_words[o], new_words[n], HEADING_SIMILARITY)
                if score >= HEADING_SIMILARITY:
                    scored.append((score, o, n))
    take(scored, "heading")

    rest_old = [s.row for s in old.sections if s.row not in taken_old]
    rest_new = [s.row for s in new.sections if s.row not in taken_new]
    take(_identical(rest_old, rest_new, old_words, new_words), "text")
    rest_old = [r for r in rest_old if r not in taken_old]
    rest_new = [r for r in rest_new if r not in taken_new]
    vocabulary: dict[tuple[str, ...], int] = {}
    pairs = _candidates(
        [_shingles(old_words[r], vocabulary) for r in rest_old],
        [_shingles(new_words[r], vocabulary) for r in rest_new],
    )
    scored = []
    for i, j in pairs.tolist():
        o, n = rest_old[i], rest_new[j]
        score = similarity(old_words[o], new_words[n], min_similarity)
        if score >= min_similarity:
            scored.append((score, o, n))
    take(scored, "text")
    return sorted(matches, key=lambda m: (m.new, m.old))


# --- classifying -------------------------------------------------------------------------------


def classify(old: Side, new: Side, matches: Sequence[Match]) -> Report:
    """Entries for every section of both sides, and the page-level summary."""
    entries: list[tuple[tuple[int, int], Entry]] = []
    matched_old = {m.old for m in matches}
    matched_new = {m.new for m in matches}
    for m in matches:
        a, b = old.sections[m.old], new.sections[m.new]
        same_text = a.text == b.text
        kind = "moved" if a.id != b.id else "unchanged" if same_text else "changed"
        entry = Entry(
            kind=kind,
            old=a,
            new=b,
            match=m.stage,
            similarity=1.0 if same_text else m.similarity,
            excerpt=None if same_text else excerpt(a, b),
        )
        entries.append(((KINDS.index(kind), m.new), entry))
    for s in new.sections:
        if s.row not in matched_new:
            entries.append(((KINDS.index("added"), s.row), Entry("added", None, s)))
    for s in old.sections:
        if s.row not in matched_old:
            entries.append(((KINDS.index("removed"), s.row), Entry("removed", s, None)))
    entries.sort(key=lambda item: item[0])

    old_paths = {s.path for s in old.sections}
    new_paths = {s.path for s in new.sections}
    moves: Counter[tuple[str, str]] = Counter()
    for m in matches:
        a, b = old.sections[m.old].path, new.sections[m.new].path
        if a not in new_paths and b not in old_paths:
            moves[(a, b)] += 1
    # Each vanished page goes to the new page that took most of its sections, and vice versa.
    page_moves: list[PageMove] = []
    used_old: set[str] = set()
    used_new: set[str] = set()
    for (a, b), n in sorted(moves.items(), key=lambda item: (-item[1], item[0])):
        if a not in used_old and b not in used_new:
            used_old.add(a)
            used_new.add(b)
            page_moves.append(PageMove(a, b, n))
    page_moves.sort(key=lambda p: (p.new_path, p.old_path))
    return Report(
        old=old,
        new=new,
        entries=tuple(e for _, e in entries),
        pages_added=tuple(sorted(new_paths - old_paths - used_new)),
        pages_removed=tuple(sorted(old_paths - new_paths - used_old)),
        pages_moved=tuple(page_moves),
    )


def excerpt(old: Section, new: Section) -> str | None:
    """A few lines of unified diff of two chunk texts (file line numbers, one line of context),
    at most EXCERPT_LINES lines and EXCERPT_CHARS characters; None when the texts are equal."""
    a, b = old.text.splitlines(), new.text.splitlines()
    if a == b:
        return None
    lines: list[str] = []
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for group in matcher.get_grouped_opcodes(1):
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        lines.append(
            f"@@ -{_range(old.line_start + i1, i2 - i1)} +{_range(new.line_start + j1, j2 - j1)} @@"
        )
        for tag, x1, x2, y1, y2 in group:
            if tag == "equal":
                lines.extend(" " + _clip(line, 0) for line in a[x1:x2])
                continue
            olds, news = a[x1:x2], b[y1:y2]
            # Where a line was edited in place, show the part around the first difference.
            starts = [_first_difference(p, q) for p, q in zip(olds, news, strict=False)]
            starts += [0] * (max(len(olds), len(news)) - len(starts))
            lines.extend("-" + _clip(line, starts[k]) for k, line in enumerate(olds))
            lines.extend("+" + _clip(line, starts[k]) for k, line in enumerate(news))
        if len(lines) > EXCERPT_LINES:
            break
    return _bound(lines) or None


def _range(start: int, length: int) -> str:
    if length == 1:
        return str(start)
    if length == 0:
        return f"{start - 1},0"
    return f"{start},{length}"


def _first_difference(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def _clip(line: str, difference: int) -> str:
    """A diff line cut to EXCERPT_LINE_CHARS, keeping the first difference in view."""
    line = line.rstrip()
    if len(line) <= EXCERPT_LINE_CHARS:
        return line
    start = max(0, min(difference - EXCERPT_LINE_CHARS // 3, len(line) - EXCERPT_LINE_CHARS))
    head = "…" if start else ""
    width = EXCERPT_LINE_CHARS - len(head)
    body = line[start : start + width]
    if start + width < len(line):
        body = body[:-1] + "…"
    return head + body


def _bound(lines: list[str]) -> str:
    """Join lines, keeping at most EXCERPT_LINES lines and EXCERPT_CHARS characters; a cut is
    marked by a last line `…`."""
    kept: list[str] = []
    size = 0
    for n, line in enumerate(lines):
        rest = len(lines) - n - 1
        cost = len(line) + (1 if kept else 0)
        room_lines = EXCERPT_LINES - (1 if rest else 0)
        room_chars = EXCERPT_CHARS - (2 if rest else 0)
        if len(kept) + 1 > room_lines or size + cost > room_chars:
            kept.append("…")
            break
        kept.append(line)
        size += cost
    return "\n".join(kept)


def diff_bundles(
    old: str | os.PathLike[str],
    new: str | os.PathLike[str],
    min_similarity: float = MIN_SIMILARITY,
) -> Report:
    """Read two bundles and report what changed from `old` to `new` (DiffError: unreadable)."""
    a, b = load_side(old), load_side(new)
    return classify(a, b, match(a, b, min_similarity))
