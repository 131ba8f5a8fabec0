"""The first half of a build: build options, and `collect`, which loads the corpus and parses,
chunks and extracts every file (in worker processes, with the parse cache), plus the taxonomy of
the corpus.
"""

from __future__ import annotations

import contextlib
import gc
import logging
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TypeVar

from docsmcp_runtime.format import (
    MAX_TAXONOMY_VALUES,
    AnalyzerConfig,
    FusionWeights,
    LexicalParams,
    Metadata,
    TaxonomyKey,
)

from docsmcp.bundle.write import ChunkRows, ChunkTableWriter, Facets
from docsmcp.chunking.chunk import DEFAULT_MAX_CHUNK_SIZE
from docsmcp.common.memtrim import release_free_memory
from docsmcp.common.progress import Progress, Reporter
from docsmcp.embeddings.embed import EmbeddingOptions, EmbeddingProvider
from docsmcp.embeddings.rescore import RescoreOptions
from docsmcp.embeddings.vectorize import IVF_THRESHOLD
from docsmcp.indexing.lexical import IndexBuilder, heading_fields
from docsmcp.indexing.pagefield import is_code_page, member_key, page_of
from docsmcp.indexing.tables import TableBuilder
from docsmcp.model.chunk import Chunk
from docsmcp.model.source import DEFAULT_AUTO_INCLUDE, Problem
from docsmcp.pipeline.known_files import KnownFiles
from docsmcp.pipeline.parse_cache import ParseCache, file_key, pack
from docsmcp.pipeline.workers import Bodies, default_workers, process, process_all
from docsmcp.sources.convert import converter_for
from docsmcp.sources.corpus import Corpus, load_corpus
from docsmcp.sources.files import source_roots
from docsmcp.sources.layout import value_folders
from docsmcp.sources.pdf.extract import PdfOptions, PdfSummary
from docsmcp.sources.roles import ROLE_DESCRIPTION, ROLE_KEY
from docsmcp.sources.unread import unread_hint

log = logging.getLogger(__name__)

T = TypeVar("T")

# Files chunked between two hand-backs of freed memory (memtrim.py) while collecting.
TRIM_EVERY = 4096
# Files chunked between two freezes of what the main process keeps (gc.freeze): collections
# stop rescanning every chunk kept so far (speakeasy-sdks, clean build: main process
# 2.9-3.15 -> 2.6-2.9 s CPU).
FREEZE_EVERY = 512


# What the builder analyses with: the default stop words and stemming, and names (`for...in`,
# `??=`: bundle-spec.md, *Terms*, step 7), which the bundle's `analyzer` records.
BUILD_ANALYZER = AnalyzerConfig(names=True)


@dataclass(frozen=True)
class BuildOptions:
    docs_dir: Path
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    # Folders besides docs_dir that files may be read from (--source-root): symlinks into
    # them are followed; whatever leads outside every root is refused.
    source_roots: tuple[Path, ...] = ()
    # Those of them --api-source named: a Go module among them outside docs_dir is read as
    # pages too (sources/packages/go_source.py).
    api_sources: tuple[Path, ...] = ()
    name: str | None = None
    description: str | None = None
    instructions: str | None = None
    search_description: str | None = None
    get_doc_description: str | None = None
    analyzer: AnalyzerConfig = BUILD_ANALYZER
    lexical: LexicalParams = field(default_factory=LexicalParams)
    embedding: EmbeddingOptions = field(default_factory=EmbeddingOptions)
    # The cache root (cache.py); default: $DOCSMCP_CACHE_DIR, else $XDG_CACHE_HOME/docsmcp,
    # else ~/.cache/docsmcp.
    cache_dir: Path | None = None
    fusion: FusionWeights = FusionWeights()  # RRF weights overriding the provider's defaults
    similarity_floor: float | None = None  # default: the provider's
    collapse_similarity: float | None = None
    ivf_threshold: int = IVF_THRESHOLD  # chunks above which an IVF index is built
    # Link template of hits (format.URL_PLACEHOLDERS), e.g.
    # https://github.com/org/repo/blob/{commit}/docs/{path}#L{line_start}-L{line_end}
    source_url: str | None = None
    corpus_version: str | None = None  # the docs' own version, e.g. "2.4.0"
    workers: int = 0  # processes parsing and chunking; 0: one per core (same bundle either way)
    parse_cache: bool = True  # reuse files parsed by an earlier build (--no-cache: off)
    rescore: RescoreOptions = field(default_factory=RescoreOptions)  # --rescore-model


