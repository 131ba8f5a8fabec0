"""Writing a bundle directory atomically and deterministically (format in bundle-spec.md)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from docsmcp_runtime.bundle import (
    ARRAYS,
    CHUNKS_FILE,
    FORMAT,
    FORMAT_VERSION,
    METADATA_FILE,
    sha256_file,
)

from .chunk import Chunk
from .index import LexicalIndex

ROW_GROUP_SIZE = 256

CHUNK_SCHEMA = pa.schema(
    [
        ("id", pa.string()),
        ("path", pa.string()),
        ("heading", pa.string()),
        ("breadcrumb", pa.string()),
        ("level", pa.int8()),
        ("position", pa.int32()),
        ("file_chunk_count", pa.int32()),
        ("line_start", pa.int32()),
        ("line_end", pa.int32()),
        ("metadata", pa.string()),
        ("text", pa.string()),
    ]
)


class OutputError(Exception):
    """The output location cannot be written safely."""


def chunk_table(chunks: list[Chunk]) -> pa.Table:
    counts: dict[str, int] = {}
    for c in chunks:
        counts[c.path] = counts.get(c.path, 0) + 1
    positions: list[int] = []
    seen: dict[str, int] = {}
    for c in chunks:
        positions.append(seen.get(c.path, 0))
        seen[c.path] = positions[-1] + 1
    columns = {
        "id": [c.id for c in chunks],
        "path": [c.path for c in chunks],
        "heading": [c.heading for c in chunks],
        "breadcrumb": [c.breadcrumb for c in chunks],
        "level": [c.level for c in chunks],
        "position": positions,
        "file_chunk_count": [counts[c.path] for c in chunks],
        "line_start": [c.line_start for c in chunks],
        "line_end": [c.line_end for c in chunks],
        "metadata": [
            json.dumps(dict(c.metadata), sort_keys=True, ensure_ascii=False) for c in chunks
        ],
        "text": [c.text for c in chunks],
    }
    return pa.table(columns, schema=CHUNK_SCHEMA)


def facet_matrix(chunks: list[Chunk], taxonomy: dict[str, list[str]]) -> np.ndarray:
    keys = list(taxonomy)
    codes = {k: {v: i + 1 for i, v in enumerate(vals)} for k, vals in taxonomy.items()}
    out = np.zeros((len(chunks), len(keys)), dtype="<u2")
    for row, c in enumerate(chunks):
        meta = dict(c.metadata)
        for col, key in enumerate(keys):
            if key in meta:
                out[row, col] = codes[key][meta[key]]
    return out


def write_bundle(
    out: Path,
    chunks: list[Chunk],
    index: LexicalIndex,
    metadata: dict,
    extra_arrays: dict[str, np.ndarray] | None = None,
    extra_files: dict[str, bytes] | None = None,
) -> dict:
    """Write into a sibling temporary directory, then swap it into place.

    `extra_arrays` (file name → array, e.g. vectors.bin) are written raw with dtype and shape
    recorded; `extra_files` (e.g. a provider's query-embedding table) are written as given.

    A failure at any point leaves `out` exactly as it was. Returns the final metadata.
    """
    out = out.resolve()
    if out.exists() and not (out / METADATA_FILE).is_file() and any(out.iterdir()):
        raise OutputError(
            f"refusing to replace {out}: it is a non-empty directory that is not a docsmcp bundle"
        )
    if out.exists() and not out.is_dir():
        raise OutputError(f"refusing to replace {out}: it is a file, not a bundle directory")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.parent / f".{out.name}.tmp-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    try:
        metadata = _write_contents(
            tmp, chunks, index, metadata, extra_arrays or {}, extra_files or {}
        )
        swap_dir(tmp, out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return metadata


def swap_dir(tmp: Path, dest: Path) -> None:
    """Put the finished directory `tmp` at `dest`, replacing an old one only once `tmp` is
    complete, so a failure leaves `dest` as it was."""
    if not dest.exists():
        os.replace(tmp, dest)
        return
    old = dest.parent / f".{dest.name}.old-{os.getpid()}"
    os.replace(dest, old)
    try:
        os.replace(tmp, dest)
    except OSError:
        os.replace(old, dest)
        raise
    shutil.rmtree(old, ignore_errors=True)


def _write_contents(
    tmp: Path,
    chunks: list[Chunk],
    index: LexicalIndex,
    metadata: dict,
    extra_arrays: dict[str, np.ndarray],
    extra_files: dict[str, bytes],
) -> dict:
    pq.write_table(
        chunk_table(chunks),
        tmp / CHUNKS_FILE,
        compression="zstd",
        compression_level=9,
        row_group_size=ROW_GROUP_SIZE,
        use_dictionary=["path", "metadata"],
        write_statistics=False,
    )
    arrays = {
        "terms": np.frombuffer(index.terms, dtype=np.uint8),
        "term_offsets": index.term_offsets,
        "postings_offsets": index.postings_offsets,
        "postings_docs": index.postings_docs,
        "postings_impacts": index.postings_impacts,
        "facets": facet_matrix(chunks, {k: v["values"] for k, v in metadata["taxonomy"].items()}),
    }
    files: dict[str, dict] = {}
    named = {
        filename: arrays[name].astype(dtype, copy=False)
        for name, (filename, dtype) in ARRAYS.items()
    }
    for filename, array in {**named, **extra_arrays}.items():
        arr = np.ascontiguousarray(array)
        arr.tofile(tmp / filename)
        files[filename] = {"dtype": arr.dtype.str, "shape": list(arr.shape)}
    for filename, data in extra_files.items():
        (tmp / filename).write_bytes(data)
        files[filename] = {}
    files[CHUNKS_FILE] = {}
    for filename, info in files.items():
        info["bytes"] = (tmp / filename).stat().st_size
        info["sha256"] = sha256_file(tmp / filename)
    digest = hashlib.sha256()
    for filename in sorted(files):
        digest.update(f"{filename}\0{files[filename]['sha256']}\n".encode())
    final = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "bundle_id": digest.hexdigest()[:32],
        **metadata,
        "files": dict(sorted(files.items())),
    }
    (tmp / METADATA_FILE).write_text(
        json.dumps(final, indent=2, ensure_ascii=False, sort_keys=False) + "\n", encoding="utf-8"
    )
    return final
