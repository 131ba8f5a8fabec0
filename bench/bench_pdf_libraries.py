"""Side-by-side measurement of PDF extraction libraries on the r-manuals corpus (issue 10).

For each candidate, in a fresh subprocess (so peak RSS is its own): plain text of every page,
outline entries, wall time, CPU time and peak RSS; and one sample page written to OUT for an
eye check. Usage:

    .venv/bin/python bench/bench_pdf_libraries.py [CORPUS] [--files R-exts.pdf,...] [--out DIR]

pdfminer.six and pdfplumber are slow: by default they run on the smaller manuals only.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

LIBS = ("pypdfium2", "pypdf", "pdfminer", "pdfplumber")


def run_one(lib: str, path: str, sample: int) -> dict:
    t0, c0 = time.perf_counter(), time.process_time()
    texts: list[str] = []
    outline = 0
    if lib == "pypdfium2":
        import pypdfium2 as pdfium

        pdf = pdfium.PdfDocument(path)
        for i in range(len(pdf)):
            tp = pdf[i].get_textpage()
            texts.append(tp.get_text_range())
        outline = sum(1 for _ in pdf.get_toc())
    elif lib == "pypdf":
        import pypdf

        reader = pypdf.PdfReader(path)
        texts = [p.extract_text() or "" for p in reader.pages]

        def count(items) -> int:
            return sum(count(x) if isinstance(x, list) else 1 for x in items)

        outline = count(reader.outline)
    elif lib == "pdfminer":
        from pdfminer.high_level import extract_pages
        from pdfminer.layout import LTTextContainer
        from pdfminer.pdfdocument import PDFDocument
        from pdfminer.pdfparser import PDFParser

        for layout in extract_pages(path):
            texts.append("".join(e.get_text() for e in layout if isinstance(e, LTTextContainer)))
        with open(path, "rb") as fh:
            doc = PDFDocument(PDFParser(fh))
            outline = sum(1 for _ in doc.get_outlines())
    elif lib == "pdfplumber":
        import pdfplumber

        with pdfplumber.open(path) as pdf:
            texts = [p.extract_text() or "" for p in pdf.pages]
            # pdfplumber has no outline API of its own (pdfminer's underneath)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    return {
        "lib": lib,
        "file": Path(path).name,
        "pages": len(texts),
        "chars": sum(len(t) for t in texts),
        "outline": outline,
        "wall_s": round(wall, 2),
        "cpu_s": round(cpu, 2),
        "ms_per_page": round(1000 * wall / max(1, len(texts)), 2),
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024,
        "sample": texts[sample] if sample < len(texts) else "",
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus", nargs="?", default="/work/shared/corpora/r-manuals")
    ap.add_argument("--files", default="R-exts.pdf,R-lang.pdf,fullrefman.pdf")
    ap.add_argument("--slow-files", default="R-exts.pdf,R-lang.pdf")
    ap.add_argument("--libs", default=",".join(LIBS))
    ap.add_argument("--sample", type=int, default=40, help="0-based page written for an eye check")
    ap.add_argument("--out", default="/tmp/pdf-libraries")
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(run_one(args.child[0], args.child[1], args.sample)))
        return
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    print(
        f"{'library':<11} {'file':<15} {'pages':>5} {'chars':>9} {'outline':>7} "
        f"{'wall s':>7} {'cpu s':>7} {'ms/page':>8} {'RSS MB':>7}"
    )
    for lib in args.libs.split(","):
        slow = lib in ("pdfminer", "pdfplumber")
        for name in (args.slow_files if slow else args.files).split(","):
            cmd = [
                sys.executable,
                __file__,
                "--sample",
                str(args.sample),
                "--child",
                lib,
                str(Path(args.corpus) / name),
            ]
            res = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
            if res.returncode:
                print(f"{lib:<11} {name:<15} failed: {res.stderr.strip().splitlines()[-1:]}")
                continue
            r = json.loads(res.stdout)
            (out / f"{lib}-{name}-p{args.sample + 1}.txt").write_text(r.pop("sample"))
            print(
                f"{lib:<11} {name:<15} {r['pages']:>5} {r['chars']:>9} {r['outline']:>7} "
                f"{r['wall_s']:>7} {r['cpu_s']:>7} {r['ms_per_page']:>8} {r['peak_rss_mb']:>7}"
            )


if __name__ == "__main__":
    main()
