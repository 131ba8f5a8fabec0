"""GGUF embedding models run by llama.cpp (`llama-cpp-python`, the optional extra `gguf`): the
one home of the llama.cpp calls, used by the builder's `gguf` provider for chunks and by the
runtime for queries, so both sides load and pool the model the same way.

The model is named by content: the builder records the file's sha256 and the runtime checks that
the file it finds has it before the first query: $DOCSMCP_GGUF_MODEL for the hybrid provider's
model, $DOCSMCP_RESCORE_MODEL for a rescoring model (a bundle may have both, each its own file;
one folder holding both by name serves both variables). Hashing costs ~0.8 ms per
MB on one core (nomic-embed-text-v1.5 f16, 274 MB: ~0.25 s), once per process, so no digest
cache is kept.
"""

from __future__ import annotations

import hashlib
import os
import threading
from pathlib import Path
from typing import Any

import numpy as np

from ..format import Embedding, GgufOptions
from .embedding import EmbeddingError, normalise

MODEL_ENV = "DOCSMCP_GGUF_MODEL"  # the .gguf file, or a folder holding the bundle's file name
RESCORE_MODEL_ENV = "DOCSMCP_RESCORE_MODEL"  # the same for the rescoring model (rescore.py)
THREADS_ENV = "DOCSMCP_GGUF_THREADS"  # llama.cpp threads for queries (default 1)
# Tokens of one input: the model's trained context, at most this (longer chunks are embedded
# by windows, as `sentence-transformers` does); it bounds one forward pass and its memory.
MAX_WINDOW_TOKENS = 512
INSTALL = "pip install 'docsmcp-runtime[gguf]'"
NOT_INSTALLED = f"llama-cpp-python is not installed beside docsmcp-runtime ({INSTALL})"


class GgufError(EmbeddingError):
    """The model cannot be found, checked or loaded (one line). An EmbeddingError, so search
    degrades to full text."""


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while block := fh.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def import_llama(missing: str) -> Any:
    """The `llama_cpp` module; `missing` is the message when it is not installed."""
    try:
        import llama_cpp
    except ImportError:
        raise GgufError(missing) from None
    return llama_cpp


class GgufModel:
    """One GGUF file loaded for embedding: pooled (as its metadata says), L2-normalised vectors.

    Not safe for concurrent use: a llama.cpp context runs one batch at a time, so callers that
    share one hold a lock."""

    def __init__(self, path: Path, threads: int | None, missing: str) -> None:
        llama_cpp = import_llama(missing)
        self.path = path
        self._llama = self._load(llama_cpp, MAX_WINDOW_TOKENS, threads)
        meta = self._llama.metadata
        trained = int(meta.get(f"{meta.get('general.architecture', '')}.context_length", 0) or 0)
        if 0 < trained < MAX_WINDOW_TOKENS:  # positions past the trained ones do not exist
            self._llama.close()
            self._llama = self._load(llama_cpp, trained, threads)
        self.window = int(self._llama.n_ctx())
        if self._llama.pooling_type() == llama_cpp.LLAMA_POOLING_TYPE_NONE:
            self._llama.close()
            raise GgufError(
                f"{path} has no pooling in its GGUF metadata: not a sentence embedding model"
            )
        self.dimensions = int(self._llama.n_embd())
        self.metadata: dict[str, str] = dict(meta)

    def _load(self, llama_cpp: Any, window: int, threads: int | None) -> Any:
        try:
            return llama_cpp.Llama(
                model_path=str(self.path),
                embedding=True,
                n_ctx=window,
                n_batch=window,
                n_ubatch=window,  # encoder models need a whole input in one micro-batch
                n_threads=threads,
                n_threads_batch=threads,
                verbose=False,
            )
        except Exception as exc:  # llama-cpp-python raises ValueError, RuntimeError...
            raise GgufError(f"cannot load {self.path} with llama.cpp: {exc}") from None

    def embed(self, texts: list[str]) -> np.ndarray:
        """float32 [len(texts), dimensions], rows L2-normalised; inputs longer than the window
        are cut to its first tokens."""
        rows = self._llama.embed(texts, normalize=False, truncate=True)
        return normalise(np.asarray(rows, dtype=np.float32).reshape(len(texts), -1))

    def close(self) -> None:
        self._llama.close()


