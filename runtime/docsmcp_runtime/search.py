"""Query → ranked, filtered, paginated hits with snippets (the search_docs semantics)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from .bundle import Bundle
from .embedding import EmbeddingError, QueryEmbedder
from .lexical import Lexicon, query_terms, score
from .vectors import VectorIndex

SNIPPET_CHARS = 240
# When `language` is filtered and `scope` is not, guides for every language stay visible.
AUTO_INCLUDE = ("language", "scope", "global-guide")


@dataclass(frozen=True)
class Fusion:
    """Weighted Reciprocal Rank Fusion of the full-text, proximity and vector lists."""

    k: float = 60.0
    lexical: float = 1.0
    proximity: float = 0.0
    vector: float = 1.0
    depth: int = 200  # candidates taken from each list

    @classmethod
    def from_spec(cls, spec: dict | None, override: dict[str, float] | None = None) -> Fusion:
        fields = dict((spec or {}).get("weights", {}))
        fields.update(override or {})
        return cls(k=float((spec or {}).get("k", 60.0)), **{k: float(v) for k, v in fields.items()})


def parse_fusion_weights(text: str | None) -> dict[str, float]:
    """`lexical=1,vector=0.5` → {"lexical": 1.0, "vector": 0.5}; ValueError when malformed."""
    weights: dict[str, float] = {}
    for item in (text or "").split(","):
        if not item.strip():
            continue
        name, sep, value = item.partition("=")
        name = name.strip()
        if not sep or name not in ("lexical", "proximity", "vector"):
            raise ValueError(f"expected lexical=W, proximity=W or vector=W, got {item.strip()!r}")
        weights[name] = float(value)
        if not weights[name] >= 0:
            raise ValueError(f"weight {name} must be a number >= 0")
    return weights


@dataclass(frozen=True)
class SearchOptions:
    """Runtime overrides of the bundle's hybrid-search settings (flags or environment)."""

    fusion: tuple[tuple[str, float], ...] = ()
    similarity_floor: float | None = None


@dataclass(frozen=True)
class Page:
    rows: list[int]
    scores: list[float]
    total: int
    suggested_filters: dict[str, list[str]]
    corpus_matches: int  # matches ignoring filters, for the zero-result hint
    also_in: list[dict[str, list[str]]] = field(default_factory=list)  # per row, collapsed variants
    degraded: str | None = None  # why vector search was skipped for this query


