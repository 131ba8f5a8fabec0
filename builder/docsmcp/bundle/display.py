"""Writing the display store (bundle-spec.md, *Display store*): what a search hit shows of each
chunk, copied from the chunk table just written (and the sections table) into zlib blocks of
DISPLAY_BLOCK_ROWS rows, so the runtime answers a search with numpy and the standard library.

The chunk table is read back one row group at a time (its row groups are a whole number of
blocks), so memory stays bounded by a row group whatever the corpus size. The blocks' preset
dictionary comes first: the row groups holding its 32 sampled rows are read once more before
(speakeasy-sdks: 32 of 44 groups). Headers are built on the calling thread (Python, holds the
GIL) while a pool compresses earlier blocks (zlib releases the GIL); blocks are written in row
order, so the bytes do not depend on the workers.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from functools import lru_cache, partial
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from docsmcp_runtime.format.display import (
    deflate,
    dictionary,
    dictionary_rows,
    encode_block,
    header,
    record,
)
from docsmcp_runtime.format.layout import (
    DICTIONARY_ARRAYS,
    DISPLAY_ARRAYS,
    DISPLAY_BLOCK_ROWS,
    ROW_GROUP_SIZE,
)
from docsmcp_runtime.format.schemas import SECTIONS_SCHEMA

# Threads compressing blocks beside the thread building them (the build has 2 cores in CI).
WORKERS = 2
# Blocks in flight: enough to keep the workers busy, few enough to bound memory.
IN_FLIGHT = 32

assert ROW_GROUP_SIZE % DISPLAY_BLOCK_ROWS == 0, "a row group must be whole blocks"


@lru_cache(maxsize=4096)
def _metadata(text: str) -> dict[str, Any]:
    # A corpus has few distinct metadata strings (write.py encodes each once, too). The cached
    # object is only ever encoded, never changed.
    return json.loads(text)


def _records(table: pa.Table, sections: pa.Table | None, start: int) -> list[bytes]:
    """The records of `table`'s rows, which start at row `start` of the chunk table."""
    rows = table.to_pylist()
    secs = sections.slice(start, len(rows)).to_pylist() if sections is not None else None
    return [
        record(header(row, _metadata(row["metadata"]), secs[i] if secs else None), row["text"])
        for i, row in enumerate(rows)
    ]


def _preset(parquet: pq.ParquetFile, sections: pa.Table | None) -> bytes | None:
    """The preset dictionary (format/display.dictionary) of the table's sampled rows, read one
    row group at a time; None for a table too small to have one."""
    sample = dictionary_rows(parquet.metadata.num_rows)
    if not sample:
        return None
    wanted: dict[int, list[int]] = {}
    for row in sample:
        wanted.setdefault(row // ROW_GROUP_SIZE, []).append(row % ROW_GROUP_SIZE)
    sampled: list[bytes] = []
    for group, rows in wanted.items():
        table = parquet.read_row_group(group).take(rows)
        at = group * ROW_GROUP_SIZE
        secs = None if sections is None else sections.take([at + r for r in rows])
        sampled += _records(table, secs, 0)
    return dictionary(sampled)


def _raw_blocks(parquet: pq.ParquetFile, sections: pa.Table | None) -> Iterator[bytes]:
    """Every block before compression, in row order."""
    start = 0
    for table in _read_ahead(parquet):
        records = _records(table, sections, start)
        for lo in range(0, len(records), DISPLAY_BLOCK_ROWS):
            yield encode_block(records[lo : lo + DISPLAY_BLOCK_ROWS])
        start += len(records)


def _read_ahead(parquet: pq.ParquetFile) -> Iterator[pa.Table]:
    """The row groups in order, each next one read on a thread while the caller turns this one
    into records: decompressing releases the GIL, and it was 0.13 of write_display's 0.32 s on
    speakeasy-sdks. Only that thread reads the file (one reader, one thread at a time)."""
    count = parquet.num_row_groups
    if not count:
        return
    with ThreadPoolExecutor(1, thread_name_prefix="display-read") as reader:
        ahead = reader.submit(parquet.read_row_group, 0)
        for g in range(count):
            table = ahead.result()
            if g + 1 < count:
                ahead = reader.submit(parquet.read_row_group, g + 1)
            yield table


def write_display(
    out_dir: Path, chunks: Path, sections: pa.Table | None, workers: int = WORKERS
) -> dict[str, int]:
    """Write display.bin, display_offsets.bin and (for a table of DICTIONARY_MIN_ROWS rows or
    more) display_dictionary.bin into `out_dir` for the chunk table at `chunks` and the
    bundle's sections table (None: the bundle has none). Returns each written array's element
    count (its shape for metadata.json) by array name."""
    if sections is not None:
        sections = sections.cast(SECTIONS_SCHEMA)
    sizes: list[int] = []
    # Closed before the staging folder is swapped into place (a mapped file would pin it).
    with (
        pq.ParquetFile(chunks, memory_map=True) as parquet,
        open(out_dir / DISPLAY_ARRAYS["display"].file, "wb") as dest,
    ):
        n = parquet.metadata.num_rows
        if sections is not None and sections.num_rows != n:
            raise ValueError(f"sections table has {sections.num_rows} rows, chunk table {n}")
        preset = _preset(parquet, sections)
        compress = partial(deflate, preset=preset)
        if workers <= 1:
            for raw in _raw_blocks(parquet, sections):
                sizes.append(dest.write(compress(raw)))
        else:
            with ThreadPoolExecutor(workers, thread_name_prefix="display") as pool:
                pending: deque[Future[bytes]] = deque()
                for raw in _raw_blocks(parquet, sections):
                    pending.append(pool.submit(compress, raw))
                    if len(pending) >= IN_FLIGHT:
                        sizes.append(dest.write(pending.popleft().result()))
                while pending:
                    sizes.append(dest.write(pending.popleft().result()))
    offsets = np.zeros(len(sizes) + 1, dtype=DISPLAY_ARRAYS["display_offsets"].dtype)
    np.cumsum(sizes, out=offsets[1:])
    offsets.tofile(out_dir / DISPLAY_ARRAYS["display_offsets"].file)
    shapes = {"display": int(offsets[-1]), "display_offsets": len(offsets)}
    if preset is not None:
        (out_dir / DICTIONARY_ARRAYS["display_dictionary"].file).write_bytes(preset)
        shapes["display_dictionary"] = len(preset)
    return shapes
