"""`docsmcp verify`: check a bundle directory, archive or OCI layout against bundle-spec.md.

Unlike the runtime, which stops at the first reason to refuse a bundle, this reports every
problem it finds. The checks follow the spec's statements one by one and are vectorised with
numpy, so a bundle with millions of postings verifies in well under a second or two.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import jsonschema
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from docsmcp_runtime.archive import (
    ArchiveSource,
    extract_archive,
    is_oci_layout,
    locate_archive,
)
from docsmcp_runtime.bundle import (
    ARRAYS,
    CHUNKS_FILE,
    FORMAT,
    FORMAT_VERSION,
    METADATA_FILE,
    VECTOR_ARRAYS,
    open_bundle,
    sha256_file,
)
from docsmcp_runtime.errors import BundleError

from .write import CHUNK_SCHEMA, ROW_GROUP_SIZE

# The chunk table of bundle-spec.md, column by column (the writer's schema is the spec's).
CHUNK_COLUMNS: list[tuple[str, pa.DataType]] = [(f.name, f.type) for f in CHUNK_SCHEMA]
ARRAY_NDIM = {"facets.bin": 2}  # every other required array is 1-D
SPEC_FILES = frozenset({METADATA_FILE, CHUNKS_FILE, *(f for f, _ in ARRAYS.values())})
# Optional arrays (the embedding vectors) that a bundle may list in `files`: their sizes, sha256
# and dtypes are checked here; their own invariants belong to the runtime's open_bundle checks.
# Read from the runtime so the two never disagree on what may be present.
OPTIONAL_ARRAYS: dict[str, str] = dict(VECTOR_ARRAYS.values())
# Bytes of padded term matrix built at once when checking the dictionary order.
_SORT_BLOCK_BYTES = 32 << 20


@dataclass(frozen=True)
class Report:
    target: Path
    kind: str  # "bundle directory", "archive" or "OCI layout"
    problems: tuple[str, ...]
    summary: str  # what was checked, for the "ok:" line


def verify(target: Path) -> Report:
    """Verify a bundle directory, a bundle .tar.gz or an OCI layout holding one."""
    if target.is_dir() and not is_oci_layout(target):
        problems, summary = check_bundle(target)
        return Report(target, "bundle directory", tuple(problems), summary)
    kind = "OCI layout" if target.is_dir() else "archive"
    try:
        source = locate_archive(target)
    except BundleError as exc:
        return Report(target, kind, (str(exc),), "")
    assert source is not None
    with tempfile.TemporaryDirectory(prefix="docsmcp-verify-") as tmp:
        try:
            extract_archive(source, Path(tmp))
        except BundleError as exc:
            return Report(target, kind, (str(exc),), "")
        problems, summary = check_bundle(Path(tmp))
    return Report(target, kind, tuple(problems), f"{summary}; {_archive_note(source, kind)}")


def _archive_note(source: ArchiveSource, kind: str) -> str:
    if kind == "OCI layout":
        return f"layer sha256:{source.digest} matches the manifest"
    sidecar = source.archive.with_name(source.archive.name + ".sha256")
    if sidecar.is_file():
        return f"archive sha256:{source.digest} matches {sidecar.name}"
    return f"archive sha256:{source.digest} (no {sidecar.name} to compare with)"


# -- the bundle directory ------------------------------------------------------------------------


def check_bundle(root: Path) -> tuple[list[str], str]:
    """(problems, summary) for the bundle directory `root`; problems name the file concerned."""
    problems: list[str] = []
    meta = _load_metadata(root, problems)
    if meta is None:
        return problems, ""
    ctx = _Context(root=root, meta=meta, problems=problems)
    for check in (
        _check_schema,
        _check_file_set,
        _check_checksums,
        _check_bundle_id,
        _load_arrays,
        _load_chunks,
        _check_shapes,
        _check_terms,
        _check_postings,
        _check_taxonomy,
        _check_facets,
        _check_chunk_table,
        _check_stats,
        _check_runtime_opens,
    ):
        try:
            check(ctx)
        except Exception as exc:  # a malformed bundle must give a problem line, not a traceback
            problems.append(
                f"could not complete {check.__name__.lstrip('_')} ({type(exc).__name__}: {exc})"
            )
    stats = meta.get("stats") if isinstance(meta.get("stats"), dict) else {}
    summary = (
        f"bundle {meta.get('bundle_id')} ({meta.get('name')!s}): {stats.get('chunks')} chunks, "
        f"{stats.get('terms')} terms, {stats.get('postings')} postings; "
        f"{len(ctx.files) + 1} files, sizes, sha256 and spec invariants checked"
    )
    return problems, summary


@dataclass
class _Context:
    """What the checks share: later checks use the arrays and table earlier ones loaded."""

    root: Path
    meta: dict
    problems: list[str]
    sized: frozenset[str] = frozenset()  # files present with the size metadata.json records
    arrays: dict[str, np.ndarray | None] | None = None
    table: pa.Table | None = None

    def problem(self, message: str) -> None:
        self.problems.append(message)

    @property
    def files(self) -> dict:
        files = self.meta.get("files")
        return files if isinstance(files, dict) else {}

    def taxonomy(self) -> list[tuple[str, list[str]]] | None:
        taxonomy = self.meta.get("taxonomy")
        if not isinstance(taxonomy, dict):
            return None
        out = []
        for key, entry in taxonomy.items():
            values = entry.get("values") if isinstance(entry, dict) else None
            if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
                return None
            out.append((key, values))
        return out

    def array(self, filename: str) -> np.ndarray | None:
        return (self.arrays or {}).get(filename)


def _load_metadata(root: Path, problems: list[str]) -> dict | None:
    path = root / METADATA_FILE
    if not root.is_dir():
        problems.append(f"{root}: not a directory")
        return None
    if not path.is_file():
        problems.append(f"{METADATA_FILE}: missing (not a docsmcp bundle)")
        return None
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        problems.append(f"{METADATA_FILE}: not valid JSON ({exc})")
        return None
    if not isinstance(meta, dict):
        problems.append(f"{METADATA_FILE}: not a JSON object")
        return None
    # A reader checks these first and refuses anything else: nothing below would mean much.
    if meta.get("format") != FORMAT:
        problems.append(f"{METADATA_FILE}: format is {meta.get('format')!r}, not {FORMAT!r}")
        return None
    if meta.get("format_version") != FORMAT_VERSION:
        problems.append(
            f"{METADATA_FILE}: format_version is {meta.get('format_version')!r}; this verifier "
            f"checks version {FORMAT_VERSION}"
        )
        return None
    return meta


def _schema() -> dict:
    text = resources.files("docsmcp.schemas").joinpath("bundle-metadata.schema.json").read_text()
    return json.loads(text)


def _check_schema(ctx: _Context) -> None:
    validator = jsonschema.Draft202012Validator(_schema())
    for error in sorted(validator.iter_errors(ctx.meta), key=lambda e: list(e.absolute_path)):
        where = "/".join(str(p) for p in error.absolute_path) or "(root)"
        ctx.problem(f"{METADATA_FILE}: {where}: {error.message} (schema)")


def _check_file_set(ctx: _Context) -> None:
    listed = {METADATA_FILE, *ctx.files}
    for name in sorted(SPEC_FILES - listed):
        ctx.problem(f"{METADATA_FILE}: files lacks {name}")
    embedding = ctx.meta.get("embedding") if isinstance(ctx.meta, dict) else None
    options = embedding.get("options", {}) if isinstance(embedding, dict) else {}
    # A provider may ship files for query embedding (the static table), named in its options.
    provider_files = (
        set((options.get("files") or {}).values()) if isinstance(options, dict) else set()
    )
    for name in sorted(listed - SPEC_FILES - set(OPTIONAL_ARRAYS) - provider_files):
        ctx.problem(f"{METADATA_FILE}: files lists {name!r}, which is not a bundle file")
    for entry in sorted(ctx.root.iterdir()):
        if entry.name not in listed | SPEC_FILES:
            ctx.problem(f"{entry.name}: stray entry; a version-1 bundle holds exactly its files")
        elif entry.is_symlink() or not entry.is_file():
            ctx.problem(f"{entry.name}: not a regular file")


def _check_checksums(ctx: _Context) -> None:
    sized = set()
    for name in sorted(ctx.files):
        info = ctx.files[name]
        path = ctx.root / name
        if name not in SPEC_FILES and name not in OPTIONAL_ARRAYS:
            continue
        if not path.is_file() or path.is_symlink():
            ctx.problem(f"{name}: missing")
            continue
        if not isinstance(info, dict):
            continue  # reported by the schema
        size = path.stat().st_size
        if size != info.get("bytes"):
            ctx.problem(f"{name}: {size} bytes, metadata.json says {info.get('bytes')}")
            continue
        sized.add(name)
        actual = sha256_file(path)
        if actual != info.get("sha256"):
            ctx.problem(f"{name}: sha256 {actual} does not match metadata.json")
    ctx.sized = frozenset(sized)


def _check_bundle_id(ctx: _Context) -> None:
    digest = hashlib.sha256()
    for name in sorted(ctx.files, key=lambda n: n.encode()):
        info = ctx.files[name]
        if not isinstance(info, dict) or not isinstance(info.get("sha256"), str):
            return  # reported by the schema; the id cannot be recomputed
        digest.update(f"{name}\0{info['sha256']}\n".encode())
    expected = digest.hexdigest()[:32]
    if ctx.meta.get("bundle_id") != expected:
        ctx.problem(
            f"{METADATA_FILE}: bundle_id {ctx.meta.get('bundle_id')!r} is not the hash of the "
            f"files' sha256 ({expected})"
        )


def _load_arrays(ctx: _Context) -> None:
    arrays: dict[str, np.ndarray | None] = {}
    optional = [(f, d) for f, d in OPTIONAL_ARRAYS.items() if f in ctx.files]
    for filename, dtype in [*ARRAYS.values(), *optional]:
        arrays[filename] = None
        info = ctx.files.get(filename)
        if not isinstance(info, dict):
            continue
        want = np.dtype(dtype)
        try:
            got = np.dtype(info.get("dtype"))
        except TypeError:
            got = None
        if got is None or got.str != want.str:
            ctx.problem(
                f"{METADATA_FILE}: {filename} dtype is {info.get('dtype')!r}, not {want.str!r}"
            )
            continue
        shape = info.get("shape")
        ndim = ARRAY_NDIM.get(filename, 1) if filename in SPEC_FILES else None
        if (
            not isinstance(shape, list)
            or (ndim is not None and len(shape) != ndim)
            or not all(isinstance(d, int) and d >= 0 for d in shape)
        ):
            ctx.problem(f"{METADATA_FILE}: {filename} shape {shape!r} is not valid")
            continue
        need = int(np.prod(shape, dtype=np.int64)) * want.itemsize
        if need != info.get("bytes"):
            ctx.problem(
                f"{METADATA_FILE}: {filename} shape {shape} of {want.str} takes {need} bytes, "
                f"files says {info.get('bytes')}"
            )
            continue
        if filename in ctx.sized:
            arrays[filename] = np.fromfile(ctx.root / filename, dtype=want).reshape(shape)
    ctx.arrays = arrays


def _load_chunks(ctx: _Context) -> None:
    if CHUNKS_FILE not in ctx.sized:
        return
    try:
        parquet = pq.ParquetFile(ctx.root / CHUNKS_FILE)
        table = parquet.read()
    except (OSError, pa.ArrowException) as exc:
        ctx.problem(f"{CHUNKS_FILE}: unreadable Parquet ({exc})")
        return
    got = [(f.name, f.type) for f in table.schema]
    if [n for n, _ in got] != [n for n, _ in CHUNK_COLUMNS]:
        ctx.problem(
            f"{CHUNKS_FILE}: columns are {[n for n, _ in got]}, "
            f"expected {[n for n, _ in CHUNK_COLUMNS]}"
        )
    types = dict(got)
    bad_type = False
    for name, want in CHUNK_COLUMNS:
        if name in types and types[name] != want:
            ctx.problem(f"{CHUNKS_FILE}: column {name} is {types[name]}, expected {want}")
            bad_type = True
        elif name in types and table.column(name).null_count:
            ctx.problem(f"{CHUNKS_FILE}: column {name} has {table.column(name).null_count} nulls")
            bad_type = True
    md = parquet.metadata
    sizes = [md.row_group(i).num_rows for i in range(md.num_row_groups)]
    if any(s != ROW_GROUP_SIZE for s in sizes[:-1]) or (sizes and sizes[-1] > ROW_GROUP_SIZE):
        ctx.problem(f"{CHUNKS_FILE}: row groups are not of {ROW_GROUP_SIZE} rows ({sizes[:5]}...)")
    codecs = {
        md.row_group(i).column(j).compression
        for i in range(md.num_row_groups)
        for j in range(md.num_columns)
    }
    if codecs - {"ZSTD"}:
        ctx.problem(f"{CHUNKS_FILE}: compression {sorted(codecs)}, expected zstd")
    missing = {n for n, _ in CHUNK_COLUMNS} - set(types)
    if not missing and not bad_type:
        ctx.table = table
    elif "id" in types:
        # Shape checks still need the row count.
        ctx.table = table.select(["id"])


def _check_shapes(ctx: _Context) -> None:
    """The shape statements of *metadata.json* (what a reader must refuse)."""
    terms, toff = ctx.array("terms.bin"), ctx.array("term_offsets.bin")
    poff, docs = ctx.array("postings_offsets.bin"), ctx.array("postings_docs.bin")
    imps, facets = ctx.array("postings_impacts.bin"), ctx.array("facets.bin")
    if toff is not None and poff is not None and len(toff) != len(poff):
        ctx.problem(
            f"postings_offsets.bin: {len(poff)} entries, term_offsets.bin has {len(toff)} "
            "(both must be n_terms + 1)"
        )
    for name, off in (("term_offsets.bin", toff), ("postings_offsets.bin", poff)):
        if off is not None and len(off) == 0:
            ctx.problem(f"{name}: empty; it must hold n_terms + 1 offsets")
    if terms is not None and toff is not None and len(toff) and int(toff[-1]) != len(terms):
        ctx.problem(f"term_offsets.bin: ends at {int(toff[-1])}, terms.bin has {len(terms)} bytes")
    if docs is not None and poff is not None and len(poff) and int(poff[-1]) != len(docs):
        ctx.problem(
            f"postings_offsets.bin: ends at {int(poff[-1])}, postings_docs.bin has {len(docs)}"
        )
    if docs is not None and imps is not None and len(docs) != len(imps):
        ctx.problem(f"postings_impacts.bin: {len(imps)} entries, postings_docs.bin has {len(docs)}")
    taxonomy = ctx.taxonomy()
    if facets is not None and ctx.table is not None and taxonomy is not None:
        want = (ctx.table.num_rows, len(taxonomy))
        if facets.shape != want:
            ctx.problem(
                f"facets.bin: shape {list(facets.shape)}, "
                f"expected [n_chunks, n_keys] = {list(want)}"
            )


def _offsets_ok(ctx: _Context, name: str, off: np.ndarray, end: int) -> bool:
    ok = True
    if len(off) == 0:
        return False
    if int(off[0]) != 0:
        ctx.problem(f"{name}: first offset is {int(off[0])}, not 0")
        ok = False
    bad = np.flatnonzero(np.diff(off.astype(np.int64)) < 0) if len(off) > 1 else np.array([])
    if len(bad):
        ctx.problem(f"{name}: offsets decrease at {len(bad)} place(s), first at entry {bad[0] + 1}")
        ok = False
    if int(off[-1]) != end:
        ok = False  # reported by _check_shapes
    return ok


def _check_terms(ctx: _Context) -> None:
    terms, off = ctx.array("terms.bin"), ctx.array("term_offsets.bin")
    if terms is None or off is None or not _offsets_ok(ctx, "term_offsets.bin", off, len(terms)):
        return
    n = len(off) - 1
    starts = off[:-1].astype(np.int64)
    lengths = np.diff(off.astype(np.int64))
    try:
        terms.tobytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        ctx.problem(f"terms.bin: not UTF-8 at byte {exc.start} (term {_term_at(off, exc.start)})")
        return
    # Valid UTF-8 overall and no term starting inside a character: every term is UTF-8.
    lead = terms[starts[lengths > 0]]
    split = int(np.count_nonzero((lead & 0xC0) == 0x80))
    if split:
        ctx.problem(f"term_offsets.bin: {split} offset(s) fall inside a UTF-8 character")
    if np.any(terms == 0):
        ctx.problem("terms.bin: contains NUL bytes")
        return  # the padded comparison below treats NUL as padding
    if np.any(lengths == 0):
        ctx.problem(f"terms.bin: {int(np.count_nonzero(lengths == 0))} empty term(s)")
    # Spaces: only bigram terms have one, between two non-empty parts.
    space_at = np.flatnonzero(terms == 0x20)
    if len(space_at):
        owner = np.searchsorted(starts, space_at, side="right") - 1
        edge = (space_at == starts[owner]) | (space_at == starts[owner] + lengths[owner] - 1)
        multiple = np.bincount(owner, minlength=n) > 1
        if np.any(edge) or np.any(multiple):
            bad = int(np.count_nonzero(multiple)) + int(np.count_nonzero(edge))
            ctx.problem(f"terms.bin: {bad} term(s) with misplaced spaces (bigrams are 'a b')")
    unsorted = _unsorted_terms(terms, starts, lengths)
    if len(unsorted):
        i = int(unsorted[0])
        ctx.problem(
            f"terms.bin: dictionary not strictly ascending at {len(unsorted)} place(s), first "
            f"{_term(terms, off, i)!r} >= {_term(terms, off, i + 1)!r} (terms {i}, {i + 1})"
        )


def _unsorted_terms(terms: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Indices i where term i >= term i+1 (bytewise), comparing NUL-padded fixed-width rows."""
    n = len(lengths)
    if n < 2:
        return np.array([], dtype=np.int64)
    width = max(int(lengths.max()), 1)
    rows_per_block = max(2, _SORT_BLOCK_BYTES // width)
    bad = []
    # Blocks overlap by one term so that every consecutive pair is compared once.
    for lo in range(0, n - 1, rows_per_block - 1):
        hi = min(n, lo + rows_per_block)
        lens = lengths[lo:hi]
        matrix = np.zeros((hi - lo, width), dtype=np.uint8)
        row = np.repeat(np.arange(hi - lo), lens)
        col = np.arange(int(lens.sum())) - np.repeat(np.cumsum(lens) - lens, lens)
        matrix[row, col] = terms[int(starts[lo]) : int(starts[lo]) + int(lens.sum())]
        keys = matrix.view(f"S{width}").ravel()
        bad.append(lo + np.flatnonzero(keys[1:] <= keys[:-1]))
    return np.concatenate(bad)


def _term(terms: np.ndarray, off: np.ndarray, i: int) -> str:
    return terms[int(off[i]) : int(off[i + 1])].tobytes().decode("utf-8", "replace")


def _term_at(off: np.ndarray, byte: int) -> int:
    return int(np.searchsorted(off, byte, side="right")) - 1


def _check_postings(ctx: _Context) -> None:
    poff, docs = ctx.array("postings_offsets.bin"), ctx.array("postings_docs.bin")
    imps = ctx.array("postings_impacts.bin")
    if imps is not None:
        bad = int(np.count_nonzero(~np.isfinite(imps) | (imps < 0)))
        if bad:
            ctx.problem(f"postings_impacts.bin: {bad} impact(s) negative, infinite or NaN")
    if docs is None:
        return
    if ctx.table is not None and len(docs):
        beyond = int(np.count_nonzero(docs >= ctx.table.num_rows))
        if beyond:
            ctx.problem(
                f"postings_docs.bin: {beyond} row number(s) >= n_chunks ({ctx.table.num_rows})"
            )
    if poff is None or not _offsets_ok(ctx, "postings_offsets.bin", poff, len(docs)):
        return
    if len(docs) < 2:
        return
    # Positions where a new term's postings begin may go down; nowhere else.
    begins = np.zeros(len(docs), dtype=bool)
    firsts = poff[:-1][poff[:-1] < len(docs)].astype(np.int64)
    begins[firsts] = True
    step = np.diff(docs.astype(np.int64))
    bad = np.flatnonzero((step <= 0) & ~begins[1:])
    if len(bad):
        term = _term_at(poff, int(bad[0]) + 1)
        terms, toff = ctx.array("terms.bin"), ctx.array("term_offsets.bin")
        name = ""
        if terms is not None and toff is not None and term + 1 < len(toff):
            name = f" {_term(terms, toff, term)!r}"
        ctx.problem(
            f"postings_docs.bin: rows not strictly ascending within a term at {len(bad)} "
            f"place(s), first in term {term}{name}"
        )


def _check_taxonomy(ctx: _Context) -> None:
    taxonomy = ctx.taxonomy()
    if taxonomy is None:
        return
    keys = [k for k, _ in taxonomy]
    if keys != sorted(keys, key=lambda k: k.encode()):
        ctx.problem(f"{METADATA_FILE}: taxonomy keys are not in byte order")
    for key, values in taxonomy:
        encoded = [v.encode() for v in values]
        if any(a >= b for a, b in zip(encoded, encoded[1:], strict=False)):
            ctx.problem(f"{METADATA_FILE}: taxonomy {key!r} values not sorted and unique")


def _check_facets(ctx: _Context) -> None:
    facets, taxonomy = ctx.array("facets.bin"), ctx.taxonomy()
    if facets is None or taxonomy is None or facets.shape[1:] != (len(taxonomy),):
        return
    for k, (key, values) in enumerate(taxonomy):
        column = facets[:, k]
        bad = int(np.count_nonzero(column > len(values)))
        if bad:
            ctx.problem(f"facets.bin: {bad} code(s) for {key!r} exceed its {len(values)} values")


def _check_chunk_table(ctx: _Context) -> None:
    table = ctx.table
    if table is None or table.num_columns != len(CHUNK_COLUMNS):
        return
    n = table.num_rows
    name = CHUNKS_FILE
    ids = table.column("id")
    duplicates = n - len(pc.unique(ids))
    if duplicates:
        ctx.problem(f"{name}: {duplicates} duplicate chunk id(s)")
    # Order by path (bytes), then position; positions 0..count-1 within each file.
    paths = table.column("path").combine_chunks()
    encoded = pc.dictionary_encode(paths)
    dictionary = encoded.dictionary.to_pylist()
    rank_of = np.argsort(np.argsort([p.encode() for p in dictionary], kind="stable"))
    rank = rank_of[encoded.indices.to_numpy()] if n else np.zeros(0, dtype=np.int64)
    position = table.column("position").to_numpy().astype(np.int64)
    count = table.column("file_chunk_count").to_numpy().astype(np.int64)
    if n:
        if np.any(np.diff(rank) < 0):
            ctx.problem(f"{name}: rows are not ordered by path")
        first = np.concatenate([[True], rank[1:] != rank[:-1]])
        group_start = np.maximum.accumulate(np.where(first, np.arange(n), 0))
        group_size = np.diff(np.append(np.flatnonzero(first), n))
        size_per_row = np.repeat(group_size, group_size)
        bad_pos = int(np.count_nonzero(position != np.arange(n) - group_start))
        if bad_pos:
            ctx.problem(
                f"{name}: {bad_pos} row(s) whose position is not its place within the file "
                "(rows must be ordered by path, then position)"
            )
        bad_count = int(np.count_nonzero(count != size_per_row))
        if bad_count:
            ctx.problem(f"{name}: {bad_count} row(s) whose file_chunk_count is wrong")
    level = table.column("level").to_numpy()
    if np.any((level < 0) | (level > 6)):
        ctx.problem(f"{name}: level outside 0..6")
    start = table.column("line_start").to_numpy()
    end = table.column("line_end").to_numpy()
    if np.any(start < 1) or np.any(end < start):
        ctx.problem(f"{name}: {int(np.count_nonzero((start < 1) | (end < start)))} bad line ranges")
    _check_ids_and_breadcrumbs(ctx, table)
    _check_chunk_metadata(ctx, table)


def _check_ids_and_breadcrumbs(ctx: _Context, table: pa.Table) -> None:
    paths = table.column("path")
    ids = table.column("id")
    crumbs = table.column("breadcrumb")
    # `{path}` or `{path}#...`; breadcrumbs `{path}` or `{path} > ...`.
    for what, values, sep in (("chunk id", ids, "#"), ("breadcrumb", crumbs, " > ")):
        same = pc.equal(values, paths).to_numpy(zero_copy_only=False)
        prefixed = _starts_with(values, pc.binary_join_element_wise(paths, sep, ""))
        bad = int(np.count_nonzero(~(same | prefixed)))
        if bad:
            ctx.problem(f"{CHUNKS_FILE}: {bad} {what}(s) that do not start with the row's path")


def _starts_with(values: pa.ChunkedArray, prefixes: pa.ChunkedArray) -> np.ndarray:
    """Element-wise `values[i].startswith(prefixes[i])` over the raw Arrow buffers (pyarrow's
    own starts_with takes one pattern for all rows)."""
    v_off, v_data = _string_buffers(values)
    p_off, p_data = _string_buffers(prefixes)
    v_len, p_len = np.diff(v_off), np.diff(p_off)
    n = len(p_len)
    total = int(p_len.sum())
    row = np.repeat(np.arange(n), p_len)
    k = np.arange(total) - np.repeat(p_off[:-1] - p_off[0], p_len)
    in_range = k < v_len[row]
    v_pos = np.where(in_range, v_off[row] + k, 0)
    differs = ~in_range | (v_data[v_pos] != p_data[p_off[row] + k])
    return (v_len >= p_len) & (np.bincount(row[differs], minlength=n) == 0)


def _string_buffers(column: pa.ChunkedArray | pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """(int64 offsets, uint8 data) of a null-free string column."""
    array = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    _, offsets, data = array.buffers()
    off = np.frombuffer(offsets, dtype=np.int32)[array.offset : array.offset + len(array) + 1]
    raw = np.frombuffer(data, dtype=np.uint8) if data is not None else np.zeros(0, np.uint8)
    return off.astype(np.int64), raw


def _check_chunk_metadata(ctx: _Context, table: pa.Table) -> None:
    taxonomy = ctx.taxonomy()
    encoded = pc.dictionary_encode(table.column("metadata").combine_chunks())
    distinct = encoded.dictionary.to_pylist()
    codes = None
    if taxonomy is not None:
        keys = [k for k, _ in taxonomy]
        codes = np.zeros((len(distinct), len(keys)), dtype=np.int64)
        index = {k: {v: i + 1 for i, v in enumerate(vals)} for k, vals in taxonomy}
    problems: list[str] = []
    for j, text in enumerate(distinct):
        try:
            obj = json.loads(text)
        except json.JSONDecodeError:
            problems.append(f"not JSON: {text[:60]!r}")
            continue
        if not isinstance(obj, dict) or not all(isinstance(v, str) for v in obj.values()):
            problems.append(f"not an object of strings: {text[:60]!r}")
            continue
        if list(obj) != sorted(obj):
            problems.append(f"keys not sorted: {text[:60]!r}")
        if codes is None:
            continue
        for key, value in obj.items():
            if key not in index:
                problems.append(f"key {key!r} is not in the taxonomy")
            elif value not in index[key]:
                problems.append(f"value {value!r} of {key!r} is not in the taxonomy")
            else:
                codes[j, keys.index(key)] = index[key][value]
    for p in dict.fromkeys(problems):
        ctx.problem(f"{CHUNKS_FILE}: metadata {p}")
    facets = ctx.array("facets.bin")
    if codes is None or facets is None or facets.shape != (table.num_rows, codes.shape[1]):
        return
    expected = codes[encoded.indices.to_numpy()] if table.num_rows else codes[:0]
    wrong = np.flatnonzero(np.any(facets.astype(np.int64) != expected, axis=1))
    if len(wrong):
        ctx.problem(
            f"facets.bin: {len(wrong)} row(s) disagree with the chunk metadata, first row "
            f"{int(wrong[0])}"
        )


def _check_stats(ctx: _Context) -> None:
    stats = ctx.meta.get("stats")
    if not isinstance(stats, dict):
        return
    toff, docs = ctx.array("term_offsets.bin"), ctx.array("postings_docs.bin")
    actual: dict[str, Callable[[], int | None]] = {
        "chunks": lambda: ctx.table.num_rows if ctx.table is not None else None,
        "terms": lambda: len(toff) - 1 if toff is not None and len(toff) else None,
        "postings": lambda: len(docs) if docs is not None else None,
    }
    for key, value in actual.items():
        got = value()
        if got is not None and stats.get(key) != got:
            ctx.problem(f"{METADATA_FILE}: stats.{key} is {stats.get(key)!r}, the bundle has {got}")


def _check_runtime_opens(ctx: _Context) -> None:
    """When nothing else is wrong, the runtime must open the bundle too: its own checks cover
    optional parts (vectors) whose invariants this module leaves to the runtime."""
    if ctx.problems:
        return
    try:
        open_bundle(ctx.root, verify=False)  # sha256 was checked above
    except BundleError as exc:
        ctx.problem(f"the runtime refuses the bundle: {str(exc).replace(str(ctx.root), '.')}")
