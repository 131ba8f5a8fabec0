"""The files of a bundle: names, array dtypes and shapes, the chunk table schema, limits, and the
bundle id formula (bundle-spec.md, *Files*, *`chunks.parquet`*, *Limits*)."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa

FORMAT = "docsmcp-bundle"
FORMAT_VERSION = 1
METADATA_FILE = "metadata.json"
CHUNKS_FILE = "chunks.parquet"

# The chunk table: zstd, fixed-size row groups, so a reader can find a row's group by division.
ROW_GROUP_SIZE = 256
CHUNK_COMPRESSION = "zstd"
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


# -- Browse tables (bundle-spec.md, *Browse tables*): optional, each read on first use of the
# tools that need it. A reader that does not know them ignores them (search is unaffected).
PAGES_FILE = "pages.parquet"
PAGES_SCHEMA = pa.schema(
    [
        ("path", pa.string()),
        ("title", pa.string()),
        ("description", pa.string()),
        ("frontmatter", pa.string()),  # JSON object
        ("first_row", pa.int32()),
        ("chunk_count", pa.int32()),
        ("line_count", pa.int32()),
    ]
)
# One row per chunk, in chunk order.
SECTIONS_FILE = "sections.parquet"
SECTIONS_SCHEMA = pa.schema(
    [
        ("section_id", pa.string()),  # null: the chunk's heading is not numbered
        ("rule_ids", pa.list_(pa.string())),
        ("references", pa.list_(pa.uint32())),  # target chunk rows
        ("summary", pa.string()),  # null unless some chunk refers to this one
    ]
)
API_FILE = "api.parquet"
API_SCHEMA = pa.schema(
    [
        ("name", pa.string()),
        ("category", pa.string()),
        ("kind", pa.string()),
        ("signature", pa.string()),
        ("description", pa.string()),
        ("parameters", pa.string()),  # JSON array of {name, type, required, description}
        ("returns", pa.string()),
        ("examples", pa.string()),  # JSON array of {language, code}
        ("row", pa.uint32()),  # the chunk holding the entry's heading
        ("line_start", pa.int32()),
        ("line_end", pa.int32()),
    ]
)
# One row per fenced code block, ordered by chunk row; offsets are characters of the chunk text.
CODE_FILE = "code.parquet"
CODE_SCHEMA = pa.schema(
    [
        ("row", pa.uint32()),
        ("language", pa.string()),  # normalised (languages.normalise_language); "" unknown
        ("start", pa.int32()),  # the code's first character in the chunk text
        ("end", pa.int32()),  # one past its last
        ("context_start", pa.int32()),  # start of the prose before it (== start when none)
        ("line_start", pa.int32()),  # the fence lines in the source file, 1-based, inclusive
        ("line_end", pa.int32()),
    ]
)
TABLES = {
    PAGES_FILE: PAGES_SCHEMA,
    SECTIONS_FILE: SECTIONS_SCHEMA,
    API_FILE: API_SCHEMA,
    CODE_FILE: CODE_SCHEMA,
}
TABLE_ROW_GROUP_SIZE = 4096


@dataclass(frozen=True)
class ArraySpec:
    """A raw little-endian array file: its name, NumPy dtype string and number of dimensions."""

    name: str  # what code calls it, e.g. "postings_docs"
    file: str
    dtype: str
    ndim: int = 1


def _specs(*specs: ArraySpec) -> dict[str, ArraySpec]:
    return {s.name: s for s in specs}


# Every bundle has these (the full-text index).
ARRAYS = _specs(
    ArraySpec("terms", "terms.bin", "|u1"),
    ArraySpec("term_offsets", "term_offsets.bin", "<u8"),
    ArraySpec("postings_offsets", "postings_offsets.bin", "<u8"),
    ArraySpec("postings_docs", "postings_docs.bin", "<u4"),
    ArraySpec("postings_impacts", "postings_impacts.bin", "<f2"),
    ArraySpec("facets", "facets.bin", "<u2", ndim=2),
)

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
DISPLAY_BLOCK_ROWS = 32

ALL_ARRAYS = {**ARRAYS, **VECTOR_ARRAYS, **PAGE_ARRAYS, **DISPLAY_ARRAYS}
ARRAY_BY_FILE = {s.file: s for s in ALL_ARRAYS.values()}
# The files every bundle has besides metadata.json.
REQUIRED_FILES = (CHUNKS_FILE, *(s.file for s in ARRAYS.values()))

# -- Limits (bundle-spec.md, *Limits*) ---------------------------------------------------------
# Facet codes are uint16 and 0 means "no value".
MAX_TAXONOMY_VALUES = 0xFFFF
# Row numbers are uint32.
MAX_CHUNKS = 0xFFFFFFFF
# A bundle has 8 files, 23 with every optional one; far more is not a bundle (bounds archives).
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
    h = hashlib.sha256()
    with path.open("rb") as fh:
        while block := fh.read(1 << 20):
            h.update(block)
    return h.hexdigest()


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
