"""Opening a bundle for serving (the format and its checks live in `format/`).

Arrays are memory-mapped, never read whole; the chunk table's small columns are read once at
open and the display text is read per row group on demand, so start-up cost does not grow with
the size of the documentation.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from .errors import BundleError
from .format import Inspection, Metadata
from .format.checks import table_problems

# Decompressed row groups of display text kept in memory (256 rows each).
_TEXT_CACHE_GROUPS = 16


@dataclass
class Bundle:
    path: Path
    metadata: Metadata
    arrays: dict[str, np.ndarray]  # by array name (format.ARRAYS / VECTOR_ARRAYS)
    # Arrow arrays, not Python lists: compact, and only the rows a result shows are converted.
    ids: pa.Array
    paths: pa.Array
    headings: pa.Array
    breadcrumbs: pa.Array
    positions: np.ndarray
    file_counts: np.ndarray
    line_starts: np.ndarray
    line_ends: np.ndarray
    chunk_metadata: pa.Array  # JSON objects, decoded on use
    _parquet: pq.ParquetFile
    _row_group_starts: np.ndarray
    _text_cache: OrderedDict[int, pa.Array] = field(default_factory=OrderedDict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _id_index: dict[str, int] | None = None
    _tables: dict[str, pa.Table | None] = field(default_factory=dict)
    # `LIBRARY:` when a server serves several bundles (libraries.py): every chunk id it shows
    # carries the prefix, and ids are accepted with or without it.
    id_prefix: str = ""

    @property
    def bundle_id(self) -> str:
        return self.metadata.bundle_id

    @property
    def taxonomy_keys(self) -> list[str]:
        return list(self.metadata.taxonomy)

    @property
    def n_chunks(self) -> int:
        return len(self.ids)

    def row_of(self, chunk_id: str) -> int | None:
        if self.id_prefix and chunk_id.startswith(self.id_prefix):
            chunk_id = chunk_id[len(self.id_prefix) :]
        # Built on the first get_doc only: search never needs it.
        with self._lock:
            if self._id_index is None:
                self._id_index = {cid: i for i, cid in enumerate(self.ids.to_pylist())}
        return self._id_index.get(chunk_id)

    def table(self, name: str) -> pa.Table | None:
        """A browse table (format.TABLES), read and checked on first use; None when the bundle
        predates it. A damaged table raises BundleError naming the file and the problem."""
        with self._lock:
            if name in self._tables:
                return self._tables[name]
            table = None
            if name in self.metadata.files:
                path = self.path / name
                try:
                    # ParquetFile, not read_table: that one imports pyarrow.dataset (~35 ms).
                    table = pq.ParquetFile(path).read()
                except (OSError, pa.ArrowException) as exc:
                    raise BundleError(f"{path}: unreadable table ({exc})") from None
                for problem in table_problems(name, table, self.n_chunks):
                    raise BundleError(f"{path}: {problem}")
                table = table.combine_chunks()
            self._tables[name] = table
            return table

    def id(self, row: int) -> str:
        """The chunk id as shown to clients (with the library prefix, if any)."""
        return self.id_prefix + self.ids[row].as_py()

    def text(self, row: int) -> str:
        rg = int(np.searchsorted(self._row_group_starts, row, side="right")) - 1
        with self._lock:
            column = self._text_cache.get(rg)
            if column is None:
                column = self._parquet.read_row_group(rg, columns=["text"]).column(0)
                self._text_cache[rg] = column
                if len(self._text_cache) > _TEXT_CACHE_GROUPS:
                    self._text_cache.popitem(last=False)
            else:
                self._text_cache.move_to_end(rg)
        return column[row - int(self._row_group_starts[rg])].as_py()

    def chunk_meta(self, row: int) -> dict[str, str]:
        return json.loads(self.chunk_metadata[row].as_py())


def open_bundle(path: str | Path, verify: bool = True) -> Bundle:
    """Open a bundle directory; raise BundleError naming the first problem in one line.

    `verify` checks every file's sha256 (sizes, shapes and metadata are always checked).
    """
    root = Path(path)
    inspection = Inspection(root, hashes=verify)
    for problem in inspection.problems():
        where = root / problem.file if problem.file else root
        raise BundleError(f"{where}: {problem.message}" if problem.file else problem.message)
    metadata, table, parquet = inspection.metadata, inspection.table, inspection.parquet
    assert metadata is not None and table is not None and parquet is not None
    md = parquet.metadata
    sizes = [md.row_group(i).num_rows for i in range(md.num_row_groups)]
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    return Bundle(
        path=root,
        metadata=metadata,
        arrays=inspection.arrays,
        ids=table.column("id").combine_chunks(),
        paths=table.column("path").combine_chunks(),
        headings=table.column("heading").combine_chunks(),
        breadcrumbs=table.column("breadcrumb").combine_chunks(),
        positions=table.column("position").to_numpy(),
        file_counts=table.column("file_chunk_count").to_numpy(),
        line_starts=table.column("line_start").to_numpy(),
        line_ends=table.column("line_end").to_numpy(),
        chunk_metadata=table.column("metadata").combine_chunks(),
        _parquet=parquet,
        _row_group_starts=starts,
    )
