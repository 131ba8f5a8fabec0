"""The rescoring stage of a bundle (`docsmcp build --rescore-model DIR|FILE.gguf`, issue 29): a
strong model embeds every chunk once at build time, and the runtime reorders the first stage's
best hits with its query side (bundle-spec.md, *Rescoring*; the runtime's search/rescore.py).

Two kinds of model. A sentence-transformers directory (heavy and optional here:
`docsmcp[sentence-transformers]`): its query side is exported to ONNX into the bundle, so the
runtime needs onnxruntime alone. A GGUF file (`docsmcp[gguf]`, llama.cpp): the gguf provider
embeds the chunks (providers_gguf.py, the runtime's llama.cpp code) and the bundle names the file
by name and sha256, as the hybrid provider's does; the runtime runs the same file for queries.

Document vectors go through the embedding cache like any provider's (a GGUF model's are the
gguf provider's, shared with a hybrid build of the same file); the exported encoder is cached by
the model's content, so a rebuild after an edit embeds the edited chunks and nothing else.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from docsmcp_runtime.distribution.swap import replace_file
from docsmcp_runtime.format.rescore import (
    DEFAULT_DEPTH,
    DEFAULT_RECALL,
    DEFAULT_WEIGHTS,
    RESCORE_ENCODER_FILE,
    RESCORE_TOKENIZER_FILE,
    GgufEncoder,
    Rescore,
    RescoreEncoder,
    RescoreModel,
)
from docsmcp_runtime.search.embedding import model_fingerprint

from docsmcp.common.progress import Progress
from docsmcp.embeddings.embed import EmbeddingOptions, ProviderError, fingerprint_of
from docsmcp.embeddings.providers_gguf import GgufProvider
from docsmcp.embeddings.st_model import dimensions_of, load_model, prompts_of
from docsmcp.embeddings.vectorize import embed_chunks
from docsmcp.model.chunk import Chunk

log = logging.getLogger(__name__)

# Tokens of a chunk the model reads: its head says what it is about, and a transformer's cost
# grows faster than its input (EmbeddingGemma on 2 CPU cores: ~0.8 s for 512 tokens).
DEFAULT_MAX_TOKENS = 512


@dataclass(frozen=True)
class RescoreOptions:
    # a sentence-transformers model directory or a .gguf file; None: no rescoring
    model: Path | None = None
    dimensions: int | None = None  # Matryoshka truncation (e.g. 256 for EmbeddingGemma)
    depth: int = DEFAULT_DEPTH
    recall: int = DEFAULT_RECALL
    weights: tuple[tuple[str, float], ...] = tuple(DEFAULT_WEIGHTS.items())  # per query class
    max_tokens: int = DEFAULT_MAX_TOKENS
    quantize: bool = True  # int8 query encoder where it agrees with f32 (onnx_export.py)
    # None: the model's own (a sentence-transformers config's; a known GGUF model's)
    query_prompt: str | None = None
    document_prompt: str | None = None
    threads: int = 0  # a GGUF model's llama.cpp threads (0: one per core)

    @property
    def gguf(self) -> bool:
        """The model is a GGUF file (by its name: a directory is never one)."""
        return self.model is not None and self.model.suffix.lower() == ".gguf"


class DocumentEncoder:
    """The document side, shaped as an embedding provider so embed_chunks caches its vectors."""

    name = "rescore"

    def __init__(self, options: RescoreOptions, batch_size: int = 16) -> None:
        assert options.model is not None
        folder = options.model.expanduser()
        if not folder.is_dir():
            raise ProviderError(f"--rescore-model {folder}: not a directory")
        model = load_model(
            folder,
            "--rescore-model",
            "--rescore-model needs sentence-transformers: "
            "pip install 'docsmcp[sentence-transformers]'",
        )
        self.folder = folder.resolve()
        self._model = model
        self.batch_size = batch_size
        self.max_tokens = min(int(model.max_seq_length or options.max_tokens), options.max_tokens)
        model.max_seq_length = self.max_tokens
        full = dimensions_of(model)
        if options.dimensions is not None and not 0 < options.dimensions <= full:
            raise ProviderError(
                f"--rescore-dimensions {options.dimensions}: the model makes {full} values"
            )
        self.dimensions = options.dimensions or full
        prompts = prompts_of(model)
        self.document_prompt = _or(options.document_prompt, prompts.document)
        self.query_prompt = _or(options.query_prompt, prompts.query)
        self.model = display_name(self.folder)
        self.context_tokens = self.max_tokens
        self.content = model_fingerprint(self.folder)

    def fingerprint(self) -> str:
        return fingerprint_of(
            {
                "provider": self.name,
                "content": self.content,
                "prompt": self.document_prompt,
                "max_tokens": self.max_tokens,
                "dimensions": self.dimensions,
                "v": 1,
            }
        )

    def embed_documents(self, texts: list[str], ids: list[str]) -> np.ndarray:
        vectors = self._model.encode(
            texts,
            prompt=self.document_prompt or None,
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        # Matryoshka models keep their meaning in the first values; embed_chunks renormalises.
        return np.asarray(vectors, dtype=np.float32)[:, : self.dimensions]

    def spec(self, options: RescoreOptions, weights: str, output: str) -> Rescore:
        model = RescoreModel(
            self.model, self.content, self.dimensions, self.document_prompt, self.query_prompt,
            self.max_tokens,
        )  # fmt: skip
        return _section(options, model, RescoreEncoder(weights=weights, output=output))


def display_name(folder: Path) -> str:
    """A model directory's name for people: a Hugging Face cache snapshot
    (`models--org--name/snapshots/<commit>`) is `name`, a folder called `model` (as packages
    ship them) is named by its parent."""
    if folder.parent.name == "snapshots" and folder.parent.parent.name.startswith("models--"):
        return folder.parent.parent.name.split("--")[-1]
    if folder.name.lower() in ("model", "models") and folder.parent.name:
        return folder.parent.name
    return folder.name


def _or(given: str | None, default: str) -> str:
    return default if given is None else given


def document_encoder(options: RescoreOptions) -> DocumentEncoder | GgufProvider:
    """The model that embeds the chunks, loaded (the build calls this before reading the docs,
    so a missing package or a wrong path stops it at once)."""
    if not options.gguf:
        return DocumentEncoder(options)
    assert options.model is not None
    embedding = EmbeddingOptions(
        provider="gguf",
        model=str(options.model),
        dimensions=options.dimensions,
        threads=options.threads,
        query_prompt=options.query_prompt,
        document_prompt=options.document_prompt,
    )
    return GgufProvider(embedding, flags="--rescore")


def build_rescore(
    options: RescoreOptions,
    encoder: DocumentEncoder | GgufProvider,
    chunks: list[Chunk],
    cache_dir: Path,
    progress: Callable[[str, int], Progress] | None = None,
    key: str = "",
) -> tuple[Rescore, dict[str, np.ndarray], dict[str, bytes]]:
    """The `rescore` section, its vectors (by array name) and its files (by name)."""
    vectors, stats = embed_chunks(encoder, chunks, cache_dir / "embeddings", progress, key)
    if stats.total:
        log.info(
            "rescoring model %r embedded %d of %d chunks (%d from the cache)",
            encoder.model,
            stats.embedded,
            stats.total,
            stats.cached,
        )
    arrays = {"rescore_vectors": vectors}
    if isinstance(encoder, GgufProvider):
        return _gguf_spec(encoder, options), arrays, {}  # the file stays outside the bundle
    exported = _query_encoder(encoder, options, cache_dir / "encoders")
    spec = encoder.spec(options, exported.weights, exported.output)
    files = {RESCORE_ENCODER_FILE: exported.model, RESCORE_TOKENIZER_FILE: exported.tokenizer}
    return spec, arrays, files


def _gguf_spec(provider: GgufProvider, options: RescoreOptions) -> Rescore:
    named = provider.bundle_spec()
    model = RescoreModel(
        named.model_name, named.sha256, provider.dimensions, provider.document_prompt,
        provider.query_prompt, provider.context_tokens,
    )  # fmt: skip
    return _section(options, model, GgufEncoder(file=named.model_name, sha256=named.sha256))


def _section(
    options: RescoreOptions, model: RescoreModel, encoder: RescoreEncoder | GgufEncoder
) -> Rescore:
    """The `rescore` section of `model` and its query `encoder`, as the options set it."""
    return Rescore(
        model=model,
        encoder=encoder,
        depth=options.depth,
        recall=options.recall,
        weights=dict(options.weights),
    )


@dataclass(frozen=True)
class _Exported:
    model: bytes
    tokenizer: bytes
    weights: str  # "int8" or "f32"
    output: str  # the graph output holding the vector


def _query_encoder(encoder: DocumentEncoder, options: RescoreOptions, folder: Path) -> _Exported:
    """The exported ONNX query encoder, from the cache when this model was exported before
    (exporting a 300M-parameter model takes minutes)."""
    name = hashlib.sha256(
        f"{encoder.content}\0{encoder.dimensions}\0{options.quantize}\0v2".encode()
    ).hexdigest()[:32]
    paths = [folder / f"{name}.{part}" for part in ("onnx", "tokenizer.json", "json")]
    if all(p.is_file() for p in paths):
        try:
            about = json.loads(paths[2].read_text())
            return _Exported(
                paths[0].read_bytes(), paths[1].read_bytes(), about["weights"], about["output"]
            )
        except (OSError, ValueError, KeyError) as exc:
            log.warning("exported encoder cache %s unreadable (%s); exporting again", name, exc)
    from docsmcp.embeddings.onnx_export import export_query_encoder

    made = export_query_encoder(
        encoder.folder, dimensions=encoder.dimensions, quantize=options.quantize
    )
    exported = _Exported(made.model, made.tokenizer, made.weights, made.spec.output)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        replace_file(paths[0], exported.model)
        replace_file(paths[1], exported.tokenizer)
        about = {"weights": exported.weights, "output": exported.output}
        replace_file(paths[2], json.dumps(about).encode())
    except OSError as exc:
        log.warning("could not cache the exported encoder in %s (%s)", folder, exc)
    return exported
