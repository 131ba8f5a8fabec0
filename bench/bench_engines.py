"""docsmcp beside tantivy and bm25s over the same chunks: the targets of issue 30, PASS/FAIL.

Indexes the chunk rows of a bundle's `chunks.parquet` with tantivy and bm25s (engines_peers.py
says how), then measures all three in the same run, in interleaved rounds (medians): cold start,
serving RSS, in-process ranking and hit-list latency, index bytes, and MRR@5 on the dev sets,
each judged as `docsmcp eval` judges docsmcp. Figures only: nothing here is a unit test.

    /work/venv/bin/python bench/bench_engines.py --bundle IDX [--corpora-bundles NAME=DIR ...]

See bench/README.md (bench_engines.py) for what each figure means.
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
from collections.abc import Callable
from pathlib import Path
from typing import Any

import buildbench
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
from engines_peers import BUILDERS, PEERS, PeerApp, dir_bytes, load_chunks, missing
from engines_serve import ENGINES

REPO = Path(__file__).resolve().parent.parent
SERVE = str(Path(__file__).with_name("engines_serve.py"))
DEFAULT_CASES = Path(os.environ.get("DOCSMCP_SHARED", REPO.parent / "shared")) / "eval"
SETS = {
    "dev": "dev-cases.jsonl",
    "nl": "dev-cases-nl.jsonl",
    "pdf": "dev-cases-pdf.jsonl",
    "mcp": "dev-cases-mcp.jsonl",
}
LEXICAL = ("terms.bin", "term_offsets.bin", "postings_offsets.bin", "postings_docs.bin")
LEXICAL += ("postings_impacts.bin",)
COLD_QUERY = "links.createMany"
SERVED = 200  # searches before the serving RSS is read
TARGETS = {
    # issue 30; "ratio" targets are docsmcp ÷ tantivy in the same run
    "cold_ratio": 3.0,
    "cli_ms": 150.0,
    "rss_ratio": 2.0,
    "extra_bundle_mb": 5.0,
    "rank_p50_ratio": 1.5,
    "rank_p95_ratio": 2.0,
    "search_docs_p50_ms": 1.0,
    "size_ratio": 1.2,
    "mrr_ratio": 1.2,  # at least
}


def median(values: list[float]) -> float:
    return statistics.median(values)


def mid(rounds: list[list[float]], q: float) -> float:
    """The median over rounds of each round's percentile q."""
    return median([pct(times, q) for times in rounds])


def proc_mb(pid: int) -> tuple[float, float]:
    """(VmRSS, VmHWM) of a live process in MB (10^6 bytes)."""
    found = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, rest = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            found[key] = int(rest.split()[0]) * 1024 / 1e6
    return found["VmRSS"], found["VmHWM"]


def bundle_name(bundle: Path) -> str:
    return json.loads((bundle / "metadata.json").read_text())["name"]


# --------------------------------------------------------------------------- cold start


def wall(cmd: list[str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0


def docsmcp_first_answer(bundle: Path, err: Any) -> float:
    """Spawn the stdio server → initialize → first search_docs result read (seconds)."""
    t0 = time.perf_counter()
    server = Server.spawn(tool("docsmcp-runtime"), bundle, err)
    try:

        def first() -> None:
            server.initialize()
            server.send(server.search_request({"query": COLD_QUERY, "limit": 10}))
            check_response(server.read_line(), want_tool_result=True)

        with_timeout(server, first)
        return time.perf_counter() - t0
    finally:
        server.close()


def measure_cold(bundle: Path, peers: dict[str, Path], rounds: int, tmp: Path) -> dict:
    """Seconds per process, each kind once per round, interleaved."""
    runtime = tool("docsmcp-runtime")
    cmds = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "docsmcp-runtime search": [runtime, "--bundle", str(bundle), "search", COLD_QUERY],
        **{p: [sys.executable, SERVE, p, str(d), COLD_QUERY] for p, d in peers.items()},
    }
    times: dict[str, list[float]] = {"docsmcp": [], **{k: [] for k in cmds}}
    with (tmp / "cold.stderr").open("w+b") as err:
        for _ in range(rounds):
            times["docsmcp"].append(docsmcp_first_answer(bundle, err))
            for name, cmd in cmds.items():
                times[name].append(wall(cmd))
    return times


# --------------------------------------------------------------------------- serving


def serve_docsmcp(bundles: list[Path], library: str | None, tmp: Path) -> dict:
    """A stdio server answering the 200 searches; round trips (ms) and its RSS after them."""
    cmd = [tool("docsmcp-runtime")]
    for b in bundles:
        cmd += ["--bundle", str(b)]
    extra = {"library": library} if library else {}
    with (tmp / "serve.stderr").open("w+b") as err:
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err)
        server = Server(proc, err)
        try:

            def run() -> list[float]:
                server.initialize()
                out = []
                for i in range(SERVED):
                    data = server.search_request({**QUERIES[i % len(QUERIES)], **extra})
                    t0 = time.perf_counter()
                    server.send(data)
                    line = server.read_line()
                    out.append((time.perf_counter() - t0) * 1000)
                    check_response(line, want_tool_result=True)
                return out

            times = with_timeout(server, run)
            rss, hwm = proc_mb(proc.pid)
        finally:
            server.close()
    return {"ms": times, "rss": rss, "hwm": hwm}


