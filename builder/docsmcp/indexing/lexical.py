"""BM25F inverted index with precomputed impacts, laid out as memory-mappable arrays.

Every (term, chunk) pair stores its final BM25F contribution ("impact"), so the runtime scores
a query by adding a few slices of float16 arrays: no document lengths, no idf, no per-query
arithmetic beyond a sum. Word bigrams live in the same dictionary (``"a b"``) and give the
phrase/proximity signal.
"""

from __future__ import annotations

import sys
import tempfile
from array import array
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import chain

import numpy as np
import pyarrow as pa
from docsmcp_runtime.format import LexicalParams
from docsmcp_runtime.search.analyzer import AnalyzerConfig, analyze
from docsmcp_runtime.search.entry_names import is_entry_term

from docsmcp.common.memtrim import release_free_memory
from docsmcp.indexing.pagefield import (
    PAGE_KEYS,
    heading_factors,
    heading_key,
    page_of,
    page_text,
    shared_factors,
)
from docsmcp.model.chunk import Chunk

try:  # the C counting loop behind Counter (CPython); the same counts either way
    from collections import _count_elements  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover

    def _count_elements(counts: dict[str, int], terms: list[str]) -> None:
        for term in terms:
            counts[term] = counts.get(term, 0) + 1


# `heading`: the chunk's own heading; `trail`: the headings above it (the page's title, the
# sections it is in), apart so that the discount of a heading many pages repeat (heading_factors:
# "Usage", "API", "Functions") weighs the own heading only, not the title above it. `page`: the
# page's title and what its frontmatter says about it; `lead`: its lead paragraph; both on every
# chunk of the page (pagefield.py). `anchors` (the texts of links from other chunks to this one)
# is known only once references resolve across files, so it is analysed in `build_index`, not
# with the other fields, and comes last.
FIELDS = ("heading", "trail", "body", "context", "page", "lead", "anchors")

__all__ = [
    "FIELDS",
    "PAGE_KEYS",
    "FieldCounts",
    "IndexBuilder",
    "LexicalIndex",
    "LexicalParams",
    "analyse_chunk",
    "build_index",
    "context_text",
    "page_text",
]


@dataclass(frozen=True)
class LexicalIndex:
    terms: bytes  # sorted UTF-8 terms, concatenated
    term_offsets: np.ndarray  # uint64 [n_terms + 1] into `terms`
    postings_offsets: np.ndarray  # uint64 [n_terms + 1] into the postings arrays
    postings_docs: np.ndarray  # uint32 chunk row numbers, ascending within a term
    postings_impacts: np.ndarray  # float16 BM25F impacts


def context_text(chunk: Chunk) -> str:
    """Where a chunk lives: its path and metadata values (e.g. "python", "dub")."""
    return "\n".join([chunk.path, *(value for _, value in chunk.metadata)])


# Lines remembered per process and analyser options. 2^14, not more: on speakeasy-sdks 2^16
# saved 14 analyses out of 271k, and on win32 the larger cache held ~90 MB per worker (long
# paragraphs).
LINE_CACHE = 1 << 14


def _analyse_line(config: AnalyzerConfig):  # type: ignore[no-untyped-def]
    """A line's terms then bigrams, remembered (lines repeat across chunks: table cells, type
    names, paths; 89k lines of a third of speakeasy-sdks are 14.6k distinct ones). One cache
    per options, keyed by the line alone: the options' hash (a tuple of stop words) was paid
    on each of 271k lookups."""
    found = _LINE_ANALYSERS.get(config)
    if found is None:

        @lru_cache(maxsize=LINE_CACHE)
        def found(line: str) -> tuple[tuple[str, ...], int]:
            a = analyze(line, config)
            return (*a.terms, *a.bigrams), a.n_names

        _LINE_ANALYSERS.clear()  # one build, one set of options
        _LINE_ANALYSERS[config] = found
    return found


_LINE_ANALYSERS: dict[AnalyzerConfig, object] = {}


def _line_terms(line: str, config: AnalyzerConfig) -> tuple[str, ...]:
    """A line's terms then bigrams (remembered)."""
    return _analyse_line(config)(line)[0]


def _lines_terms(lines: Iterable[str], line_terms) -> tuple[list[str], int]:  # type: ignore[no-untyped-def]
    """The terms then bigrams of each line, in order, and how many of them are names (not
    counted in a field's length: bundle-spec.md, *Full-text index*)."""
    found = list(map(line_terms, lines))
    return list(chain.from_iterable(t for t, _ in found)), sum(n for _, n in found)


