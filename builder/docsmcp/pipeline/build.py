"""The build pipeline: discover → parse → chunk → index → write (collect.py: the first three)."""

from __future__ import annotations

import gc
import logging
import re
import subprocess
import time
from pathlib import Path

import numpy as np
from docsmcp_runtime.format import (
    PAGES_FILE,
    PROVIDERS,
    VECTOR_ARRAYS,
    Embedding,
    Fusion,
    Metadata,
    Source,
    Stats,
    TaxonomyKey,
    ToolTexts,
    VectorIndexSpec,
)
from docsmcp_runtime.format.quantise import quantise
from docsmcp_runtime.search.roles import ROLE_KEY

from docsmcp import __version__
from docsmcp.bundle.write import ChunkTableWriter, write_bundle
from docsmcp.common.cache import cache_root, output_key
from docsmcp.common.memtrim import release_free_memory
from docsmcp.common.progress import Reporter
from docsmcp.embeddings.embed import EmbeddingProvider, make_provider
from docsmcp.embeddings.rescore import build_rescore, document_encoder
from docsmcp.embeddings.vectorize import build_ivf, embed_chunks
from docsmcp.indexing.tables import page_order
from docsmcp.model.chunk import Chunk
from docsmcp.pipeline.collect import BuildError, BuildOptions, Built, collect
from docsmcp.pipeline.parse_cache import ParseCache
from docsmcp.sources.corpus import Corpus
from docsmcp.sources.navigation.navfiles import summary_line
from docsmcp.sources.site_config import CorpusName, corpus_name

log = logging.getLogger(__name__)


def source_commit(docs_dir: Path) -> tuple[str | None, str | None]:
    """(commit, its committer date in ISO 8601) of the git work tree the docs are tracked in,
    else (None, None). The date is the commit's, never the clock's: same commit, same bundle.

    `git -C DIR` walks up to any enclosing repository, so a docs folder that merely lies inside
    someone's checkout (a home directory under git, a build folder) would record that unrelated
    commit; the commit is kept only when git tracks files under the docs folder itself.
    """

    def git(*args: str) -> str | None:
        try:
            res = subprocess.run(
                ["git", "-C", str(docs_dir), *args], capture_output=True, text=True, timeout=10
            )
        except (OSError, subprocess.SubprocessError):
            return None
        return res.stdout if res.returncode == 0 else None

    tracked = git("ls-files", "-z", "--", ".")
    if not tracked:  # not a work tree, or nothing of the docs is tracked
        return None, None
    commit = (git("rev-parse", "--verify", "HEAD") or "").strip()
    if not commit:
        return None, None
    date = (git("show", "-s", "--format=%cI", commit) or "").strip()
    return commit, date or None


def describe(name: str, corpus: Corpus, taxonomy: dict[str, TaxonomyKey]) -> str:
    """The default description: the pages and what they are split by (not the page roles every
    bundle has: the tool descriptions carry this line)."""
    facets = "; ".join(
        f"{k}: {', '.join(v.values)}" for k, v in taxonomy.items() if v.values and k != ROLE_KEY
    )
    text = f"{name} documentation ({len(corpus.files)} pages"
    return text + (f"; {facets})" if facets else ")")


def build(options: BuildOptions, out: Path, progress: Reporter | None = None) -> Built:
    """Build a bundle at `out`; raise BuildError listing every problem, leaving `out` untouched.
    `progress` makes the counter of a phase (label, total), for a terminal."""
    table = ChunkTableWriter()  # the chunk table, written while collecting
    try:
        return _build(options, out, progress, table)
    finally:
        table.discard()
        gc.unfreeze()  # what collect froze (_no_cyclic_gc) is collected as usual again


