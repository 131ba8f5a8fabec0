"""The checks of a bundle's Parquet tables that the runtime also runs on its own, off the open
path: the chunk table's layout and nulls, a browse table's columns, rows and offsets. Apart from
problems.py because they need pyarrow, which a search never imports."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from .jsonread import MetadataError
from .layout import (
    API_FILE,
    CODE_FILE,
    PAGE_UNORDERED,
    PAGES_FILE,
    ROW_GROUP_SIZE,
    SECTIONS_FILE,
)
from .problems import api_json
from .schemas import CHUNK_SCHEMA, TABLES


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


def table_problems(
    name: str,
    table: pa.Table,
    n_chunks: int,
    text_lengths: np.ndarray | None = None,
    page_order: np.ndarray | None = None,
) -> Iterator[str]:
    """What is wrong with a browse table (bundle-spec.md, *Browse tables*): its schema, and
    every row number, range and offset it holds. `text_lengths` (characters of each chunk's
    text, `docsmcp verify`) also checks code offsets against the texts and parses every JSON
    value of `api`; the runtime passes None, slices defensively and parses an entry's JSON when
    it shows it (`api_json`). `page_order` (page_order.bin) is checked with the pages."""
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
        if page_order is not None:
            problem = page_order_problem(page_order, table.num_rows)
            if problem is not None:
                yield problem
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


def page_order_problem(order: np.ndarray, pages: int) -> str | None:
    """What is wrong with page_order.bin beside `pages` pages: its length, or ranks that are
    not 0 .. k-1 once each (PAGE_UNORDERED apart)."""
    if order.shape != (pages,):
        return f"page_order.bin has shape {list(order.shape)}, expected [n_pages] = [{pages}]"
    ranks = np.sort(order[order != PAGE_UNORDERED]).astype(np.int64)
    if not np.array_equal(ranks, np.arange(len(ranks))):
        return "page_order.bin ranks are not 0, 1, 2, ... once each"
    return None
