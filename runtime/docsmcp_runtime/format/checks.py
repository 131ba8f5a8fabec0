"""Reading a bundle directory and checking it against bundle-spec.md, one problem at a time.

`Inspection(root).problems()` yields every problem it finds, in the order a reader meets them;
the runtime stops at the first (`open_bundle`), `docsmcp verify` collects them all. Once no
problem was yielded, `metadata`, `arrays` (memory-mapped) and the chunk table are ready to use.

Cheap checks always run (metadata, the file set, sizes, sha256 when asked, array shapes and
bounds that a search would otherwise trip over); `deep=True` adds the whole-file invariants
(dictionary order, postings order, the chunk table's order and ids, facet codes against the
chunk metadata, stats), vectorised with numpy so even large bundles check in seconds: they are
deep.py's. `Problem` and the checks of one file or table the runtime reuses are problems.py's.
"""

from __future__ import annotations

from collections.abc import Generator, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .deep import DeepChecks
from .display import dictionary_problem, offsets_problem
from .files import FileEntry, check_file_count, file_entry
from .jsonread import MetadataError, loads
from .layout import (
    ALL_ARRAYS,
    ARRAY_BY_FILE,
    ARRAYS,
    CHUNKS_FILE,
    DICTIONARY_ARRAYS,
    DISPLAY_ARRAYS,
    FORMAT,
    FORMAT_VERSION,
    IMPACT_ARRAYS,
    IMPACT_LEVELS,
    IVF_ARRAYS,
    MAX_METADATA_BYTES,
    MAX_METADATA_DEPTH,
    METADATA_FILE,
    ORDER_ARRAYS,
    PAGES_FILE,
    Q8_ARRAYS,
    REQUIRED_FILES,
    RESCORE_ARRAYS,
    STEM_ARRAYS,
    TABLE_FILES,
    VECTOR_ARRAYS,
    sha256_files,
)
from .metadata import Metadata, known_requires
from .problems import Problem, _map, rows_beyond, sha256_mismatch

if TYPE_CHECKING:  # pyarrow is imported where a table is read: a search never needs it
    import pyarrow as pa
    import pyarrow.parquet as pq

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


