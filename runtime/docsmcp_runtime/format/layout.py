"""The files of a bundle: names, array dtypes and shapes, limits, and the bundle id formula
(bundle-spec.md, *Files*, *`chunks.parquet`*, *Limits*); the Parquet schemas are schemas.py's."""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Mapping
from pathlib import Path

from ..records import record

FORMAT = "docsmcp-bundle"
FORMAT_VERSION = 1
METADATA_FILE = "metadata.json"
CHUNKS_FILE = "chunks.parquet"

# The chunk table: zstd, fixed-size row groups, so a reader can find a row's group by division.
ROW_GROUP_SIZE = 256
CHUNK_COMPRESSION = "zstd"

# Browse tables (bundle-spec.md, *Browse tables*): optional, each read on first use of the tools
# that need it. A reader that does not know them ignores them (search is unaffected).
PAGES_FILE = "pages.parquet"
SECTIONS_FILE = "sections.parquet"
API_FILE = "api.parquet"
CODE_FILE = "code.parquet"
# The browse tables (their schemas: schemas.py).
TABLE_FILES = (PAGES_FILE, SECTIONS_FILE, API_FILE, CODE_FILE)
TABLE_ROW_GROUP_SIZE = 4096


@record
class ArraySpec:
    """A raw little-endian array file: its name, NumPy dtype string and number of dimensions;
    `narrow`, a smaller dtype the file may have instead where its values fit (bundle-spec.md,
    *Narrow index arrays*: the bundle then requires features.NARROW_INDEX); `codes`, a dtype of
    codes into a table of levels the file may have instead (bundle-spec.md, *Impact codes*:
    features.IMPACT_CODES)."""

    name: str  # what code calls it, e.g. "postings_docs"
    file: str
    dtype: str
    ndim: int = 1
    narrow: str | None = None
    codes: str | None = None

    def dtypes(self) -> tuple[str, ...]:
        return tuple(d for d in (self.dtype, self.narrow, self.codes) if d is not None)


def _specs(*specs: ArraySpec) -> dict[str, ArraySpec]:
    return {s.name: s for s in specs}


# Narrow index arrays (ArraySpec.narrow; the bundle then requires features.NARROW_INDEX): row
# numbers as uint16 where every row fits (n_chunks <= 65,536), offsets as uint32 where the last
# one fits. A third of a full-text bundle's bytes on speakeasy-sdks (11,051 chunks: 11.2 -> 9.0
# MB), and a third less of the postings a search touches.

# Every bundle has these (the full-text index).
ARRAYS = _specs(
    ArraySpec("terms", "terms.bin", "|u1"),
    ArraySpec("term_offsets", "term_offsets.bin", "<u8", narrow="<u4"),
    ArraySpec("postings_offsets", "postings_offsets.bin", "<u8", narrow="<u4"),
    ArraySpec("postings_docs", "postings_docs.bin", "<u4", narrow="<u2"),
    ArraySpec("postings_impacts", "postings_impacts.bin", "<f2", codes="|u1"),
    ArraySpec("facets", "facets.bin", "<u2", ndim=2),
)

# Impact codes (ArraySpec.codes; the bundle then requires features.IMPACT_CODES): each posting's
# impact as a uint8 code into IMPACT_LEVELS float32 levels, square-root spaced up to the
# largest impact. Half the postings' bytes (speakeasy-sdks: 9.0 -> 8.1 MB), and every dev set
# ranks as with float16 impacts (docs/search.md).
IMPACT_ARRAYS = _specs(ArraySpec("impact_levels", "impact_levels.bin", "<f4"))
IMPACT_LEVELS = 256

