"""Serving at scale: a synthetic ~1,000,000-chunk bundle against issue 14's targets.

Generates (or reuses, `--synth DIR`) the full-text and hybrid (static embedding + IVF) bundles of
`synth_bundle.py`, then measures, for each, with the speakeasy-sdks source bundle as the floor
measured in the same run:

- open: `open_bundle` alone, in a fresh interpreter (imports not counted), median of `--opens`;
  and the time until the background check of large files is done (`Bundle.ready`);
- search_docs round trips over stdio (`docsmcp-runtime`, raw pipes: bench_speakeasy's client),
  p50/p95, and the server's CPU milliseconds per call (its /proc CPU time over the timed calls:
  robust to a machine shared with other work, unlike wall time);
- the server's peak RSS (VmHWM) and its anonymous part at the end.

    .venv/bin/python bench/bench_scale.py [--synth /tmp/synth] [--source IDX] [--json out.json]

Exits 0 with a message when the shared corpora are missing; 1 if a target fails.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_speakeasy import (
    DEFAULT_DOCS,
    QUERIES,
    Server,
    check_response,
    pct,
    print_table,
    tool,
    with_timeout,
)

TARGETS = {"open_s": 0.5, "fulltext_p50_ms": 20.0, "hybrid_p50_ms": 30.0, "rss_mb": 500.0}

OPEN_SCRIPT = """
import sys, time
from docsmcp_runtime.bundle.reader import open_bundle
t0 = time.perf_counter()
bundle = open_bundle(sys.argv[1])
t1 = time.perf_counter()
bundle.ready()
t2 = time.perf_counter()
rss = anon = 0
for line in open("/proc/self/status"):
    if line.startswith("VmRSS:"):
        rss = int(line.split()[1]) * 1024
    elif line.startswith("RssAnon:"):
        anon = int(line.split()[1]) * 1024
