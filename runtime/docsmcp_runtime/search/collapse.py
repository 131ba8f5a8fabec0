"""Folding the variants of one section in a hybrid search: the same operation documented per
language (a `vector_collapse` taxonomy key) ranks once, at its best-ranked variant, which lists
the other values in `also_in` (bundle-spec.md, *Taxonomy*). engine.Searcher._collapse calls it
with the keys the filters leave open.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from .vectors import VectorIndex


def collapse_variants(
    rows: np.ndarray,
    scores: np.ndarray,
    keys: Sequence[str],
    all_keys: Sequence[str],
    facets_of: np.ndarray,
    groups_of: np.ndarray,
    vectors: VectorIndex,
    similarity: float,
    values_of: Mapping[str, Sequence[str]],
) -> tuple[np.ndarray, np.ndarray, list[dict[str, list[str]]]]:
    """Fold the ranked `rows` (best first) whose values of `keys` differ from their leader's:
    a row's leader is the best-ranked row with the same heading trail (`groups_of`, the
    bundle's collapse_groups) and the same values of every other taxonomy key (`facets_of`, a
    column per key of `all_keys`); the row folds into it when their vectors are at least
    `similarity` alike. The rows and scores kept, and what each lists of the others."""
    key_cols = [all_keys.index(k) for k in keys]
    other_cols = [i for i in range(len(all_keys)) if i not in key_cols]
    facets = np.asarray(facets_of[rows], dtype=np.int64)
    groups = np.asarray(groups_of[rows], dtype=np.int64)
    signature = np.column_stack([groups, facets[:, other_cols]])
    leader = first_alike(signature)  # position (in `rows`) of each row's leader
    candidate = leader != np.arange(len(rows))
    differs = np.any(facets[:, key_cols] != facets[leader][:, key_cols], axis=1)
    folded = candidate & differs
    if folded.any() and similarity > 0:
        pos = np.flatnonzero(folded)
        a = vectors.vectors_of(rows[pos])
        b = vectors.vectors_of(rows[leader[pos]])
        alike = np.einsum("ij,ij->i", a, b) >= similarity
        folded[pos[~alike]] = False
    kept = np.flatnonzero(~folded)
    # Only leaders list other values: the rest get their own empty dict without a lookup.
    also_in: list[dict[str, list[str]]] = [{} for _ in range(len(kept))]
    folded_pos = np.flatnonzero(folded)
    if len(folded_pos):
        lead_pos = leader[folded_pos]
        also: dict[int, dict[str, set[str]]] = {}
        for col, key in zip(key_cols, keys, strict=True):
            codes, lead_codes = facets[folded_pos, col], facets[lead_pos, col]
            lists = (codes != 0) & (codes != lead_codes)  # a value the leader lacks
            values = values_of[key]
            pairs = zip(lead_pos[lists].tolist(), codes[lists].tolist(), strict=True)
            for lead, code in pairs:
                also.setdefault(lead, {}).setdefault(key, set()).add(values[code - 1])
        slots = np.searchsorted(kept, list(also)).tolist()  # leaders are kept
        for slot, found in zip(slots, also.values(), strict=True):
            also_in[slot] = {k: sorted(v) for k, v in sorted(found.items())}
    return rows[kept], scores[kept], also_in


def first_alike(signature: np.ndarray) -> np.ndarray:
    """For each row of a non-negative int64 matrix, the position of the first row equal to it.

    The columns are packed into one int64 key (mixed radix) when it fits: np.unique over rows
    (axis=0) took ~150 µs of a hybrid search's 400 fused rows, over one key ~20 µs."""
    key = signature[:, 0]
    scale = int(key.max(initial=0)) + 1
    for col in range(1, signature.shape[1]):
        radix = int(signature[:, col].max(initial=0)) + 1
        scale *= radix
        if scale >= 1 << 62:  # would overflow: compare whole rows
            _, first, inverse = np.unique(signature, axis=0, return_index=True, return_inverse=True)
            return first[inverse.reshape(-1)]
        key = key * radix + signature[:, col]
    if not len(key):
        return np.zeros(0, dtype=np.int64)
    # np.unique(key, return_index=True, return_inverse=True), without the unique values and
    # its bookkeeping (a third of the time): a stable sort puts each key's first position
    # first among its equals.
    order = np.argsort(key, kind="stable")
    ordered = key[order]
    starts = np.empty(len(key), dtype=bool)
    starts[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=starts[1:])
    leader = np.empty(len(key), dtype=np.int64)
    leader[order] = order[starts][np.cumsum(starts) - 1]
    return leader
