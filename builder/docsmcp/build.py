"""The build pipeline: discover → parse → chunk → index → write."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from docsmcp_runtime.analyzer import AnalyzerConfig
from docsmcp_runtime.tools import default_tool_descriptions

from . import __version__
from .chunk import DEFAULT_MAX_CHUNK_SIZE, Chunk, chunk_file
from .embed import EmbeddingOptions, EmbeddingProvider, make_provider
from .index import LexicalParams, build_index
from .manifest import Corpus, Problem, load_corpus
from .vectorize import IVF_THRESHOLD, build_ivf, embed_chunks
from .write import write_bundle

# Characters per model token when sizing chunks for an embedding context window (English
# prose and code average about four).
CHARS_PER_TOKEN = 4


@dataclass(frozen=True)
class BuildOptions:
    docs_dir: Path
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    name: str | None = None
    description: str | None = None
    instructions: str | None = None
    search_description: str | None = None
    get_doc_description: str | None = None
    analyzer: AnalyzerConfig = field(default_factory=AnalyzerConfig)
    lexical: LexicalParams = field(default_factory=LexicalParams)
    embedding: EmbeddingOptions = field(default_factory=EmbeddingOptions)
    cache_dir: Path | None = None  # embedding cache; default: beside the output, <out>.cache
    fusion: dict[str, float] = field(default_factory=dict)  # RRF weights overriding defaults
    similarity_floor: float | None = None  # default: the provider's
    collapse_similarity: float | None = None
    ivf_threshold: int = IVF_THRESHOLD  # chunks above which an IVF index is built


@dataclass(frozen=True)
class Collected:
    corpus: Corpus
    chunks: list[Chunk]
    problems: list[Problem]


class BuildError(Exception):
    """The docs cannot be built; `problems` lists every reason."""

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__(f"{len(problems)} problem(s)")
        self.problems = problems


def default_max_chunk_size(provider: EmbeddingProvider | None) -> int:
    """Chunks are sized to fit the provider's context window unless a manifest says otherwise."""
    if provider is None:
        return DEFAULT_MAX_CHUNK_SIZE
    return max(500, min(DEFAULT_MAX_CHUNK_SIZE, provider.context_tokens * CHARS_PER_TOKEN))


def collect(options: BuildOptions, provider: EmbeddingProvider | None = None) -> Collected:
    """Load and chunk the corpus, gathering every problem a build would reject."""
    corpus = load_corpus(options.docs_dir, options.include, options.exclude)
    problems = list(corpus.problems)
    chunks: list[Chunk] = []
    seen: dict[str, str] = {}
    default_max = default_max_chunk_size(provider)
    for sf in corpus.files:
        for c in chunk_file(sf, default_max):
            if c.id in seen:
                problems.append(
                    Problem(
                        sf.path, c.line_start, f"duplicate chunk id {c.id!r} (also in {seen[c.id]})"
                    )
                )
                continue
            seen[c.id] = sf.path
            chunks.append(c)
    if not corpus.files and not problems:
        problems.append(
            Problem(".", None, "no .md or .mdx files found (check --include/--exclude)")
        )
    return Collected(corpus, chunks, problems)


