"""Where a search_docs call spends its CPU: per-stage timers and (optionally) cProfile.

Opens BUNDLE in process, warms it with one pass of bench_speakeasy.py's 40 queries, then times
`--passes` passes with CPU-time wrappers around the search stages (every thread's CPU time, so
row groups read on the prefetch threads count) and prints milliseconds per call. CPU time, not
wall time: the figures hold on a machine shared with other work. `--cprofile N` also prints
cProfile's N most expensive functions (CPU-time clock).

    .venv/bin/python bench/profile_search.py /tmp/synth/hybrid [--passes 3] [--cprofile 25]

Run it with `PYTHONPATH=<another checkout>/runtime` to profile another runtime the same way.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench_speakeasy import QUERIES
from docsmcp_runtime.bundle.reader import Bundle, open_bundle
from docsmcp_runtime.search import engine as search
from docsmcp_runtime.search import vectors
from docsmcp_runtime.tools import hits
from docsmcp_runtime.tools.app import DocsApp

STAGES: list[tuple[Any, str, str]] = [
    (search, "score", "full-text scoring (terms + bigrams)"),
    (search.Searcher, "mask", "filter mask"),
    (search.Searcher, "embed_query", "query embedding"),
    (vectors.VectorIndex, "search", "vector search"),
    (search.Searcher, "_fuse", "fusion (vector search included)"),
    (search.Searcher, "_collapse", "collapse"),
    (search.Searcher, "search", "ranking total (Searcher.search)"),
    (Bundle, "prefetch", "row-group prefetch (2 threads)"),
    (hits, "hit", "hits: row reads + snippets"),
]


def _timed(spent: dict[str, float], label: str, f: Callable) -> Callable:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        t0 = time.process_time()
        try:
            return f(*args, **kwargs)
        finally:
            spent[label] = spent.get(label, 0.0) + time.process_time() - t0

    return wrapper


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("bundle", type=Path)
    ap.add_argument("--passes", type=int, default=3)
    ap.add_argument("--cprofile", type=int, default=0, metavar="N")
    args = ap.parse_args(argv)
    bundle = open_bundle(args.bundle)
    bundle.ready()
    app = DocsApp(bundle)

    def run() -> None:
        for q in QUERIES:
            app.call_tool("search_docs", {**q, "limit": 10})

    run()
    if args.cprofile:
        profile = cProfile.Profile(time.process_time)
        profile.enable()
        run()
        profile.disable()
        out = io.StringIO()
        pstats.Stats(profile, stream=out).sort_stats("tottime").print_stats(args.cprofile)
        print(out.getvalue())
    spent: dict[str, float] = {}
    for owner, name, label in STAGES:
        if hasattr(owner, name):  # older runtimes lack some stages
            setattr(owner, name, _timed(spent, label, getattr(owner, name)))
    t0 = time.process_time()
    for _ in range(args.passes):
        run()
    calls = args.passes * len(QUERIES)
    print(f"{bundle.n_chunks:,} chunks, {calls} calls: CPU ms per call")
    print(f"  {'all of search_docs':40s} {(time.process_time() - t0) * 1000 / calls:7.2f}")
    for _, _, label in STAGES:
        if label in spent:
            print(f"  {label:40s} {spent[label] * 1000 / calls:7.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
