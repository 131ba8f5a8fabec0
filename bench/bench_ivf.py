"""Exact vs IVF vector search at scale: docsmcp on the win32 docs (48,209 files, 238 MB).

Builds the corpus twice with the static provider, exact (`--ivf-threshold 0`) and IVF (the
default threshold), the second reusing the first's embedding cache so it only re-chunks and
clusters. Reports chunks, build times, IVF lists/probe, in-process vector search time per query,
IVF recall@10 against exact (and a probe/recall curve when recall is poor), and search_docs
latency over stdio for both bundles. Figures only, no targets: nothing here is a unit test.

    /work/venv/bin/python bench/bench_ivf.py [--docs-dir D] [--bundle-exact B --bundle-ivf B]

See bench/README.md for what each figure means.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
from docsmcp_runtime.bundle.reader import Bundle, open_bundle
from docsmcp_runtime.search.embedding import query_embedder
from docsmcp_runtime.search.vectors import VectorIndex

# Reuse bench_speakeasy's raw-pipe client (it lives next to this file).
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_speakeasy import (  # noqa: E402
    MARKDOWN_SUFFIXES,
    Server,
    check_response,
    pct,
    tool,
    tree_bytes,
    vm_hwm_mb,
    with_timeout,
)

REPO = Path(__file__).resolve().parent.parent
DEFAULT_TAR = REPO.parent / "shared" / "corpora" / "win32-docs.tar.gz"
DEFAULT_IVF_THRESHOLD = 50_000  # the builder's default (docsmcp.embeddings.vectorize.IVF_THRESHOLD)
TOP = 10
RECALL_POOR = 0.9

# Win32 tasks and identifiers; topped up with first sentences of sampled chunks to --queries.
FIXED_QUERIES = [
    "CreateWindowEx parameters",
    "how to register a window class",
    "WM_PAINT message",
    "GetLastError",
    "named pipes security",
    "create a thread and wait for it to finish",
    "critical section vs mutex",
    "read a registry value",
    "RegOpenKeyEx",
    "memory mapped file sharing between processes",
    "VirtualAlloc reserve and commit",
    "handle keyboard input WM_KEYDOWN",
    "DirectX swap chain present",
    "message loop GetMessage DispatchMessage",
    "open a file with CreateFile",
    "asynchronous I/O completion ports",
    "service control manager start a service",
    "access control list security descriptor",
    "load a DLL at runtime LoadLibrary",
    "clipboard copy text",
    "high DPI awareness per monitor",
    "draw text with GDI",
    "Direct2D render target",
    "COM CoInitializeEx apartment",
    "shell notification icon in the taskbar",
    "drag and drop OLE",
    "create a process with redirected output",
    "windows sockets connect",
    "timer callback SetTimer",
    "dialog box procedure",
    "common controls list view",
    "UI Automation provider",
    "Media Foundation video decoding",
    "print a document",
    "power management sleep notifications",
    "event tracing for Windows",
    "cryptography hash data CryptoAPI",
    "file system change notifications",
    "WinHTTP send request",
    "task scheduler create a task",
]


def run_build(docs: Path, out: Path, cache: Path, threshold: int, log: Path) -> float:
    """Wall clock of `docsmcp build --embedding-provider static`; its output goes to log."""
    cmd = [
        tool("docsmcp"),
        "build",
        "--docs-dir",
        str(docs),
        "--out",
        str(out),
        "--embedding-provider",
        "static",
        "--cache-dir",
        str(cache),
        "--ivf-threshold",
        str(threshold),
    ]
    t0 = time.perf_counter()
    with log.open("a") as fh:
        fh.write(f"$ {' '.join(cmd)}\n")
        fh.flush()
        done = subprocess.run(cmd, stdout=fh, stderr=subprocess.STDOUT)
    elapsed = time.perf_counter() - t0
    if done.returncode != 0:
        sys.exit(f"bench: build failed ({done.returncode}), see {log}")
    return elapsed


def docs_root(dest: Path) -> Path:
    """The corpus folder inside an extracted archive: its only top-level folder, if it has one."""
    entries = [e for e in dest.iterdir() if not e.name.startswith(".")]
    return entries[0] if len(entries) == 1 and entries[0].is_dir() else dest


def first_sentence(text: str) -> str | None:
    """A chunk's first prose sentence, as a realistic query; None if it has none."""
    for line in text.splitlines():
        line = re.sub(r"[#*`>|_\[\]()]+", " ", line).strip()
        if len(line.split()) < 4 or line.startswith(("-", "<", "!")):
            continue
        sentence = re.split(r"(?<=[.?!])\s", line, maxsplit=1)[0]
        return " ".join(sentence.split()[:25])
    return None


