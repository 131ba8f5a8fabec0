"""Compare two runs of bench/sites/run.py: page-level scores per site and category, moved cases.

python bench/sites/compare.py /tmp/sites-head /tmp/sites-x
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def load(path: str) -> dict:
    file = Path(path)
    return json.loads((file / "eval.json" if file.is_dir() else file).read_text())


def main() -> int:
    if len(sys.argv) != 3:
        sys.exit("usage: compare.py RUN_A RUN_B (folders written by run.py, or their eval.json)")
    a, b = load(sys.argv[1])["pages"], load(sys.argv[2])["pages"]
    print(f"{'':24} {'pages MRR':>17} {'nDCG@5':>17}")
    for group in ("by_corpus", "by_category"):
        for key in sorted(set(a[group]) & set(b[group])):
            print(_row(key, a[group][key], b[group][key]))
        print()
    print(_row("overall", a["overall"], b["overall"]))
    before = {r["id"]: r for r in a["results"]}
    moved = []
    for after in b["results"]:
        old = before.get(after["id"])
        if old and (old["first_relevant_rank"], old["ndcg"]) != (
            after["first_relevant_rank"],
            after["ndcg"],
        ):
            moved.append((after["ndcg"] - old["ndcg"], old, after))
    print(f"\n{len(moved)} cases moved (page rank of the first relevant page, nDCG@5):")
    for _, old, new in sorted(moved, key=lambda m: m[0]):
        print(
            f"  {new['id']:22} {_rank(old)} -> {_rank(new)}  {old['ndcg']:.3f} -> {new['ndcg']:.3f}"
            f"  {new['query'][:60]}"
        )
    return 0


def _row(key: str, x: dict, y: dict) -> str:
    def pair(field: str) -> str:
        mark = " " if abs(y[field] - x[field]) < 5e-4 else ("+" if y[field] > x[field] else "-")
        return f"{x[field]:.3f} -> {y[field]:.3f}{mark}"

    return f"{key:24} {pair('mrr'):>17} {pair('ndcg'):>17}"


def _rank(result: dict) -> str:
    return str(result["first_relevant_rank"] or "-")


if __name__ == "__main__":
    sys.exit(main())
