"""Reading the display store (bundle-spec.md, *Display store*): what a hit shows of each chunk,
in zlib blocks of DISPLAY_BLOCK_ROWS rows over two memory-mapped arrays (and the blocks' preset
dictionary, where the bundle has one). With it a search answers
with numpy and the standard library; the chunk table (pyarrow) is read only by tools that need
whole columns or a Parquet table.

Two caches, both least recently used out first: the rows shown so far, parsed, bounded by their
record bytes (what a warm server answers from: a hit list touches ~10 rows of 16-row blocks, so
caching rows holds ~10 times the hits that caching the same bytes of blocks did); and the last
few inflated blocks, for the neighbours and references a page of hits reads next.
"""

from __future__ import annotations

import threading
import zlib
from collections import OrderedDict
from json.decoder import scanstring
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import BundleError
from ..format import DISPLAY_ARRAYS, DISPLAY_BLOCK_ROWS
from ..format.display import MAX_INFLATED_BLOCK, BlockInflater, block_bounds, split_record
from ..records import record

# Record bytes of the parsed rows kept. The server's memory is the budget (issue 30): with
# speakeasy-sdks, 8 MB of rows is ~3,500 hits; a miss inflates one block (~50 µs).
ROW_CACHE_BYTES = 8 << 20
# Inflated blocks kept (~60 KB each for speakeasy-sdks).
BLOCK_CACHE = 8
_FILE = DISPLAY_ARRAYS["display"].file
_ID_KEY = b'"id":"'


@record
class Shown:
    """One chunk as a hit shows it: the chunk table's columns but `text` (`metadata` as the
    object its JSON holds) and the sections table's fields, under the spec's names."""

    header: dict[str, Any]
    text: str


@record
class _Block:
    """An inflated block: its bytes, where its records start, their m + 1 boundaries."""

    data: bytes
    start: int
    bounds: list[int]


class DisplayStore:
    def __init__(
        self,
        root: Path,
        data: np.ndarray,
        offsets: np.ndarray,
        n_chunks: int,
        preset: bytes | None = None,
    ) -> None:
        self.path = root / _FILE
        self._data = data
        self._offsets = offsets
        # Blocks inflate with the preset zlib dictionary they were deflated with, if any.
        self._inflate = BlockInflater(preset)
        self.n_chunks = n_chunks
        self._rows: OrderedDict[int, tuple[Shown, int]] = OrderedDict()  # row -> (shown, bytes)
        self._row_bytes = 0
        self._blocks: OrderedDict[int, _Block] = OrderedDict()
        self._lock = threading.Lock()

    def row(self, row: int) -> Shown:
        """The display record of chunk `row`; BundleError (one line) if its block is damaged."""
        with self._lock:
            cached = self._rows.get(row)
            if cached is not None:
                self._rows.move_to_end(row)
                return cached[0]
        k, i = divmod(row, DISPLAY_BLOCK_ROWS)
        block = self._block(k)
        start, end = block.start + block.bounds[i], block.start + block.bounds[i + 1]
        try:
            header, text = split_record(block.data[start:end])
        except (ValueError, UnicodeDecodeError) as exc:
            raise BundleError(f"{self.path}: row {row} is not a record ({exc})") from None
        shown = Shown(header, text)
        with self._lock:
            if row not in self._rows:
                self._rows[row] = (shown, end - start)
                self._row_bytes += end - start
            while self._row_bytes > ROW_CACHE_BYTES and len(self._rows) > 1:
                _, (_, size) = self._rows.popitem(last=False)
                self._row_bytes -= size
        return shown

    def ids(self) -> list[str]:
        """Every chunk id, in row order: every block inflated once, its records not kept (for
        the id lookups of get_doc and the copies of a versioned section; mcp-docs' 5,290
        rows take ~20 ms, where importing pyarrow to read the column took ~50 ms and 45 MB).
        Headers are canonical JSON with sorted keys, so a header's first `"id":"` is its id
        (a quote inside a value is escaped); one that is not is parsed whole."""
        out: list[str] = []
        for k in range(len(self._offsets) - 1):
            block = self._read(k)
            data, start = block.data, block.start
            for i in range(len(block.bounds) - 1):
                at = data.find(_ID_KEY, start + block.bounds[i], start + block.bounds[i + 1])
                if at >= 0:
                    end = at + len(_ID_KEY)
                    # The record's bytes up to its header's end hold the id's JSON string.
                    line = data[end : data.index(b"\n", end)].decode("utf-8")
                    out.append(scanstring(line, 0)[0])
                else:
                    out.append(self.row(k * DISPLAY_BLOCK_ROWS + i).header["id"])
        return out

    def clear(self) -> None:
        """Drop every cached row and block: the next read of each inflates it again."""
        with self._lock:
            self._rows.clear()
            self._row_bytes = 0
            self._blocks.clear()

    def warm(self) -> None:
        """Parse rows in order until the row cache is full (before `--workers` fork, so every
        worker shares them)."""
        for row in range(self.n_chunks):
            self.row(row)
            if self._row_bytes >= ROW_CACHE_BYTES:
                return

    def _block(self, k: int) -> _Block:
        with self._lock:
            block = self._blocks.get(k)
            if block is not None:
                self._blocks.move_to_end(k)
                return block
        block = self._read(k)
        with self._lock:
            self._blocks[k] = block
            while len(self._blocks) > BLOCK_CACHE:
                self._blocks.popitem(last=False)
        return block

    def _read(self, k: int) -> _Block:
        rows = min(DISPLAY_BLOCK_ROWS, self.n_chunks - k * DISPLAY_BLOCK_ROWS)
        start, end = int(self._offsets[k]), int(self._offsets[k + 1])
        try:
            raw = self._inflate(self._data[start:end], MAX_INFLATED_BLOCK)
            at, bounds = block_bounds(raw, rows)
        except (zlib.error, ValueError) as exc:
            raise BundleError(f"{self.path}: block {k} does not decompress ({exc})") from None
        return _Block(raw, at, bounds)


def open_display(root: Path, arrays: dict[str, np.ndarray], n_chunks: int) -> DisplayStore | None:
    """The bundle's display store, or None when it has none (readers then use the tables)."""
    data, offsets = arrays.get("display"), arrays.get("display_offsets")
    if data is None or offsets is None:
        return None
    preset = arrays.get("display_dictionary")  # 32 KiB at most (checked at open)
    return DisplayStore(root, data, offsets, n_chunks, None if preset is None else preset.tobytes())