def query_texts(bundle: Bundle, n: int) -> list[str]:
    texts = list(FIXED_QUERIES[:n])
    rng = np.random.default_rng(0)  # fixed: the same queries every run
    for row in rng.permutation(bundle.n_chunks):
        if len(texts) >= n:
            break
        sentence = first_sentence(bundle.text(int(row)))
        if sentence:
            texts.append(sentence)
    return texts


def time_search(
    index: VectorIndex, queries: np.ndarray, mask: np.ndarray
) -> tuple[list[float], list[np.ndarray]]:
    """µs per VectorIndex.search (floor -1: nothing filtered) and the top-10 rows of each."""
    times, tops = [], []
    for q in queries:
        t0 = time.perf_counter()
        rows, _ = index.search(q, mask, -1.0, TOP)
        times.append((time.perf_counter() - t0) * 1e6)
        tops.append(rows)
    return times, tops


def recall(exact: list[np.ndarray], approx: list[np.ndarray]) -> float:
    """Mean fraction of the exact top-10 rows that the approximate top-10 also returns."""
    return statistics.fmean(
        len(np.intersect1d(e, a)) / len(e) for e, a in zip(exact, approx, strict=True) if len(e)
    )


def stdio_latency(bundle: Path, queries: list[str], repeat: int, tmp: Path) -> dict[str, float]:
    """spawn → first result (one run), then search_docs round trips in that server (ms)."""
    with (tmp / f"{bundle.name}.stderr").open("w+b") as err:
        t0 = time.perf_counter()
        server = Server.spawn(tool("docsmcp-runtime"), bundle, err)
        try:

            def run() -> tuple[float, list[float]]:
                server.initialize()
                server.send(server.search_request({"query": queries[0], "limit": TOP}))
                check_response(server.read_line(), want_tool_result=True)
                first = time.perf_counter() - t0
                for q in queries:  # warm-up pass: page in the mapped arrays
                    server.send(server.search_request({"query": q, "limit": TOP}))
                    check_response(server.read_line(), want_tool_result=True)
                requests = [
                    server.search_request({"query": q, "limit": TOP})
                    for _ in range(repeat)
                    for q in queries
                ]
                times, lines = [], []
                for data in requests:
                    t = time.perf_counter()
                    server.send(data)
                    lines.append(server.read_line())
                    times.append((time.perf_counter() - t) * 1e3)
                for line in lines:
                    check_response(line, want_tool_result=True)
                return first, times

            first, times = with_timeout(server, run)
            rss = vm_hwm_mb(server.proc.pid)
        finally:
            server.close()
    return {
        "first_result_s": first,
        "p50_ms": pct(times, 50),
        "p95_ms": pct(times, 95),
        "calls": len(times),
        "peak_rss_mb": rss,
    }


