"""Markdown tables of full text, the shipped static table and adapted tables, per corpus, dev set,
category and vector weight (runtime fusion override), from bundles bench_adapt.py built.

    python bench/adapt_report.py CORPUS=FULLTEXT,SHIPPED,ADAPTED ... [--weights 0.05,0.2,0.5]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_adapt import scores  # noqa: E402


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("corpora", nargs="+", help="CORPUS=FULLTEXT,SHIPPED,ADAPTED")
    p.add_argument("--weights", default="0.05,0.1,0.2,0.5,1")
    # The shipped table keeps its bundle's floor (0.5); an adapted table mimics its teacher,
    # whose calibrated floor is sentence-transformers' 0.35.
    p.add_argument("--adapted-floor", type=float, default=0.35)
    args = p.parse_args()
    weights = [float(w) for w in args.weights.split(",")]
    for spec in args.corpora:
        corpus, _, paths = spec.partition("=")
        fulltext, shipped, adapted = (Path(x) for x in paths.split(","))
        runs = {"full text": scores(fulltext, corpus, None, None)}
        for w in weights:
            runs[f"shipped {w:g}"] = scores(shipped, corpus, w, None)
            runs[f"adapted {w:g}"] = scores(adapted, corpus, w, args.adapted_floor)
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
