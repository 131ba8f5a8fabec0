"""What a bundle's rescoring model costs at serve time (issue 29): size, start, latency, memory.

For each bundle, in a fresh interpreter (so RSS and imports are its own):
- bundle size (all files) and the encoder file's size;
- first answer: process start → bundle opened → the first search_docs result (the encoder loads
  in the background, so this is the full-text answer and should not grow with the model);
- model ready: process start → the encoder loaded (sha256 checked, session built);
- search_docs p50/p95 over the dev-set questions of the bundle's corpus once the model is ready
  (one onnxruntime thread, the default), and without the model (--no-rescore) in the same run;
- peak RSS after those searches;
- slowest answer while the model loads, over `--rounds` starts: searches in bursts of five,
  `--gap` seconds apart (an agent's model thinking between them), from the start until the
  model is ready: a search that waits on the tokenizer's parse (it holds the GIL) shows here.

    python bench/bench_rescore.py --bundle speakeasy-sdks=/path/idx [--bundle ...] [--cases FILE]

Quality (MRR@5 per dev set) is `docsmcp eval` with and without `--no-rescore`; docs/search.md
has the table. Prints one line per bundle; no targets are asserted.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

SHARED = Path(__file__).resolve().parents[2] / "shared"

CHILD = r"""
import json, resource, sys, time
t0 = time.perf_counter()
from docsmcp_runtime.bundle.reader import open_bundle
from docsmcp_runtime.search.options import SearchOptions
from docsmcp_runtime.tools.app import DocsApp
path, queries, rescore = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3] == "1"
app = DocsApp(open_bundle(path), SearchOptions(rescore=rescore))
call = lambda q: app.call_tool("search_docs", {"query": q, "limit": 10})
call(queries[0])
first = time.perf_counter() - t0
rescorer = app.searcher.rescorer
ready = None
if rescorer is not None:
    rescorer.wait(900)
    ready = time.perf_counter() - t0
for q in queries[:5]:
    call(q)
times = []
for _ in range(2):
    for q in queries:
        t = time.perf_counter(); call(q); times.append((time.perf_counter() - t) * 1000)
times.sort()
pick = lambda f: times[min(len(times) - 1, int(f * len(times)))]
print(json.dumps({"first_ms": first * 1000, "ready_s": ready, "p50": pick(0.5), "p95": pick(0.95),
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "error": rescorer.error if rescorer is not None else None}))
"""

BURSTS = r"""
import json, sys, time
from docsmcp_runtime.bundle.reader import open_bundle
from docsmcp_runtime.search.options import SearchOptions
from docsmcp_runtime.tools.app import DocsApp
path, queries, gap = sys.argv[1], json.loads(sys.argv[2]), float(sys.argv[3])
app = DocsApp(open_bundle(path), SearchOptions(rescore=True))
rescorer = app.searcher.rescorer
slowest, n = 0.0, 0
while rescorer is not None and not rescorer.wait(0):
    for q in queries[:5]:
        t = time.perf_counter()
        app.call_tool("search_docs", {"query": q, "limit": 10})
        slowest, n = max(slowest, time.perf_counter() - t), n + 1
    time.sleep(gap)
print(json.dumps({"slowest_ms": slowest * 1000, "searches": n}))
"""


def questions(cases: list[Path], corpus: str) -> list[str]:
    out = []
    for path in cases:
        for line in path.read_text("utf-8").splitlines():
            case = json.loads(line) if line.strip() else None
            if case and case["corpus"] == corpus:
                out.append(case["query"])
    return out


def run(bundle: Path, queries: list[str], rescore: bool, gap: float | None = None) -> dict:
    script, last = (CHILD, "1" if rescore else "0") if gap is None else (BURSTS, str(gap))
    proc = subprocess.run(
        [sys.executable, "-c", script, str(bundle), json.dumps(queries), last],
        capture_output=True,
        text=True,
        timeout=1800,
    )
    if proc.returncode != 0:
        raise SystemExit(f"{bundle}: {proc.stderr.strip().splitlines()[-1]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bundle", action="append", required=True, metavar="CORPUS=DIR")
    parser.add_argument("--cases", action="append", type=Path, metavar="FILE")
    parser.add_argument(
        "--gap", type=float, default=2.0, help="seconds between bursts while loading (2)"
    )
    parser.add_argument("--rounds", type=int, default=3, help="starts for the loading figure (3)")
    args = parser.parse_args()
    cases = args.cases or sorted((SHARED / "eval").glob("*.jsonl"))
    print(
        f"{'bundle':<28} {'MB':>7} {'encoder':>8} {'first ms':>8} {'ready s':>7} "
        f"{'p50 ms':>7} {'p95 ms':>7} {'RSS MB':>7} {'loading':>8} | no model: {'p50':>5} "
        f"{'RSS':>5}"
    )
    for spec in args.bundle:
        corpus, _, path = spec.partition("=")
        bundle = Path(path)
        queries = questions(cases, corpus)
        if not queries:
            raise SystemExit(f"no cases for corpus {corpus!r}")
        meta = json.loads((bundle / "metadata.json").read_text("utf-8"))
        size = sum(p.stat().st_size for p in bundle.iterdir()) / 1e6
        rescore = meta.get("rescore")
        # A GGUF encoder is a file outside the bundle ($DOCSMCP_RESCORE_MODEL): 0 here.
        encoder = rescore["encoder"].get("model") if rescore else None
        enc_mb = (bundle / encoder).stat().st_size / 1e6 if encoder else 0.0
        with_model = run(bundle, queries, True)
        without = run(bundle, queries, False)
        rounds = [run(bundle, queries, True, args.gap) for _ in range(args.rounds)]
        loading = max(r["slowest_ms"] for r in rounds)
        if with_model["error"]:
            print(f"{bundle}: the model did not load: {with_model['error']}")
        ready = f"{with_model['ready_s']:.2f}" if with_model["ready_s"] is not None else "-"
        print(
            f"{bundle.name + ' (' + corpus + ')':<28.28} {size:>7.1f} {enc_mb:>8.1f} "
            f"{with_model['first_ms']:>8.0f} {ready:>7} {with_model['p50']:>7.1f} "
            f"{with_model['p95']:>7.1f} {with_model['rss_mb']:>7.0f} "
            f"{loading:>8.0f} | "
            f"{without['p50']:>9.1f} {without['rss_mb']:>5.0f}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