# Bundles built with an embedding provider (bundle-spec.md, *Vectors*); the IVF ones only
# with an IVF index.
VECTOR_ARRAYS = _specs(
    ArraySpec("vectors", "vectors.bin", "<f2", ndim=2),
    ArraySpec("collapse_groups", "collapse_groups.bin", "<u4"),
    ArraySpec("vector_rows", "vector_rows.bin", "<u4"),
    ArraySpec("ivf_centroids", "ivf_centroids.bin", "<f4", ndim=2),
    ArraySpec("ivf_offsets", "ivf_offsets.bin", "<u8"),
    # Optional int8 copies of `vectors` (same row order) and their per-dimension steps
    # (bundle-spec.md, *Quantised vectors*; format/quantise.py): an IVF search scores its
    # probed lists with these and rescores the best from `vectors`.
    ArraySpec("vectors_q8", "vectors_q8.bin", "|i1", ndim=2),
    ArraySpec("vectors_q8_scale", "vectors_q8_scale.bin", "<f4"),
)
IVF_ARRAYS = ("vector_rows", "ivf_centroids", "ivf_offsets")
Q8_ARRAYS = ("vectors_q8", "vectors_q8_scale")

# Bundles with chunks cut from PDFs (bundle-spec.md, *Page ranges*): per chunk, the first and
# last page (1-based) its text came from; 0, 0 for a chunk of a markdown file. Optional: a
# reader that does not know it serves correct results (hits only lack `source.pages`).
PAGE_ARRAYS = _specs(ArraySpec("page_ranges", "page_ranges.bin", "<u4", ndim=2))

# The display store (bundle-spec.md, *Display store*): what a hit shows of each chunk, copied
# from the chunk table (and sections.parquet) into zlib blocks of DISPLAY_BLOCK_ROWS rows, so a
# search answers with numpy and the standard library, without a Parquet decoder. Optional: a
# reader without it reads the same fields from the Parquet tables.
DISPLAY_ARRAYS = _specs(
    ArraySpec("display", "display.bin", "|u1"),
    ArraySpec("display_offsets", "display_offsets.bin", "<u8"),
)
DISPLAY_BLOCK_ROWS = 16
# The display store's preset zlib dictionary (bundle-spec.md, *Display store*; the bundle then
# requires features.DISPLAY_DICTIONARY): every block is deflated with it, so a block's first
# rows find their JSON keys, paths and common text in it instead of spelling them out (16-row
# blocks start with an empty window). speakeasy-sdks' display.bin 2.07 -> 1.75 MB.
DICTIONARY_ARRAYS = _specs(ArraySpec("display_dictionary", "display_dictionary.bin", "|u1"))
# zlib uses at most the last 32 KiB of a dictionary (its window); a longer one is refused.
MAX_DISPLAY_DICTIONARY = 1 << 15
# A decompressed block starts with its rows' record boundaries (bundle-spec.md).
DISPLAY_BOUNDS_DTYPE = "<u4"

# Bundles with a rescoring model (bundle-spec.md, *Rescoring*; format/rescore.py): its document
# vectors, row r for chunk row r, L2-normalised. Optional, like the section that describes them.
RESCORE_ARRAYS = _specs(ArraySpec("rescore_vectors", "rescore_vectors.bin", "<f2", ndim=2))

# Bundles of a site whose navigation files name pages (bundle-spec.md, *Page order*): per row
# of pages.parquet, the page's rank in the site's navigation, PAGE_UNORDERED for a page no
# navigation names. Optional: a reader without it lists pages in path order.
ORDER_ARRAYS = _specs(ArraySpec("page_order", "page_order.bin", "<u4"))
PAGE_UNORDERED = 0xFFFFFFFF

# Stem variants (bundle-spec.md, *Stem variants*; search/stems.py): the dictionary's words
# grouped by their Porter2 stem, as rings of (term id, row of the group's next term). Optional:
# a reader without it searches each query word as written.
STEM_ARRAYS = _specs(ArraySpec("stem_rings", "stem_rings.bin", "<u4", ndim=2))

