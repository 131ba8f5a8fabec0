"""Writing a bundle directory atomically and deterministically (format in bundle-spec.md)."""

from __future__ import annotations

import dataclasses
import json
import shutil
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import BinaryIO

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from docsmcp_runtime.distribution.swap import recover, staging_path, swap_dir
from docsmcp_runtime.format import (
    ALL_ARRAYS,
    ARRAYS,
    CHUNK_COMPRESSION,
    CHUNKS_FILE,
    FORMAT,
    MAX_METADATA_DEPTH,
    METADATA_FILE,
    ROW_GROUP_SIZE,
    SECTIONS_FILE,
    TABLE_ROW_GROUP_SIZE,
    FileEntry,
    Metadata,
    MetadataError,
    TaxonomyKey,
    bundle_id,
    sha256_file,
)
from docsmcp_runtime.format.impact_codes import impact_codes
from docsmcp_runtime.format.jsonread import loads
from docsmcp_runtime.format.layout import ArraySpec
from docsmcp_runtime.format.schemas import CHUNK_SCHEMA, TABLES
from docsmcp_runtime.search.analyzer import NAME_MARK
from docsmcp_runtime.search.stems import stem_rings

from docsmcp.bundle.display import write_display
from docsmcp.indexing.lexical import LexicalIndex
from docsmcp.model.chunk import Chunk


class OutputError(Exception):
    """The output location cannot be written safely."""


# zstd level of the chunk table: 6, not 9, compresses speakeasy-sdks' texts in 0.10 s instead of
# 0.24 s (every build and rebuild pays it) for a file 2.4 % larger (1.14 vs 1.11 MB).
CHUNK_COMPRESSION_LEVEL = 6
# Bytes copied at a time from the chunk table's temporary file into the bundle.
COPY_BUFFER = 1 << 20


def chunk_table(chunks: list[Chunk], start: int = 0, stop: int | None = None) -> pa.Table:
    """Rows `start:stop` of the chunk table of `chunks` (all in memory; the build streams its
    table with ChunkTableWriter)."""
    counts: dict[str, int] = {}
    for c in chunks:
        counts[c.path] = counts.get(c.path, 0) + 1
    positions: list[int] = []
    seen: dict[str, int] = {}
    for c in chunks:
        positions.append(seen.get(c.path, 0))
        seen[c.path] = positions[-1] + 1
    chunks, positions = chunks[start:stop], positions[start:stop]
    return _chunk_columns(chunks, positions, [counts[c.path] for c in chunks])


# The chunk table's Parquet settings (one home: the streamed writer and `chunk_table`'s users).
CHUNK_WRITE_SETTINGS = dict(
    compression=CHUNK_COMPRESSION,
    compression_level=CHUNK_COMPRESSION_LEVEL,
    use_dictionary=["path", "metadata"],
    write_statistics=False,
)

Facets = tuple[tuple[str, str], ...]  # a chunk's metadata (key, value) pairs


@dataclass(frozen=True)
class ChunkRows:
    """A chunk table already written (`ChunkTableWriter`) and what the bundle's other arrays
    need of each row: its metadata (facets) and, for PDFs, its pages."""

    file: BinaryIO  # the finished Parquet file (unnamed, open), copied into the bundle
    count: int
    metadata: Sequence[Facets]
    pages: Sequence[tuple[int, int] | None] | None  # None: no row has pages


