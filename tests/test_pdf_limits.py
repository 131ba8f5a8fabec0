"""Issue 31: a PDF page the library cannot load, and a PDF whose text runs past the limit.

A page pdfium fails to load (a page-tree loop, a missing object) printed a ~40-line traceback and
aborted the build; the text limit was checked only after every page was read (a 99,999-page
file ran 11 minutes first). Real PDFs written by the tests (tests/pdf_fixtures.py).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pdf_fixtures as fx
import pytest
from conftest import run_docsmcp
from docsmcp.common.limits import PARSE_MEMORY_ENV
from docsmcp.sources.pdf.extract import PdfError, read_pdf

pytest.importorskip("pypdfium2", reason="the pdf extra reads PDFs")


def test_a_page_that_cannot_be_loaded_is_left_out(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    fx.unloadable_page(docs / "broken.pdf")
    proc = run_docsmcp("build", "--docs-dir", docs, "--out", tmp_path / "idx", check=False)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "broken.pdf: 1 of 3 pages have no text layer" in proc.stderr  # (counted as empty)
    found = subprocess.run(
        [sys.executable, "-m", "docsmcp_runtime", "--bundle", tmp_path / "idx", "search", "manual"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert found.returncode == 0, found.stderr
    assert "broken.pdf" in found.stdout  # the pages around it are indexed


def test_text_past_the_limit_stops_the_reading_early(tmp_path: Path) -> None:
    pdf = fx.many_pages(tmp_path / "many.pdf", 400)
    with pytest.raises(PdfError, match=r"PDF text passes 100 characters by page (\d+);") as err:
        read_pdf(pdf.read_bytes(), workers=1, max_text=100)
    stopped_at = int(err.value.args[0].split("by page ")[1].split(";")[0].replace(",", ""))
    assert stopped_at < 400


def test_a_flate_bomb_is_refused_within_the_memory_budget(tmp_path: Path) -> None:
    """1 MB that inflates to a GiB took pdfium 2.1 GB; its readers now stop at the parse
    memory budget (here 256 MiB) and the PDF is one Problem line naming the setting."""
    docs = tmp_path / "docs"
    docs.mkdir()
    fx.flate_bomb(docs / "bomb.pdf")
    fx.manual(docs / "manual.pdf")
    proc = subprocess.run(
        [sys.executable, "-m", "docsmcp.cli", "build", "--docs-dir", docs,
         "--out", tmp_path / "idx", "--cache-dir", tmp_path / "cache"],
        capture_output=True, text=True, timeout=120,
        env={**os.environ, PARSE_MEMORY_ENV: "256"},
    )  # fmt: skip
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    assert proc.stderr.splitlines()[0] == (
        f"bomb.pdf: the PDF library needed over 256 MiB ({PARSE_MEMORY_ENV}) or crashed "
        "reading this file; repair it or leave it out"
    )
    assert not (tmp_path / "idx").exists()