class Searcher:
    def __init__(
        self,
        bundle: Bundle,
        embedder: QueryEmbedder | None = None,
        fusion: dict[str, float] | None = None,
        similarity_floor: float | None = None,
    ) -> None:
        self.bundle = bundle
        self.lexicon = Lexicon(bundle.arrays)
        self.facets = bundle.arrays["facets"]
        self.taxonomy = bundle.metadata["taxonomy"]
        self.keys = bundle.taxonomy_keys
        self.phrase_weight = float(bundle.metadata["lexical"]["phrase_weight"])
        spec = bundle.metadata.get("embedding")
        self.vectors = VectorIndex(bundle.arrays, spec) if spec else None
        self.embedder = embedder
        self.fusion = Fusion.from_spec(spec and spec.get("fusion"), fusion)
        floor = similarity_floor
        if floor is None:
            floor = (spec or {}).get("similarity_floor")
        self.floor = float(floor if floor is not None else 0.0)
        self.collapse_similarity = float((spec or {}).get("collapse_similarity", 0.0))
        self.collapse_keys = [k for k, v in self.taxonomy.items() if v.get("vector_collapse")]

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

    def embed_query(self, query: str) -> tuple[np.ndarray | None, str | None]:
        """(query vector, None), or (None, reason) when this bundle's vectors cannot be used."""
        if self.vectors is None:
            return None, None
        if self.embedder is None:
            return None, "no query embedder for this bundle's provider"
        try:
            vector = self.embedder.embed(query)
        except EmbeddingError as exc:
            return None, str(exc)
        return np.asarray(vector, dtype=np.float32), None

    def search(self, query: str, filters: dict[str, str], offset: int, limit: int) -> Page:
        terms, bigrams = query_terms(query, self.bundle.analyzer)
        n = self.bundle.n_chunks
        lexical = score(self.lexicon, n, terms)
        proximity = score(self.lexicon, n, bigrams)
        mask = self.mask(filters)
        qvec, degraded = self.embed_query(query)
        end = offset + limit
        if qvec is None:
            scores = lexical + proximity * np.float32(self.phrase_weight)
            matched = scores > 0
            keep = matched & mask
            total = int(keep.sum())
            ranked, ranked_scores = _rank(scores, keep, end)
            also_in: list[dict[str, list[str]]] = [{} for _ in ranked]
        else:
            ranked, ranked_scores = self._fuse(lexical, proximity, qvec, mask)
            ranked, ranked_scores, also_in = self._collapse(ranked, ranked_scores, filters)
            matched = (lexical > 0) | (proximity > 0)
            total = len(ranked)
        suggested: dict[str, list[str]] = {}
        if total == 0 and filters:
            suggested = self._suggest(matched, filters)
        return Page(
            rows=[int(r) for r in ranked[offset:end]],
            scores=[float(x) for x in ranked_scores[offset:end]],
            total=total,
            suggested_filters=suggested,
            corpus_matches=int(matched.sum()),
            also_in=also_in[offset:end],
            degraded=degraded,
        )

    def _fuse(
        self, lexical: np.ndarray, proximity: np.ndarray, qvec: np.ndarray, mask: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        f = self.fusion
        assert self.vectors is not None
        vec_rows, _ = self.vectors.search(qvec, mask, self.floor, f.depth)
        # The full-text list is the full-text-only ranking itself (terms + weighted bigrams),
        # so score margins of exact identifier matches survive the fusion.
        full = lexical + proximity * np.float32(self.phrase_weight)
        lex_rows, _ = _rank(full, (full > 0) & mask, f.depth)
        prox_rows, _ = _rank(proximity, (proximity > 0) & mask, f.depth)
        fused = np.zeros(self.bundle.n_chunks, dtype=np.float64)
        for weight, rows in ((f.lexical, lex_rows), (f.proximity, prox_rows), (f.vector, vec_rows)):
            if weight and len(rows):
                fused[rows] += weight / (f.k + np.arange(1, len(rows) + 1))
        return _rank(fused, fused > 0, None)

    def _collapse(
        self, rows: np.ndarray, scores: np.ndarray, filters: dict[str, str]
    ) -> tuple[np.ndarray, np.ndarray, list[dict[str, list[str]]]]:
        """Fold variants of one section that differ only in a vector_collapse key (the same
        operation documented per language) into the best-ranked one, listing the others.

        A row's leader is the best-ranked row with the same heading trail (collapse_groups)
        and the same values for every other taxonomy key; the row folds into it when its
        collapse-key values differ and their vectors are at least `collapse_similarity` alike.
        """
        keys = [k for k in self.collapse_keys if k not in filters]
        if not keys or not len(rows):
            return rows, scores, [{} for _ in rows]
        assert self.vectors is not None
        key_cols = [self.keys.index(k) for k in keys]
        other_cols = [i for i in range(len(self.keys)) if i not in key_cols]
        facets = np.asarray(self.facets[rows], dtype=np.int64)
        groups = np.asarray(self.bundle.arrays["collapse_groups"][rows], dtype=np.int64)
        signature = np.column_stack([groups, facets[:, other_cols]])
        _, first, inverse = np.unique(signature, axis=0, return_index=True, return_inverse=True)
        leader = first[inverse.reshape(-1)]  # position (in `rows`) of each row's leader
        candidate = leader != np.arange(len(rows))
        differs = np.any(facets[:, key_cols] != facets[leader][:, key_cols], axis=1)
        folded = candidate & differs
        if folded.any() and self.collapse_similarity > 0:
            pos = np.flatnonzero(folded)
            a = self.vectors.vectors_of(rows[pos])
            b = self.vectors.vectors_of(rows[leader[pos]])
            alike = np.einsum("ij,ij->i", a, b) >= self.collapse_similarity
            folded[pos[~alike]] = False
        kept = np.flatnonzero(~folded)
        also: dict[int, dict[str, set[str]]] = {}
        for pos in np.flatnonzero(folded).tolist():
            lead = int(leader[pos])
            for key, col in zip(keys, key_cols, strict=True):
                code = int(facets[pos, col])
                if code and code != facets[lead, col]:
                    value = self.taxonomy[key]["values"][code - 1]
                    also.setdefault(lead, {}).setdefault(key, set()).add(value)
        also_in = [
            {k: sorted(v) for k, v in sorted(also.get(int(p), {}).items())} for p in kept.tolist()
        ]
        return rows[kept], scores[kept], also_in

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


def _rank(scores: np.ndarray, keep: np.ndarray, depth: int | None) -> tuple[np.ndarray, np.ndarray]:
    """Rows where `keep`, highest score first, equal scores in row order; at most `depth`."""
    rows = np.flatnonzero(keep)
    if depth is not None and len(rows) > depth:
        # Keep everything scoring at least the depth-th best, ties included, so the row-order
        # tie-break below decides which equal-scored rows stay.
        threshold = -np.partition(-scores[rows], depth - 1)[depth - 1]
        rows = rows[scores[rows] >= threshold]
    order = np.lexsort((rows, -scores[rows]))
    rows = rows[order][:depth]
    return rows, scores[rows]


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
