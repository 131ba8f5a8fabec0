"""Top-k selection, vector search and Reciprocal Rank Fusion against plain-Python references.

`selection.topk` is the one ranking primitive (full-text, vectors, fusion); `VectorIndex`
searches the stored float16 matrix exactly or by IVF lists; `Searcher` fuses the full-text,
proximity and vector lists with weights and `k` from the bundle. Bundles are real builds of the
tiny fixture corpus with the deterministic `hash` provider.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import TINY_DOCS, build_bundle
from docsmcp_runtime.bundle import open_bundle
from docsmcp_runtime.embedding import HashEmbedder
from docsmcp_runtime.format import FusionWeights
from docsmcp_runtime.lexical import query_terms, score
from docsmcp_runtime.search import FUSION_DEPTH, Searcher, SearchOptions
from docsmcp_runtime.selection import topk
from docsmcp_runtime.vectors import VectorIndex
from hypothesis import given, settings
from hypothesis import strategies as st

QUERIES = ["create widget", "retry with backoff", "session keys", "delete", "pagination token"]


def reference_topk(rows: list[int], values: list[float], k: int | None) -> list[tuple[int, float]]:
    ranked = sorted(zip(rows, values, strict=True), key=lambda rv: (-rv[1], rv[0]))
    return ranked if k is None else ranked[:k]


@settings(max_examples=300, derandomize=True, database=None, deadline=None)
@given(
    values=st.lists(st.sampled_from([0.0, 0.5, 1.0, 1.5, 2.0, -1.0]), max_size=40),
    k=st.one_of(st.none(), st.integers(0, 45)),
)
def test_topk_is_a_stable_sort_by_value_then_row(values: list[float], k: int | None) -> None:
    """Many ties on purpose: the row-order tie-break decides which equal values are kept."""
    rows = list(range(100, 100 + len(values)))[::-1]  # rows not in value order
    got_rows, got_values = topk(np.array(rows, dtype=np.int64), np.array(values), k)
    assert list(zip(got_rows.tolist(), got_values.tolist(), strict=True)) == reference_topk(
        rows, values, k
    )


@pytest.fixture(scope="module")
def hash_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_bundle(TINY_DOCS, tmp_path_factory.mktemp("hash") / "idx",
                        "--embedding-provider", "hash")  # fmt: skip


@pytest.fixture(scope="module")
def ivf_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same docs with every chunk in IVF lists (threshold 1)."""
    return build_bundle(TINY_DOCS, tmp_path_factory.mktemp("ivf") / "idx",
                        "--embedding-provider", "hash", "--ivf-threshold", "1")  # fmt: skip


def _brute_force(bundle_dir: Path, query: np.ndarray, floor: float) -> list[tuple[int, float]]:
    bundle = open_bundle(bundle_dir)
    vectors = np.asarray(bundle.arrays["vectors"], dtype=np.float32)
    rows = bundle.arrays.get("vector_rows")
    chunk_rows = range(len(vectors)) if rows is None else rows.tolist()
    sims = {int(r): float(vectors[i] @ query) for i, r in enumerate(chunk_rows)}
    kept = [(r, s) for r, s in sims.items() if s >= floor]
    return reference_topk([r for r, _ in kept], [s for _, s in kept], None)


@pytest.mark.parametrize("query", QUERIES)
def test_exact_vector_search_is_brute_force(hash_bundle: Path, query: str) -> None:
    bundle = open_bundle(hash_bundle)
    assert bundle.metadata.embedding is not None
    qvec = HashEmbedder(bundle.metadata.embedding.dimensions).embed(query)
    index = VectorIndex(bundle.arrays, bundle.metadata.embedding)
    mask = np.ones(bundle.n_chunks, dtype=bool)
    rows, sims = index.search(qvec, mask, 0.05, 10)
    expected = _brute_force(hash_bundle, qvec, 0.05)[:10]
    assert rows.tolist() == [r for r, _ in expected]
    np.testing.assert_allclose(sims, [s for _, s in expected], rtol=1e-5, atol=1e-6)
    # The mask removes rows before the cut, never after.
    mask[rows[:1]] = False
    masked, _ = index.search(qvec, mask, 0.05, 10)
    assert masked.tolist() == [r for r, _ in _brute_force(hash_bundle, qvec, 0.05)[1:11]]


