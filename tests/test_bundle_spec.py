"""The bundle as bundle-spec.md describes it: a reader written from the spec alone (numpy,
pyarrow, hashlib; nothing from docsmcp_runtime) must find what the runtime finds."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import jsonschema
import numpy as np
import pyarrow.parquet as pq
import pytest
from conftest import EXAMPLE_DOCS, REPO, build_bundle, corpus, run_docsmcp
from docsmcp_runtime.analyzer import AnalyzerConfig, analyze
from docsmcp_runtime.bundle import open_bundle
from docsmcp_runtime.tools import DocsApp

SPEC_FILES = {
    "metadata.json",
    "chunks.parquet",
    "terms.bin",
    "term_offsets.bin",
    "postings_offsets.bin",
    "postings_docs.bin",
    "postings_impacts.bin",
    "facets.bin",
}


class SpecReader:
    """Follows bundle-spec.md literally."""

    def __init__(self, root: Path) -> None:
        self.meta = json.loads((root / "metadata.json").read_text(encoding="utf-8"))
        assert self.meta["format"] == "docsmcp-bundle" and self.meta["format_version"] == 1
        digest = hashlib.sha256()
        for name in sorted(self.meta["files"]):
            info = self.meta["files"][name]
            data = (root / name).read_bytes()
            assert len(data) == info["bytes"], name
            assert hashlib.sha256(data).hexdigest() == info["sha256"], name
            digest.update(f"{name}\0{info['sha256']}\n".encode())
        assert self.meta["bundle_id"] == digest.hexdigest()[:32]
        self.arr = {}
        for name, info in self.meta["files"].items():
            if name.endswith(".bin"):
                a = np.fromfile(root / name, dtype=np.dtype(info["dtype"]))
                self.arr[name[:-4]] = a.reshape(info["shape"])
        self.rows = pq.read_table(root / "chunks.parquet").to_pylist()

    def term(self, i: int) -> bytes:
        off = self.arr["term_offsets"]
        return self.arr["terms"][off[i] : off[i + 1]].tobytes()

    def lookup(self, term: str) -> int | None:
        key, lo, hi = term.encode(), 0, len(self.arr["term_offsets"]) - 1
        while lo < hi:
            mid = (lo + hi) // 2
            if self.term(mid) < key:
                lo = mid + 1
            else:
                hi = mid
        return lo if lo < len(self.arr["term_offsets"]) - 1 and self.term(lo) == key else None

    def scores(self, query: str) -> np.ndarray:
        a = analyze(
            query, AnalyzerConfig(self.meta["analyzer"]["stem"], self.meta["analyzer"]["stopwords"])
        )
        sums = []
        for terms in (a.terms, a.bigrams):
            total = np.zeros(len(self.rows), np.float32)
            for t in dict.fromkeys(terms):
                i = self.lookup(t)
                if i is not None:
                    s, e = self.arr["postings_offsets"][i : i + 2]
                    total[self.arr["postings_docs"][s:e]] += self.arr["postings_impacts"][s:e]
            sums.append(total)
        return sums[0] + sums[1] * np.float32(self.meta["lexical"]["phrase_weight"])


@pytest.fixture(scope="module")
def reader(yellow_bundle: Path) -> SpecReader:
    return SpecReader(yellow_bundle)


def test_bundle_holds_exactly_the_spec_files(yellow_bundle: Path) -> None:
    assert {p.name for p in yellow_bundle.iterdir()} == SPEC_FILES


def test_metadata_matches_its_json_schema(yellow_bundle: Path, example_bundle: Path) -> None:
    schema = json.loads((REPO / "schemas" / "bundle-metadata.schema.json").read_text())
    for bundle in (yellow_bundle, example_bundle):
        jsonschema.validate(json.loads((bundle / "metadata.json").read_text()), schema)


def test_chunk_table_columns_order_and_invariants(reader: SpecReader) -> None:
    rows = reader.rows
    assert list(rows[0]) == [
        "id", "path", "heading", "breadcrumb", "level", "position", "file_chunk_count",
        "line_start", "line_end", "metadata", "text",
    ]  # fmt: skip
    assert len({r["id"] for r in rows}) == len(rows)
    assert [(r["path"].encode(), r["position"]) for r in rows] == sorted(
        (r["path"].encode(), r["position"]) for r in rows
    )
    for i, r in enumerate(rows):
        first = rows[i - r["position"]]
        assert first["path"] == r["path"] and first["position"] == 0
        assert 0 <= r["position"] < r["file_chunk_count"]
        assert r["breadcrumb"].startswith(r["path"])
        assert 1 <= r["line_start"] <= r["line_end"]
        assert json.loads(r["metadata"]) == dict(sorted(json.loads(r["metadata"]).items()))
    assert reader.meta["stats"]["chunks"] == len(rows)


def test_dictionary_is_sorted_and_postings_ascending(reader: SpecReader) -> None:
    n = len(reader.arr["term_offsets"]) - 1
    terms = [reader.term(i) for i in range(n)]
    assert terms == sorted(terms) and len(set(terms)) == n
    assert all(b" " not in t or t.count(b" ") == 1 for t in terms)
    off = reader.arr["postings_offsets"]
    docs = reader.arr["postings_docs"]
    for i in range(0, n, 97):
        assert np.all(np.diff(docs[off[i] : off[i + 1]].astype(np.int64)) > 0)
    assert int(docs.max()) < len(reader.rows)


def test_facets_encode_metadata(reader: SpecReader) -> None:
    keys = list(reader.meta["taxonomy"])
    assert keys == sorted(keys) == ["section", "version"]
    for r, row in enumerate(reader.rows):
        meta = json.loads(row["metadata"])
        for k, key in enumerate(keys):
            code = int(reader.arr["facets"][r, k])
            values = reader.meta["taxonomy"][key]["values"]
            assert (values[code - 1] if code else None) == meta.get(key)


@pytest.mark.parametrize(
    "query", ["withHandshakeTimeout", "session keys", "challenge period", "app session quorum"]
)
def test_spec_reader_ranks_like_the_runtime(
    reader: SpecReader, yellow_bundle: Path, query: str
) -> None:
    scores = reader.scores(query)
    matched = np.flatnonzero(scores > 0)
    expected = [reader.rows[i]["id"] for i in sorted(matched, key=lambda i: (-scores[i], i))[:10]]
    app = DocsApp(open_bundle(yellow_bundle))
    hits = app.call_tool("search_docs", {"query": query, "limit": 10})["structuredContent"]["hits"]
    assert [h["chunk_id"] for h in hits] == expected


def test_build_is_deterministic(tmp_path: Path) -> None:
    a = build_bundle(corpus("yellow-docs"), tmp_path / "a")
    b = build_bundle(corpus("yellow-docs"), tmp_path / "b")
    for name in SPEC_FILES:
        assert (a / name).read_bytes() == (b / name).read_bytes(), name


def test_failed_build_leaves_previous_bundle_untouched(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    shutil.copytree(EXAMPLE_DOCS, docs)
    out = build_bundle(docs, tmp_path / "idx")
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    (docs / ".docs-mcp.json").write_text('{"version": "1", "strategy": {"chunk_by": "h9"}}')
    proc = run_docsmcp("build", "--docs-dir", docs, "--out", out, check=False)
    assert proc.returncode == 1
    assert "left untouched" in proc.stderr and "Traceback" not in proc.stderr
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["docs", "idx"]  # no temp leftovers


def test_build_refuses_to_replace_a_foreign_directory(tmp_path: Path) -> None:
    out = tmp_path / "precious"
    out.mkdir()
    (out / "notes.txt").write_text("keep me")
    proc = run_docsmcp("build", "--docs-dir", EXAMPLE_DOCS, "--out", out, check=False)
    assert proc.returncode == 2
    assert "not a docsmcp bundle" in proc.stderr
    assert (out / "notes.txt").read_text() == "keep me"


def test_rebuild_replaces_an_existing_bundle(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    shutil.copytree(EXAMPLE_DOCS, docs)
    out = build_bundle(docs, tmp_path / "idx")
    old_id = json.loads((out / "metadata.json").read_text())["bundle_id"]
    (docs / "python" / "extra.md").write_text("# Extra\n\n## Webhooks\n\nVerify signatures.\n")
    build_bundle(docs, out)
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["bundle_id"] != old_id
    assert "python/extra.md#extra/webhooks" in [
        r["id"] for r in pq.read_table(out / "chunks.parquet").to_pylist()
    ]