def probe_values(lists: int, default: int) -> list[int]:
    values = {1, 2, 4, default // 4, default // 2, default, 2 * default, 4 * default, 8 * default}
    return sorted(v for v in values if 1 <= v <= lists)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tar", type=Path, default=DEFAULT_TAR, help="corpus archive to extract")
    p.add_argument("--docs-dir", type=Path, help="use this extracted corpus instead of --tar")
    p.add_argument("--bundle-exact", type=Path, help="reuse this exact bundle (skip its build)")
    p.add_argument("--bundle-ivf", type=Path, help="reuse this IVF bundle (skip its build)")
    p.add_argument(
        "--ivf-threshold",
        type=int,
        default=DEFAULT_IVF_THRESHOLD,
        help="threshold of the IVF build (default 50000; lowered when the corpus is smaller)",
    )
    p.add_argument(
        "--cache-dir", type=Path, help="embedding cache of both builds (default: a temp dir)"
    )
    p.add_argument("--queries", type=int, default=200, help="vector queries (default 200)")
    p.add_argument("--stdio-queries", type=int, default=40, help="search_docs queries (40)")
    p.add_argument("--repeat", type=int, default=3, help="timed search_docs passes (default 3)")
    p.add_argument("--curve", action="store_true", help="probe curve even if recall is good")
    p.add_argument("--json", type=Path, metavar="PATH", help="also write the figures here")
    args = p.parse_args(argv)

    fig: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="bench-ivf-") as tmp_name:
        tmp = Path(tmp_name)
        log = tmp / "build.log"
        need_build = args.bundle_exact is None or args.bundle_ivf is None
        docs: Path | None = None
        if need_build:
            if args.docs_dir is not None:
                docs = args.docs_dir.resolve()
            else:
                dest = tmp / "docs"
                dest.mkdir()
                print(f"extracting {args.tar} ...", flush=True)
                t0 = time.perf_counter()
                # tar, not tarfile: several times faster on 48k files (C, no per-member Python).
                subprocess.run(["tar", "-xzf", str(args.tar), "-C", str(dest)], check=True)
                fig["extract_s"] = time.perf_counter() - t0
                docs = docs_root(dest)
            if not docs.is_dir():
                p.error(f"corpus not found: {docs}")
            fig["docs_dir"] = str(docs)
            fig["corpus_bytes"] = tree_bytes(docs, MARKDOWN_SUFFIXES)
        cache = args.cache_dir.resolve() if args.cache_dir else tmp / "cache"

        if args.bundle_exact is not None:
            exact_dir = args.bundle_exact.resolve()
        else:
            assert docs is not None
            exact_dir = tmp / "exact"
            print(f"building exact (static, --ivf-threshold 0, cache {cache}) ...", flush=True)
            fig["build_exact_s"] = run_build(docs, exact_dir, cache, 0, log)
            print(f"  {fig['build_exact_s']:.1f} s", flush=True)
        exact_b = open_bundle(exact_dir, verify=False)
        chunks = exact_b.n_chunks
        fig["chunks"] = chunks

        if args.bundle_ivf is not None:
            ivf_dir = args.bundle_ivf.resolve()
        else:
            assert docs is not None
            ivf_dir = tmp / "ivf"
            threshold = args.ivf_threshold
            if chunks <= threshold:
                # The default would keep exact search here; force IVF so there is one to measure.
                threshold = chunks - 1
                print(f"note: {chunks} chunks <= threshold; IVF build: --ivf-threshold {threshold}")
            fig["ivf_threshold"] = threshold
            print(f"building IVF (--ivf-threshold {threshold}, cache {cache}) ...", flush=True)
            fig["build_ivf_s"] = run_build(docs, ivf_dir, cache, threshold, log)
            print(f"  {fig['build_ivf_s']:.1f} s", flush=True)
        if log.exists():
            fig["build_log"] = [ln for ln in log.read_text().splitlines() if "embedded" in ln]
        ivf_b = open_bundle(ivf_dir, verify=False)
        spec_exact = exact_b.metadata.embedding
        spec_ivf = ivf_b.metadata.embedding
        if spec_exact is None or spec_ivf is None or not spec_ivf.index.ivf or spec_exact.index.ivf:
            sys.exit("bench: want an exact and an ivf bundle")
        if ivf_b.n_chunks != chunks:
            sys.exit(f"bench: bundles differ in chunk count ({chunks} vs {ivf_b.n_chunks})")
        lists, probe = spec_ivf.index.lists, spec_ivf.index.probe
        fig.update(lists=lists, probe=probe)
        for name, path in (("exact", exact_dir), ("ivf", ivf_dir)):
            fig[f"bundle_{name}_bytes"] = tree_bytes(path)

        texts = query_texts(exact_b, args.queries)
        embedder = query_embedder(spec_exact, exact_dir)
        queries = np.stack([np.asarray(embedder.embed(t), dtype=np.float32) for t in texts])
        fig["queries"] = len(texts)
        mask = np.ones(chunks, dtype=bool)

        exact_ix = VectorIndex(exact_b.arrays, spec_exact)
        t0 = time.perf_counter()
        exact_ix.search(queries[0], mask, -1.0, TOP)  # untimed: makes the float32 copy
        fig["exact_first_query_ms"] = (time.perf_counter() - t0) * 1e3
        ivf_ix = VectorIndex(ivf_b.arrays, spec_ivf)
        ivf_ix.search(queries[0], mask, -1.0, TOP)  # untimed: pages in centroids and lists
        ex_times, ex_tops = time_search(exact_ix, queries, mask)
        iv_times, iv_tops = time_search(ivf_ix, queries, mask)
        sizes = np.diff(np.asarray(ivf_b.arrays["ivf_offsets"], dtype=np.int64))
        fig["list_size"] = {
            "min": int(sizes.min()),
            "median": float(np.median(sizes)),
            "max": int(sizes.max()),
        }
        fig["vector_search_us"] = {
            "exact": {"median": statistics.median(ex_times), "p95": pct(ex_times, 95)},
            "ivf": {"median": statistics.median(iv_times), "p95": pct(iv_times, 95)},
        }
        fig["recall_at_10"] = recall(ex_tops, iv_tops)

        curve: list[dict[str, float]] = []
        if fig["recall_at_10"] < RECALL_POOR or args.curve:
            for pr in probe_values(lists, probe):
                spec = {**spec_ivf, "index": {**spec_ivf["index"], "probe": pr}}
                ix = VectorIndex(ivf_b.arrays, spec)
                times, tops = time_search(ix, queries, mask)
                curve.append(
                    {
                        "probe": pr,
                        "recall_at_10": recall(ex_tops, tops),
                        "median_us": statistics.median(times),
                        "p95_us": pct(times, 95),
                    }
                )
            fig["probe_curve"] = curve

        print("search_docs over stdio ...", flush=True)
        stdio_q = texts[: args.stdio_queries]
        fig["search_docs"] = {
            name: stdio_latency(path, stdio_q, args.repeat, tmp)
            for name, path in (("exact", exact_dir), ("ivf", ivf_dir))
        }

    report(fig, curve)
    if args.json is not None:
        args.json.write_text(json.dumps(fig, indent=2) + "\n")
        print(f"\nwrote {args.json}")
    return 0


