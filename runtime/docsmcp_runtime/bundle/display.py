"""Reading the display store (bundle-spec.md, *Display store*): what a hit shows of each chunk,
in zlib blocks of DISPLAY_BLOCK_ROWS rows over two memory-mapped arrays. With it a search answers
with numpy and the standard library; the chunk table (pyarrow) is read only by tools that need
whole columns or a Parquet table.

A block is decompressed when one of its rows is first shown and kept in a small cache bounded by
bytes (a warm server of a 20 MB corpus decompresses little; a cold one ~50 µs per hit), its
records parsed one at a time as they are asked for.
"""

from __future__ import annotations

import threading
import zlib
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import BundleError
from ..format import DISPLAY_ARRAYS, DISPLAY_BLOCK_ROWS
from ..format.display import MAX_INFLATED_BLOCK, block_bounds, split_record

# Decompressed blocks kept, least recently used out first. Small on purpose: the server's
# memory is the budget (issue 30), and a block decompresses in ~50 µs.
CACHE_BYTES = 8 << 20
_FILE = DISPLAY_ARRAYS["display"].file


@dataclass(frozen=True)
class Shown:
    """One chunk as a hit shows it: the chunk table's columns but `text` (`metadata` as the
    object its JSON holds) and the sections table's fields, under the spec's names."""

    header: dict[str, Any]
    text: str


class _Block:
    """A decompressed block: its bytes, where its records start and end, the ones parsed."""

    __slots__ = ("data", "start", "bounds", "parsed")

    def __init__(self, data: bytes, start: int, bounds: list[int]) -> None:
        self.data = data
        self.start = start  # the records follow the boundary table
        self.bounds = bounds  # m + 1 record boundaries, from `start`
        self.parsed: list[Shown | None] = [None] * (len(bounds) - 1)


class DisplayStore:
    def __init__(self, root: Path, data: np.ndarray, offsets: np.ndarray, n_chunks: int) -> None:
        self.path = root / _FILE
        self._data = data
        self._offsets = offsets
        self.n_chunks = n_chunks
        self._blocks: OrderedDict[int, _Block] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def row(self, row: int) -> Shown:
        """The display record of chunk `row`; BundleError (one line) if its block is damaged."""
        k, i = divmod(row, DISPLAY_BLOCK_ROWS)
        block = self._block(k)
        shown = block.parsed[i]
        if shown is None:
            record = block.data[block.start + block.bounds[i] : block.start + block.bounds[i + 1]]
            try:
                header, text = split_record(record)
            except (ValueError, UnicodeDecodeError) as exc:
                raise BundleError(f"{self.path}: row {row} is not a record ({exc})") from None
            shown = block.parsed[i] = Shown(header, text)
        return shown

    def clear(self) -> None:
        """Drop every inflated block: the next read of each inflates it again."""
        with self._lock:
            self._blocks.clear()
            self._bytes = 0

    def warm(self) -> None:
        """Decompress blocks in row order until the cache is full (before `--workers` fork)."""
        for k in range(len(self._offsets) - 1):
            self._block(k)
            if self._bytes >= CACHE_BYTES:
                return

    def _block(self, k: int) -> _Block:
        with self._lock:
            block = self._blocks.get(k)
            if block is not None:
                self._blocks.move_to_end(k)
                return block
        block = self._read(k)
        size = len(block.data)
        with self._lock:
            if k not in self._blocks:
                self._blocks[k] = block
                self._bytes += size
            while self._bytes > CACHE_BYTES and len(self._blocks) > 1:
                _, evicted = self._blocks.popitem(last=False)
                self._bytes -= len(evicted.data)
        return block

    def _read(self, k: int) -> _Block:
        rows = min(DISPLAY_BLOCK_ROWS, self.n_chunks - k * DISPLAY_BLOCK_ROWS)
        start, end = int(self._offsets[k]), int(self._offsets[k + 1])
        try:
            inflate = zlib.decompressobj()
            raw = inflate.decompress(self._data[start:end], MAX_INFLATED_BLOCK)
            if inflate.unconsumed_tail:
                raise BundleError(
                    f"{self.path}: block {k} inflates past {MAX_INFLATED_BLOCK >> 20} MiB"
                )
            at, bounds = block_bounds(raw, rows)
        except (zlib.error, ValueError) as exc:
            raise BundleError(f"{self.path}: block {k} does not decompress ({exc})") from None
        return _Block(raw, at, bounds)


def open_display(root: Path, arrays: dict[str, np.ndarray], n_chunks: int) -> DisplayStore | None:
    """The bundle's display store, or None when it has none (readers then use the tables)."""
    data, offsets = arrays.get("display"), arrays.get("display_offsets")
    if data is None or offsets is None:
        return None
    return DisplayStore(root, data, offsets, n_chunks)
