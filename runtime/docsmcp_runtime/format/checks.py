"""Reading a bundle directory and checking it against bundle-spec.md, one problem at a time.

`Inspection(root).problems()` yields every problem it finds, in the order a reader meets them;
the runtime stops at the first (`open_bundle`), `docsmcp verify` collects them all. Once no
problem was yielded, `metadata`, `arrays` (memory-mapped) and the chunk table are ready to use.

Cheap checks always run (metadata, the file set, sizes, sha256 when asked, array shapes and
bounds that a search would otherwise trip over); `deep=True` adds the whole-file invariants
(dictionary order, postings order, the chunk table's order and ids, facet codes against the
chunk metadata, stats), vectorised with numpy so even large bundles check in seconds.
"""

from __future__ import annotations

import hashlib
import json
import mmap
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from .jsonread import MetadataError, loads
from .layout import (
    ALL_ARRAYS,
    API_FILE,
    ARRAY_BY_FILE,
    ARRAYS,
    CHUNK_COMPRESSION,
    CHUNK_SCHEMA,
    CHUNKS_FILE,
    CODE_FILE,
    FORMAT,
    FORMAT_VERSION,
    IVF_ARRAYS,
    MAX_METADATA_BYTES,
    MAX_METADATA_DEPTH,
    METADATA_FILE,
    PAGES_FILE,
    Q8_ARRAYS,
    REQUIRED_FILES,
    ROW_GROUP_SIZE,
    SECTIONS_FILE,
    TABLES,
    VECTOR_ARRAYS,
    sha256_file,
)
from .metadata import FileEntry, Metadata, check_file_count, file_entry
from .quantise import q8_problem

# Columns the runtime reads at open; `text` is read lazily by row group.
EAGER_COLUMNS = (
    "id",
    "path",
    "heading",
    "breadcrumb",
    "position",
    "file_chunk_count",
    "line_start",
    "line_end",
    "metadata",
)
# Bytes of padded term matrix built at once when checking the dictionary order.
_SORT_BLOCK_BYTES = 32 << 20


@dataclass(frozen=True)
class Problem:
    """One reason a bundle is not what the spec says; `file` names the bundle file concerned."""

    file: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}: {self.message}" if self.file else self.message


