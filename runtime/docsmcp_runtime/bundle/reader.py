"""Opening a bundle for serving (the format and its checks live in `format/`).

Arrays are memory-mapped, never read whole. What a hit shows comes from the display store
(display.py) when the bundle has one: the chunk table is then opened, checked and read (with
pyarrow, imported then) only when a tool needs a whole column. A bundle without a store reads
its table's small columns at open when the table is small; those of a large table (above
`integrity.lazy_bytes()`, a million chunks is ~130 MB) are read a row group at a time as results
show rows, and a whole column only when a tool needs one (`get_doc`'s id lookup, the page list),
so neither start-up time nor memory grows with the size of the documentation. Files above
`lazy_bytes()` are checked in a background thread (integrity.py); every access to bundle data
waits for that check (`ready`).
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import BundleError
from ..format import (
    CHUNKS_FILE,
    DISPLAY_ARRAYS,
    EAGER_COLUMNS,
    PAGES_FILE,
    ROW_GROUP_SIZE,
    Inspection,
    Metadata,
)
from ..records import record
from .arrow import arrow
from .display import DisplayStore, Shown, open_display
from .integrity import BackgroundCheck, lazy_bytes, open_chunk_table

if TYPE_CHECKING:
    import pyarrow as pa
    import pyarrow.parquet as pq

# Decompressed row groups of the chunk table kept in memory, least recently used first out. By
# bytes, not groups: decompressing a row group is most of a search's CPU time (a speakeasy-sdks
# search shows ~2.6 groups), and 24 MB holds all of a 20 MB corpus' text, so a warm server of
# such a bundle decompresses nothing; a million-chunk one keeps its most used ~50 groups.
ROW_GROUP_CACHE_BYTES = 24 << 20
# Row groups a result needs that are read concurrently (`prefetch`): decoding releases the GIL,
# so on two cores ten row groups of a million-chunk bundle take half the wall time. One search
# still uses at most this many threads.
PREFETCH_THREADS = 2
# The chunk-table columns a hit shows besides `metadata` and `text` (Bundle.shown).
_SHOWN_COLUMNS = ("id", "path", "heading", "breadcrumb", "line_start", "line_end")
# Columns held as numpy (integers); the other eager columns are Arrow strings.
_INT_COLUMNS = ("position", "file_chunk_count", "line_start", "line_end")


@record(frozen=False)
class Bundle:
    path: Path
    metadata: Metadata
    arrays: dict[str, np.ndarray]  # by array name (format.ARRAYS / VECTOR_ARRAYS)
    n_chunks: int
    # Whole columns read so far (format.EAGER_COLUMNS), as Arrow arrays (strings: compact, only
    # the rows a result shows are converted) or numpy (integers).
    _columns: dict[str, Any]
    _parquet: pq.ParquetFile | None  # None until the background check has opened it
    _groups: OrderedDict[int, dict[str, pa.Array]] = field(default_factory=OrderedDict)
    _group_sizes: dict[int, int] = field(default_factory=dict)  # decompressed bytes per group
    _prefetcher: Any = None  # a ThreadPoolExecutor, made on the first prefetch that needs it
    _thread_readers: threading.local = field(default_factory=threading.local)
    # The thread that opened the bundle reads with the shared ParquetFile, others their own.
    _owner: threading.Thread = field(default_factory=threading.current_thread)
    _group_bytes: int = 0  # decompressed bytes held in _groups
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _id_index: dict[str, int] | None = None
    _anchor_index: dict[str, int] | None = None
    _tables: dict[str, pa.Table | None] = field(default_factory=dict)
    # `LIBRARY:` when a server serves several bundles (libraries/): every chunk id it shows
    # carries the prefix, and ids are accepted with or without it.
    id_prefix: str = ""
    # The checks of the large files, still running or done (None: everything checked at open).
    background: BackgroundCheck | None = None
    large_table: bool = False  # the chunk table is too large to read at open (integrity.py)
    # What hits show, without the chunk table (display.py); None for bundles built before it.
    display: DisplayStore | None = None
    # The chunk table is opened and checked on first use, not at open (with a display store).
    table_deferred: bool = False

    def ready(self) -> None:
        """Return once every file passed its checks; BundleError (one line) naming the file
        that failed. Called before any bundle data is used; instant once they have passed."""
        check = self.background
        if check is not None:
            check.wait()
            with self._lock:
                if self._parquet is None:
                    self._parquet = check.parquet
            self.background = None  # passed: later calls skip the wait

    @property
    def integrity(self) -> str | None:
        """ "checking" while the background check runs, its one-line problem if it failed,
        None once everything passed (for /healthz)."""
        check = self.background
        if check is None:
            return None
        if not check.done:
            return "checking"
        return check.problem

    @property
    def bundle_id(self) -> str:
        return self.metadata.bundle_id

    @property
    def taxonomy_keys(self) -> list[str]:
        return list(self.metadata.taxonomy)

    # -- the chunk table's columns ----------------------------------------------------------------

    @property
    def ids(self) -> pa.Array:
        return self.column("id")

    @property
    def paths(self) -> pa.Array:
        return self.column("path")

    @property
    def headings(self) -> pa.Array:
        return self.column("heading")

    @property
    def breadcrumbs(self) -> pa.Array:
        return self.column("breadcrumb")

    @property
    def chunk_metadata(self) -> pa.Array:
        """JSON objects, decoded on use."""
        return self.column("metadata")

    @property
    def positions(self) -> np.ndarray:
        return self.column("position")

    @property
    def file_counts(self) -> np.ndarray:
        return self.column("file_chunk_count")

    @property
    def line_starts(self) -> np.ndarray:
        return self.column("line_start")

    @property
    def line_ends(self) -> np.ndarray:
        return self.column("line_end")

    def column(self, name: str) -> Any:
        """A whole column of the chunk table (format.EAGER_COLUMNS), read on first use."""
        found = self._columns.get(name)
        if found is not None:
            return found
        from ..format.table_problems import null_problem

        parquet = self._reader()
        # A read error here (a file changed under the server) is an internal error, as ever.
        column = parquet.read(columns=[name]).column(0)
        problem = null_problem(name, column)
        if problem is not None:
            raise BundleError(f"{self.path / CHUNKS_FILE}: {problem}")
        value = column.to_numpy() if name in _INT_COLUMNS else column.combine_chunks()
        with self._lock:
            return self._columns.setdefault(name, value)

    def cell(self, row: int, name: str) -> Any:
        """One value of the chunk table as a Python object: from a whole column already read,
        else from its row group (so showing ten hits reads ten row groups at most)."""
        if self.display is not None:
            self.ready()
            shown = self.display.row(row)
            if name == "text":
                return shown.text
            if name == "metadata":  # the column's JSON string (bundle-spec.md: keys sorted)
                return json.dumps(shown.header[name], sort_keys=True, ensure_ascii=False)
            return shown.header[name]
        column = self._columns.get(name)
        if column is not None:
            value = column[row]
            return int(value) if name in _INT_COLUMNS else value.as_py()
        value = self._group(row)[name][row % ROW_GROUP_SIZE]
        return int(value.as_py()) if name in _INT_COLUMNS else value.as_py()

    def shown(self, row: int) -> Shown:
        """What a hit shows of `row`: the display store's record (one read, parsed once), else
        the same fields gathered from the chunk table. Callers copy what they hand out."""
        if self.display is not None:
            self.ready()
            return self.display.row(row)
        header = {name: self.cell(row, name) for name in _SHOWN_COLUMNS}
        header["metadata"] = json.loads(self.cell(row, "metadata"))
        return Shown(header, self.cell(row, "text"))

    def _chunk_file(self) -> pq.ParquetFile:
        self.ready()
        if self._parquet is None and self.table_deferred:
            with self._lock:
                if self._parquet is None:
                    parquet, problem = open_chunk_table(self.path, self.n_chunks)
                    if problem is not None:
                        raise BundleError(f"{self.path / CHUNKS_FILE}: {problem}")
                    self._parquet = parquet
        assert self._parquet is not None
        return self._parquet

    def _group(self, row: int) -> dict[str, pa.Array]:
        """The columns of `row`'s row group not held whole (text always), cached."""
        rg = row // ROW_GROUP_SIZE  # fixed-size row groups (bundle-spec.md)
        with self._lock:
            group = self._groups.get(rg)
            if group is not None:
                self._groups.move_to_end(rg)
                return group
        from ..format.table_problems import null_problem

        parquet = self._reader()
        names = [n for n in (*EAGER_COLUMNS, "text") if n not in self._columns]
        # One thread: Arrow's pool decoding the columns in parallel doubled the wall time of a
        # row group read (1.16 vs 0.55 ms, 1M-chunk bundle, 2 cores) and adds nothing when
        # concurrent requests already keep the cores busy.
        table = parquet.read_row_group(rg, columns=names, use_threads=False)
        group = {}
        for name in names:
            column = table.column(name)
            problem = null_problem(name, column)
            if problem is not None:  # large tables are checked here, one row group at a time
                raise BundleError(f"{self.path / CHUNKS_FILE}: {problem} (row group {rg})")
            group[name] = _one_array(column)
        size = _nbytes(group)
        with self._lock:
            if rg not in self._groups:
                self._groups[rg] = group
                self._group_sizes[rg] = size
                self._group_bytes += size
            while self._group_bytes > ROW_GROUP_CACHE_BYTES and len(self._groups) > 1:
                evicted, _ = self._groups.popitem(last=False)
                self._group_bytes -= self._group_sizes.pop(evicted)
        return group

    def prefetch(self, rows: list[int]) -> None:
        """Read the row groups of `rows` that are not cached, PREFETCH_THREADS at a time, so
        showing a page of hits waits for the slowest read, not for their sum. Only for a large
        chunk table (read per row group from the start): a small one is soon all cached, and
        the threads' own malloc arenas cost a speakeasy-sdks server ~27 MB of its budget."""
        if not self.large_table or self.display is not None:
            return
        with self._lock:
            wanted = list(dict.fromkeys(r // ROW_GROUP_SIZE for r in rows))
            missing = [rg for rg in wanted if rg not in self._groups]
        if len(missing) < 2:
            return
        if self._prefetcher is None:
            from concurrent.futures import ThreadPoolExecutor  # only servers of large bundles

            with self._lock:
                if self._prefetcher is None:
                    self._prefetcher = ThreadPoolExecutor(
                        PREFETCH_THREADS, thread_name_prefix="docsmcp-rows"
                    )
        for _ in self._prefetcher.map(self._prefetch_group, missing):
            pass

    def _prefetch_group(self, rg: int) -> None:
        self._group(rg * ROW_GROUP_SIZE)

    def _reader(self) -> pq.ParquetFile:
        """This thread's reader of the chunk table: one ParquetFile read from two threads at
        once crashed the interpreter (pyarrow 26, prefetching a million-chunk bundle), and
        HTTP requests run on several threads. Readers share the parsed footer."""
        _, pq = arrow()
        shared = self._chunk_file()
        if threading.current_thread() is self._owner:
            return shared
        local = self._thread_readers
        reader = getattr(local, "parquet", None)
        if reader is None:
            reader = local.parquet = pq.ParquetFile(
                self.path / CHUNKS_FILE, metadata=shared.metadata
            )
        return reader

    def warm(self) -> None:
        """Fill the row-group cache (up to its bound, in row order): before `--workers` fork,
        so every worker shares these decompressed pages instead of decompressing its own."""
        if self.display is not None:
            self.ready()
            self.display.warm()
            return
        for rg in range(0, self.n_chunks, ROW_GROUP_SIZE):
            self._group(rg)
            if self._group_bytes >= ROW_GROUP_CACHE_BYTES:
                return

    def chunk_ids(self, rows: range | None = None) -> list[str]:
        """The chunk ids of `rows` (default: every row), in row order, without the library
        prefix: from the display store when the bundle has one (no pyarrow), else the table."""
        if self.display is not None:
            self.ready()
            if rows is None:
                return self.display.ids()
            return [self.display.row(r).header["id"] for r in rows]
        ids = self.ids if rows is None else self.ids[rows.start : rows.stop]
        return ids.to_pylist()

    def _page_rows(self, path: str) -> range | None:
        """The rows of the page at `path`, found by bisection over the display store's records
        (rows are in path order, bundle-spec.md): a get_doc reads ~15 records instead of every
        id (~55 ms on speakeasy-sdks). None without a store or without such a page."""
        display = self.display
        if display is None:
            return None
        self.ready()
        lo, hi = 0, self.n_chunks
        while lo < hi:
            mid = (lo + hi) // 2
            if display.row(mid).header["path"] < path:
                lo = mid + 1
            else:
                hi = mid
        if lo >= self.n_chunks:
            return None
        first = display.row(lo).header
        if first["path"] != path:
            return None
        return range(lo, min(self.n_chunks, lo + max(1, int(first["file_chunk_count"]))))

    def row_of(self, chunk_id: str) -> int | None:
        if self.id_prefix and chunk_id.startswith(self.id_prefix):
            chunk_id = chunk_id[len(self.id_prefix) :]
        # An id starts with its page's path: look in that page first.
        rows = self._page_rows(chunk_id.partition("#")[0])
        for row in rows or ():
            if self.cell(row, "id") == chunk_id:
                return row
        # Built on the first lookup that needs it (no store, or a path holding `#`): search
        # never needs it.
        if self._id_index is None:
            index = {cid: i for i, cid in enumerate(self.chunk_ids())}
            with self._lock:
                if self._id_index is None:
                    self._id_index = index
        return self._id_index.get(chunk_id)

    def row_of_anchor(self, chunk_id: str) -> int | None:
        """The row of `path#anchor`, a section named by the site's own anchor (the last part
        of its id: `tutorial/cors.md#use-corsmiddleware` for `...#cors/use-corsmiddleware`,
        as a link to the page reaches it); the first in page order when several share it."""
        if self.id_prefix and chunk_id.startswith(self.id_prefix):
            chunk_id = chunk_id[len(self.id_prefix) :]
        path, sep, anchor = chunk_id.partition("#")
        if not sep or not anchor or "/" in anchor:
            return None
        # A section with no text of its own opens its first subsection's chunk, whose id holds
        # the section's anchor above its own (pkg.go.dev's `#pkg-types` over `…/pkg-types/Mux`:
        # the bare `## Types` heading is in that chunk's text, its explicit id is not): that
        # chunk, the first in page order, answers when no id ends in the anchor.
        below = None
        for row in self._page_rows(path) or ():  # the first in page order
            page, _, rest = self.cell(row, "id").partition("#")
            if rest and page == path:
                parts = rest.split("/")
                if parts[-1] == anchor:
                    return row
                if below is None and anchor in parts[:-1]:
                    below = row
        if self._anchor_index is None:
            index: dict[str, int] = {}
            for i, cid in enumerate(self.chunk_ids()):
                page, _, rest = cid.partition("#")
                if rest:
                    index.setdefault(f"{page}#{rest.rpartition('/')[2]}", i)
            with self._lock:
                if self._anchor_index is None:
                    self._anchor_index = index
        found = self._anchor_index.get(f"{path}#{anchor}")
        if found is None:
            found = below
        return found if found is not None else self._row_holding_heading(path, anchor)

    def _row_holding_heading(self, path: str, anchor: str) -> int | None:
        """The row of page `path` whose text holds a heading slugged `anchor`: a section with no
        text of its own is merged into the next chunk and has no id (shadcn's `## Outline`
        over a demo component: 201 headings), yet the site links to it. Read on a miss only
        (so imported here: a start reads no slug)."""
        import re

        from ..format.slugs import slugify

        headings = re.compile(r"^ {0,3}#{1,6}[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
        markup = re.compile(r"`([^`]*)`|\[([^\]]*)\]\([^)]*\)|[*_]{1,2}")
        for row in self._page_rows(path) or ():
            for m in headings.finditer(self.text(row)):
                title = markup.sub(lambda x: x.group(1) or x.group(2) or "", m.group(1))
                if slugify(title) == anchor:
                    return row
        return None

    def table(self, name: str) -> pa.Table | None:
        """A browse table (format.TABLES), read and checked on first use; None when the bundle
        predates it. A damaged table raises BundleError naming the file and the problem."""
        self.ready()
        with self._lock:
            if name in self._tables:
                return self._tables[name]
            table = None
            if name in self.metadata.files:
                pa, pq = arrow()
                from ..format.table_problems import table_problems

                path = self.path / name
                try:
                    # ParquetFile, not read_table: that one imports pyarrow.dataset (~35 ms).
                    table = pq.ParquetFile(path).read()
                except (OSError, pa.ArrowException) as exc:
                    raise BundleError(f"{path}: unreadable table ({exc})") from None
                order = self.arrays.get("page_order") if name == PAGES_FILE else None
                for problem in table_problems(name, table, self.n_chunks, None, order):
                    raise BundleError(f"{path}: {problem}")
                table = table.combine_chunks()
            self._tables[name] = table
            return table

    def id(self, row: int) -> str:
        """The chunk id as shown to clients (with the library prefix, if any)."""
        return self.id_prefix + self.cell(row, "id")

    def text(self, row: int) -> str:
        return self.cell(row, "text")

    def chunk_meta(self, row: int) -> dict[str, str]:
        if self.display is not None:
            self.ready()
            return dict(self.display.row(row).header["metadata"])
        return json.loads(self.cell(row, "metadata"))


def _one_array(column: pa.ChunkedArray) -> pa.Array:
    """The column as one array: a row group's columns come in one chunk, taken as it is
    (combine_chunks copied it: 0.14 of ~1 ms per million-chunk row group read)."""
    return column.chunk(0) if column.num_chunks == 1 else column.combine_chunks()


def _nbytes(group: dict[str, pa.Array]) -> int:
    return sum(column.nbytes for column in group.values())


def open_bundle(path: str | Path, verify: bool = True, lazy: int | None = None) -> Bundle:
    """Open a bundle directory; raise BundleError naming the first problem in one line.

    `verify` checks every file's sha256 (sizes, shapes and metadata are always checked). Files
    larger than `lazy` bytes (default `integrity.lazy_bytes()`) are checked in a background
    thread instead; `Bundle.ready()` waits for that check and raises its problem.
    """
    root = Path(path)
    if not (root / DISPLAY_ARRAYS["display"].file).is_file():
        arrow()  # a bundle without a display store reads its chunk table here: choose the pool
    inspection = Inspection(
        root, hashes=verify, lazy_bytes=lazy_bytes() if lazy is None else lazy, lazy_table=True
    )
    for problem in inspection.problems():
        where = root / problem.file if problem.file else root
        raise BundleError(f"{where}: {problem.message}" if problem.file else problem.message)
    metadata, table = inspection.metadata, inspection.table
    assert metadata is not None and inspection.n_chunks is not None
    columns: dict[str, Any] = {}
    if table is not None:  # a small table, read at open
        for name in table.column_names:
            column = table.column(name)
            columns[name] = column.to_numpy() if name in _INT_COLUMNS else column.combine_chunks()
    background = None
    if inspection.deferred:
        files = {n: metadata.files[n].sha256 if verify else None for n in inspection.deferred}
        background = BackgroundCheck(
            root,
            files,
            inspection.n_chunks,
            open_table=table is None and not inspection.table_deferred,
            dtypes={n: metadata.files[n].dtype for n in inspection.deferred},
        )
    return Bundle(
        path=root,
        metadata=metadata,
        arrays=inspection.arrays,
        n_chunks=inspection.n_chunks,
        _columns=columns,
        _parquet=inspection.parquet,
        background=background,
        large_table=table is None,
        display=open_display(root, inspection.arrays, inspection.n_chunks),
        table_deferred=inspection.table_deferred,
    )
