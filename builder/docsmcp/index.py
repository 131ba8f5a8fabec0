"""BM25F inverted index with precomputed impacts, laid out as memory-mappable arrays.

Every (term, chunk) pair stores its final BM25F contribution ("impact"), so the runtime scores
a query by adding a few slices of float16 arrays: no document lengths, no idf, no per-query
arithmetic beyond a sum. Word bigrams live in the same dictionary (``"a b"``) and give the
phrase/proximity signal.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from docsmcp_runtime.analyzer import AnalyzerConfig, analyze
from docsmcp_runtime.format import LexicalParams

from .chunk import Chunk

# `page`: what the page's frontmatter says about it (description, keywords), on its first chunk.
# `anchors` (the texts of links from other chunks to this one) is known only once references
# resolve across files, so it is analysed in `build_index`, not with the other fields.
FIELDS = ("heading", "body", "context", "page", "anchors")
# Frontmatter keys whose text describes a page (strings, or lists of strings).
PAGE_KEYS = ("description", "keywords", "tags", "summary")

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


def page_text(frontmatter: str) -> str:
    """The `page` field of a file's first chunk: PAGE_KEYS of its frontmatter (canonical JSON),
    one value per line."""
    try:
        data = json.loads(frontmatter)
    except ValueError:
        return ""
    if not isinstance(data, dict):
        return ""
    lines: list[str] = []
    for key in PAGE_KEYS:
        value = data.get(key)
        values = value if isinstance(value, list) else [value]
        lines.extend(v.strip() for v in values if isinstance(v, str) and v.strip())
    return "\n".join(lines)


def _field_terms(chunk: Chunk, config: AnalyzerConfig, page: str) -> list[list[str]]:
    out = []
    for text in (chunk.heading_text, chunk.search_text, context_text(chunk), page):
        terms: list[str] = []
        # Bigrams never cross a line: lines separate headings, cells, items and paragraphs.
        for line in text.split("\n"):
            a = analyze(line, config)
            terms.extend(a.terms)
            terms.extend(a.bigrams)
        out.append(terms)
    return out


# One chunk's analysed fields: per field, its distinct terms in first-seen order joined by "\n"
# (terms never hold a newline: one string moves between processes far cheaper than thousands),
# their counts as little-endian uint32 bytes, and the field's length in terms.
FieldCounts = tuple[tuple[str, bytes, int], ...]
# The counts' dtype (an in-build transfer encoding, not a bundle array).
_COUNT = np.dtype(np.uint32).newbyteorder("<")


def _counted(terms: list[str]) -> tuple[str, bytes, int]:
    counts = Counter(terms)
    tf = np.fromiter(counts.values(), _COUNT, len(counts)).tobytes()
    return "\n".join(counts), tf, len(terms)


def analyse_chunk(chunk: Chunk, config: AnalyzerConfig, page: str = "") -> FieldCounts:
    """What the index needs of one chunk's own fields (all but `anchors`), computable apart
    (in a worker, or from a cache); `page` is `page_text` for a file's first chunk, else ""."""
    return tuple(_counted(terms) for terms in _field_terms(chunk, config, page))


def analyse_anchors(texts: Sequence[str], config: AnalyzerConfig) -> tuple[str, bytes, int]:
    """The `anchors` field of one chunk: each link text analysed as a line of its own."""
    terms: list[str] = []
    for text in texts:
        for line in text.split("\n"):
            a = analyze(line, config)
            terms.extend(a.terms)
            terms.extend(a.bigrams)
    return _counted(terms)


