"""The R manuals (../shared/corpora/r-manuals) built and served: the seven smaller manuals,
built once per session (~10 s); fullrefman.pdf (2,415 pages) is measured by bench/bench_pdf.py
instead, to keep the corpus tier short. The dev-set cases that need fullrefman are left out."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import SHARED, corpus, run_docsmcp
from mcp_client import McpSession, text_of

pytestmark = pytest.mark.corpus

PDF_CASES = SHARED / "eval" / "dev-cases-pdf.jsonl"


@pytest.fixture(scope="module")
def manuals_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("r-manuals") / "idx"
    run_docsmcp(
        "build",
        "--docs-dir",
        corpus("r-manuals"),
        "--exclude",
        "fullrefman.pdf",
        "--out",
        out,
        "--name",
        "r-manuals",
        "--quiet",
    )
    return out


@pytest.fixture(scope="module")
def session(manuals_bundle: Path):
    with McpSession(manuals_bundle) as s:
        yield s


def test_section_numbers_pages_and_identifiers(session: McpSession) -> None:
    top = session.search(query="R-exts 5.10.2")["hits"][0]
    assert (top["filepath"], top["heading"], top["section_id"]) == (
        "R-exts.pdf",
        "Calling .External",
        "5.10.2",
    )
    assert top["source"]["pages"][0] == 174  # the PDF's own page number, 1-based
    assert session.search(query="R-lang section 3.5.2")["hits"][0]["heading"] == (
        "Lexical environment"
    )
    result = session.call("get_doc", {"section": "1.5.4", "document": "R-exts"})
    assert not result.is_error, text_of(result)
    assert "useDynLib" in text_of(result)
    openmp = session.search(query="SHLIB_OPENMP_CFLAGS")["hits"]
    assert any(h["heading"] == "OpenMP support" for h in openmp[:3])
    text = session.get_doc(openmp[0]["chunk_id"])
    assert "SHLIB_OPENMP_CFLAGS" in text and "\ufffe" not in text and "\u00ad" not in text


def test_cross_reference_in_prose_resolves(session: McpSession) -> None:
    hits = session.search(query="Using gctorture", limit=5)["hits"]
    hit = next(h for h in hits if h["heading"] == "Using gctorture")
    targets = [r["title"] for r in hit.get("references", [])]
    assert "Handling the effects of garbage collection" in targets


def test_pages_list_the_manuals_with_their_titles(session: McpSession) -> None:
    page = session.call("get_page", {"path": "R-exts"}).structured_content
    assert page["path"] == "R-exts.pdf"
    assert page["title"] == "Writing R Extensions"


def test_dev_set_on_the_smaller_manuals(manuals_bundle: Path, tmp_path: Path) -> None:
    cases = [json.loads(line) for line in PDF_CASES.read_text().splitlines() if line.strip()]
    kept = [c for c in cases if all(r["file"] != "fullrefman.pdf" for r in c["relevant"])]
    assert len(kept) == 21
    path = tmp_path / "cases.jsonl"
    path.write_text("".join(json.dumps(c) + "\n" for c in kept))
    proc = run_docsmcp("eval", "--bundle", f"r-manuals={manuals_bundle}", "--cases", path, "--json")
    report = json.loads(proc.stdout)
    assert report["overall"]["mrr"] >= 0.6, report["overall"]
    lookups = {"dev-pdf-022", "dev-pdf-023", "dev-pdf-024"}
    ranks = {r["id"]: r["first_relevant_rank"] for r in report["results"] if r["id"] in lookups}
    assert ranks == dict.fromkeys(lookups, 1)