def serve_peer(name: str, index: Path) -> dict:
    """engines_serve.py's loop answering the same 200 searches over a pipe."""
    proc = subprocess.Popen(
        [sys.executable, SERVE, name, str(index)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stdout is not None
    times = []
    try:
        for i in range(SERVED):
            q = dict(QUERIES[i % len(QUERIES)])
            req = {"query": q.pop("query"), "filters": q, "limit": 10}
            data = json.dumps(req).encode() + b"\n"
            t0 = time.perf_counter()
            proc.stdin.write(data)
            proc.stdin.flush()
            line = proc.stdout.readline()
            times.append((time.perf_counter() - t0) * 1000)
            if not line:
                raise RuntimeError(f"{name} server exited ({proc.poll()})")
        rss, hwm = proc_mb(proc.pid)
    finally:
        proc.stdin.close()
        proc.wait(timeout=10)
        proc.stdout.close()
    return {"ms": times, "rss": rss, "hwm": hwm}


def measure_serving(
    bundle: Path, second: Path | None, peers: dict[str, Path], rounds: int, tmp: Path
) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {"docsmcp": [], "docsmcp+1": [], **{p: [] for p in peers}}
    for _ in range(rounds):
        out["docsmcp"].append(serve_docsmcp([bundle], None, tmp))
        if second is not None:
            two = serve_docsmcp([bundle, second], bundle_name(bundle), tmp)
            out["docsmcp+1"].append(two)
        for p, d in peers.items():
            out[p].append(serve_peer(p, d))
    return out


# --------------------------------------------------------------------------- in process


def ranking_queries(cases_dir: Path, corpus: str, taxonomy: set[str]) -> list[tuple[str, dict]]:
    """bench_speakeasy's 40 queries and the dev-case queries over `corpus`; filters on keys
    the bundle lacks are dropped."""
    from docsmcp.commands.eval_cases import load_cases

    pairs = [(q["query"], {k: v for k, v in q.items() if k != "query"}) for q in QUERIES]
    for name in ("dev", "nl"):
        path = cases_dir / SETS[name]
        if path.is_file():
            cases = [c for c in load_cases(path) if c["corpus"] == corpus]
            pairs += [(c["query"], c["filters"]) for c in cases]
    return [(q, {k: v for k, v in f.items() if k in taxonomy}) for q, f in pairs]


def measure_in_process(
    calls: dict[str, Callable[[str, dict], Any]],
    queries: list[tuple[str, dict]],
    rounds: int,
) -> dict[str, list[list[float]]]:
    """ms per call of each named call, over every query, in rounds; the order of the calls
    rotates each round so none always runs right after another."""
    names = list(calls)
    for name in names:  # warm: first-use caches, mapped pages
        for q, f in queries:
            calls[name](q, f)
    out: dict[str, list[list[float]]] = {n: [] for n in names}
    clock = time.perf_counter_ns
    for r in range(rounds):
        for name in names[r % len(names) :] + names[: r % len(names)]:
            fn, times = calls[name], []
            for q, f in queries:
                t0 = clock()
                fn(q, f)
                times.append((clock() - t0) / 1e6)
            out[name].append(times)
    return out


def docsmcp_calls(app: Any, prefix: str) -> dict[str, Callable[[str, dict], Any]]:
    return {
        f"{prefix} rank": lambda q, f: app.searcher.search(q, f, 0, 10),
        f"{prefix} hits": lambda q, f: app.call_tool("search_docs", {"query": q, **f, "limit": 10}),
    }


# --------------------------------------------------------------------------- quality


def measure_quality(
    cases_dir: Path, bundles: dict[str, Path], peer_dirs: dict[str, dict[str, Path]]
) -> tuple[dict[str, dict[str, dict]], list[str]]:
    """{set: {engine: {"mrr": overall, "by_corpus": {corpus: mrr}, "cases": n}}}, notes."""
    from docsmcp.commands.eval_cases import load_cases
    from docsmcp.commands.evaluate import evaluate
    from docsmcp_runtime.bundle.reader import open_bundle
    from docsmcp_runtime.tools.app import DocsApp

    apps: dict[str, dict[str, Any]] = {"docsmcp": {}, **{p: {} for p in PEERS}}
    for corpus, path in bundles.items():
        apps["docsmcp"][corpus] = DocsApp(open_bundle(path))
        chunks = load_chunks(path)
        for p, d in peer_dirs.get(corpus, {}).items():
            apps[p][corpus] = PeerApp(ENGINES[p](str(d)), chunks)
    out: dict[str, dict[str, dict]] = {}
    notes = []
    for name, filename in SETS.items():
        path = cases_dir / filename
        if not path.is_file():
            notes.append(f"set {name}: {path} not found, skipped")
            continue
        cases = load_cases(path)
        wanted = sorted({c["corpus"] for c in cases})
        lacking = [c for c in wanted if c not in bundles]
        if lacking:
            notes.append(f"set {name}: no bundle for {', '.join(lacking)} (--corpora-bundles)")
        if len(lacking) == len(wanted):
            continue
        out[name] = {}
        for engine, by_corpus in apps.items():
            if not by_corpus:
                continue
            report = evaluate(by_corpus, cases, k=5)
            out[name][engine] = {
                "mrr": report.overall.mrr,
                "cases": report.overall.answerable,
                "by_corpus": {c: m.mrr for c, m in report.by_corpus.items()},
            }
    return out, notes


# --------------------------------------------------------------------------- main


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--bundle", type=Path, help="full-text bundle (default: build speakeasy-sdks)")
    p.add_argument("--docs-dir", type=Path, default=DEFAULT_DOCS, help="corpus built then")
    p.add_argument("--rounds", type=int, default=5, help="interleaved rounds (default 5)")
    p.add_argument("--json", type=Path, metavar="PATH", help="also write the figures here")
    p.add_argument("--skip-quality", action="store_true", help="no MRR@5 on the dev sets")
    p.add_argument(
        "--corpora-bundles",
        nargs="*",
        default=[],
        metavar="NAME=DIR",
        help="bundles of the other dev sets' corpora (NAME as in the cases; DIR alone: "
        "the bundle's metadata name); sets without their bundles are skipped",
    )
    p.add_argument(
        "--second-bundle",
        type=Path,
        help="served beside --bundle for the extra-bundle RSS (default: the first of "
        "--corpora-bundles)",
    )
    p.add_argument("--hybrid-bundle", type=Path, help="also time search_docs on this bundle")
    p.add_argument("--cases-dir", type=Path, default=DEFAULT_CASES, help="the dev sets")
    args = p.parse_args(argv)
    if args.rounds < 1:
        p.error("--rounds must be >= 1")
    return args


class Table:
    HEADERS = ("figure", "docsmcp", "tantivy", "bm25s", "÷ tantivy", "target", "result")

    def __init__(self) -> None:
        self.rows: list[tuple[str, ...]] = []
        self.results: dict[str, bool] = {}

    def row(
        self,
        label: str,
        values: dict[str, str],
        ratio: str = "",
        target: str = "",
        key: str | None = None,
        ok: bool | None = None,
    ) -> None:
        result = ""
        if key is not None:
            result = "SKIP" if ok is None else ("PASS" if ok else "FAIL")
            if ok is not None:
                self.results[key] = ok
        cells = [values.get(e, "") for e in ("docsmcp", *PEERS)]
        self.rows.append((label, *cells, ratio, target, result))

    def ratio_row(self, key: str, label: str, values: dict[str, float], fmt: str, unit: str):
        """A docsmcp ÷ tantivy target (at most TARGETS[key]; at least for MRR)."""
        shown = {e: f"{v:{fmt}}{unit}" for e, v in values.items() if v is not None}
        t = values.get("tantivy")
        if t is None or values.get("docsmcp") is None or not t:
            self.row(label, shown, "-", f"{TARGETS[key]}×", key, None)
            return
        ratio = values["docsmcp"] / t
        at_least = key == "mrr_ratio"
        ok = ratio >= TARGETS[key] if at_least else ratio <= TARGETS[key]
        sign = ">=" if at_least else "<="
        self.row(label, shown, f"{ratio:.2f}×", f"{sign} {TARGETS[key]}×", key, ok)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    print(buildbench.ensure_bytecode(), flush=True)
    skipped = {p: why for p in PEERS if (why := missing(p))}
    for p, why in skipped.items():
        print(f"{p}: skipped, {why}")
    peers = [p for p in PEERS if p not in skipped]
    figures: dict[str, Any] = {"rounds": args.rounds, "targets": TARGETS, "skipped": skipped}
    table = Table()
    with tempfile.TemporaryDirectory(prefix="bench-engines-") as tmp_name:
        tmp = Path(tmp_name)
        if args.bundle is None:
            bundle = tmp / "bundle"
            print(f"building {args.docs_dir} ...", flush=True)
            buildbench.run(
                [tool("docsmcp"), "build", "--docs-dir", str(args.docs_dir)]
                + ["--out", str(bundle), "-q"]
            )
        else:
            bundle = args.bundle.resolve()
        corpus = bundle_name(bundle)
        bundles = {corpus: bundle}
        for spec in args.corpora_bundles:
            name, sep, path = spec.partition("=")
            if not sep:
                path, name = spec, bundle_name(Path(spec))
            bundles[name] = Path(path).resolve()
        second = args.second_bundle or next((b for n, b in bundles.items() if n != corpus), None)
        dirs: dict[str, dict[str, Path]] = {}
        for name, path in bundles.items():
            if name != corpus and args.skip_quality:
                continue
            chunks = load_chunks(path)
            for p in peers:
                out = tmp / "peers" / name / p
                t0 = time.perf_counter()
                BUILDERS[p](chunks, out)
                dirs.setdefault(name, {})[p] = out
                print(
                    f"{p} index of {name}: {len(chunks):,} chunks, "
                    f"{time.perf_counter() - t0:.1f} s",
                    flush=True,
                )
        mine = dirs.get(corpus, {})
        load = os.getloadavg()
        print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}", flush=True)

        # 1. cold start
        print(f"cold start x{args.rounds} ...", flush=True)
        cold = measure_cold(bundle, mine, args.rounds, tmp)
        figures["cold_s"] = cold
        ms = {k: median(v) * 1000 for k, v in cold.items()}
        table.ratio_row("cold_ratio", "cold start → first answer (stdio)", ms, ".0f", " ms")
        cli = ms["docsmcp-runtime search"]
        table.row(
            "  `docsmcp-runtime search` from a shell",
            {"docsmcp": f"{cli:.0f} ms"},
            target=f"<= {TARGETS['cli_ms']:.0f} ms",
            key="cli_ms",
            ok=cli <= TARGETS["cli_ms"],
        )
        table.row("  floor: `python -c pass`", {"docsmcp": f"{ms['python -c pass']:.0f} ms"})

        # 2. serving RSS, and the round trips of the same 200 searches
        print(f"serving {SERVED} searches x{args.rounds} ...", flush=True)
        serving = measure_serving(bundle, second, mine, args.rounds, tmp)
        figures["serving"] = {
            k: [{"rss": r["rss"], "hwm": r["hwm"], "p50_ms": pct(r["ms"], 50)} for r in v]
            for k, v in serving.items()
        }
        hwm = {k: median([r["hwm"] for r in v]) for k, v in serving.items() if v}
        rss = {k: median([r["rss"] for r in v]) for k, v in serving.items() if v}
        table.ratio_row(
            "rss_ratio", f"serving peak RSS (VmHWM), {SERVED} searches", hwm, ".1f", " MB"
        )
        table.row("  VmRSS after them", {k: f"{v:.1f} MB" for k, v in rss.items()})
        if second is not None:
            extra = hwm["docsmcp+1"] - hwm["docsmcp"]
            one = [r["hwm"] for r in serving["docsmcp"]]
            table.row(
                f"  + a 2nd bundle served ({bundle_name(second)}, no query; "
                f"1 bundle: {min(one):.0f}-{max(one):.0f} MB over rounds)",
                {"docsmcp": f"{extra:+.1f} MB"},
                target=f"<= {TARGETS['extra_bundle_mb']:.0f} MB",
                key="extra_bundle_mb",
                ok=extra <= TARGETS["extra_bundle_mb"],
            )
            figures["extra_bundle_mb"] = extra
        else:
            table.row(
                "  + a 2nd bundle served",
                {"docsmcp": "no --second-bundle"},
                key="extra_bundle_mb",
                ok=None,
            )
        trips = {k: mid([r["ms"] for r in v], 50) for k, v in serving.items() if v}
        trips.pop("docsmcp+1", None)
        table.row("hit list over stdio / a pipe, p50", {k: f"{v:.2f} ms" for k, v in trips.items()})

        # 3 + 4. in process
        from docsmcp_runtime.bundle.reader import open_bundle
        from docsmcp_runtime.tools.app import DocsApp

        app = DocsApp(open_bundle(bundle))
        app.bundle.ready()
        calls = docsmcp_calls(app, "docsmcp")
        for p, d in mine.items():
            engine = ENGINES[p](str(d))
            calls[f"{p} rank"], calls[f"{p} hits"] = engine.rank, engine.hits
        if args.hybrid_bundle is not None:
            hybrid = DocsApp(open_bundle(args.hybrid_bundle))
            hybrid.bundle.ready()
            calls.update(docsmcp_calls(hybrid, "hybrid"))
        queries = ranking_queries(args.cases_dir, corpus, set(app.searcher.taxonomy))
        print(f"in process: {len(queries)} queries x{args.rounds} ...", flush=True)
        lat = measure_in_process(calls, queries, args.rounds)
        figures["in_process_ms"] = {
            k: {"p50": mid(v, 50), "p95": mid(v, 95)} for k, v in lat.items()
        }
        for q, key in ((50, "rank_p50_ratio"), (95, "rank_p95_ratio")):
            values = {e: mid(lat[f"{e} rank"], q) for e in ("docsmcp", *mine)}
            table.ratio_row(
                key, f"ranking p{q}, top 10 ({len(queries)} queries)", values, ".3f", " ms"
            )
        for q in (50, 95):
            values = {e: f"{mid(lat[f'{e} hits'], q):.3f} ms" for e in ("docsmcp", *mine)}
            d = mid(lat["docsmcp hits"], q)
            t = mid(lat["tantivy hits"], q) if "tantivy" in mine else 0.0
            ratio = f"{d / t:.2f}×" if t else "-"
            if q == 50:
                table.row(
                    "whole hit list (search_docs) p50",
                    values,
                    ratio,
                    f"<= {TARGETS['search_docs_p50_ms']:.0f} ms",
                    "search_docs_p50_ms",
                    d <= TARGETS["search_docs_p50_ms"],
                )
            else:
                table.row("  p95", values, ratio)
        if args.hybrid_bundle is not None:
            h = mid(lat["hybrid hits"], 50)
            table.row(
                f"  hybrid search_docs p50 (rank {mid(lat['hybrid rank'], 50):.3f} ms)",
                {"docsmcp": f"{h:.3f} ms"},
                target=f"<= {TARGETS['search_docs_p50_ms']:.0f} ms",
                key="hybrid_search_docs_p50_ms",
                ok=h <= TARGETS["search_docs_p50_ms"],
            )

        # 5. index on disk
        sizes = {"docsmcp": dir_bytes(bundle) / 1e6}
        sizes.update({p: dir_bytes(d) / 1e6 for p, d in mine.items()})
        lexical = sum((bundle / f).stat().st_size for f in LEXICAL if (bundle / f).exists())
        figures["bytes_mb"] = {**sizes, "docsmcp_lexical": lexical / 1e6}
        table.ratio_row("size_ratio", "index on disk", sizes, ".2f", " MB")
        table.row(
            "  docsmcp lexical part (terms, postings)", {"docsmcp": f"{lexical / 1e6:.2f} MB"}
        )

        # 6. quality
        if not args.skip_quality:
            print("MRR@5 on the dev sets ...", flush=True)
            quality, notes = measure_quality(args.cases_dir, bundles, dirs)
            figures["mrr5"] = quality
            for note in notes:
                print(note)
            for name, engines in quality.items():
                n = engines["docsmcp"]["cases"]
                values = {e: q["mrr"] for e, q in engines.items()}
                table.ratio_row("mrr_ratio", f"MRR@5 {name} ({n} cases)", values, ".3f", "")
                if (ok := table.results.pop("mrr_ratio", None)) is not None:
                    table.results[f"mrr_{name}"] = ok
                by_corpus = engines["docsmcp"]["by_corpus"]
                if len(by_corpus) > 1:
                    for c in by_corpus:
                        mrr = {e: q["by_corpus"][c] for e, q in engines.items()}
                        shown = {e: f"{v:.3f}" for e, v in mrr.items()}
                        t = mrr.get("tantivy")
                        table.row(f"  {c}", shown, f"{mrr['docsmcp'] / t:.2f}×" if t else "-")
    figures["pass"] = table.results
    figures["load_average"] = os.getloadavg()
    print()
    print_table(table.rows, Table.HEADERS)
    if args.json is not None:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
        print(f"\nwrote {args.json}")
    return 0 if all(table.results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