class Inspection:
    """One pass over a bundle directory. Iterate `problems()` once; then use the parts."""

    def __init__(
        self,
        root: Path,
        *,
        hashes: bool = True,
        deep: bool = False,
        columns: tuple[str, ...] | None = EAGER_COLUMNS,
        lazy_bytes: int | None = None,
    ) -> None:
        self.root = Path(root)
        self.hashes = hashes
        # Files larger than this are not read whole here: their sha256 and the whole-file bound
        # check of postings_docs.bin are left to the caller (`deferred`, `scan_problem`), which
        # runs them off the open path (bundle/reader.py). None: everything is checked here.
        self.lazy_bytes = lazy_bytes
        self.deferred: list[str] = []  # files whose sha256 (if asked) and scans were deferred
        self.deep = deep
        self.columns = columns if not deep else None  # deep checks read every column
        self.raw: dict[str, Any] | None = None
        self.metadata: Metadata | None = None
        self.entries: dict[str, FileEntry] = {}
        self.sized: set[str] = set()  # files present with the size metadata.json records
        self.arrays: dict[str, np.ndarray] = {}  # by array name (layout.ARRAYS keys)
        self.parquet: pq.ParquetFile | None = None
        self.table: pa.Table | None = None
        self.n_chunks: int | None = None
        self._entry_problems = False

    # -- the steps ------------------------------------------------------------------------------

    def problems(self) -> Iterator[Problem]:
        raw = yield from self._read_metadata()
        if raw is None:
            return
        self.raw = raw
        yield from self._entries(raw)
        yield from self._files()
        try:
            self.metadata = Metadata.from_json(raw)
        except MetadataError as exc:
            # Entry problems were reported one by one above; anything else is new.
            if not (exc.path.startswith("files") and self._entry_problems):
                yield Problem(METADATA_FILE, str(exc))
        self._map_arrays()
        yield from self._chunk_table()
        yield from self._shapes()
        if self.metadata is not None:
            yield from self._taxonomy_codes()
            yield from self._vectors()
        if self.deep:
            yield from self._deep()
            yield from self._browse_tables()

    def _browse_tables(self) -> Iterator[Problem]:
        """Read every browse table present and check it (the runtime does this lazily)."""
        if self.n_chunks is None or self.table is None:
            return
        import pyarrow.compute as pc

        texts = self.table.column("text")
        lengths = pc.utf8_length(texts).to_numpy(zero_copy_only=False).astype(np.int64)
        for name in TABLES:
            if name not in self.sized:
                continue
            try:
                table = pq.read_table(self.root / name)
            except (OSError, pa.ArrowException) as exc:
                yield Problem(name, f"unreadable table ({exc})")
                continue
            for message in table_problems(name, table, self.n_chunks, lengths):
                yield Problem(name, message)

    def _read_metadata(self) -> Iterator[Problem]:
        path = self.root / METADATA_FILE
        if not self.root.is_dir():
            yield Problem("", f"bundle directory not found: {self.root}")
            return None
        if not path.is_file():
            yield Problem(METADATA_FILE, "missing (not a docsmcp bundle)")
            return None
        try:
            size = path.stat().st_size
            if size > MAX_METADATA_BYTES:
                yield Problem(METADATA_FILE, f"{size} bytes; the limit is {MAX_METADATA_BYTES}")
                return None
            raw = loads(path.read_text(encoding="utf-8"), MAX_METADATA_DEPTH)
        except (OSError, UnicodeDecodeError) as exc:
            yield Problem(METADATA_FILE, f"unreadable ({exc})")
            return None
        except MetadataError as exc:
            yield Problem(METADATA_FILE, str(exc).removeprefix("(root): "))
            return None
        if not isinstance(raw, dict):
            yield Problem(METADATA_FILE, "not a JSON object")
            return None
        # A reader checks these first and refuses anything else: nothing below would mean much.
        if raw.get("format") != FORMAT:
            yield Problem(METADATA_FILE, f"not a docsmcp bundle (format is not {FORMAT!r})")
            return None
        version = raw.get("format_version")
        if version != FORMAT_VERSION or isinstance(version, bool):
            yield Problem(
                METADATA_FILE,
                f"unsupported bundle format version {version!r}; this reader reads version "
                f"{FORMAT_VERSION} (upgrade docsmcp-runtime or rebuild the bundle)",
            )
            return None
        return raw

    def _entries(self, raw: Mapping[str, Any]) -> Iterator[Problem]:
        files = raw.get("files")
        if not isinstance(files, dict):
            self._entry_problems = True
            yield Problem(METADATA_FILE, "files: expected an object")
            return
        try:
            check_file_count(files)
        except MetadataError as exc:
            self._entry_problems = True
            yield Problem(METADATA_FILE, str(exc))
            return
        for name, value in files.items():
            try:
                self.entries[name] = file_entry(name, value)
            except MetadataError as exc:
                self._entry_problems = True
                yield Problem(METADATA_FILE, str(exc))
        for name in REQUIRED_FILES:
            if name not in files:
                self._entry_problems = True
                yield Problem(METADATA_FILE, f"files lacks {name}")

    def _files(self) -> Iterator[Problem]:
        for name in sorted(self.entries):
            entry = self.entries[name]
            path = self.root / name
            if path.is_symlink() or not path.is_file():
                yield Problem(name, "missing" if not path.exists() else "not a regular file")
                continue
            size = path.stat().st_size
            if size != entry.bytes:
                yield Problem(name, f"{size} bytes, metadata.json says {entry.bytes}")
                continue
            self.sized.add(name)
            if self.lazy_bytes is not None and size > self.lazy_bytes:
                self.deferred.append(name)
            elif self.hashes:
                actual = sha256_file(path)
                if actual != entry.sha256:
                    yield Problem(name, sha256_mismatch(actual))
        if self.deep:
            listed = {METADATA_FILE, *self.entries}
            for item in sorted(self.root.iterdir()):
                if item.name not in listed:
                    yield Problem(item.name, "stray entry; a bundle holds exactly its files")

    def _map_arrays(self) -> None:
        for spec in ALL_ARRAYS.values():
            entry = self.entries.get(spec.file)
            if entry is None or spec.file not in self.sized:
                continue
            shape = tuple(entry.shape or ())
            if int(np.prod(shape, dtype=np.int64)) == 0:
                self.arrays[spec.name] = np.zeros(shape, dtype=spec.dtype)
            else:
                self.arrays[spec.name] = _map(self.root / spec.file, spec.dtype, shape)

    def _chunk_table(self) -> Iterator[Problem]:
        if CHUNKS_FILE not in self.sized:
            return
        facets = self.entries.get(ARRAYS["facets"].file)
        if CHUNKS_FILE in self.deferred and facets is not None and facets.shape:
            # A large table is opened and checked in the background with its sha256 (its
            # footer alone is ~0.3 s per million rows); facets.bin's shape gives the row count,
            # which that check compares with the table's.
            self.n_chunks = int(facets.shape[0])
            return
        path = self.root / CHUNKS_FILE
        try:
            parquet = pq.ParquetFile(path, memory_map=True)
        except (OSError, pa.ArrowException) as exc:
            yield Problem(CHUNKS_FILE, f"unreadable chunk table ({exc})")
            return
        problem = chunk_table_problem(parquet, None)
        if problem is not None:
            yield Problem(CHUNKS_FILE, problem)
            return
        try:
            table = parquet.read(columns=list(self.columns) if self.columns else None)
        except (OSError, pa.ArrowException) as exc:
            yield Problem(CHUNKS_FILE, f"unreadable chunk table ({exc})")
            return
        for name in table.column_names:
            problem = null_problem(name, table.column(name))
            if problem is not None:
                yield Problem(CHUNKS_FILE, problem)
                return
        self.parquet, self.table, self.n_chunks = parquet, table, table.num_rows

    def _shapes(self) -> Iterator[Problem]:
        """What a search needs to hold: consistent lengths and rows within the chunk table."""
        a = self.arrays
        toff, poff = a.get("term_offsets"), a.get("postings_offsets")
        terms, docs, imps = a.get("terms"), a.get("postings_docs"), a.get("postings_impacts")
        for name, off in (("term_offsets", toff), ("postings_offsets", poff)):
            if off is None:
                continue
            if len(off) == 0:
                yield Problem(ARRAYS[name].file, "empty; it must hold n_terms + 1 offsets")
            elif int(off[0]) != 0:
                yield Problem(ARRAYS[name].file, f"first offset is {int(off[0])}, not 0")
            elif len(off) > 1 and np.any(off[1:] < off[:-1]):
                bad = np.flatnonzero(off[1:] < off[:-1])
                yield Problem(
                    ARRAYS[name].file,
                    f"offsets decrease at {len(bad)} place(s), first at entry {int(bad[0]) + 1}",
                )
        if toff is not None and poff is not None and len(toff) != len(poff):
            yield Problem(
                "postings_offsets.bin",
                f"{len(poff)} entries, term_offsets.bin has {len(toff)} (both n_terms + 1)",
            )
        if terms is not None and toff is not None and len(toff) and int(toff[-1]) != len(terms):
            yield Problem(
                "term_offsets.bin", f"ends at {int(toff[-1])}, terms.bin has {len(terms)} bytes"
            )
        if docs is not None and poff is not None and len(poff) and int(poff[-1]) != len(docs):
            yield Problem(
                "postings_offsets.bin",
                f"ends at {int(poff[-1])}, postings_docs.bin has {len(docs)}",
            )
        if docs is not None and imps is not None and len(docs) != len(imps):
            yield Problem(
                "postings_impacts.bin", f"{len(imps)} entries, postings_docs.bin has {len(docs)}"
            )
        n = self.n_chunks
        docs_file = ARRAYS["postings_docs"].file
        if docs_file in self.deferred:
            pass  # scanned with its sha256 (scan_problem)
        elif n is not None and docs is not None and len(docs) and int(docs.max()) >= n:
            yield Problem(docs_file, rows_beyond(int(np.count_nonzero(docs >= n)), n))
        pages = a.get("page_ranges")
        if pages is not None and n is not None:
            if pages.shape != (n, 2):
                yield Problem(
                    "page_ranges.bin",
                    f"shape {list(pages.shape)}, expected [n_chunks, 2] = {[n, 2]}",
                )
            elif len(pages) and np.any(pages[:, 0] > pages[:, 1]):
                bad = int(np.count_nonzero(pages[:, 0] > pages[:, 1]))
                yield Problem("page_ranges.bin", f"{bad} range(s) end before they start")
        facets = a.get("facets")
        if facets is not None and n is not None and self.metadata is not None:
            want = (n, len(self.metadata.taxonomy))
            if facets.shape != want:
                yield Problem(
                    "facets.bin",
                    f"shape {list(facets.shape)}, expected [n_chunks, n_keys] = {list(want)}",
                )

    def _taxonomy_codes(self) -> Iterator[Problem]:
        assert self.metadata is not None
        facets = self.arrays.get("facets")
        keys = list(self.metadata.taxonomy.values())
        if facets is None or facets.ndim != 2 or facets.shape[1] != len(keys) or not len(facets):
            return
        highest = facets.max(axis=0)
        for k, (name, key) in enumerate(self.metadata.taxonomy.items()):
            if int(highest[k]) > len(key.values):
                bad = int(np.count_nonzero(facets[:, k] > len(key.values)))
                yield Problem(
                    "facets.bin", f"{bad} code(s) for {name!r} exceed its {len(key.values)} values"
                )

    def _vectors(self) -> Iterator[Problem]:
        assert self.metadata is not None
        spec, a, n = self.metadata.embedding, self.arrays, self.n_chunks
        present = [s.name for s in VECTOR_ARRAYS.values() if s.file in self.entries]
        if spec is None:
            if present:
                yield Problem(METADATA_FILE, f"lists {present[0]} but has no embedding section")
            return
        for name in ("vectors", "collapse_groups", *(IVF_ARRAYS if spec.index.ivf else ())):
            if VECTOR_ARRAYS[name].file not in self.entries:
                yield Problem(METADATA_FILE, f"embedding needs {VECTOR_ARRAYS[name].file}")
                return
        for name in spec.options.files:
            if name not in self.entries:
                yield Problem(METADATA_FILE, f"embedding.options names {name}, not in files")
        vectors = a.get("vectors")
        if n is None or vectors is None:
            return
        if vectors.shape != (n, spec.dimensions):
            yield Problem(
                "vectors.bin", f"shape {list(vectors.shape)} is not [{n}, {spec.dimensions}]"
            )
        groups = a.get("collapse_groups")
        if groups is not None and groups.shape != (n,):
            yield Problem("collapse_groups.bin", f"shape {list(groups.shape)} is not [{n}]")
        yield from self._q8(n, spec.dimensions)
        if not spec.index.ivf:
            return
        rows, centroids, offsets = (a.get(k) for k in IVF_ARRAYS)
        if centroids is not None and centroids.shape != (spec.index.lists, spec.dimensions):
            yield Problem("ivf_centroids.bin", "shape does not match embedding.index")
        if offsets is not None and (
            len(offsets) != spec.index.lists + 1
            or int(offsets[0]) != 0
            or int(offsets[-1]) != n
            or np.any(offsets[1:] < offsets[:-1])
        ):
            yield Problem("ivf_offsets.bin", "does not cover the vectors in ascending lists")
        if rows is not None and (len(rows) != n or (n and int(rows.max()) >= n)):
            yield Problem("vector_rows.bin", "is not one chunk row per stored vector")

    def _q8(self, n: int, dims: int) -> Iterator[Problem]:
        """The optional int8 vectors come as a pair, shaped like vectors.bin, with a finite
        step > 0 per dimension (the runtime's error bound divides nothing but trusts it)."""
        files = [VECTOR_ARRAYS[k].file for k in Q8_ARRAYS]
        present = [f for f in files if f in self.entries]
        if not present:
            return
        if len(present) == 1:
            missing = next(f for f in files if f not in present)
            yield Problem(METADATA_FILE, f"lists {present[0]} without {missing}")
            return
        q8, scale = (self.arrays.get(k) for k in Q8_ARRAYS)
        if q8 is not None and q8.shape != (n, dims):
            yield Problem(files[0], f"shape {list(q8.shape)} is not [{n}, {dims}]")
        if scale is not None:
            if scale.shape != (dims,):
                yield Problem(files[1], f"shape {list(scale.shape)} is not [{dims}]")
            elif not (np.all(np.isfinite(scale)) and np.all(scale > 0)):
                yield Problem(files[1], "steps must be finite and > 0")

    # -- deep checks (docsmcp verify) -------------------------------------------------------------

    def _deep(self) -> Iterator[Problem]:
        yield from self._compression()
        yield from self._terms()
        yield from self._postings()
        if self.table is not None:
            yield from self._chunk_rows(self.table)
            yield from self._chunk_metadata(self.table)
        yield from self._stats()
        yield from self._q8_bound()

    def _q8_bound(self) -> Iterator[Problem]:
        vectors, q8, scale = (self.arrays.get(k) for k in ("vectors", *Q8_ARRAYS))
        if vectors is None or q8 is None or scale is None or q8.shape != vectors.shape:
            return
        if scale.shape == (vectors.shape[1],):
            problem = q8_problem(vectors, q8, scale)
            if problem is not None:
                yield Problem(VECTOR_ARRAYS["vectors_q8"].file, problem)

    def _compression(self) -> Iterator[Problem]:
        if self.parquet is None:
            return
        md = self.parquet.metadata
        codecs = {
            md.row_group(i).column(j).compression
            for i in range(md.num_row_groups)
            for j in range(md.num_columns)
        }
        if codecs - {CHUNK_COMPRESSION.upper()}:
            yield Problem(CHUNKS_FILE, f"compression {sorted(codecs)}, expected zstd")

    def _terms(self) -> Iterator[Problem]:
        terms, off = self.arrays.get("terms"), self.arrays.get("term_offsets")
        if terms is None or off is None or not _offsets_fit(off, len(terms)):
            return
        n = len(off) - 1
        starts = off[:-1].astype(np.int64)
        lengths = np.diff(off.astype(np.int64))
        try:
            terms.tobytes().decode("utf-8")
        except UnicodeDecodeError as exc:
            at = _term_at(off, exc.start)
            yield Problem("terms.bin", f"not UTF-8 at byte {exc.start} (term {at})")
            return
        # Valid UTF-8 overall and no term starting inside a character: every term is UTF-8.
        lead = terms[starts[lengths > 0]]
        split = int(np.count_nonzero((lead & 0xC0) == 0x80))
        if split:
            yield Problem("term_offsets.bin", f"{split} offset(s) fall inside a UTF-8 character")
        if np.any(terms == 0):
            yield Problem("terms.bin", "contains NUL bytes")
            return  # the padded comparison below treats NUL as padding
        if np.any(lengths == 0):
            yield Problem("terms.bin", f"{int(np.count_nonzero(lengths == 0))} empty term(s)")
        # Spaces: only bigram terms have one, between two non-empty parts.
        space_at = np.flatnonzero(terms == 0x20)
        if len(space_at):
            owner = np.searchsorted(starts, space_at, side="right") - 1
            edge = (space_at == starts[owner]) | (space_at == starts[owner] + lengths[owner] - 1)
            multiple = np.bincount(owner, minlength=n) > 1
            if np.any(edge) or np.any(multiple):
                bad = int(np.count_nonzero(multiple)) + int(np.count_nonzero(edge))
                yield Problem("terms.bin", f"{bad} term(s) with misplaced spaces (bigrams: 'a b')")
        unsorted = _unsorted_terms(terms, starts, lengths)
        if len(unsorted):
            i = int(unsorted[0])
            yield Problem(
                "terms.bin",
                f"dictionary not strictly ascending at {len(unsorted)} place(s), first "
                f"{_term(terms, off, i)!r} >= {_term(terms, off, i + 1)!r} (terms {i}, {i + 1})",
            )

    def _postings(self) -> Iterator[Problem]:
        a = self.arrays
        poff, docs, imps = (
            a.get("postings_offsets"),
            a.get("postings_docs"),
            a.get("postings_impacts"),
        )
        if imps is not None:
            bad = int(np.count_nonzero(~np.isfinite(imps) | (imps < 0)))
            if bad:
                yield Problem("postings_impacts.bin", f"{bad} impact(s) negative, infinite or NaN")
        if docs is None or poff is None or not _offsets_fit(poff, len(docs)) or len(docs) < 2:
            return
        # Positions where a new term's postings begin may go down; nowhere else.
        begins = np.zeros(len(docs), dtype=bool)
        firsts = poff[:-1][poff[:-1] < len(docs)].astype(np.int64)
        begins[firsts] = True
        step = np.diff(docs.astype(np.int64))
        bad = np.flatnonzero((step <= 0) & ~begins[1:])
        if len(bad):
            term = _term_at(poff, int(bad[0]) + 1)
            terms, toff = a.get("terms"), a.get("term_offsets")
            name = ""
            if terms is not None and toff is not None and term + 1 < len(toff):
                name = f" {_term(terms, toff, term)!r}"
            yield Problem(
                "postings_docs.bin",
                f"rows not strictly ascending within a term at {len(bad)} place(s), first in "
                f"term {term}{name}",
            )

    def _chunk_rows(self, table: pa.Table) -> Iterator[Problem]:
        import pyarrow.compute as pc  # deep checks only: 40 ms of import the runtime never pays

        n = table.num_rows
        ids = table.column("id")
        duplicates = n - len(pc.unique(ids))
        if duplicates:
            yield Problem(CHUNKS_FILE, f"{duplicates} duplicate chunk id(s)")
        # Order by path (bytes), then position; positions 0..count-1 within each file.
        encoded = pc.dictionary_encode(table.column("path").combine_chunks())
        dictionary = encoded.dictionary.to_pylist()
        rank_of = np.argsort(np.argsort([p.encode() for p in dictionary], kind="stable"))
        rank = rank_of[encoded.indices.to_numpy()] if n else np.zeros(0, dtype=np.int64)
        position = table.column("position").to_numpy().astype(np.int64)
        count = table.column("file_chunk_count").to_numpy().astype(np.int64)
        if n:
            if np.any(np.diff(rank) < 0):
                yield Problem(CHUNKS_FILE, "rows are not ordered by path")
            first = np.concatenate([[True], rank[1:] != rank[:-1]])
            group_start = np.maximum.accumulate(np.where(first, np.arange(n), 0))
            group_size = np.diff(np.append(np.flatnonzero(first), n))
            bad_pos = int(np.count_nonzero(position != np.arange(n) - group_start))
            if bad_pos:
                yield Problem(
                    CHUNKS_FILE,
                    f"{bad_pos} row(s) whose position is not its place within the file "
                    "(rows must be ordered by path, then position)",
                )
            bad_count = int(np.count_nonzero(count != np.repeat(group_size, group_size)))
            if bad_count:
                yield Problem(CHUNKS_FILE, f"{bad_count} row(s) whose file_chunk_count is wrong")
        level = table.column("level").to_numpy()
        if np.any((level < 0) | (level > 6)):
            yield Problem(CHUNKS_FILE, "level outside 0..6")
        start = table.column("line_start").to_numpy()
        end = table.column("line_end").to_numpy()
        bad_lines = int(np.count_nonzero((start < 1) | (end < start)))
        if bad_lines:
            yield Problem(CHUNKS_FILE, f"{bad_lines} bad line ranges")
        paths = table.column("path")
        # `{path}` or `{path}#...`; breadcrumbs `{path}` or `{path} > ...`.
        for what, column, sep in (("chunk id", "id", "#"), ("breadcrumb", "breadcrumb", " > ")):
            values = table.column(column)
            same = pc.equal(values, paths).to_numpy(zero_copy_only=False)
            prefixed = _starts_with(values, pc.binary_join_element_wise(paths, sep, ""))
            bad = int(np.count_nonzero(~(same | prefixed)))
            if bad:
                yield Problem(CHUNKS_FILE, f"{bad} {what}(s) that do not start with the row's path")

    def _chunk_metadata(self, table: pa.Table) -> Iterator[Problem]:
        import pyarrow.compute as pc

        taxonomy = self.metadata.taxonomy if self.metadata is not None else None
        encoded = pc.dictionary_encode(table.column("metadata").combine_chunks())
        distinct = encoded.dictionary.to_pylist()
        keys = list(taxonomy or {})
        codes = np.zeros((len(distinct), len(keys)), dtype=np.int64)
        found: list[str] = []
        for j, text in enumerate(distinct):
            try:
                obj = json.loads(text)
            except ValueError:
                found.append(f"not JSON: {text[:60]!r}")
                continue
            if not isinstance(obj, dict) or not all(isinstance(v, str) for v in obj.values()):
                found.append(f"not an object of strings: {text[:60]!r}")
                continue
            if list(obj) != sorted(obj):
                found.append(f"keys not sorted: {text[:60]!r}")
            if taxonomy is None:
                continue
            for key, value in obj.items():
                if key not in taxonomy:
                    found.append(f"key {key!r} is not in the taxonomy")
                elif value not in taxonomy[key].values:
                    found.append(f"value {value!r} of {key!r} is not in the taxonomy")
                else:
                    codes[j, keys.index(key)] = taxonomy[key].code(value)
        for message in dict.fromkeys(found):
            yield Problem(CHUNKS_FILE, f"metadata {message}")
        facets = self.arrays.get("facets")
        if taxonomy is None or facets is None or facets.shape != (table.num_rows, len(keys)):
            return
        expected = codes[encoded.indices.to_numpy()] if table.num_rows else codes[:0]
        wrong = np.flatnonzero(np.any(facets.astype(np.int64) != expected, axis=1))
        if len(wrong):
            yield Problem(
                "facets.bin",
                f"{len(wrong)} row(s) disagree with the chunk metadata, first row {int(wrong[0])}",
            )

    def _stats(self) -> Iterator[Problem]:
        if self.metadata is None:
            return
        stats = self.metadata.stats
        toff, docs = self.arrays.get("term_offsets"), self.arrays.get("postings_docs")
        actual = {
            "chunks": self.n_chunks,
            "terms": len(toff) - 1 if toff is not None and len(toff) else None,
            "postings": len(docs) if docs is not None else None,
        }
        for key, got in actual.items():
            if got is not None and getattr(stats, key) != got:
                yield Problem(
                    METADATA_FILE, f"stats.{key} is {getattr(stats, key)}, the bundle has {got}"
                )


