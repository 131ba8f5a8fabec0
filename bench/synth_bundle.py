"""A synthetic bundle of about a million chunks, generated from a real bundle's statistics.

The builder would need tens of minutes for a million chunks, so this writes the bundle-spec
format directly (the runtime's `format` package names every file, dtype and the schema; the
result opens with `open_bundle` and passes `docsmcp verify`'s cheap checks). It replicates a
real bundle (by default speakeasy-sdks, built with the static embedding provider) `copies`
times, perturbing what would otherwise make the copies unrealistically identical:

- chunk ids and paths get a `cNNN/` prefix per copy (ids stay unique, paths distinct);
- terms that are rare in the source (document frequency ≤ `--rare-df`) get a per-copy spelling
  (`term~NNN`) in every copy but the first, so the dictionary grows as a larger corpus' would
  and rare terms stay rare; common terms' postings span every copy (Zipf's head gets longer);
- vectors get Gaussian noise (then are renormalised), so no two copies of a chunk are equal;
- the IVF index: `4 * sqrt(n)` lists as the builder picks, centroids from a few Lloyd
  iterations over the source vectors, each copy of a chunk in its source chunk's list; `probe` =
  lists / 16 as the builder sets it.

Two bundles are written: `OUT/fulltext` (no embedding) and `OUT/hybrid` (static embedding + IVF),
sharing the full-text files by hard link. Nothing is committed; regenerate with

    .venv/bin/python bench/synth_bundle.py --out /tmp/synth [--source IDX] [--chunks 1000000]

It exits 0 with a message when the source corpus (`../shared`) is not there.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from docsmcp_runtime.format import (
    ALL_ARRAYS,
    CHUNKS_FILE,
    METADATA_FILE,
    Q8_ARRAYS,
    ROW_GROUP_SIZE,
    bundle_id,
    sha256_file,
)
from docsmcp_runtime.format.features import IMPACT_CODES, NARROW_INDEX
from docsmcp_runtime.format.quantise import QUANTISE_BLOCK, q8_scale
from docsmcp_runtime.format.schemas import CHUNK_SCHEMA

REPO = Path(__file__).resolve().parent.parent
DEFAULT_DOCS = REPO.parent / "shared" / "corpora" / "speakeasy-sdks"
# Segments of postings (one term of one copy) laid out per pass; bounds the generator's memory.
SEGMENTS_PER_PASS = 1 << 20
NOISE = 0.05  # standard deviation of the per-coordinate noise added to each copy's vectors
LLOYD_ITERATIONS = 4
# Files of the full-text index the hybrid bundle shares with the full-text one.
SHARED = (
    "terms",
    "term_offsets",
    "postings_offsets",
    "postings_docs",
    "postings_impacts",
    "facets",
)


def build_source(docs: Path, out: Path) -> Path:
    print(f"building {docs} with the static provider (about a minute) ...", flush=True)
    docsmcp = Path(sys.executable).with_name("docsmcp")
    subprocess.run(
        [str(docsmcp), "build", "--docs-dir", str(docs), "--out", str(out),
         "--embedding-provider", "static", "--quiet"],
        check=True, stdout=subprocess.DEVNULL,
    )  # fmt: skip
    return out


def _array(src: Path, meta: dict, name: str) -> np.ndarray:
    spec = ALL_ARRAYS[name]
    entry = meta["files"][spec.file]
    # The source may store its index narrow (bundle-spec.md, *Narrow index arrays*); the
    # synthetic bundle is written wide, as a million rows needs.
    return np.fromfile(src / spec.file, dtype=entry["dtype"]).reshape(tuple(entry["shape"]))


def write_postings(src: Path, meta: dict, out: Path, copies: int, rare_df: int) -> tuple[int, int]:
    """terms.bin, term_offsets.bin and the postings of `copies` copies; (n_terms, n_postings)."""
    n = meta["stats"]["chunks"]
    terms = _array(src, meta, "terms").tobytes()
    toff = _array(src, meta, "term_offsets").astype(np.int64)
    poff = _array(src, meta, "postings_offsets").astype(np.int64)
    docs = _array(src, meta, "postings_docs")
    imps = _array(src, meta, "postings_impacts")
    if "impact_levels.bin" in meta["files"]:
        # Codes (bundle-spec.md, *Impact codes*) against the source's levels: the synthetic
        # bundle stores their float16 values, one array that needs no table of its own.
        imps = _array(src, meta, "impact_levels")[imps].astype("<f2")
    df = np.diff(poff)
    words = [terms[toff[i] : toff[i + 1]] for i in range(len(df))]
    rare = np.flatnonzero(df <= rare_df)
    # (name, source term, copy or -1 for "every copy"); '~' sorts after every analysed character
    # the builder keeps in English text, and no query analyses to it.
    names: list[tuple[bytes, int, int]] = [(w, t, -1 if df[t] > rare_df else 0)
                                           for t, w in enumerate(words)]  # fmt: skip
    for c in range(1, copies):
        suffix = f"~{c:03d}".encode()
        names.extend((words[t] + suffix, int(t), c) for t in rare)
    names.sort(key=lambda x: x[0])
    out_terms = b"".join(name for name, _, _ in names)
    lengths = np.fromiter((len(name) for name, _, _ in names), np.int64, len(names))
    term_offsets = np.zeros(len(names) + 1, np.uint64)
    np.cumsum(lengths, out=term_offsets[1:])
    np.frombuffer(out_terms, np.uint8).tofile(out / ALL_ARRAYS["terms"].file)
    term_offsets.tofile(out / ALL_ARRAYS["term_offsets"].file)
    # Segments in output order: a common term is one segment per copy, a renamed one a single one.
    seg_term: list[int] = []
    seg_copy: list[int] = []
    seg_owner: list[int] = []  # output term of each segment
    for i, (_, t, c) in enumerate(names):
        if c >= 0:
            seg_term.append(t), seg_copy.append(c), seg_owner.append(i)
        else:
            seg_term.extend([t] * copies), seg_copy.extend(range(copies))
            seg_owner.extend([i] * copies)
    st, sc, so = (np.asarray(a, np.int64) for a in (seg_term, seg_copy, seg_owner))
    lens = df[st]
    counts = np.bincount(so, weights=lens, minlength=len(names)).astype(np.int64)
    postings_offsets = np.zeros(len(names) + 1, np.uint64)
    np.cumsum(counts, out=postings_offsets[1:])
    postings_offsets.tofile(out / ALL_ARRAYS["postings_offsets"].file)
    with (
        open(out / ALL_ARRAYS["postings_docs"].file, "wb") as fd,
        open(out / ALL_ARRAYS["postings_impacts"].file, "wb") as fi,
    ):
        for a in range(0, len(st), SEGMENTS_PER_PASS):
            t, c, ln = (
                st[a : a + SEGMENTS_PER_PASS],
                sc[a : a + SEGMENTS_PER_PASS],
                lens[a : a + SEGMENTS_PER_PASS],
            )
            total = int(ln.sum())
            seg_start = np.repeat(np.cumsum(ln) - ln, ln)
            source = np.repeat(poff[t], ln) + (np.arange(total) - seg_start)
            shift = np.repeat(c * n, ln)
            (docs[source].astype(np.int64) + shift).astype("<u4").tofile(fd)
            imps[source].tofile(fi)
    return len(names), int(postings_offsets[-1])


def write_chunks(src: Path, out: Path, copies: int) -> None:
    table = pq.ParquetFile(src / CHUNKS_FILE).read()
    writer = pq.ParquetWriter(
        out / CHUNKS_FILE, CHUNK_SCHEMA, compression="zstd", compression_level=3,
        use_dictionary=["path", "metadata"], write_statistics=False,
    )  # fmt: skip
    pending: list[pa.Table] = []
    held = 0
    try:
        for c in range(copies):
            prefix = pa.scalar(f"c{c:03d}/")
            copy = table.set_column(0, "id", pc.binary_join_element_wise(prefix, table["id"], ""))
            for i, column in ((1, "path"), (3, "breadcrumb")):  # a breadcrumb starts with the path
                copy = copy.set_column(
                    i, column, pc.binary_join_element_wise(prefix, copy[column], "")
                )
            pending.append(copy)
            held += copy.num_rows
            if held >= 64 * ROW_GROUP_SIZE or c == copies - 1:
                merged = pa.concat_tables(pending)
                # Whole row groups only, except at the very end (the spec's fixed group size).
                cut = (
                    merged.num_rows
                    if c == copies - 1
                    else merged.num_rows // ROW_GROUP_SIZE * ROW_GROUP_SIZE
                )
                writer.write_table(merged.slice(0, cut), row_group_size=ROW_GROUP_SIZE)
                pending, held = [merged.slice(cut)], merged.num_rows - cut
    finally:
        writer.close()


def write_vectors(src: Path, meta: dict, out: Path, copies: int, seed: int) -> tuple[int, int]:
    """vectors.bin (IVF order), collapse_groups.bin, vector_rows.bin, ivf_*; (lists, probe)."""
    n = meta["stats"]["chunks"]
    base = _array(src, meta, "vectors").astype(np.float32)
    groups = _array(src, meta, "collapse_groups").astype(np.int64)
    total = n * copies
    lists = max(1, int(round(4 * math.sqrt(total))))
    probe = max(1, min(lists, int(math.ceil(lists / 16))))
    rng = np.random.default_rng(seed)
    k = min(lists, n)
    centroids = base[rng.choice(n, k, replace=False)]
    for _ in range(LLOYD_ITERATIONS):
        assign = np.argmax(base @ centroids.T, axis=1)
        sums = np.zeros_like(centroids)
        np.add.at(sums, assign, base)
        norms = np.linalg.norm(sums, axis=1, keepdims=True)
        centroids = np.where(norms > 0, sums / np.maximum(norms, 1e-12), centroids)
    assign = np.argmax(base @ centroids.T, axis=1)
    if k < lists:  # more lists than source vectors: the rest stay empty (never probed first)
        centroids = np.vstack([centroids, np.zeros((lists - k, base.shape[1]), np.float32)])
    # Rows in list order, copies of one source row together in copy order.
    order = np.lexsort((np.arange(n), assign))
    per_list = np.bincount(assign, minlength=lists) * copies
    offsets = np.zeros(lists + 1, np.uint64)
    np.cumsum(per_list, out=offsets[1:])
    with open(out / "vectors.bin", "wb") as fv, open(out / "vector_rows.bin", "wb") as fr:
        for lst in range(lists):
            members = order[assign[order] == lst] if per_list[lst] else order[:0]
            if not len(members):
                continue
            rows = (np.arange(copies)[None, :] * n + members[:, None]).T.ravel()
            src_rows = np.tile(members, copies)
            v = base[src_rows] + rng.normal(0, NOISE, (len(src_rows), base.shape[1])).astype(
                np.float32
            )
            v /= np.linalg.norm(v, axis=1, keepdims=True)
            order_rows = np.argsort(rows, kind="stable")
            v[order_rows].astype("<f2").tofile(fv)
            rows[order_rows].astype("<u4").tofile(fr)
    np.tile(groups, copies).astype("<u4").tofile(out / "collapse_groups.bin")
    centroids.astype("<f4").tofile(out / "ivf_centroids.bin")
    offsets.tofile(out / "ivf_offsets.bin")
    return lists, probe


def write_q8(out: Path, total: int, dims: int) -> None:
    """vectors_q8.bin and vectors_q8_scale.bin from vectors.bin (format/quantise.py's rule),
    a block at a time."""
    vectors = np.memmap(out / "vectors.bin", dtype="<f2", mode="r", shape=(total, dims))
    scale = q8_scale(vectors)
    with open(out / ALL_ARRAYS["vectors_q8"].file, "wb") as fq:
        for start in range(0, total, QUANTISE_BLOCK):
            block = np.asarray(vectors[start : start + QUANTISE_BLOCK], dtype=np.float32)
            q = np.clip(np.rint(block / scale), -127, 127)
            q.astype(np.int8).tofile(fq)
    scale.astype("<f4").tofile(out / ALL_ARRAYS["vectors_q8_scale"].file)


def add_q8(bundle: Path) -> None:
    """Give an IVF bundle written by an older synth_bundle.py its int8 vectors (in place)."""
    meta = json.loads((bundle / METADATA_FILE).read_text())
    total, dims = meta["stats"]["chunks"], meta["embedding"]["dimensions"]
    write_q8(bundle, total, dims)
    shapes = {n: f["shape"] for n, f in meta["files"].items() if "shape" in f}
    shapes.update(_q8_shapes(total, dims))
    keep = set(meta["files"]) | {ALL_ARRAYS[a].file for a in Q8_ARRAYS}
    finish(bundle, meta, shapes, keep)


def _q8_shapes(total: int, dims: int) -> dict[str, list[int]]:
    return {
        ALL_ARRAYS["vectors_q8"].file: [total, dims],
        ALL_ARRAYS["vectors_q8_scale"].file: [dims],
    }


def finish(out: Path, meta: dict, shapes: dict[str, list[int]], keep: set[str]) -> None:
    files = {}
    for name in sorted(keep):
        path = out / name
        entry = {"bytes": path.stat().st_size, "sha256": sha256_file(path)}
        if name in shapes:
            spec = next(s for s in ALL_ARRAYS.values() if s.file == name)
            entry.update(dtype=spec.dtype, shape=shapes[name])
        files[name] = entry
    requires = [f for f in meta.get("requires", []) if f not in (NARROW_INDEX, IMPACT_CODES)]
    meta = {**meta, "files": files, "requires": requires}
    meta["bundle_id"] = bundle_id({n: f["sha256"] for n, f in files.items()})
    (out / METADATA_FILE).write_text(json.dumps(meta, indent=2, ensure_ascii=False) + "\n")


def generate(src: Path, out: Path, chunks: int, rare_df: int, seed: int) -> None:
    meta = json.loads((src / METADATA_FILE).read_text())
    n = meta["stats"]["chunks"]
    copies = max(1, round(chunks / n))
    total = n * copies
    ft, hy = out / "fulltext", out / "hybrid"
    for d in (ft, hy):
        shutil.rmtree(d, ignore_errors=True)
        d.mkdir(parents=True)
    t0 = time.monotonic()
    n_terms, n_postings = write_postings(src, meta, ft, copies, rare_df)
    print(f"postings: {n_terms:,} terms, {n_postings:,} postings ({time.monotonic() - t0:.0f} s)")
    facets = _array(src, meta, "facets")
    np.tile(facets, (copies, 1)).astype("<u2").tofile(ft / "facets.bin")
    t0 = time.monotonic()
    write_chunks(src, ft, copies)
    print(f"chunks.parquet: {total:,} rows ({time.monotonic() - t0:.0f} s)")
    shapes = {
        "terms.bin": [int(os.path.getsize(ft / "terms.bin"))],
        "term_offsets.bin": [n_terms + 1],
        "postings_offsets.bin": [n_terms + 1],
        "postings_docs.bin": [n_postings],
        "postings_impacts.bin": [n_postings],
        "facets.bin": [total, facets.shape[1]],
    }
    stats = {**meta["stats"], "chunks": total, "files": meta["stats"]["files"] * copies,
             "corpus_bytes": meta["stats"]["corpus_bytes"] * copies,
             "terms": n_terms, "postings": n_postings}  # fmt: skip
    base = {**meta, "stats": stats, "name": f"{meta.get('name') or 'synthetic'}-x{copies}"}
    full_files = {CHUNKS_FILE, *(ALL_ARRAYS[a].file for a in SHARED)}
    ft_meta = {**base, "embedding": None}
    finish(ft, ft_meta, shapes, full_files)
    if meta.get("embedding") is None:
        shutil.rmtree(hy)
        return
    for name in full_files:
        os.link(ft / name, hy / name)
    extra = set(meta["embedding"]["options"].get("files", {}).values())
    for name in extra:
        shutil.copyfile(src / name, hy / name)
    t0 = time.monotonic()
    lists, probe = write_vectors(src, meta, hy, copies, seed)
    print(f"vectors: {total:,} x {meta['embedding']['dimensions']}, IVF {lists} lists, "
          f"probe {probe} ({time.monotonic() - t0:.0f} s)")  # fmt: skip
    dims = meta["embedding"]["dimensions"]
    write_q8(hy, total, dims)
    shapes.update(_q8_shapes(total, dims))
    shapes.update({
        "vectors.bin": [total, dims], "collapse_groups.bin": [total], "vector_rows.bin": [total],
        "ivf_centroids.bin": [lists, dims], "ivf_offsets.bin": [lists + 1],
    })  # fmt: skip
    embedding = {**meta["embedding"], "index": {"type": "ivf", "lists": lists, "probe": probe}}
    vec_files = {"vectors.bin", "collapse_groups.bin", "vector_rows.bin", "ivf_centroids.bin",
                 "ivf_offsets.bin", *(ALL_ARRAYS[a].file for a in Q8_ARRAYS)}  # fmt: skip
    finish(hy, {**base, "embedding": embedding}, shapes, full_files | vec_files | extra)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, required=True, help="writes OUT/fulltext and OUT/hybrid")
    ap.add_argument("--source", type=Path, help="a real bundle (default: build speakeasy-sdks)")
    ap.add_argument("--docs-dir", type=Path, default=DEFAULT_DOCS)
    ap.add_argument("--chunks", type=int, default=1_000_000, help="about this many chunks")
    ap.add_argument("--rare-df", type=int, default=2, help="terms this rare get per-copy names")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--add-q8", action="store_true",
                    help="only add the int8 vectors to an existing OUT/hybrid")  # fmt: skip
    args = ap.parse_args(argv)
    if args.add_q8:
        add_q8(args.out / "hybrid")
        print(f"added int8 vectors to {args.out / 'hybrid'}")
        return 0
    tmp = Path(tempfile.mkdtemp(prefix="docsmcp-synth-"))
    try:
        source = args.source
        if source is None:
            if not args.docs_dir.is_dir():
                print(f"skipped: {args.docs_dir} not found (the shared corpora are needed)")
                return 0
            source = build_source(args.docs_dir, tmp / "src")
        generate(source, args.out, args.chunks, args.rare_df, args.seed)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"wrote {args.out / 'fulltext'} and {args.out / 'hybrid'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