def _threads() -> int:
    value = os.environ.get(THREADS_ENV, "1")
    try:
        threads = int(value)
    except ValueError:
        raise GgufError(f"{THREADS_ENV} must be a number of threads, not {value!r}") from None
    return max(1, threads)


class GgufEmbedder:
    """Query side of the `gguf` provider: the file is $DOCSMCP_GGUF_MODEL (or that folder's
    file of the bundle's name), checked by sha256 and loaded on the first query; one llama.cpp
    thread unless $DOCSMCP_GGUF_THREADS says more. A failure is remembered, so a wrong file is
    not hashed again on every query."""

    def __init__(self, options: GgufOptions, dimensions: int) -> None:
        self.options = options
        self.dimensions = dimensions
        self._model: GgufModel | None = None
        self._error: GgufError | None = None
        self._lock = threading.Lock()

    def embed(self, text: str) -> np.ndarray:
        with self._lock:
            if self._model is None:
                if self._error is None:
                    try:
                        self._model = self._load()
                    except GgufError as exc:
                        self._error = exc
                if self._error is not None:
                    raise self._error
            vector = self._model.embed([self.options.query_prompt + text])[0]
        # A model cut to fewer dimensions (Matryoshka) keeps the first values, renormalised.
        return normalise(vector[: self.dimensions])

    def _load(self) -> GgufModel:
        import_llama(NOT_INSTALLED)
        path = find_model(MODEL_ENV, self.options.model_name, self.options.sha256)
        return GgufModel(path, _threads(), INSTALL)


def find_model(env: str, wanted: str, sha256: str) -> Path:
    """The GGUF file that $`env` names (or that folder's file `wanted`), if its sha256 is
    `sha256`; else GgufError saying what to set."""
    configured = os.environ.get(env)
    if not configured:
        raise GgufError(f"set {env} to the {wanted!r} GGUF file the bundle was built with")
    path = Path(configured).expanduser()
    if path.is_dir():
        path = path / wanted
    if not path.is_file():
        raise GgufError(
            f"{path} not found: set {env} to the {wanted!r} GGUF file the bundle was built with"
        )
    if file_sha256(path) != sha256:
        raise GgufError(
            f"{path} is not the {wanted!r} model the bundle was built with (sha256 differs); "
            f"set {env} to that file"
        )
    return path


class GgufQueryEncoder:
    """The query side of a GGUF rescoring model (search/rescore.py loads it in the background):
    the file $DOCSMCP_RESCORE_MODEL names, checked by sha256, on $DOCSMCP_GGUF_THREADS threads
    (default 1). Thread-safe: one query runs through llama.cpp at a time."""

    def __init__(self, wanted: str, sha256: str, query_prompt: str, dimensions: int) -> None:
        import_llama(NOT_INSTALLED)
        path = find_model(RESCORE_MODEL_ENV, wanted, sha256)
        self._model = GgufModel(path, _threads(), INSTALL)
        if not 0 < dimensions <= self._model.dimensions:
            self._model.close()
            raise GgufError(f"{path} makes {self._model.dimensions} values, not {dimensions}")
        self.query_prompt = query_prompt
        self.dimensions = dimensions
        self._lock = threading.Lock()

    def embed(self, text: str) -> np.ndarray:
        try:
            with self._lock:
                vector = self._model.embed([self.query_prompt + text])[0]
        except Exception as exc:  # llama-cpp-python raises RuntimeError, ValueError...
            line = (str(exc).strip() or type(exc).__name__).splitlines()[0]
            raise GgufError(f"the GGUF query encoder failed: {line}") from None
        # Matryoshka truncation: the first values renormalised are the smaller vector.
        return normalise(vector[: self.dimensions])


def gguf_embedder(spec: Embedding, bundle_dir: Path) -> GgufEmbedder:
    assert isinstance(spec.options, GgufOptions)
    return GgufEmbedder(spec.options, spec.dimensions)
