"""Opening and checking a bundle (format version 1, see bundle-spec.md).

Arrays are memory-mapped, never read whole; the chunk table's small columns are read once at
open and the display text is read per row group on demand, so start-up cost does not grow with
the size of the documentation.
"""

from __future__ import annotations

import hashlib
import json
import mmap
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from .analyzer import AnalyzerConfig
from .errors import BundleError

FORMAT = "docsmcp-bundle"
FORMAT_VERSION = 1
METADATA_FILE = "metadata.json"
CHUNKS_FILE = "chunks.parquet"

# name -> (file, dtype); shapes are recorded in metadata.json
ARRAYS: dict[str, tuple[str, str]] = {
    "terms": ("terms.bin", "uint8"),
    "term_offsets": ("term_offsets.bin", "<u8"),
    "postings_offsets": ("postings_offsets.bin", "<u8"),
    "postings_docs": ("postings_docs.bin", "<u4"),
    "postings_impacts": ("postings_impacts.bin", "<f2"),
    "facets": ("facets.bin", "<u2"),
}

# Present only in bundles built with an embedding provider (see bundle-spec.md, Vectors).
VECTOR_ARRAYS: dict[str, tuple[str, str]] = {
    "vectors": ("vectors.bin", "<f2"),
    "vector_rows": ("vector_rows.bin", "<u4"),
    "ivf_centroids": ("ivf_centroids.bin", "<f4"),
    "ivf_offsets": ("ivf_offsets.bin", "<u8"),
    "collapse_groups": ("collapse_groups.bin", "<u4"),
}

# Decompressed row groups of display text kept in memory (256 rows each).
_TEXT_CACHE_GROUPS = 16

# Columns read at open; `text` is read lazily by row group.
_EAGER_COLUMNS = ["id", "path", "heading", "breadcrumb", "position", "file_chunk_count", "metadata"]


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        while block := fh.read(1 << 20):
            h.update(block)
    return h.hexdigest()