def build_index(
    chunks: list[Chunk],
    config: AnalyzerConfig,
    params: LexicalParams,
    analysed: list[FieldCounts] | None = None,
    anchors: Sequence[Sequence[str]] | None = None,
) -> LexicalIndex:
    """The index of `chunks`; `analysed` (`analyse_chunk` of each, e.g. made by workers) saves
    analysing them here. The result is the same either way. `anchors`: per chunk, the texts of
    the links that lead to it (none when not given)."""
    no_anchors = ("", b"", 0)
    vocab: dict[str, int] = {}
    docs: list[np.ndarray] = []
    term_ids: list[np.ndarray] = []
    tfs: list[np.ndarray] = []
    field_of: list[np.ndarray] = []
    lengths = np.zeros((len(FIELDS), len(chunks)), dtype=np.float64)
    for d, chunk in enumerate(chunks):
        fields = analysed[d] if analysed is not None else analyse_chunk(chunk, config)
        texts = anchors[d] if anchors is not None else ()
        linked = analyse_anchors(texts, config) if texts else no_anchors
        for f, (joined, counts, length) in enumerate((*fields, linked)):
            lengths[f, d] = length
            if not joined:
                continue
            terms = joined.split("\n")
            ids = np.fromiter((vocab.setdefault(t, len(vocab)) for t in terms), np.int64)
            term_ids.append(ids)
            tfs.append(np.frombuffer(counts, _COUNT).astype(np.float64))
            docs.append(np.full(len(terms), d, np.int64))
            field_of.append(np.full(len(terms), f, np.int8))
    n_docs = len(chunks)
    if not vocab:
        return LexicalIndex(
            b"",
            np.zeros(1, np.uint64),
            np.zeros(1, np.uint64),
            np.zeros(0, np.uint32),
            np.zeros(0, np.float16),
        )
    doc = np.concatenate(docs)
    tid = np.concatenate(term_ids)
    tf = np.concatenate(tfs)
    fld = np.concatenate(field_of)

    # BM25F: per-field length normalisation and weight, summed before saturation.
    weights = np.array(
        [
            params.heading_weight,
            params.body_weight,
            params.context_weight,
            params.page_weight,
            params.anchors_weight,
        ]
    )
    avg = np.maximum(lengths.mean(axis=1), 1e-9)
    norm = 1.0 - params.b + params.b * lengths / avg[:, None]
    pseudo = weights[fld] * tf / norm[fld, doc]

    # Sum the fields of each (term, doc) pair: sort by (term, doc) and reduce runs.
    key = tid * n_docs + doc
    order = np.argsort(key, kind="stable")
    key, pseudo = key[order], pseudo[order]
    starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    pseudo = np.add.reduceat(pseudo, starts)
    key = key[starts]
    tid, doc = key // n_docs, key % n_docs

    df = np.bincount(tid, minlength=len(vocab)).astype(np.float64)
    idf = np.log1p((n_docs - df + 0.5) / (df + 0.5))
    impact = idf[tid] * pseudo * (params.k1 + 1.0) / (params.k1 + pseudo)

    # Lay out postings by term in UTF-8 byte order, so readers can binary-search the dictionary.
    words = list(vocab)
    encoded = [w.encode() for w in words]
    rank_order = sorted(range(len(words)), key=encoded.__getitem__)
    rank = np.empty(len(words), np.int64)
    rank[rank_order] = np.arange(len(words))
    new_tid = rank[tid]
    order = np.lexsort((doc, new_tid))
    new_tid, doc, impact = new_tid[order], doc[order], impact[order]
    counts = np.bincount(new_tid, minlength=len(words))
    postings_offsets = np.zeros(len(words) + 1, np.uint64)
    np.cumsum(counts, out=postings_offsets[1:])
    sorted_terms = [encoded[i] for i in rank_order]
    term_offsets = np.zeros(len(words) + 1, np.uint64)
    np.cumsum([len(t) for t in sorted_terms], out=term_offsets[1:])
    return LexicalIndex(
        terms=b"".join(sorted_terms),
        term_offsets=term_offsets,
        postings_offsets=postings_offsets,
        postings_docs=doc.astype(np.uint32),
        postings_impacts=impact.astype(np.float16),
    )
