"""int8 vectors for IVF search (bundle-spec.md, *Quantised vectors*; format/quantise.py).

An IVF search with `vectors_q8.bin` scores its probed lists in int8 and rescores the best from
the float16 matrix, widening the short list until the int8 error bound rules every other row
out: its results must be the float16 search's, bit for bit. Checked on random matrices written
to real files (Hypothesis, bounded), on a real IVF build of the fixture corpus through
`Searcher`, and against damaged files (one line from the runtime and from `docsmcp verify`).
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from conftest import EXAMPLE_DOCS, build_bundle, run_docsmcp
from docsmcp_runtime.bundle.reader import open_bundle
from docsmcp_runtime.errors import BundleError
from docsmcp_runtime.format import ALL_ARRAYS, Q8_ARRAYS, VectorIndexSpec, bundle_id, sha256_file
from docsmcp_runtime.format.quantise import error_bound, q8_problem, quantise
from docsmcp_runtime.search.embedding import HashEmbedder
from docsmcp_runtime.search.engine import Searcher
from docsmcp_runtime.search.vectors import VectorIndex, vectors_file
from hypothesis import given, settings
from hypothesis import strategies as st

Q8_FILE = ALL_ARRAYS["vectors_q8"].file
SCALE_FILE = ALL_ARRAYS["vectors_q8_scale"].file
QUERIES = ["create widget", "retry with backoff", "session keys", "delete", "pagination token"]


def _unit_rows(rng: np.random.Generator, n: int, dims: int, clusters: int) -> np.ndarray:
    """float16 rows around a few centres (near-duplicates make close scores and ties)."""
    centres = rng.standard_normal((clusters, dims))
    v = centres[rng.integers(0, clusters, n)] + 0.3 * rng.standard_normal((n, dims))
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    return v.astype(np.float16)


@settings(max_examples=60, derandomize=True, database=None, deadline=None)
@given(
    n=st.integers(1, 300),
    dims=st.sampled_from([1, 3, 16, 64]),
    seed=st.integers(0, 2**16),
)
def test_int8_scores_stay_within_the_error_bound(n: int, dims: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    vectors = _unit_rows(rng, n, dims, 3)
    vectors[rng.random(vectors.shape) < 0.05] = 0  # zero columns get step 1, never 0
    q8, scale = quantise(vectors)
    assert q8.dtype == np.int8 and scale.dtype == np.float32 and np.all(scale > 0)
    assert q8_problem(vectors, q8, scale) is None
    query = rng.standard_normal(dims).astype(np.float32)
    query /= max(float(np.linalg.norm(query)), 1e-6)
    exact = np.einsum("ij,j->i", vectors.astype(np.float32), query)
    approx = np.einsum("ij,j->i", q8.astype(np.float32), query * scale)
    assert float(np.max(np.abs(exact - approx))) <= error_bound(query, scale)


def _ivf_files(
    folder: Path, vectors: np.ndarray, lists: int, rng: np.random.Generator
) -> dict[str, np.ndarray]:
    """A real IVF layout on disk: rows grouped by a random list, q8 files beside vectors.bin."""
    n = len(vectors)
    labels = rng.integers(0, lists, n)
    order = np.lexsort((np.arange(n), labels))
    stored = vectors[order]
    offsets = np.zeros(lists + 1, dtype=np.uint64)
    np.cumsum(np.bincount(labels, minlength=lists), out=offsets[1:])
    centroids = rng.standard_normal((lists, vectors.shape[1])).astype(np.float32)
    q8, scale = quantise(stored)
    arrays = {
        "vectors": stored,
        "vector_rows": order.astype(np.uint32),
        "ivf_centroids": centroids,
        "ivf_offsets": offsets,
        "vectors_q8": q8,
        "vectors_q8_scale": scale,
    }
    for name, array in arrays.items():
        array.astype(ALL_ARRAYS[name].dtype).tofile(folder / ALL_ARRAYS[name].file)
    return arrays


@pytest.fixture(scope="module")
def hash_ivf_spec(tmp_path_factory: pytest.TempPathFactory):
    """A real embedding section (hash provider) to give IVF settings to."""
    bundle = build_bundle(EXAMPLE_DOCS, tmp_path_factory.mktemp("hash") / "idx",
                          "--embedding-provider", "hash")  # fmt: skip
    spec = open_bundle(bundle).metadata.embedding
    assert spec is not None
    return spec


@settings(max_examples=25, derandomize=True, database=None, deadline=None)
@given(
    n=st.integers(1, 400),
    lists=st.integers(1, 12),
    top=st.integers(1, 60),
    floor=st.sampled_from([-1.0, 0.0, 0.2, 0.5]),
    seed=st.integers(0, 2**16),
)
def test_int8_ivf_search_equals_the_float16_search(
    hash_ivf_spec, tmp_path_factory, n: int, lists: int, top: int, floor: float, seed: int
) -> None:
    rng = np.random.default_rng(seed)
    folder = tmp_path_factory.mktemp("q8")
    dims = 16
    arrays = _ivf_files(folder, _unit_rows(rng, n, dims, 4), lists, rng)
    spec = dataclasses.replace(
        hash_ivf_spec, dimensions=dims, index=VectorIndexSpec("ivf", lists, 1)
    )
    source = folder / ALL_ARRAYS["vectors"].file
    plain = {k: v for k, v in arrays.items() if k not in Q8_ARRAYS}
    int8, half = VectorIndex(arrays, spec, source), VectorIndex(plain, spec, source)
    assert int8.q8_source is not None and half.q8_source is None
    mask = rng.random(n) < 0.8
    for probe, factor in itertools.product(sorted({1, max(1, lists // 2), lists}), (0, 2)):
        # factor 0: one row rescored first, so the bound has to widen the short list.
        int8.probe = half.probe = probe
        int8.rescore_factor = factor
        for _ in range(3):
            query = rng.standard_normal(dims).astype(np.float32)
            query /= np.linalg.norm(query)
            got, want = int8.search(query, mask, floor, top), half.search(query, mask, floor, top)
            assert got[0].tolist() == want[0].tolist()
            assert got[1].tobytes() == want[1].tobytes()


# -- a real IVF build -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def ivf_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_bundle(EXAMPLE_DOCS, tmp_path_factory.mktemp("ivf") / "idx",
                        "--embedding-provider", "hash", "--ivf-threshold", "1")  # fmt: skip


def _write_meta(bundle: Path, meta: dict) -> None:
    """metadata.json with its bundle_id recomputed (as a builder would write it)."""
    meta["bundle_id"] = bundle_id({n: f["sha256"] for n, f in meta["files"].items()})
    (bundle / "metadata.json").write_text(json.dumps(meta, indent=2))


def _without_q8(bundle: Path, target: Path) -> Path:
    """The same bundle as an older builder wrote it: no int8 files."""
    shutil.copytree(bundle, target)
    meta = json.loads((target / "metadata.json").read_text())
    for name in (Q8_FILE, SCALE_FILE):
        (target / name).unlink()
        del meta["files"][name]
    _write_meta(target, meta)
    return target


def _pages(bundle: Path, probe: int | None = None) -> list:
    opened = open_bundle(bundle)
    spec = opened.metadata.embedding
    assert spec is not None
    searcher = Searcher(opened, HashEmbedder(spec.dimensions))
    assert searcher.vectors is not None
    if probe is not None:
        searcher.vectors.probe = probe
    out = []
    for query in QUERIES:
        for filters in ({}, {"language": "python"}):
            filters = {k: v for k, v in filters.items() if k in opened.metadata.taxonomy}
            page = searcher.search(query, filters, 0, 20)
            out.append((page.rows, page.scores, page.total, page.also_in))
    return out


@pytest.mark.slow  # k-means needs scikit-learn, a second and a half to import
def test_ivf_build_writes_int8_vectors_and_ranks_exactly_as_before(
    ivf_bundle: Path, tmp_path: Path
) -> None:
    meta = json.loads((ivf_bundle / "metadata.json").read_text())
    dims = meta["embedding"]["dimensions"]
    assert meta["files"][Q8_FILE]["shape"] == [meta["stats"]["chunks"], dims]
    assert meta["files"][SCALE_FILE]["shape"] == [dims]
    assert run_docsmcp("verify", ivf_bundle).returncode == 0
    older = _without_q8(ivf_bundle, tmp_path / "older")
    assert open_bundle(older).arrays.get("vectors_q8") is None
    lists = meta["embedding"]["index"]["lists"]
    for probe in (None, 1, lists):
        assert _pages(ivf_bundle, probe) == _pages(older, probe)
    opened = open_bundle(ivf_bundle)
    searcher = Searcher(opened, HashEmbedder(dims))
    assert searcher.vectors is not None and searcher.vectors.q8_source == (
        vectors_file(opened).with_name(Q8_FILE)  # type: ignore[union-attr]
    )


# -- damaged files ----------------------------------------------------------------------------


def _resign(bundle: Path, **shapes: list[int]) -> None:
    meta = json.loads((bundle / "metadata.json").read_text())
    for name in (Q8_FILE, SCALE_FILE):
        if name in meta["files"]:
            entry = meta["files"][name]
            entry["bytes"] = (bundle / name).stat().st_size
            entry["sha256"] = sha256_file(bundle / name)
    for name, shape in shapes.items():
        meta["files"][name]["shape"] = shape
    _write_meta(bundle, meta)


def _damage_scale(value: float):
    def apply(bundle: Path) -> None:
        scale = np.fromfile(bundle / SCALE_FILE, dtype="<f4")
        scale[0] = value
        scale.tofile(bundle / SCALE_FILE)
        _resign(bundle)

    return apply


def _drop_scale(bundle: Path) -> None:
    meta = json.loads((bundle / "metadata.json").read_text())
    del meta["files"][SCALE_FILE]
    (bundle / SCALE_FILE).unlink()
    _write_meta(bundle, meta)


def _short_q8(bundle: Path) -> None:
    meta = json.loads((bundle / "metadata.json").read_text())
    n, dims = meta["files"][Q8_FILE]["shape"]
    data = np.fromfile(bundle / Q8_FILE, dtype=np.int8)[: (n - 1) * dims]
    data.tofile(bundle / Q8_FILE)
    _resign(bundle, **{Q8_FILE: [n - 1, dims]})


DAMAGE = {
    "scale nan": (_damage_scale(float("nan")), f"{SCALE_FILE}: steps must be finite and > 0"),
    "scale zero": (_damage_scale(0.0), f"{SCALE_FILE}: steps must be finite and > 0"),
    "scale negative": (_damage_scale(-1.0), f"{SCALE_FILE}: steps must be finite and > 0"),
    "scale missing": (_drop_scale, f"lists {Q8_FILE} without {SCALE_FILE}"),
    "q8 short": (_short_q8, f"{Q8_FILE}: shape"),
}


@pytest.mark.slow  # the IVF build (scikit-learn)
@pytest.mark.parametrize("name", sorted(DAMAGE))
def test_damaged_int8_vectors_are_refused_in_one_line(
    ivf_bundle: Path, tmp_path: Path, name: str
) -> None:
    damage, message = DAMAGE[name]
    bundle = Path(shutil.copytree(ivf_bundle, tmp_path / "idx"))
    damage(bundle)
    with pytest.raises(BundleError) as exc:
        open_bundle(bundle)
    assert message in str(exc.value) and "\n" not in str(exc.value)
    verify = run_docsmcp("verify", bundle, check=False)
    assert verify.returncode != 0 and message in verify.stdout + verify.stderr


@pytest.mark.slow  # the IVF build (scikit-learn)
def test_int8_values_off_the_float16_rows_fail_verify(ivf_bundle: Path, tmp_path: Path) -> None:
    """The runtime trusts the bound; `docsmcp verify` checks it (a deep check)."""
    bundle = Path(shutil.copytree(ivf_bundle, tmp_path / "idx"))
    q8 = np.fromfile(bundle / Q8_FILE, dtype=np.int8)
    q8[:5] = np.where(q8[:5] > 0, -100, 100)
    q8.tofile(bundle / Q8_FILE)
    _resign(bundle)
    open_bundle(bundle)  # sizes, shapes and steps are fine
    verify = run_docsmcp("verify", bundle, check=False)
    assert verify.returncode != 0
    assert f"{Q8_FILE}: " in verify.stdout + verify.stderr
    assert "further than half a step from vectors.bin" in verify.stdout + verify.stderr
