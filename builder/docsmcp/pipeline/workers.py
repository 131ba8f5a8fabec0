"""Parse and chunk the files of a corpus on every core, in corpus order.

Each file's work (markdown parse, chunking, the browse-table records) is independent and pure,
so worker processes do it and hand back plain data, packed as the parse cache stores it
(`parse_cache.pack`: the main process only writes it there); results come back in the order of the
files, which makes the bundle byte-identical whatever the number of workers (tested). On Linux
the workers are forked after the corpus is read, so they get the files without copying them
through a pipe; elsewhere the files are sent to them. The markdown bodies wait in an unnamed
temporary file (`Bodies`), not in the main process: each is read back by the process that
parses it (win32: 238 MB of text no longer held by the main process, nor inherited by each
worker at the fork).
"""

from __future__ import annotations

import dataclasses
import functools
import gc
import multiprocessing
import os
import tempfile
from array import array
from collections.abc import Iterator, Sequence

from docsmcp_runtime.search.analyzer import AnalyzerConfig

from docsmcp.chunking.blocks import markdown_parser
from docsmcp.chunking.chunk import chunk_parsed, parse_file, parse_plain
from docsmcp.common import logs
from docsmcp.common.budget import (
    TooSlow,
    memory_limit,
    parse_megabytes,
    parse_seconds,
    time_limit,
)
from docsmcp.common.limits import PARSE_MEMORY_ENV, PARSE_SECONDS_ENV
from docsmcp.indexing.lexical import FieldCounts, analyse_chunk
from docsmcp.indexing.pagefield import is_code_page, lead_text, member_headings, page_field
from docsmcp.indexing.tables import FileRecords, file_records
from docsmcp.model.chunk import Chunk, in_file_lines
from docsmcp.model.source import SourceFile
from docsmcp.pipeline.parse_cache import Packed, pack, unpack
from docsmcp.sources.convert import convert_source

# One file's chunks, its table records and the analysed fields of each chunk.
Processed = tuple[list[Chunk], FileRecords, list[FieldCounts]]

# Below this many files a pool costs more than it saves.
MIN_FILES_PER_WORKER = 32
# Files handed to a worker at a time: large enough to amortise the round trip.
BATCH = 16

# A worker's young-generation threshold (the default is 700 allocations): parsing a file makes
# hundreds of thousands of short-lived tokens and almost no cycles (speakeasy-sdks: 15 cyclic
# objects in 4,920 files), and each default collection also walked every cache a worker keeps
# (line analyses, inline memo). Measured on speakeasy-sdks in one process: 2,713 collections,
# 0.58 s of 6.9 s CPU; with this threshold 5 collections, 0.10 s; same peak RSS.
WORKER_GC_YOUNG = 50_000
# The collector's thresholds while a file is parsed, in a worker or in this process.
_PARSE_GC = (WORKER_GC_YOUNG, 20, 10)


class Bodies:
    """Files' bodies (`SourceFile.body`) in an unnamed temporary file, by the file's number in
    the list `process_all` is given: the files themselves travel without them. Read back with
    `os.pread`, which forked workers may call on the inherited descriptor at once (no shared
    file offset)."""

    def __init__(self) -> None:
        self._file = tempfile.TemporaryFile()  # noqa: SIM115 (closed by `close`)
        self._spans = array("q")  # offset, length of each file's body; -1: not spilled
        self._size = 0

    def add(self, body: str | None) -> None:
        """The next file's body (None: the file keeps its own)."""
        if body is None:
            self._spans.extend((-1, 0))
            return
        data = body.encode("utf-8", "surrogatepass")
        self._file.write(data)
        self._spans.extend((self._size, len(data)))
        self._size += len(data)

    def ready(self) -> None:
        """Every body is written: make them readable."""
        self._file.flush()

    def restore(self, number: int, sf: SourceFile) -> SourceFile:
        """File `number` with its body back."""
        offset, length = self._spans[2 * number], self._spans[2 * number + 1]
        if offset < 0:
            return sf
        data = os.pread(self._file.fileno(), length, offset)
        return dataclasses.replace(sf, body=data.decode("utf-8", "surrogatepass"))

    def close(self) -> None:
        self._file.close()


# The files of the build in progress and their bodies, inherited by forked workers (set only
# around a pool).
_FILES: Sequence[SourceFile] = ()
_BODIES: Bodies | None = None


