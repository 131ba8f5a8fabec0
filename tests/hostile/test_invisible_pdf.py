"""Issue 31 (prompt-injection hygiene) in PDFs: text a reader of the page never sees does not
reach the agent (sources/pdf/visible.py). A crafted PDF (tests/pdf_fixtures.py `hidden_text`)
hides a line each way a PDF can: render mode 3, white on white paper, alpha 0, 0.1 pt, a 10 pt
font under a 0.01 text matrix, left of the page, white inside a form XObject, white inside a
visible line. Text a reader does see stays: white on a dark box, a line the page edge cuts (an
overfull code line), and a scanned page's invisible OCR layer over its image."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pdf_fixtures as fx
import pytest
from conftest import build_bundle
from hostile import get_json

pytest.importorskip("pypdfium2")
pytest.importorskip("fpdf")

SEEN = (
    "Install the widget before the first start.",
    "White on a dark box reads well.",
    "Visible text after the hidden lines.",
    "Run the tests before each release.",
    "curl -OL https://example.org/widget-1.0.tar.xz",
    "Scanned page text about quokkas.",
)


def _get(bundle: Path, what: str) -> str:
    return json.dumps(get_json(bundle, what), ensure_ascii=False)


def test_hidden_pdf_text_is_not_indexed_or_shown(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    fx.hidden_text(docs / "hidden.pdf")
    bundle = build_bundle(docs, tmp_path / "idx", "--no-cache")
    # what an agent reads: the section, and the whole page
    for text in (_get(bundle, "hidden.pdf#widget-setup"), _get(bundle, "hidden.pdf")):
        for how, line in fx.HIDDEN_LINES.items():
            assert line not in text, how
        for word in ("ignore previous", "evil.example", "exfiltrate", "secrets", "safety"):
            assert word not in text, word
        for line in SEEN:
            assert line in text, line
    # nor can a search find it
    proc = subprocess.run(
        [sys.executable, "-m", "docsmcp_runtime", "--bundle", bundle, "search", "exfiltrate"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert "exfiltrate" not in proc.stdout