ALL_ARRAYS = {
    **ARRAYS,
    **IMPACT_ARRAYS,
    **STEM_ARRAYS,
    **VECTOR_ARRAYS,
    **PAGE_ARRAYS,
    **DISPLAY_ARRAYS,
    **DICTIONARY_ARRAYS,
    **RESCORE_ARRAYS,
    **ORDER_ARRAYS,
}
ARRAY_BY_FILE = {s.file: s for s in ALL_ARRAYS.values()}
# The files every bundle has besides metadata.json.
REQUIRED_FILES = (CHUNKS_FILE, *(s.file for s in ARRAYS.values()))

# -- Limits (bundle-spec.md, *Limits*) ---------------------------------------------------------
# Facet codes are uint16 and 0 means "no value".
MAX_TAXONOMY_VALUES = 0xFFFF
# Row numbers are uint32.
MAX_CHUNKS = 0xFFFFFFFF
# A bundle has 8 files, 28 with every optional one; far more is not a bundle (bounds archives).
MAX_FILES = 64
# metadata.json is small (taxonomy values and tool texts); a reader never parses more.
MAX_METADATA_BYTES = 16 << 20
# Nesting depth of metadata.json (the deepest key today is 4 levels down).
MAX_METADATA_DEPTH = 32


def bundle_id(files: Mapping[str, str]) -> str:
    """The bundle id: 32 hex digits of sha256 over `"{file}\\0{sha256}\\n"` lines of every file
    (file name -> hex sha256) in byte order of name. Same content, same id."""
    digest = hashlib.sha256()
    for name in sorted(files, key=lambda n: n.encode()):
        digest.update(f"{name}\0{files[name]}\n".encode())
    return digest.hexdigest()[:32]


def sha256_file(path: Path) -> str:
    """The file's sha256, read into one reused buffer (as Python 3.11's hashlib.file_digest
    does): a new bytes object per block made a speakeasy-sdks bundle's check at open 12 ms
    instead of 8."""
    h = hashlib.sha256()
    buffer = bytearray(1 << 20)
    view = memoryview(buffer)
    with path.open("rb", buffering=0) as fh:
        while size := fh.readinto(buffer):
            h.update(view[:size])
    return h.hexdigest()


# Files holding more than this in all are hashed by two threads (hashlib lets go of the GIL):
# a speakeasy-sdks bundle's 11 MB took 10.5 ms at open one after another, 6.3 ms so on 2 cores.
PARALLEL_HASH_BYTES = 2 << 20


def sha256_files(paths: list[Path]) -> list[str]:
    """The sha256 of each file, in order: split by size between this thread and one other when
    there is more than PARALLEL_HASH_BYTES and more than one core. An error of either thread
    (an OSError: a file that cannot be read) is raised here."""
    sizes = [p.stat().st_size for p in paths]
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    if len(paths) < 2 or sum(sizes) <= PARALLEL_HASH_BYTES or (cores or 1) < 2:
        return [sha256_file(p) for p in paths]
    digests: list[str | BaseException] = [""] * len(paths)
    mine: list[int] = []
    theirs: list[int] = []
    held = [0, 0]
    for i in sorted(range(len(paths)), key=lambda i: -sizes[i]):  # largest first, to the lighter
        side = 0 if held[0] <= held[1] else 1
        (mine, theirs)[side].append(i)
        held[side] += sizes[i]

    def run(indexes: list[int]) -> None:
        for i in indexes:
            try:
                digests[i] = sha256_file(paths[i])
            except Exception as exc:  # noqa: BLE001 - raised again in the calling thread
                digests[i] = exc

    other = threading.Thread(target=run, args=(theirs,), name="docsmcp-hash", daemon=True)
    other.start()
    run(mine)
    other.join()
    for digest in digests:
        if isinstance(digest, BaseException):
            raise digest
    return [str(d) for d in digests]


def is_plain_name(name: str) -> bool:
    """A bundle file name: one path component, no hidden or special names, no separators."""
    return (
        bool(name)
        and name not in (".", "..")
        and not name.startswith(".")
        and "/" not in name
        and "\\" not in name
        and "\0" not in name
        and name.isprintable()
    )