def source_commit(docs_dir: Path) -> str | None:
    try:
        res = subprocess.run(
            ["git", "-C", str(docs_dir), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return res.stdout.strip() if res.returncode == 0 and res.stdout.strip() else None


def taxonomy_json(corpus: Corpus, chunks: list[Chunk]) -> dict:
    values: dict[str, set[str]] = {k: set() for k in corpus.taxonomy}
    for c in chunks:
        for k, v in c.metadata:
            values.setdefault(k, set()).add(v)
    out = {}
    for key in sorted(values):
        cfg = corpus.taxonomy.get(key)
        out[key] = {
            "description": (
                cfg.description if cfg and cfg.description else f"Filter results by {key}."
            ),
            "vector_collapse": bool(cfg and cfg.vector_collapse),
            "values": sorted(values[key]),
        }
    return out


def describe(name: str, corpus: Corpus, taxonomy: dict) -> str:
    facets = "; ".join(f"{k}: {', '.join(v['values'])}" for k, v in taxonomy.items() if v["values"])
    text = f"{name} documentation ({len(corpus.files)} pages"
    return text + (f"; {facets})" if facets else ")")


def build(options: BuildOptions, out: Path) -> dict:
    """Build a bundle at `out`; raise BuildError listing every problem, leaving `out` untouched."""
    started = time.perf_counter()
    provider = make_provider(options.embedding)
    collected = collect(options, provider)
    if collected.problems:
        raise BuildError(collected.problems)
    corpus, chunks = collected.corpus, collected.chunks
    index = build_index(chunks, options.analyzer, options.lexical)
    embedding, arrays, files = None, {}, {}
    if provider is not None:
        cache_dir = options.cache_dir or out.with_name(out.name + ".cache")
        embedding, arrays, files = _vectors(options, provider, chunks, cache_dir)
    taxonomy = taxonomy_json(corpus, chunks)
    name = options.name or options.docs_dir.resolve().name
    description = options.description or describe(name, corpus, taxonomy)
    tools = default_tool_descriptions(description)
    if options.search_description:
        tools["search_docs"]["description"] = options.search_description
    if options.get_doc_description:
        tools["get_doc"]["description"] = options.get_doc_description
    corpus_bytes = sum(len(sf.text.encode()) for sf in corpus.files)
    metadata = {
        "name": name,
        "description": description,
        "instructions": options.instructions or corpus.instructions,
        "tools": tools,
        "taxonomy": taxonomy,
        "analyzer": options.analyzer.to_json(),
        "lexical": options.lexical.to_json(),
        "embedding": embedding,
        "source": {"commit": source_commit(options.docs_dir)},
        "build": {"builder": f"docsmcp {__version__}"},
        "stats": {
            "files": len(corpus.files),
            "chunks": len(chunks),
            "corpus_bytes": corpus_bytes,
            "terms": int(len(index.term_offsets) - 1),
            "postings": int(len(index.postings_docs)),
        },
    }
    final = write_bundle(out, chunks, index, metadata, arrays, files)
    final["_seconds"] = time.perf_counter() - started
    return final


def collapse_groups(chunks: list[Chunk]) -> np.ndarray:
    """uint32 per chunk: equal for chunks with the same normalised heading trail, i.e. the
    candidates for being one section documented in several variants (e.g. per language)."""
    ids: dict[tuple[str, ...], int] = {}
    out = np.zeros(len(chunks), dtype="<u4")
    for row, c in enumerate(chunks):
        trail = tuple(re.sub(r"[^0-9a-z]+", "", h.lower()) for h in c.heading_text.split("\n") if h)
        out[row] = ids.setdefault(trail, len(ids))
    return out


def _vectors(
    options: BuildOptions, provider: EmbeddingProvider, chunks: list[Chunk], cache_dir: Path
) -> tuple[dict, dict, dict]:
    """The bundle's `embedding` metadata, vector arrays and provider files."""
    vectors, stats = embed_chunks(provider, chunks, cache_dir)
    spec = provider.bundle_spec()
    if len(chunks) > options.ivf_threshold > 0:
        ivf = build_ivf(vectors)
        index = {"type": "ivf", "lists": len(ivf.centroids), "probe": ivf.probe}
        arrays = {
            "vectors.bin": vectors[ivf.order].astype("<f2"),
            "vector_rows.bin": ivf.order.astype("<u4"),
            "ivf_centroids.bin": ivf.centroids.astype("<f4"),
            "ivf_offsets.bin": ivf.offsets.astype("<u8"),
        }
    else:
        index = {"type": "exact"}
        arrays = {"vectors.bin": vectors.astype("<f2")}
    arrays["collapse_groups.bin"] = collapse_groups(chunks)
    defaults = provider.search_defaults
    floor = options.similarity_floor
    if floor is None:
        floor = defaults.get("similarity_floor", 0.3)
    collapse = options.collapse_similarity
    if collapse is None:
        collapse = defaults.get("collapse_similarity", 0.8)
    # Bigrams already count inside the full-text list (lexical.phrase_weight), so the separate
    # proximity list starts at 0: with it at 0.5 the dev-set MRR fell 0.634 -> 0.577 (static).
    weights = {
        "lexical": 1.0,
        "proximity": 0.0,
        "vector": float(defaults.get("vector_weight", 1.0)),
        **options.fusion,
    }
    metadata = {
        "provider": provider.name,
        "model": provider.model,
        "dimensions": provider.dimensions,
        "context_tokens": provider.context_tokens,
        "fingerprint": provider.fingerprint(),
        "input": "Document: {headings}. Content: {text}",
        "index": index,
        "similarity_floor": floor,
        "collapse_similarity": collapse,
        "fusion": {"k": 60, "weights": weights},
        "options": spec,
    }
    if stats.total and not options.embedding.extra.get("quiet"):
        # Not in metadata.json: a cached rebuild must give the same bytes as a fresh one.
        print(
            f"embedded {stats.embedded} of {stats.total} chunks with {provider.name} "
            f"({stats.cached} from the cache {cache_dir})",
            file=sys.stderr,
        )
    return metadata, arrays, provider.bundle_files()
