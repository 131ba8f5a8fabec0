"""Top-k selection, vector search and Reciprocal Rank Fusion against plain-Python references.

`selection.topk` is the one ranking primitive (full-text, vectors, fusion); `VectorIndex`
searches the stored float16 matrix exactly or by IVF lists; `Searcher` fuses the full-text,
proximity and vector lists with weights and `k` from the bundle. Bundles are real builds of the
tiny fixture corpus with the deterministic `hash` provider.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import TINY_DOCS, build_bundle
from docsmcp_runtime.bundle.reader import open_bundle
from docsmcp_runtime.format import FusionWeights
from docsmcp_runtime.search.collapse import first_alike
from docsmcp_runtime.search.embedding import HashEmbedder
from docsmcp_runtime.search.engine import FUSION_DEPTH, Searcher
from docsmcp_runtime.search.fusion import CONVEX, FusionPolicy, convex
from docsmcp_runtime.search.half import widen
from docsmcp_runtime.search.intent import IDENTIFIER, QUERY_CLASSES, query_class
from docsmcp_runtime.search.lexical import query_terms, score
from docsmcp_runtime.search.options import SearchOptions
from docsmcp_runtime.search.selection import sorted_unique, topk
from docsmcp_runtime.search.vectors import (
    VectorIndex,
    _matvec,
    run_similarities,
    similarities,
    vectors_file,
)
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


@settings(max_examples=200, derandomize=True, database=None, deadline=None)
@given(
    values=st.lists(
        st.sampled_from([0.0, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0, -1.0]), min_size=64, max_size=900
    ),
    k=st.integers(1, 12),
)
def test_topk_of_many_candidates_cut_by_a_sample_first(values: list[float], k: int) -> None:
    """Enough candidates per place for topk's sampled cut (selection.SAMPLE_EVERY): it keeps
    the same rows as the stable sort, ties at the k-th value included."""
    rows = list(range(5000, 5000 + 3 * len(values), 3))[::-1]
    got_rows, got_values = topk(np.array(rows, dtype=np.int64), np.array(values), k)
    assert list(zip(got_rows.tolist(), got_values.tolist(), strict=True)) == reference_topk(
        rows, values, k
    )


@settings(max_examples=200, derandomize=True, database=None, deadline=None)
@given(st.lists(st.integers(0, 40), max_size=60))
def test_sorted_unique_is_numpys_unique(values: list[int]) -> None:
    array = np.array(values, dtype=np.int64)
    got = sorted_unique(array)
    assert got.dtype == np.int64 and got.tolist() == sorted(set(values))


@settings(max_examples=200, derandomize=True, database=None, deadline=None)
@given(
    st.integers(1, 3).flatmap(
        lambda c: st.lists(
            st.lists(st.integers(0, 4), min_size=c, max_size=c), min_size=1, max_size=40
        )
    )
)
def test_each_row_leads_to_the_first_row_equal_to_it(signature: list[list[int]]) -> None:
    """collapse's grouping: a row's leader is the first row (best ranked) with its signature."""
    array = np.array(signature, dtype=np.int64).reshape(len(signature), -1)
    want = [signature.index(row) for row in signature]
    assert first_alike(array).tolist() == want


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


@pytest.mark.parametrize("query", QUERIES)
@pytest.mark.parametrize("step", [1, 7, 64, 0], ids=["row", "odd", "64", "default"])
def test_blocked_float16_similarities_equal_one_float32_copy(
    hash_bundle: Path, query: str, step: int
) -> None:
    """Searching the float16 matrix a block at a time (no float32 copy of every vector) gives
    bit-identical similarities, hence rankings, to the float32 copy exact search used to keep;
    also for gathered rows (the IVF path), whatever the block size."""
    bundle = open_bundle(hash_bundle)
    assert bundle.metadata.embedding is not None
    qvec = np.asarray(HashEmbedder(bundle.metadata.embedding.dimensions).embed(query), np.float32)
    matrix = bundle.arrays["vectors"]
    dense = _matvec(np.asarray(matrix, dtype=np.float32), qvec)  # the whole matrix at once
    blocked = similarities(matrix, qvec, step=step)
    assert blocked.dtype == np.float32 and blocked.tobytes() == dense.tobytes()
    index = np.arange(len(matrix))[::-3]
    gathered = similarities(matrix, qvec, index, step=step)
    assert gathered.tobytes() == dense[index].tobytes()
    # The ranking a float32 copy gives: same rows, same order, same scores, whether the index
    # keeps such a copy (a small matrix, the default here) or converts blocks per query.
    mask = np.ones(bundle.n_chunks, dtype=bool)
    want_rows, want_sims = topk(np.flatnonzero(dense >= 0.0), dense[dense >= 0.0], 50)
    for dense_max in (0, 1 << 30):
        index_ = VectorIndex(bundle.arrays, bundle.metadata.embedding, dense_max_bytes=dense_max)
        rows, sims = index_.search(qvec, mask, 0.0, 50)
        assert rows.tolist() == want_rows.tolist() and sims.tobytes() == want_sims.tobytes()
        assert (index_._dense is None) == (dense_max == 0)


@settings(max_examples=40, derandomize=True, database=None, deadline=None)
@given(
    dims=st.sampled_from([1, 3, 64, 100, 256, 384, 1536]),
    n=st.integers(1, 300),
    seed=st.integers(0, 2**32 - 1),
)
def test_a_rows_similarity_does_not_depend_on_the_rows_around_it(
    dims: int, n: int, seed: int
) -> None:
    """The product every vector path uses (_matvec) gives a row the same bits alone, in a
    slice, among gathered rows and in the whole matrix: blocks, IVF lists and the float32 copy
    rank alike only because of it (BLAS gemv did not: a row's sum changed with its place)."""
    rng = np.random.default_rng(seed)
    matrix = rng.standard_normal((n, dims)).astype(np.float32)
    query = rng.standard_normal(dims).astype(np.float32)
    whole = _matvec(matrix, query)
    assert whole.dtype == np.float32 and whole.shape == (n,)
    a = int(rng.integers(0, n))
    b = int(rng.integers(a + 1, n + 1))
    assert _matvec(matrix[a:b], query).tobytes() == whole[a:b].tobytes()
    picked = rng.permutation(n)[: int(rng.integers(1, n + 1))]
    assert _matvec(matrix[picked], query).tobytes() == whole[picked].tobytes()
    assert _matvec(matrix[a : a + 1], query).tobytes() == whole[a : a + 1].tobytes()


@pytest.mark.parametrize("step", [1, 3, 0], ids=["row", "odd", "default"])
def test_rows_read_with_pread_equal_the_mapped_rows(hash_bundle: Path, step: int) -> None:
    """IVF lists are read from the file (pread), not the mapping: same bits, runs of any length
    across block boundaries, in the order given."""
    bundle = open_bundle(hash_bundle)
    assert bundle.metadata.embedding is not None
    qvec = np.asarray(HashEmbedder(bundle.metadata.embedding.dimensions).embed("retry"), np.float32)
    matrix = bundle.arrays["vectors"]
    n = len(matrix)
    half = max(4, n // 2)
    assert n > half + 1
    runs = [(0, 2), (2, 2), (3, half), (half + 1, n)]  # an empty run, a row skipped
    index = np.concatenate([np.arange(a, b) for a, b in runs])
    path = vectors_file(bundle)
    assert path is not None
    got = run_similarities(path, matrix.shape[1], runs, qvec, step)
    assert got.tobytes() == similarities(matrix, qvec, index).tobytes()


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
    ivf_rows, ivf_sims = index.search(qvec, mask, 0, 20)
    assert ivf_rows.tolist() == exact_rows.tolist()
    # Reading the lists with pread (as a Searcher does) gives the same bits as the mapping.
    read = VectorIndex(ivf.arrays, ivf.metadata.embedding, vectors_file(ivf))
    for probe in (1, index.probe):
        read.probe = index.probe = probe
        got, want = read.search(qvec, mask, 0, 20), index.search(qvec, mask, 0, 20)
        assert got[0].tolist() == want[0].tolist() and got[1].tobytes() == want[1].tobytes()
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
    from docsmcp_runtime.search.lexical import Lexicon

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


@settings(max_examples=200, derandomize=True, database=None, deadline=None)
@given(bits=st.lists(st.integers(0, 0xFFFF), min_size=1, max_size=64))
def test_widen_is_numpys_float16_cast_bit_for_bit(bits: list[int]) -> None:
    """Every float16 bit pattern (zeros, subnormals, normals, infinities, NaNs) widens to the
    float32 numpy's own cast gives, so blocked search ranks exactly as before."""
    half = np.array(bits, dtype=np.uint16).view(np.float16).reshape(1, -1)
    out = np.empty(half.shape, np.float32)
    got = widen(half, out, np.empty(half.shape, np.uint32))
    assert got.view(np.uint32).tolist() == half.astype(np.float32).view(np.uint32).tolist()


def test_widen_covers_every_finite_float16() -> None:
    half = np.arange(0x10000, dtype=np.uint32).astype(np.uint16).view(np.float16)
    finite = half[np.isfinite(half)].reshape(1, -1)
    out = np.empty(finite.shape, np.float32)
    got = widen(finite, out, np.empty(finite.shape, np.uint32))
    assert np.array_equal(got.view(np.uint32), finite.astype(np.float32).view(np.uint32))


IDENTIFIER_QUERIES = ["createWidget", "retry_policy", "client.create_widget", "pageToken page_size"]


@pytest.mark.parametrize("query", IDENTIFIER_QUERIES)
def test_identifier_queries_keep_the_full_text_order(hash_bundle: Path, query: str) -> None:
    """The default fusion gives identifier queries no vector share: whatever the vector list
    says, the hybrid ranking is the full-text ranking (so an exact match stays first)."""
    assert query_class(query) == IDENTIFIER
    bundle = open_bundle(hash_bundle)
    spec = bundle.metadata.embedding
    assert spec is not None
    hybrid = Searcher(bundle, HashEmbedder(spec.dimensions)).search(query, {}, 0, 20)
    full = Searcher(bundle).search(query, {}, 0, 20)  # no embedder: full text only
    # Hybrid search folds language variants into one hit (also_in); the rest is the same order.
    assert hybrid.rows and hybrid.rows[0] == full.rows[0]
    assert hybrid.rows == [r for r in full.rows if r in hybrid.rows]


def test_a_vector_share_does_reorder_these_queries(hash_bundle: Path) -> None:
    """The check above can fail: given a vector share, the same queries rank differently."""
    bundle = open_bundle(hash_bundle)
    spec = bundle.metadata.embedding
    assert spec is not None
    leaning = SearchOptions(policy=FusionPolicy(CONVEX, dict.fromkeys(QUERY_CLASSES, 0.45)))
    hybrid = Searcher(bundle, HashEmbedder(spec.dimensions), leaning)
    default = Searcher(bundle, HashEmbedder(spec.dimensions))
    assert any(
        hybrid.search(q, {}, 0, 20).rows != default.search(q, {}, 0, 20).rows
        for q in IDENTIFIER_QUERIES
    )


@pytest.mark.slow  # fuzz
@settings(max_examples=300, derandomize=True, database=None, deadline=None)
@given(
    full=st.dictionaries(st.integers(0, 49), st.floats(0.01, 50.0), min_size=1, max_size=30),
    vec=st.dictionaries(st.integers(0, 49), st.floats(-1.0, 1.0), max_size=30),
    alpha=st.floats(0.0, 0.49),
    floor=st.floats(-1.0, 0.9),
    agreement=st.sampled_from([0.0, 0.05]),
)
def test_convex_fusion_never_puts_a_vector_only_row_above_the_full_text_best(
    full: dict[int, float], vec: dict[int, float], alpha: float, floor: float, agreement: float
) -> None:
    """With α < 0.5 a row no full-text list holds can never outrank the full-text best, and at
    α = 0 the fused order is the full-text order."""
    vec = {r: s for r, s in vec.items() if s >= floor}
    full_rows, full_scores = topk(np.array(list(full)), np.array(list(full.values())), None)
    vec_rows, vec_sims = topk(
        np.array(list(vec), dtype=np.int64), np.array(list(vec.values())), None
    )
    fused = convex(50, full_rows, full_scores, vec_rows, vec_sims, alpha, floor, agreement)
    rows, _ = topk(np.flatnonzero(fused > 0), fused[fused > 0], None)
    best = int(full_rows[0])
    above = rows.tolist()[: rows.tolist().index(best)]
    assert all(r in full for r in above)
    zero = convex(50, full_rows, full_scores, vec_rows, vec_sims, 0.0, floor)
    zrows, _ = topk(np.flatnonzero(zero > 0), zero[zero > 0], None)
    assert zrows.tolist() == full_rows.tolist()


def _cli_search(bundle: Path, query: str, *options: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "docsmcp_runtime", "--bundle", str(bundle), *options,
         "search", query, "--limit", "20", "--json"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip


@pytest.mark.slow  # k-means needs scikit-learn, a second and a half to import
def test_ivf_probe_option_reads_more_lists(hash_bundle: Path, ivf_bundle: Path) -> None:
    """`--ivf-probe N` overrides the bundle's probe: with every list read (a number above the
    list count is clamped to it) the hybrid hits are the exact bundle's; 0 is one line."""
    meta = open_bundle(ivf_bundle).metadata.embedding
    assert meta is not None and meta.index.ivf and meta.index.probe < meta.index.lists
    searcher = Searcher(open_bundle(ivf_bundle), options=SearchOptions(ivf_probe=10**6))
    assert searcher.vectors is not None and searcher.vectors.probe == meta.index.lists
    default = Searcher(open_bundle(ivf_bundle))
    assert default.vectors is not None and default.vectors.probe == meta.index.probe
    for query in QUERIES:
        exact = _cli_search(hash_bundle, query)
        every = _cli_search(ivf_bundle, query, "--ivf-probe", str(meta.index.lists + 5))
        assert exact.returncode == every.returncode == 0, every.stderr
        ids = [[h["chunk_id"] for h in json.loads(r.stdout)["hits"]] for r in (exact, every)]
        assert ids[0] and ids[0] == ids[1]
    bad = _cli_search(ivf_bundle, "retry", "--ivf-probe", "0")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1
    assert "--ivf-probe: must be at least 1, got 0" in bad.stderr
