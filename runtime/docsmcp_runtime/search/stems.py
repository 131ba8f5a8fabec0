"""Stem variants (bundle-spec.md, *Stem variants*): the dictionary's words grouped by their
inflection stem (Porter2's first steps: porter2.inflection_stem), so a query word also reaches
the other inflections of its word at a lower weight (`lexical.stem_weight`).

The index keeps words as written (plurals folded: analyzer.stem). Stemming every word instead,
with the whole of Porter2, lifted the real sites of session 7 (page MRR 0.885 -> 0.897:
"render a list" finds *Rendering Lists*) but cost every dev set (dev-cases 0.774 -> 0.737).
Variants keep the exact term at full weight and add the other forms at a share of theirs; the
inflection stem, not the whole algorithm, because derivations conflate meanings the docs keep
apart (`operator` and `operation`, `custom` and `customer`): measured in docs/search.md.

The builder writes the groups (`stem_rings`), the runtime walks them (`StemRings.variants`);
both take the rule of which terms are words from here.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable

import numpy as np

from .porter2 import inflection_stem

# Terms of one group reached from a query word, at most (a group of dozens of forms is a stem
# that conflates unrelated words; the walk is bounded for a hostile file too).
MAX_VARIANTS = 32


def is_word(term: str) -> bool:
    """Whether a dictionary term takes part: lower-case ASCII letters only, three or more
    (identifiers' wholes, numbers, bigrams and non-English words do not)."""
    return len(term) > 2 and term.isascii() and term.isalpha() and term.islower()


def stem_rings(terms: Iterable[tuple[int, str]]) -> np.ndarray:
    """The `stem_rings.bin` array of a dictionary, given as (term id, term) in ascending id
    (terms that are no words may be left out): one row per term that shares its Porter2 stem
    with another term, in ascending term id, as (term id, row of the next term of its group);
    a group's rows in ascending id, its last row pointing at its first. uint32 [m, 2]; m = 0
    where no two words share a stem."""
    groups: dict[str, list[int]] = {}
    for tid, term in terms:
        if is_word(term):
            groups.setdefault(inflection_stem(term), []).append(tid)
    members = sorted(t for g in groups.values() if len(g) > 1 for t in g)
    row = {tid: i for i, tid in enumerate(members)}
    rings = np.zeros((len(members), 2), np.uint32)
    rings[:, 0] = members
    for group in groups.values():
        if len(group) > 1:
            for a, b in zip(group, group[1:] + group[:1], strict=True):
                rings[row[a], 1] = row[b]
    return rings


def surface_forms(stem: str) -> tuple[str, ...]:
    """The forms tried for a query word absent from the dictionary, in order: the stem itself
    (`rendering` -> `render`), the stem + "e" (`configuring` -> `configur` -> `configure`), and
    for a stem ending in "i" the stem with "y" for it (`applying` -> `appli` -> `apply`)."""
    forms = (stem, stem + "e")
    return (*forms, stem[:-1] + "y") if stem.endswith("i") else forms


class StemRings:
    """A bundle's stem groups (`stem_rings.bin`, checked at open: term ids ascending and within
    the dictionary, next rows within the array)."""

    def __init__(self, rings: np.ndarray) -> None:
        native = np.asarray(rings, dtype=rings.dtype.newbyteorder("="))
        # Python ints by index and a C bisect over them, as the Lexicon's offsets.
        self._terms = memoryview(np.ascontiguousarray(native[:, 0]))
        self._next = memoryview(np.ascontiguousarray(native[:, 1]))

    def group(self, tid: int) -> list[int]:
        """The term ids of `tid`'s group, `tid` first, at most MAX_VARIANTS + 1 ([tid] when it
        shares its stem with no other term)."""
        at = bisect.bisect_left(self._terms, tid)
        if at == len(self._terms) or self._terms[at] != tid:
            return [tid]
        found = [tid]
        row = self._next[at]
        while row != at and len(found) <= MAX_VARIANTS:
            found.append(self._terms[row])
            row = self._next[row]
        return found

    def variants(
        self, term: str, tid: int | None, lookup: Callable[[str], int | None]
    ) -> list[int]:
        """The ids of the other terms of `term`'s stem group (`tid`: its id, None when the
        dictionary lacks it). A word absent from the dictionary reaches the group of its first
        `surface_forms` that is a term of the same stem, or the stem + e."""
        if not is_word(term):
            return []
        if tid is not None:
            return self.group(tid)[1:]
        stem = inflection_stem(term)
        for form in surface_forms(stem):
            # The stem of a verb in -e keeps it (`configure`), its -ing form's loses it.
            same = inflection_stem(form) == stem or form == stem + "e"
            if form != term and is_word(form) and same:
                found = lookup(form)
                if found is not None:
                    return self.group(found)
        return []
