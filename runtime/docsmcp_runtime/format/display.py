"""The display store's records and blocks (bundle-spec.md, *Display store*), in one place for the
builder (which encodes them), the open-time checks and `docsmcp verify --deep` (which decode
them). Numpy, zlib and json only: a search that reads hits from the store never needs pyarrow.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .layout import DISPLAY_BLOCK_ROWS, DISPLAY_BOUNDS_DTYPE, MAX_DISPLAY_DICTIONARY

# zlib level of each block (RFC 1950 stream). 6, not 9: with the preset dictionary 9 gives
# speakeasy-sdks' display.bin 1.75 MB instead of 1.83, for 1.4 s more of the build's CPU
# (0.86 -> 2.26 s, one thread); inflating costs the same at any level.
DISPLAY_LEVEL = 6
# The preset dictionary (bundle-spec.md, *Display store*): the first DICTIONARY_PIECE bytes of
# DICTIONARY_SAMPLES records spread evenly over the rows (`dictionary_rows`), so it holds the
# header keys, the corpus's paths and metadata and how its texts start. Measured on
# speakeasy-sdks: 32 x 1024 bytes 1.83 MB (no dictionary 2.07), 16 x 2048 1.84, 64 x 512 1.85,
# 16 KiB dictionaries 1.87-1.92.
DICTIONARY_SAMPLES = 32
DICTIONARY_PIECE = MAX_DISPLAY_DICTIONARY // DICTIONARY_SAMPLES
# Chunk tables of fewer rows get no dictionary: it saves ~0.5-0.8 KB a block and costs up to 32
# KiB (yellow-docs, 1,335 rows: display.bin -64 KB for a 28 KB dictionary).
DICTIONARY_MIN_ROWS = 1024
# The chunk-table columns a header holds under their own names (`metadata` is added as the
# object its JSON string holds; `text` is the record's body, not a header key).
HEADER_COLUMNS = (
    "id",
    "path",
    "heading",
    "breadcrumb",
    "level",
    "position",
    "file_chunk_count",
    "line_start",
    "line_end",
)
# A reader inflates a block to at most this many bytes (the size is not stored; a hostile block
# could claim any): 16 rows of 16 MiB each, far beyond any chunk a builder writes.
MAX_INFLATED_BLOCK = 256 << 20
# Record boundaries are uint32: a block's records take at most this many bytes.
MAX_BLOCK_RECORD_BYTES = 0xFFFFFFFF
_BOUNDARY = np.dtype(DISPLAY_BOUNDS_DTYPE)
# One encoder for every header: json.dumps builds a new encoder per call when given options, a
# third of the cost of a small object. Same bytes as json.dumps(obj, ensure_ascii=False,
# sort_keys=True, separators=(",", ":")).
_ENCODER = json.JSONEncoder(ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def n_blocks(n_chunks: int) -> int:
    return -(-n_chunks // DISPLAY_BLOCK_ROWS)


def dictionary_rows(n_chunks: int) -> list[int]:
    """The rows whose records start the preset dictionary, in order: `i * n // 32` for i < 32,
    each once; none (no dictionary) for fewer than DICTIONARY_MIN_ROWS rows."""
    if n_chunks < DICTIONARY_MIN_ROWS:
        return []
    return sorted({i * n_chunks // DICTIONARY_SAMPLES for i in range(DICTIONARY_SAMPLES)})


def dictionary(records: Sequence[bytes]) -> bytes:
    """The preset dictionary of the records of `dictionary_rows` (in that order)."""
    return b"".join(r[:DICTIONARY_PIECE] for r in records)


def deflate(raw: bytes, preset: bytes | None) -> bytes:
    """A block's zlib stream, with the preset dictionary when the bundle has one."""
    squeeze = (
        zlib.compressobj(DISPLAY_LEVEL, zdict=preset) if preset else zlib.compressobj(DISPLAY_LEVEL)
    )
    return squeeze.compress(raw) + squeeze.flush()


def inflater(preset: bytes | None) -> Any:
    """A zlib decompressor for a block (`zlib.decompressobj`, with the preset dictionary when
    the bundle has one: a block deflated with it does not inflate without it)."""
    return zlib.decompressobj(zdict=preset) if preset else zlib.decompressobj()


class BlockInflater:
    """Inflates the runtime's blocks: each zlib stream's header is checked (deflate; the preset
    dictionary's id where it names one) and its body inflated raw, without computing either
    Adler-32 (the dictionary's, which inflateSetDictionary checks against the header's id on
    every block, and the output's): they were 55 % of a block's instructions with a 25 KB
    dictionary (callgrind, speakeasy-sdks). The file's sha256 is checked at open (a large one's
    in the background), `verify --deep` inflates with zlib's own checks (`inflater`)."""

    def __init__(self, preset: bytes | None) -> None:
        self.preset = preset
        self.preset_id = None if preset is None else zlib.adler32(preset).to_bytes(4, "big")

    def __call__(self, stream: bytes | np.ndarray, limit: int) -> bytes:
        """The block's bytes; ValueError (one line) when `stream` is not one zlib stream or
        inflates past `limit` bytes."""
        if len(stream) < 6:
            raise ValueError(f"{len(stream)} bytes, too short for a zlib stream")
        cmf, flg = int(stream[0]), int(stream[1])
        if cmf & 0x0F != 8 or cmf >> 4 > 7 or (cmf << 8 | flg) % 31:
            raise ValueError("no zlib stream header")
        if flg & 0x20:  # FDICT: the stream names its preset dictionary
            if self.preset_id is None or bytes(stream[2:6]) != self.preset_id:
                raise ValueError("deflated with a preset dictionary the bundle does not hold")
            inflate = zlib.decompressobj(-zlib.MAX_WBITS, zdict=self.preset)
            body = stream[6:]
        else:
            inflate = zlib.decompressobj(-zlib.MAX_WBITS)
            body = stream[2:]
        raw = inflate.decompress(body, limit)
        if inflate.unconsumed_tail:
            raise ValueError(f"inflates past {limit >> 20} MiB")
        if not inflate.eof or len(inflate.unused_data) != 4:  # the Adler-32 trailer
            raise ValueError("not one whole zlib stream")
        return raw