# -- helpers -------------------------------------------------------------------------------


def chunk_table_problem(parquet: pq.ParquetFile, n_chunks: int | None) -> str | None:
    """What is wrong with the chunk table's layout (schema, row groups, and the row count when
    `n_chunks` is known), or None."""
    try:
        schema = parquet.schema_arrow
    except (OSError, pa.ArrowException) as exc:
        return f"unreadable chunk table ({exc})"
    got = [(f.name, f.type) for f in schema]
    want = [(f.name, f.type) for f in CHUNK_SCHEMA]
    if got != want:
        return (
            f"columns are {[f'{n}: {t}' for n, t in got]}, expected "
            f"{[f'{n}: {t}' for n, t in want]}"
        )
    md = parquet.metadata
    sizes = [md.row_group(i).num_rows for i in range(md.num_row_groups)]
    if any(s != ROW_GROUP_SIZE for s in sizes[:-1]) or (sizes and sizes[-1] > ROW_GROUP_SIZE):
        return f"row groups are not of {ROW_GROUP_SIZE} rows ({sizes[:5]})"
    if n_chunks is not None and md.num_rows != n_chunks:
        return f"{md.num_rows} rows, facets.bin has {n_chunks}"
    return None


def null_problem(name: str, column: pa.ChunkedArray | pa.Array) -> str | None:
    nulls = column.null_count
    return f"column {name} has {nulls} nulls" if nulls else None


