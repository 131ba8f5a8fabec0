"""Scale benchmark of the builder: the win32 corpus (48,209 markdown files, 238 MB; issue 14).

    .venv/bin/python bench/bench_win32.py [--docs-dir DIR] [--builds N] [--json out.json]

Extracts `../shared/corpora/win32-docs.tar.gz` into a temporary folder (or builds --docs-dir),
runs full-text builds on every core with a fresh parse cache (what a first build does: parse
and write the cache), and prints wall time, CPU (user + system, workers included) and peak RSS
(the largest builder process) against the targets, beside floors measured in the same run.
Figures only: nothing here is a unit test. Takes minutes.
"""

from __future__ import annotations

import argparse
import json
import sys
import tarfile
import tempfile
from pathlib import Path

import buildbench
from bench_speakeasy import print_table, tool

REPO = Path(__file__).resolve().parent.parent
TARBALL = REPO.parent / "shared" / "corpora" / "win32-docs.tar.gz"
TARGETS = {"build_s": 120.0, "peak_rss_mb": 1000.0}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--docs-dir", type=Path, help="an extracted corpus (default: the tarball)")
    p.add_argument("--builds", type=int, default=1, help="build runs (default 1)")
    p.add_argument("--json", type=Path, metavar="PATH", help="also write the figures here")
    args = p.parse_args(argv)
    docsmcp = tool("docsmcp")
    with tempfile.TemporaryDirectory(prefix="bench-win32-") as tmp_name:
        tmp = Path(tmp_name)
        docs = args.docs_dir
        if docs is None:
            if not TARBALL.is_file():
                p.error(f"corpus not found: {TARBALL} (pass --docs-dir)")
            print(f"extracting {TARBALL} ...", flush=True)
            with tarfile.open(TARBALL) as tar:
                tar.extractall(tmp / "src", filter="data")
            docs = tmp / "src" / "win32-docs"
        runs = []
        for i in range(args.builds):
            cache = tmp / f"cache{i}"  # a fresh cache: a first build
            cmd = [docsmcp, "build", "--docs-dir", str(docs), "--out", str(tmp / "idx"), "-q"]
            runs.append(buildbench.run([*cmd, "--cache-dir", str(cache)]))
            print(f"  build {i + 1}/{args.builds}: {buildbench.describe(runs[-1])}", flush=True)
        mid = buildbench.median_run(runs)
        startup = buildbench.startup_floor(docsmcp)
        read = buildbench.read_floor(docs)
    figures = {
        "build_s": mid.wall_s,
        "cpu_s": mid.cpu_s,
        "peak_rss_mb": mid.peak_rss_mb,
        "floor_startup_s": startup.wall_s,
        "floor_read_s": read,
        "targets": TARGETS,
    }
    ok = {"build_s": mid.wall_s <= TARGETS["build_s"]}
    ok["peak_rss_mb"] = mid.peak_rss_mb <= TARGETS["peak_rss_mb"]
    print()
    print_table(
        [
            (
                f"full-text build, median of {len(runs)}",
                f"{mid.wall_s:.1f} s",
                f"<= {TARGETS['build_s']:.0f} s",
                "PASS" if ok["build_s"] else "FAIL",
            ),
            ("  its CPU (user+sys, workers included)", f"{mid.cpu_s:.1f} s", "", ""),
            (
                "  peak RSS (largest builder process)",
                f"{mid.peak_rss_mb:.0f} MB",
                f"<= {TARGETS['peak_rss_mb']:.0f} MB",
                "PASS" if ok["peak_rss_mb"] else "FAIL",
            ),
            ("  floor: `docsmcp --version`", f"{startup.wall_s:.2f} s", "", ""),
            ("  floor: read every file", f"{read:.2f} s", "", ""),
        ]
    )
    if args.json is not None:
        args.json.write_text(json.dumps({**figures, "pass": ok}, indent=2) + "\n")
    return 0 if all(ok.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
