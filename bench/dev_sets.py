"""Build the four dev sets' corpora as a user would and score every set, or compare two runs.

    python bench/dev_sets.py --out /tmp/dev-a                      # build and score
    python bench/dev_sets.py --out /tmp/dev-b --code /tmp/tree-b   # another tree's code
    python bench/dev_sets.py --out /tmp/dev-h --build-args "--embedding-provider static"
    python bench/dev_sets.py --out /tmp/dev-c --bundles-from /tmp/dev-a --code /tmp/tree-c
    python bench/dev_sets.py --compare /tmp/dev-a /tmp/dev-b       # MRR@5 by category, moves

speakeasy-sdks, yellow-docs, rust-reference and r-manuals are built with `docsmcp build` alone;
mcp-docs is copied and given `docsmcp init --write` first, as it ships without a manifest
(../shared/eval/README.md). `--bundles-from RUN` scores the bundles an earlier run built
instead of building (seconds, not minutes: for a change to the runtime alone). Scores:
`docsmcp eval --json` per set (`--pages` for mcp), written as DIR/SET.json. Needs ../shared
(or $DOCSMCP_SHARED).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "sites"))
from run import docsmcp  # noqa: E402 - the same builder command as bench/sites

SHARED = Path(os.environ.get("DOCSMCP_SHARED", HERE.parents[1] / "shared"))
SETS = {  # set -> (cases file, corpora)
    "dev": ("dev-cases.jsonl", ("speakeasy-sdks", "yellow-docs", "rust-reference")),
    "nl": ("dev-cases-nl.jsonl", ("speakeasy-sdks", "yellow-docs", "rust-reference")),
    "pdf": ("dev-cases-pdf.jsonl", ("r-manuals",)),
    "mcp": ("dev-cases-mcp.jsonl", ("mcp-docs",)),
}


def build(out: Path, code: Path | None, extra: list[str], bundles: Path | None = None) -> None:
    command, env = docsmcp(code)
    corpora = sorted({c for _, names in SETS.values() for c in names})
    for name in corpora if bundles is None else ():
        docs = SHARED / "corpora" / name
        steps = []
        if name == "mcp-docs":  # no manifest: init proposes one, as a user runs it
            copy = out / "mcp-src"
            shutil.rmtree(copy, ignore_errors=True)
            shutil.copytree(docs, copy)
            for path in [copy, *copy.rglob("*")]:
                path.chmod(path.stat().st_mode | 0o200)
            docs = copy
            steps.append(["init", "--docs-dir", str(docs), "--write"])
        steps.append(
            ["build", "--docs-dir", str(docs), "--out", str(out / name), "--quiet", *extra]
        )
        for step in steps:
            done = subprocess.run([*command, *step], env=env, capture_output=True, text=True)
            if done.returncode != 0:
                sys.exit(f"docsmcp {step[0]} {name} failed:\n{done.stderr}")
    for key, (cases, names) in SETS.items():
        flags = [f for n in names for f in ("--bundle", f"{n}={(bundles or out) / n}")]
        extra = ["--pages"] if key == "mcp" else []
        done = subprocess.run(
            [*command, "eval", *flags, "--cases", str(SHARED / "eval" / cases), "--json", *extra],
            env=env, capture_output=True, text=True,
        )  # fmt: skip
        if done.returncode != 0:
            sys.exit(f"docsmcp eval {cases} failed:\n{done.stderr}")
        (out / f"{key}.json").write_text(done.stdout)
        report = json.loads(done.stdout)
        print(
            f"{key:4} MRR@5 {report['overall']['mrr']:.3f}  nDCG@5 {report['overall']['ndcg']:.3f}"
        )


def compare(a: Path, b: Path) -> None:
    for key in SETS:
        x, y = (json.loads((d / f"{key}.json").read_text()) for d in (a, b))
        line = f"{key:4} {x['overall']['mrr']:.3f} -> {y['overall']['mrr']:.3f}"
        if "pages" in x and "pages" in y:
            px, py = x["pages"]["overall"], y["pages"]["overall"]
            line += f"   pages {px['mrr']:.3f} -> {py['mrr']:.3f}"
            line += f" (nDCG {px['ndcg']:.3f} -> {py['ndcg']:.3f})"
        print(line)
        for category in x["by_category"]:
            old, new = (
                x["by_category"][category]["mrr"],
                y["by_category"].get(category, {}).get("mrr"),
            )
            if new is not None and abs(new - old) > 1e-9:
                print(f"     {category:20} {old:.3f} -> {new:.3f}")
        before = {r["id"]: r["first_relevant_rank"] for r in x["results"]}
        for r in y["results"]:
            old, new = before.get(r["id"], "?"), r["first_relevant_rank"]
            if old != "?" and old != new:
                print(f"     {r['id']}: {old} -> {new}  {r['query'][:60]}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, help="working folder (bundles, SET.json)")
    parser.add_argument("--code", type=Path, help="a source tree whose builder/runtime to use")
    parser.add_argument(
        "--build-args",
        default="",
        help="more `docsmcp build` flags for every corpus, e.g. '--embedding-provider static'",
    )
    parser.add_argument(
        "--bundles-from", type=Path, metavar="RUN", help="score RUN's bundles, build nothing"
    )
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("RUN_A", "RUN_B"))
    args = parser.parse_args()
    if args.compare:
        compare(*args.compare)
    elif args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        bundles = args.bundles_from.resolve() if args.bundles_from else None
        build(args.out.resolve(), args.code, shlex.split(args.build_args), bundles)
    else:
        parser.error("give --out DIR (build and score) or --compare RUN_A RUN_B")
    return 0


if __name__ == "__main__":
    sys.exit(main())