class Inspection(DeepChecks):
    """One pass over a bundle directory. Iterate `problems()` once; then use the parts."""

    def __init__(
        self,
        root: Path,
        *,
        hashes: bool = True,
        deep: bool = False,
        columns: tuple[str, ...] | None = EAGER_COLUMNS,
        lazy_bytes: int | None = None,
        lazy_table: bool = False,
    ) -> None:
        self.root = Path(root)
        self.hashes = hashes
        # Files larger than this are not read whole here: their sha256 and the whole-file bound
        # check of postings_docs.bin are left to the caller (`deferred`, `scan_problem`), which
        # runs them off the open path (bundle/reader.py). None: everything is checked here.
        self.lazy_bytes = lazy_bytes
        self.deferred: list[str] = []  # files whose sha256 (if asked) and scans were deferred
        # The runtime's: with a display store, what a search shows needs no chunk table, so it
        # is opened and checked on first use instead (`table_deferred`; bundle/reader.py).
        self.lazy_table = lazy_table
        self.table_deferred = False
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
        yield from self._display()
        if self.metadata is not None:
            yield from self._taxonomy_codes()
            yield from self._vectors()
            yield from self._rescore()
        if self.deep:
            yield from self._deep()
            yield from self._browse_tables()

    def _browse_tables(self) -> Iterator[Problem]:
        """Read every browse table present and check it (the runtime does this lazily)."""
        if self.n_chunks is None or self.table is None:
            return
        import pyarrow as pa
        import pyarrow.compute as pc
        import pyarrow.parquet as pq

        from .table_problems import table_problems

        texts = self.table.column("text")
        lengths = pc.utf8_length(texts).to_numpy(zero_copy_only=False).astype(np.int64)
        for name in TABLE_FILES:
            if name not in self.sized:
                continue
            try:
                table = pq.read_table(self.root / name)
            except (OSError, pa.ArrowException) as exc:
                yield Problem(name, f"unreadable table ({exc})")
                continue
            order = self.arrays.get("page_order") if name == PAGES_FILE else None
            for message in table_problems(name, table, self.n_chunks, lengths, order):
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
        try:
            known_requires(raw)
        except MetadataError as exc:
            yield Problem(METADATA_FILE, str(exc))
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
        found: dict[str, Problem] = {}
        hashed: list[str] = []
        for name in sorted(self.entries):
            entry = self.entries[name]
            path = self.root / name
            if path.is_symlink() or not path.is_file():
                found[name] = Problem(
                    name, "missing" if not path.exists() else "not a regular file"
                )
                continue
            size = path.stat().st_size
            if size != entry.bytes:
                found[name] = Problem(name, f"{size} bytes, metadata.json says {entry.bytes}")
                continue
            self.sized.add(name)
            if name in self._checked_by_reader():
                continue
            if self.lazy_bytes is not None and size > self.lazy_bytes:
                self.deferred.append(name)
            elif self.hashes:
                hashed.append(name)
        # All at once (two threads for a few MB: format/layout.py), reported in name order.
        digests = sha256_files([self.root / name for name in hashed])
        for name, actual in zip(hashed, digests, strict=True):
            if actual != self.entries[name].sha256:
                found[name] = Problem(name, sha256_mismatch(actual))
        for name in sorted(found):
            yield found[name]
        if self.deep:
            listed = {METADATA_FILE, *self.entries}
            for item in sorted(self.root.iterdir()):
                if item.name not in listed:
                    yield Problem(item.name, "stray entry; a bundle holds exactly its files")

    def _checked_by_reader(self) -> frozenset[str]:
        """Files whose own reader checks their sha256 before using them, off the open path: the
        rescoring model's encoder (hundreds of MB, loaded in the background by
        search/rescore.py). A deep check (`docsmcp verify`) hashes them here like any file."""
        if self.deep or self.lazy_bytes is None:
            return frozenset()
        encoder = (self.raw or {}).get("rescore")
        encoder = encoder.get("encoder") if isinstance(encoder, dict) else None
        if not isinstance(encoder, dict):
            return frozenset()
        return frozenset(
            v for k, v in encoder.items() if k in ("model", "tokenizer") and isinstance(v, str)
        )

    def _map_arrays(self) -> None:
        for spec in ALL_ARRAYS.values():
            entry = self.entries.get(spec.file)
            if entry is None or spec.file not in self.sized:
                continue
            shape, dtype = tuple(entry.shape or ()), entry.dtype or spec.dtype
            if int(np.prod(shape, dtype=np.int64)) == 0:
                self.arrays[spec.name] = np.zeros(shape, dtype=dtype)
            else:
                self.arrays[spec.name] = _map(self.root / spec.file, dtype, shape)

    def _chunk_table(self) -> Iterator[Problem]:
        if CHUNKS_FILE not in self.sized:
            return
        facets = self.entries.get(ARRAYS["facets"].file)
        display = all(s.file in self.sized for s in DISPLAY_ARRAYS.values())
        if facets is not None and facets.shape and self.lazy_table and display and not self.deep:
            # facets.bin's shape gives the row count, which the first use compares with the
            # table's: importing pyarrow and reading the footer are most of a start otherwise.
            self.n_chunks, self.table_deferred = int(facets.shape[0]), True
            return
        if CHUNKS_FILE in self.deferred and facets is not None and facets.shape:
            # A large table is opened and checked in the background with its sha256 (its
            # footer alone is ~0.3 s per million rows); facets.bin's shape gives the row count,
            # which that check compares with the table's.
            self.n_chunks = int(facets.shape[0])
            return
        import pyarrow as pa
        import pyarrow.parquet as pq

        from .table_problems import chunk_table_problem, null_problem

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
        levels = a.get("impact_levels")
        if levels is not None and imps is not None:
            if imps.dtype != np.uint8:
                yield Problem(IMPACT_ARRAYS["impact_levels"].file, "listed with float16 impacts")
            elif len(levels) != IMPACT_LEVELS:
                yield Problem(
                    IMPACT_ARRAYS["impact_levels"].file,
                    f"{len(levels)} levels, expected {IMPACT_LEVELS}",
                )
        rings = a.get("stem_rings")
        if rings is not None and toff is not None:
            problem = stem_rings_problem(rings, len(toff) - 1)
            if problem is not None:
                yield Problem(STEM_ARRAYS["stem_rings"].file, problem)
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
        if "page_order" in a and PAGES_FILE not in self.entries:
            yield Problem(ORDER_ARRAYS["page_order"].file, "listed without pages.parquet")
        facets = a.get("facets")
        if facets is not None and n is not None and self.metadata is not None:
            want = (n, len(self.metadata.taxonomy))
            if facets.shape != want:
                yield Problem(
                    "facets.bin",
                    f"shape {list(facets.shape)}, expected [n_chunks, n_keys] = {list(want)}",
                )

    def _display(self) -> Iterator[Problem]:
        """The optional display store comes as a pair whose offsets slice display.bin into
        ceil(n_chunks / DISPLAY_BLOCK_ROWS) blocks: a reader slices blocks with them unchecked,
        so they are checked here (decoding a block is the reader's; every record is `verify
        --deep`'s)."""
        dictionary = DICTIONARY_ARRAYS["display_dictionary"].file
        if not (yield from self._pair([s.file for s in DISPLAY_ARRAYS.values()])):
            if dictionary in self.entries:
                yield Problem(METADATA_FILE, f"lists {dictionary} without the display store")
            return
        preset = self.arrays.get("display_dictionary")
        if preset is not None and (problem := dictionary_problem(len(preset))) is not None:
            yield Problem(dictionary, problem)
        display, offsets = (self.arrays.get(k) for k in DISPLAY_ARRAYS)
        if display is None or offsets is None or self.n_chunks is None:
            return
        problem = offsets_problem(offsets, self.n_chunks, len(display))
        if problem is not None:
            yield Problem(DISPLAY_ARRAYS["display_offsets"].file, problem)

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

    def _rescore(self) -> Iterator[Problem]:
        """The rescoring section's files are listed, and its vectors are one row per chunk."""
        assert self.metadata is not None
        spec, vectors_file = self.metadata.rescore, RESCORE_ARRAYS["rescore_vectors"].file
        if spec is None:
            if vectors_file in self.entries:
                yield Problem(METADATA_FILE, f"lists {vectors_file} but has no rescore section")
            return
        for name in (vectors_file, *spec.files):
            if name not in self.entries:
                yield Problem(METADATA_FILE, f"rescore needs {name}, not in files")
                return
        vectors, n, dims = self.arrays.get("rescore_vectors"), self.n_chunks, spec.model.dimensions
        if vectors is not None and n is not None and vectors.shape != (n, dims):
            yield Problem(vectors_file, f"shape {list(vectors.shape)} is not [{n}, {dims}]")

    def _pair(self, files: list[str]) -> Generator[Problem, None, bool]:
        """Whether both of a pair of optional files are listed; a problem when only one is."""
        present = [f for f in files if f in self.entries]
        if len(present) == 1:
            missing = next(f for f in files if f not in present)
            yield Problem(METADATA_FILE, f"lists {present[0]} without {missing}")
        return len(present) == len(files)

    def _q8(self, n: int, dims: int) -> Iterator[Problem]:
        """The optional int8 vectors come as a pair, shaped like vectors.bin, with a finite
        step > 0 per dimension (the runtime's error bound divides nothing but trusts it)."""
        files = [VECTOR_ARRAYS[k].file for k in Q8_ARRAYS]
        if not (yield from self._pair(files)):
            return
        q8, scale = (self.arrays.get(k) for k in Q8_ARRAYS)
        if q8 is not None and q8.shape != (n, dims):
            yield Problem(files[0], f"shape {list(q8.shape)} is not [{n}, {dims}]")
        if scale is not None:
            if scale.shape != (dims,):
                yield Problem(files[1], f"shape {list(scale.shape)} is not [{dims}]")
            elif not (np.all(np.isfinite(scale)) and np.all(scale > 0)):
                yield Problem(files[1], "steps must be finite and > 0")


