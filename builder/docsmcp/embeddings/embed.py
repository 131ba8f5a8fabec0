"""Embedding providers of the builder: one interface, chosen by `--embedding-provider`.

A provider turns chunk inputs into L2-normalised float32 vectors and describes itself
(model, dimensions, context window) so the bundle records what the runtime must do to embed
queries the same way. Providers never see stored or full-text text: only `embedding_input`.
"""

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np
from docsmcp_runtime.format import (
    EMBEDDING_INPUT,
    PROVIDERS,
    NoOptions,
    OpenAIOptions,
    ProviderOptions,
)
from docsmcp_runtime.format.providers import load
from docsmcp_runtime.search.embedding import hash_vectors

from docsmcp.model.chunk import Chunk

# `none` builds a full-text-only bundle; the others come from the one provider registry.
PROVIDER_CHOICES = ("none", *PROVIDERS)

log = logging.getLogger(__name__)


class ProviderError(Exception):
    """The provider cannot be set up or failed for good (message is shown to the user)."""


@dataclass(frozen=True)
class EmbeddingOptions:
    provider: str = "none"
    model: str | None = None
    dimensions: int | None = None
    base_url: str | None = None  # openai: any OpenAI-compatible endpoint
    api_key_env: str = OpenAIOptions.api_key_env
    concurrency: int = 4
    batch_size: int = 64
    threads: int = 0  # gguf: llama.cpp threads (0: one per core)
    # gguf: prepended to queries / chunks; None: the known model's (providers_gguf.KNOWN_PROMPTS)
    query_prompt: str | None = None
    document_prompt: str | None = None
    extra: dict = field(default_factory=dict)


class EmbeddingProvider(Protocol):
    name: str
    model: str
    dimensions: int
    context_tokens: int  # the model's context window, in its own tokens

    def fingerprint(self) -> str:
        """Changes whenever the same input could give a different vector (model, dims, ...)."""
        ...

    def embed_documents(self, texts: list[str], ids: list[str]) -> np.ndarray:
        """float32 [len(texts), dimensions], rows L2-normalised. `ids` name inputs in messages."""
        ...

    def bundle_spec(self) -> ProviderOptions:
        """The `embedding.options` the runtime needs to embed queries (never secrets)."""
        ...

    def bundle_files(self) -> dict[str, bytes]:
        """Extra files shipped in the bundle for query embedding (e.g. a static table)."""
        ...


def embedding_input(chunk: Chunk) -> str:
    """Breadcrumb context + content, so a section is embedded together with where it sits."""
    headings = " > ".join(h for h in chunk.heading_text.split("\n") if h)
    return EMBEDDING_INPUT.format(headings=headings or chunk.path, text=chunk.search_text)


def fingerprint_of(config: dict) -> str:
    return hashlib.sha256(json.dumps(config, sort_keys=True).encode()).hexdigest()[:32]


def warn(message: str) -> None:
    log.warning("%s", message)


class HashProvider:
    """Deterministic feature-hashing vectors: exercises the vector path, carries no meaning."""

    name = "hash"
    context_tokens = 1_000_000

    def __init__(self, options: EmbeddingOptions) -> None:
        self.dimensions = options.dimensions or 256
        self.model = f"hash-{self.dimensions}"

    def fingerprint(self) -> str:
        return fingerprint_of({"provider": "hash", "dimensions": self.dimensions, "v": 1})

    def embed_documents(self, texts: list[str], ids: list[str]) -> np.ndarray:
        return hash_vectors(texts, self.dimensions)

    def bundle_spec(self) -> NoOptions:
        return NoOptions()

    def bundle_files(self) -> dict[str, bytes]:
        return {}


def make_provider(options: EmbeddingOptions) -> EmbeddingProvider | None:
    """The provider `options.provider` names (imported only when chosen), or None for `none`."""
    if options.provider == "none":
        return None
    info = PROVIDERS.get(options.provider)
    if info is None:
        raise ProviderError(
            f"embedding provider {options.provider!r} is not available; choose one of "
            + ", ".join(PROVIDER_CHOICES)
        )
    return load(info.builder)(options)