print(t1 - t0, t2 - t0, rss, anon, bundle.n_chunks)
"""


def measure_open(bundle: Path, runs: int) -> dict[str, float]:
    opened, ready, rss, anon = [], [], [], []
    n = 0
    for _ in range(runs):
        out = subprocess.run(
            [sys.executable, "-c", OPEN_SCRIPT, str(bundle)],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.split()
        opened.append(float(out[0]))
        ready.append(float(out[1]))
        rss.append(int(out[2]) / 1e6)
        anon.append(int(out[3]) / 1e6)
        n = int(out[4])
    return {
        "open_s": statistics.median(opened),
        "ready_s": statistics.median(ready),
        "rss_mb": statistics.median(rss),
        "anon_mb": statistics.median(anon),
        "chunks": n,
    }


def _cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _status_mb(pid: int, key: str) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{key}:"):
            return int(line.split()[1]) * 1024 / 1e6
    raise RuntimeError(f"no {key} in /proc/{pid}/status")


def measure_search(bundle: Path, repeat: int, warmup: int, tmp: Path) -> dict[str, Any]:
    """search_docs round trips over stdio: p50/p95 ms, server CPU ms per call, peak RSS."""
    with (tmp / f"{bundle.name}.stderr").open("w+b") as err:
        server = Server.spawn(tool("docsmcp-runtime"), bundle, err)
        try:

            def run() -> tuple[list[float], float, int]:
                server.initialize()
                zero = 0
                for _ in range(warmup):
                    for q in QUERIES:
                        server.send(server.search_request({**q, "limit": 10}))
                        res = check_response(server.read_line(), want_tool_result=True)
                        zero += not res["structuredContent"]["hits"]
                requests = [
                    server.search_request({**q, "limit": 10})
                    for _ in range(repeat)
                    for q in QUERIES
                ]
                lines, times = [], []
                cpu0 = _cpu_s(server.proc.pid)
                for data in requests:
                    t0 = time.perf_counter()
                    server.send(data)
                    lines.append(server.read_line())
                    times.append((time.perf_counter() - t0) * 1000)
                cpu = _cpu_s(server.proc.pid) - cpu0
                for line in lines:
                    check_response(line, want_tool_result=True)
                return times, cpu * 1000 / len(requests), zero // max(warmup, 1)

            times, cpu_ms, zero = with_timeout(server, run)
            peak = _status_mb(server.proc.pid, "VmHWM")
            anon = _status_mb(server.proc.pid, "RssAnon")
        finally:
            server.close()
    return {
        "p50_ms": pct(times, 50),
        "p95_ms": pct(times, 95),
        "cpu_ms_per_call": cpu_ms,
        "peak_rss_mb": peak,
        "anon_mb": anon,
        "zero_hit_queries": zero,
        "calls": len(times),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--synth", type=Path, help="reuse synth_bundle.py output (DIR/fulltext, ...)")
    ap.add_argument("--source", type=Path, help="the real bundle to grow (default: build one)")
    ap.add_argument("--docs-dir", type=Path, default=DEFAULT_DOCS)
    ap.add_argument("--chunks", type=int, default=1_000_000)
    ap.add_argument("--opens", type=int, default=5, help="open_bundle runs per bundle (5)")
    ap.add_argument("--repeat", type=int, default=3, help="timed passes over the queries (3)")
    ap.add_argument("--warmup", type=int, default=1, help="untimed passes first (1)")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    import synth_bundle

    with tempfile.TemporaryDirectory(prefix="bench-scale-") as tmp_name:
        tmp = Path(tmp_name)
        source = args.source
        if source is None and (args.synth is None or not (args.synth / "fulltext").is_dir()):
            if not args.docs_dir.is_dir():
                print(f"skipped: {args.docs_dir} not found (the shared corpora are needed)")
                return 0
            source = synth_bundle.build_source(args.docs_dir, tmp / "source")
        synth = args.synth or tmp / "synth"
        if not (synth / "fulltext").is_dir():
            print(f"generating ~{args.chunks:,} chunks into {synth} ...", flush=True)
            assert source is not None
            synth_bundle.generate(source, synth, args.chunks, rare_df=2, seed=0)
        bundles = {"fulltext": synth / "fulltext", "hybrid": synth / "hybrid"}
        if source is not None:
            bundles = {"floor (source)": source, **bundles}
        figures: dict[str, Any] = {}
        for label, path in bundles.items():
            if not path.is_dir():
                continue
            print(f"{label}: open x{args.opens}, search {args.warmup}+{args.repeat} passes ...",
                  flush=True)  # fmt: skip
            figures[label] = {
                "open": measure_open(path, args.opens),
                "search": measure_search(path, args.repeat, args.warmup, tmp),
            }

    rows = []
    for label, f in figures.items():
        o, s = f["open"], f["search"]
        rows.append((label, f"{o['chunks']:,}", f"{o['open_s'] * 1000:.0f}",
                     f"{o['ready_s'] * 1000:.0f}", f"{o['anon_mb']:.0f}", f"{s['p50_ms']:.1f}",
                     f"{s['p95_ms']:.1f}", f"{s['cpu_ms_per_call']:.1f}",
                     f"{s['peak_rss_mb']:.0f}", f"{s['anon_mb']:.0f}"))  # fmt: skip
    print()
    print_table(
        rows,
        headers=("bundle", "chunks", "open ms", "ready ms", "anon MB", "p50 ms", "p95 ms",
                 "CPU ms/call", "peak RSS MB", "anon MB"),
    )  # fmt: skip
    checks = []
    floor = figures.get("floor (source)")
    fo, fs = (floor["open"], floor["search"]) if floor else ({}, {})

    def at_floor(figure: dict, key: str, scale: float, unit: str) -> str:
        return f"{figure[key] * scale:.1f} {unit}" if key in figure else "-"

    for label, key in (("fulltext", "fulltext_p50_ms"), ("hybrid", "hybrid_p50_ms")):
        if label not in figures:
            continue
        o, s = figures[label]["open"], figures[label]["search"]
        checks += [
            (f"{label}: open_bundle", f"{o['open_s'] * 1000:.0f} ms",
             f"<= {TARGETS['open_s'] * 1000:.0f} ms", at_floor(fo, "open_s", 1000, "ms"),
             o["open_s"] <= TARGETS["open_s"]),
            (f"{label}: search_docs p50", f"{s['p50_ms']:.1f} ms",
             f"<= {TARGETS[key]:.0f} ms", at_floor(fs, "p50_ms", 1, "ms"),
             s["p50_ms"] <= TARGETS[key]),
            (f"{label}: CPU per search", f"{s['cpu_ms_per_call']:.1f} ms", "-",
             at_floor(fs, "cpu_ms_per_call", 1, "ms"), True),
            (f"{label}: peak RSS", f"{s['peak_rss_mb']:.0f} MB",
             f"<= {TARGETS['rss_mb']:.0f} MB", at_floor(fs, "peak_rss_mb", 1, "MB"),
             s["peak_rss_mb"] <= TARGETS["rss_mb"]),
        ]  # fmt: skip
    print()
    print_table(
        [(n, v, t, f, "PASS" if ok else "FAIL") for n, v, t, f, ok in checks],
        headers=("check", "value", "target", "floor (source, same run)", "result"),
    )
    if args.json is not None:
        figures["checks"] = {n: ok for n, *_, ok in checks}
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    return 0 if all(ok for *_, ok in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
