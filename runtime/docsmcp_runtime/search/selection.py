"""Top-k selection: the one ranking primitive every list (full-text, vectors, fusion) uses."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

# Many candidates per place asked for are first cut to those at least the k-th best of every
# SAMPLE_EVERY-th candidate (see topk): partitioning 4,400 candidates for the best 10 was a
# sixth of a speakeasy-sdks ranking, and a million-chunk bundle's partitions are 16x smaller.
SAMPLE_EVERY = 16


# Tied rows a tie-break orders at most: more (a term every page repeats alike) keep row order.
MAX_TIED = 64


def topk(
    rows: np.ndarray,
    values: np.ndarray,
    k: int | None,
    tiebreak: Callable[[np.ndarray], np.ndarray] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """The candidates (`rows`, `values`) ranked by value, highest first, equal values in row
    order, or by `tiebreak` (rows -> int keys, smaller first) then row order where at most
    MAX_TIED rows share a value with another; at most `k` of them (all when `k` is None).

    Uses a partition first, so ranking the best 200 of a million candidates does not sort them
    all. Everything scoring at least the k-th best is kept until the final cut, ties included,
    so the row-order tie-break decides which equal-valued rows stay.
    """
    if k is not None and len(rows) > k:
        if k <= 0:
            return rows[:0], values[:0]
        if len(values) >= 4 * SAMPLE_EVERY * k:
            # The k-th largest of a sample is at most the k-th largest of all, so the values
            # at least as large hold every one that can rank (ties included): the same result
            # as partitioning them all, from about SAMPLE_EVERY * k of them.
            sample = values[::SAMPLE_EVERY]
            floor = np.partition(sample, len(sample) - k)[len(sample) - k]
            near = np.flatnonzero(values >= floor)
            rows, values = rows[near], values[near]
        # The k-th largest value (partitioning `values` itself, not a negated copy).
        threshold = np.partition(values, len(values) - k)[len(values) - k]
        keep = values >= threshold
        rows, values = rows[keep], values[keep]
    order = np.lexsort((rows, -values))
    if tiebreak is not None and len(order) > 1:
        # Ties show as equal neighbours once sorted: no value repeats in most rankings, and
        # then nothing more is done (a sort and an isin over every candidate cost a ranking
        # ~20 us on speakeasy-sdks). Only the rows that can be shown are looked at.
        ranked = values[order]
        equal = ranked[1:] == ranked[:-1]
        if k is not None:
            # the first k places, and the rows tied with the k-th (they compete for its place)
            last = min(k, len(ranked)) - 1
            equal[last:] &= ranked[last + 1 :] == ranked[last]
        if equal.any():
            keys = _tie_keys(order, equal, rows, tiebreak)
            if keys is not None:
                order = np.lexsort((rows, keys, -values))
    order = order[:k]
    return rows[order], values[order]


def _tie_keys(
    order: np.ndarray,
    equal: np.ndarray,
    rows: np.ndarray,
    tiebreak: Callable[[np.ndarray], np.ndarray],
) -> np.ndarray | None:
    """`tiebreak`'s keys for the candidates in a run of equal values (`equal[i]`: places i
    and i + 1 of `order` hold equal values), 0 for the others; None when more than MAX_TIED
    candidates would need a key."""
    places = np.zeros(len(order), bool)
    places[:-1] |= equal
    places[1:] |= equal
    tied = order[places]
    if len(tied) > MAX_TIED:
        return None
    keys = np.zeros(len(rows), np.int64)
    keys[tied] = tiebreak(rows[tied])
    return keys


def best_rows(
    scores: np.ndarray, keep: np.ndarray, k: int, filtered: bool
) -> tuple[np.ndarray, np.ndarray]:
    """The rows where `keep` that can be among the best `k` by `scores` (one per row of the
    bundle, final), ascending, and their scores: every candidate scoring at least the k-th
    best, so topk of them is topk of all candidates. `filtered`: some rows of positive score
    are not kept; their scores are set to 0 here (x * 1 is x for the others).

    A sample of every SAMPLE_EVERY-th row gives a floor at most the k-th best score (as in
    topk), and only rows at least that high are gathered, where gathering every candidate's
    score was an index of thousands per search; rows not kept score 0 or less, so a positive
    floor leaves only candidates (else every kept row is taken)."""
    if filtered:
        np.multiply(scores, keep, out=scores)
    sample = scores[::SAMPLE_EVERY]
    floor = 0.0
    if len(sample) > k:
        sample = np.partition(sample, len(sample) - k)
        # (a NaN, which partition puts above every value, would raise the floor)
        floor = 0.0 if np.isnan(sample[-k:]).any() else sample[len(sample) - k]
    rows = np.flatnonzero(scores >= floor) if floor > 0 else np.flatnonzero(keep)
    return rows, scores[rows]


def rank(scores: np.ndarray, keep: np.ndarray, k: int | None) -> tuple[np.ndarray, np.ndarray]:
    """Rows where `keep`, ranked by `scores[row]` (see topk)."""
    rows = np.flatnonzero(keep)
    return topk(rows, scores[rows], k)


def sorted_unique(values: np.ndarray) -> np.ndarray:
    """np.unique(values) for a 1-d array: its distinct values, ascending. A sort and one
    comparison: np.unique's own bookkeeping made it ~7x slower on a fusion's ~400 rows."""
    out = np.sort(values)
    if len(out) < 2:
        return out
    return out[np.concatenate(([True], out[1:] != out[:-1]))]
