"""Embedding cache for incremental builds.

One file per output bundle and provider fingerprint in the cache root's `embeddings/` folder,
`<output key>-<fingerprint>.npz` (cache.py), holding the sha256 of each embedding
input and its vector. A build embeds only inputs whose key is missing, then rewrites the file
with exactly the entries it used, so entries of deleted or edited sections are pruned. A cache
that cannot be read is discarded with a warning: it only ever saves time.
"""

from __future__ import annotations

import hashlib
import io
import zipfile
from pathlib import Path

import numpy as np
from docsmcp_runtime.distribution.swap import replace_file

from docsmcp.common.cache import evict, max_bytes
from docsmcp.embeddings.embed import warn

EMBEDDINGS_MAX_BYTES = max_bytes("embeddings")


def input_key(fingerprint: str, text: str) -> str:
    return hashlib.sha256(f"{fingerprint}\0{text}".encode()).hexdigest()


class EmbeddingCache:
    def __init__(self, directory: Path, fingerprint: str, dimensions: int, key: str = "") -> None:
        # `key` names the output bundle (cache.output_key): bundles sharing the root keep theirs.
        self.path = directory / (f"{key}-{fingerprint}.npz" if key else f"{fingerprint}.npz")
        self.dimensions = dimensions
        self.entries: dict[str, np.ndarray] = self._load()

    def _load(self) -> dict[str, np.ndarray]:
        if not self.path.exists():
            return {}
        try:
            with np.load(self.path, allow_pickle=False) as data:
                keys, vectors = data["keys"], data["vectors"]
            if vectors.ndim != 2 or vectors.shape != (len(keys), self.dimensions):
                raise ValueError(f"vectors of shape {vectors.shape}")
            return {str(k): vectors[i] for i, k in enumerate(keys)}
        except (OSError, ValueError, KeyError, zipfile.BadZipFile, EOFError) as exc:
            warn(f"embedding cache {self.path} is unreadable ({exc}); discarding it")
            return {}

    def get(self, key: str) -> np.ndarray | None:
        return self.entries.get(key)

    def save(self, keys: list[str], vectors: np.ndarray) -> None:
        """Replace the cache with exactly these entries (atomically)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        buf = io.BytesIO()
        np.savez(buf, keys=np.array(keys, dtype="U64"), vectors=vectors.astype(np.float32))
        replace_file(self.path, buf.getvalue())
        evict(self.path.parent, EMBEDDINGS_MAX_BYTES, keep=(self.path,))