class ChunkTableWriter:
    """The chunk table written row group by row group while a build collects its chunks, to a
    temporary file: the main process never holds the chunks of the whole corpus (win32: ~400 MB
    of Python objects). Row groups are cut every ROW_GROUP_SIZE rows, as one `write_table` of
    the whole table would cut them, so the bytes are the same (tested). The file has no name
    (`tempfile.TemporaryFile`): `discard` closes it, and a killed build leaves nothing behind
    (a named file in $TMPDIR was left by every killed build)."""

    def __init__(self, directory: str | Path | None = None) -> None:
        self._dir = directory
        # Closed by `discard` (or with the process): it lives across `add` calls.
        self.file = tempfile.TemporaryFile(dir=directory)  # noqa: SIM115
        self._writer: pq.ParquetWriter | None = pq.ParquetWriter(
            self.file, CHUNK_SCHEMA, **CHUNK_WRITE_SETTINGS
        )
        self._pending: list[Chunk] = []
        self._positions: list[int] = []
        self._counts: list[int] = []
        self._metadata: list[Facets] = []
        self._pages: list[tuple[int, int] | None] = []
        self._count = 0

    def add(self, chunks: Sequence[Chunk]) -> None:
        """The kept chunks of the next file, in row order."""
        for position, c in enumerate(chunks):
            self._pending.append(c)
            self._positions.append(position)
            self._counts.append(len(chunks))
            self._metadata.append(c.metadata)
            self._pages.append(c.pages)
        self._count += len(chunks)
        while len(self._pending) >= ROW_GROUP_SIZE:
            self._write(ROW_GROUP_SIZE)

    def _write(self, rows: int) -> None:
        assert self._writer is not None, "the chunk table is finished"
        part = _chunk_columns(self._pending[:rows], self._positions[:rows], self._counts[:rows])
        self._writer.write_table(part, row_group_size=ROW_GROUP_SIZE)
        del self._pending[:rows], self._positions[:rows], self._counts[:rows]

    def finish(self) -> ChunkRows:
        """Write what is left and close the file."""
        if self._writer is not None:
            if self._pending or not self._count:  # an empty table: one empty write, as before
                self._write(len(self._pending))
            self._writer.close()
            self._writer = None
        pages = self._pages if any(p is not None for p in self._pages) else None
        self.file.flush()
        return ChunkRows(self.file, self._count, self._metadata, pages)

    def discard(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        self.file.close()

    def reset(self) -> None:
        """Start the table again, empty (a build that collects its chunks afresh)."""
        self.discard()
        self.__init__(self._dir)  # type: ignore[misc]


def chunk_rows(chunks: list[Chunk], directory: str | Path | None = None) -> ChunkRows:
    """The chunk table of `chunks` written to an unnamed temporary file (ChunkTableWriter; the
    caller closes `file`), one file's chunks at a time: chunks of one path are contiguous."""
    writer = ChunkTableWriter(directory)
    try:
        start = 0
        for end in range(1, len(chunks) + 1):
            if end == len(chunks) or chunks[end].path != chunks[start].path:
                writer.add(chunks[start:end])
                start = end
        return writer.finish()
    except BaseException:
        writer.discard()
        raise


def _chunk_columns(chunks: list[Chunk], positions: list[int], counts: list[int]) -> pa.Table:
    columns = {
        "id": [c.id for c in chunks],
        "path": [c.path for c in chunks],
        "heading": [c.heading for c in chunks],
        "breadcrumb": [c.breadcrumb for c in chunks],
        "level": [c.level for c in chunks],
        "position": positions,
        "file_chunk_count": counts,
        "line_start": [c.line_start for c in chunks],
        "line_end": [c.line_end for c in chunks],
        # A corpus has few distinct metadata sets: each is encoded once.
        "metadata": [_metadata_json(c.metadata) for c in chunks],
        "text": [c.text for c in chunks],
    }
    return pa.table(columns, schema=CHUNK_SCHEMA)


@lru_cache(maxsize=4096)
def _metadata_json(metadata: tuple[tuple[str, str], ...]) -> str:
    return json.dumps(dict(metadata), sort_keys=True, ensure_ascii=False)


def facet_matrix(metadata: Sequence[Facets], taxonomy: Mapping[str, TaxonomyKey]) -> np.ndarray:
    """The facet code of each row (by its metadata) for each taxonomy key."""
    keys = list(taxonomy)
    codes = {k: {v: i + 1 for i, v in enumerate(t.values)} for k, t in taxonomy.items()}
    out = np.zeros((len(metadata), len(keys)), dtype=ARRAYS["facets"].dtype)
    for row, pairs in enumerate(metadata):
        if not pairs:
            continue
        meta = dict(pairs)
        for col, key in enumerate(keys):
            if key in meta:
                out[row, col] = codes[key][meta[key]]
    return out


def write_bundle(
    out: Path,
    chunks: ChunkRows | list[Chunk],
    index: LexicalIndex,
    metadata: Metadata,
    extra_arrays: dict[str, np.ndarray] | None = None,
    extra_files: dict[str, bytes] | None = None,
    tables: dict[str, pa.Table] | None = None,
) -> Metadata:
    """Write into a sibling temporary directory, then swap it into place.

    `extra_arrays` (array name → array, e.g. "vectors") are written raw with dtype and shape
    recorded; `extra_files` (e.g. a provider's query-embedding table) are written as given;
    `tables` (file name → table, format.TABLES) are the browse tables.
    `metadata` is complete but for `files`, `bundle_id` and `requires`, filled in here.

    `chunks`: the chunk table already written (ChunkRows), or the chunks themselves.
    A failure at any point leaves `out` exactly as it was. Returns the final metadata.
    """
    if not isinstance(chunks, ChunkRows):
        rows = chunk_rows(chunks)
        try:
            return write_bundle(out, rows, index, metadata, extra_arrays, extra_files, tables)
        finally:
            rows.file.close()
    out = out.resolve()
    recover(out)  # what an interrupted earlier build left: restore or remove it
    check_replaceable(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = staging_path(out)
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    try:
        metadata = _write_contents(
            tmp, chunks, index, metadata, extra_arrays or {}, extra_files or {}, tables or {}
        )
        swap_dir(tmp, out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return metadata


def check_replaceable(out: Path) -> None:
    """Refuse (OutputError, one line) to replace anything but a docsmcp bundle or an empty
    folder: a bundle is a folder whose metadata.json has the format marker and which holds only
    the files it lists. A user's folder that merely contains a metadata.json is never deleted."""
    if not out.exists() and not out.is_symlink():
        return
    if not out.is_dir():
        raise OutputError(f"refusing to replace {out}: it is not a directory")
    entries = sorted(out.iterdir())
    if not entries:
        return
    reason = _not_a_bundle(out, entries)
    if reason:
        raise OutputError(
            f"refusing to replace {out}: {reason}; choose another --out or remove it yourself"
        )


def _not_a_bundle(out: Path, entries: list[Path]) -> str | None:
    not_bundle = "it is a non-empty directory that is not a docsmcp bundle"
    try:
        meta = loads((out / METADATA_FILE).read_text(encoding="utf-8"), MAX_METADATA_DEPTH)
    except (OSError, UnicodeDecodeError, MetadataError):
        return f"{not_bundle} (no readable metadata.json)"
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        return not_bundle
    files = meta.get("files")
    listed = {METADATA_FILE, *(files if isinstance(files, dict) else ())}
    for entry in entries:
        if entry.name not in listed:
            return f"it holds {entry.name!r}, which is not part of the bundle"
        if entry.is_symlink() or not entry.is_file():
            return f"its {entry.name!r} is not a regular file"
    return None


def _write_contents(
    tmp: Path,
    chunks: ChunkRows,
    index: LexicalIndex,
    metadata: Metadata,
    extra_arrays: dict[str, np.ndarray],
    extra_files: dict[str, bytes],
    tables: dict[str, pa.Table],
) -> Metadata:
    chunks.file.seek(0)
    with open(tmp / CHUNKS_FILE, "wb") as dest:
        shutil.copyfileobj(chunks.file, dest, COPY_BUFFER)
    # Impacts as uint8 codes into 256 levels (bundle-spec.md, *Impact codes*).
    stop = metadata.analyzer.stopwords if metadata.analyzer.names else ()
    codes, levels = impact_codes(index.postings_impacts, top_without_names(index, stop))
    rings = stem_rings(_words(index))
    arrays = {
        "terms": np.frombuffer(index.terms, dtype=np.uint8),
        "term_offsets": index.term_offsets,
        "postings_offsets": index.postings_offsets,
        "postings_docs": index.postings_docs,
        "postings_impacts": codes,
        "impact_levels": levels,
        "facets": facet_matrix(chunks.metadata, metadata.taxonomy),
        **extra_arrays,
    }
    if len(rings):  # words sharing a stem (bundle-spec.md, *Stem variants*)
        arrays["stem_rings"] = rings
    if chunks.pages is not None:  # only bundles with PDFs carry page ranges
        arrays["page_ranges"] = np.array([p or (0, 0) for p in chunks.pages], dtype=np.uint32)
    files: dict[str, FileEntry] = {}
    for name, array in arrays.items():
        spec = ALL_ARRAYS[name]
        dtype = stored_dtype(spec, array, chunks.count)
        arr = np.ascontiguousarray(array.astype(dtype, copy=False))
        arr.tofile(tmp / spec.file)
        files[spec.file] = _entry(tmp / spec.file, dtype, tuple(arr.shape))
    # Every bundle gets the display store (bundle-spec.md, *Display store*), derived from the
    # chunk table just copied and the sections table written below.
    shapes = write_display(tmp, tmp / CHUNKS_FILE, tables.get(SECTIONS_FILE))
    for name, size in shapes.items():
        spec = ALL_ARRAYS[name]
        files[spec.file] = _entry(tmp / spec.file, spec.dtype, (size,))
    for filename, data in extra_files.items():
        (tmp / filename).write_bytes(data)
        files[filename] = _entry(tmp / filename)
    files[CHUNKS_FILE] = _entry(tmp / CHUNKS_FILE)
    for filename, table in sorted(tables.items()):
        pq.write_table(
            table.cast(TABLES[filename]),
            tmp / filename,
            compression=CHUNK_COMPRESSION,
            compression_level=9,
            row_group_size=TABLE_ROW_GROUP_SIZE,
            write_statistics=False,
        )
        files[filename] = _entry(tmp / filename)
    final = dataclasses.replace(
        metadata,
        files=files,
        bundle_id=bundle_id({name: entry.sha256 for name, entry in files.items()}),
    )
    final = dataclasses.replace(final, requires=final.required_features())
    (tmp / METADATA_FILE).write_text(
        json.dumps(final.to_json(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    return final


def top_without_names(index: LexicalIndex, stopwords: Sequence[str] = ()) -> float | None:
    """The largest impact of a term that is not a name (*Terms*, step 7: one holding an
    operator or `...`, or one of `stopwords`, which only a stop word alone gives), the impact
    codes' top level: a name's larger impact takes the last code, so adding names changes no
    other posting's code (bundle-spec.md, *Impact codes*). None when the index holds no name."""
    offsets = index.term_offsets
    marks = [m.start() for m in NAME_MARK.finditer(index.terms)]
    for word in stopwords:
        at = _term_at(index, word.encode())
        if at is not None:
            marks.append(int(offsets[at]))
    if not marks:
        return None
    named = np.unique(np.searchsorted(offsets, np.array(marks, np.uint64), side="right") - 1)
    starts = index.postings_offsets[:-1].astype(np.int64)
    ends = index.postings_offsets[1:].astype(np.int64)
    plain = np.ones(len(starts), bool)
    plain[named] = False
    plain &= ends > starts
    if not plain.any():
        return None
    tops = np.maximum.reduceat(index.postings_impacts, starts[plain])
    # reduceat runs each segment to the next start: cut at each term's own end instead when
    # a name's postings follow it (a segment then holds the name's impacts too).
    follows = np.r_[starts[plain][1:], len(index.postings_impacts)] != ends[plain]
    for i in np.flatnonzero(follows):
        tops[i] = index.postings_impacts[starts[plain][i] : ends[plain][i]].max()
    return float(tops.max())


def _term_at(index: LexicalIndex, key: bytes) -> int | None:
    """The id of `key` in the index's byte-ordered dictionary, or None."""
    offsets, blob = index.term_offsets, index.terms
    lo, hi = 0, len(offsets) - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if blob[int(offsets[mid]) : int(offsets[mid + 1])] < key:
            lo = mid + 1
        else:
            hi = mid
    found = lo < len(offsets) - 1 and blob[int(offsets[lo]) : int(offsets[lo + 1])] == key
    return lo if found else None


def _words(index: LexicalIndex) -> Iterator[tuple[int, str]]:
    """(term id, term) of the dictionary's terms that may be words (stems.is_word decides):
    ASCII lower-case letters, told from the bytes, so the million identifiers and numbers of
    a large dictionary are never decoded."""
    blob, offsets = index.terms, index.term_offsets.tolist()
    for tid, (a, b) in enumerate(zip(offsets, offsets[1:], strict=False)):
        term = blob[a:b]
        if b - a > 2 and term.isalpha() and term.islower():  # bytes: ASCII letters only
            yield tid, term.decode()


def stored_dtype(spec: ArraySpec, array: np.ndarray, n_chunks: int) -> str:
    """The array's narrow dtype where every value it may hold fits (bundle-spec.md, *Narrow
    index arrays*): row numbers when n_chunks <= 65,536, offsets when the last one fits."""
    if spec.codes is not None and array.dtype == np.dtype(spec.codes):
        return spec.codes  # codes into a table of levels (impact_codes), stored as made
    if spec.narrow is None:
        return spec.dtype
    if spec.name == "postings_docs":
        fits = n_chunks <= 1 + int(np.iinfo(spec.narrow).max)
    else:
        fits = len(array) == 0 or int(array[-1]) <= int(np.iinfo(spec.narrow).max)
    return spec.narrow if fits else spec.dtype


def _entry(path: Path, dtype: str | None = None, shape: tuple[int, ...] | None = None) -> FileEntry:
    return FileEntry(path.stat().st_size, sha256_file(path), dtype, shape)
