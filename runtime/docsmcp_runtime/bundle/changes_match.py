"""Pairing the sections of two bundles in three stages (id, heading trail, text), greedily, with
shingle candidates so that the text stage never compares every pair (changes.py tells how).
"""

from __future__ import annotations

import difflib
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence

import numpy as np

from .changes import MIN_SIMILARITY, Match, Side

HEADING_SIMILARITY = 0.3


SHINGLE = 3


COMMON_SHINGLE = 32


CANDIDATES = 8


JACCARD_FLOOR = 0.05


# A heading trail shared by more pairs than this (after identical texts) is left to the text
# stage; identical texts repeated in more pairs than this pair in bundle order.
HEADING_GROUP_MAX = 4096


IDENTICAL_GROUP_MAX = 4096


_SPACE = re.compile(r"\s+")


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