def heading_fields(chunk: Chunk) -> tuple[str, str]:
    """A chunk's `heading` and `trail` field texts: the last line of its heading trail (its own
    heading, or the page's title for a page's first chunk) and the lines above it."""
    trail, _, own = chunk.heading_text.rpartition("\n")
    return own, trail


def _field_terms(
    chunk: Chunk, config: AnalyzerConfig, heading: str | None = None
) -> list[tuple[list[str], int]]:
    """The terms of a chunk's heading, trail, body and context fields, and their names;
    `heading` replaces the own heading (an API member's name: pagefield.member_headings)."""
    line_terms = _analyse_line(config)
    own, trail = heading_fields(chunk)
    body = chunk.search_text
    if heading is not None:
        # The body's first line repeats the heading: the member's name there too.
        first, nl, rest = body.partition("\n")
        body = heading + nl + rest if first.strip() == own.strip() else body
        own = heading
    # Bigrams never cross a line: lines separate headings, cells, items and paragraphs.
    return [
        _lines_terms(text.split("\n"), line_terms) if text else ([], 0)
        for text in (own, trail, body, context_text(chunk))
    ]


# One chunk's analysed fields: per field, its distinct terms in first-seen order joined by "\n"
# (terms never hold a newline: one string moves between processes far cheaper than thousands),
# their counts as little-endian uint32 bytes, and the field's length in terms.
FieldCounts = tuple[tuple[str, bytes, int], ...]
# The counts' dtype (an in-build transfer encoding, not a bundle array).
_COUNT = np.dtype(np.uint32).newbyteorder("<")
# The same counts made by `array` (far cheaper than numpy for a few dozen values): a 4-byte
# unsigned type, swapped on a big-endian machine.
_ARRAY_CODE = next(code for code in "IL" if array(code).itemsize == 4)
_SWAP = sys.byteorder != "little"


def _counted(terms: list[str], names: int = 0) -> tuple[str, bytes, int]:
    counts: dict[str, int] = {}
    _count_elements(counts, terms)  # what Counter(terms) does, without its Python layers
    tf = array(_ARRAY_CODE, counts.values())
    if _SWAP:
        tf.byteswap()
    return "\n".join(counts), tf.tobytes(), len(terms) - names


def analyse_chunk(
    chunk: Chunk,
    config: AnalyzerConfig,
    page: str = "",
    lead: str = "",
    heading: str | None = None,
) -> FieldCounts:
    """What the index needs of one chunk's own fields (all but `anchors`), computable apart
    (in a worker, or from a cache); `page` and `lead` are the file's (`pagefield.page_field`,
    `pagefield.lead_text`); `heading`, when given, is indexed as the own heading
    (`pagefield.member_headings`)."""
    own = tuple(_counted(t, names) for t, names in _field_terms(chunk, config, heading))
    return (*own, _page_counted(page, config), _page_counted(lead, config))


@lru_cache(maxsize=4)
def _page_counted(page: str, config: AnalyzerConfig) -> tuple[str, bytes, int]:
    """The `page` or `lead` field, counted once per file (the same on each of its chunks)."""
    return _counted(*_lines_terms(page.split("\n"), _analyse_line(config)))


def analyse_anchors(texts: Sequence[str], config: AnalyzerConfig) -> tuple[str, bytes, int]:
    """The `anchors` field of one chunk: each link text analysed as a line of its own
    (remembered: link texts repeat, e.g. an error type's name linked from every method). An
    entry-name term (`entry_names.MARK` + a name the chunk's API entry is typed by,
    tables._name_definitions) is a term as it is, a name: not counted in the field's length."""
    marked = [text for text in texts if is_entry_term(text)]
    lines = (line for text in texts if not is_entry_term(text) for line in text.split("\n"))
    terms, names = _lines_terms(lines, _analyse_line(config))
    return _counted(terms + marked, names + len(marked))


# (term, chunk, field) entries mapped to term ids at a time: bounds the Python strings alive
# at once (one per entry) while keeping the per-block numpy calls few.
BLOCK_ENTRIES = 1 << 18
# What a spilled block holds per entry, and per posting once its fields are summed.
# (In-build temporary files, read back by the same process: native byte order.)
_ENTRY = np.dtype([("tid", np.int32), ("slot", np.int64), ("tf", np.uint32)])
_POSTING = np.dtype([("tid", np.int32), ("doc", np.uint32), ("pseudo", np.float64)])
_LENGTH = np.dtype(np.int32)  # a spilled term's length in bytes
# Ranges of first bytes the dictionary is merged in (bounds the merge's memory; any number
# gives the same dictionary).
DICTIONARY_PARTS = 8


