"""The model flags of `docsmcp build` (a rescoring model, embeddings for hybrid search): one
home for their definitions, shared by `build` and everything that builds (watch)."""

from __future__ import annotations

import argparse
from pathlib import Path

from docsmcp_runtime.format import FUSION_LISTS, PROVIDERS, Fusion
from docsmcp_runtime.format.rescore import DEFAULT_WEIGHTS as DEFAULT_RESCORE_WEIGHTS

from docsmcp.embeddings.embed import PROVIDER_CHOICES, EmbeddingOptions
from docsmcp.embeddings.rescore import RescoreOptions
from docsmcp.embeddings.vectorize import IVF_THRESHOLD


def add_model_arguments(parser: argparse.ArgumentParser) -> None:
    """The argument groups "rescoring model" and "embeddings (hybrid search)"."""
    r = parser.add_argument_group("rescoring model")
    r.add_argument(
        "--rescore-model",
        type=Path,
        metavar="DIR|FILE.gguf",
        help="a model that embeds every chunk and reorders the best hits of each search: a "
        "sentence-transformers directory (EmbeddingGemma, mpnet, bge, e5, gte...), its query "
        "side exported to ONNX into the bundle (needs docsmcp[sentence-transformers] here and "
        "docsmcp-runtime[onnx] beside the server), or a GGUF embedding model (nomic-embed-text, "
        "bge, e5...) run by llama.cpp, named in the bundle by sha256 and found by the runtime "
        "through $DOCSMCP_RESCORE_MODEL (needs docsmcp[gguf] here and docsmcp-runtime[gguf] "
        "beside the server)",
    )
    r.add_argument(
        "--rescore-dimensions",
        type=int,
        metavar="N",
        help="keep the first N values of the model's vectors (Matryoshka models, e.g. 256)",
    )
    r.add_argument(
        "--rescore-depth",
        type=int,
        default=RescoreOptions.depth,
        metavar="N",
        help="best hits of the first stage that the model reorders "
        f"(default {RescoreOptions.depth})",
    )
    r.add_argument(
        "--rescore-recall",
        type=int,
        default=RescoreOptions.recall,
        metavar="N",
        help="the model's own N nearest chunks (within the filters) join the hits it reorders: "
        "what full text missed for a question in a reader's words "
        f"(default {RescoreOptions.recall}; 0: none)",
    )
    r.add_argument(
        "--rescore-weights",
        metavar="CLASS=SHARE,...",
        help="the model's share of the order per query class, 0-1 (default "
        + ",".join(f"{k}={v:g}" for k, v in DEFAULT_RESCORE_WEIGHTS.items())
        + "; identifier lookups keep 0 unless named); a strong model earns more: "
        "EmbeddingGemma measured best at mixed=0.5,question=0.8 with --rescore-recall 30",
    )
    r.add_argument(
        "--rescore-f32",
        action="store_true",
        help="keep the ONNX query encoder's float32 weights (default: int8 where it agrees with "
        "them)",
    )
    r.add_argument(
        "--rescore-query-prompt",
        metavar="TEXT",
        help="text prepended to each query, e.g. 'search_query: ' (default: the model's own: a "
        "sentence-transformers config's, or a known GGUF model's as for "
        "--embedding-query-prompt; '' for none)",
    )
    r.add_argument(
        "--rescore-document-prompt",
        metavar="TEXT",
        help="text prepended to each chunk's input, e.g. 'search_document: ' (default: as "
        "--rescore-query-prompt)",
    )
    g = parser.add_argument_group("embeddings (hybrid search)")
    g.add_argument(
        "--embedding-provider",
        choices=PROVIDER_CHOICES,
        default="none",
        help="none (full-text only, default); "
        + "; ".join(f"{name}: {info.summary}" for name, info in PROVIDERS.items()),
    )
    g.add_argument(
        "--embedding-model",
        metavar="NAME|DIR|FILE",
        help="model name (openai), model directory (sentence-transformers), GGUF file (gguf) "
        "or table directory (static; default: the table shipped with docsmcp)",
    )
    g.add_argument(
        "--embedding-dimensions", type=int, metavar="N", help="vector size (where adjustable)"
    )
    g.add_argument(
        "--embedding-base-url",
        metavar="URL",
        help="openai: endpoint, e.g. http://localhost:8080/v1",
    )
    g.add_argument(
        "--embedding-api-key-env",
        default=EmbeddingOptions.api_key_env,
        metavar="VAR",
        help="openai: environment variable holding the API key",
    )
    g.add_argument(
        "--embedding-concurrency",
        type=int,
        default=EmbeddingOptions.concurrency,
        metavar="N",
        help="openai: parallel requests (429 and 5xx are retried, honouring Retry-After)",
    )
    g.add_argument(
        "--embedding-batch-size",
        type=int,
        default=EmbeddingOptions.batch_size,
        metavar="N",
        help="inputs per request",
    )
    g.add_argument(
        "--embedding-threads",
        type=int,
        default=EmbeddingOptions.threads,
        metavar="N",
        help="gguf (and a .gguf --rescore-model): llama.cpp threads embedding chunks (default 0: "
        "one per core; the runtime uses $DOCSMCP_GGUF_THREADS, default 1)",
    )
    g.add_argument(
        "--embedding-query-prompt",
        metavar="TEXT",
        help="gguf: text prepended to each query, e.g. 'search_query: ' (default: the prompt "
        "of a known model the file names: nomic-embed-text, EmbeddingGemma, e5, bge-*-en, "
        "mxbai-embed-large; '' for none)",
    )
    g.add_argument(
        "--embedding-document-prompt",
        metavar="TEXT",
        help="gguf: text prepended to each chunk's input, e.g. 'search_document: ' (default: "
        "as --embedding-query-prompt)",
    )
    g.add_argument(
        "--cache-dir",
        type=Path,
        metavar="DIR",
        help="cache root: parsed files, embeddings, PDF text and git checkouts, so rebuilds "
        "parse only files and embed only sections whose text changed (default: "
        "$DOCSMCP_CACHE_DIR, else $XDG_CACHE_HOME/docsmcp, else ~/.cache/docsmcp; see "
        "docsmcp cache)",
    )
    g.add_argument(
        "--fusion-weights",
        metavar="NAME=W,...",
        help="Reciprocal Rank Fusion weights of the "
        f"{', '.join(FUSION_LISTS)} lists, e.g. vector=0.2; weights other than the "
        "provider's make the runtime fuse by RRF instead of its query-aware default (default: "
        f"lexical={Fusion(vector=0).lexical:g}, proximity={Fusion(vector=0).proximity:g}, "
        "vector: the provider's; k = "
        f"{Fusion(vector=0).k:g})",
    )
    g.add_argument(
        "--similarity-floor",
        metavar="COSINE",
        help="minimum cosine of hits found only by vectors, so unrelated queries still get no "
        "hits (default: the provider's, "
        + ", ".join(f"{n} {i.defaults.similarity_floor:g}" for n, i in PROVIDERS.items())
        + ")",
    )
    g.add_argument(
        "--collapse-similarity",
        metavar="COSINE",
        help="minimum cosine for collapsing variants of one section (default: the provider's, "
        + ", ".join(f"{n} {i.defaults.collapse_similarity:g}" for n, i in PROVIDERS.items())
        + ")",
    )
    g.add_argument(
        "--ivf-threshold",
        type=int,
        default=IVF_THRESHOLD,
        metavar="N",
        help="above this many chunks, partition vectors with k-means (needs docsmcp[ivf]; "
        "0 = never)",
    )
