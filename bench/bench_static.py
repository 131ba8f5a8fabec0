"""Speed of the `static` embedding provider: query embedding at search time, documents at build.

    /work/venv/bin/python bench/bench_static.py [--table DIR] [--docs-dir D] [--queries N]

Prints the table load time, the per-query embedding time (median / p95 over N queries, first
with an empty word cache, then warm) against the target of well under 1 ms, and the builder's
document throughput on a real corpus. Figures only: nothing here is a unit test.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from docsmcp.embeddings.embed import EmbeddingOptions, embedding_input
from docsmcp.embeddings.providers_static import DEFAULT_TABLE, StaticProvider
from docsmcp.pipeline.collect import BuildOptions, collect
from docsmcp_runtime.search.static_model import StaticModel

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
TARGET_MS = 1.0


def dev_queries(n: int) -> list[str]:
    path = SHARED / "eval" / "dev-cases.jsonl"
    queries = [json.loads(line)["query"] for line in path.read_text("utf-8").splitlines() if line]
    return [queries[i % len(queries)] for i in range(n)]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def time_queries(model: StaticModel, queries: list[str]) -> list[float]:
    times = []
    for query in queries:
        start = time.perf_counter()
        model.embed(query)
        times.append((time.perf_counter() - start) * 1e3)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--table", type=Path, default=DEFAULT_TABLE)
    parser.add_argument("--docs-dir", type=Path, default=SHARED / "corpora" / "speakeasy-sdks")
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()

    provider = StaticProvider(EmbeddingOptions(provider="static", model=str(args.table)))
    start = time.perf_counter()
    model = StaticModel.load(args.table, provider.bundle_spec(), provider.dimensions)
    load_ms = (time.perf_counter() - start) * 1e3
    print(f"table: {args.table} ({model.dims} dims), load {load_ms:.1f} ms")

    queries = dev_queries(args.queries)
    model.tokenizer.word_ids.cache_clear()
    for label, times in (("cold cache", time_queries(model, queries)), ("warm", None)):
        times = times or time_queries(model, queries)
        median = statistics.median(times)
        verdict = "ok" if median < TARGET_MS else "SLOW"
        print(
            f"query embed ({label}, {len(times)} queries): median {median * 1e3:.0f} us, "
            f"p95 {percentile(times, 0.95) * 1e3:.0f} us, max {max(times) * 1e3:.0f} us "
            f"[target median < {TARGET_MS:g} ms: {verdict}]"
        )

    if args.docs_dir.is_dir():
        chunks = collect(BuildOptions(args.docs_dir)).chunks
        texts = [embedding_input(c) for c in chunks]
        start = time.perf_counter()
        provider.embed_documents(texts, [c.id for c in chunks])
        seconds = time.perf_counter() - start
        mb = sum(len(t) for t in texts) / 1e6
        print(
            f"documents: {len(texts)} chunks, {mb:.1f} M chars of {args.docs_dir.name} "
            f"in {seconds:.2f} s ({len(texts) / seconds:,.0f} chunks/s)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