class IndexBuilder:
    """The lexical index built chunk by chunk (`add`, in row order), in bounded memory.

    Each block of about `BLOCK_ENTRIES` (term, chunk, field) entries is dictionary-encoded by
    Arrow: its entries (16 bytes each, term ids local to the block) and its distinct terms are
    written to unnamed temporary files. No Python string per term lives across blocks (a
    dict of win32's 1.8 M terms was ~230 MB of the main process, and sorting it ~80 MB more).
    `finish` merges the blocks' term lists into the sorted dictionary (Arrow, in C++), maps
    each block's ids to the final term numbers (the terms' byte order), sums the fields of
    each (term, chunk) block by block (chunks never span blocks), spills those sums, and
    scatters the impacts into the final arrays once the document frequencies are known.
    """

    def __init__(
        self,
        directory: str | None = None,
        block_entries: int = BLOCK_ENTRIES,
        dictionary_parts: int = DICTIONARY_PARTS,
    ) -> None:
        self._dir = directory
        self._block_entries = block_entries
        self._dictionary_parts = dictionary_parts
        # Closed by `finish` (or with the builder): they live across `add` calls.
        self._entries = tempfile.TemporaryFile(dir=directory)  # noqa: SIM115
        self._term_bytes = tempfile.TemporaryFile(dir=directory)  # noqa: SIM115
        self._term_lengths = tempfile.TemporaryFile(dir=directory)  # noqa: SIM115
        self._dict_sizes: list[int] = []  # distinct terms of each spilled term list
        self._blocks: list[int] = []  # entries per spilled block
        self._lengths = array("q")  # per chunk, per field (not a list: 8 bytes, not ~36)
        # Per chunk, the `heading_key` of its own heading and of its page (heading_factors).
        self._heading_keys = array("q")
        self._pages = array("q")
        # Per chunk, the `heading_key` of what an API member shares with its type's other
        # members (`pagefield.member_key`; 0 for other chunks: shared_factors).
        self._members = array("q")
        self._joined: list[str] = []
        self._counts: list[bytes] = []
        self._slots: list[int] = []  # chunk row * len(FIELDS) + field of each joined string
        self._size = 0
        self._docs = 0
        self._first_docs: list[int] = []  # the first chunk row of each spilled block

    def add(self, fields: FieldCounts, heading: str = "", page: str = "", member: str = "") -> None:
        """The next chunk's analysed fields (`analyse_chunk`: all but `anchors`, which `finish`
        adds once references have resolved), its own heading and its page (`pagefield.page_of`:
        how many pages share a heading weighs it), and for an API member what it shares with
        its type's other members (`pagefield.member_key`)."""
        row = self._docs * len(FIELDS)
        self._heading_keys.append(heading_key(heading))
        self._pages.append(heading_key(page))
        self._members.append(heading_key(member))
        self._docs += 1
        for f, (terms, tf, length) in enumerate(fields):
            self._lengths.append(length)
            if terms:
                self._joined.append(terms)
                self._counts.append(tf)
                self._slots.append(row + f)
                self._size += len(tf) // _COUNT.itemsize
        self._lengths.extend([0] * (len(FIELDS) - len(fields)))
        if self._size >= self._block_entries:
            self._flush()

    def _entry_block(self, joined: list[str], counts: list[bytes], slots: list[int]) -> np.ndarray:
        """The entries of `joined` with term ids local to the block; the block's distinct terms
        are spilled (the next term list, `_dict_sizes`) for `finish` to merge."""
        # Split and dictionary-encoded by Arrow (C++): no Python string per entry or term.
        import pyarrow.compute as pc  # (here: ~50 ms to import, for builds only)

        text = pa.array(["\n".join(joined)], pa.large_string())
        encoded = pc.split_pattern(text, "\n").flatten().dictionary_encode()
        sizes = np.fromiter(map(len, counts), np.int64, len(counts))
        block = np.empty(len(encoded), _ENTRY)
        block["tf"] = np.frombuffer(b"".join(counts), _COUNT)
        block["slot"] = np.repeat(np.array(slots, np.int64), sizes // _COUNT.itemsize)
        block["tid"] = encoded.indices.to_numpy()
        self._spill_terms(encoded.dictionary)
        return block

    def _spill_terms(self, terms: pa.Array) -> None:
        offsets, data = _binary_buffers(terms)
        np.diff(offsets).astype(_LENGTH).tofile(self._term_lengths)
        self._term_bytes.write(data)
        self._dict_sizes.append(len(terms))

    def _flush(self) -> None:
        if not self._joined:
            return
        self._first_docs.append(self._slots[0] // len(FIELDS))
        block = self._entry_block(self._joined, self._counts, self._slots)
        block.tofile(self._entries)
        self._blocks.append(len(block))
        self._joined, self._counts, self._slots, self._size = [], [], [], 0

    def _anchor_parts(
        self, anchors: Sequence[Sequence[str]] | None, config: AnalyzerConfig | None
    ) -> list[np.ndarray]:
        """The `anchors` field's entries, a part per spilled term list (after the blocks'),
        with ids local to it; fills the field's lengths."""
        if not anchors or config is None:
            return []
        at = FIELDS.index("anchors")
        joined: list[str] = []
        counts: list[bytes] = []
        slots: list[int] = []
        size = 0
        parts: list[np.ndarray] = []
        for d, texts in enumerate(anchors):
            if not texts:
                continue
            terms, tf, length = analyse_anchors(texts, config)
            self._lengths[d * len(FIELDS) + at] = length
            if terms:
                joined.append(terms)
                counts.append(tf)
                slots.append(d * len(FIELDS) + at)
                size += len(tf) // _COUNT.itemsize
            if size >= self._block_entries:
                # A block at a time, like the other fields: one Python string per entry of
                # the whole corpus's anchors at once was ~+400 MB on win32.
                parts.append(self._entry_block(joined, counts, slots))
                joined, counts, slots, size = [], [], [], 0
        if joined:
            parts.append(self._entry_block(joined, counts, slots))
        return parts

    def _anchor_blocks(self, parts: list[np.ndarray], ids: list[np.ndarray]) -> dict:
        """The anchor entries with final term numbers (`ids`: per anchor part), by the spilled
        block holding their chunk's other fields (sums are per block, so a chunk's fields must
        meet in one)."""
        if not parts:
            return {}
        for part, part_ids in zip(parts, ids, strict=True):
            part["tid"] = part_ids[part["tid"]]
        entries = np.concatenate(parts)
        parts.clear()
        docs = entries["slot"] // len(FIELDS)
        which = np.maximum(np.searchsorted(self._first_docs, docs, side="right") - 1, 0)
        return {int(b): entries[which == b] for b in np.unique(which)}

    def _dictionary(self) -> tuple[bytes, np.ndarray, list[np.ndarray]]:
        """The sorted distinct terms of every spilled term list, as the dictionary's bytes and
        offsets (sorted as UTF-8 bytes: the order readers binary-search), and, per list, each
        of its terms' number in that order. Merged a range of first bytes at a time: terms of
        a lower first byte sort first, so the parts' dictionaries follow one another, and the
        hash table and sort of one part are alive at a time (win32: 4.1 M listed terms,
        1.8 M distinct, ~350 MB at once)."""
        import pyarrow.compute as pc

        with self._term_lengths as lengths_file, self._term_bytes as bytes_file:
            lengths_file.seek(0)
            lengths = np.fromfile(lengths_file, _LENGTH)
            offsets = np.zeros(len(lengths) + 1, np.int64)
            np.cumsum(lengths, out=offsets[1:])
            bytes_file.seek(0)
            data = bytes_file.read()
        listed = pa.Array.from_buffers(
            pa.large_binary(), len(lengths), [None, pa.py_buffer(offsets), pa.py_buffer(data)]
        )
        # Each term's first byte, -1 for the empty term (first of all).
        first = np.full(len(lengths), -1, np.int16)
        filled = lengths > 0
        first[filled] = np.frombuffer(data, np.uint8)[offsets[:-1][filled]]
        del lengths, filled
        numbers = np.empty(len(first), np.int32)
        blob = bytearray()
        ends = [np.zeros(1, np.uint64)]
        done = 0  # distinct terms of the parts before
        for low, high in _ranges(first, self._dictionary_parts):
            picked = np.flatnonzero((first >= low) & (first < high))
            encoded = pc.dictionary_encode(listed.take(pa.array(picked)))
            distinct = encoded.dictionary
            order = pc.array_sort_indices(distinct).to_numpy()
            rank = np.empty(len(order), np.int32)
            rank[order] = np.arange(done, done + len(order), dtype=np.int32)
            numbers[picked] = rank[encoded.indices.to_numpy()]
            done += len(order)
            del encoded, rank, picked
            part_offsets, part_data = _binary_buffers(distinct.take(pa.array(order)))
            ends.append((part_offsets[1:] - part_offsets[0] + len(blob)).astype(np.uint64))
            blob += part_data
            del distinct, order, part_data, part_offsets
            release_free_memory()  # Arrow's pool keeps what the part freed
        splits = np.cumsum(self._dict_sizes)[:-1]
        return bytes(blob), np.concatenate(ends), np.split(numbers, splits)

    def finish(
        self,
        params: LexicalParams,
        anchors: Sequence[Sequence[str]] | None = None,
        config: AnalyzerConfig | None = None,
    ) -> LexicalIndex:
        """The index; `anchors` (per chunk row, the texts of links to it, analysed with
        `config`) fill the `anchors` field."""
        self._flush()
        parts = self._anchor_parts(anchors, config)
        n_docs = self._docs
        if not sum(self._dict_sizes):
            for f in (self._entries, self._term_bytes, self._term_lengths):
                f.close()
            return LexicalIndex(
                b"",
                np.zeros(1, np.uint64),
                np.zeros(1, np.uint64),
                np.zeros(0, np.uint32),
                np.zeros(0, np.float16),
            )
        terms, term_offsets, ids = self._dictionary()
        release_free_memory()  # what Arrow's pool kept of the merge
        extra = self._anchor_blocks(parts, ids[len(self._blocks) :])
        n_terms = len(term_offsets) - 1
        lengths = np.array(self._lengths, np.float64).reshape(n_docs, len(FIELDS)).T
        self._lengths = array("q")
        # BM25F: per-field length normalisation and weight, summed before saturation.
        weights = np.array(
            [
                params.heading_weight,
                params.trail_weight,
                params.body_weight,
                params.context_weight,
                params.page_weight,
                params.lead_weight,
                params.anchors_weight,
            ]
        )
        avg = np.maximum(lengths.mean(axis=1), 1e-9)
        norm = 1.0 - params.b + params.b * lengths / avg[:, None]
        # A heading on many pages says little: the chunk's heading field weighs less (a factor
        # per chunk, folded into the field's normalisation: weight · tf · factor / norm).
        norm[FIELDS.index("heading")] /= heading_factors(
            self._heading_keys, self._pages, params.heading_informativeness
        )
        self._heading_keys, self._pages = array("q"), array("q")
        # What every member of a type carries (its type's name, package and summary) weighs as
        # little as a repeated heading does, the member's own heading and text as before.
        shared = shared_factors(self._members, params.heading_informativeness)
        for name in ("trail", "page", "lead"):
            norm[FIELDS.index(name)] /= shared
        self._members = array("q")
        df = np.zeros(n_terms, np.int64)
        postings = tempfile.TemporaryFile(dir=self._dir)  # noqa: SIM115 (closed below)
        sums: list[int] = []
        with self._entries as entries:
            entries.seek(0)
            # An index of anchor texts only (no other entries) is one block of them.
            blocks = self._blocks or ([0] if extra else [])
            for i, count in enumerate(blocks):
                block = np.fromfile(entries, _ENTRY, count)
                if count:
                    block["tid"] = ids[i][block["tid"]]
                if i in extra:  # after the block's own entries: fields sum in field order
                    block = np.concatenate([block, extra[i]])
                block = _field_sums(block, weights, norm)
                # Document frequencies from the block's runs of terms (it is ordered by term):
                # a bincount of every term of the corpus per block was ~0.7 s of win32's.
                tid = block["tid"]
                if len(tid):
                    starts = np.flatnonzero(np.r_[True, tid[1:] != tid[:-1]])
                    df[tid[starts]] += np.diff(np.r_[starts, len(tid)])
                block.tofile(postings)
                sums.append(len(block))
        del ids, extra
        release_free_memory()  # the blocks' sorts, before the postings arrays are made
        idf = np.log1p((n_docs - df + 0.5) / (df + 0.5))

        # Term numbers are the terms' byte order: each term's postings are one slice, and
        # chunks stay ascending as the blocks fill it in order.
        postings_offsets = np.zeros(n_terms + 1, np.uint64)
        np.cumsum(df, out=postings_offsets[1:])
        cursor = postings_offsets[:-1].astype(np.int64)
        total = int(postings_offsets[-1])
        postings_docs = np.empty(total, np.uint32)
        postings_impacts = np.empty(total, np.float16)
        k1 = params.k1
        with postings:
            postings.seek(0)
            for count in sums:
                block = np.fromfile(postings, _POSTING, count)
                tid, pseudo = block["tid"], block["pseudo"]
                impact = idf[tid] * pseudo * (k1 + 1.0) / (k1 + pseudo)
                starts = np.flatnonzero(np.r_[True, tid[1:] != tid[:-1]])
                run = np.diff(np.r_[starts, len(tid)])
                at = cursor[tid] + (np.arange(len(tid)) - np.repeat(starts, run))
                postings_docs[at] = block["doc"]
                postings_impacts[at] = impact.astype(np.float16)
                cursor[tid[starts]] += run
        return LexicalIndex(
            terms=terms,
            term_offsets=term_offsets,
            postings_offsets=postings_offsets,
            postings_docs=postings_docs,
            postings_impacts=postings_impacts,
        )


def _ranges(first: np.ndarray, parts: int) -> list[tuple[int, int]]:
    """[low, high) ranges of first bytes (-1..255) holding about len(first) / parts terms
    each, in order."""
    counts = np.bincount(first.astype(np.int64) + 1, minlength=257)
    target = max(1, -(-len(first) // parts))
    out: list[tuple[int, int]] = []
    low, held = -1, 0
    for value in range(-1, 256):
        held += int(counts[value + 1])
        if held >= target or value == 255:
            out.append((low, value + 1))
            low, held = value + 1, 0
    return out


def _binary_buffers(values: pa.Array) -> tuple[np.ndarray, memoryview]:
    """The int64 offsets (n + 1, as stored: not rebased) and the data bytes they point into
    of a (large) string or binary array."""
    if not pa.types.is_large_binary(values.type) and not pa.types.is_large_string(values.type):
        values = values.cast(pa.large_binary())
    _, offsets_buf, data_buf = values.buffers()
    offsets = np.frombuffer(offsets_buf, np.int64)[values.offset : values.offset + len(values) + 1]
    data = memoryview(data_buf)[int(offsets[0]) : int(offsets[-1])] if data_buf else b""
    return offsets, data


def _field_sums(entries: np.ndarray, weights: np.ndarray, norm: np.ndarray) -> np.ndarray:
    """A block's entries as postings (`_POSTING`): fields summed per (term, chunk), ordered by
    term id then chunk."""
    n_docs = norm.shape[1]
    slot = entries["slot"]
    doc, fld = np.divmod(slot, len(FIELDS))
    pseudo = weights[fld] * entries["tf"].astype(np.float64) / norm[fld, doc]
    # Sort by (term, doc, field) and reduce the runs of (term, doc), so fields are added in
    # field order whatever the block size. A (term, chunk, field) entry is unique, so the keys
    # are: any sort gives this order, and numpy's default one took 0.4x the time of a stable
    # sort of (term, doc) (win32: 1.8 s of the serial index finish).
    unsorted = entries["tid"].astype(np.int64) * (n_docs * len(FIELDS)) + slot
    order = np.argsort(unsorted)
    key = unsorted[order]
    if len(key) > 1 and bool(np.any(key[1:] == key[:-1])):  # (never from `add`: kept exact)
        order = np.argsort(unsorted, kind="stable")
        key = unsorted[order]
    key //= len(FIELDS)  # term * n_docs + doc
    pseudo = pseudo[order]
    starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    out = np.empty(len(starts), _POSTING)
    out["pseudo"] = np.add.reduceat(pseudo, starts)
    tid, doc = np.divmod(key[starts], n_docs)
    out["tid"], out["doc"] = tid, doc
    return out


def build_index(
    chunks: list[Chunk],
    config: AnalyzerConfig,
    params: LexicalParams,
    analysed: list[FieldCounts] | None = None,
    anchors: Sequence[Sequence[str]] | None = None,
    pages: Mapping[str, tuple[str, str]] | None = None,
) -> LexicalIndex:
    """The index of `chunks`; `analysed` (`analyse_chunk` of each, e.g. made by workers) saves
    analysing them here. The result is the same either way. `anchors`: per chunk, the texts of
    the links that lead to it (none when not given); `pages`: each path's `page` and `lead`
    field texts (`pagefield.page_field`, `lead_text`; "" when not given)."""
    builder = IndexBuilder()
    for d, chunk in enumerate(chunks):
        if analysed is not None:
            fields = analysed[d]
        else:
            fields = analyse_chunk(chunk, config, *(pages or {}).get(chunk.path, ("", "")))
        builder.add(fields, chunk.heading, page_of(chunk))
    return builder.finish(params, anchors, config)
