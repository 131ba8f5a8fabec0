"""`docsmcp eval --pages`: distinct pages in rank order, judged with graded relevance.

On the real example bundle (examples/acme-sdk). The page order each test relies on is re-checked
from real search_docs calls first, so a ranking change fails there with the observed order.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from docsmcp.cli import main
from docsmcp.commands.eval_cases import CaseError, load_cases
from docsmcp.commands.eval_pages import evaluate_pages, page_grades
from docsmcp.commands.evaluate import evaluate
from docsmcp_runtime.bundle.reader import open_bundle
from docsmcp_runtime.tools.app import DocsApp

ACME = "acme-sdk"
PY_PAYMENTS = "python/payments.md"
TS_PAYMENTS = "typescript/payments.md"
READMES = {"python/README.md", "typescript/README.md"}


@pytest.fixture(scope="module")
def app(example_bundle: Path) -> DocsApp:
    return DocsApp(open_bundle(example_bundle))


def pages(app: DocsApp, query: str) -> list[str]:
    """Distinct filepaths of the first 20 hits, in rank order."""
    result = app.call_tool("search_docs", {"query": query, "limit": 20})
    return list(dict.fromkeys(h["filepath"] for h in result["structuredContent"]["hits"]))


def graded(id: str, query: str, *relevant: tuple[str, str | None, int]) -> dict:
    return {
        "id": id,
        "corpus": ACME,
        "category": "exact-name",
        "query": query,
        "filters": {},
        "relevant": [{"file": f, "heading": h, "grade": g} for f, h, g in relevant],
    }


def dcg(gains: list[float]) -> float:
    return sum(g / math.log2(i + 2) for i, g in enumerate(gains))


def test_graded_ndcg_and_mrr_over_distinct_pages(app: DocsApp) -> None:
    order = pages(app, "list_payments")
    assert order[:2] == [PY_PAYMENTS, TS_PAYMENTS] and set(order[2:4]) == READMES, order
    cases = [
        # the canonical page second, a related one first; two entries of one file count once,
        # with their best grade
        graded(
            "both",
            "list_payments",
            (TS_PAYMENTS, "listPayments", 3),
            (TS_PAYMENTS, None, 1),
            (PY_PAYMENTS, "list_payments", 2),
        ),
        # a relevant page the search never reaches in the first k pages
        graded("absent", "list_payments", ("guides/errors.mdx", None, 3)),
    ]
    report = evaluate_pages({ACME: app}, cases, k=2)
    both, absent = report.results
    assert both.chunk_ids == (PY_PAYMENTS, TS_PAYMENTS)
    assert both.first_rank == 1 and both.reciprocal_rank == 1.0
    assert both.gains == (2.0, 3.0)
    assert both.ndcg == pytest.approx(dcg([2, 3]) / dcg([3, 2]))
    assert absent.first_rank is None and absent.ndcg == 0.0
    assert report.overall.mrr == pytest.approx(0.5)
    assert report.overall.hit_rate == pytest.approx(0.5)
    assert report.overall.mean_hit_chars is None  # not measured per page
    assert page_grades(cases[0]) == {TS_PAYMENTS: 3, PY_PAYMENTS: 2}


def test_follows_next_cursor_until_k_distinct_pages(app: DocsApp) -> None:
    order = pages(app, "list_payments")
    case = graded("far", "list_payments", (order[3], None, 1))
    # One hit per call: the fourth distinct page needs at least four calls through next_cursor.
    (one,) = evaluate_pages({ACME: app}, [case], k=4, page_limit=1).results
    assert one.chunk_ids == tuple(order[:4])
    assert one.first_rank == 4
    (few,) = evaluate_pages({ACME: app}, [case], k=3, page_limit=1).results
    assert few.first_rank is None and len(few.chunk_ids) == 3


def test_section_level_stays_binary(app: DocsApp) -> None:
    case = graded("both", "list_payments", (TS_PAYMENTS, None, 3), (PY_PAYMENTS, None, 1))
    (section,) = evaluate({ACME: app}, [case], k=5).results
    # Two entries, both matched by the first two hits, gain 1 each whatever their grade.
    assert section.gains[:2] == (1, 1) and section.ndcg == pytest.approx(1.0)


@pytest.mark.parametrize("grade", [0, 4, "3", True, 2.5])
def test_bad_grade_names_the_line(tmp_path: Path, grade: object) -> None:
    line = graded("a", "q", ("a.md", None, 3))
    line["relevant"][0]["grade"] = grade
    path = tmp_path / "c.jsonl"
    path.write_text(json.dumps(line) + "\n", encoding="utf-8")
    with pytest.raises(CaseError, match=r":1: relevant\[0\]\.grade must be 1, 2 or 3"):
        load_cases(path)


def test_cli_pages_prints_both_tables(
    example_bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "c.jsonl"
    case = graded("both", "list_payments", (TS_PAYMENTS, "listPayments", 3))
    path.write_text(json.dumps(case) + "\n", encoding="utf-8")
    assert main(["eval", "--bundle", str(example_bundle), "--cases", str(path), "--pages"]) == 0
    out = capsys.readouterr().out
    sections, _, by_page = out.partition("page level: 1 cases, the first 5 distinct pages")
    assert "1 cases: 1 evaluated" in sections and "overall" in sections
    assert "graded nDCG@5" in by_page and "overall" in by_page

    assert main(["eval", "--bundle", str(example_bundle), "--cases", str(path), "--json"]) == 0
    assert "pages" not in json.loads(capsys.readouterr().out)
    args = ["eval", "--bundle", str(example_bundle), "--cases", str(path), "--json", "--pages"]
    assert main(args) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["pages"]["results"][0]["chunk_ids"][:2] == [PY_PAYMENTS, TS_PAYMENTS]
    assert doc["pages"]["overall"]["mrr"] == 0.5
