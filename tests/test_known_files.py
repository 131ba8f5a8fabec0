"""Files unchanged since the last build are not read (known_files.py, issue 14 "incremental"):
the rebuild still gives the bytes of a clean build whatever changed in between: a file edited
with its size and mtime put back, files deleted and renamed, a manifest edited; files written
moments before a build ("racy") are read again next time."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

from conftest import EXAMPLE_DOCS, bundle_differences, run_docsmcp
from docsmcp.pipeline.known_files import RACY_NS

MARKDOWN = 6  # the example's markdown files (CHANGELOG.md is excluded by its manifest)
# Of which errors.mdx has `:::` admonitions, which could be include directives (`::: module`,
# read from other files): such a file is read on every build.
PLAIN = MARKDOWN - 1


def _build(docs: Path, out: Path, *extra: str) -> dict:
    proc = run_docsmcp("build", "--docs-dir", docs, "--out", out, "--json", *extra)
    return json.loads(proc.stdout)


def _clean(docs: Path, tmp_path: Path) -> Path:
    out = tmp_path / "clean"
    shutil.rmtree(out, ignore_errors=True)
    _build(docs, out, "--no-cache")
    return out


def _settled(tmp_path: Path) -> tuple[Path, Path]:
    """A copy of the example docs old enough not to be racy, built twice: the second build
    records every file, so the next one reads none that is unchanged."""
    docs = tmp_path / "docs"
    shutil.copytree(EXAMPLE_DOCS, docs)
    out = tmp_path / "idx"
    _build(docs, out)
    # Files copied moments ago are racy: read again by the next build, which records them.
    time.sleep(RACY_NS / 1e9 + 0.2)
    _build(docs, out)
    again = _build(docs, out)
    assert again["unread_files"] == PLAIN and again["cached_files"] == MARKDOWN
    return docs, out


def test_a_file_edited_with_its_size_and_mtime_put_back_is_read(tmp_path: Path) -> None:
    docs, out = _settled(tmp_path)
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    page = docs / "python" / "payments.md"
    st = page.stat()
    text = page.read_text(encoding="utf-8")
    edited = text.replace("payment", "PAYMENT", 1)
    assert edited != text and len(edited.encode()) == len(text.encode())
    page.write_text(edited, encoding="utf-8")
    os.utime(page, ns=(st.st_atime_ns, st.st_mtime_ns))  # size and mtime as they were
    assert page.stat().st_size == st.st_size and page.stat().st_mtime_ns == st.st_mtime_ns
    rebuilt = _build(docs, out)
    assert rebuilt["unread_files"] == PLAIN - 1  # ctime told: the page was read
    assert not bundle_differences(out, _clean(docs, tmp_path))
    assert {p.name: p.read_bytes() for p in out.iterdir()} != before  # the edit is in


def test_deleted_and_renamed_files(tmp_path: Path) -> None:
    docs, out = _settled(tmp_path)
    (docs / "guides" / "authentication.md").unlink()
    (docs / "typescript" / "payments.md").rename(docs / "typescript" / "charges.md")
    rebuilt = _build(docs, out)
    assert rebuilt["files"] == MARKDOWN - 1
    assert rebuilt["unread_files"] == PLAIN - 2  # the renamed file is read under its name
    assert not bundle_differences(out, _clean(docs, tmp_path))


def test_an_edited_manifest_rereads_the_files_it_governs(tmp_path: Path) -> None:
    docs, out = _settled(tmp_path)
    manifest = docs / ".docs-mcp.json"
    config = json.loads(manifest.read_text(encoding="utf-8"))
    config["overrides"][1]["metadata"]["language"] = "py"
    manifest.write_text(json.dumps(config), encoding="utf-8")
    rebuilt = _build(docs, out)
    assert rebuilt["unread_files"] == 0  # every file is governed by the root manifest
    assert not bundle_differences(out, _clean(docs, tmp_path))
    meta = json.loads((out / "metadata.json").read_text(encoding="utf-8"))
    assert "py" in meta["taxonomy"]["language"]["values"]


def test_a_racy_file_is_read_on_every_build(tmp_path: Path) -> None:
    """A file whose timestamps are too recent to tell a later write apart (here: in the future,
    so whatever the machine's load) is never recorded."""
    docs, out = _settled(tmp_path)
    page = docs / "python" / "payments.md"
    future = time.time_ns() + 3600 * 10**9
    os.utime(page, ns=(future, future))
    for _ in range(2):
        assert _build(docs, out)["unread_files"] == PLAIN - 1
    assert not bundle_differences(out, _clean(docs, tmp_path))


def test_no_cache_reads_every_file(tmp_path: Path) -> None:
    docs, out = _settled(tmp_path)
    assert _build(docs, out, "--no-cache")["unread_files"] == 0


def _plant_undecodable_entries(out: Path) -> int:
    """Every file's parse-cache record replaced by one whose CRC-32 is right but whose
    content does not load (damage no checksum sees: found only when the entry is loaded, in
    the middle of the build). Returns how many were replaced."""
    import struct
    import zlib

    from conftest import TEST_CACHE
    from docsmcp.common.cache import output_key
    from docsmcp.pipeline.known_files import RECORD
    from docsmcp.pipeline.parse_cache import _HEAD, MAGIC, _codec

    (cache_file,) = (TEST_CACHE / "parsed").glob(f"{output_key(out)}-*.marshal")
    data = cache_file.read_bytes()
    raw = b"\xffnot marshal"
    payload = _codec().compress(raw, asbytes=True)
    kept, at, planted = bytearray(MAGIC), len(MAGIC), 0
    while at < len(data):
        key, length, size, crc = _HEAD.unpack_from(data, at)
        body = data[at + _HEAD.size : at + _HEAD.size + length]
        at += _HEAD.size + length
        if key.hex() != RECORD:
            body, size, crc = payload, len(raw), zlib.crc32(payload)
            planted += 1
        kept += struct.pack(_HEAD.format, key, len(body), size, crc) + body
    cache_file.write_bytes(bytes(kept))
    return planted


def test_an_undecodable_entry_found_midway_is_parsed_again(tmp_path: Path) -> None:
    """Entries are loaded one at a time as the build reaches them: one that passes its CRC but
    does not load is found midway. An unread file's: the build starts over reading every file;
    a read file's: that file is parsed in place. Either way the bundle is a clean build's."""
    docs, out = _settled(tmp_path)
    assert _plant_undecodable_entries(out) == MARKDOWN
    rebuilt = _build(docs, out)
    assert rebuilt["unread_files"] == 0 and rebuilt["cached_files"] == 0
    assert not bundle_differences(out, _clean(docs, tmp_path))
    assert _build(docs, out)["cached_files"] == MARKDOWN  # the cache was written afresh
    for page in docs.rglob("*.md*"):  # every file read (its signature changed), every entry bad
        os.utime(page)
    assert _plant_undecodable_entries(out) == MARKDOWN
    rebuilt = _build(docs, out)
    assert rebuilt["unread_files"] == 0 and rebuilt["cached_files"] == 0
    assert not bundle_differences(out, _clean(docs, tmp_path))
    assert _build(docs, out)["cached_files"] == MARKDOWN


def test_a_damaged_entry_of_an_unread_file_means_every_file_is_read(tmp_path: Path) -> None:
    """The stat record says a file is unchanged, but its parse-cache entry cannot be loaded
    (its CRC fails): the build reads every file after all, and the bundle is still exact."""
    from conftest import TEST_CACHE
    from docsmcp.common.cache import output_key
    from docsmcp.pipeline.known_files import RECORD
    from docsmcp.pipeline.parse_cache import _HEAD, MAGIC

    docs, out = _settled(tmp_path)
    (cache_file,) = (TEST_CACHE / "parsed").glob(f"{output_key(out)}-*.marshal")
    data = bytearray(cache_file.read_bytes())
    at, damaged = len(MAGIC), 0
    while at < len(data):
        key, length, _, _ = _HEAD.unpack_from(data, at)
        at += _HEAD.size
        if key.hex() != RECORD:
            data[at + length // 2] ^= 0xFF  # one flipped byte in the middle of the payload
            damaged += 1
        at += length
    assert damaged == MARKDOWN
    cache_file.write_bytes(bytes(data))
    rebuilt = _build(docs, out)
    assert rebuilt["unread_files"] == 0 and rebuilt["cached_files"] == 0
    assert not bundle_differences(out, _clean(docs, tmp_path))
    assert _build(docs, out)["cached_files"] == MARKDOWN  # the cache was written afresh
