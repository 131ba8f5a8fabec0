"""Chunks longer than a model's window, for the providers that run a model here
(`sentence-transformers`, `gguf`): each chunk is cut into windows of characters, the first
MAX_WINDOWS are embedded, and their vectors are summed (the caller normalises: the mean's
direction). Chunking never follows a model's window (collect.default_max_chunk_size)."""

from __future__ import annotations

import logging

import numpy as np
from docsmcp_runtime.search.budget import CHARS_PER_TOKEN  # characters per model token, roughly

log = logging.getLogger(__name__)

# Windows of one chunk that are embedded and pooled; the rest of a very long chunk is left out
# (its head says what it is about, and each window costs a forward pass).
MAX_WINDOWS = 4


def split_windows(texts: list[str], window_tokens: int) -> tuple[list[str], list[int]]:
    """(pieces, owner): the first MAX_WINDOWS windows of each text, and the text of each."""
    span = window_tokens * CHARS_PER_TOKEN
    pieces: list[str] = []
    owner: list[int] = []
    for i, text in enumerate(texts):
        for start in range(0, max(1, len(text)), span)[:MAX_WINDOWS]:
            pieces.append(text[start : start + span])
            owner.append(i)
    longer = sum(1 for t in texts if len(t) > span * MAX_WINDOWS)
    if longer:
        log.info(
            "%d chunks are longer than %d windows of the model; their first %d are pooled",
            longer,
            MAX_WINDOWS,
            MAX_WINDOWS,
        )
    return pieces, owner


def pool_windows(vectors: np.ndarray, owner: list[int], count: int, dimensions: int) -> np.ndarray:
    """float32 [count, dimensions]: the sum of each text's window vectors, cut to their first
    `dimensions` values (Matryoshka models)."""
    pooled = np.zeros((count, dimensions), dtype=np.float64)
    kept = np.asarray(vectors, dtype=np.float64)[:, :dimensions]
    np.add.at(pooled, np.asarray(owner, dtype=np.int64), kept)
    return pooled.astype(np.float32)
