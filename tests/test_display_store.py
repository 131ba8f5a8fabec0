"""The display store (bundle-spec.md, *Display store*; issue 30): every bundle the builder writes
holds display.bin and display_offsets.bin (and from 1,024 rows the blocks' preset dictionary,
display_dictionary.bin), a reader written here from the spec alone (numpy, zlib and json)
decodes every record to exactly the chunk-table and sections rows pyarrow reads, the bytes do
not depend on the compression workers, and a damaged store is refused at open (offsets, the
dictionary's listing) or by `docsmcp verify` (records) in one line naming the file.

Bundles are real builds: the repo's example corpus, a generated corpus of 330 chunks (two row
groups, 21 blocks of 16 rows, the last one partial, with numbered headings, rule ids and links
so that every sections key occurs), the same shape at 1,050 chunks (with a dictionary), and the
Rust Reference (corpus tier).
"""

from __future__ import annotations

import json
import shutil
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.parquet as pq
import pytest
from conftest import build_bundle, run_docsmcp
from docsmcp.bundle.display import write_display
from docsmcp_runtime.bundle.reader import open_bundle
from docsmcp_runtime.errors import BundleError
from docsmcp_runtime.format import DISPLAY_BLOCK_ROWS, Inspection, bundle_id, sha256_file

ROWS_PER_BLOCK = 16  # bundle-spec.md, *Display store*
SECTION_KEYS = ("section_id", "rule_ids", "references", "summary")

# -- a reader written from bundle-spec.md alone ---------------------------------------------------


