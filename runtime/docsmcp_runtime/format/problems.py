"""A problem of a bundle (`Problem`) and the checks of one file or array that the runtime also
runs on its own, off the open path: a file's sha256 and scan. The Parquet tables' checks are
table_problems.py's (they need pyarrow).
"""

from __future__ import annotations

import hashlib
import mmap
from pathlib import Path

import numpy as np

from ..records import record
from .jsonread import MetadataError, loads
from .layout import ARRAYS, MAX_METADATA_DEPTH


@record
class Problem:
    """One reason a bundle is not what the spec says; `file` names the bundle file concerned."""

    file: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}: {self.message}" if self.file else self.message


def sha256_mismatch(actual: str) -> str:
    return f"sha256 {actual} does not match metadata.json (corrupt bundle)"


def rows_beyond(count: int, n_chunks: int) -> str:
    return f"{count} row number(s) >= n_chunks ({n_chunks})"


# Bytes read at a time by scan_problem (a multiple of every array's item size).
_SCAN_BLOCK = 4 << 20


def scan_problem(
    root: Path, name: str, sha256: str | None, n_chunks: int, dtype: str | None = None
) -> str | None:
    """The whole-file checks of one deferred file in one streaming read (no mmap, so the pages
    it reads are not charged to the process): its sha256 when `sha256` is given, and for
    postings_docs.bin (stored as `dtype`, files' entry) the row bound. The problem's message,
    or None."""
    digest = hashlib.sha256() if sha256 is not None else None
    bounded = name == ARRAYS["postings_docs"].file
    beyond = 0
    with (root / name).open("rb") as fh:
        while block := fh.read(_SCAN_BLOCK):
            if digest is not None:
                digest.update(block)
            if bounded:
                values = np.frombuffer(block, dtype=dtype or ARRAYS["postings_docs"].dtype)
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


def api_json(text: str) -> list:
    """One JSON column value of `api.parquet` (an array), or MetadataError."""
    value = loads(text, MAX_METADATA_DEPTH)
    if not isinstance(value, list):
        raise MetadataError("(root)", "not a JSON array")
    return value
