"""The embedding providers: one registry for the builder, the runtime and the format.

Each entry names the provider, its typed `embedding.options`, the search settings calibrated for
it, and where its two halves live: the builder's document embedder (a `docsmcp` class, imported
only by the builder) and the runtime's query embedder (imported only when a bundle needs it).
Nothing heavy is imported here.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any, Protocol

from ..records import record
from . import jsonread as j
from .jsonread import MetadataError


class ProviderOptions(Protocol):
    """`embedding.options` of one provider: what the runtime needs to embed queries."""

    @property
    def files(self) -> tuple[str, ...]:
        """Bundle files the provider's query embedder reads (listed in `files`)."""
        ...

    def to_json(self) -> dict: ...


class _NoFiles:
    @property
    def files(self) -> tuple[str, ...]:
        return ()


@record
class RawOptions(_NoFiles):
    """Options of a provider this reader does not know (kept, never interpreted)."""

    data: Mapping[str, Any]

    def to_json(self) -> dict:
        return dict(self.data)


@record
class NoOptions(_NoFiles):
    """`hash`: the vectors need nothing beyond `dimensions`."""

    def to_json(self) -> dict:
        return {}

    @classmethod
    def from_json(cls, value: object, path: str) -> NoOptions:
        j.obj(value, path)
        return cls()


@record
class TokenizerOptions:
    """The static provider's BERT WordPiece settings (bundle-spec.md, *Static embeddings*)."""

    lowercase: bool = True
    strip_accents: bool = True
    cjk_chars: bool = True  # pad CJK ideographs with spaces (BERT's tokenize_chinese_chars)
    unk_token: str = "[UNK]"
    continuation_prefix: str = "##"

    def to_json(self) -> dict:
        return {
            "lowercase": self.lowercase,
            "strip_accents": self.strip_accents,
            "cjk_chars": self.cjk_chars,
            "unk_token": self.unk_token,
            "continuation_prefix": self.continuation_prefix,
        }

    @classmethod
    def from_json(cls, value: object, path: str = "tokenizer") -> TokenizerOptions:
        data = j.obj(value, path)
        d = cls()
        return cls(
            lowercase=j.optional(data, "lowercase", path, j.boolean, d.lowercase),
            strip_accents=j.optional(data, "strip_accents", path, j.boolean, d.strip_accents),
            cjk_chars=j.optional(data, "cjk_chars", path, j.boolean, d.cjk_chars),
            unk_token=j.optional(data, "unk_token", path, j.string, d.unk_token),
            continuation_prefix=j.optional(
                data, "continuation_prefix", path, j.nonempty, d.continuation_prefix
            ),
        )


STATIC_VOCAB_FILE = "static_vocab.txt"
STATIC_TABLE_FILE = "static_table.bin"
# static_table.bin: rows of each encoding, then (i8 only) one float32 scale per row.
STATIC_ROW_DTYPES = {"f16": "<f2", "i8": "|i1"}
STATIC_SCALE_DTYPE = "<f4"
STATIC_ENCODINGS = tuple(STATIC_ROW_DTYPES)


@record
class StaticOptions:
    encoding: str
    table_sha256: str
    tokenizer: TokenizerOptions = TokenizerOptions()
    vocab_file: str = STATIC_VOCAB_FILE
    table_file: str = STATIC_TABLE_FILE

    def to_json(self) -> dict:
        return {
            "encoding": self.encoding,
            "tokenizer": self.tokenizer.to_json(),
            "files": {"vocab": self.vocab_file, "table": self.table_file},
            "table_sha256": self.table_sha256,
        }

    @classmethod
    def from_json(cls, value: object, path: str) -> StaticOptions:
        from .layout import is_plain_name

        data = j.obj(value, path)
        encoding = j.field(data, "encoding", path, j.string)
        if encoding not in STATIC_ENCODINGS:
            raise MetadataError(j.join(path, "encoding"), f"unknown encoding {encoding!r}")
        files_path = j.join(path, "files")
        files = j.field(data, "files", path, j.obj)
        names = {k: j.field(files, k, files_path, j.string) for k in ("vocab", "table")}
        for key, name in names.items():
            # File names come from metadata.json: never let them point outside the bundle.
            if not is_plain_name(name):
                raise MetadataError(j.join(files_path, key), f"not a plain file name: {name!r}")
        return cls(
            encoding=encoding,
            table_sha256=j.field(data, "table_sha256", path, j.string),
            tokenizer=j.optional(
                data, "tokenizer", path, TokenizerOptions.from_json, TokenizerOptions()
            ),
            vocab_file=names["vocab"],
            table_file=names["table"],
        )

    @property
    def files(self) -> tuple[str, ...]:
        return (self.vocab_file, self.table_file)