# -- helpers -------------------------------------------------------------------------------


def stem_rings_problem(rings: np.ndarray, n_terms: int) -> str | None:
    """What is wrong with stem_rings.bin beside a dictionary of `n_terms`: its shape, term ids
    not ascending or beyond the dictionary, next rows beyond the array (a walk is bounded:
    stems.MAX_VARIANTS)."""
    if rings.ndim != 2 or rings.shape[1] != 2:
        return f"shape {list(rings.shape)}, expected [m, 2]"
    if not len(rings):
        return None
    tids, after = rings[:, 0], rings[:, 1]
    if np.any(tids[1:] <= tids[:-1]):
        return "term ids are not strictly ascending"
    if int(tids[-1]) >= n_terms:
        return f"term id {int(tids[-1])} beyond the {n_terms} terms of the dictionary"
    if int(after.max()) >= len(rings):
        return f"next row {int(after.max())} beyond its {len(rings)} rows"
    return None


def check(root: Path, *, hashes: bool = True, deep: bool = False) -> Iterator[Problem]:
    """Every problem of the bundle at `root` (see Inspection)."""
    yield from Inspection(root, hashes=hashes, deep=deep).problems()


__all__ = ["ARRAY_BY_FILE", "EAGER_COLUMNS", "Inspection", "Problem", "check"]
