"""Serving at scale: large files checked in the background, the chunk table read per row group,
and `--workers N` processes sharing one port and one bundle.

The "large" paths are taken on small real bundles by lowering the size above which a file counts
as large (`open_bundle(lazy=0)`, `DOCSMCP_VERIFY_LAZY_BYTES=0` for server processes), so every
file takes the path a million-chunk bundle takes. Servers are real child processes: stdio through
the official `mcp` SDK, HTTP through plain requests.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from conftest import TINY_DOCS, build_bundle, without_display_store
from docsmcp_runtime.bundle.integrity import LAZY_BYTES_ENV
from docsmcp_runtime.bundle.reader import open_bundle
from docsmcp_runtime.errors import BundleError
from docsmcp_runtime.format import bundle_id, sha256_file
from docsmcp_runtime.libraries.serving import serving_app
from mcp_client import McpSession, text_of

QUERIES = ["create payment", "retry", "authentication error", "refund", "client", "webhook"]


@pytest.fixture(scope="module")
def hash_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny corpus with vectors (deterministic `hash` provider): hybrid search too."""
    return build_bundle(TINY_DOCS, tmp_path_factory.mktemp("hash") / "idx",
                        "--embedding-provider", "hash")  # fmt: skip


def _copy(bundle: Path, tmp_path: Path) -> Path:
    out = tmp_path / "copy"
    shutil.copytree(bundle, out)
    return out


def _flip_byte(path: Path, at: int = 0) -> None:
    data = bytearray(path.read_bytes())
    data[at] ^= 0xFF
    path.write_bytes(bytes(data))


def _answers(bundle: Path, lazy: int | None) -> list:
    """Every search (with its hits' display fields and snippets) and get_doc of each first hit."""
    app = serving_app([open_bundle(bundle, lazy=lazy)])
    out = []
    for query in QUERIES:
        found = app.call_tool("search_docs", {"query": query, "limit": 10})
        out.append(found)
        hits = found["structuredContent"]["hits"]
        if hits:
            out.append(app.call_tool("get_doc", {"chunk_id": hits[0]["chunk_id"], "context": 1}))
    return out


@pytest.mark.parametrize("which", ["example", "hash"])
def test_large_file_paths_answer_exactly_as_small_ones(
    example_bundle: Path, hash_bundle: Path, which: str
) -> None:
    """Background checks and the per-row-group chunk table change nothing a client sees."""
    bundle = example_bundle if which == "example" else hash_bundle
    eager = _answers(bundle, lazy=None)
    lazy = _answers(bundle, lazy=0)
    assert any(a["structuredContent"]["hits"] for a in eager if "hits" in a["structuredContent"])
    assert lazy == eager


@pytest.mark.parametrize("store", ["display", "tables"])
def test_open_defers_large_files_and_reads_no_whole_column(
    example_bundle: Path, tmp_path: Path, store: str
) -> None:
    tables = store == "tables"
    path = without_display_store(example_bundle, tmp_path / "t") if tables else example_bundle
    bundle = open_bundle(path, lazy=0)
    assert bundle._columns == {}  # nothing of the chunk table read at open
    bundle.ready()
    assert bundle.integrity is None
    assert bundle.text(0) and bundle.id(1)
    assert bundle._columns == {}  # rows were read by row group (or record), not by column
    assert bundle.row_of(bundle.id(3)) == 3
    if tables:  # a whole column only when a tool needs one
        assert set(bundle._columns) == {"id"}
    else:  # the ids come from the display store: no table is even opened
        assert bundle._columns == {} and bundle._parquet is None


def test_a_corrupt_large_file_is_refused_at_first_use(example_bundle: Path, tmp_path: Path) -> None:
    """Opening succeeds (the check runs in the background); every data access then fails with
    one line naming the file, and nothing from the bundle is served."""
    bundle_dir = _copy(example_bundle, tmp_path)
    _flip_byte(bundle_dir / "postings_impacts.bin", 5)
    with pytest.raises(BundleError, match="does not match"):
        open_bundle(bundle_dir)  # small files are still checked at open, as always
    bundle = open_bundle(bundle_dir, lazy=0)
    with pytest.raises(BundleError) as caught:
        bundle.ready()
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"{bundle_dir / 'postings_impacts.bin'}: sha256 ")
    assert message.endswith("does not match metadata.json (corrupt bundle)")
    assert bundle.integrity == message
    with pytest.raises(BundleError):
        bundle.text(0)
    app = serving_app([bundle])
    for name, args in (("search_docs", {"query": "payment"}), ("get_doc", {"chunk_id": "x#y"})):
        result = app.call_tool(name, args)
        assert result["isError"]
        assert result["content"][0]["text"] == f"The bundle is damaged: {message}"


