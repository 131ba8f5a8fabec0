"""Query embedding at search time, for bundles built with an embedding provider.

Each provider the builder offers has a query-side embedder here, chosen by
``metadata.json["embedding"]["provider"]``. They return one L2-normalised float32 vector, or raise
EmbeddingError, in which case search carries on full-text only and says it degraded.
Only `hash` and `static` work offline with numpy alone; `openai` uses the standard library's HTTP
client; `sentence-transformers` is imported only when a bundle asks for it.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections import Counter
from pathlib import Path
from typing import Protocol

import numpy as np

from .analyzer import AnalyzerConfig, analyze


class EmbeddingError(Exception):
    """A query could not be embedded (network, missing package, bad bundle data)."""


class QueryEmbedder(Protocol):
    def embed(self, text: str) -> np.ndarray:
        """One L2-normalised float32 vector of the bundle's dimensions."""
        ...


def normalise(matrix: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length; all-zero rows stay zero."""
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=-1, keepdims=True)
    return matrix / np.where(norms == 0, 1.0, norms)


# -- hash: deterministic bag-of-terms vectors, for tests of the vector path ----------------

_HASH_ANALYZER = AnalyzerConfig(stem=True, stopwords=True)


def hash_vectors(texts: list[str], dimensions: int) -> np.ndarray:
    """Feature hashing of analyzer terms (signed, log-scaled counts), one row per text.

    Not semantic: two texts are similar when they share words. It exists so the whole vector
    path (storage, search, fusion, collapse, caching) can be exercised without a model.
    """
    out = np.zeros((len(texts), dimensions), dtype=np.float32)
    for row, text in enumerate(texts):
        counts = Counter(analyze(text, _HASH_ANALYZER).terms)
        for term, count in counts.items():
            digest = hashlib.blake2b(term.encode(), digest_size=8).digest()
            value = int.from_bytes(digest, "little")
            sign = 1.0 if value & 1 else -1.0
            out[row, (value >> 1) % dimensions] += sign * (1.0 + np.log(count))
    return normalise(out)


class HashEmbedder:
    def __init__(self, dimensions: int) -> None:
        self.dimensions = dimensions

    def embed(self, text: str) -> np.ndarray:
        return hash_vectors([text], self.dimensions)[0]


class SentenceTransformersEmbedder:
    """Query side of the `sentence-transformers` provider: loads the model the bundle names
    (or $DOCSMCP_ST_MODEL) on first use. Needs sentence-transformers and torch installed."""

    def __init__(self, options: dict) -> None:
        self.folder = os.environ.get("DOCSMCP_ST_MODEL") or options.get("model_dir")
        self._model = None
        self._lock = threading.Lock()

    def embed(self, text: str) -> np.ndarray:
        with self._lock:
            if self._model is None:
                self._model = self._load()
        vector = self._model.encode([text], normalize_embeddings=True, convert_to_numpy=True)
        return np.asarray(vector[0], dtype=np.float32)

    def _load(self):  # returns a SentenceTransformer
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError:
            raise EmbeddingError(
                "sentence-transformers is not installed beside docsmcp-runtime"
            ) from None
        if not self.folder or not Path(self.folder).is_dir():
            raise EmbeddingError(
                f"model directory {self.folder!r} not found (set DOCSMCP_ST_MODEL)"
            )
        try:
            return SentenceTransformer(self.folder, device="cpu", local_files_only=True)
        except Exception as exc:  # the library raises many kinds for a bad directory
            raise EmbeddingError(f"cannot load {self.folder}: {exc}") from None


def query_embedder(spec: dict, bundle_dir: Path) -> QueryEmbedder:
    """The embedder for a bundle's `embedding` section; raises EmbeddingError if unavailable."""
    provider = spec.get("provider")
    if provider == "hash":
        return HashEmbedder(int(spec["dimensions"]))
    if provider == "static":
        from .static_model import StaticModel  # lazy: static_model imports this module

        # Provider data lives under `options`; the table's shape needs `dimensions` too.
        return StaticModel.load(
            bundle_dir, {**spec.get("options", {}), "dimensions": spec["dimensions"]}
        )
    if provider == "sentence-transformers":
        return SentenceTransformersEmbedder(spec.get("options", {}))
    if provider == "openai":
        from .openai_client import OpenAIQueryEmbedder  # lazy: only bundles built with openai

        return OpenAIQueryEmbedder(spec)
    raise EmbeddingError(f"this runtime cannot embed queries for provider {provider!r}")
