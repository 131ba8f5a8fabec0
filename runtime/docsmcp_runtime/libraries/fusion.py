"""`search_docs` over every library: each library's ranked list, weighted by how much of the query
it covers, fused by rank.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..records import record
from ..tools.app import DocsApp
from ..tools.arguments import SearchCall
from ..tools.hits import search_page
from .library import _key_of

# Reciprocal-rank fusion: a hit at rank r (0-based) of a library's list scores w / (K + r + 1).
FUSION_K = 60


# library_weight: df / chunks is scaled by this before log1p (10: a word in every tenth chunk
# counts about log 2; measured against 100 and 1000 in DECISIONS.md).
DENSITY_SCALE = 10.0


@record
class Fused:
    shown: list[tuple[DocsApp, Any, int, float]]  # (app, its page, index in page, fused score)
    total: int
    corpus_matches: int
    suggested: dict
    degraded: str | None
    notes: list[str]


def library_weight(app: DocsApp, query: str, filters: Mapping[str, str] | None = None) -> float:
    """How much a library's ranked list counts in fusion for `query`: its *coverage* (the share
    of the query's terms in its dictionary: a library lacking most of the words asked for ranks
    its best hits below one that has them all) times one plus their mean *density*
    (`log1p(DENSITY_SCALE * df / chunks)`: words the library is about weigh more than words it
    merely contains, whatever its size). Measured in DECISIONS.md, *Several bundles*."""
    terms, _ = app.searcher.searched(query, filters or {})  # the terms its search searches
    if not terms:
        return 0.0
    lexicon = app.searcher.lexicon
    n = max(app.bundle.n_chunks, 1)
    found = density = 0.0
    for term in terms:
        tid = lexicon.lookup(term)
        if tid is None:
            continue
        found += 1
        df = int(lexicon.postings_offsets[tid + 1] - lexicon.postings_offsets[tid])
        density += math.log1p(DENSITY_SCALE * df / n)
    return (found / len(terms)) * (1.0 + density / len(terms))


def fuse_search(
    parts: Sequence[tuple[DocsApp, dict[str, str]]],
    call: SearchCall,
    offset: int,
    excluded: dict[str, np.ndarray],
) -> Fused:
    """Each library's best `offset + limit` rows, fused by rank (see FUSION_K): order is the
    fused score, then the library's order, then its own rank — deterministic."""
    depth = offset + call.limit
    ranked = []
    total = corpus_matches = 0
    suggested: dict[str, list[str]] = {}
    degraded = None
    notes: list[str] = []
    for order, (app, filters) in enumerate(parts):
        page = search_page(
            app, call.query, depth, call.expand, filters, 0, excluded.get(_key_of(app))
        )
        total += page.total
        corpus_matches += page.corpus_matches
        for key, values in page.suggested_filters.items():
            merged = suggested.setdefault(key, [])
            merged.extend(v for v in values if v not in merged)
        degraded = degraded or page.degraded
        for note in page.notes:
            if note not in notes:
                notes.append(note)
        weight = library_weight(app, call.query, filters)
        for i in range(len(page.rows)):
            ranked.append((weight / (FUSION_K + i + 1), order, i, app, page))
    ranked.sort(key=lambda r: (-r[0], r[1], r[2]))
    shown = [(app, page, i, score) for score, _, i, app, page in ranked[offset:depth]]
    return Fused(shown, total, corpus_matches, suggested, degraded, notes)
