"""Rows a ranking gains after it is made: pinned rows first (search_docs `pinned`: a cursor's
earlier pages), and what the best hits refer to (search_docs `expand_references`)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .selection import topk

# Reference expansion (search_docs expand_references): the references of the best hits join the
# candidates, each scored at a fraction of the hit that refers to it. A fixed number of parent
# hits, whatever the page asked for, keeps pages of one query consistent.
EXPAND_PARENTS = 5
EXPAND_PER_HIT = 5
REFERENCE_DISCOUNT = 0.5


def pin(
    ranked: np.ndarray, scores: np.ndarray, also_in: list, pins: list[int]
) -> tuple[np.ndarray, np.ndarray, list, int]:
    """`pins` first (scored as the best hit), then the ranking without them; and how many of
    the pins were not ranked before."""
    ranked = np.asarray(ranked, dtype=np.int64)
    scores = np.asarray(scores, dtype=np.float64)
    keep = ~np.isin(ranked, pins)
    top = float(scores[0]) if len(scores) else 1.0
    added = len(pins) - int((~keep).sum())
    rows = np.concatenate([np.asarray(pins, dtype=np.int64), ranked[keep]])
    new_scores = np.concatenate([np.full(len(pins), top), scores[keep]])
    kept_also = [a for a, k in zip(also_in, keep, strict=True) if k]
    return rows, new_scores, [{} for _ in pins] + kept_also, added


def expand(
    rows: np.ndarray,
    scores: np.ndarray,
    also_in: list[dict[str, list[str]]],
    ranked: np.ndarray,
    mask: np.ndarray,
    references: Callable[[int], np.ndarray],
    end: int,
) -> tuple[np.ndarray, np.ndarray, list[dict[str, list[str]]], dict[int, int]]:
    """Add what the best hits refer to (rows not ranked already, passing the filters)."""
    reached: dict[int, int] = {}
    added_scores: list[float] = []
    for parent, value in zip(
        rows[:EXPAND_PARENTS].tolist(), scores[:EXPAND_PARENTS].tolist(), strict=True
    ):
        for target in references(parent)[:EXPAND_PER_HIT].tolist():
            if not ranked[target] and mask[target] and target not in reached:
                reached[target] = parent
                added_scores.append(value * REFERENCE_DISCOUNT)
    if not reached:
        return rows, scores, also_in, reached
    extra = np.fromiter(reached, dtype=rows.dtype, count=len(reached))
    all_rows = np.concatenate([rows, extra])
    all_scores = np.concatenate([scores, np.asarray(added_scores, dtype=scores.dtype)])
    out_rows, out_scores = topk(all_rows, all_scores, end)
    extras = dict(zip(rows.tolist(), also_in, strict=True))
    return out_rows, out_scores, [extras.get(r, {}) for r in out_rows.tolist()], reached