@record
class OpenAIOptions(_NoFiles):
    base_url: str
    model: str
    dimensions: int
    send_dimensions: bool = False  # only models that accept `dimensions` get it
    api_key_env: str = "OPENAI_API_KEY"

    def to_json(self) -> dict:
        return {
            "base_url": self.base_url,
            "model": self.model,
            "dimensions": self.dimensions,
            "send_dimensions": self.send_dimensions,
            "api_key_env": self.api_key_env,
        }

    @classmethod
    def from_json(cls, value: object, path: str) -> OpenAIOptions:
        data = j.obj(value, path)
        d = {"send_dimensions": False, "api_key_env": "OPENAI_API_KEY"}
        return cls(
            base_url=j.field(data, "base_url", path, j.nonempty),
            model=j.field(data, "model", path, j.nonempty),
            dimensions=j.field(data, "dimensions", path, lambda v, p: j.integer(v, p, 1)),
            send_dimensions=j.optional(
                data, "send_dimensions", path, j.boolean, d["send_dimensions"]
            ),
            api_key_env=j.optional(data, "api_key_env", path, j.nonempty, d["api_key_env"]),
        )


@record
class SentenceTransformersOptions(_NoFiles):
    """The model is named by content, not location: the same docs built from two checkouts give
    the same bundle, and the runtime finds the model by $DOCSMCP_ST_MODEL or the packaged one."""

    model_name: str
    content_sha256: str
    # The model's own prompts (config_sentence_transformers.json: "query", "document" or
    # "passage"), prepended to queries and chunks: EmbeddingGemma, e5, bge... need them.
    query_prompt: str = ""
    document_prompt: str = ""

    def to_json(self) -> dict:
        data = {"model_name": self.model_name, "content_sha256": self.content_sha256}
        # Written only when set: bundles of prompt-less models keep their bytes.
        if self.query_prompt or self.document_prompt:
            data.update(query_prompt=self.query_prompt, document_prompt=self.document_prompt)
        return data

    @classmethod
    def from_json(cls, value: object, path: str) -> SentenceTransformersOptions:
        data = j.obj(value, path)
        digest = j.field(data, "content_sha256", path, j.sha256_hex)
        return cls(
            model_name=j.field(data, "model_name", path, j.nonempty),
            content_sha256=digest,
            query_prompt=j.optional(data, "query_prompt", path, j.string, ""),
            document_prompt=j.optional(data, "document_prompt", path, j.string, ""),
        )


@record
class GgufOptions(_NoFiles):
    """`gguf`: one GGUF file run by llama.cpp, named by content (the file's sha256) like
    `sentence-transformers`; the runtime finds it by $DOCSMCP_GGUF_MODEL and checks the digest.
    Pooling is the file's own (its GGUF metadata), so the digest pins it too."""

    model_name: str  # the file's name: what $DOCSMCP_GGUF_MODEL points at (or a folder holding it)
    sha256: str
    model_dimensions: int  # the model's vector length; `embedding.dimensions` may keep fewer
    query_prompt: str = ""  # prepended to each query (nomic-embed-text: "search_query: ")
    document_prompt: str = ""  # prepended to each chunk's embedding input

    def to_json(self) -> dict:
        return {
            "model_name": self.model_name,
            "sha256": self.sha256,
            "model_dimensions": self.model_dimensions,
            "query_prompt": self.query_prompt,
            "document_prompt": self.document_prompt,
        }

    @classmethod
    def from_json(cls, value: object, path: str) -> GgufOptions:
        data = j.obj(value, path)
        digest = j.field(data, "sha256", path, j.sha256_hex)
        return cls(
            model_name=j.field(data, "model_name", path, j.nonempty),
            sha256=digest,
            model_dimensions=j.field(
                data, "model_dimensions", path, lambda v, p: j.integer(v, p, 1)
            ),
            query_prompt=j.optional(data, "query_prompt", path, j.string, ""),
            document_prompt=j.optional(data, "document_prompt", path, j.string, ""),
        )