def spec_records(bundle: Path) -> list[tuple[bytes, dict[str, Any], str]]:
    """Every record of the bundle's display store, in row order: (header bytes, header, text)."""
    meta = json.loads((bundle / "metadata.json").read_text(encoding="utf-8"))
    files = meta["files"]
    preset = None
    if "display_dictionary.bin" in files:
        assert "display-dictionary" in meta["requires"]
        assert files["display_dictionary.bin"]["dtype"] == "|u1"
        preset = (bundle / "display_dictionary.bin").read_bytes()
        assert files["display_dictionary.bin"]["shape"] == [len(preset)]
        assert 1 <= len(preset) <= 32768
    n_chunks = files["facets.bin"]["shape"][0]
    entry = files["display_offsets.bin"]
    assert entry["dtype"] == "<u8" and files["display.bin"]["dtype"] == "|u1"
    offsets = np.fromfile(bundle / "display_offsets.bin", dtype="<u8")
    data = (bundle / "display.bin").read_bytes()
    assert list(offsets.shape) == entry["shape"] == [-(-n_chunks // ROWS_PER_BLOCK) + 1]
    assert files["display.bin"]["shape"] == [len(data)] and int(offsets[-1]) == len(data)
    return decode_store(data, offsets, n_chunks, preset)


def inflate(stream: bytes, preset: bytes | None) -> bytes:
    """One block: a zlib stream, deflated with the preset dictionary when the bundle has one."""
    inflater = zlib.decompressobj(zdict=preset) if preset else zlib.decompressobj()
    out = inflater.decompress(stream)
    assert inflater.eof and not inflater.unused_data
    return out


def decode_store(
    data: bytes, offsets: np.ndarray, n_chunks: int, preset: bytes | None = None
) -> list[tuple[bytes, dict[str, Any], str]]:
    out = []
    for k in range(len(offsets) - 1):
        m = min(n_chunks, ROWS_PER_BLOCK * (k + 1)) - ROWS_PER_BLOCK * k
        block = inflate(data[int(offsets[k]) : int(offsets[k + 1])], preset)
        bounds = np.frombuffer(block, dtype="<u4", count=m + 1).tolist()
        area = block[4 * (m + 1) :]
        assert bounds[0] == 0 and bounds[-1] == len(area) and bounds == sorted(bounds)
        for i in range(m):
            head, newline, text = area[bounds[i] : bounds[i + 1]].partition(b"\n")
            assert newline == b"\n"
            out.append((head, json.loads(head), text.decode("utf-8")))
    assert len(out) == n_chunks
    return out


def expected_records(chunks: Path, sections: Path | None) -> list[tuple[dict[str, Any], str]]:
    """Each row's header and text as bundle-spec.md derives them from the Parquet tables."""
    rows = pq.read_table(chunks).to_pylist()
    secs = pq.read_table(sections).to_pylist() if sections is not None else [{}] * len(rows)
    out = []
    for row, sec in zip(rows, secs, strict=True):
        text = row.pop("text")
        row["metadata"] = json.loads(row["metadata"])
        for key in ("section_id", "summary"):  # only when not null
            if sec.get(key) is not None:
                row[key] = sec[key]
        for key in ("rule_ids", "references"):  # only when non-empty
            if sec.get(key):
                row[key] = sec[key]
        out.append((row, text))
    return out


def canonical(obj: dict[str, Any]) -> bytes:
    return json.dumps(obj, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode()


def assert_store_matches(bundle: Path) -> list[dict[str, Any]]:
    got = spec_records(bundle)
    sections = bundle / "sections.parquet"
    want = expected_records(bundle / "chunks.parquet", sections if sections.exists() else None)
    assert len(got) == len(want)
    for row, ((raw, head, text), (w_head, w_text)) in enumerate(zip(got, want, strict=True)):
        assert (head, text) == (w_head, w_text), f"row {row}"
        assert raw == canonical(head), f"row {row}: header not in canonical form"
    return [head for _, head, _ in got]


# -- bundles --------------------------------------------------------------------------------------


def _many_docs(root: Path, pages: int = 22) -> Path:
    """15 chunks a page (330 for 22 pages): pages of 15 sections (14 numbered), each linking the
    next page, some with rule ids, and non-ASCII text."""
    docs = root / "docs"
    docs.mkdir()
    for p in range(pages):
        parts = [f"# Page {p} ünïcode\n\nIntro of page {p}.\n"]
        for s in range(1, 15):
            parts.append(f"## {p}.{s} Section {s} of page {p}\n")
            parts.append(f"Body {p}-{s}: see [the next page](page{(p + 1) % pages:02}.md).\n")
            if s % 5 == 0:
                parts.append(f"r[rule.p{p}.s{s}]\n\nA rule ✓ with a tab\tand text.\n")
        (docs / f"page{p:02}.md").write_text("\n".join(parts), encoding="utf-8")
    return docs


@pytest.fixture(scope="module")
def many_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("many")
    return build_bundle(_many_docs(root), root / "idx")


@pytest.fixture(scope="module")
def big_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """1,050 chunks: enough rows for a preset dictionary."""
    root = tmp_path_factory.mktemp("big")
    return build_bundle(_many_docs(root, pages=70), root / "idx")


# -- decoding -------------------------------------------------------------------------------------


def test_every_bundle_has_the_store_and_the_spec_reader_decodes_it(example_bundle: Path) -> None:
    heads = assert_store_matches(example_bundle)
    assert all(isinstance(h["metadata"], dict) for h in heads)  # the object, not its string
    assert (example_bundle / "display.bin").stat().st_size > 0


def test_a_corpus_with_sections_decodes_to_its_tables(many_bundle: Path) -> None:
    heads = assert_store_matches(many_bundle)
    assert len(heads) > 256 and len(heads) % ROWS_PER_BLOCK  # two row groups, a partial block
    for key in SECTION_KEYS:
        assert any(key in h for h in heads), key  # every optional key occurs somewhere
    assert any("section_id" not in h for h in heads)
    assert [str(p) for p in Inspection(many_bundle, deep=True).problems()] == []


def test_a_large_table_has_the_preset_dictionary_the_spec_describes(big_bundle: Path) -> None:
    """bundle-spec.md: the first 1,024 bytes of the records of rows floor(i * n / 32); every
    block needs it (inflating without it fails), and the bundle requires the feature."""
    assert_store_matches(big_bundle)
    n = pq.read_metadata(big_bundle / "chunks.parquet").num_rows
    assert n >= 1024
    sections = big_bundle / "sections.parquet"
    want = expected_records(big_bundle / "chunks.parquet", sections)
    rows = sorted({i * n // 32 for i in range(32)})
    records = [canonical(want[r][0]) + b"\n" + want[r][1].encode() for r in rows]
    preset = (big_bundle / "display_dictionary.bin").read_bytes()
    assert preset == b"".join(r[:1024] for r in records)
    data = (big_bundle / "display.bin").read_bytes()
    offsets = np.fromfile(big_bundle / "display_offsets.bin", dtype="<u8")
    with pytest.raises(zlib.error):
        zlib.decompress(data[int(offsets[0]) : int(offsets[1])])
    meta = json.loads((big_bundle / "metadata.json").read_text(encoding="utf-8"))
    assert "display-dictionary" in meta["requires"]
    assert [str(p) for p in Inspection(big_bundle, deep=True).problems()] == []


def test_a_small_table_has_no_dictionary(many_bundle: Path) -> None:
    """Below 1,024 rows the dictionary would cost more than it saves: none, and no feature."""
    assert not (many_bundle / "display_dictionary.bin").exists()
    meta = json.loads((many_bundle / "metadata.json").read_text(encoding="utf-8"))
    assert "display-dictionary" not in meta["requires"]


@pytest.mark.corpus
def test_the_rust_reference_decodes_to_its_tables(rust_bundle: Path) -> None:
    heads = assert_store_matches(rust_bundle)
    assert any("rule_ids" in h for h in heads) and any("references" in h for h in heads)


def test_a_bundle_without_sections_has_no_section_keys(
    example_bundle: Path, tmp_path: Path
) -> None:
    """write_bundle given no sections table (a library caller) still writes the store."""
    write_display(tmp_path, example_bundle / "chunks.parquet", None)
    n = pq.read_metadata(example_bundle / "chunks.parquet").num_rows
    offsets = np.fromfile(tmp_path / "display_offsets.bin", dtype="<u8")
    got = decode_store((tmp_path / "display.bin").read_bytes(), offsets, n)
    want = expected_records(example_bundle / "chunks.parquet", None)
    assert [(h, t) for _, h, t in got] == want


def test_an_empty_chunk_table_has_one_offset(example_bundle: Path, tmp_path: Path) -> None:
    empty = pq.read_table(example_bundle / "chunks.parquet").slice(0, 0)
    pq.write_table(empty, tmp_path / "chunks.parquet")
    assert write_display(tmp_path, tmp_path / "chunks.parquet", None) == {
        "display": 0,
        "display_offsets": 1,
    }
    assert np.fromfile(tmp_path / "display_offsets.bin", dtype="<u8").tolist() == [0]
    assert (tmp_path / "display.bin").read_bytes() == b""


# -- determinism ----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["many_bundle", "big_bundle"])
def test_the_bytes_do_not_depend_on_the_workers(
    request: pytest.FixtureRequest, name: str, tmp_path: Path
) -> None:
    bundle = request.getfixturevalue(name)
    sections = pq.read_table(bundle / "sections.parquet")
    files = ["display.bin", "display_offsets.bin", "display_dictionary.bin"]
    for workers in (1, 2, 4):
        out = tmp_path / str(workers)
        out.mkdir()
        write_display(out, bundle / "chunks.parquet", sections, workers=workers)
        for file in files:
            built, written = bundle / file, out / file
            assert built.exists() == written.exists(), (workers, file)
            if built.exists():
                assert written.read_bytes() == built.read_bytes(), (workers, file)


# -- damage ---------------------------------------------------------------------------------------


def _damaged(bundle: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "idx"
    shutil.copytree(bundle, copy)
    return copy


def _reseal(bundle: Path, drop: str | None = None) -> None:
    """Record the files' new sizes and sha256 (and drop one entry), as a careless tool would, so
    the damage passes the checksums and only the display checks can catch it."""
    meta = json.loads((bundle / "metadata.json").read_text(encoding="utf-8"))
    files = meta["files"]
    if drop is not None:
        del files[drop]
        (bundle / drop).unlink()
    for name in ("display.bin", "display_offsets.bin", "display_dictionary.bin"):
        if name in files:
            files[name]["bytes"] = (bundle / name).stat().st_size
            files[name]["sha256"] = sha256_file(bundle / name)
            files[name]["shape"] = [files[name]["bytes"] // (8 if "offsets" in name else 1)]
    meta["bundle_id"] = bundle_id({n: f["sha256"] for n, f in files.items()})
    (bundle / "metadata.json").write_text(json.dumps(meta, indent=2), encoding="utf-8")


def _refusal(bundle: Path) -> str:
    with pytest.raises(BundleError) as caught:
        open_bundle(bundle)
    message = str(caught.value)
    assert "\n" not in message
    return message.removeprefix(f"{bundle}/")


def _write_offsets(bundle: Path, offsets: list[int]) -> None:
    np.array(offsets, dtype="<u8").tofile(bundle / "display_offsets.bin")


@pytest.mark.parametrize("missing", ["display.bin", "display_offsets.bin"])
def test_half_a_pair_is_refused(example_bundle: Path, tmp_path: Path, missing: str) -> None:
    bundle = _damaged(example_bundle, tmp_path)
    _reseal(bundle, drop=missing)
    other = "display_offsets.bin" if missing == "display.bin" else "display.bin"
    assert _refusal(bundle) == f"metadata.json: lists {other} without {missing}"


def test_decreasing_offsets_are_refused(many_bundle: Path, tmp_path: Path) -> None:
    bundle = _damaged(many_bundle, tmp_path)
    offsets = np.fromfile(bundle / "display_offsets.bin", dtype="<u8").tolist()
    offsets[3] = offsets[5] + 1
    _write_offsets(bundle, offsets)
    _reseal(bundle)
    assert _refusal(bundle) == (
        "display_offsets.bin: offsets decrease at 1 place(s), first at entry 4"
    )


@pytest.mark.parametrize(
    "change, expected",
    [
        (
            lambda o: o[:-1],
            f"display_offsets.bin: {-(-330 // DISPLAY_BLOCK_ROWS)} offsets, expected "
            f"ceil(n_chunks / {DISPLAY_BLOCK_ROWS}) + 1 = {-(-330 // DISPLAY_BLOCK_ROWS) + 1}",
        ),
        (lambda o: [3, *o[1:]], "display_offsets.bin: first offset is 3, not 0"),
        (lambda o: [*o[:-1], o[-1] - 1], "display_offsets.bin: ends at {end}, display.bin has"),
    ],
    ids=["length", "first", "last"],
)
def test_offsets_that_do_not_cover_the_file_are_refused(
    many_bundle: Path, tmp_path: Path, change: Any, expected: str
) -> None:
    bundle = _damaged(many_bundle, tmp_path)
    offsets = change(np.fromfile(bundle / "display_offsets.bin", dtype="<u8").tolist())
    _write_offsets(bundle, offsets)
    _reseal(bundle)
    message = _refusal(bundle)
    assert message.startswith(expected.format(end=offsets[-1])), message
    assert message in [str(p) for p in Inspection(bundle, deep=True).problems()]


def test_verify_names_the_first_record_that_differs(many_bundle: Path, tmp_path: Path) -> None:
    """A record changed behind valid offsets and checksums: the runtime opens the bundle (it
    decodes blocks only when a hit needs them), `verify` names the row and what differs."""
    bundle = _damaged(many_bundle, tmp_path)
    data = (bundle / "display.bin").read_bytes()
    offsets = np.fromfile(bundle / "display_offsets.bin", dtype="<u8").tolist()
    k, i = 2, 7  # row 2 * ROWS_PER_BLOCK + 7
    block = zlib.decompress(data[offsets[k] : offsets[k + 1]])
    bounds = np.frombuffer(block, dtype="<u4", count=ROWS_PER_BLOCK + 1).copy()
    area = block[4 * (ROWS_PER_BLOCK + 1) :]
    record = area[bounds[i] : bounds[i + 1]]
    changed = record.replace(b'"level":2', b'"level":3', 1)
    assert changed != record
    area = area[: bounds[i]] + changed + area[bounds[i + 1] :]
    new_block = zlib.compress(bounds.tobytes() + area, 6)
    data = data[: offsets[k]] + new_block + data[offsets[k + 1] :]
    shift = len(new_block) - (offsets[k + 1] - offsets[k])
    offsets = offsets[: k + 1] + [o + shift for o in offsets[k + 1 :]]
    (bundle / "display.bin").write_bytes(data)
    _write_offsets(bundle, offsets)
    _reseal(bundle)
    open_bundle(bundle)
    problems = [str(p) for p in Inspection(bundle, deep=True).problems()]
    row = k * ROWS_PER_BLOCK + i
    assert problems == [f"display.bin: row {row} differs from the chunk table (key 'level')"]
    proc = run_docsmcp("verify", bundle, check=False)
    assert proc.returncode != 0 and problems[0] in proc.stdout + proc.stderr


def test_verify_names_a_block_that_does_not_inflate(many_bundle: Path, tmp_path: Path) -> None:
    bundle = _damaged(many_bundle, tmp_path)
    data = bytearray((bundle / "display.bin").read_bytes())
    offsets = np.fromfile(bundle / "display_offsets.bin", dtype="<u8").tolist()
    data[offsets[4] : offsets[4] + 8] = b"\xff" * 8
    (bundle / "display.bin").write_bytes(bytes(data))
    _reseal(bundle)
    problems = [str(p) for p in Inspection(bundle, deep=True).problems()]
    assert len(problems) == 1 and problems[0].startswith(
        f"display.bin: block 4 (rows {4 * ROWS_PER_BLOCK}..{5 * ROWS_PER_BLOCK - 1}) is "
        "unreadable: "
    ), problems


# -- the preset dictionary ------------------------------------------------------------------------


def _edit_metadata(bundle: Path, change: Any) -> None:
    meta = json.loads((bundle / "metadata.json").read_text(encoding="utf-8"))
    change(meta)
    meta["bundle_id"] = bundle_id({n: f["sha256"] for n, f in meta["files"].items()})
    (bundle / "metadata.json").write_text(json.dumps(meta, indent=2), encoding="utf-8")


def test_a_dictionary_the_bundle_does_not_require_is_refused(
    big_bundle: Path, tmp_path: Path
) -> None:
    """A reader must not inflate blocks with a dictionary an older reader would not know of:
    the listing without `display-dictionary` in requires is refused at open, in one line."""
    bundle = _damaged(big_bundle, tmp_path)
    _edit_metadata(bundle, lambda m: m["requires"].remove("display-dictionary"))
    message = _refusal(bundle)
    assert "display_dictionary.bin" in message and "display-dictionary" in message, message


def test_a_dictionary_without_the_store_is_refused(big_bundle: Path, tmp_path: Path) -> None:
    bundle = _damaged(big_bundle, tmp_path)
    for name in ("display.bin", "display_offsets.bin"):
        _reseal(bundle, drop=name)
    assert (
        _refusal(bundle) == "metadata.json: lists display_dictionary.bin without the display store"
    )


@pytest.mark.parametrize(
    "size, expected",
    [
        (0, "is empty (a bundle without rows has no dictionary)"),
        (32769, "holds 32769 bytes, more than 32768 (zlib's window)"),
    ],
)
def test_a_dictionary_of_a_wrong_size_is_refused(
    big_bundle: Path, tmp_path: Path, size: int, expected: str
) -> None:
    bundle = _damaged(big_bundle, tmp_path)
    (bundle / "display_dictionary.bin").write_bytes(b"x" * size)
    _reseal(bundle)
    assert _refusal(bundle) == f"display_dictionary.bin: {expected}"


def test_a_wrong_dictionary_fails_the_request_in_one_line(big_bundle: Path, tmp_path: Path) -> None:
    """Another dictionary of the same size, resealed: the bundle opens (blocks are inflated
    when a hit needs them), showing a hit fails naming display.bin and the block, and verify
    names the first block."""
    bundle = _damaged(big_bundle, tmp_path)
    preset = (bundle / "display_dictionary.bin").read_bytes()
    (bundle / "display_dictionary.bin").write_bytes(bytes(reversed(preset)))
    _reseal(bundle)
    opened = open_bundle(bundle)
    with pytest.raises(BundleError) as caught:
        opened.display.row(17)
    assert "\n" not in str(caught.value)
    assert str(caught.value).startswith(f"{bundle / 'display.bin'}: block 1 does not decompress")
    problems = [str(p) for p in Inspection(bundle, deep=True).problems()]
    assert len(problems) == 1 and problems[0].startswith(
        f"display.bin: block 0 (rows 0..{ROWS_PER_BLOCK - 1}) is unreadable: "
    ), problems


def test_the_runtime_inflater_checks_what_it_does_not_checksum() -> None:
    """BlockInflater skips the Adler-32s (the file's sha256 covers them) but still refuses what
    is not one whole zlib stream of the bundle's dictionary, in one line."""
    from docsmcp_runtime.format.display import BlockInflater

    preset, raw = b"shared words " * 40, b"shared words and more shared words" * 20
    squeeze = zlib.compressobj(9, zdict=preset)
    with_dict = squeeze.compress(raw) + squeeze.flush()
    plain = zlib.compress(raw, 9)
    assert BlockInflater(preset)(with_dict, 1 << 20) == raw
    assert BlockInflater(None)(plain, 1 << 20) == raw == BlockInflater(preset)(plain, 1 << 20)
    cases = [
        (BlockInflater(None), with_dict, "deflated with a preset dictionary the bundle does"),
        (BlockInflater(b"other"), with_dict, "deflated with a preset dictionary the bundle"),
        (BlockInflater(preset), with_dict[:-6], "not one whole zlib stream"),
        (BlockInflater(preset), with_dict + b"tail", "not one whole zlib stream"),
        (BlockInflater(preset), b"\xff" + with_dict[1:], "no zlib stream header"),
        (BlockInflater(preset), with_dict[:4], "4 bytes, too short for a zlib stream"),
    ]
    for inflate, stream, message in cases:
        with pytest.raises(ValueError, match=message):
            inflate(stream, 1 << 20)
    with pytest.raises(ValueError, match="inflates past"):
        BlockInflater(preset)(with_dict, 100)
