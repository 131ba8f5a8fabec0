"""Why a hit ranks where it does: the parts of its score, for the playground (and anyone
debugging a ranking). Recomputed from the same arrays search uses, for a few rows only.

Full text: the score is the sum, over the query's terms, of each term's stored impact in the chunk
(BM25F, bundle-spec.md *Lexical index*), plus the phrase weight times the same sum over the query's
bigrams; for a query of identifiers or a choice (`X vs Y`) the term sum is first multiplied by the
`coordination` factor (lexical.py: the rows naming every word gain). Hybrid bundles fuse ranked
lists (fusion.py): by default a convex combination of normalised scores, each list adding `weight ·
normalised score` (weights 1 − α and α, α by the query's class); with RRF weights each list adds
`weight / (k + rank)`. The parts show the row's rank and contribution in each list, and a taxonomy
boost (a value the query names) as `boost`. `typed` pairs each term and bigram shown with the
word(s) of the query it came from as typed (`oauth2`, `o`, `auth`, `2` and `o auth` all come from
`OAuth2`), so a reader sees the query, not the analyzer's pieces of it. `role` is the page
role's weight where it is not 1 (roles.py), and `searched: false` marks a row of a version or
variant the search did not reach (versions.py), with the notes saying which it did."""

from __future__ import annotations

import numpy as np

from .analyzer import analyze
from .engine import FUSION_DEPTH, Searcher
from .entry_names import is_entry_term
from .fusion import CONVEX
from .intent import query_class
from .lexical import score
from .roles import ROLE_KEY
from .selection import rank
from .versions import Scope

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
        shown = searcher.lexicon.values([impacts[hit]])
        for doc, impact in zip(docs[hit].tolist(), shown.tolist(), strict=True):
            out[position[doc]][term] = round(float(impact), 4)
    return out


def _variant_impacts(
    searcher: Searcher, terms: list[str], rows: list[int]
) -> list[dict[str, float]]:
    """Per row: each other form of a query word (Lexicon.variants) → its impact in that row
    times the bundle's stem_weight, as the score adds it (largest first, MAX_TERMS_SHOWN)."""
    weight = searcher.stem_weight
    if weight <= 0:
        return [{} for _ in rows]
    lexicon = searcher.lexicon
    forms = [lexicon.term(v) for t in terms for v in lexicon.variants(t)]
    found = _impacts(searcher, list(dict.fromkeys(forms)), rows)
    return [
        dict(
            sorted(((t, round(v * weight, 4)) for t, v in row.items()), key=lambda kv: -kv[1])[
                :MAX_TERMS_SHOWN
            ]
        )
        for row in found
    ]


def _rank_of(values: np.ndarray, keep: np.ndarray, rows: list[int]) -> list[int | None]:
    """1-based rank of each row in the list `values` restricted to `keep` (None: not in it,
    or beyond the fusion depth)."""
    ranked, _ = rank(values, keep, FUSION_DEPTH)
    position = {int(r): i + 1 for i, r in enumerate(ranked.tolist())}
    return [position.get(r) for r in rows]


def _typed(query: str, config: object, terms: list[str], bigrams: list[str]) -> dict[str, str]:
    """Term or bigram -> the whitespace-separated word(s) of `query` that produced it: the first
    word whose own analysis yields it, or for a bigram across words, the two words."""
    words = [(w, analyze(w, config)) for w in query.split()]  # type: ignore[arg-type]
    out: dict[str, str] = {}
    for term in terms:
        if is_entry_term(term):  # the entry the whole query names (entry_names.py)
            out[term] = query.strip()
            continue
        out[term] = next((w for w, a in words if term in a.terms), term)
    for pair in bigrams:
        inside = next((w for w, a in words if pair in a.bigrams), None)
        if inside is not None:
            out[pair] = inside
            continue
        left, _, right = pair.partition(" ")
        i = next((k for k, (_, a) in enumerate(words) if left in a.terms), None)
        j = next(
            (k for k, (_, a) in enumerate(words) if i is not None and k > i and right in a.terms),
            None,
        )
        out[pair] = f"{words[i][0]} {words[j][0]}" if i is not None and j is not None else pair
    return out


