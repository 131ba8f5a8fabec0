"""Cost of hybrid search: docsmcp on the speakeasy-sdks corpus per embedding provider.

For the providers none (full-text only, the baseline), hash and static: cold-cache build and
warm (cache-hit) rebuild time, bundle/corpus size, in-process query-embedding time, stdio
search_docs latency, cold start and runtime peak RSS, with ratios against `none` and the
targets. Figures only: nothing here is a unit test.

    /work/venv/bin/python bench/bench_hybrid.py [--providers none,static] [--json out.json]

See bench/README.md for what each figure means.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# bench_speakeasy lives next to this file; importing it reuses its raw-pipe client, query list
# and measurements, so the none-provider figures here are comparable with its targets.
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_speakeasy import (  # noqa: E402
    DEFAULT_DOCS,
    MARKDOWN_SUFFIXES,
    QUERIES,
    TARGETS,
    measure_cold,
    measure_latency,
    pct,
    print_table,
    tool,
    tree_bytes,
)

PROVIDERS = ("none", "hash", "static")
VECTOR_TARGETS = {
    "hybrid_search_p50_ms": 10.0,  # with the static provider
    "vector_cold_start_p50_s": 0.6,  # any provider with vectors
}


def build(docs: Path, out: Path, provider: str, cache: Path) -> float:
    """Wall clock of one `docsmcp build` subprocess (exits the benchmark if it fails)."""
    cmd = [
        tool("docsmcp"),
        "build",
        "--docs-dir",
        str(docs),
        "--out",
        str(out),
        "-q",
        "--embedding-provider",
        provider,
        "--cache-dir",
        str(cache),
    ]
    t0 = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True)
    elapsed = time.perf_counter() - t0
    if done.returncode != 0:
        sys.exit(f"bench: build failed ({done.returncode}):\n{done.stderr}{done.stdout}")
    return elapsed


def measure_query_embedding(bundle: Path, passes: int) -> dict[str, float] | None:
    """µs per `embed(q)` over the query texts: first pass (fresh embedder) and warm passes.

    In-process, so this is the embedder alone, without JSON-RPC or ranking. None without vectors.
    """
    # Runtime imports: only when needed.
    from docsmcp_runtime.format import METADATA_FILE, Metadata
    from docsmcp_runtime.search.embedding import query_embedder

    meta = Metadata.from_json(json.loads((bundle / METADATA_FILE).read_text("utf-8")))
    if meta.embedding is None:
        return None
    t0 = time.perf_counter()
    embedder = query_embedder(meta.embedding, bundle)
    load_ms = (time.perf_counter() - t0) * 1e3
    texts = [q["query"] for q in QUERIES]

    def one_pass() -> list[float]:
        times = []
        for text in texts:
            t = time.perf_counter()
            embedder.embed(text)
            times.append((time.perf_counter() - t) * 1e6)
        return times

    first = one_pass()  # any per-word cache starts empty here, as in a fresh server
    warm = [t for _ in range(passes) for t in one_pass()]
    return {
        "load_ms": load_ms,
        "first_median_us": statistics.median(first),
        "first_p95_us": pct(first, 95),
        "median_us": statistics.median(warm),
        "p95_us": pct(warm, 95),
    }


def measure_provider(
    docs: Path, provider: str, corpus_bytes: int, args: argparse.Namespace, tmp: Path
) -> dict[str, Any]:
    bundle, cache = tmp / f"bundle-{provider}", tmp / f"cache-{provider}"
    work = tmp / f"work-{provider}"
    work.mkdir()
    fig: dict[str, Any] = {"provider": provider}
    # A fresh --cache-dir makes the first build embed every chunk; the second reuses it all.
    fig["build_cold_s"] = build(docs, bundle, provider, cache)
    fig["build_warm_s"] = build(docs, bundle, provider, cache)
    print(
        f"  build: cold cache {fig['build_cold_s']:.2f} s, warm {fig['build_warm_s']:.2f} s",
        flush=True,
    )
    fig["bundle_bytes"] = tree_bytes(bundle)
    fig["size_ratio"] = fig["bundle_bytes"] / corpus_bytes
    meta = json.loads((bundle / "metadata.json").read_text("utf-8"))
    fig["chunks"] = meta["stats"]["chunks"]
    fig["index"] = (meta.get("embedding") or {}).get("index", {}).get("type")
    fig["embed_query"] = measure_query_embedding(bundle, args.repeat)

    cold, base, cold_rss = measure_cold(bundle, args.cold, work)
    fig["cold_start_s"] = {"p50": pct(cold, 50), "min": min(cold), "max": max(cold)}
    fig["python_pass_s"] = {"p50": pct(base, 50)}
    fig["peak_rss_cold_mb"] = cold_rss
    lat, rss, zero_hits = measure_latency(bundle, args.repeat, args.warmup, work)
    fig["search_ms"] = {
        "p50": pct(lat, 50),
        "p95": pct(lat, 95),
        "max": max(lat),
        "calls": len(lat),
        "zero_hit_queries": zero_hits,
    }
    fig["peak_rss_mb"] = rss
    print(
        f"  search p50 {fig['search_ms']['p50']:.2f} ms, cold start p50 "
        f"{fig['cold_start_s']['p50'] * 1e3:.0f} ms, RSS {rss:.1f} MB",
        flush=True,
    )
    return fig


def ratio(value: float, base: float) -> str:
    return f"{value / base:.2f}x" if base > 0 else "-"


def report(figs: dict[str, dict[str, Any]]) -> dict[str, bool]:
    """Print the per-provider table and the targets; return target → passed."""
    base = figs.get("none")
    rows: list[tuple[str, str, str, str]] = []
    headers = ("figure", *figs)

    def add(label: str, cell: Any) -> None:
        # cell(fig) -> (value shown, number for the ratio or None)
        shown = []
        for name, fig in figs.items():
            text, value = cell(fig)
            if base is not None and name != "none" and value is not None:
                text += f" ({ratio(value, cell(base)[1] or 0)})"
            shown.append(text)
        rows.append((label, *shown))

    add("chunks / index", lambda f: (f"{f['chunks']} / {f['index'] or '-'}", None))
    add("build, cold cache (s)", lambda f: (f"{f['build_cold_s']:.2f}", f["build_cold_s"]))
    add("build, warm cache (s)", lambda f: (f"{f['build_warm_s']:.2f}", f["build_warm_s"]))
    add("bundle / corpus bytes", lambda f: (f"{f['size_ratio']:.3f}", f["size_ratio"]))
    add("bundle MB", lambda f: (f"{f['bundle_bytes'] / 1e6:.1f}", f["bundle_bytes"]))

    def emb(key: str, fmt: str) -> Any:
        return lambda f: (fmt.format(f["embed_query"][key]) if f["embed_query"] else "-", None)

    add("embedder load (ms)", emb("load_ms", "{:.1f}"))
    add(
        "query embed, 1st pass med/p95 (us)",
        lambda f: (
            f"{f['embed_query']['first_median_us']:.0f} / {f['embed_query']['first_p95_us']:.0f}"
            if f["embed_query"]
            else "-",
            None,
        ),
    )
    add(
        "query embed, warm med/p95 (us)",
        lambda f: (
            f"{f['embed_query']['median_us']:.0f} / {f['embed_query']['p95_us']:.0f}"
            if f["embed_query"]
            else "-",
            None,
        ),
    )
    add("search_docs p50 (ms)", lambda f: (f"{f['search_ms']['p50']:.2f}", f["search_ms"]["p50"]))
    add("search_docs p95 (ms)", lambda f: (f"{f['search_ms']['p95']:.2f}", f["search_ms"]["p95"]))
    add("queries with 0 hits", lambda f: (str(f["search_ms"]["zero_hit_queries"]), None))
    add(
        "cold start p50 (ms)",
        lambda f: (f"{f['cold_start_s']['p50'] * 1e3:.0f}", f["cold_start_s"]["p50"]),
    )
    add("  python -c pass p50 (ms)", lambda f: (f"{f['python_pass_s']['p50'] * 1e3:.0f}", None))
    add("peak RSS, latency run (MB)", lambda f: (f"{f['peak_rss_mb']:.1f}", f["peak_rss_mb"]))
    add("peak RSS, cold start (MB)", lambda f: (f"{f['peak_rss_cold_mb']:.1f}", None))

    widths = [max(len(r[i]) for r in [headers, *rows]) for i in range(len(headers))]
    line = "  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True))
    print(line)
    print("-" * len(line))
    for row in rows:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())
    if base is not None:
        print("(ratios in brackets: provider / none, same run)")
    print()

    checks: list[tuple[str, str, float, float, str, str]] = []  # key, label, value, target, ...
    if "static" in figs:
        s = figs["static"]["search_ms"]["p50"]
        checks.append(
            (
                "hybrid_search_p50_ms",
                "hybrid search_docs p50, static",
                s,
                VECTOR_TARGETS["hybrid_search_p50_ms"],
                f"{s:.2f} ms",
                "<= 10 ms",
            )
        )
    for name in ("hash", "static"):
        if name in figs:
            c = figs[name]["cold_start_s"]["p50"]
            checks.append(
                (
                    f"vector_cold_start_p50_s.{name}",
                    f"cold start with vectors, {name}",
                    c,
                    VECTOR_TARGETS["vector_cold_start_p50_s"],
                    f"{c * 1e3:.0f} ms",
                    "<= 600 ms",
                )
            )
    if base is not None:
        # The full-text-only figures against bench_speakeasy's targets: no regression allowed.
        checks += [
            (
                "build_s",
                "none: build (cold)",
                base["build_cold_s"],
                TARGETS["build_s"],
                f"{base['build_cold_s']:.2f} s",
                "<= 20 s",
            ),
            (
                "size_ratio",
                "none: bundle / corpus",
                base["size_ratio"],
                TARGETS["size_ratio"],
                f"{base['size_ratio']:.3f}",
                "<= 1.0",
            ),
            (
                "cold_start_p50_s",
                "none: cold start p50",
                base["cold_start_s"]["p50"],
                TARGETS["cold_start_p50_s"],
                f"{base['cold_start_s']['p50'] * 1e3:.0f} ms",
                "<= 500 ms",
            ),
            (
                "search_p50_ms",
                "none: search_docs p50",
                base["search_ms"]["p50"],
                TARGETS["search_p50_ms"],
                f"{base['search_ms']['p50']:.2f} ms",
                "<= 5 ms",
            ),
            (
                "peak_rss_mb",
                "none: runtime peak RSS",
                base["peak_rss_mb"],
                TARGETS["peak_rss_mb"],
                f"{base['peak_rss_mb']:.1f} MB",
                "<= 150 MB",
            ),
        ]
    results = {key: value <= target for key, _, value, target, _, _ in checks}
    print_table(
        [
            (label, shown, tshown, "PASS" if results[key] else "FAIL")
            for key, label, _, _, shown, tshown in checks
        ]
    )
    return results


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--docs-dir", type=Path, default=DEFAULT_DOCS, help="corpus to build")
    p.add_argument(
        "--providers", default=",".join(PROVIDERS), help="comma list (default: none,hash,static)"
    )
    p.add_argument("--cold", type=int, default=10, help="cold-start runs (default 10)")
    p.add_argument("--repeat", type=int, default=10, help="timed passes over the queries")
    p.add_argument("--warmup", type=int, default=2, help="untimed passes first (default 2)")
    p.add_argument("--json", type=Path, metavar="PATH", help="also write the figures here")
    args = p.parse_args(argv)
    providers = [s.strip() for s in args.providers.split(",") if s.strip()]
    if not providers or any(s not in PROVIDERS for s in providers):
        p.error(f"--providers: choose from {', '.join(PROVIDERS)}")
    if min(args.cold, args.repeat) < 1 or args.warmup < 0:
        p.error("--cold and --repeat must be >= 1; --warmup >= 0")
    docs: Path = args.docs_dir.resolve()
    if not docs.is_dir():
        p.error(f"corpus not found: {docs} (pass --docs-dir)")

    corpus_bytes = tree_bytes(docs, MARKDOWN_SUFFIXES)
    figs: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-hybrid-") as tmp_name:
        for provider in providers:
            print(f"provider {provider}:", flush=True)
            figs[provider] = measure_provider(docs, provider, corpus_bytes, args, Path(tmp_name))
    print()
    results = report(figs)
    if args.json is not None:
        out = {
            "docs_dir": str(docs),
            "corpus_bytes": corpus_bytes,
            "queries": len(QUERIES),
            "providers": figs,
            "targets": {**TARGETS, **VECTOR_TARGETS},
            "pass": results,
        }
        args.json.write_text(json.dumps(out, indent=2) + "\n")
        print(f"\nwrote {args.json}")
    return 0 if all(results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