def sha256_mismatch(actual: str) -> str:
    return f"sha256 {actual} does not match metadata.json (corrupt bundle)"


def rows_beyond(count: int, n_chunks: int) -> str:
    return f"{count} row number(s) >= n_chunks ({n_chunks})"


# Bytes read at a time by scan_problem (a multiple of every array's item size).
_SCAN_BLOCK = 4 << 20


def scan_problem(root: Path, name: str, sha256: str | None, n_chunks: int) -> str | None:
    """The whole-file checks of one deferred file in one streaming read (no mmap, so the pages
    it reads are not charged to the process): its sha256 when `sha256` is given, and for
    postings_docs.bin the row bound. The problem's message, or None."""
    digest = hashlib.sha256() if sha256 is not None else None
    bounded = name == ARRAYS["postings_docs"].file
    beyond = 0
    with (root / name).open("rb") as fh:
        while block := fh.read(_SCAN_BLOCK):
            if digest is not None:
                digest.update(block)
            if bounded:
                values = np.frombuffer(block, dtype=ARRAYS["postings_docs"].dtype)
                beyond += int(np.count_nonzero(values >= n_chunks))
    if digest is not None and digest.hexdigest() != sha256:
        return sha256_mismatch(digest.hexdigest())
    if beyond:
        return rows_beyond(beyond, n_chunks)
    return None