def nothing_found(docs_dir: Path, filtered: bool) -> Problem:
    """The problem of a docs folder that gives no file to read, and what it holds instead."""
    hint = " (check --include/--exclude)" if filtered else unread_hint(Path(docs_dir))
    return Problem(
        "",
        None,
        f"no .md, .mdx, .rst, .adoc, .Rd, .Rmd, .texi, .html, .ipynb or .pdf files found in "
        f"{docs_dir}{hint}",
    )


@dataclass(frozen=True)
class Collected:
    corpus: Corpus
    chunks: list[Chunk]
    taxonomy: dict[str, TaxonomyKey]  # the bundle's taxonomy: keys and values in byte order
    problems: list[Problem]
    tables: TableBuilder  # what the browse tables need of each file, gathered while chunking
    index: IndexBuilder  # fed each kept chunk's analysed fields, made with the parse
    corpus_bytes: int = 0  # UTF-8 bytes of the files' text (corpus.files no longer hold it)
    unread_files: int = 0  # files unchanged since the last build, not read (known_files.py)
    # The chunk table, written as the chunks came (`collect(rows=...)`); `chunks` is then empty
    # when collected `lean`.
    rows: ChunkRows | None = None


@dataclass(frozen=True)
class Built:
    metadata: Metadata
    seconds: float
    phases: dict[str, float]  # seconds per phase, in order
    cached_files: int  # files taken from the parse cache instead of parsed
    references: dict[str, tuple[int, int]]  # per kind (link, section, ...): (found, resolved)
    api_entries: int
    code_blocks: int
    pdfs: tuple[PdfSummary, ...] = ()  # the PDFs read (pages, outline, from the cache)
    unread_files: int = 0  # of cached_files, those not even read (unchanged since last build)
    name_from: str = "--name"  # where the bundle's name comes from (site_config.corpus_name)
    navigation: str | None = None  # the summary's line on the nav files (pipeline/build.py)
    translations: str = ""  # the summary's line on translations left out (layout/translations.py)
    unresolved_links: tuple[tuple[str, str], ...] = ()  # (page, link): xref.CrossRefs.unresolved
    unpublished: str = ""  # the summary's lines on pages the site does not publish (corpus.py)


class BuildError(Exception):
    """The docs cannot be built; `problems` lists every reason."""

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__(f"{len(problems)} problem(s)")
        self.problems = problems


def default_max_chunk_size(provider: EmbeddingProvider | None) -> int:
    """The chunk size unless a manifest says otherwise: the same whatever the provider. Sizing
    chunks to a model's window (1 KB for all-MiniLM-L6-v2) cost rust-reference 0.54 -> 0.40
    MRR; providers with a small window embed long chunks by pooling windows instead (issue 16)."""
    return DEFAULT_MAX_CHUNK_SIZE