def test_no_verify_still_scans_postings_rows_before_use(
    example_bundle: Path, tmp_path: Path
) -> None:
    """--no-verify skips hashes, not the bound check a search would trip over (a row number
    beyond the table, behind a recomputed checksum for good measure)."""
    bundle_dir = _copy(example_bundle, tmp_path)
    docs_path = bundle_dir / "postings_docs.bin"
    meta = json.loads((bundle_dir / "metadata.json").read_text())
    docs = np.fromfile(docs_path, dtype=meta["files"]["postings_docs.bin"]["dtype"])
    docs[-1] = np.iinfo(docs.dtype).max  # beyond the example's rows, in either width
    docs.tofile(docs_path)
    meta["files"]["postings_docs.bin"]["sha256"] = sha256_file(docs_path)
    meta["bundle_id"] = bundle_id({n: f["sha256"] for n, f in meta["files"].items()})
    (bundle_dir / "metadata.json").write_text(json.dumps(meta))
    for verify in (True, False):
        bundle = open_bundle(bundle_dir, verify=verify, lazy=0)
        with pytest.raises(BundleError, match=r"postings_docs.bin: 1 row number\(s\) >= n_chunks"):
            bundle.ready()


def test_stdio_server_starts_then_refuses_a_corrupt_large_file(
    example_bundle: Path, tmp_path: Path
) -> None:
    bundle_dir = _copy(example_bundle, tmp_path)
    _flip_byte(bundle_dir / "chunks.parquet", 100)
    with McpSession(bundle_dir, env={LAZY_BYTES_ENV: "0"}) as session:
        result = session.call("search_docs", {"query": "payment"})
        assert result.is_error
        text = text_of(result)
        assert text.startswith("The bundle is damaged: ") and "chunks.parquet: sha256" in text
        assert "\n" not in text


@pytest.mark.slow  # 2 server processes
def test_stdio_server_with_lazy_checks_serves_a_sound_bundle(hash_bundle: Path) -> None:
    with McpSession(hash_bundle, env={LAZY_BYTES_ENV: "0"}) as lazy:
        got = lazy.search(query="retry with backoff", limit=5)
    with McpSession(hash_bundle) as eager:
        want = eager.search(query="retry with backoff", limit=5)
    assert got == want and got["hits"]


# -- HTTP: /healthz and --workers ---------------------------------------------------------------


@pytest.mark.slow
def test_healthz_reports_a_failed_background_check(example_bundle: Path, tmp_path: Path) -> None:
    from test_http import call, post, search_msg, start

    bundle_dir = _copy(example_bundle, tmp_path)
    _flip_byte(bundle_dir / "terms.bin", 3)
    srv = start(bundle_dir, env={LAZY_BYTES_ENV: "0"})
    try:
        result = post(srv.port, search_msg("payment")).json()["result"]
        assert result["isError"] and "terms.bin: sha256" in result["content"][0]["text"]
        health = call(srv.port, "GET", "/healthz")
        assert health.status == 503
        doc = health.json()
        assert doc["status"] == "error" and "terms.bin: sha256" in doc["error"]
    finally:
        assert srv.stop() == 0


