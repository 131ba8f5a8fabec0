"""`gguf` provider: a local GGUF embedding model (nomic-embed-text, bge, e5, MiniLM...) run by
llama.cpp through llama-cpp-python, an optional extra on both sides: `docsmcp[gguf]` for
building, `docsmcp-runtime[gguf]` beside the server. The llama.cpp calls are the runtime's
(search/gguf_model.py), so chunks and queries are embedded by the same code. A GGUF rescoring
model (`--rescore-model FILE.gguf`, rescore.py) embeds chunks with this provider too."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from docsmcp_runtime.format import GgufOptions
from docsmcp_runtime.search.gguf_model import GgufError, GgufModel, file_sha256

from docsmcp.embeddings.embed import EmbeddingOptions, ProviderError, fingerprint_of
from docsmcp.embeddings.windows import pool_windows, split_windows

INSTALL = (
    "needs llama-cpp-python: pip install 'docsmcp[gguf]' (it builds llama.cpp from source, "
    "~35 minutes on 2 cores)"
)
SEARCH_INSTRUCTION = "Represent this sentence for searching relevant passages: "


@dataclass(frozen=True)
class Prompts:
    query: str
    document: str


# The retrieval prompts of well-known embedding models (their model cards), by a name that
# their GGUF metadata (general.basename, general.name) or file name contains: a GGUF file
# carries no prompts, and these models lose much without them. The first match wins;
# --embedding-query-prompt and --embedding-document-prompt override it.
KNOWN_PROMPTS: tuple[tuple[str, Prompts], ...] = (
    ("nomic-embed-text", Prompts("search_query: ", "search_document: ")),
    ("embeddinggemma", Prompts("task: search result | query: ", "title: none | text: ")),
    ("multilingual-e5", Prompts("query: ", "passage: ")),
    ("e5-small", Prompts("query: ", "passage: ")),
    ("e5-base", Prompts("query: ", "passage: ")),
    ("e5-large", Prompts("query: ", "passage: ")),
    ("bge-small-en", Prompts(SEARCH_INSTRUCTION, "")),
    ("bge-base-en", Prompts(SEARCH_INSTRUCTION, "")),
    ("bge-large-en", Prompts(SEARCH_INSTRUCTION, "")),
    ("mxbai-embed-large", Prompts(SEARCH_INSTRUCTION, "")),
)


def known_prompts(names: list[str]) -> Prompts:
    """The prompts of the first KNOWN_PROMPTS model that one of `names` names, else none."""
    plain = [re.sub(r"[\s_.]+", "-", n.lower()) for n in names if n]
    for key, prompts in KNOWN_PROMPTS:
        if any(key in n for n in plain):
            return prompts
    return Prompts("", "")


def cpu_count() -> int:
    """The cores this process may run on (`--embedding-threads 0`)."""
    affinity = getattr(os, "sched_getaffinity", None)
    return len(affinity(0)) if affinity else os.cpu_count() or 1


class GgufProvider:
    name = "gguf"

    def __init__(self, options: EmbeddingOptions, flags: str = "--embedding") -> None:
        """`flags`: the prefix of the flags that named the model and its settings, for the
        messages (`--embedding`, or `--rescore` for a rescoring model)."""
        uses = "--embedding-provider gguf" if flags == "--embedding" else f"{flags}-model FILE.gguf"
        if not options.model:
            raise ProviderError(
                "--embedding-provider gguf needs --embedding-model FILE.gguf (a GGUF embedding "
                "model, e.g. nomic-embed-text-v1.5.f16.gguf)"
            )
        path = Path(options.model).expanduser()
        if not path.is_file():
            raise ProviderError(f"{flags}-model {path}: no such GGUF file")
        self.path = path.resolve()
        threads = options.threads or cpu_count()
        try:
            self._model = model = GgufModel(self.path, threads, f"{uses} {INSTALL}")
        except GgufError as exc:
            raise ProviderError(str(exc)) from None
        full = model.dimensions
        if options.dimensions and not 0 < options.dimensions <= full:
            raise ProviderError(
                f"model {path} makes {full}-dimensional vectors; {flags}-dimensions "
                f"{options.dimensions} can only keep fewer (Matryoshka models)"
            )
        self.dimensions = options.dimensions or full
        self._full = full
        meta = model.metadata
        known = known_prompts(
            [meta.get("general.basename", ""), meta.get("general.name", ""), self.path.name]
        )
        self.query_prompt = known.query if options.query_prompt is None else options.query_prompt
        self.document_prompt = (
            known.document if options.document_prompt is None else options.document_prompt
        )
        self.context_tokens = model.window
        self.model = self.path.name
        # Named by content, never by path: the runtime checks it finds this very file.
        self._sha256 = file_sha256(self.path)

    def fingerprint(self) -> str:
        config = {
            "provider": self.name,
            "content": self._sha256,
            "window": self.context_tokens,
            "prompt": self.document_prompt,
            "dimensions": self.dimensions,
            "v": 1,
        }
        return fingerprint_of(config)

    def embed_documents(self, texts: list[str], ids: list[str]) -> np.ndarray:
        """A text longer than the window is embedded as the mean of its first windows
        (windows.py), each input with the model's document prompt."""
        pieces, owner = split_windows(texts, self.context_tokens)
        vectors = self._model.embed([self.document_prompt + p for p in pieces])
        return pool_windows(vectors, owner, len(texts), self.dimensions)

    def bundle_spec(self) -> GgufOptions:
        return GgufOptions(
            model_name=self.model,
            sha256=self._sha256,
            model_dimensions=self._full,
            query_prompt=self.query_prompt,
            document_prompt=self.document_prompt,
        )

    def bundle_files(self) -> dict[str, bytes]:
        return {}  # the weights stay out of the bundle: DOCSMCP_GGUF_MODEL names them