def collect(
    options: BuildOptions,
    provider: EmbeddingProvider | None = None,
    progress: Reporter | None = None,
    cache: ParseCache | None = None,
    cache_dir: Path | None = None,
    lean: bool = False,
    reuse_unchanged: bool = True,
    rows: ChunkTableWriter | None = None,
) -> Collected:
    """Load and chunk the corpus, gathering every problem a build would reject. `progress`
    makes the counter of a phase (label, total); `cache` holds files parsed by earlier builds
    (only the others are parsed, on `options.workers` processes). `rows`: the chunk table is
    written there as chunks come. `lean`: the chunks keep no search text (the index has it
    analysed; only embeddings read it again), and none are kept at all when `rows` has them.
    With a cache, files unchanged since the last build are not even read (known_files.py)."""
    workers = options.workers or default_workers()
    pdf = PdfOptions(workers, cache_dir, progress)  # cache_dir None: PDFs are read afresh
    known = None
    if cache is not None and reuse_unchanged:
        roots = source_roots(options.docs_dir, options.source_roots)
        known = KnownFiles(cache, options.docs_dir, roots)
    corpus = load_corpus(
        options.docs_dir,
        options.include,
        options.exclude,
        options.source_roots,
        pdf,
        known.reuse if known is not None else None,
        options.api_sources,
    )
    counter = progress("parsing files", len(corpus.files)) if progress else None
    problems = list(corpus.problems)
    chunks: list[Chunk] = []
    facets: list[Facets] = []  # per kept chunk (the taxonomy), whether or not chunks are kept
    index = IndexBuilder()  # each kept chunk's analysed fields, spilled to disk as they come
    tables = TableBuilder()
    seen: dict[str, str] = {}
    default_max = default_max_chunk_size(provider)
    # Each file's text is let go once it is chunked (`files[i]` becomes a copy without it, and
    # process_all drops its list once forked workers hold it): no second copy of the corpus
    # lives beside the chunks (win32: 48k files, ~800 MB of str).
    files = list(corpus.files)
    corpus = replace(corpus, files=())
    taken = known.taken if known is not None else {}
    sizes = [taken[sf.path].nbytes if sf.path in taken else len(sf.text.encode()) for sf in files]
    corpus_bytes = sum(sizes)
    keys = [
        taken[sf.path].key if sf.path in taken else file_key(sf, default_max, options.analyzer)
        for sf in files
        if cache is not None
    ]
    # Which files the cache holds; each entry is loaded only when its turn comes below.
    hits = [cache.has(key) for key in keys] if cache is not None else [False] * len(files)
    if any(not hit and sf.path in taken for sf, hit in zip(files, hits, strict=True)):
        # The entry of a file that was not read is damaged: read every file after all.
        return _reread(options, provider, progress, cache, cache_dir, lean, rows, known, counter)
    if known is not None:
        known.record(files, keys, sizes, {p.path for p in problems})
    # Parsing a markdown page reads only its body; those of the pages to parse wait on disk
    # for the process parsing them (workers.Bodies), so no text is left here.
    bodies = Bodies()
    missing = []
    for i, sf in enumerate(files):
        markdown = not sf.line_map and converter_for(sf.path) is None
        if not hits[i]:
            bodies.add(sf.body if markdown else None)
            missing.append(_copy(sf, text="", body="") if markdown else sf)
        if markdown:
            files[i] = _copy(sf, text="", body="" if not hits[i] else sf.body)
    release_free_memory()  # before workers fork: they inherit the process as it is
    processed = process_all(missing, default_max, options.analyzer, workers, bodies, lean)
    del missing
    for i, sf in enumerate(files):
        files[i] = _copy(sf, text="", body="")
        if i % TRIM_EVERY == TRIM_EVERY - 1:
            release_free_memory()
        if i % FREEZE_EVERY == FREEZE_EVERY - 1:
            gc.freeze()  # the chunks kept so far: later collections skip them (see _no_cyclic_gc)
        entry = None
        if hits[i]:
            assert cache is not None
            with _no_cyclic_gc():
                entry = cache.get(keys[i], lean)
            if entry is None and sf.path in taken:  # checked whole, yet it does not load
                processed.close()
                return _reread(
                    options, provider, progress, cache, cache_dir, lean, rows, known, counter
                )
            if entry is None:  # (this file was read: parse it here)
                entry = process(sf, default_max, options.analyzer)
                cache.put(keys[i], pack(entry))
        else:
            entry, packed = next(processed)
            if cache is not None:
                cache.put(keys[i], packed or pack(entry))
        file_chunks, records, file_analysed = entry
        kept: list[Chunk] = []
        # An API member on a page a code reader made weighs what its type's members share
        # (pagefield.shared_factors).
        entry_rows = {row for _, row in records.api} if is_code_page(sf.path) else set()
        for row, (c, fields) in enumerate(zip(file_chunks, file_analysed, strict=True)):
            if c.id in seen:
                problems.append(
                    Problem(
                        sf.path, c.line_start, f"duplicate chunk id {c.id!r} (also in {seen[c.id]})"
                    )
                )
                continue
            seen[c.id] = sf.path
            kept.append(c)
            facets.append(c.metadata)
            member = member_key(page_of(c), heading_fields(c)[1]) if row in entry_rows else ""
            index.add(fields, c.heading, page_of(c), member)
        if rows is not None:
            rows.add(kept)
        if not lean:
            chunks.extend(kept)
        elif rows is None:
            chunks.extend(_copy(c, search_text="") if c.search_text else c for c in kept)
        if counter is not None:
            counter.advance()
        if len(kept) == len(file_chunks):
            tables.add(records)
        # else: the build stops on the duplicate ids; the tables are never written
    bodies.close()
    if counter is not None:
        counter.close()
    corpus = replace(corpus, files=tuple(files))
    if not corpus.files and not problems:
        problems.append(nothing_found(options.docs_dir, bool(options.include or options.exclude)))
    taxonomy = taxonomy_of(corpus, facets, problems)
    written = rows.finish() if rows is not None and not problems else None
    return Collected(
        corpus,
        chunks,
        taxonomy,
        problems,
        tables,
        index,
        corpus_bytes,
        unread_files=len(taken),
        rows=written,
    )


def _reread(
    options: BuildOptions,
    provider: EmbeddingProvider | None,
    progress: Reporter | None,
    cache: ParseCache,
    cache_dir: Path | None,
    lean: bool,
    rows: ChunkTableWriter | None,
    known: KnownFiles | None,
    counter: Progress | None,
) -> Collected:
    """`collect` again, reading every file: the cache entry of a file that was not read is
    damaged (it was forgotten, so that file is parsed this time)."""
    assert known is not None
    known.forget()
    cache.hits = 0
    if counter is not None:
        counter.close()
    if rows is not None:
        rows.reset()
    return collect(options, provider, progress, cache, cache_dir, lean, False, rows)