def header(
    row: Mapping[str, Any], metadata: Mapping[str, Any], section: Mapping[str, Any] | None
) -> dict[str, Any]:
    """A record's header object: `row`'s chunk-table values (HEADER_COLUMNS), `metadata` (the
    parsed `metadata` column) and, when the bundle has sections.parquet, the row's non-null
    `section_id`/`summary` and non-empty `rule_ids`/`references`."""
    out = {name: row[name] for name in HEADER_COLUMNS}
    out["metadata"] = metadata
    if section is not None:
        if section["section_id"] is not None:
            out["section_id"] = section["section_id"]
        if section["rule_ids"]:
            out["rule_ids"] = list(section["rule_ids"])
        if section["references"]:
            out["references"] = list(section["references"])
        if section["summary"] is not None:
            out["summary"] = section["summary"]
    return out


def record(head: Mapping[str, Any], text: str) -> bytes:
    """One record: the header's canonical JSON (no raw newline: JSON escapes it), a newline, the
    chunk text."""
    return f"{_ENCODER.encode(head)}\n{text}".encode()


def encode_block(records: Sequence[bytes]) -> bytes:
    """A block before compression: m + 1 uint32 boundaries, then the records."""
    bounds = np.zeros(len(records) + 1, dtype=np.int64)
    np.cumsum([len(r) for r in records], out=bounds[1:])
    if int(bounds[-1]) > MAX_BLOCK_RECORD_BYTES:
        raise ValueError(
            f"{len(records)} display records take {int(bounds[-1])} bytes; a block holds at "
            f"most {MAX_BLOCK_RECORD_BYTES}"
        )
    return bounds.astype(_BOUNDARY).tobytes() + b"".join(records)


def block_bounds(data: bytes, rows: int) -> tuple[int, list[int]]:
    """(where the records start, the m + 1 record boundaries from there) of a decompressed
    block of `rows` rows; ValueError (one line) when it is not one."""
    table = (rows + 1) * _BOUNDARY.itemsize
    if len(data) < table:
        raise ValueError(f"{len(data)} bytes, too short for {rows + 1} record boundaries")
    bounds = np.frombuffer(data, dtype=_BOUNDARY, count=rows + 1).astype(np.int64)
    if int(bounds[0]) != 0 or np.any(np.diff(bounds) < 0):
        raise ValueError("record boundaries do not start at 0 and ascend")
    if int(bounds[-1]) != len(data) - table:
        raise ValueError(f"records end at {int(bounds[-1])}, the block holds {len(data) - table}")
    return table, bounds.tolist()


def decode_block(data: bytes, rows: int) -> list[bytes]:
    """The `rows` records of a decompressed block; ValueError (one line) when it is not one."""
    table, at = block_bounds(data, rows)
    area = memoryview(data)[table:]
    return [bytes(area[at[i] : at[i + 1]]) for i in range(rows)]


def split_record(raw: bytes) -> tuple[dict[str, Any], str]:
    """A record's header object and text; ValueError when it is not a record."""
    head, newline, text = raw.partition(b"\n")
    if not newline:
        raise ValueError("no newline after the header")
    obj = json.loads(head.decode("utf-8"))
    if not isinstance(obj, dict):
        raise ValueError("the header is not a JSON object")
    return obj, text.decode("utf-8")


def dictionary_problem(size: int) -> str | None:
    """What is wrong with a display_dictionary.bin of `size` bytes, or None."""
    if size == 0:
        return "is empty (a bundle without rows has no dictionary)"
    if size > MAX_DISPLAY_DICTIONARY:
        return f"holds {size} bytes, more than {MAX_DISPLAY_DICTIONARY} (zlib's window)"
    return None


def offsets_problem(offsets: np.ndarray, n_chunks: int, size: int) -> str | None:
    """What is wrong with display_offsets.bin for `n_chunks` rows and a display.bin of `size`
    bytes (a reader slices blocks with it, so it must be checked before any read), or None."""
    want = n_blocks(n_chunks) + 1
    if len(offsets) != want:
        rows = DISPLAY_BLOCK_ROWS
        return f"{len(offsets)} offsets, expected ceil(n_chunks / {rows}) + 1 = {want}"
    if int(offsets[0]) != 0:
        return f"first offset is {int(offsets[0])}, not 0"
    if len(offsets) > 1 and np.any(offsets[1:] < offsets[:-1]):
        bad = np.flatnonzero(offsets[1:] < offsets[:-1])
        return f"offsets decrease at {len(bad)} place(s), first at entry {int(bad[0]) + 1}"
    if int(offsets[-1]) != size:
        return f"ends at {int(offsets[-1])}, display.bin has {size} bytes"
    return None
