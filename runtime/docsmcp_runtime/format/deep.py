"""The deep checks of `docsmcp verify` (`Inspection(deep=True)`): whole-file invariants, vectorised
with numpy: compression, dictionary and postings order, the chunk table's order, ids and
metadata, stats, the q8 bound.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import numpy as np

from .display import (
    decode_block,
    header,
    inflater,
    n_blocks,
    offsets_problem,
    record,
    split_record,
)
from .layout import (
    CHUNK_COMPRESSION,
    CHUNKS_FILE,
    DISPLAY_ARRAYS,
    DISPLAY_BLOCK_ROWS,
    METADATA_FILE,
    Q8_ARRAYS,
    SECTIONS_FILE,
    VECTOR_ARRAYS,
)
from .problems import Problem, _offsets_fit
from .quantise import q8_problem

if TYPE_CHECKING:  # the checks run on tables already read; importing this must not import pyarrow
    import pyarrow as pa

# Bytes of padded term matrix built at once when checking the dictionary order.
_SORT_BLOCK_BYTES = 32 << 20


def _unsorted_terms(terms: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Indices i where term i >= term i+1 (bytewise), comparing NUL-padded fixed-width rows."""
    n = len(lengths)
    if n < 2:
        return np.array([], dtype=np.int64)
    width = max(int(lengths.max()), 1)
    rows_per_block = max(2, _SORT_BLOCK_BYTES // width)
    bad = []
    # Blocks overlap by one term so that every consecutive pair is compared once.
    for lo in range(0, n - 1, rows_per_block - 1):
        hi = min(n, lo + rows_per_block)
        lens = lengths[lo:hi]
        matrix = np.zeros((hi - lo, width), dtype=np.uint8)
        row = np.repeat(np.arange(hi - lo), lens)
        col = np.arange(int(lens.sum())) - np.repeat(np.cumsum(lens) - lens, lens)
        matrix[row, col] = terms[int(starts[lo]) : int(starts[lo]) + int(lens.sum())]
        keys = matrix.view(f"S{width}").ravel()
        bad.append(lo + np.flatnonzero(keys[1:] <= keys[:-1]))
    return np.concatenate(bad)


def _term(terms: np.ndarray, off: np.ndarray, i: int) -> str:
    return terms[int(off[i]) : int(off[i + 1])].tobytes().decode("utf-8", "replace")


def _term_at(off: np.ndarray, byte: int) -> int:
    return int(np.searchsorted(off, byte, side="right")) - 1


def _starts_with(values: pa.ChunkedArray, prefixes: pa.ChunkedArray) -> np.ndarray:
    """Element-wise `values[i].startswith(prefixes[i])` over the raw Arrow buffers (pyarrow's
    own starts_with takes one pattern for all rows)."""
    from .table_problems import _string_buffers

    v_off, v_data = _string_buffers(values)
    p_off, p_data = _string_buffers(prefixes)
    v_len, p_len = np.diff(v_off), np.diff(p_off)
    n = len(p_len)
    total = int(p_len.sum())
    row = np.repeat(np.arange(n), p_len)
    k = np.arange(total) - np.repeat(p_off[:-1] - p_off[0], p_len)
    in_range = k < v_len[row]
    v_pos = np.where(in_range, v_off[row] + k, 0)
    differs = ~in_range | (v_data[v_pos] != p_data[p_off[row] + k])
    return (v_len >= p_len) & (np.bincount(row[differs], minlength=n) == 0)


class DeepChecks:
    """Inspection's deep steps (a mixin: they read the arrays and tables Inspection mapped)."""

    def _deep(self) -> Iterator[Problem]:
        yield from self._compression()
        yield from self._terms()
        yield from self._postings()
        if self.table is not None:
            yield from self._chunk_rows(self.table)
            yield from self._chunk_metadata(self.table)
            yield from self._display_records(self.table)
        yield from self._stats()
        yield from self._q8_bound()

    def _q8_bound(self) -> Iterator[Problem]:
        vectors, q8, scale = (self.arrays.get(k) for k in ("vectors", *Q8_ARRAYS))
        if vectors is None or q8 is None or scale is None or q8.shape != vectors.shape:
            return
        if scale.shape == (vectors.shape[1],):
            problem = q8_problem(vectors, q8, scale)
            if problem is not None:
                yield Problem(VECTOR_ARRAYS["vectors_q8"].file, problem)

    def _compression(self) -> Iterator[Problem]:
        if self.parquet is None:
            return
        md = self.parquet.metadata
        codecs = {
            md.row_group(i).column(j).compression
            for i in range(md.num_row_groups)
            for j in range(md.num_columns)
        }
        if codecs - {CHUNK_COMPRESSION.upper()}:
            yield Problem(CHUNKS_FILE, f"compression {sorted(codecs)}, expected zstd")

    def _terms(self) -> Iterator[Problem]:
        terms, off = self.arrays.get("terms"), self.arrays.get("term_offsets")
        if terms is None or off is None or not _offsets_fit(off, len(terms)):
            return
        n = len(off) - 1
        starts = off[:-1].astype(np.int64)
        lengths = np.diff(off.astype(np.int64))
        try:
            terms.tobytes().decode("utf-8")
        except UnicodeDecodeError as exc:
            at = _term_at(off, exc.start)
            yield Problem("terms.bin", f"not UTF-8 at byte {exc.start} (term {at})")
            return
        # Valid UTF-8 overall and no term starting inside a character: every term is UTF-8.
        lead = terms[starts[lengths > 0]]
        split = int(np.count_nonzero((lead & 0xC0) == 0x80))
        if split:
            yield Problem("term_offsets.bin", f"{split} offset(s) fall inside a UTF-8 character")
        if np.any(terms == 0):
            yield Problem("terms.bin", "contains NUL bytes")
            return  # the padded comparison below treats NUL as padding
        if np.any(lengths == 0):
            yield Problem("terms.bin", f"{int(np.count_nonzero(lengths == 0))} empty term(s)")
        # Spaces: only bigram terms have one, between two non-empty parts.
        space_at = np.flatnonzero(terms == 0x20)
        if len(space_at):
            owner = np.searchsorted(starts, space_at, side="right") - 1
            edge = (space_at == starts[owner]) | (space_at == starts[owner] + lengths[owner] - 1)
            multiple = np.bincount(owner, minlength=n) > 1
            if np.any(edge) or np.any(multiple):
                bad = int(np.count_nonzero(multiple)) + int(np.count_nonzero(edge))
                yield Problem("terms.bin", f"{bad} term(s) with misplaced spaces (bigrams: 'a b')")
        unsorted = _unsorted_terms(terms, starts, lengths)
        if len(unsorted):
            i = int(unsorted[0])
            yield Problem(
                "terms.bin",
                f"dictionary not strictly ascending at {len(unsorted)} place(s), first "
                f"{_term(terms, off, i)!r} >= {_term(terms, off, i + 1)!r} (terms {i}, {i + 1})",
            )

    def _postings(self) -> Iterator[Problem]:
        a = self.arrays
        poff, docs, imps = (
            a.get("postings_offsets"),
            a.get("postings_docs"),
            a.get("postings_impacts"),
        )
        levels = a.get("impact_levels")
        if levels is not None:  # codes (any uint8 is one); their levels are the impacts
            bad = int(np.count_nonzero(~np.isfinite(levels) | (levels < 0)))
            if bad:
                yield Problem("impact_levels.bin", f"{bad} level(s) negative, infinite or NaN")
        elif imps is not None:
            bad = int(np.count_nonzero(~np.isfinite(imps) | (imps < 0)))
            if bad:
                yield Problem("postings_impacts.bin", f"{bad} impact(s) negative, infinite or NaN")
        if docs is None or poff is None or not _offsets_fit(poff, len(docs)) or len(docs) < 2:
            return
        # Positions where a new term's postings begin may go down; nowhere else.
        begins = np.zeros(len(docs), dtype=bool)
        firsts = poff[:-1][poff[:-1] < len(docs)].astype(np.int64)
        begins[firsts] = True
        step = np.diff(docs.astype(np.int64))
        bad = np.flatnonzero((step <= 0) & ~begins[1:])
        if len(bad):
            term = _term_at(poff, int(bad[0]) + 1)
            terms, toff = a.get("terms"), a.get("term_offsets")
            name = ""
            if terms is not None and toff is not None and term + 1 < len(toff):
                name = f" {_term(terms, toff, term)!r}"
            yield Problem(
                "postings_docs.bin",
                f"rows not strictly ascending within a term at {len(bad)} place(s), first in "
                f"term {term}{name}",
            )

    def _chunk_rows(self, table: pa.Table) -> Iterator[Problem]:
        import pyarrow.compute as pc  # deep checks only: 40 ms of import the runtime never pays

        n = table.num_rows
        ids = table.column("id")
        duplicates = n - len(pc.unique(ids))
        if duplicates:
            yield Problem(CHUNKS_FILE, f"{duplicates} duplicate chunk id(s)")
        # Order by path (bytes), then position; positions 0..count-1 within each file.
        encoded = pc.dictionary_encode(table.column("path").combine_chunks())
        dictionary = encoded.dictionary.to_pylist()
        rank_of = np.argsort(np.argsort([p.encode() for p in dictionary], kind="stable"))
        rank = rank_of[encoded.indices.to_numpy()] if n else np.zeros(0, dtype=np.int64)
        position = table.column("position").to_numpy().astype(np.int64)
        count = table.column("file_chunk_count").to_numpy().astype(np.int64)
        if n:
            if np.any(np.diff(rank) < 0):
                yield Problem(CHUNKS_FILE, "rows are not ordered by path")
            first = np.concatenate([[True], rank[1:] != rank[:-1]])
            group_start = np.maximum.accumulate(np.where(first, np.arange(n), 0))
            group_size = np.diff(np.append(np.flatnonzero(first), n))
            bad_pos = int(np.count_nonzero(position != np.arange(n) - group_start))
            if bad_pos:
                yield Problem(
                    CHUNKS_FILE,
                    f"{bad_pos} row(s) whose position is not its place within the file "
                    "(rows must be ordered by path, then position)",
                )
            bad_count = int(np.count_nonzero(count != np.repeat(group_size, group_size)))
            if bad_count:
                yield Problem(CHUNKS_FILE, f"{bad_count} row(s) whose file_chunk_count is wrong")
        level = table.column("level").to_numpy()
        if np.any((level < 0) | (level > 6)):
            yield Problem(CHUNKS_FILE, "level outside 0..6")
        start = table.column("line_start").to_numpy()
        end = table.column("line_end").to_numpy()
        bad_lines = int(np.count_nonzero((start < 1) | (end < start)))
        if bad_lines:
            yield Problem(CHUNKS_FILE, f"{bad_lines} bad line ranges")
        paths = table.column("path")
        # `{path}` or `{path}#...`; breadcrumbs `{path}` or `{path} > ...`.
        for what, column, sep in (("chunk id", "id", "#"), ("breadcrumb", "breadcrumb", " > ")):
            values = table.column(column)
            same = pc.equal(values, paths).to_numpy(zero_copy_only=False)
            prefixed = _starts_with(values, pc.binary_join_element_wise(paths, sep, ""))
            bad = int(np.count_nonzero(~(same | prefixed)))
            if bad:
                yield Problem(CHUNKS_FILE, f"{bad} {what}(s) that do not start with the row's path")

    def _chunk_metadata(self, table: pa.Table) -> Iterator[Problem]:
        import pyarrow.compute as pc

        taxonomy = self.metadata.taxonomy if self.metadata is not None else None
        encoded = pc.dictionary_encode(table.column("metadata").combine_chunks())
        distinct = encoded.dictionary.to_pylist()
        keys = list(taxonomy or {})
        codes = np.zeros((len(distinct), len(keys)), dtype=np.int64)
        found: list[str] = []
        for j, text in enumerate(distinct):
            try:
                obj = json.loads(text)
            except ValueError:
                found.append(f"not JSON: {text[:60]!r}")
                continue
            if not isinstance(obj, dict) or not all(isinstance(v, str) for v in obj.values()):
                found.append(f"not an object of strings: {text[:60]!r}")
                continue
            if list(obj) != sorted(obj):
                found.append(f"keys not sorted: {text[:60]!r}")
            if taxonomy is None:
                continue
            for key, value in obj.items():
                if key not in taxonomy:
                    found.append(f"key {key!r} is not in the taxonomy")
                elif value not in taxonomy[key].values:
                    found.append(f"value {value!r} of {key!r} is not in the taxonomy")
                else:
                    codes[j, keys.index(key)] = taxonomy[key].code(value)
        for message in dict.fromkeys(found):
            yield Problem(CHUNKS_FILE, f"metadata {message}")
        facets = self.arrays.get("facets")
        if taxonomy is None or facets is None or facets.shape != (table.num_rows, len(keys)):
            return
        expected = codes[encoded.indices.to_numpy()] if table.num_rows else codes[:0]
        wrong = np.flatnonzero(np.any(facets.astype(np.int64) != expected, axis=1))
        if len(wrong):
            yield Problem(
                "facets.bin",
                f"{len(wrong)} row(s) disagree with the chunk metadata, first row {int(wrong[0])}",
            )

    def _stats(self) -> Iterator[Problem]:
        if self.metadata is None:
            return
        stats = self.metadata.stats
        toff, docs = self.arrays.get("term_offsets"), self.arrays.get("postings_docs")
        actual = {
            "chunks": self.n_chunks,
            "terms": len(toff) - 1 if toff is not None and len(toff) else None,
            "postings": len(docs) if docs is not None else None,
        }
        for key, got in actual.items():
            if got is not None and getattr(stats, key) != got:
                yield Problem(
                    METADATA_FILE, f"stats.{key} is {getattr(stats, key)}, the bundle has {got}"
                )

    def _display_records(self, table: pa.Table) -> Iterator[Problem]:
        """Every display record is its chunk-table row (and sections row), byte for byte; the
        first row that is not is named. Each block is inflated to at most the size its records
        should have, so a hostile block cannot blow up in memory."""
        display, offsets = (self.arrays.get(k) for k in DISPLAY_ARRAYS)
        n = table.num_rows
        if display is None or offsets is None or offsets_problem(offsets, n, len(display)):
            return  # absent, or reported by the open-time check
        import pyarrow as pa
        import pyarrow.parquet as pq

        from .schemas import SECTIONS_SCHEMA

        sections = None
        if SECTIONS_FILE in self.sized:
            try:
                sections = pq.read_table(self.root / SECTIONS_FILE).cast(SECTIONS_SCHEMA)
            except (OSError, pa.ArrowException, ValueError):
                return  # _browse_tables reports it
            if sections.num_rows != n:
                return  # so does this
        name = DISPLAY_ARRAYS["display"].file
        dictionary = self.arrays.get("display_dictionary")
        preset = None if dictionary is None else dictionary.tobytes()
        parsed: dict[str, Any] = {}
        for k in range(n_blocks(n)):
            lo, hi = k * DISPLAY_BLOCK_ROWS, min(n, (k + 1) * DISPLAY_BLOCK_ROWS)
            rows = table.slice(lo, hi - lo).to_pylist()
            secs = sections.slice(lo, hi - lo).to_pylist() if sections is not None else None
            heads = []
            for i, row in enumerate(rows):
                text = row["metadata"]
                if text not in parsed:
                    try:
                        parsed[text] = json.loads(text)
                    except ValueError:
                        return  # _chunk_metadata reports it
                heads.append(header(row, parsed[text], secs[i] if secs is not None else None))
            expected = [record(h, row["text"]) for h, row in zip(heads, rows, strict=True)]
            limit = 4 * (len(rows) + 1) + sum(len(r) for r in expected)
            inflate = inflater(preset)
            try:
                raw = inflate.decompress(display[int(offsets[k]) : int(offsets[k + 1])], limit + 1)
                if len(raw) > limit or not inflate.eof or inflate.unused_data:
                    raise ValueError("not one zlib stream of the rows' records")
                got = decode_block(raw, len(rows))
            except (zlib.error, ValueError) as exc:
                yield Problem(name, f"block {k} (rows {lo}..{hi - 1}) is unreadable: {exc}")
                return
            for i, (have, want) in enumerate(zip(got, expected, strict=True)):
                if have != want:
                    what = _record_difference(have, heads[i], rows[i]["text"])
                    yield Problem(name, f"row {lo + i} differs from the chunk table ({what})")
                    return


def _record_difference(have: bytes, want: dict[str, Any], text: str) -> str:
    """What differs between a record and the one expected: a key, the text, or the bytes."""
    try:
        head, got_text = split_record(have)
    except (ValueError, UnicodeDecodeError) as exc:
        return f"not a record: {exc}"
    for key in sorted(set(head) | set(want)):
        if head.get(key) != want.get(key):
            return f"key {key!r}"
    if got_text != text:
        return "text"
    return "header not in canonical JSON form"
