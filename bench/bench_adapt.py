"""Corpus-adapted static tables (issue 16, direction 2): adapt, build, evaluate at several vector
weights, per dev set and category. Needs ../shared, torch and sentence-transformers.

    python bench/bench_adapt.py --corpus rust-reference --work tmp/adapt [--weights 0.05,0.2,0.5]

Per corpus: the full-text bundle (built here unless --fulltext DIR), a table adapted to it
(`docsmcp adapt`), a bundle built with that table, and the shipped-table bundle; each evaluated
on every dev set holding cases of the corpus, at each vector weight (runtime --fusion-weights).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

from docsmcp.commands.eval_cases import load_cases
from docsmcp.commands.evaluate import evaluate
from docsmcp_runtime.bundle.reader import open_bundle
from docsmcp_runtime.format import FusionWeights
from docsmcp_runtime.search.options import SearchOptions
from docsmcp_runtime.tools.app import DocsApp

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
DEV_SETS = ("dev-cases.jsonl", "dev-cases-nl.jsonl", "dev-cases-pdf.jsonl")


def run(cmd: list[str]) -> float:
    t = time.monotonic()
    subprocess.run(cmd, check=True)
    return time.monotonic() - t


def scores(bundle: Path, corpus: str, weight: float | None, floor: float | None) -> dict:
    out = {}
    for name in DEV_SETS:
        cases = [c for c in load_cases(SHARED / "eval" / name) if c["corpus"] == corpus]
        if not cases:
            continue
        fusion = FusionWeights.parse(f"vector={weight}") if weight is not None else FusionWeights()
        app = DocsApp(
            open_bundle(str(bundle)), SearchOptions(fusion=fusion, similarity_floor=floor)
        )
        report = evaluate({corpus: app}, cases, 5)
        js = report.to_json()
        out[name] = {
            "all": js["overall"]["mrr"],
            **{k: v["mrr"] for k, v in js["by_category"].items()},
            "p50_ms": js["overall"].get("latency_p50_ms"),
        }
    return out


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--corpus", required=True)
    p.add_argument("--work", type=Path, required=True)
    p.add_argument("--fulltext", type=Path)
    p.add_argument("--static", type=Path, help="bundle built with the shipped table")
    p.add_argument("--weights", default="0.05,0.2,0.5,1")
    p.add_argument("--floor", type=float)
    p.add_argument("--adapt-args", default="")
    p.add_argument("--tag", default="adapted")
    args = p.parse_args()
    work = args.work / args.corpus
    work.mkdir(parents=True, exist_ok=True)
    docsmcp = str(Path(sys.executable).with_name("docsmcp"))
    docs = SHARED / "corpora" / args.corpus
    fulltext = args.fulltext or work / "fulltext"
    timings = {}
    if not (fulltext / "metadata.json").exists():
        timings["build_fulltext_s"] = run(
            [docsmcp, "build", "-q", "--docs-dir", str(docs), "--out", str(fulltext)]
        )
    table = work / f"table-{args.tag}"
    timings["adapt_s"] = run(
        [docsmcp, "adapt", "--bundle", str(fulltext), "--out", str(table), *args.adapt_args.split()]
    )
    adapted = work / f"bundle-{args.tag}"
    timings["build_adapted_s"] = run(
        [
            docsmcp,
            "build",
            "-q",
            "--docs-dir",
            str(docs),
            "--out",
            str(adapted),
            "--embedding-provider",
            "static",
            "--embedding-model",
            str(table),
        ]
    )
    result = {"corpus": args.corpus, "tag": args.tag, "timings": timings, "runs": {}}
    result["runs"]["fulltext"] = scores(fulltext, args.corpus, None, None)
    for w in [float(x) for x in args.weights.split(",")]:
        if args.static:
            result["runs"][f"shipped@{w}"] = scores(args.static, args.corpus, w, args.floor)
        result["runs"][f"{args.tag}@{w}"] = scores(adapted, args.corpus, w, args.floor)
    print(json.dumps(result, indent=1))
    (work / f"result-{args.tag}.json").write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