def _map(path: Path, dtype: str, shape: tuple[int, ...]) -> np.ndarray:
    """A read-only array over an mmap. Plain ndarray views index much faster than np.memmap."""
    with path.open("rb") as fh:
        mapped = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    return np.frombuffer(mapped, dtype=dtype).reshape(shape)


def _offsets_fit(off: np.ndarray, end: int) -> bool:
    return (
        len(off) > 0
        and int(off[0]) == 0
        and int(off[-1]) == end
        and not (len(off) > 1 and np.any(off[1:] < off[:-1]))
    )


def _unsorted_terms(terms: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Indices i where term i >= term i+1 (bytewise), comparing NUL-padded fixed-width rows."""
    n = len(lengths)
    if n < 2:
        return np.array([], dtype=np.int64)
    width = max(int(lengths.max()), 1)
    rows_per_block = max(2, _SORT_BLOCK_BYTES // width)
    bad = []
    # Blocks overlap by one term so that every consecutive pair is compared once.
    for lo in range(0, n - 1, rows_per_block - 1):
        hi = min(n, lo + rows_per_block)
        lens = lengths[lo:hi]
        matrix = np.zeros((hi - lo, width), dtype=np.uint8)
        row = np.repeat(np.arange(hi - lo), lens)
        col = np.arange(int(lens.sum())) - np.repeat(np.cumsum(lens) - lens, lens)
        matrix[row, col] = terms[int(starts[lo]) : int(starts[lo]) + int(lens.sum())]
        keys = matrix.view(f"S{width}").ravel()
        bad.append(lo + np.flatnonzero(keys[1:] <= keys[:-1]))
    return np.concatenate(bad)


def _term(terms: np.ndarray, off: np.ndarray, i: int) -> str:
    return terms[int(off[i]) : int(off[i + 1])].tobytes().decode("utf-8", "replace")


def _term_at(off: np.ndarray, byte: int) -> int:
    return int(np.searchsorted(off, byte, side="right")) - 1


def _starts_with(values: pa.ChunkedArray, prefixes: pa.ChunkedArray) -> np.ndarray:
    """Element-wise `values[i].startswith(prefixes[i])` over the raw Arrow buffers (pyarrow's
    own starts_with takes one pattern for all rows)."""
    v_off, v_data = _string_buffers(values)
    p_off, p_data = _string_buffers(prefixes)
    v_len, p_len = np.diff(v_off), np.diff(p_off)
    n = len(p_len)
    total = int(p_len.sum())
    row = np.repeat(np.arange(n), p_len)
    k = np.arange(total) - np.repeat(p_off[:-1] - p_off[0], p_len)
    in_range = k < v_len[row]
    v_pos = np.where(in_range, v_off[row] + k, 0)
    differs = ~in_range | (v_data[v_pos] != p_data[p_off[row] + k])
    return (v_len >= p_len) & (np.bincount(row[differs], minlength=n) == 0)


def _string_buffers(column: pa.ChunkedArray | pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """(int64 offsets, uint8 data) of a null-free string column."""
    array = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    _, offsets, data = array.buffers()
    off = np.frombuffer(offsets, dtype=np.int32)[array.offset : array.offset + len(array) + 1]
    raw = np.frombuffer(data, dtype=np.uint8) if data is not None else np.zeros(0, np.uint8)
    return off.astype(np.int64), raw


def list_parts(column: pa.ListArray) -> tuple[np.ndarray, pa.Array]:
    """(offsets from 0, values) of a list array. Not `flatten()`: that imports pyarrow.compute,
    40 ms the runtime's first search would pay."""
    offsets = column.offsets.to_numpy().astype(np.int64)
    start = int(offsets[0]) if len(offsets) else 0
    end = int(offsets[-1]) if len(offsets) else 0
    return offsets - start, column.values.slice(start, end - start)


def api_json(text: str) -> list:
    """One JSON column value of `api.parquet` (an array), or MetadataError."""
    value = loads(text, MAX_METADATA_DEPTH)
    if not isinstance(value, list):
        raise MetadataError("(root)", "not a JSON array")
    return value


def table_problems(
    name: str, table: pa.Table, n_chunks: int, text_lengths: np.ndarray | None = None
) -> Iterator[str]:
    """What is wrong with a browse table (bundle-spec.md, *Browse tables*): its schema, and
    every row number, range and offset it holds. `text_lengths` (characters of each chunk's
    text, `docsmcp verify`) also checks code offsets against the texts and parses every JSON
    value of `api`; the runtime passes None, slices defensively and parses an entry's JSON when
    it shows it (`api_json`)."""
    schema = TABLES[name]
    if not table.schema.equals(schema, check_metadata=False):
        yield f"schema {table.schema.names} is not the spec's {schema.names}"
        return
    for column in schema.names:
        if column in ("section_id", "summary"):
            continue
        if table.column(column).null_count:
            yield f"column {column} has nulls"
            return

    def ints(column: str) -> np.ndarray:
        return table.column(column).to_numpy().astype(np.int64)

    if name == PAGES_FILE:
        first, count = ints("first_row"), ints("chunk_count")
        expected = np.concatenate([[0], np.cumsum(count)[:-1]]) if len(count) else first
        if (count < 1).any() or not np.array_equal(first, expected) or count.sum() != n_chunks:
            yield "pages do not cover the chunk rows in order"
        paths = table.column("path").to_pylist()
        if paths != sorted(paths, key=str.encode) or len(set(paths)) != len(paths):
            yield "paths are not unique and in byte order"
    elif name == SECTIONS_FILE:
        if table.num_rows != n_chunks:
            yield f"{table.num_rows} rows; the bundle has {n_chunks} chunks"
        _, values = list_parts(table.column("references").combine_chunks())
        targets = values.to_numpy()
        if len(targets) and int(targets.max()) >= n_chunks:
            yield "a reference names a row past the last chunk"
    else:
        rows = ints("row")
        if len(rows) and (rows.max() >= n_chunks):
            yield "a row number past the last chunk"
        if name == API_FILE and text_lengths is not None:
            for column in ("parameters", "examples"):
                for text in table.column(column).to_pylist():
                    try:
                        api_json(text)
                    except MetadataError:
                        yield f"column {column} holds a value that is not a JSON array"
                        break
        if name == CODE_FILE:
            start, end, context = ints("start"), ints("end"), ints("context_start")
            if (context < 0).any() or (context > start).any() or (start >= end).any():
                yield "code offsets out of order"
            elif text_lengths is not None and len(rows) and (end > text_lengths[rows]).any():
                yield "code offsets past the end of the chunk text"
            if len(rows) and (np.diff(rows) < 0).any():
                yield "rows are not in chunk order"


def check(root: Path, *, hashes: bool = True, deep: bool = False) -> Iterator[Problem]:
    """Every problem of the bundle at `root` (see Inspection)."""
    yield from Inspection(root, hashes=hashes, deep=deep).problems()


__all__ = ["ARRAY_BY_FILE", "EAGER_COLUMNS", "Inspection", "Problem", "check"]
