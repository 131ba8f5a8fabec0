"""Serving hits from the display store (bundle-spec.md, *Display store*; issue 30).

What a user relies on: a search shows the same hits whether they come from the display store or
from the Parquet tables (an earlier builder's bundle has no store), a search never imports
pyarrow, and a damaged block is one clear line naming the file, never a traceback or a wrong hit.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import without_display_store
from docsmcp_runtime.bundle.reader import open_bundle
from docsmcp_runtime.errors import BundleError
from docsmcp_runtime.format import DISPLAY_ARRAYS, METADATA_FILE
from docsmcp_runtime.search.options import SearchOptions
from docsmcp_runtime.tools.app import DocsApp

DISPLAY_FILES = [spec.file for spec in DISPLAY_ARRAYS.values()]
QUERIES = ["refund", "create a payment", "payments.create", "customers", "list invoices"]


def _hits(bundle: Path, query: str) -> list[dict]:
    app = DocsApp(open_bundle(bundle), SearchOptions())
    result = app.call_tool("search_docs", {"query": query, "limit": 10})
    assert result["isError"] is False, result
    return result["structuredContent"]["hits"]


def test_the_builder_writes_a_display_store(example_bundle: Path) -> None:
    files = json.loads((example_bundle / METADATA_FILE).read_text(encoding="utf-8"))["files"]
    assert set(DISPLAY_FILES) <= set(files)
    assert open_bundle(example_bundle).display is not None


def test_hits_are_the_same_with_or_without_the_display_store(
    example_bundle: Path, tmp_path: Path
) -> None:
    plain = without_display_store(example_bundle, tmp_path / "plain")
    assert open_bundle(plain).display is None
    for query in QUERIES:
        with_store, without = _hits(example_bundle, query), _hits(plain, query)
        assert with_store, query
        assert with_store == without, query


def test_section_fields_are_the_same_with_or_without_the_display_store(
    rust_bundle: Path, tmp_path: Path
) -> None:
    """Section ids, rule ids and references (with their titles) come from the store's records."""
    plain = without_display_store(rust_bundle, tmp_path / "plain")
    for query in [
        "generic parameters",
        "trait objects",
        "r[items.fn.generics]",
        "lifetime elision",
    ]:
        with_store, without = _hits(rust_bundle, query), _hits(plain, query)
        assert with_store == without, query
    assert any("references" in h or "rule_ids" in h for h in _hits(rust_bundle, "trait objects"))


def test_a_search_does_not_import_pyarrow(example_bundle: Path) -> None:
    """pyarrow costs ~40 ms and ~35 MB; a search answers from the arrays and the store, and so
    does get_doc (its id lookup reads the ids from the store)."""
    code = (
        "import io, contextlib, sys\n"
        "from docsmcp_runtime.cli import main\n"
        "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out):\n"
        "    rc = main(['--bundle', sys.argv[1], 'search', 'refund'])\n"
        "searched = 'pyarrow' in sys.modules\n"
        "with contextlib.redirect_stdout(out):\n"
        "    rc2 = main(['--bundle', sys.argv[1], 'get', 'python/payments.md#payments/refund'])\n"
        "print(rc, rc2, searched, 'pyarrow' in sys.modules, 'payments/refund' in out.getvalue())\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, str(example_bundle)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["0", "0", "False", "False", "True"]


def _damage_block(bundle: Path, out: Path) -> Path:
    """A copy whose display store's first block is garbage (its sha256 left as it was, so only
    `--no-verify` opens it)."""
    shutil.copytree(bundle, out)
    path = out / DISPLAY_ARRAYS["display"].file
    data = bytearray(path.read_bytes())
    data[2:40] = b"\xff" * 38
    path.write_bytes(bytes(data))
    return out


def test_a_damaged_block_is_one_line_naming_the_file(example_bundle: Path, tmp_path: Path) -> None:
    damaged = _damage_block(example_bundle, tmp_path / "damaged")
    with pytest.raises(BundleError, match="sha256"):
        open_bundle(damaged)
    bundle = open_bundle(damaged, verify=False)
    with pytest.raises(BundleError, match=r"display\.bin: block 0 does not decompress"):
        bundle.shown(0)
    app = DocsApp(bundle, SearchOptions())
    result = app.call_tool("search_docs", {"query": "refund", "limit": 50})
    text = result["content"][0]["text"]
    assert result["isError"] is True
    assert "display.bin" in text and "Traceback" not in text and "\n" not in text.strip()


def test_chunk_ids_come_from_the_store_as_the_table_has_them(
    rust_bundle: Path, tmp_path: Path
) -> None:
    """get_doc's id lookups and the version copies read every id from the store (one pass over
    its blocks, no pyarrow): the same ids, in row order, as the chunk table holds."""
    import pyarrow.parquet as pq

    table = pq.read_table(rust_bundle / "chunks.parquet", columns=["id"]).column(0).to_pylist()
    bundle = open_bundle(rust_bundle)
    assert bundle.chunk_ids() == table
    assert bundle.chunk_ids(range(5, 40)) == table[5:40]
    plain = open_bundle(without_display_store(rust_bundle, tmp_path / "plain"))
    assert plain.chunk_ids() == table
    assert all(bundle.row_of(cid) == i for i, cid in enumerate(table))
    # Found in their page (rows are in path order): no lookup read every id.
    assert bundle._id_index is None
    assert bundle.row_of("no/such/page.md#nothing") is None
    metadata = pq.read_table(rust_bundle / "chunks.parquet", columns=["metadata"]).column(0)
    assert [bundle.cell(r, "metadata") for r in range(20)] == metadata.to_pylist()[:20]
