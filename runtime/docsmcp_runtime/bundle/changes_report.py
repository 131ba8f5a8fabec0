"""From pairs to a report: each section `added`, `removed`, `changed`, `moved` or `unchanged`, with
a short unified diff of changed texts; `diff_bundles` runs the whole comparison.
"""

from __future__ import annotations

import difflib
import os
from collections import Counter
from collections.abc import Sequence

from .changes import KINDS, MIN_SIMILARITY, Entry, Match, PageMove, Report, Section, Side, load_side
from .changes_match import match

EXCERPT_LINES = 12


EXCERPT_CHARS = 800


EXCERPT_LINE_CHARS = 160


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
