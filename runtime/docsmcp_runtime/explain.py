"""Why a hit ranks where it does: the parts of its score, for the playground (and anyone
debugging a ranking). Recomputed from the same arrays search uses, for a few rows only.

Full text: the score is the sum, over the query's terms, of each term's stored impact in the
chunk (BM25F, bundle-spec.md *Lexical index*), plus the phrase weight times the same sum over the
query's bigrams. Hybrid bundles fuse ranked lists by reciprocal rank: each list a row appears in
adds `weight / (k + rank)`; the parts show the row's rank and contribution in each list.
"""

from __future__ import annotations

import numpy as np

from .lexical import query_terms, score
from .search import FUSION_DEPTH, Searcher
from .selection import rank

# Terms listed per hit (the largest impacts first).
MAX_TERMS_SHOWN = 12


def _impacts(searcher: Searcher, terms: list[str], rows: list[int]) -> list[dict[str, float]]:
    """Per row: term → its stored impact in that row (terms absent from the row left out)."""
    out: list[dict[str, float]] = [{} for _ in rows]
    wanted = np.asarray(rows, dtype=np.int64)
    position = {row: i for i, row in enumerate(rows)}
    for term in terms:
        tid = searcher.lexicon.lookup(term)
        if tid is None:
            continue
        docs, impacts = searcher.lexicon.postings(tid)
        hit = np.isin(docs, wanted)
        for doc, impact in zip(docs[hit].tolist(), impacts[hit].tolist(), strict=True):
            out[position[doc]][term] = round(float(impact), 4)
    return out


def _rank_of(values: np.ndarray, keep: np.ndarray, rows: list[int]) -> list[int | None]:
    """1-based rank of each row in the list `values` restricted to `keep` (None: not in it,
    or beyond the fusion depth)."""
    ranked, _ = rank(values, keep, FUSION_DEPTH)
    position = {int(r): i + 1 for i, r in enumerate(ranked.tolist())}
    return [position.get(r) for r in rows]


def explain(searcher: Searcher, query: str, filters: dict[str, str], rows: list[int]) -> list[dict]:
    """The parts of each row's score for `query` under `filters` (see the module docstring)."""
    terms, bigrams = query_terms(query, searcher.bundle.metadata.analyzer)
    n = searcher.bundle.n_chunks
    lexical = score(searcher.lexicon, n, terms)
    proximity = score(searcher.lexicon, n, bigrams)
    per_term = _impacts(searcher, terms, rows)
    per_bigram = _impacts(searcher, bigrams, rows)
    weight = float(searcher.phrase_weight)
    out = []
    for i, row in enumerate(rows):
        terms_shown = sorted(per_term[i].items(), key=lambda kv: (-kv[1], kv[0]))
        out.append(
            {
                "terms": dict(terms_shown[:MAX_TERMS_SHOWN]),
                "missing_terms": [t for t in terms if t not in per_term[i]],
                "lexical": round(float(lexical[row]), 4),
                "phrases": dict(sorted(per_bigram[i].items())[:MAX_TERMS_SHOWN]),
                "proximity": round(float(proximity[row]) * weight, 4),
                "full_text": round(float(lexical[row] + proximity[row] * weight), 4),
            }
        )
    qvec, degraded = searcher.embed_query(query)
    if searcher.fusion is None:
        return out
    mask = searcher.mask(filters)
    fusion = searcher.fusion
    full = lexical + proximity * searcher.phrase_weight
    lists = {
        "full_text": (fusion.lexical, _rank_of(full, (full > 0) & mask, rows)),
        "proximity": (fusion.proximity, _rank_of(proximity, (proximity > 0) & mask, rows)),
    }
    similarity: list[float | None] = [None] * len(rows)
    if qvec is not None and searcher.vectors is not None:
        vec_rows, sims = searcher.vectors.search(qvec, mask, searcher.floor, FUSION_DEPTH)
        position = {int(r): k + 1 for k, r in enumerate(vec_rows.tolist())}
        lists["vector"] = (fusion.vector, [position.get(r) for r in rows])
        found = {int(r): float(s) for r, s in zip(vec_rows.tolist(), sims.tolist(), strict=True)}
        similarity = [found.get(r) for r in rows]
    for i, part in enumerate(out):
        fused = {}
        for name, (w, ranks) in lists.items():
            r = ranks[i]
            fused[name] = {
                "rank": r,
                "weight": w,
                "contribution": round(w / (fusion.k + r), 6) if r and w else 0.0,
            }
        part["fusion"] = fused
        part["fused"] = round(sum(f["contribution"] for f in fused.values()), 6)
        if similarity[i] is not None:
            part["similarity"] = round(similarity[i], 4)
        if degraded:
            part["degraded"] = degraded
    return out
