"""Build speed and memory (issue 14): the streaming index gives the same arrays whatever its
block size, and on a real corpus the bundle is byte-identical across worker counts and between
a rebuild from the parse cache and a clean build."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import EXAMPLE_DOCS, bundle_differences, corpus, run_docsmcp
from docsmcp.indexing.lexical import IndexBuilder, LexicalParams, analyse_chunk
from docsmcp.pipeline.collect import BuildOptions, collect

FIELDS = ("terms", "term_offsets", "postings_offsets", "postings_docs", "postings_impacts")


@pytest.mark.parametrize("block_entries", [1, 7, 100, 1 << 18])
def test_index_blocks_do_not_change_the_index(block_entries: int, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    shutil.copytree(EXAMPLE_DOCS, docs)
    (docs / "guides" / "links.md").write_text(
        "# Links\n\nSee [signing requests](authentication.md), [refunds in Python]"
        "(../python/payments.md) and [handling failures](errors.mdx).\n",
        encoding="utf-8",
    )
    collected = collect(BuildOptions(docs_dir=docs))
    options = BuildOptions(docs_dir=docs)
    # The anchors field joins each chunk's block at the end: it must land with the chunk's
    # other fields whatever the block boundaries.
    anchors = collected.tables.finish().xref.anchors
    assert sum(1 for texts in anchors if texts) >= 3
    indexes = []
    for size in (block_entries, 1 << 30):  # many spilled blocks, then one
        builder = IndexBuilder(block_entries=size)
        for chunk in collected.chunks:
            builder.add(analyse_chunk(chunk, options.analyzer))
        indexes.append(builder.finish(LexicalParams(), anchors, options.analyzer))
    many, one = indexes
    assert len(one.postings_docs) > 100
    without = IndexBuilder()
    for chunk in collected.chunks:
        without.add(analyse_chunk(chunk, options.analyzer))
    assert not np.array_equal(
        without.finish(LexicalParams()).postings_impacts, one.postings_impacts
    )
    for name in FIELDS:
        a, b = getattr(many, name), getattr(one, name)
        assert a == b if isinstance(a, bytes) else np.array_equal(a, b) and a.dtype == b.dtype


@pytest.mark.corpus
def test_speakeasy_same_bytes_across_workers_and_rebuilds(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    shutil.copytree(corpus("speakeasy-sdks"), docs)
    docs.chmod(0o755)
    for path in docs.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)

    def build(out: str, *extra: str) -> Path:
        run_docsmcp("build", "--docs-dir", docs, "--out", tmp_path / out, "-q", *extra)
        return tmp_path / out

    assert (
        bundle_differences(
            build("one", "--workers", "1", "--no-cache"), build("two", "--workers", "2")
        )
        == []
    )
    page = docs / "dub-python" / "README.md"
    page.write_text(page.read_text() + "\n## Rebuilt\n\nA paragraph with `links.rebuilt`.\n")
    assert bundle_differences(build("two", "--workers", "2"), build("clean", "--no-cache")) == []


@pytest.mark.corpus
def test_the_streamed_chunk_table_has_the_same_bytes(tmp_path: Path) -> None:
    """A build writes the chunk table file by file as chunks come (write.ChunkTableWriter, row
    groups cut every ROW_GROUP_SIZE rows across files); the bytes are those of one
    `write_table` of the whole table with the bundle's settings. Fails if a row group were cut
    at a file boundary or a position/count were counted per row group."""
    import io

    import pyarrow.parquet as pq
    from docsmcp.bundle.write import CHUNK_WRITE_SETTINGS, chunk_rows, chunk_table
    from docsmcp_runtime.format import ROW_GROUP_SIZE

    chunks = collect(BuildOptions(docs_dir=corpus("yellow-docs"))).chunks
    assert len(chunks) > 2 * ROW_GROUP_SIZE and len({c.path for c in chunks}) > 10
    whole = io.BytesIO()
    pq.write_table(
        chunk_table(chunks), whole, row_group_size=ROW_GROUP_SIZE, **CHUNK_WRITE_SETTINGS
    )
    rows = chunk_rows(chunks, tmp_path)
    assert list(tmp_path.iterdir()) == []  # the file has no name
    with rows.file:
        assert rows.count == len(chunks)
        assert list(rows.metadata) == [c.metadata for c in chunks]
        rows.file.seek(0)
        assert rows.file.read() == whole.getvalue()


# Kills the build at the start of the index phase (fault injection into our own code: the
# chunk table is written by then, the bundle not yet begun).
_KILLED_AT_INDEX = """
import os, signal, sys
from docsmcp.indexing import lexical as index
from docsmcp.cli import main

def killed(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGKILL)

index.IndexBuilder.finish = killed
sys.exit(main())
"""


@pytest.mark.slow  # kills a build process
def test_a_killed_build_leaves_no_temporary_file(tmp_path: Path) -> None:
    """The build's temporary files (chunk table, index blocks, reference spill, parse-cache
    additions) have no name: a build killed midway leaves nothing in $TMPDIR, and no bundle."""
    temp, out, cache = tmp_path / "temp", tmp_path / "idx", tmp_path / "cache"
    temp.mkdir()
    argv = ["build", "--docs-dir", str(EXAMPLE_DOCS), "--out", str(out), "--cache-dir", str(cache)]
    proc = subprocess.run(
        [sys.executable, "-c", _KILLED_AT_INDEX, *argv, "-q"],
        env={**os.environ, "TMPDIR": str(temp)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    assert list(temp.iterdir()) == []
    assert not out.exists()
    # The parse cache was saved before the index began: only that file, no temporary one.
    assert [p.name.startswith(".") for p in (cache / "parsed").iterdir()] == [False]
    run_docsmcp(*argv, "-q")  # the next build is unaffected
    assert (out / "metadata.json").is_file()


_WORDS = ["z", "é", "a", "😀", "\uffff", "ab", "b", "éa", "zz", "0", "Ω", "a b", "é z", "~"]


@pytest.mark.parametrize("block_entries", [1, 5, 1 << 18])
@pytest.mark.parametrize("parts", [1, 3, 8, 300])
def test_the_dictionary_is_in_utf8_byte_order_whatever_the_blocks(
    block_entries: int, parts: int
) -> None:
    """Each block's terms are listed apart and merged at the end a range of first bytes at a
    time: the dictionary is every distinct term once, in UTF-8 byte order (1-4 byte
    characters), and each term's postings are its chunks, ascending, whatever the number of
    blocks and of merge ranges."""
    from docsmcp.indexing.lexical import FIELDS, _counted

    rng = np.random.default_rng(7)
    chunks = []
    for _ in range(60):
        fields = [
            [str(w) for w in rng.choice(_WORDS, int(rng.integers(0, 6)))] for _ in FIELDS[:-1]
        ]
        chunks.append(fields)
    builder = IndexBuilder(block_entries=block_entries, dictionary_parts=parts)
    for fields in chunks:
        builder.add(tuple(_counted(terms) for terms in fields))
    index = builder.finish(LexicalParams())
    distinct = sorted({t for fields in chunks for terms in fields for t in terms})
    encoded = [t.encode() for t in distinct]
    assert encoded == sorted(encoded)  # (code point order is byte order)
    assert index.terms == b"".join(encoded)
    ends = np.cumsum([len(t) for t in encoded])
    assert index.term_offsets.tolist() == [0, *ends.tolist()]
    for k, term in enumerate(distinct):
        docs = index.postings_docs[index.postings_offsets[k] : index.postings_offsets[k + 1]]
        expected = [d for d, fields in enumerate(chunks) if any(term in f for f in fields)]
        assert docs.tolist() == expected, term