@record
class SearchDefaults:
    """Hybrid-search settings calibrated per provider, written into the bundle at build time."""

    similarity_floor: float  # cosine below which a vector-only candidate is dropped
    collapse_similarity: float  # cosine above which two variants of a section fold
    vector_weight: float  # the vector list's RRF weight


@record
class ProviderInfo:
    name: str
    summary: str  # for --help
    options: Any  # the options class (from_json / to_json)
    defaults: SearchDefaults
    builder: str  # "module:Class" of the builder's provider
    embedder: str  # "module:function(embedding, bundle_dir) -> QueryEmbedder" of the runtime


PROVIDERS: dict[str, ProviderInfo] = {
    p.name: p
    for p in (
        ProviderInfo(
            "hash",
            "deterministic feature hashing, for tests",
            NoOptions,
            # Shared words are the only signal, so unrelated texts sit near 0 and variants of
            # one section (same prose, different code) near 0.5-0.9.
            SearchDefaults(similarity_floor=0.15, collapse_similarity=0.5, vector_weight=0.5),
            "docsmcp.embeddings.embed:HashProvider",
            "docsmcp_runtime.search.embedding:hash_embedder",
        ),
        ProviderInfo(
            "static",
            "a distilled all-MiniLM-L6-v2 token table shipped with docsmcp and copied into the "
            "bundle: offline, queries embed in ~40 µs with numpy",
            StaticOptions,
            # Measured on speakeasy-sdks: off-topic queries reach 0.18-0.45 against the corpus,
            # the answers of dev queries 0.47-0.77; variants of one section across languages
            # ~0.9. Fusion weight from the dev set (k = 60): any larger vector weight reorders
            # exact identifier matches (exact-name MRR 1.0 -> 0.63 at 0.25).
            SearchDefaults(similarity_floor=0.5, collapse_similarity=0.85, vector_weight=0.05),
            "docsmcp.embeddings.providers_static:StaticProvider",
            "docsmcp_runtime.search.static_model:static_embedder",
        ),
        ProviderInfo(
            "openai",
            "any OpenAI-compatible /embeddings endpoint",
            OpenAIOptions,
            # text-embedding-3 cosines run low: unrelated text ~0.0-0.2, on-topic ~0.3-0.7, and
            # the same section in two SDK languages ~0.9+. The vector weight is NOT measured
            # (no network here): the measured optimum of the closest model we could run
            # (sentence-transformers, 0.1), since with k = 60 any larger weight reorders exact
            # identifier hits. Override with --fusion-weights.
            SearchDefaults(similarity_floor=0.25, collapse_similarity=0.9, vector_weight=0.1),
            "docsmcp.embeddings.providers_openai:OpenAIProvider",
            "docsmcp_runtime.search.openai_client:openai_embedder",
        ),
        ProviderInfo(
            "sentence-transformers",
            "a local model directory (--embedding-model DIR); needs "
            "docsmcp[sentence-transformers] here and sentence-transformers beside the runtime",
            SentenceTransformersOptions,
            # all-MiniLM-L6-v2 on speakeasy-sdks: off-topic queries peak ~0.3, answers 0.4-0.7.
            # Dev set (MRR@5): vector weight 0 / 0.1 / 0.5 / 1 gave 0.614 / 0.625 / 0.610 / 0.581.
            SearchDefaults(similarity_floor=0.35, collapse_similarity=0.9, vector_weight=0.1),
            "docsmcp.embeddings.providers_st:SentenceTransformersProvider",
            "docsmcp_runtime.search.embedding:sentence_transformers_embedder",
        ),
        ProviderInfo(
            "gguf",
            "a local GGUF embedding model run by llama.cpp (--embedding-model FILE.gguf); needs "
            "docsmcp[gguf] here and docsmcp-runtime[gguf] beside the server (llama-cpp-python)",
            GgufOptions,
            # The same kind of model as sentence-transformers (all-MiniLM-L6-v2 as GGUF gives
            # its vectors): its calibration until a GGUF model is measured on the dev sets.
            SearchDefaults(similarity_floor=0.35, collapse_similarity=0.9, vector_weight=0.1),
            "docsmcp.embeddings.providers_gguf:GgufProvider",
            "docsmcp_runtime.search.gguf_model:gguf_embedder",
        ),
    )
}


def load(reference: str) -> Any:
    """The object named `module:attribute`, imported now (providers load lazily)."""
    module, _, attribute = reference.partition(":")
    return getattr(importlib.import_module(module), attribute)
