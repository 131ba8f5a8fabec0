"""int8 copies of the stored vectors, for choosing IVF candidates cheaply (bundle-spec.md,
*Quantised vectors*): the builder writes them, the runtime bounds its error with them, and
`docsmcp verify` checks the bound holds, so all three use this module.

Per dimension `j`, `scale[j] = max_i |v[i, j]| / 127` over the float16 rows `v` (widened to
float32), and `q8[i, j] = rint(v[i, j] / scale[j])`, so `|v[i, j] - scale[j] * q8[i, j]| <=
scale[j] / 2`. For a query `q`, `sum_j (q[j] * scale[j]) * q8[i, j]` then differs from the
cosine `q . v[i]` by at most `error_bound(q, scale)`.
"""

from __future__ import annotations

import numpy as np

Q8_MAX = 127
# Rows quantised at once (float32 work arrays of this many rows; bounds the builder's memory).
QUANTISE_BLOCK = 1 << 14


def q8_scale(vectors: np.ndarray) -> np.ndarray:
    """float32 [dims]: the per-dimension step (1 for a dimension that is 0 in every row)."""
    top = np.zeros(vectors.shape[1], dtype=np.float32)
    for start in range(0, len(vectors), QUANTISE_BLOCK):
        block = np.abs(np.asarray(vectors[start : start + QUANTISE_BLOCK], dtype=np.float32))
        np.maximum(top, block.max(axis=0), out=top)
    scale = top / np.float32(Q8_MAX)
    scale[scale == 0] = 1
    return scale.astype(np.float32)


def quantise(vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(int8 [n, dims], float32 [dims] scale) of float16 (or float32) rows."""
    scale = q8_scale(vectors)
    out = np.empty(vectors.shape, dtype=np.int8)
    for start in range(0, len(vectors), QUANTISE_BLOCK):
        block = np.asarray(vectors[start : start + QUANTISE_BLOCK], dtype=np.float32)
        q = np.rint(block / scale)
        np.clip(q, -Q8_MAX, Q8_MAX, out=q)
        out[start : start + len(block)] = q
    return out, scale


def error_bound(query: np.ndarray, scale: np.ndarray) -> float:
    """Largest difference between a row's int8 score (query * scale against q8, in float32)
    and its float32 cosine with `query`: half a step per dimension, weighted by |query|, plus
    the float32 rounding of both sums (dims * 2**-22 of the largest possible |terms| sum),
    with 1 % to spare."""
    weights = np.abs(np.asarray(query, dtype=np.float64)) * np.asarray(scale, dtype=np.float64)
    quantisation = 0.5 * float(weights.sum())
    rounding = len(scale) * 2.0**-22 * float(weights.sum()) * Q8_MAX
    return 1.01 * (quantisation + rounding)


def q8_problem(vectors: np.ndarray, q8: np.ndarray, scale: np.ndarray) -> str | None:
    """None when `q8`/`scale` are within half a step of every float16 row (the bound the
    runtime relies on), else what is wrong (docsmcp verify's deep check)."""
    if not np.all(np.isfinite(scale)) or np.any(scale <= 0):
        return "scale is not finite and > 0 in every dimension"
    bad = 0
    # In float64, allowing what float32 rounding of the quotient adds (< 1e-4 of a step) and
    # well within the 1 % error_bound keeps to spare.
    step = np.asarray(scale, dtype=np.float64)
    for start in range(0, len(vectors), QUANTISE_BLOCK):
        block = np.asarray(vectors[start : start + QUANTISE_BLOCK], dtype=np.float64)
        approx = np.asarray(q8[start : start + QUANTISE_BLOCK], dtype=np.float64) * step
        bad += int(np.count_nonzero(np.abs(block - approx) > step * 0.5 * (1 + 1e-3)))
    return f"{bad} value(s) further than half a step from vectors.bin" if bad else None
