"""Chunk vectors for the bundle: cached embedding, then (for large corpora) IVF partitioning."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from docsmcp_runtime.search.embedding import normalise

from docsmcp.common.progress import Progress
from docsmcp.embeddings.embed import EmbeddingProvider, ProviderError, embedding_input, warn
from docsmcp.embeddings.embed_cache import EmbeddingCache, input_key
from docsmcp.model.chunk import Chunk

# Below this many chunks exact search is fast enough (and exact); above, IVF lists are built.
IVF_THRESHOLD = 50_000
# Texts handed to the provider per call (a multiple of every provider's batch size), so a
# long embedding shows progress; vectors do not depend on how inputs are grouped.
EMBED_BLOCK = 512


@dataclass(frozen=True)
class EmbedStats:
    total: int
    embedded: int  # inputs sent to the provider (cache misses)
    cached: int


@dataclass(frozen=True)
class Ivf:
    order: np.ndarray  # uint32 chunk row of each stored vector, grouped by list
    centroids: np.ndarray  # float32 [lists, dims], L2-normalised
    offsets: np.ndarray  # uint64 [lists + 1] into `order`
    probe: int


def embed_chunks(
    provider: EmbeddingProvider,
    chunks: list[Chunk],
    cache_dir: Path,
    progress: Callable[[str, int], Progress] | None = None,
    key: str = "",
) -> tuple[np.ndarray, EmbedStats]:
    """float32 [len(chunks), dims] L2-normalised vectors; only cache misses reach the provider,
    in blocks of EMBED_BLOCK texts so `progress` (a counter factory) can show them go by."""
    fingerprint = provider.fingerprint()
    cache = EmbeddingCache(cache_dir, fingerprint, provider.dimensions, key)
    texts = [embedding_input(c) for c in chunks]
    keys = [input_key(fingerprint, t) for t in texts]
    vectors = np.zeros((len(chunks), provider.dimensions), dtype=np.float32)
    missing: list[int] = []
    for i, key in enumerate(keys):
        hit = cache.get(key)
        if hit is None:
            missing.append(i)
        else:
            vectors[i] = hit
    counter = progress("embedding chunks", len(missing)) if progress and missing else None
    for start in range(0, len(missing), EMBED_BLOCK):
        block = missing[start : start + EMBED_BLOCK]
        fresh = provider.embed_documents([texts[i] for i in block], [chunks[i].id for i in block])
        fresh = np.asarray(fresh, dtype=np.float32)
        if fresh.shape != (len(block), provider.dimensions):
            raise ProviderError(
                f"provider {provider.name} returned vectors of shape {fresh.shape}, "
                f"expected ({len(block)}, {provider.dimensions})"
            )
        vectors[block] = normalise(fresh)
        if counter is not None:
            counter.advance(len(block))
    if counter is not None:
        counter.close()
    try:
        cache.save(keys, vectors)
    except OSError as exc:
        warn(f"could not write the embedding cache {cache.path} ({exc.strerror or exc})")
    return vectors, EmbedStats(len(chunks), len(missing), len(chunks) - len(missing))


def build_ivf(vectors: np.ndarray, lists: int | None = None, seed: int = 0) -> Ivf:
    """k-means lists (scikit-learn) with vectors grouped by list, so a query reads few lists."""
    try:
        from sklearn.cluster import MiniBatchKMeans
    except ImportError:
        raise ProviderError(
            "an IVF index needs scikit-learn: pip install 'docsmcp[ivf]' "
            "(or build with --ivf-threshold 0 to keep exact search)"
        ) from None
    n = len(vectors)
    # Never more lists than vectors (k-means needs a sample per centre), which small corpora
    # built with a low --ivf-threshold would otherwise ask for.
    lists = min(n, lists or max(1, int(round(4 * math.sqrt(n)))))
    km = MiniBatchKMeans(
        n_clusters=lists, random_state=seed, batch_size=4096, n_init=1, max_iter=50
    ).fit(vectors)
    labels = km.labels_.astype(np.int64)
    order = np.lexsort((np.arange(n), labels)).astype(np.uint32)
    counts = np.bincount(labels, minlength=lists)
    offsets = np.zeros(lists + 1, dtype=np.uint64)
    np.cumsum(counts, out=offsets[1:])
    centroids = normalise(km.cluster_centers_.astype(np.float32))
    probe = max(1, min(lists, int(math.ceil(lists / 16))))
    return Ivf(order, centroids, offsets, probe)
