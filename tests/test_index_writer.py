"""The files `docsmcp build` writes for the tiny fixture corpus, read back with numpy, pyarrow and
hashlib only and checked against bundle-spec.md (*Files*, *metadata.json*, *chunks.parquet*,
*Full-text index*, *Facets*), plus byte-identical rebuilds."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import jsonschema
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import EXAMPLE_DOCS, REPO, TINY_DOCS, build_bundle, defined_names, page_fields
from docsmcp.bundle.write import stored_dtype
from docsmcp.indexing.lexical import LexicalParams, build_index
from docsmcp.pipeline.collect import BuildOptions, collect
from docsmcp_runtime.format import ARRAYS
from docsmcp_runtime.search.analyzer import AnalyzerConfig

ARRAY_FILES = {  # bundle-spec.md, Files: file -> dtype
    "terms.bin": "|u1",
    # *Narrow index arrays*: a bundle of at most 65,536 chunks stores these narrow.
    "term_offsets.bin": "<u4",
    "postings_offsets.bin": "<u4",
    "postings_docs.bin": "<u2",
    "postings_impacts.bin": "|u1",  # *Impact codes*: codes into impact_levels.bin
    "impact_levels.bin": "<f4",
    "stem_rings.bin": "<u4",  # *Stem variants*: (term id, next row) per word sharing a stem
    "facets.bin": "<u2",
    "display.bin": "|u1",  # *Display store*
    "display_offsets.bin": "<u8",
}
CHUNK_COLUMNS = [
    ("id", pa.string()),
    ("path", pa.string()),
    ("heading", pa.string()),
    ("breadcrumb", pa.string()),
    ("level", pa.int8()),
    ("position", pa.int32()),
    ("file_chunk_count", pa.int32()),
    ("line_start", pa.int32()),
    ("line_end", pa.int32()),
    ("metadata", pa.string()),
    ("text", pa.string()),
]


class TinyBundle:
    """The bundle's metadata, arrays and chunk table, read as a third-party reader would."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.meta = json.loads((root / "metadata.json").read_text(encoding="utf-8"))
        self.arrays = {}
        for name, dtype in ARRAY_FILES.items():
            info = self.meta["files"][name]
            data = np.fromfile(root / name, dtype=np.dtype(dtype))
            self.arrays[name] = data.reshape(info["shape"])
        self.table = pq.read_table(root / "chunks.parquet")

    def terms(self) -> list[bytes]:
        offsets = self.arrays["term_offsets.bin"].tolist()
        raw = self.arrays["terms.bin"].tobytes()
        return [raw[a:b] for a, b in zip(offsets, offsets[1:], strict=False)]


@pytest.fixture(scope="module")
def bundle(tiny_bundle: Path) -> TinyBundle:
    return TinyBundle(tiny_bundle)


@pytest.fixture(scope="module")
def chunks() -> list:
    collected = collect(BuildOptions(docs_dir=TINY_DOCS))
    assert collected.problems == []
    return collected.chunks