def default_workers() -> int:
    """Every core this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def process(sf: SourceFile, default_max: int, analyzer: AnalyzerConfig) -> Processed:
    """One file's chunks, table records and analysed chunk fields (for the index). A file whose
    conversion, parse and chunking run past the parse budget, of time or of memory, or fail, is
    indexed as plain text."""
    seconds, megabytes = parse_seconds(), parse_megabytes()
    # markdown-it is imported and its parser made outside the budget: the plain-text fallback
    # needs it, and an import cut short by the memory budget (re.compile of its patterns) could
    # leave the worker without it.
    markdown_parser()
    why = None  # why the file is indexed as plain text
    try:
        with time_limit(seconds), memory_limit(megabytes):
            parsed = parse_file(convert_source(sf))
            chunks = chunk_parsed(parsed, default_max)
    except TooSlow:
        why = (
            f"not parsed within {seconds:g} s (markup the parser is slow on); indexed as plain "
            f"text. Raise {PARSE_SECONDS_ENV} to parse it fully"
        )
    except (MemoryError, SystemError):
        # (C code that fails an allocation does not always say MemoryError: re.compile under
        # the budget raised "SystemError: error return without exception set")
        # Out of the handler before parsing again: its traceback holds what the parse built.
        why = (
            f"needed over {megabytes:g} MiB to parse; indexed as plain text. Raise "
            f"{PARSE_MEMORY_ENV} to parse it fully"
        )
    except Exception as exc:  # noqa: BLE001 - one file's reader must not end the build
        # A reader's defect on one file (session 17 crashed tokio's whole build on a nested
        # macro repetition before it was fixed) costs that file its structure, not the bundle:
        # the file is indexed as its plain text and the warning names it, for a bug report.
        error = f"{type(exc).__name__}: {exc}"[:300]
        why = f"the reader failed ({error}); indexed as plain text. Please report it"
    if why is not None:
        logs.warn_once(f"plain:{sf.path}", "%s: %s", sf.path, why)
        parsed = parse_plain(sf)
        chunks = chunk_parsed(parsed, default_max)
    records = file_records(parsed, chunks)
    chunks = [in_file_lines(c, parsed.source) for c in chunks]
    page, lead = page_field(parsed), lead_text(parsed.blocks)  # on every chunk of the page
    # A member's heading without its type's name, on the pages code readers make.
    own = member_headings(chunks, records.api) if is_code_page(sf.path) else {}
    return (
        chunks,
        records,
        [analyse_chunk(c, analyzer, page, lead, own.get(i)) for i, c in enumerate(chunks)],
    )


def _start_worker() -> None:
    """A worker's garbage collector: what it inherits is left out of collections (never
    scanned, so its pages stay shared with the parent) and young objects are collected far
    less often (WORKER_GC_YOUNG)."""
    gc.freeze()
    gc.set_threshold(*_PARSE_GC)


def _process_packed(sf: SourceFile, default_max: int, analyzer: AnalyzerConfig) -> Packed:
    return pack(process(sf, default_max, analyzer))


def _process_index(index: int, default_max: int, analyzer: AnalyzerConfig) -> Packed:
    sf = _FILES[index]
    if _BODIES is not None:
        sf = _BODIES.restore(index, sf)
    return _process_packed(sf, default_max, analyzer)


def process_all(
    files: list[SourceFile],
    default_max: int,
    analyzer: AnalyzerConfig,
    workers: int,
    bodies: Bodies | None = None,
    lean: bool = False,
) -> Iterator[tuple[Processed, Packed | None]]:
    """`process` of every file, in order, on up to `workers` processes, with the result packed
    for the parse cache when a worker made it (None: parsed here); `bodies` holds the bodies the
    files were given without; `lean`: chunks from workers come without search text (as
    `ParseCache.get` gives them). Forked workers get `files` by inheritance; the list is then
    emptied (the caller's too), so this process keeps no copy of texts parsed elsewhere."""
    if bodies is not None:
        bodies.ready()
    workers = min(workers, len(files) // MIN_FILES_PER_WORKER)
    if workers <= 1:
        # Parsed here: the same collector settings as a worker's while it parses (restored
        # between files: what the caller does with each result is its own business).
        threshold = gc.get_threshold()
        for n, sf in enumerate(files):
            gc.set_threshold(*_PARSE_GC)
            try:
                result = process(bodies.restore(n, sf) if bodies else sf, default_max, analyzer)
            finally:
                gc.set_threshold(*threshold)
            yield result, None
        return
    # multiprocessing.Pool.imap, not ProcessPoolExecutor.map: measured on speakeasy-sdks with 2
    # workers, the executor kept one worker busy at a time (7.8 s vs 8.1 s alone), imap both
    # (4.6 s).
    global _FILES, _BODIES
    if "fork" in multiprocessing.get_all_start_methods():
        _FILES, _BODIES = files, bodies
        try:
            with (
                logs.once_per_build(),
                multiprocessing.get_context("fork").Pool(workers, _start_worker) as pool,
            ):
                count = len(files)
                _FILES, _BODIES = (), None
                files.clear()  # the workers have their copy
                job = functools.partial(_process_index, default_max=default_max, analyzer=analyzer)
                for packed in pool.imap(job, range(count), chunksize=BATCH):
                    yield unpack(packed, lean), packed
        finally:
            _FILES, _BODIES = (), None
        return
    whole = (bodies.restore(n, sf) if bodies else sf for n, sf in enumerate(files))
    with multiprocessing.get_context("spawn").Pool(workers, _start_worker) as pool:
        job = functools.partial(_process_packed, default_max=default_max, analyzer=analyzer)
        for packed in pool.imap(job, whole, chunksize=BATCH):
            yield unpack(packed, lean), packed