@dataclass
class Bundle:
    path: Path
    metadata: dict
    analyzer: AnalyzerConfig
    arrays: dict[str, np.ndarray]
    # Arrow arrays, not Python lists: compact, and only the rows a result shows are converted.
    ids: pa.Array
    paths: pa.Array
    headings: pa.Array
    breadcrumbs: pa.Array
    positions: np.ndarray
    file_counts: np.ndarray
    chunk_metadata: pa.Array  # JSON objects, decoded on use
    taxonomy_keys: list[str]
    _parquet: pq.ParquetFile
    _row_group_starts: np.ndarray
    _text_cache: OrderedDict[int, pa.Array] = field(default_factory=OrderedDict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _id_index: dict[str, int] | None = None

    @property
    def bundle_id(self) -> str:
        return self.metadata["bundle_id"]

    @property
    def n_chunks(self) -> int:
        return len(self.ids)

    def row_of(self, chunk_id: str) -> int | None:
        # Built on the first get_doc only: search never needs it.
        with self._lock:
            if self._id_index is None:
                self._id_index = {cid: i for i, cid in enumerate(self.ids.to_pylist())}
        return self._id_index.get(chunk_id)

    def id(self, row: int) -> str:
        return self.ids[row].as_py()

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
    """Open a bundle directory; raise BundleError with a one-line reason if it is unusable."""
    root = Path(path)
    meta_path = root / METADATA_FILE
    if not root.is_dir():
        raise BundleError(f"bundle directory not found: {root}")
    if not meta_path.is_file():
        raise BundleError(f"not a docsmcp bundle: {meta_path} is missing")
    try:
        metadata = json.loads(meta_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BundleError(f"{meta_path}: unreadable metadata ({exc})") from None
    if not isinstance(metadata, dict) or metadata.get("format") != FORMAT:
        raise BundleError(f"{meta_path}: not a docsmcp bundle (format is not {FORMAT!r})")
    version = metadata.get("format_version")
    if version != FORMAT_VERSION:
        raise BundleError(
            f"{meta_path}: unsupported bundle format version {version!r}; this runtime reads "
            f"version {FORMAT_VERSION} (upgrade docsmcp-runtime or rebuild the bundle)"
        )
    try:
        files = metadata["files"]
        for name, info in sorted(files.items()):
            _check_file(root, name, info, verify)
        arrays = {}
        optional = {k: v for k, v in VECTOR_ARRAYS.items() if v[0] in files}
        for name, (filename, dtype) in {**ARRAYS, **optional}.items():
            info = files[filename]
            shape = tuple(info["shape"])
            if int(np.prod(shape)) == 0:
                arrays[name] = np.zeros(shape, dtype=dtype)
            else:
                arrays[name] = _map(root / filename, dtype, shape)
        analyzer = AnalyzerConfig.from_json(metadata["analyzer"])
        taxonomy_keys = list(metadata["taxonomy"])
    except BundleError:
        raise
    except (KeyError, TypeError, ValueError) as exc:
        raise BundleError(
            f"{meta_path}: malformed metadata ({type(exc).__name__}: {exc})"
        ) from None

    try:
        parquet = pq.ParquetFile(root / CHUNKS_FILE, memory_map=True)
        table = parquet.read(columns=_EAGER_COLUMNS)
    except (OSError, pa.ArrowException) as exc:
        raise BundleError(f"{root / CHUNKS_FILE}: unreadable chunk table ({exc})") from None
    n = table.num_rows
    sizes = [parquet.metadata.row_group(i).num_rows for i in range(parquet.num_row_groups)]
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    _check_shapes(root, arrays, n, len(taxonomy_keys))
    _check_vectors(root, metadata.get("embedding"), arrays, n)
    return Bundle(
        path=root,
        metadata=metadata,
        analyzer=analyzer,
        arrays=arrays,
        ids=table.column("id").combine_chunks(),
        paths=table.column("path").combine_chunks(),
        headings=table.column("heading").combine_chunks(),
        breadcrumbs=table.column("breadcrumb").combine_chunks(),
        positions=table.column("position").to_numpy(),
        file_counts=table.column("file_chunk_count").to_numpy(),
        chunk_metadata=table.column("metadata").combine_chunks(),
        taxonomy_keys=taxonomy_keys,
        _parquet=parquet,
        _row_group_starts=starts,
    )


def _map(path: Path, dtype: str, shape: tuple[int, ...]) -> np.ndarray:
    """A read-only array over an mmap. Plain ndarray views index much faster than np.memmap."""
    with path.open("rb") as fh:
        mapped = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    return np.frombuffer(mapped, dtype=dtype).reshape(shape)


def _check_file(root: Path, name: str, info: dict, verify: bool) -> None:
    target = root / name
    if Path(name).is_absolute() or ".." in Path(name).parts:
        raise BundleError(f"{root / METADATA_FILE}: invalid file name {name!r}")
    if not target.is_file():
        raise BundleError(f"{target}: file missing from bundle")
    size = target.stat().st_size
    if size != info["bytes"]:
        raise BundleError(f"{target}: size {size} does not match metadata.json ({info['bytes']})")
    if verify and sha256_file(target) != info["sha256"]:
        raise BundleError(f"{target}: sha256 does not match metadata.json (corrupt bundle)")


def _check_shapes(root: Path, arrays: dict[str, np.ndarray], n_chunks: int, n_keys: int) -> None:
    def fail(what: str) -> None:
        raise BundleError(f"{root}: inconsistent bundle ({what})")

    n_terms = len(arrays["term_offsets"]) - 1
    if len(arrays["postings_offsets"]) != n_terms + 1:
        fail("postings_offsets length differs from term_offsets")
    if n_terms >= 0 and int(arrays["term_offsets"][-1]) != len(arrays["terms"]):
        fail("term_offsets does not end at the size of terms.bin")
    if int(arrays["postings_offsets"][-1]) != len(arrays["postings_docs"]):
        fail("postings_offsets does not end at the number of postings")
    if len(arrays["postings_impacts"]) != len(arrays["postings_docs"]):
        fail("postings_impacts and postings_docs differ in length")
    if arrays["facets"].shape != (n_chunks, n_keys):
        fail("facets.bin shape does not match the chunk table and taxonomy")
    # Cheap bounds checks (a few ms even at scale) so that a bundle corrupted behind --no-verify
    # fails here with a message instead of inside a search.
    for name in ("term_offsets", "postings_offsets"):
        if len(arrays[name]) and np.any(np.diff(arrays[name].astype(np.int64)) < 0):
            fail(f"{name} is not ascending")
    docs = arrays["postings_docs"]
    if len(docs) and int(docs.max()) >= n_chunks:
        fail("postings_docs.bin refers to rows beyond the chunk table")


def _check_vectors(
    root: Path, spec: dict | None, arrays: dict[str, np.ndarray], n_chunks: int
) -> None:
    def fail(what: str) -> None:
        raise BundleError(f"{root}: inconsistent bundle ({what})")

    if spec is None:
        if "vectors" in arrays:
            fail("vectors.bin present but metadata.json has no embedding section")
        return
    vectors = arrays.get("vectors")
    if vectors is None:
        fail("metadata.json describes embeddings but vectors.bin is not listed")
        return
    if vectors.shape != (n_chunks, int(spec["dimensions"])):
        fail(f"vectors.bin shape {vectors.shape} is not ({n_chunks}, {spec['dimensions']})")
    if (spec.get("index") or {}).get("type") == "ivf":
        missing = [k for k in ("vector_rows", "ivf_centroids", "ivf_offsets") if k not in arrays]
        if missing:
            fail(f"IVF index without {', '.join(missing)}")
        lists = int(spec["index"]["lists"])
        if arrays["ivf_centroids"].shape != (lists, vectors.shape[1]):
            fail("ivf_centroids.bin shape does not match the index")
        offsets = arrays["ivf_offsets"]
        if len(offsets) != lists + 1 or int(offsets[-1]) != n_chunks:
            fail("ivf_offsets.bin does not cover the vectors")
        if len(arrays["vector_rows"]) != n_chunks:
            fail("vector_rows.bin length differs from the chunk count")
    groups = arrays.get("collapse_groups")
    if groups is None or groups.shape != (n_chunks,):
        fail("collapse_groups.bin is missing or does not have one entry per chunk")
