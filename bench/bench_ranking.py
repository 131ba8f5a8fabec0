"""Ranking experiments: every dev set, per corpus and category, under named search settings.

Runs the eval cases in-process through `search_docs` (as `docsmcp eval` does) for each bundle
and each setting, and prints one table per setting (MRR@5 / nDCG@5 / hit@5 / mean hit chars),
or, with `--compare BEFORE.json AFTER.json`, the before → after table of two saved runs.

    python bench/bench_ranking.py --bundle speakeasy-sdks=DIR --bundle yellow-docs=DIR \\
        --setting default --setting no-boost --json out.json
    python bench/bench_ranking.py --compare before.json after.json

Settings (`--setting NAME`, repeatable): `default` (the runtime's defaults), `main` (RRF with
the bundle's weights and no taxonomy boost, as before issue 16), `no-boost` (no
taxonomy boost), `rrf` (RRF with the bundle's weights), `vector=W` (one convex α for every query
class), `rrf-vector=W`, `alpha=ID,MIX,Q` (convex α per class), `agree=A` (with default α),
`boost=B` (taxonomy boost factor). Figures only: nothing here is a unit test.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

from docsmcp.commands.eval_cases import load_cases
from docsmcp.commands.evaluate import evaluate, parse_bundle_arg
from docsmcp_runtime.bundle.reader import open_bundle
from docsmcp_runtime.format import FusionWeights
from docsmcp_runtime.search.fusion import CONVEX, DEFAULT_POLICY, RRF, FusionPolicy
from docsmcp_runtime.search.intent import IDENTIFIER, MIXED, QUERY_CLASSES, QUESTION
from docsmcp_runtime.search.options import SearchOptions
from docsmcp_runtime.tools.app import DocsApp

SHARED = Path(__file__).resolve().parents[2] / "shared"
CASES = ("dev-cases.jsonl", "dev-cases-nl.jsonl", "dev-cases-pdf.jsonl", "dev-cases-mcp.jsonl")


def _classes(text: str) -> dict[str, float]:
    """`ID,MIX,Q` → the vector share of each query class."""
    return dict(zip((IDENTIFIER, MIXED, QUESTION), map(float, text.split(",")), strict=True))


def options(setting: str) -> SearchOptions:
    name, _, value = setting.partition("=")
    if name == "default":
        return SearchOptions()
    if name == "main":  # as before issue 16: RRF with the bundle's weights, no taxonomy boost
        return SearchOptions(fusion=FusionWeights(lexical=1.0), name_boost=0.0)
    if name == "no-boost":
        return SearchOptions(name_boost=0.0)
    if name == "boost":
        return SearchOptions(name_boost=float(value))
    if name == "rrf":
        return SearchOptions(fusion=FusionWeights(lexical=1.0))
    if name == "rrf-vector":
        return SearchOptions(fusion=FusionWeights(vector=float(value)))
    if name == "vector":
        return SearchOptions(
            policy=FusionPolicy(CONVEX, dict.fromkeys(QUERY_CLASSES, float(value)))
        )
    if name == "alpha":
        return SearchOptions(policy=FusionPolicy(CONVEX, _classes(value)))
    if name == "ralpha":
        return SearchOptions(policy=FusionPolicy(RRF, _classes(value)))
    if name == "floor":
        return SearchOptions(similarity_floor=float(value))
    if name == "mix":  # alpha=ID,MIX,Q;agree;floor
        a, agree, floor = value.split(";")
        return SearchOptions(
            policy=FusionPolicy(CONVEX, _classes(a), float(agree)),
            similarity_floor=float(floor) if floor else None,
        )
    if name == "agree":
        return SearchOptions(policy=FusionPolicy(CONVEX, DEFAULT_POLICY.vector, float(value)))
    raise SystemExit(f"unknown setting {setting!r}")


def run(bundles: list[str], setting: str, cases_dir: Path) -> dict:
    apps = {}
    for spec in bundles:
        corpus, path = parse_bundle_arg(spec)
        bundle = open_bundle(path)
        apps[corpus or bundle.metadata.name] = DocsApp(bundle, options(setting))
    rows: dict[str, dict] = {}
    latencies: dict[str, list[float]] = {}
    for name in CASES:
        path = cases_dir / name
        if not path.exists():
            continue
        report = evaluate(apps, load_cases(path), 5)
        groups: dict[tuple[str, str], list] = {}
        for r in report.results:
            groups.setdefault((r.corpus, r.category), []).append(r)
            groups.setdefault((r.corpus, "ALL"), []).append(r)
            latencies.setdefault(r.corpus, []).append(r.latency_ms)
        for (corpus, category), results in sorted(groups.items()):
            answerable = [r for r in results if not r.no_answer]
            if not answerable:
                continue
            sizes = [c for r in results for c in r.hit_chars]
            rows[f"{name.removesuffix('.jsonl')}|{corpus}|{category}"] = {
                "n": len(answerable),
                "mrr": statistics.fmean(r.reciprocal_rank for r in answerable),
                "ndcg": statistics.fmean(r.ndcg for r in answerable),
                "hit": statistics.fmean(float(r.first_rank is not None) for r in answerable),
                "chars": statistics.fmean(sizes) if sizes else 0.0,
                "p95chars": sorted(sizes)[int(0.95 * (len(sizes) - 1))] if sizes else 0,
                "ranks": {r.id: r.first_rank for r in answerable},
            }
    p50 = {c: statistics.median(v) for c, v in latencies.items()}
    return {"setting": setting, "rows": rows, "p50_ms": p50}


def table(data: dict) -> str:
    out = [
        f"setting {data['setting']}",
        "| set | corpus | category | n | MRR@5 | nDCG@5 | hit@5 | chars |",
    ]
    out.append("|---|---|---|---|---|---|---|---|")
    for key, m in data["rows"].items():
        s, c, cat = key.split("|")
        out.append(
            f"| {s} | {c} | {cat} | {m['n']} | {m['mrr']:.3f} | {m['ndcg']:.3f} | "
            f"{m['hit']:.3f} | {m['chars']:.0f} |"
        )
    out.append("p50 ms: " + ", ".join(f"{c} {v:.2f}" for c, v in data["p50_ms"].items()))
    return "\n".join(out)


def brief(data: dict) -> str:
    """MRR@5 per (set, corpus) overall and per (set, category) pooled over corpora."""
    parts = []
    pooled: dict[str, list[float]] = {}
    for key, m in data["rows"].items():
        s, c, cat = key.split("|")
        short = s.replace("dev-cases", "d").replace("-", "")
        if cat == "ALL":
            parts.append(f"{short}/{c[:4]}={m['mrr']:.3f}")
        else:
            pooled.setdefault(f"{short}/{cat[:5]}", []).extend(
                0.0 if r is None else 1.0 / r for r in m["ranks"].values()
            )
    parts += [f"{k}={statistics.fmean(v):.3f}" for k, v in sorted(pooled.items())]
    return f"{data['setting']:<18} " + " ".join(parts)


def compare(before: dict, after: dict) -> str:
    out = [
        f"{before['setting']} → {after['setting']}",
        "| set | corpus | category | n | MRR@5 | nDCG@5 | hit@5 | chars (mean) | changed cases |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for key, a in after["rows"].items():
        b = before["rows"].get(key)
        if b is None:
            continue
        s, c, cat = key.split("|")
        moved = [
            f"{i}:{b['ranks'].get(i)}→{r}" for i, r in a["ranks"].items() if b["ranks"].get(i) != r
        ]
        moved_text = " ".join(moved) if cat != "ALL" else ""
        out.append(
            f"| {s} | {c} | {cat} | {a['n']} | {b['mrr']:.3f} → {a['mrr']:.3f} | "
            f"{b['ndcg']:.3f} → {a['ndcg']:.3f} | {b['hit']:.2f} → {a['hit']:.2f} | "
            f"{b['chars']:.0f} → {a['chars']:.0f} | {moved_text} |"
        )
    return "\n".join(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bundle", action="append", default=[], help="[CORPUS=]DIR")
    parser.add_argument("--setting", action="append", default=[])
    parser.add_argument("--cases-dir", type=Path, default=SHARED / "eval")
    parser.add_argument("--json", type=Path, help="write the runs here (a list)")
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    parser.add_argument("--brief", action="store_true", help="one line per setting")
    args = parser.parse_args()
    if args.compare:
        before, after = (json.loads(p.read_text()) for p in args.compare)
        for b, a in zip(before, after, strict=False):
            print(compare(b, a))
        return 0
    runs = [run(args.bundle, s, args.cases_dir) for s in args.setting or ["default"]]
    for data in runs:
        print(brief(data) if args.brief else table(data))
    if args.json:
        args.json.write_text(json.dumps(runs, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
