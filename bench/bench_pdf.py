"""Build time and memory of a large PDF manual (issue 10 targets: fullrefman.pdf, 2,415 pages,
full text, <= 60 s on 2 cores, peak builder RSS <= 1 GB, an unchanged PDF not re-extracted).

Prints, measured in this run:
- floor: the plain text of every page with pypdfium2 alone (one process, no layout, no fonts),
  the least any pypdfium2-based builder must spend;
- extraction: `docsmcp.sources.pdf.cached.extract` (fonts, positions, layout, markdown) on
  --workers cores;
- cold build: `docsmcp build` of the file, fresh cache folder (extraction + parse + index);
- rebuild: the same build again with that cache (PDF extraction and parse cached);
- peak RSS of the build process and its workers (each process's own peak; the largest shown).

    .venv/bin/python bench/bench_pdf.py [--docs-dir DIR] [--file fullrefman.pdf] [--workers 2]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DEFAULT_DOCS = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "r-manuals"


def child(code: str, *args: str) -> tuple[float, dict]:
    """Run `code` in a fresh interpreter; (wall seconds, its JSON output with peak RSS)."""
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, check=True
    )
    return time.perf_counter() - started, json.loads(proc.stdout.strip().splitlines()[-1])


FLOOR = """
import json, resource, sys
import pypdfium2 as pdfium
pdf = pdfium.PdfDocument(sys.argv[1])
chars = sum(len(pdf[i].get_textpage().get_text_range()) for i in range(len(pdf)))
print(json.dumps({"chars": chars, "rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
"""

EXTRACT = """
import json, resource, sys
from pathlib import Path
from docsmcp.sources.pdf.cached import extract
r = extract(Path(sys.argv[1]).read_bytes(), workers=int(sys.argv[2]))
print(json.dumps({"chars": len(r.text), "pages": r.pages, "outline": r.outline,
    "rss": max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
               resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)}))
"""

BUILD = """
import json, resource, sys, time
from docsmcp.cli import main
started = time.perf_counter()
code = 0
try:
    main(["build", "--quiet", "--docs-dir", sys.argv[1], "--include", sys.argv[2], "--out",
          sys.argv[3], "--cache-dir", sys.argv[4], "--workers", sys.argv[5]])
except SystemExit as exc:
    code = exc.code or 0
meta = json.load(open(sys.argv[3] + "/metadata.json"))
print(json.dumps({"code": code, "seconds": time.perf_counter() - started,
    "chunks": meta["stats"]["chunks"], "bundle_id": meta["bundle_id"],
    "rss": max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
               resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)}))
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--docs-dir", type=Path, default=DEFAULT_DOCS)
    ap.add_argument("--file", default="fullrefman.pdf")
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    pdf = args.docs_dir / args.file
    mb = pdf.stat().st_size / 1e6
    print(f"{args.file}: {mb:.1f} MB, workers {args.workers}")
    wall, floor = child(FLOOR, str(pdf))
    print(f"floor (pypdfium2 plain text, 1 process)   {wall:6.1f} s  {floor['rss'] / 1024:6.0f} MB")
    wall, ext = child(EXTRACT, str(pdf), str(args.workers))
    print(
        f"extraction (layout, markdown)             {wall:6.1f} s  {ext['rss'] / 1024:6.0f} MB"
        f"  ({ext['pages']} pages, {ext['chars']:,} characters, outline {ext['outline']})"
    )
    with tempfile.TemporaryDirectory(prefix="bench-pdf-") as tmp:
        out, cache = f"{tmp}/bundle", f"{tmp}/cache"
        runs = []
        for label in ("cold build (fresh cache)", "rebuild (cache)"):
            wall, res = child(BUILD, str(args.docs_dir), args.file, out, cache, str(args.workers))
            runs.append(res)
            print(
                f"{label:<42}{res['seconds']:6.1f} s  {res['rss'] / 1024:6.0f} MB"
                f"  ({res['chunks']} chunks; process wall {wall:.1f} s)"
            )
        same = runs[0]["bundle_id"] == runs[1]["bundle_id"]
        print(f"rebuild bundle identical: {same}")


if __name__ == "__main__":
    main()