def _build(
    options: BuildOptions, out: Path, progress: Reporter | None, table: ChunkTableWriter
) -> Built:
    started = time.perf_counter()
    phases: dict[str, float] = {}

    def phase(name: str, since: float) -> float:
        now = time.perf_counter()
        phases[name] = round(now - since, 3)
        return now

    provider = make_provider(options.embedding)
    cache_dir = cache_root(options.cache_dir)
    key = output_key(out)
    parse_cache = ParseCache(cache_dir / "parsed", key) if options.parse_cache else None
    pdf_cache = cache_dir if options.parse_cache else None
    rescoring = options.rescore.model is not None
    # Loaded before the docs are read: a missing package or a wrong path stops the build at once.
    rescore_encoder = document_encoder(options.rescore) if rescoring else None
    lean = provider is None and not rescoring  # only embedding reads the chunks' text again
    collected = collect(options, provider, progress, parse_cache, pdf_cache, lean, rows=table)
    if parse_cache is not None:
        parse_cache.save()
    if collected.problems or collected.rows is None:
        raise BuildError(collected.problems)
    rows = collected.rows
    mark = phase("read and parse", started)
    corpus, chunks, taxonomy = collected.corpus, collected.chunks, collected.taxonomy
    # References resolve first: the texts of links to a chunk are a field of its index entry.
    browse = collected.tables.finish()
    mark = phase("browse tables", mark)
    index = collected.index.finish(options.lexical, browse.xref.anchors, options.analyzer)
    browse = browse.lean()  # the per-row lists are in the tables (and the index) now
    arrays: dict[str, np.ndarray] = {}
    order = page_order(browse.tables[PAGES_FILE], corpus.nav.order)
    if order is not None:
        arrays["page_order"] = order
    release_free_memory()
    mark = phase("index", mark)
    embedding, files = None, {}
    if provider is not None:
        embedding, vectors, files = _vectors(
            options, provider, chunks, cache_dir / "embeddings", progress, key
        )
        arrays.update(vectors)
        mark = phase("embed", mark)
    rescore = None
    if rescore_encoder is not None:
        rescore, rescore_arrays, rescore_files = build_rescore(
            options.rescore, rescore_encoder, chunks, cache_dir, progress, key
        )
        arrays, files = {**arrays, **rescore_arrays}, {**files, **rescore_files}
        mark = phase("rescoring model", mark)
    named = CorpusName(options.name, options.name, "--name") if options.name else None
    named = named or corpus_name(options.docs_dir)
    name, name_from = named.name, named.source
    description = options.description or describe(named.title, corpus, taxonomy)
    tools = dict(ToolTexts.defaults(description).descriptions)
    if options.search_description:
        tools["search_docs"] = options.search_description
    if options.get_doc_description:
        tools["get_doc"] = options.get_doc_description
    metadata = Metadata(
        name=name,
        description=description,
        instructions=options.instructions or corpus.instructions,
        tools=ToolTexts(tools),
        taxonomy=taxonomy,
        analyzer=options.analyzer,
        lexical=options.lexical,
        embedding=embedding,
        rescore=rescore,
        source=Source(
            *source_commit(options.docs_dir),
            url=options.source_url,
            paths=corpus.url_paths if options.source_url else (),
        ),
        version=options.corpus_version,
        builder=f"docsmcp {__version__}",
        stats=Stats(
            files=len(corpus.files),
            chunks=rows.count,
            corpus_bytes=collected.corpus_bytes,
            terms=int(len(index.term_offsets) - 1),
            postings=int(len(index.postings_docs)),
        ),
    )
    final = write_bundle(out, rows, index, metadata, arrays, files, browse.tables)
    phase("write", mark)
    return Built(
        final,
        time.perf_counter() - started,
        phases,
        parse_cache.hits if parse_cache is not None else 0,
        browse.xref.stats,
        browse.api_entries,
        browse.code_blocks,
        corpus.pdfs,
        collected.unread_files,
        name_from,
        summary_line(corpus.nav, options.docs_dir),
        corpus.translations.line(built=True),
        browse.xref.unresolved,
        corpus.unpublished_line(),
    )


def collapse_groups(chunks: list[Chunk]) -> np.ndarray:
    """uint32 per chunk: equal for chunks with the same normalised heading trail, i.e. the
    candidates for being one section documented in several variants (e.g. per language)."""
    ids: dict[tuple[str, ...], int] = {}
    out = np.zeros(len(chunks), dtype=VECTOR_ARRAYS["collapse_groups"].dtype)
    for row, c in enumerate(chunks):
        trail = tuple(re.sub(r"[^0-9a-z]+", "", h.lower()) for h in c.heading_text.split("\n") if h)
        out[row] = ids.setdefault(trail, len(ids))
    return out


def _vectors(
    options: BuildOptions,
    provider: EmbeddingProvider,
    chunks: list[Chunk],
    cache_dir: Path,
    progress: Reporter | None = None,
    key: str = "",
) -> tuple[Embedding, dict[str, np.ndarray], dict[str, bytes]]:
    """The bundle's `embedding` section, vector arrays (by array name) and provider files."""
    vectors, stats = embed_chunks(provider, chunks, cache_dir, progress, key)
    if len(chunks) > options.ivf_threshold > 0:
        ivf = build_ivf(vectors)
        index = VectorIndexSpec("ivf", len(ivf.centroids), ivf.probe)
        arrays = {
            "vectors": vectors[ivf.order],
            "vector_rows": ivf.order,
            "ivf_centroids": ivf.centroids,
            "ivf_offsets": ivf.offsets,
        }
        # int8 copies for choosing candidates cheaply (format/quantise.py), from the float16
        # values the bundle stores, so the runtime's error bound holds for them.
        stored = arrays["vectors"].astype(VECTOR_ARRAYS["vectors"].dtype)
        arrays["vectors_q8"], arrays["vectors_q8_scale"] = quantise(stored)
    else:
        index = VectorIndexSpec()
        arrays = {"vectors": vectors}
    arrays["collapse_groups"] = collapse_groups(chunks)
    defaults = PROVIDERS[provider.name].defaults
    floor = options.similarity_floor
    collapse = options.collapse_similarity
    metadata = Embedding(
        provider=provider.name,
        model=provider.model,
        dimensions=provider.dimensions,
        context_tokens=provider.context_tokens,
        fingerprint=provider.fingerprint(),
        index=index,
        similarity_floor=defaults.similarity_floor if floor is None else floor,
        collapse_similarity=defaults.collapse_similarity if collapse is None else collapse,
        fusion=Fusion(vector=defaults.vector_weight).with_weights(options.fusion),
        options=provider.bundle_spec(),
    )
    if stats.total:
        # Not in metadata.json: a cached rebuild must give the same bytes as a fresh one.
        log.info(
            "embedded %d of %d chunks with %s (%d from the cache %s)",
            stats.embedded,
            stats.total,
            provider.name,
            stats.cached,
            cache_dir,
        )
    return metadata, arrays, provider.bundle_files()
