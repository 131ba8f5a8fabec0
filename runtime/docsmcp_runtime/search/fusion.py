"""Fusing the full-text and vector lists of a hybrid search into one ranking.

Two methods, both restricted to the candidates of the lists (at most `depth` rows each):
- `rrf`: weighted Reciprocal Rank Fusion, Σ weight / (k + rank) (the bundle's `fusion` weights);
- `convex`: a convex combination of normalised scores, (1 − α)·full/max(full) + α·(cos − floor)
  / (max(cos) − floor), the theoretical-minimum-max normalisation of Bruch et al. (*An Analysis
  of Fusion Functions for Hybrid Retrieval*), plus `agreement` for rows both lists found.

The vector share (RRF weight or α) is chosen per query class (`intent.query_class`): identifier
lookups lean on full text, questions on vectors. A provider whose vectors are better (a
corpus-adapted table, a sentence model) plugs in by its own `FusionPolicy` in POLICIES; the
others use DEFAULT_POLICY.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field

import numpy as np

from ..records import record
from .intent import IDENTIFIER, MIXED, QUESTION

RRF, CONVEX = "rrf", "convex"


@record
class FusionPolicy:
    method: str = CONVEX
    # Vector share per query class: α for `convex`, the vector list's weight for `rrf`.
    vector: Mapping[str, float] = field(
        default_factory=lambda: {IDENTIFIER: 0.0, MIXED: 0.1, QUESTION: 0.1}
    )
    agreement: float = 0.0  # convex: added when both lists hold the row

    def vector_share(self, query_class: str) -> float:
        return float(self.vector.get(query_class, self.vector.get(MIXED, 0.0)))


DEFAULT_POLICY = FusionPolicy()
# Provider name → its policy (providers not named here use DEFAULT_POLICY).
# sentence-transformers: a transformer's cosines earn a larger share for questions. Measured
# (bench/adapt_report.py, dev sets, all-MiniLM-L6-v2 and the same fine-tuned by `docsmcp
# finetune`): at 0.3 rust-reference dev-cases 0.91 -> 0.93 and dev-cases-nl equal, yellow-docs
# 0.69 -> 0.76 and 0.52 -> 0.67 over full text, speakeasy-sdks 0.50 -> 0.57 and 0.28 -> 0.25
# (0.56 and 0.25 at 0.1), exact names unchanged (identifiers keep 0); at the default 0.1 the
# vectors barely move rust-reference and yellow-docs rankings, at 0.5 rust-reference falls.
SENTENCE_MODEL = FusionPolicy(vector={IDENTIFIER: 0.0, MIXED: 0.3, QUESTION: 0.3})
POLICIES: dict[str, FusionPolicy] = {
    "sentence-transformers": SENTENCE_MODEL,
    # The same kind of model, run by llama.cpp. Measured with nomic-embed-text-v1.5 on
    # yellow-docs + rust-reference (dev-cases-nl MRR@5 by α): 0 0.558, 0.1 0.577, 0.2 0.604,
    # 0.3 0.606, 0.4 0.609, 0.5 0.577, 0.6 0.558; dev-cases 0.896 at every α. 0.3 sits on the
    # plateau, as for sentence-transformers.
    "gguf": SENTENCE_MODEL,
}


def policy_for(provider: str) -> FusionPolicy:
    return POLICIES.get(provider, DEFAULT_POLICY)


def rrf(n: int, lists: list[tuple[float, np.ndarray]], k: float) -> np.ndarray:
    """Σ over (weight, ranked rows) of weight / (k + rank), ranks from 1: float64 per row of
    `n` (rows are positions below `n`: of the bundle, or of the candidates being fused)."""
    fused = np.zeros(n, dtype=np.float64)
    for weight, rows in lists:
        if weight and len(rows):
            fused[rows] += weight / (k + np.arange(1, len(rows) + 1))
    return fused


def convex(
    n: int,
    full_rows: np.ndarray,
    full_scores: np.ndarray,
    vec_rows: np.ndarray,
    vec_sims: np.ndarray,
    alpha: float,
    floor: float,
    agreement: float = 0.0,
) -> np.ndarray:
    """(1 − α)·normalised full-text + α·normalised cosine (+ agreement), float64 per row of
    `n` (as in `rrf`); 0 for rows in neither list. With α = 0 the order is the
    full-text order exactly."""
    fused = np.zeros(n, dtype=np.float64)
    if len(full_rows):
        top = float(np.max(full_scores))
        if top > 0:
            fused[full_rows] += (1.0 - alpha) * np.asarray(full_scores, np.float64) / top
    if alpha > 0 and len(vec_rows):
        sims = np.asarray(vec_sims, np.float64)
        span = float(np.max(sims)) - floor
        if span > 0:
            part = alpha * np.clip((sims - floor) / span, 0.0, 1.0)
            # A vector-only row needs some similarity above the floor to count at all.
            fused[vec_rows] += np.maximum(part, 1e-12)
        if agreement and len(full_rows):
            both = np.intersect1d(full_rows, vec_rows, assume_unique=True)
            fused[both] += agreement
    return fused
