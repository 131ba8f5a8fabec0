"""The Arrow schemas of the bundle's Parquet tables (bundle-spec.md, *`chunks.parquet`*, *Browse
tables*). Apart from layout.py because they need pyarrow: the search path (display store, arrays,
metadata) answers without importing it, and only code reading or writing a table imports this."""

from __future__ import annotations

import pyarrow as pa

from .layout import API_FILE, CODE_FILE, PAGES_FILE, SECTIONS_FILE

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


# The browse tables (layout.TABLE_FILES).
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
SECTIONS_SCHEMA = pa.schema(
    [
        ("section_id", pa.string()),  # null: the chunk's heading is not numbered
        ("rule_ids", pa.list_(pa.string())),
        ("references", pa.list_(pa.uint32())),  # target chunk rows
        ("summary", pa.string()),  # null unless some chunk refers to this one
    ]
)
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
