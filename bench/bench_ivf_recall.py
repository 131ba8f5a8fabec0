"""Recall@10 of IVF search against exact search, by probe count, on the dev sets' queries.

For an IVF bundle (the synthetic million-chunk one of synth_bundle.py, or a real corpus built
with a low `--ivf-threshold`), every query of `../shared/eval/*.jsonl` is embedded with the
bundle's own provider; the exact top 10 over every stored vector is compared with the IVF
search's top 10 (no filters, no similarity floor) for each `--probes` value, together with the
rows scored per query (what the search reads) and CPU milliseconds per search.

    .venv/bin/python bench/bench_ivf_recall.py BUNDLE [--probes 16,32,64,125,251]

Exits 0 with a message when the dev sets (`../shared`) are missing.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
from docsmcp_runtime.bundle.reader import open_bundle
from docsmcp_runtime.search.embedding import query_embedder
from docsmcp_runtime.search.vectors import VectorIndex, similarities, vectors_file

REPO = Path(__file__).resolve().parent.parent
EVAL = REPO.parent / "shared" / "eval"
TOP = 10


def dev_queries(folder: Path) -> list[str]:
    out = []
    for path in sorted(folder.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                out.append(json.loads(line)["query"])
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("bundle", type=Path)
    ap.add_argument("--probes", default="", help="comma-separated (default: lists/64 .. /16)")
    ap.add_argument("--eval", type=Path, default=EVAL)
    args = ap.parse_args(argv)
    if not args.eval.is_dir():
        print(f"skipped: {args.eval} not found (the dev sets are needed)")
        return 0
    bundle = open_bundle(args.bundle)
    bundle.ready()
    spec = bundle.metadata.embedding
    if spec is None or not spec.index.ivf:
        print(f"{args.bundle} has no IVF index")
        return 1
    embedder = query_embedder(spec, bundle.path)
    queries = dev_queries(args.eval)
    qvecs = [np.asarray(embedder.embed(q), dtype=np.float32) for q in queries]
    index = VectorIndex(bundle.arrays, spec, vectors_file(bundle))
    rows = np.asarray(bundle.arrays["vector_rows"], dtype=np.int64)
    exact = []
    for q in qvecs:  # every stored vector, float16 widened exactly as the search does
        sims = similarities(bundle.arrays["vectors"], q)
        order = np.lexsort((rows, -sims))[:TOP]
        exact.append(set(rows[order].tolist()))
    lists = spec.index.lists
    probes = [int(p) for p in args.probes.split(",") if p.strip()] or sorted(
        {max(1, lists // d) for d in (64, 32, 16)} | {spec.index.probe}
    )
    mask = np.ones(bundle.n_chunks, dtype=bool)
    print(f"{len(queries)} dev-set queries, {bundle.n_chunks:,} chunks, {lists} lists "
          f"(bundle probe {spec.index.probe}); recall@{TOP} against exact search")  # fmt: skip
    print(f"{'probe':>6} {'recall@10':>10} {'min':>6} {'rows/query':>11} {'CPU ms/query':>13}")
    offsets = np.asarray(bundle.arrays["ivf_offsets"], dtype=np.int64)
    sizes = offsets[1:] - offsets[:-1]
    centroids = bundle.arrays["ivf_centroids"]
    for probe in probes:
        index.probe = probe
        recalls, scanned = [], []
        t0 = time.process_time()
        for q, want in zip(qvecs, exact, strict=True):
            got, _ = index.search(q, mask, -1.0, TOP)
            recalls.append(len(want & set(got.tolist())) / TOP)
        cpu = (time.process_time() - t0) * 1000 / len(qvecs)
        for q in qvecs:
            best = np.argsort(-(centroids @ q), kind="stable")[:probe]
            scanned.append(int(sizes[best].sum()))
        print(f"{probe:>6} {np.mean(recalls):>10.3f} {min(recalls):>6.1f} "
              f"{np.mean(scanned):>11,.0f} {cpu:>13.1f}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
