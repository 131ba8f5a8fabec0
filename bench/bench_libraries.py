"""Several bundles in one server (issue 11, item 4): 20 full-text bundles behind one
`docsmcp-runtime --bundle SHELF` over stdio, against one bundle alone as the floor.

The shelf holds the corpora of ../shared (speakeasy-sdks, yellow-docs, rust-reference; r-manuals
when the builder reads PDFs) built once each, then copied under other names (metadata `name`
rewritten) up to 20 bundles, so every library is a separate set of files to map.

Figures (targets from the issue): cold start to the first answer of a search across all
libraries (<= 1.5 s), peak RSS after searching every library (<= 600 MB), search_docs p50 in one
library (<= 5 ms) and across all (<= 30 ms); and the quality of fusion: the dev sets run against
the 3-corpus server without `library` (hits from other libraries count as misses), next to each
corpus served alone.

    python bench/bench_libraries.py [--shelf DIR] [--bundles 20] [--repeat 20]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_speakeasy import (  # noqa: E402 - the shared raw-pipe client and helpers
    Server,
    check_response,
    measure_cold,
    pct,
    print_table,
    tool,
    vm_hwm_mb,
    with_timeout,
)

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
CORPORA = ("speakeasy-sdks", "yellow-docs", "rust-reference", "r-manuals")
DEV_SETS = ("dev-cases.jsonl", "dev-cases-nl.jsonl", "dev-cases-pdf.jsonl")
QUERIES = ("create a link", "trait object lifetime", "channel state", "RateLimitError", "retry")
TARGETS = {"cold_s": 1.5, "rss_mb": 600.0, "one_ms": 5.0, "all_ms": 30.0}


def build_shelf(shelf: Path, count: int) -> list[str]:
    """Build each corpus once (under shelf/.built) and copy them round-robin to `count`
    bundles named NAME, NAME-2, ...; returns the corpora built."""
    built_dir = shelf / ".built"
    built = []
    for name in CORPORA:
        docs = SHARED / "corpora" / name
        out = built_dir / name
        if not docs.is_dir():
            continue
        if not (out / "metadata.json").is_file():
            done = subprocess.run(
                [tool("docsmcp"), "build", "--docs-dir", str(docs), "--out", str(out), "-q"],
                capture_output=True,
                text=True,
            )
            if done.returncode != 0:
                print(f"  skipping {name}: {done.stderr.strip().splitlines()[-1:]}")
                continue
        built.append(name)
    if not built:
        sys.exit("bench: no corpus built; is ../shared/corpora there?")
    for i in range(count):
        source = built[i % len(built)]
        copy = i // len(built) + 1
        name = source if copy == 1 else f"{source}-{copy}"
        target = shelf / f"{i:02d}-{name}"
        if not target.exists():
            shutil.copytree(built_dir / source, target)
            meta_path = target / "metadata.json"
            meta = json.loads(meta_path.read_text())
            meta["name"] = name  # metadata.json has no checksum of its own: still valid
            meta_path.write_text(json.dumps(meta, indent=2))
    return built


def cold_start(bundle: Path, runs: int, tmp: Path) -> tuple[list[float], float]:
    """Spawn → initialize → first search answered (across all libraries of a shelf); max VmHWM."""
    times, _, rss = measure_cold(bundle, runs, tmp)
    return times, rss


def latency(bundle: Path, repeat: int, library: str | None, tmp: Path) -> tuple[list[float], float]:
    """Warm search_docs round trips (ms) in one process, and its peak RSS after them."""
    with (tmp / "latency.err").open("w+b") as err:
        server = Server.spawn(tool("docsmcp-runtime"), bundle, err)
        try:

            def run() -> list[float]:
                server.initialize()
                extra = {"library": library} if library else {}
                requests = [
                    server.search_request({"query": q, "limit": 10, **extra})
                    for _ in range(repeat + 1)
                    for q in QUERIES
                ]
                times = []
                for n, data in enumerate(requests):
                    t0 = time.perf_counter()
                    server.send(data)
                    line = server.read_line()
                    if n >= len(QUERIES):  # the first round is warm-up
                        times.append((time.perf_counter() - t0) * 1000)
                    check_response(line, want_tool_result=True)
                return times

            times = with_timeout(server, run)
            return times, vm_hwm_mb(server.proc.pid)
        finally:
            server.close()


def fusion_quality(built: Path, corpora: list[str]) -> None:
    """Dev sets against one server of all corpora (no `library`) and each corpus alone."""
    from docsmcp.commands.eval_cases import load_cases
    from docsmcp.commands.evaluate import evaluate
    from docsmcp_runtime.bundle.reader import open_bundle
    from docsmcp_runtime.libraries.serving import serving_app

    class OwnLibraryOnly:
        """A hit of another library than the case's corpus is a miss: its path is marked."""

        def __init__(self, app, corpus: str) -> None:  # noqa: ANN001
            self.app, self.corpus = app, corpus

        def call_tool(self, name: str, args: dict) -> dict:
            result = self.app.call_tool(name, args)
            for hit in (result.get("structuredContent") or {}).get("hits", []):
                if hit.get("library", self.corpus) != self.corpus:
                    hit["filepath"] = hit["library"] + ":" + hit["filepath"]
            return result

    cases = []
    for name in DEV_SETS:
        path = SHARED / "eval" / name
        if path.is_file():
            cases.extend(load_cases(path))
    together = serving_app([open_bundle(built / c) for c in corpora])
    alone = {c: serving_app([open_bundle(built / c)]) for c in corpora}
    fused = evaluate({c: OwnLibraryOnly(together, c) for c in corpora}, cases)
    single = evaluate(alone, cases)
    rows = []
    for label, a, b in (
        [("overall", single.overall, fused.overall)]
        + [(f"  {k}", single.by_category[k], fused.by_category[k]) for k in single.by_category]
        + [(f"  {k}", single.by_corpus[k], fused.by_corpus[k]) for k in single.by_corpus]
    ):
        rows.append(
            (
                label,
                str(a.cases),
                f"{a.mrr:.3f}",
                f"{b.mrr:.3f}",
                f"{a.hit_rate:.3f}",
                f"{b.hit_rate:.3f}",
            )
        )
    print(
        f"\nfusion quality: {len(fused.results)} dev cases, MRR@5 / hit@5, each corpus alone "
        f"vs all {len(corpora)} in one server without `library`"
    )
    print_table(rows, ("cases", "n", "MRR alone", "MRR fused", "hit alone", "hit fused"))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shelf", type=Path, help="where the bundles go (default: a temp dir)")
    ap.add_argument("--bundles", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--cold-runs", type=int, default=5)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        shelf = args.shelf or tmp / "shelf"
        shelf.mkdir(parents=True, exist_ok=True)
        corpora = build_shelf(shelf, args.bundles)
        print(f"{args.bundles} bundles from {', '.join(corpora)} in {shelf}")
        floor = shelf / ".built" / corpora[0]
        cold_one, rss_one = cold_start(floor, args.cold_runs, tmp)
        cold_all, rss_cold = cold_start(shelf, args.cold_runs, tmp)
        one, _ = latency(shelf, args.repeat, corpora[0], tmp)
        every, rss_all = latency(shelf, args.repeat, None, tmp)
        alone, _ = latency(floor, args.repeat, None, tmp)
        rss = max(rss_cold, rss_all)

        def judged(label: str, value: float, unit: str, target: float, floor_value: float):
            ok = "ok" if value <= target else "MISSED"
            return (
                label,
                f"{value:.{3 if unit == 's' else 1}f} {unit}",
                f"<= {target:g} {unit}",
                f"{ok} ({value / floor_value:.1f}x one bundle)",
            )

        print()
        print_table(
            [
                judged(
                    "cold start, all", pct(cold_all, 50), "s", TARGETS["cold_s"], pct(cold_one, 50)
                ),
                judged("peak RSS, all", rss, "MB", TARGETS["rss_mb"], rss_one),
                judged(
                    "search p50, one library", pct(one, 50), "ms", TARGETS["one_ms"], pct(alone, 50)
                ),
                judged("search p50, all", pct(every, 50), "ms", TARGETS["all_ms"], pct(alone, 50)),
                (
                    "(floor) one bundle alone",
                    f"cold {pct(cold_one, 50):.3f} s, RSS "
                    f"{rss_one:.0f} MB, search p50 {pct(alone, 50):.2f} ms",
                    "",
                    "",
                ),
            ]
        )
        fusion_quality(shelf / ".built", corpora)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
