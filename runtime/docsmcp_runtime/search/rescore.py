"""The second stage of a search (issue 29): a strong embedding model reorders the first stage's
best hits (bundle-spec.md, *Rescoring*).

The first stage (full text, with the bundle's own vectors when it has them) picks the
candidates; only its best `depth` hits are reordered, by a convex combination of their
normalised first-stage score and the model's cosine, so the second stage can change the order of
what the first found but never brings in what it did not. Identifier lookups (intent.py) keep the
first stage's order and skip the model: an exact name match is already the answer, and the
query costs no encoder run.

The encoder (ONNX with onnxruntime + tokenizers, or a GGUF file with llama.cpp: gguf_model.py)
loads in the background from the moment the bundle is served; until it is ready, and if it cannot
load, searches answer with the first stage and say so in a note.
"""

from __future__ import annotations

import logging
import os
import threading
import weakref
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ..format.layout import sha256_file
from ..format.rescore import GgufEncoder, Rescore
from ..records import record
from .embedding import EmbeddingError
from .gguf_model import RESCORE_MODEL_ENV, GgufQueryEncoder
from .intent import query_class
from .onnx_encoder import (
    BackgroundEncoder,
    EncoderError,
    EncoderNotReady,
    EncoderSpec,
    QueryEncoder,
    load_in_background,
)

log = logging.getLogger(__name__)

NOT_READY = "The rescoring model is still loading; these results are the first stage's order."


# The model's own search over every chunk (recall) reads a float32 copy of the vectors, made on
# first use: 1.2 ms for 11,048 x 768 where the float16 rows take 18 ms. Above this many values
# (1 GiB of float32) recall is left out and only the first stage's hits are reordered.
MAX_RECALL_VALUES = 1 << 28


@record
class Reordered:
    """The new head of the ranking: `rows` (the first `replaced` hits of the first stage, plus
    any the model recalled) best first, their fused `scores`, and the factor that puts the other
    hits' scores on the same scale, (1 − weight) / max."""

    rows: np.ndarray
    scores: np.ndarray
    replaced: int
    tail: float


# Bundles built with the same model (versions of one docs set served as libraries) share one
# loaded encoder: the same files by sha256, the same spec and threads. Held weakly, so an
# encoder goes when the last bundle using it does.
_SHARED: weakref.WeakValueDictionary[tuple, BackgroundEncoder] = weakref.WeakValueDictionary()
_SHARING = threading.Lock()