@pytest.mark.slow  # k-means needs scikit-learn, a second and a half to import
@pytest.mark.parametrize("query", QUERIES)
def test_ivf_probing_every_list_equals_exact_search(
    hash_bundle: Path, ivf_bundle: Path, query: str
) -> None:
    exact, ivf = open_bundle(hash_bundle), open_bundle(ivf_bundle)
    assert ivf.metadata.embedding is not None and ivf.metadata.embedding.index.ivf
    qvec = HashEmbedder(ivf.metadata.embedding.dimensions).embed(query)
    mask = np.ones(exact.n_chunks, dtype=bool)
    exact_rows, _ = VectorIndex(exact.arrays, exact.metadata.embedding).search(qvec, mask, 0, 20)
    index = VectorIndex(ivf.arrays, ivf.metadata.embedding)
    index.probe = ivf.metadata.embedding.index.lists  # read every list: nothing approximated
    ivf_rows, _ = index.search(qvec, mask, 0, 20)
    assert ivf_rows.tolist() == exact_rows.tolist()
    # Stored vectors of chunk rows are found whatever the storage order.
    np.testing.assert_array_equal(
        index.vectors_of(np.arange(exact.n_chunks)),
        np.asarray(exact.arrays["vectors"], dtype=np.float32),
    )


def _reference_fusion(bundle_dir: Path, query: str, weights: dict[str, float]) -> dict[int, float]:
    """RRF as bundle-spec.md words it, from lists computed here."""
    bundle = open_bundle(bundle_dir)
    spec = bundle.metadata.embedding
    assert spec is not None
    from docsmcp_runtime.lexical import Lexicon

    terms, bigrams = query_terms(query, bundle.metadata.analyzer)
    lexicon = Lexicon(bundle.arrays)
    lexical = score(lexicon, bundle.n_chunks, terms)
    proximity = score(lexicon, bundle.n_chunks, bigrams)
    full = lexical + proximity * np.float32(bundle.metadata.lexical.phrase_weight)

    def ranked(values: np.ndarray) -> list[int]:
        rows = [r for r in range(len(values)) if values[r] > 0]
        return [r for r, _ in reference_topk(rows, [float(values[r]) for r in rows], FUSION_DEPTH)]

    qvec = HashEmbedder(spec.dimensions).embed(query)
    vector = [r for r, _ in _brute_force(bundle_dir, qvec, spec.similarity_floor)][:FUSION_DEPTH]
    fused: dict[int, float] = {}
    for name, rows in (("lexical", ranked(full)), ("proximity", ranked(proximity)),
                       ("vector", vector)):  # fmt: skip
        for rank, row in enumerate(rows, start=1):
            if weights[name]:
                fused[row] = fused.get(row, 0.0) + weights[name] / (spec.fusion.k + rank)
    return fused


@pytest.mark.parametrize("query", QUERIES)
@pytest.mark.parametrize(
    "override",
    [
        FusionWeights(lexical=1.0),
        FusionWeights(proximity=0.5, vector=1.0),
        FusionWeights(lexical=0.0),
    ],
    ids=["bundle", "all-lists", "vector-only"],
)
def test_fusion_is_weighted_rrf(hash_bundle: Path, query: str, override: FusionWeights) -> None:
    """Any --fusion-weights given: the weighted RRF of bundle-spec.md, for every query class."""
    bundle = open_bundle(hash_bundle)
    spec = bundle.metadata.embedding
    assert spec is not None
    searcher = Searcher(bundle, HashEmbedder(spec.dimensions), SearchOptions(fusion=override))
    weights = {
        "lexical": spec.fusion.lexical, "proximity": spec.fusion.proximity,
        "vector": spec.fusion.vector, **override.given(),
    }  # fmt: skip
    expected = _reference_fusion(hash_bundle, query, weights)
    qvec = HashEmbedder(spec.dimensions).embed(query)
    terms, bigrams = query_terms(query, bundle.metadata.analyzer)
    lexical = score(searcher.lexicon, bundle.n_chunks, terms)
    proximity = score(searcher.lexicon, bundle.n_chunks, bigrams)
    mask = np.ones(bundle.n_chunks, dtype=bool)
    rows, scores = searcher._fuse(lexical, proximity, qvec, mask)
    want = reference_topk(list(expected), list(expected.values()), None)
    assert rows.tolist() == [r for r, _ in want]
    np.testing.assert_allclose(scores, [s for _, s in want], rtol=1e-12)
