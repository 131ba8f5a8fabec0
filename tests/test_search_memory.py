"""What a search holds in memory (issue 14, serving a million chunks): per-chunk work arrays
leased from a pool (`workspace.py`), large mappings given back after each search
(`workspace.release`), and the rows of a page of hits read on two threads (`Bundle.prefetch`),
each with its own chunk-table reader. Real bundles of the example corpus; the "large" paths are
taken with `open_bundle(lazy=0)` and a release threshold of 0 bytes.
"""

from __future__ import annotations

import re
import threading
from pathlib import Path

import numpy as np
import pytest
from conftest import build_bundle, without_display_store
from docsmcp_runtime.bundle.reader import open_bundle
from docsmcp_runtime.format import ROW_GROUP_SIZE
from docsmcp_runtime.search import vectors, workspace
from docsmcp_runtime.search.vectors import VectorIndex, vectors_file
from docsmcp_runtime.search.workspace import Workspace, WorkspacePool, large_mappings, release
from docsmcp_runtime.tools.app import DocsApp

QUERIES = ["create payment", "retry", "authentication error", "refund", "client", "webhook",
           "list customers", "pagination", "python", "timeout"]  # fmt: skip


WORDS = ["payment", "retry", "authentication", "error", "refund", "client", "webhook",
         "customers", "pagination", "python", "timeout", "create", "list"]  # fmt: skip


@pytest.fixture(scope="module")
def many_rows(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Generated docs of ~900 chunks (several row groups of the chunk table), with vectors:
    a page of hits then spans row groups, as at a million chunks."""
    docs = tmp_path_factory.mktemp("many") / "docs"
    docs.mkdir()
    for f in range(30):
        sections = []
        for s in range(30):
            words = " ".join(WORDS[(f * 7 + s * k) % len(WORDS)] for k in range(1, 9))
            sections.append(f"## Section {f}-{s} {WORDS[(f + s) % len(WORDS)]}\n\n{words}.\n")
        (docs / f"page{f:02d}.md").write_text(f"# Page {f}\n\n" + "\n".join(sections))
    return build_bundle(docs, docs.parent / "idx", "--embedding-provider", "hash")


def _page(app: DocsApp, query: str, **filters: str) -> list:
    result = app.call_tool("search_docs", {"query": query, "limit": 10, **filters})
    return result["structuredContent"]["hits"]


@pytest.mark.parametrize("store", ["display", "tables"])
def test_concurrent_searches_answer_as_one_at_a_time(
    many_rows: Path, tmp_path: Path, store: str
) -> None:
    """Six threads searching at once get exactly the single-threaded answers: workspaces are
    never shared by two searches, nor the display store's cache, nor (a bundle without a store,
    each page prefetching its row groups on the bundle's two reader threads) a chunk-table
    reader by two threads."""
    path = many_rows if store == "display" else without_display_store(many_rows, tmp_path / "t")
    alone = DocsApp(open_bundle(path, lazy=0))
    assert alone.bundle.n_chunks > 3 * ROW_GROUP_SIZE
    want = {q: _page(alone, q) for q in QUERIES}
    assert any(want.values())
    bundle = open_bundle(path, lazy=0)
    app = DocsApp(bundle)
    got: dict[str, list] = {}
    failures: list[BaseException] = []

    def run(offset: int) -> None:
        try:
            for _ in range(3):
                for q in QUERIES[offset::2] + QUERIES[: offset + 1]:
                    page = _page(app, q)
                    assert page == want[q]
                    got[q] = page
                if bundle.display is not None:  # every round inflates its blocks again
                    bundle.display.clear()
                bundle._groups.clear()  # every round reads (and prefetches) its rows again
                bundle._group_sizes.clear()
                bundle._group_bytes = 0
        except BaseException as exc:  # noqa: BLE001 - reported below
            failures.append(exc)

    threads = [threading.Thread(target=run, args=(i % 2,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == [] and got
    if store == "tables":
        assert bundle._prefetcher is not None  # the pages read their row groups in parallel
    else:
        assert bundle.display is not None and bundle._parquet is None  # no table was read


def test_workspaces_are_reused_and_bounded() -> None:
    pool = WorkspacePool(5, keep_idle=1)
    with pool.lease() as a:
        a.array("x", np.float32)[:] = 7
    with pool.lease() as again:
        assert again is a  # one search after another: the same arrays
        assert again.zeros("x", np.float32).tolist() == [0.0] * 5
        with pool.lease() as other:  # a concurrent search gets its own
            assert other is not again
    assert len(pool._idle) == 1  # and only keep_idle stay for reuse
    work = Workspace(3)
    small = work.buffer("q8", 2, np.int8)
    big = work.buffer("q8", 10, np.int8)
    assert len(small) == 2 and len(big) == 10 and len(work.buffer("q8", 4, np.int8)) == 4


def _resident_kb(array: np.ndarray) -> int:
    """This process's resident kilobytes of the mapping holding `array`'s data
    (/proc/self/smaps). Only that mapping: a bundle another test opened may map the same
    file and keep its own pages."""
    address = array.__array_interface__["data"][0]
    total, inside = 0, False
    for line in Path("/proc/self/smaps").read_text().splitlines():
        span = re.match(r"^([0-9a-f]+)-([0-9a-f]+) ", line)
        if span:
            inside = int(span[1], 16) <= address < int(span[2], 16)
        elif inside and line.startswith("Rss:"):
            total += int(line.split()[1])
    return total


@pytest.mark.skipif(not Path("/proc/self/smaps").exists(), reason="needs Linux /proc")
def test_large_mappings_give_their_pages_back_after_a_search(
    example_bundle: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(workspace, "RELEASE_BYTES", 0)  # every mapping counts as large
    bundle = open_bundle(example_bundle)
    postings = bundle.arrays["postings_docs"]
    assert large_mappings(bundle.arrays, ("postings_docs",)) == [bundle.arrays["postings_docs"]]
    int(np.asarray(bundle.arrays["postings_docs"]).sum())  # touch every page
    assert _resident_kb(postings) > 0
    release(bundle.arrays["postings_docs"])
    assert _resident_kb(postings) == 0
    app = DocsApp(bundle)
    before = _page(app, "create payment")
    assert before and _resident_kb(postings) == 0  # the search released what it read
    assert _page(app, "create payment") == before  # and reads it again as it was


def test_vectors_of_a_large_matrix_are_read_not_mapped(
    many_rows: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rows asked in any order, repeated, come back as the mapped matrix holds them."""
    bundle = open_bundle(many_rows)
    spec = bundle.metadata.embedding
    assert spec is not None
    index = VectorIndex(bundle.arrays, spec, vectors_file(bundle))
    rows = np.random.default_rng(0).integers(0, bundle.n_chunks, 300)
    want = np.asarray(bundle.arrays["vectors"][rows], dtype=np.float32)
    monkeypatch.setattr(vectors, "RELEASE_BYTES", 0)  # every matrix counts as large
    matrix = bundle.arrays["vectors"]
    release(matrix)
    before = _resident_kb(matrix)
    got = index.vectors_of(rows)
    assert got.tobytes() == want.tobytes()
    assert _resident_kb(matrix) == before  # read with pread: nothing more of the file mapped
