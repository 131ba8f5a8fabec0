"""Query → ranked, filtered, paginated hits with snippets (the search_docs semantics)."""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from .bundle import Bundle
from .lexical import Lexicon, query_terms, score

SNIPPET_CHARS = 240
# When `language` is filtered and `scope` is not, guides for every language stay visible.
AUTO_INCLUDE = ("language", "scope", "global-guide")


@dataclass(frozen=True)
class Page:
    rows: list[int]
    scores: list[float]
    total: int
    suggested_filters: dict[str, list[str]]
    corpus_matches: int  # matches ignoring filters, for the zero-result hint


class Searcher:
    def __init__(self, bundle: Bundle) -> None:
        self.bundle = bundle
        self.lexicon = Lexicon(bundle.arrays)
        self.facets = bundle.arrays["facets"]
        self.taxonomy = bundle.metadata["taxonomy"]
        self.keys = bundle.taxonomy_keys
        self.phrase_weight = float(bundle.metadata["lexical"]["phrase_weight"])

    def _code(self, key: str, value: str) -> int:
        return self.taxonomy[key]["values"].index(value) + 1

    def _column(self, key: str) -> np.ndarray:
        return self.facets[:, self.keys.index(key)]

    def mask(self, filters: dict[str, str]) -> np.ndarray:
        mask = np.ones(self.bundle.n_chunks, dtype=bool)
        lang, scope, guide = AUTO_INCLUDE
        for key, value in filters.items():
            selected = self._column(key) == self._code(key, value)
            if (
                key == lang
                and scope not in filters
                and scope in self.taxonomy
                and guide in self.taxonomy[scope]["values"]
            ):
                selected |= self._column(scope) == self._code(scope, guide)
            mask &= selected
        return mask

    def search(self, query: str, filters: dict[str, str], offset: int, limit: int) -> Page:
        terms, bigrams = query_terms(query, self.bundle.analyzer)
        scores = score(self.lexicon, self.bundle.n_chunks, terms, bigrams, self.phrase_weight)
        matched = scores > 0
        candidates = np.flatnonzero(matched & self.mask(filters))
        total = len(candidates)
        end = offset + limit
        if total > end:
            # Keep everything scoring at least the end-th best, ties included, so the row-order
            # tie-break below decides which equal-scored chunks make the page.
            cand_scores = scores[candidates]
            threshold = -np.partition(-cand_scores, end - 1)[end - 1]
            candidates = candidates[cand_scores >= threshold]
        # Highest score first; equal scores in bundle order, so pages are stable.
        order = np.lexsort((candidates, -scores[candidates]))
        rows = candidates[order][offset:end]
        suggested: dict[str, list[str]] = {}
        if total == 0 and filters:
            suggested = self._suggest(matched, filters)
        return Page(
            rows=[int(r) for r in rows],
            scores=[float(scores[r]) for r in rows],
            total=total,
            suggested_filters=suggested,
            corpus_matches=int(matched.sum()),
        )

    def _suggest(self, matched: np.ndarray, filters: dict[str, str]) -> dict[str, list[str]]:
        """For each active filter: the other values that would give matches, the rest kept."""
        out: dict[str, list[str]] = {}
        for key in filters:
            others = {k: v for k, v in filters.items() if k != key}
            rows = matched & self.mask(others)
            codes = np.unique(self._column(key)[rows])
            values = self.taxonomy[key]["values"]
            found = sorted(values[c - 1] for c in codes if c > 0 and values[c - 1] != filters[key])
            if found:
                out[key] = found
        return out


_WORD = re.compile(r"\w+", re.UNICODE)


def snippet_pattern(query: str) -> re.Pattern[str] | None:
    """One alternation over the query's words, so each snippet is a single regex pass.

    Matching word starts by prefix also catches plurals and camelCase heads ("link" in
    "links", "linksUpsert").
    """
    words = sorted({w.lower() for w in _WORD.findall(query) if len(w) > 1}, key=len, reverse=True)
    if not words:
        return None
    stems = [re.escape(w[:-1] if len(w) > 4 else w) for w in words]
    return re.compile(r"(?<!\w)(?:" + "|".join(stems) + ")", re.IGNORECASE)


def snippet(text: str, pattern: re.Pattern[str] | None, width: int = SNIPPET_CHARS) -> str:
    """A window of the original text (original case) around the densest cluster of query words."""
    flat = " ".join(text.split())
    if len(flat) <= width:
        return flat
    hits = [(m.start(), m.group().lower()) for m in pattern.finditer(flat)] if pattern else []
    start = 0
    if hits:
        # Sliding window over match positions: the start whose window holds most distinct words.
        best, best_count = hits[0][0], 0
        inside: dict[str, int] = {}
        j = 0
        for pos, word in hits:
            while j < len(hits) and hits[j][0] < pos + width - 60:
                inside[hits[j][1]] = inside.get(hits[j][1], 0) + 1
                j += 1
            if len(inside) > best_count:
                best, best_count = pos, len(inside)
            inside[word] -= 1
            if not inside[word]:
                del inside[word]
        start = max(0, best - 60)
    end = min(len(flat), start + width)
    start = max(0, end - width)
    if start > 0:
        space = flat.find(" ", start)
        start = space + 1 if 0 <= space < start + 20 else start
    if end < len(flat):
        space = flat.rfind(" ", start, end)
        end = space if space > end - 20 else end
    return ("…" if start > 0 else "") + flat[start:end].strip() + ("…" if end < len(flat) else "")