def report(fig: dict[str, Any], curve: list[dict[str, float]]) -> None:
    rows: list[tuple[str, str]] = []
    if "corpus_bytes" in fig:
        rows.append(("corpus", f"{fig['corpus_bytes'] / 1e6:.1f} MB markdown"))
    rows.append(("chunks", f"{fig['chunks']}"))
    if "build_exact_s" in fig:
        rows.append(("build exact (1st build)", f"{fig['build_exact_s']:.1f} s"))
    if "build_ivf_s" in fig:
        rows.append(("build IVF (2nd, same cache)", f"{fig['build_ivf_s']:.1f} s"))
        if "build_exact_s" in fig:
            delta = fig["build_ivf_s"] - fig["build_exact_s"]
            rows.append(("  IVF - exact build", f"{delta:+.1f} s"))
    for line in fig.get("build_log", []):
        rows.append(("  builder", line))
    rows.append(
        (
            "bundle exact / IVF",
            f"{fig['bundle_exact_bytes'] / 1e6:.1f} / {fig['bundle_ivf_bytes'] / 1e6:.1f} MB",
        )
    )
    ls = fig["list_size"]
    rows.append(("IVF lists / probe", f"{fig['lists']} / {fig['probe']}"))
    rows.append(("  list size min/median/max", f"{ls['min']} / {ls['median']:.0f} / {ls['max']}"))
    vs = fig["vector_search_us"]
    rows.append(("exact 1st query (float32 copy)", f"{fig['exact_first_query_ms']:.1f} ms"))
    for name in ("exact", "ivf"):
        rows.append(
            (
                f"vector search {name}, median / p95",
                f"{vs[name]['median'] / 1e3:.2f} / "
                f"{vs[name]['p95'] / 1e3:.2f} ms ({fig['queries']} queries)",
            )
        )
    speedup = vs["exact"]["median"] / vs["ivf"]["median"]
    rows.append(("  IVF speed-up (median, exact / IVF)", f"{speedup:.1f}x"))
    rows.append(("recall@10 IVF vs exact (default probe)", f"{fig['recall_at_10']:.3f}"))
    for name in ("exact", "ivf"):
        s = fig["search_docs"][name]
        rows.append(
            (
                f"search_docs {name} p50 / p95",
                f"{s['p50_ms']:.2f} / {s['p95_ms']:.2f} ms ({s['calls']} calls)",
            )
        )
        rows.append(
            (
                f"  {name}: spawn -> 1st result, peak RSS",
                f"{s['first_result_s'] * 1e3:.0f} ms, {s['peak_rss_mb']:.0f} MB",
            )
        )
    width = max(len(r[0]) for r in rows)
    for label, value in rows:
        print(f"{label.ljust(width)}  {value}")
    if curve:
        print(f"\nprobe curve ({fig['lists']} lists, {fig['queries']} queries, floor -1):")
        print("probe  recall@10  median ms  p95 ms")
        for c in curve:
            mark = "  <- default" if c["probe"] == fig["probe"] else ""
            print(
                f"{c['probe']:>5}  {c['recall_at_10']:>9.3f}  {c['median_us'] / 1e3:>9.2f}"
                f"  {c['p95_us'] / 1e3:>6.2f}{mark}"
            )


if __name__ == "__main__":
    sys.exit(main())