@pytest.mark.slow
def test_two_workers_share_the_port_and_accept_each_others_cursors(example_bundle: Path) -> None:
    from test_http import call, post, search_msg, start

    srv = start(example_bundle, "--workers", "2")
    try:
        started = srv.wait_for_log(lambda e: e.get("event") == "workers_started")
        workers = set(started["pids"])
        assert len(workers) == 2
        srv.wait_for_log(
            lambda _: sum(e.get("event") == "listening" for e in srv.logs()) == 2, timeout=30
        )

        def answered(message: dict) -> tuple[dict, int]:
            """The reply, and the worker that gave it (each request on a new connection)."""
            seen = sum(e.get("event") == "request" for e in srv.logs())
            reply = post(srv.port, message)
            assert reply.status == 200, reply.body
            srv.wait_for_log(lambda _: sum(e.get("event") == "request" for e in srv.logs()) > seen)
            requests = [e for e in srv.logs() if e.get("event") == "request"]
            line = requests[seen]
            return reply.json()["result"], line["worker"]

        first, by = answered(search_msg("payment", limit=1))
        cursor = first["structuredContent"]["next_cursor"]
        assert cursor and by in workers
        whole, _ = answered(search_msg("payment", limit=2))
        # Ask for page two until the other worker answers it: the kernel picks the worker.
        deadline = time.monotonic() + 30
        while True:
            second, other = answered(search_msg("payment", limit=1, cursor=cursor))
            assert not second.get("isError"), second
            assert second["structuredContent"]["hits"] == whole["structuredContent"]["hits"][1:]
            if other != by:
                break
            assert time.monotonic() < deadline, "every connection went to one worker"
        assert call(srv.port, "GET", "/healthz").status == 200
    finally:
        assert srv.stop() == 0
    stopped = [e for e in srv.logs() if e.get("event") == "stopped"]
    assert len(stopped) == 3 and stopped[-1]["workers"] == 2  # two workers, then the parent


@pytest.mark.slow
def test_workers_refuse_a_corrupt_bundle_before_serving(
    example_bundle: Path, tmp_path: Path
) -> None:
    """With --workers the background check completes before the fork: a damaged large file
    stops the server with one line, as a damaged small file always did."""
    bundle_dir = _copy(example_bundle, tmp_path)
    _flip_byte(bundle_dir / "postings_docs.bin", 1)
    done = subprocess.run(
        [sys.executable, "-m", "docsmcp_runtime", "--bundle", str(bundle_dir),
         "--transport", "http", "--port", "0", "--workers", "2"],
        capture_output=True, text=True, timeout=60,
        env={**os.environ, LAZY_BYTES_ENV: "0"},
    )  # fmt: skip
    assert done.returncode != 0
    last = done.stderr.strip().splitlines()[-1]
    assert "postings_docs.bin: sha256" in last and "Traceback" not in done.stderr


def test_a_large_chunk_table_is_checked_against_facets_before_use(
    example_bundle: Path, tmp_path: Path
) -> None:
    """A large chunk table is not opened at open: its row count comes from facets.bin, and the
    background check refuses a table that disagrees (behind valid checksums). With a display
    store no table is opened to search: its first use (get_doc's id lookup) refuses it."""
    import pyarrow.parquet as pq
    from docsmcp_runtime.format import CHUNK_COMPRESSION, ROW_GROUP_SIZE

    def one_row_short(source: Path) -> Path:
        table = pq.ParquetFile(source / "chunks.parquet").read()
        path = source / "chunks.parquet"
        pq.write_table(table.slice(0, table.num_rows - 1), path, compression=CHUNK_COMPRESSION,
                       row_group_size=ROW_GROUP_SIZE)  # fmt: skip
        meta = json.loads((source / "metadata.json").read_text())
        meta["files"]["chunks.parquet"] = {
            "bytes": path.stat().st_size,
            "sha256": sha256_file(path),
        }
        meta["bundle_id"] = bundle_id({n: f["sha256"] for n, f in meta["files"].items()})
        (source / "metadata.json").write_text(json.dumps(meta))
        return source

    rows = pq.ParquetFile(example_bundle / "chunks.parquet").metadata.num_rows
    want = f"chunks.parquet: {rows - 1} rows, facets.bin has {rows}"
    plain = one_row_short(without_display_store(example_bundle, tmp_path / "plain"))
    with pytest.raises(BundleError, match=r"n_chunks|facets\.bin"):
        open_bundle(plain)  # small: checked at open, as always
    bundle = open_bundle(plain, lazy=0)
    assert bundle.n_chunks == rows
    with pytest.raises(BundleError, match=want):
        bundle.ready()

    stored = one_row_short(_copy(example_bundle, tmp_path))
    for lazy in (None, 0):
        bundle = open_bundle(stored, lazy=lazy)
        assert bundle.n_chunks == rows and bundle.display is not None
        bundle.ready()
        assert bundle.shown(rows - 1).header["id"]  # searches answer from the store
        with pytest.raises(BundleError, match=want):
            bundle.column("path")  # the table's first use
