"""Markdown tables comparing embedding setups per corpus, dev set and category.

Two forms:

    # Any runs under the runtime's default fusion (convex, query-aware), MRR@5 / nDCG@5 / hit@5
    # per category, search p50, mean/p95 hit size and (with --coldstart-runs) cold start:
    python bench/adapt_report.py --runs CORPUS=NAME:BUNDLE[:ST_MODEL][@ALPHA],... ...

    # The earlier sweep: full text, shipped and adapted tables at several RRF vector weights:
    python bench/adapt_report.py CORPUS=FULLTEXT,SHIPPED,ADAPTED ... [--weights 0.05,0.2,0.5]

ST_MODEL: the model directory a sentence-transformers bundle was built with (set as
$DOCSMCP_ST_MODEL for that run; the packaged all-MiniLM-L6-v2 when left out). @ALPHA: a
FusionPolicy with vector share ALPHA for questions and mixed queries (identifiers stay at 0)
instead of the provider's default policy, the measure of a candidate `fusion.POLICIES` entry.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_adapt import DEV_SETS, SHARED, scores  # noqa: E402

# A question: cold start then includes loading the query-side model (identifier-like queries
# skip the vector list under the default policy, so they would hide that cost).
COLD_QUERY = {"query": "how do I handle errors returned by the API", "limit": 5}


def hit_sizes(app, cases: list[dict], k: int) -> tuple[float, float]:
    """Mean and p95 of what an agent reads per hit: get_doc of the hit with the search query
    (the best passage of a long chunk, tools.PASSAGE_CHARS), in characters."""
    from docsmcp.commands.eval_metrics import percentile

    sizes = []
    for case in cases:
        found = app.call_tool(
            "search_docs", {"query": case["query"], "limit": k, **case["filters"]}
        )
        for hit in (found.get("structuredContent") or {}).get("hits") or []:
            doc = app.call_tool("get_doc", {"chunk_id": hit["chunk_id"], "query": case["query"]})
            sizes.append(len(doc["content"][0]["text"]))
    return (sum(sizes) / len(sizes), percentile(sizes, 0.95)) if sizes else (0.0, 0.0)


def full_scores(bundle: Path, corpus: str, alpha: float | None, k: int = 5) -> dict:
    """Per dev set: {category or 'all': (mrr, ndcg, hit)}, p50 ms, hit sizes."""
    from docsmcp.commands.eval_cases import load_cases
    from docsmcp.commands.evaluate import evaluate
    from docsmcp_runtime.bundle.reader import open_bundle
    from docsmcp_runtime.search.fusion import FusionPolicy
    from docsmcp_runtime.search.intent import IDENTIFIER, MIXED, QUESTION
    from docsmcp_runtime.search.options import SearchOptions
    from docsmcp_runtime.tools.app import DocsApp

    policy = None
    if alpha is not None:
        policy = FusionPolicy(vector={IDENTIFIER: 0.0, MIXED: alpha, QUESTION: alpha})
    out = {}
    for name in DEV_SETS:
        cases = [c for c in load_cases(SHARED / "eval" / name) if c["corpus"] == corpus]
        if not cases:
            continue
        app = DocsApp(open_bundle(str(bundle)), SearchOptions(policy=policy))
        js = evaluate({corpus: app}, cases, k).to_json()
        cells = {"all": js["overall"], **js["by_category"]}
        out[name] = {
            "cells": {c: (m["mrr"], m["ndcg"], m["hit_rate"]) for c, m in cells.items()},
            "cases": {c: m["cases"] for c, m in cells.items()},
            "p50_ms": js["overall"].get("latency_p50_ms"),
            "hit_chars": hit_sizes(app, cases, k),
        }
    return out


def cold_start(bundle: Path, runs: int) -> tuple[float, float, float]:
    """(median wall s to the first answer, median CPU s, median floor s) over `runs` spawns of
    `docsmcp-runtime --bundle BUNDLE` over stdio, interleaved with a `python -c pass` floor."""
    import bench_coldstart as cs
    import bench_speakeasy

    cs.QUERY = COLD_QUERY
    bench_speakeasy.RESPONSE_TIMEOUT_S = 300.0  # a transformer imports torch first
    walls, cpus, floors = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(runs):
            floors.append(cs.floor())
            wall, cpu = cs.timed(lambda: cs.stdio_first_answer(str(bundle), {}, Path(tmp)))
            walls.append(wall)
            cpus.append(cpu)
    mid = lambda xs: sorted(xs)[len(xs) // 2]  # noqa: E731
    return mid(walls), mid(cpus), mid(floors)


def parse_run(text: str) -> tuple[str, Path, str | None, float | None]:
    body, sep, alpha = text.rpartition("@")
    if not sep:
        body, alpha = text, ""
    name, _, rest = body.partition(":")
    bundle, _, model = rest.partition(":")
    return name, Path(bundle), model or None, float(alpha) if alpha else None


def report_runs(specs: list[str], coldstart_runs: int, json_out: Path | None) -> None:
    saved = os.environ.get("DOCSMCP_ST_MODEL")
    everything: dict = {}
    for spec in specs:
        corpus, _, runs_text = spec.partition("=")
        results: dict[str, dict] = {}
        starts: dict[str, tuple[float, float, float]] = {}
        for run in runs_text.split(","):
            name, bundle, model, alpha = parse_run(run)
            os.environ.pop("DOCSMCP_ST_MODEL", None)
            if model:
                os.environ["DOCSMCP_ST_MODEL"] = model
            results[name] = full_scores(bundle, corpus, alpha)
            if coldstart_runs and alpha is None:  # the policy changes nothing at start-up
                starts[name] = cold_start(bundle, coldstart_runs)
        everything[corpus] = {"scores": results, "cold_start": starts}
        first = next(iter(results.values()))
        for dev in first:
            cats = list(first[dev]["cells"])
            heads = [f"{c} ({first[dev]['cases'][c]})" for c in cats]
            print(f"\n**{corpus}, {dev}** (MRR@5 / nDCG@5 / hit@5)\n")
            print("| run | " + " | ".join(heads) + " |")
            print("|---" * (len(cats) + 1) + "|")
            for name, r in results.items():
                cells = [
                    "/".join(f"{v:.2f}" if v is not None else "-" for v in r[dev]["cells"][c])
                    if c in r[dev]["cells"]
                    else "-"
                    for c in cats
                ]
                print(f"| {name} | " + " | ".join(cells) + " |")
        print(f"\n**{corpus}**: search p50 (ms, in process), hit size (chars), cold start\n")
        print("| run | p50 ms | hit mean | hit p95 | cold start s (CPU s; floor s) |")
        print("|---|---|---|---|---|")
        for name, r in results.items():
            p50 = max(d["p50_ms"] for d in r.values())
            mean = max(d["hit_chars"][0] for d in r.values())
            p95 = max(d["hit_chars"][1] for d in r.values())
            cold = starts.get(name)
            cold_text = f"{cold[0]:.2f} ({cold[1]:.2f}; {cold[2]:.2f})" if cold else "-"
            print(f"| {name} | {p50:.1f} | {mean:.0f} | {p95:.0f} | {cold_text} |")
    if saved is None:
        os.environ.pop("DOCSMCP_ST_MODEL", None)
    else:
        os.environ["DOCSMCP_ST_MODEL"] = saved
    if json_out:
        json_out.write_text(json.dumps(everything, indent=1))


def report_weights(specs: list[str], weights: list[float], adapted_floor: float) -> None:
    for spec in specs:
        corpus, _, paths = spec.partition("=")
        fulltext, shipped, adapted = (Path(x) for x in paths.split(","))
        runs = {"full text": scores(fulltext, corpus, None, None)}
        for w in weights:
            runs[f"shipped {w:g}"] = scores(shipped, corpus, w, None)
            runs[f"adapted {w:g}"] = scores(adapted, corpus, w, adapted_floor)
        for dev in next(iter(runs.values())):
            cats = [c for c in runs["full text"][dev] if c not in ("all", "p50_ms")]
            print(f"\n**{corpus}, {dev}** (MRR@5)\n")
            print("| run | all | " + " | ".join(cats) + " | p50 ms |")
            print("|---" * (len(cats) + 3) + "|")
            for name, r in runs.items():
                m = r[dev]
                cells = [f"{m['all']:.3f}"] + [
                    f"{m[c]:.3f}" if m.get(c) is not None else "-" for c in cats
                ]
                print(f"| {name} | " + " | ".join(cells) + f" | {m['p50_ms']:.1f} |")


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("corpora", nargs="*", help="CORPUS=FULLTEXT,SHIPPED,ADAPTED")
    p.add_argument("--runs", nargs="*", default=[], help="CORPUS=NAME:BUNDLE[:MODEL][@ALPHA],...")
    p.add_argument("--coldstart-runs", type=int, default=0, metavar="N")
    p.add_argument("--json", type=Path, help="also write the --runs figures here")
    p.add_argument("--weights", default="0.05,0.1,0.2,0.5,1")
    # The shipped table keeps its bundle's floor (0.5); an adapted table mimics its teacher,
    # whose calibrated floor is sentence-transformers' 0.35.
    p.add_argument("--adapted-floor", type=float, default=0.35)
    args = p.parse_args()
    if args.runs:
        report_runs(args.runs, args.coldstart_runs, args.json)
    if args.corpora:
        weights = [float(w) for w in args.weights.split(",")]
        report_weights(args.corpora, weights, args.adapted_floor)
    return 0


if __name__ == "__main__":
    sys.exit(main())