def explain(searcher: Searcher, query: str, filters: dict[str, str], rows: list[int]) -> list[dict]:
    """The parts of each row's score for `query` under `filters` (see the module docstring)."""
    query, named = searcher.entry_query(query)  # as the engine searches it (entry_names.py)
    terms, bigrams = searcher.searched(query, filters)  # as the engine searches them
    terms = terms + named  # the entry the query names
    n = searcher.bundle.n_chunks
    raw = score(searcher.lexicon, n, terms, stem_weight=searcher.stem_weight)
    coordinated = searcher.coordinated(query)  # as the engine: the rows naming every word gain
    lexical = raw if coordinated is None else raw * coordinated[0]
    proximity = score(searcher.lexicon, n, bigrams)
    per_term = _impacts(searcher, terms, rows)
    per_variant = _variant_impacts(searcher, terms, rows)
    per_bigram = _impacts(searcher, bigrams, rows)
    weight = float(searcher.phrase_weight)
    typed = _typed(query, searcher.bundle.metadata.analyzer, terms, bigrams)
    out = []
    for i, row in enumerate(rows):
        terms_shown = dict(
            sorted(per_term[i].items(), key=lambda kv: (-kv[1], kv[0]))[:MAX_TERMS_SHOWN]
        )
        missing = [t for t in terms if t not in per_term[i]]
        phrases = dict(sorted(per_bigram[i].items())[:MAX_TERMS_SHOWN])
        listed = {*terms_shown, *missing, *phrases}
        out.append(
            {
                "terms": terms_shown,
                "missing_terms": missing,
                **({"stem_variants": per_variant[i]} if per_variant[i] else {}),
                "lexical": round(float(raw[row]), 4),
                "phrases": phrases,
                # [term, word] pairs in query order (a word's whole form before its parts;
                # a JSON object would put digit-only terms such as "2" first)
                "typed": [[t, w] for t, w in typed.items() if t in listed],
                "proximity": round(float(proximity[row]) * weight, 4),
            }
        )
        if coordinated is not None:
            factor, words_found = coordinated
            out[-1]["coordination"] = {"factor": round(float(factor[row]), 4), "words": words_found}
        out[-1]["full_text"] = round(float(lexical[row] + proximity[row] * weight), 4)
    # As the engine: a version or variant the query names is searched, not boosted.
    named, scope = searcher.versions.scope(query, searcher.named(query, filters), filters)
    _prior_and_scope(searcher, query, filters, rows, scope, out)
    if named:
        factor = searcher.boost_factor(named)
        for i, row in enumerate(rows):
            if factor[row] != 1:
                out[i]["boost"] = {
                    "factor": float(factor[row]),
                    "named": [f"{n.key}={n.value}" for n in named],
                }
    qvec, degraded = searcher.embed_query(query)
    if searcher.fusion is None or searcher.policy is None:
        return out
    # the rows the search ranked among: its filters and its scope, as the engine's
    mask = searcher.mask(filters)
    searcher.versions.restrict(scope, mask)
    if searcher.policy.method == CONVEX:
        return _convex(
            searcher,
            query,
            mask,
            rows,
            out,
            full_text(lexical, proximity, searcher),
            qvec,
            degraded,
        )
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
    for part in out:
        part["method"] = "rrf"
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


def _prior_and_scope(
    searcher: Searcher,
    query: str,
    filters: dict[str, str],
    rows: list[int],
    scope: Scope,
    out: list[dict],
) -> None:
    """`role`: the page role's weight where it is not 1 (roles.py: a changelog at 0.5 unless
    the query asks what changed); `searched: false` with the scope's notes where the row's
    version or variant is not searched (the default one is, unless the query names another)."""
    by_role = searcher.roles.factor(query) if searcher.roles and ROLE_KEY not in filters else None
    if by_role is not None:
        codes = searcher._column(ROLE_KEY)
        values = searcher.taxonomy[ROLE_KEY].values
        for row, part in zip(rows, out, strict=True):
            if by_role[row] != 1:
                role = values[int(codes[row]) - 1]
                part["role"] = {"role": role, "weight": round(float(by_role[row]), 4)}
    if scope.keys:
        reached = searcher.versions.reached(scope, searcher.bundle.n_chunks)
        for row, part in zip(rows, out, strict=True):
            if not reached[row]:
                part["searched"] = False
                part["scope"] = [s.note for s in scope.keys]


def full_text(lexical: np.ndarray, proximity: np.ndarray, searcher: Searcher) -> np.ndarray:
    return lexical + proximity * searcher.phrase_weight


def _convex(
    searcher: Searcher,
    query: str,
    mask: np.ndarray,
    rows: list[int],
    out: list[dict],
    full: np.ndarray,
    qvec: np.ndarray | None,
    degraded: str | None,
) -> list[dict]:
    """The parts of a convex fusion (fusion.convex) among the rows of `mask`: each list's
    weight times the row's normalised score in it."""
    assert searcher.policy is not None
    cls = query_class(query)
    alpha = searcher.policy.vector_share(cls)
    full_rows, full_scores = rank(full, (full > 0) & mask, FUSION_DEPTH)
    top = float(full_scores[0]) if len(full_scores) else 0.0
    in_full = {int(r): k + 1 for k, r in enumerate(full_rows.tolist())}
    sims: dict[int, tuple[int, float]] = {}
    best = searcher.floor
    if qvec is not None and searcher.vectors is not None:
        vec_rows, vec_sims = searcher.vectors.search(qvec, mask, searcher.floor, FUSION_DEPTH)
        sims = {
            int(r): (k + 1, float(x))
            for k, (r, x) in enumerate(zip(vec_rows, vec_sims, strict=True))
        }
        best = float(vec_sims[0]) if len(vec_sims) else best
    span = best - searcher.floor
    for row, part in zip(rows, out, strict=True):
        r = in_full.get(row)
        lex = (1 - alpha) * float(full[row]) / top if r and top > 0 else 0.0
        v = sims.get(row)
        vec = alpha * max(0.0, (v[1] - searcher.floor) / span) if v and span > 0 else 0.0
        part["method"] = "convex"
        part["query_class"] = cls
        part["fusion"] = {
            "full_text": {"rank": r, "weight": round(1 - alpha, 6), "contribution": round(lex, 6)},
            "vector": {"rank": v[0] if v else None, "weight": alpha, "contribution": round(vec, 6)},
        }
        part["fused"] = round(lex + vec, 6)
        if v:
            part["similarity"] = round(v[1], 4)
        if degraded:
            part["degraded"] = degraded
    return out