class Rescorer:
    def __init__(
        self,
        root: Path,
        spec: Rescore,
        vectors: np.ndarray,
        digests: dict[str, str] | None = None,
        threads: int = 1,
    ) -> None:
        """`digests`: file name → sha256 of the encoder's files, checked on the loading thread
        before they are loaded (whatever --no-verify says: it costs the first answer nothing),
        and the key on which bundles share an encoder (None: not checked, not shared)."""
        self.spec = spec
        self.vectors = vectors
        self._dense: np.ndarray | None = None  # float32 copy for recall, made on first use
        self._lock = threading.Lock()
        self._said_too_many = False
        gguf = spec.encoder if isinstance(spec.encoder, GgufEncoder) else None
        encoder_spec = EncoderSpec(
            query_prompt=spec.model.query_prompt,
            max_tokens=spec.model.max_tokens,
            dimensions=spec.model.dimensions,
            output="" if gguf else spec.encoder.output,
        )
        if gguf is not None:
            # Named by sha256, found through the environment (a test may change it).
            key: tuple | None = (gguf, encoder_spec, os.environ.get(RESCORE_MODEL_ENV))
            start = _gguf_loader(gguf, encoder_spec)
        else:
            key, start = _onnx_loader(root, spec, encoder_spec, digests, threads)
        with _SHARING:
            encoder = _SHARED.get(key) if key is not None else None
            # A load that failed (one bundle's damaged copy) is no reason for another to fail.
            if encoder is None or encoder.error is not None:
                encoder = start()
                if key is not None:
                    _SHARED[key] = encoder
        self.encoder = encoder

    def wait(self, timeout: float | None = None) -> bool:
        """True once the encoder has loaded or failed (eval waits, so it measures the model)."""
        return self.encoder.wait(timeout)

    def warm(self) -> None:
        """Load now what the first searches would (before a --workers fork): the encoder and
        the vectors recall reads."""
        self.wait()
        self._dense_vectors()

    def _dense_vectors(self) -> np.ndarray | None:
        if not self.spec.recall:
            return None
        with self._lock:
            if self._dense is None and self.vectors.size <= MAX_RECALL_VALUES:
                self._dense = np.ascontiguousarray(self.vectors, dtype=np.float32)
            elif self._dense is None and not self._said_too_many:
                self._said_too_many = True
                log.info("%d vectors: too many to search whole; recall is off", len(self.vectors))
        return self._dense

    @property
    def error(self) -> str | None:
        return self.encoder.error

    def reorder(
        self, query: str, scores: np.ndarray, rows: np.ndarray, mask: np.ndarray | None = None
    ) -> tuple[Reordered | None, str | None]:
        """(the new head of the ranking, None), or (None, a note) when the hits keep their
        order: an identifier lookup (no note), a model still loading or unusable (a note).
        `mask`: the rows the filters allow, where recalled rows must lie."""
        self.encoder.touch()  # (a load in progress waits for a quiet moment to finish)
        weight = self.spec.weight(query_class(query))
        k = min(self.spec.depth, len(rows))
        if weight <= 0 or (k < 2 and not self.spec.recall):
            return None, None
        try:
            qvec = np.asarray(self.encoder.embed(query), dtype=np.float32)
        except EncoderNotReady:
            return None, NOT_READY
        except EmbeddingError as exc:  # EncoderError, GgufError
            return None, f"The rescoring model is unavailable ({exc}); first-stage order."
        head = np.asarray(rows[:k], dtype=np.int64)
        first = np.asarray(scores[:k], dtype=np.float64)
        dense = self._dense_vectors() if mask is not None else None
        if dense is not None and mask is not None:
            added = self._recall(dense, qvec, mask, head)
            head = np.concatenate([head, added])
            first = np.concatenate([first, np.zeros(len(added))])
        if len(head) < 2:
            return None, None
        cos = self.vectors[head].astype(np.float32) @ qvec
        fused = fuse(first, cos.astype(np.float64), weight)
        order = np.argsort(-fused, kind="stable")
        top = float(first.max()) if len(first) else 0.0
        tail = (1.0 - weight) / top if top > 0 else 0.0
        return Reordered(head[order], fused[order], k, tail), None

    def _recall(
        self, dense: np.ndarray, qvec: np.ndarray, mask: np.ndarray, head: np.ndarray
    ) -> np.ndarray:
        """The model's nearest rows within `mask`, not already in `head`, best first."""
        sims = dense @ qvec
        allowed = mask.copy()
        allowed[head] = False
        candidates = np.flatnonzero(allowed)
        want = min(self.spec.recall, len(candidates))
        if want == 0:
            return candidates[:0]
        picked = candidates[np.argpartition(-sims[candidates], want - 1)[:want]]
        # best first, ties by row: the same order whatever argpartition did
        return picked[np.lexsort((picked, -sims[picked]))]


def _onnx_loader(
    root: Path,
    spec: Rescore,
    encoder_spec: EncoderSpec,
    digests: dict[str, str] | None,
    threads: int,
) -> tuple[tuple | None, Callable[[], BackgroundEncoder]]:
    """(the key bundles share the encoder on, or None; what starts loading it)."""
    model, tokenizer = root / spec.encoder.model, root / spec.encoder.tokenizer

    def check() -> None:
        for path in (model, tokenizer):
            expected = (digests or {}).get(path.name)
            if expected is not None and sha256_file(path) != expected:
                raise EncoderError(f"{path}: sha256 differs from metadata.json")

    names = spec.files
    key = None
    if digests and all(n in digests for n in names):
        key = (*(digests[n] for n in names), encoder_spec, threads)
    return key, lambda: load_in_background(model, tokenizer, encoder_spec, threads, check)


def _gguf_loader(encoder: GgufEncoder, spec: EncoderSpec) -> Callable[[], BackgroundEncoder]:
    """What starts loading a GGUF query encoder; the file is found and its sha256 checked on
    the loading thread (gguf_model.py), llama.cpp's threads as $DOCSMCP_GGUF_THREADS says."""

    def load(settle: Callable[[], None]) -> QueryEncoder:
        # llama.cpp loads through ctypes, which releases the GIL: nothing to settle for.
        return GgufQueryEncoder(encoder.file, encoder.sha256, spec.query_prompt, spec.dimensions)

    return lambda: BackgroundEncoder(load, "the GGUF query encoder")


def fuse(scores: np.ndarray, cosines: np.ndarray, weight: float) -> np.ndarray:
    """(1 − weight) · score / max(score) + weight · (cos − min) / (max − min), over the hits
    being reordered: both terms span [0, 1], so `weight` is the model's share of the order."""
    top = float(scores.max()) if len(scores) else 0.0
    first = scores / top if top > 0 else np.zeros_like(scores)
    low, high = float(cosines.min()), float(cosines.max())
    second = (cosines - low) / (high - low) if high > low else np.zeros_like(cosines)
    return (1.0 - weight) * first + weight * second
