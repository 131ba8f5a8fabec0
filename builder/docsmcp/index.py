"""BM25F inverted index with precomputed impacts, laid out as memory-mappable arrays.

Every (term, chunk) pair stores its final BM25F contribution ("impact"), so the runtime scores
a query by adding a few slices of float16 arrays: no document lengths, no idf, no per-query
arithmetic beyond a sum. Word bigrams live in the same dictionary (``"a b"``) and give the
phrase/proximity signal.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from docsmcp_runtime.analyzer import AnalyzerConfig, analyze
from docsmcp_runtime.format import LexicalParams

from .chunk import Chunk

FIELDS = ("heading", "body", "context")

__all__ = [
    "FIELDS",
    "FieldCounts",
    "LexicalIndex",
    "LexicalParams",
    "analyse_chunk",
    "build_index",
    "context_text",
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


@lru_cache(maxsize=1 << 16)
def _line_terms(line: str, config: AnalyzerConfig) -> tuple[str, ...]:
    """A line's terms then bigrams. Remembered: lines repeat across chunks (table cells, type
    names, paths): 89k lines of a third of speakeasy-sdks are 14.6k distinct ones."""
    a = analyze(line, config)
    return (*a.terms, *a.bigrams)


def _field_terms(chunk: Chunk, config: AnalyzerConfig) -> list[list[str]]:
    out = []
    for text in (chunk.heading_text, chunk.search_text, context_text(chunk)):
        terms: list[str] = []
        # Bigrams never cross a line: lines separate headings, cells, items and paragraphs.
        for line in text.split("\n"):
            terms.extend(_line_terms(line, config))
        out.append(terms)
    return out


# One chunk's analysed fields: per field, its distinct terms in first-seen order joined by "\n"
# (terms never hold a newline: one string moves between processes far cheaper than thousands),
# their counts as little-endian uint32 bytes, and the field's length in terms.
FieldCounts = tuple[tuple[str, bytes, int], ...]
# The counts' dtype (an in-build transfer encoding, not a bundle array).
_COUNT = np.dtype(np.uint32).newbyteorder("<")


def analyse_chunk(chunk: Chunk, config: AnalyzerConfig) -> FieldCounts:
    """What the index needs of one chunk, computable apart (in a worker, or from a cache)."""
    out = []
    for terms in _field_terms(chunk, config):
        counts = Counter(terms)
        tf = np.fromiter(counts.values(), _COUNT, len(counts)).tobytes()
        out.append(("\n".join(counts), tf, len(terms)))
    return tuple(out)


# (term, chunk, field) entries mapped to term ids at a time: bounds the Python strings alive
# at once (one per entry) while keeping the per-block numpy calls few.
BLOCK_ENTRIES = 1 << 20


@dataclass
class _Block:
    """One block's postings, a field sum per (term, chunk): term ids ascending, chunks
    ascending within a term (the order of the final layout)."""

    tid: np.ndarray  # int32 term ids (first-seen order)
    doc: np.ndarray  # uint32 chunk rows
    pseudo: np.ndarray  # float64 BM25F pseudo-frequency, before saturation


def build_index(
    chunks: list[Chunk],
    config: AnalyzerConfig,
    params: LexicalParams,
    analysed: list[FieldCounts] | None = None,
) -> LexicalIndex:
    """The index of `chunks`; `analysed` (`analyse_chunk` of each, e.g. made by workers) saves
    analysing them here. The result is the same either way.

    Chunks are taken in blocks of about `BLOCK_ENTRIES` (term, chunk, field) entries: a block's
    terms are mapped to ids with one dictionary pass, its fields summed per (term, chunk), and
    only those sums (16 bytes a posting) are kept; impacts are scattered into the final arrays
    once the document frequencies are known. Memory is the postings, not an object per term.
    """
    n_docs = len(chunks)
    if analysed is None:
        analysed = [analyse_chunk(c, config) for c in chunks]
    lengths = np.array(
        [[fields[f][2] for fields in analysed] for f in range(len(FIELDS))], dtype=np.float64
    ).reshape(len(FIELDS), n_docs)
    # BM25F: per-field length normalisation and weight, summed before saturation.
    weights = np.array([params.heading_weight, params.body_weight, params.context_weight])
    avg = np.maximum(lengths.mean(axis=1), 1e-9) if n_docs else np.ones(len(FIELDS))
    norm = 1.0 - params.b + params.b * lengths / avg[:, None]

    vocab: dict[str, int] = {}
    blocks: list[_Block] = []
    joined: list[str] = []
    counts: list[bytes] = []
    slots: list[int] = []  # chunk row * len(FIELDS) + field of each joined string
    size = 0
    for d, fields in enumerate(analysed):
        for f, (terms, tf, _) in enumerate(fields):
            if terms:
                joined.append(terms)
                counts.append(tf)
                slots.append(d * len(FIELDS) + f)
                size += len(tf) // _COUNT.itemsize
        if size >= BLOCK_ENTRIES:
            blocks.append(_block(vocab, joined, counts, slots, weights, norm))
            joined, counts, slots, size = [], [], [], 0
    if joined:
        blocks.append(_block(vocab, joined, counts, slots, weights, norm))
    if not vocab:
        return LexicalIndex(
            b"",
            np.zeros(1, np.uint64),
            np.zeros(1, np.uint64),
            np.zeros(0, np.uint32),
            np.zeros(0, np.float16),
        )

    df = np.zeros(len(vocab), np.int64)
    for block in blocks:
        df += np.bincount(block.tid, minlength=len(vocab))
    idf = np.log1p((n_docs - df + 0.5) / (df + 0.5))

    # Lay out postings by term in UTF-8 byte order, so readers can binary-search the dictionary.
    encoded = [w.encode() for w in vocab]
    del vocab
    rank_order = sorted(range(len(encoded)), key=encoded.__getitem__)
    rank = np.empty(len(encoded), np.int64)
    rank[rank_order] = np.arange(len(encoded))
    postings_offsets = np.zeros(len(encoded) + 1, np.uint64)
    np.cumsum(df[rank_order], out=postings_offsets[1:])
    # Each term's postings fill its slice block after block, so chunks stay ascending.
    cursor = postings_offsets[:-1].astype(np.int64)[rank]  # by term id
    total = int(postings_offsets[-1])
    postings_docs = np.empty(total, np.uint32)
    postings_impacts = np.empty(total, np.float16)
    while blocks:
        block = blocks.pop(0)
        impact = idf[block.tid] * block.pseudo * (params.k1 + 1.0) / (params.k1 + block.pseudo)
        starts = np.flatnonzero(np.r_[True, block.tid[1:] != block.tid[:-1]])
        run = np.diff(np.r_[starts, len(block.tid)])
        within = np.arange(len(block.tid)) - np.repeat(starts, run)
        at = cursor[block.tid] + within
        postings_docs[at] = block.doc
        postings_impacts[at] = impact.astype(np.float16)
        cursor[block.tid[starts]] += run
    sorted_terms = [encoded[i] for i in rank_order]
    term_offsets = np.zeros(len(encoded) + 1, np.uint64)
    np.cumsum([len(t) for t in sorted_terms], out=term_offsets[1:])
    return LexicalIndex(
        terms=b"".join(sorted_terms),
        term_offsets=term_offsets,
        postings_offsets=postings_offsets,
        postings_docs=postings_docs,
        postings_impacts=postings_impacts,
    )


def _block(
    vocab: dict[str, int],
    joined: list[str],
    counts: list[bytes],
    slots: list[int],
    weights: np.ndarray,
    norm: np.ndarray,
) -> _Block:
    """One block of analysed fields as field-summed postings; new terms join `vocab`."""
    terms = "\n".join(joined).split("\n")
    tf = np.frombuffer(b"".join(counts), _COUNT)
    sizes = np.fromiter((len(c) for c in counts), np.int64, len(counts)) // _COUNT.itemsize
    slot = np.repeat(np.array(slots, np.int64), sizes)
    # New terms get the next ids, in C loops. Which id a term gets changes nothing in the
    # bundle: terms are laid out in byte order and sums are per (term, chunk).
    fresh = set(terms).difference(vocab)
    vocab.update(zip(fresh, range(len(vocab), len(vocab) + len(fresh)), strict=True))
    tid = np.fromiter(map(vocab.__getitem__, terms), np.int64, len(terms))
    del terms
    doc, fld = np.divmod(slot, len(FIELDS))
    pseudo = weights[fld] * tf.astype(np.float64) / norm[fld, doc]
    # Sum the fields of each (term, doc) pair: sort by (term, doc) and reduce runs. The sort is
    # stable, so fields are added in field order whatever the block size.
    key = tid * norm.shape[1] + doc
    order = np.argsort(key, kind="stable")
    key, pseudo = key[order], pseudo[order]
    starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    pseudo = np.add.reduceat(pseudo, starts)
    key = key[starts]
    tid, doc = np.divmod(key, norm.shape[1])
    return _Block(tid.astype(np.int32), doc.astype(np.uint32), pseudo)