def test_manifest_of_the_fixture_corpus_is_valid() -> None:
    schema = json.loads((REPO / "schemas" / "docs-mcp.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    for docs in (TINY_DOCS, EXAMPLE_DOCS):
        jsonschema.validate(json.loads((docs / ".docs-mcp.json").read_text()), schema)


def test_exactly_the_spec_files_with_sizes_hashes_and_bundle_id(bundle: TinyBundle) -> None:
    meta = bundle.meta
    assert meta["format"] == "docsmcp-bundle" and meta["format_version"] == 1
    assert meta["embedding"] is None
    files = meta["files"]
    browse = {"pages.parquet", "sections.parquet", "api.parquet", "code.parquet"}
    assert set(files) == {*ARRAY_FILES, "chunks.parquet", *browse}
    assert {p.name for p in bundle.root.iterdir()} == {*files, "metadata.json"}
    assert list(files) == sorted(files)
    digest = hashlib.sha256()
    for name in sorted(files, key=str.encode):
        data = (bundle.root / name).read_bytes()
        assert files[name]["bytes"] == len(data), name
        assert files[name]["sha256"] == hashlib.sha256(data).hexdigest(), name
        digest.update(f"{name}\0{files[name]['sha256']}\n".encode())
    assert meta["bundle_id"] == digest.hexdigest()[:32]
    for name, dtype in ARRAY_FILES.items():
        assert files[name]["dtype"] == dtype, name
        shape = files[name]["shape"]
        assert files[name]["bytes"] == int(np.prod(shape)) * np.dtype(dtype).itemsize, name


def test_shapes_agree(bundle: TinyBundle) -> None:
    a, meta = bundle.arrays, bundle.meta
    n_terms = len(a["term_offsets.bin"]) - 1
    n_postings = len(a["postings_docs.bin"])
    assert len(a["postings_offsets.bin"]) == n_terms + 1
    assert int(a["term_offsets.bin"][-1]) == len(a["terms.bin"])
    assert int(a["postings_offsets.bin"][-1]) == n_postings == len(a["postings_impacts.bin"])
    assert a["facets.bin"].shape == (bundle.table.num_rows, len(meta["taxonomy"]))
    stats = meta["stats"]
    assert stats["chunks"] == bundle.table.num_rows == 13
    assert stats["files"] == 4  # NOTES.md is excluded by the manifest
    assert (stats["terms"], stats["postings"]) == (n_terms, n_postings)


def test_dictionary_sorted_by_bytes_and_postings_ascending(bundle: TinyBundle) -> None:
    terms = bundle.terms()
    assert all(a < b for a, b in zip(terms, terms[1:], strict=False))  # strictly, so unique
    for raw in terms:
        term = raw.decode("utf-8")  # valid UTF-8
        assert term and term == term.strip()
        # a space only in a bigram term: two terms joined by one space
        assert term.count(" ") <= 1 and "" not in term.split(" "), term
    assert any(" " in t.decode() for t in terms) and any(not t.isascii() for t in terms)
    for name in ("term_offsets.bin", "postings_offsets.bin"):
        offsets = bundle.arrays[name].astype(np.int64)
        assert offsets[0] == 0 and np.all(np.diff(offsets) > 0), name  # no empty term or list
    offsets = bundle.arrays["postings_offsets.bin"].tolist()
    docs = bundle.arrays["postings_docs.bin"].astype(np.int64)
    for t in range(len(terms)):
        rows = docs[offsets[t] : offsets[t + 1]]
        assert np.all(np.diff(rows) > 0), terms[t]
    assert int(docs.max()) < bundle.table.num_rows
    levels = bundle.arrays["impact_levels.bin"]
    assert levels.shape == (256,) and levels[0] == 0 and np.all(np.diff(levels) > 0)
    impacts = levels[bundle.arrays["postings_impacts.bin"]]
    assert np.all(np.isfinite(impacts)) and np.all(impacts > 0)


def test_arrays_are_the_index_of_the_collected_chunks(bundle: TinyBundle, chunks: list) -> None:
    anchors = defined_names(bundle.root, len(chunks))  # (the tiny corpus links nothing)
    assert any(anchors)
    index = build_index(
        chunks, AnalyzerConfig(), LexicalParams(), anchors=anchors, pages=page_fields(TINY_DOCS)
    )
    a = bundle.arrays
    assert a["terms.bin"].tobytes() == index.terms
    for name, array in (
        ("term_offsets.bin", index.term_offsets),
        ("postings_offsets.bin", index.postings_offsets),
        ("postings_docs.bin", index.postings_docs),
    ):
        # The same values (the file's dtype, narrow or not, is test_shapes_agree's).
        assert np.array_equal(a[name], array), name
    # Each impact as its code's level: the nearest on the square-root scale (test_impact_codes).
    stored = a["impact_levels.bin"][a["postings_impacts.bin"]].astype(np.float64)
    exact = index.postings_impacts.astype(np.float64)
    assert np.all(np.abs(np.sqrt(stored) - np.sqrt(exact)) <= np.sqrt(exact.max()) / 255 / 2 + 1e-6)
    assert bundle.table.column("id").to_pylist() == [c.id for c in chunks]


def test_chunk_table_schema_order_and_positions(bundle: TinyBundle) -> None:
    table = bundle.table
    assert [(f.name, f.type) for f in table.schema] == CHUNK_COLUMNS
    parquet = pq.ParquetFile(bundle.root / "chunks.parquet")
    assert parquet.metadata.row_group(0).column(0).compression == "ZSTD"
    assert all(parquet.metadata.row_group(i).num_rows <= 256 for i in range(parquet.num_row_groups))
    rows = table.to_pylist()
    keys = [(r["path"].encode(), r["position"]) for r in rows]
    assert keys == sorted(keys) and len(set(keys)) == len(keys)
    assert len({r["id"] for r in rows}) == len(rows)
    for i, r in enumerate(rows):
        first = rows[i - r["position"]]
        assert first["path"] == r["path"] and first["position"] == 0
        assert sum(x["path"] == r["path"] for x in rows) == r["file_chunk_count"]
        assert r["breadcrumb"].startswith(r["path"])
        assert 1 <= r["line_start"] <= r["line_end"]
        metadata = json.loads(r["metadata"])
        assert list(metadata) == sorted(metadata)
    mdx = [r for r in rows if r["path"] == "typescript/widgets.mdx"]
    assert [r["heading"] for r in mdx] == ["Widgets", "createWidget", "listWidgets"]


def test_taxonomy_and_facets(bundle: TinyBundle) -> None:
    taxonomy = bundle.meta["taxonomy"]
    assert list(taxonomy) == ["language", "role", "scope"]  # role: the built-in page role
    assert taxonomy["role"]["values"] == ["guide", "reference"]
    assert taxonomy["language"]["values"] == ["python", "typescript"]
    assert taxonomy["language"]["vector_collapse"] is True
    assert taxonomy["scope"]["values"] == ["global-guide", "sdk-specific"]
    assert taxonomy["scope"]["vector_collapse"] is False
    facets = bundle.arrays["facets.bin"]
    for row, text in enumerate(bundle.table.column("metadata").to_pylist()):
        metadata = json.loads(text)
        for col, (key, spec) in enumerate(taxonomy.items()):
            value = metadata.get(key)
            expected = 0 if value is None else 1 + spec["values"].index(value)
            assert facets[row, col] == expected, (row, key)


def test_build_is_byte_identical_twice(bundle: TinyBundle, tmp_path: Path) -> None:
    again = build_bundle(TINY_DOCS, tmp_path / "again")
    names = sorted(p.name for p in bundle.root.iterdir())
    assert names == sorted(p.name for p in again.iterdir())
    for name in names:
        assert (bundle.root / name).read_bytes() == (again / name).read_bytes(), name


def test_index_arrays_are_narrow_only_where_every_value_fits() -> None:
    """bundle-spec.md, *Narrow index arrays*: row numbers as uint16 up to 65,536 chunks, offsets
    as uint32 while the last one fits; past that the wide dtypes (a synthetic million-chunk
    bundle, bench/synth_bundle.py, is served wide)."""
    docs, offsets = ARRAYS["postings_docs"], ARRAYS["postings_offsets"]
    rows = np.zeros(3, np.uint32)
    assert stored_dtype(docs, rows, 65_536) == "<u2"
    assert stored_dtype(docs, rows, 65_537) == "<u4"
    assert stored_dtype(offsets, np.array([0, 2**32 - 1], np.uint64), 10) == "<u4"
    assert stored_dtype(offsets, np.array([0, 2**32], np.uint64), 10) == "<u8"
    assert stored_dtype(ARRAYS["postings_impacts"], np.zeros(2, np.float16), 10) == "<f2"
    assert stored_dtype(ARRAYS["postings_impacts"], np.zeros(2, np.uint8), 10) == "|u1"