@contextlib.contextmanager
def _no_cyclic_gc() -> Iterator[None]:
    """The cyclic garbage collector off while the block makes many long-lived objects, which
    are then frozen (`gc.freeze`: left out of later collections until `build` ends), so no
    collection rescans them for the rest of the build. Reference counting still frees them;
    what they hold is acyclic (tuples, strings, dataclasses)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


def _copy(obj: T, **values: object) -> T:
    """`dataclasses.replace` of a frozen dataclass without `__post_init__` or slots (Chunk,
    SourceFile): its attributes copied with `values` set, in one C call. replace() runs
    __init__, a setattr per field: 13-27 us a call, 0.3 s of a speakeasy-sdks rebuild's 16k."""
    new = object.__new__(type(obj))
    new.__dict__.update(obj.__dict__, **values)
    return new


def _default_description(key: str) -> str:
    # The built-in `role` key says what its values are and that they rank (sources/roles.py).
    return ROLE_DESCRIPTION if key == ROLE_KEY else f"Filter results by {key}."


def taxonomy_of(corpus: Corpus, facets: list[Facets], problems: list[Problem]) -> dict:
    """Every metadata key with its sorted values, description and search rules (`facets`: each
    chunk's metadata); problems (too many values for a facet code, auto_include naming what
    does not exist) are appended."""
    values: dict[str, set[str]] = {k: set() for k in corpus.taxonomy}
    for pairs in facets:
        for k, v in pairs:
            values.setdefault(k, set()).add(v)
    out: dict[str, TaxonomyKey] = {}
    for key in sorted(values, key=str.encode):
        cfg = corpus.taxonomy.get(key)
        if len(values[key]) > MAX_TAXONOMY_VALUES:
            problems.append(
                Problem(
                    ".",
                    None,
                    f"metadata key {key!r} has {len(values[key])} distinct values; "
                    f"a filter key may have at most {MAX_TAXONOMY_VALUES}",
                )
            )
        latest = cfg.latest if cfg else None
        if latest is not None and latest not in values[key]:
            problems.append(
                Problem(".", None, f"taxonomy {key!r}: latest {latest!r} occurs in no file")
            )
            latest = None
        default = cfg.default if cfg else None
        if default is not None and default not in values[key]:
            problems.append(
                Problem(".", None, f"taxonomy {key!r}: default {default!r} occurs in no file")
            )
            default = None
        folders = {}
        if cfg and cfg.folders and (latest is not None or default is not None):
            pages = ((f.path, dict(f.metadata).get(key)) for f in corpus.files)
            folders = value_folders.recorded(cfg.folders, pages)
        out[key] = TaxonomyKey(
            description=cfg.description if cfg and cfg.description else _default_description(key),
            vector_collapse=bool(cfg and cfg.vector_collapse),
            values=tuple(sorted(values[key], key=str.encode)),
            latest=latest,
            default=default,
            folders={v: f for v, f in folders.items() if v in values[key]},
        )
    for key, entry in out.items():
        declared = corpus.taxonomy.get(key)
        rules = declared.auto_include if declared and declared.auto_include is not None else None
        if rules is None:
            # The default rule applies only where the corpus has what it names.
            rules = {
                other: tuple(v for v in vals if other in out and v in out[other].values)
                for other, vals in DEFAULT_AUTO_INCLUDE.get(key, {}).items()
            }
            rules = {k: v for k, v in rules.items() if v}
        else:
            for other, vals in rules.items():
                missing = [v for v in vals if other not in out or v not in out[other].values]
                if other not in out:
                    problems.append(
                        Problem(
                            ".",
                            None,
                            f"taxonomy {key!r}: auto_include names "
                            f"key {other!r}, which no file has",
                        )
                    )
                elif missing:
                    problems.append(
                        Problem(
                            ".",
                            None,
                            f"taxonomy {key!r}: auto_include values "
                            f"{missing} of {other!r} occur in no file",
                        )
                    )
            rules = {k: v for k, v in rules.items() if k in out and v}
        if rules:
            ordered = {k: tuple(sorted(v, key=str.encode)) for k, v in sorted(rules.items())}
            out[key] = replace(entry, auto_include=ordered)
    if "language" in out and not any(dict(f.metadata).get("language") for f in corpus.files):
        # Every `language` value comes from code tabs split into chunks of their own
        # (dialects.py): the other pages apply to every language, so a filter keeps them.
        out["language"] = replace(out["language"], include_unset=True)
    return out


# Folder names that say where docs live, not what they document ("Search docs documentation").
