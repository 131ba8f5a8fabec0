"""`docsmcp eval --pages`: the ranking of distinct pages, judged with graded relevance.

An agent opens pages, not sections. This walks a case's `search_docs` hits in rank order,
following `next_cursor`, and keeps the first k distinct `filepath`s. A page is relevant when a
relevant entry names its file, whatever the entry's heading; its gain is the best `grade` among
those entries (3 the canonical answer, 2 closely related, 1 peripheral; 1 for an entry without
one). nDCG@k divides the DCG of the pages found by the DCG of the case's distinct relevant files
in grade order; MRR@k and hit@k count any relevant page. Facet precision judges each page by its
best-ranked hit; mean hit chars is not measured here (`-`).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable

from docsmcp_runtime.tools.app import DocsApp

from docsmcp.commands.eval_cases import DEFAULT_GRADE, Entry, in_filters
from docsmcp.commands.eval_metrics import CaseResult, EvalReport, report_of

# Hits asked for per search call, and calls per case at most, while looking for k distinct pages
# (a page whose sections fill the first hundred hits is then reported with fewer than k pages).
PAGE_LIMIT = 10
MAX_CALLS = 10


def page_grades(case: dict) -> dict[str, int]:
    """Each relevant file's best grade, in the order the case first names them."""
    grades: dict[str, int] = {}
    for entry in case["relevant"]:
        grade = entry.get("grade", DEFAULT_GRADE)
        grades[entry["file"]] = max(grades.get(entry["file"], 0), grade)
    return grades


def run_pages(app: DocsApp, case: dict, k: int, page_limit: int = PAGE_LIMIT) -> CaseResult:
    """One case judged on the first k distinct pages its search returns (`page_limit` hits
    asked for per call)."""
    filters = case["filters"]
    grades = page_grades(case)
    files = list(grades)
    pages: dict[str, dict] = {}  # filepath -> its best-ranked hit, in rank order
    error = hint = None
    cursor: str | None = None
    started = time.perf_counter()
    for _ in range(MAX_CALLS):
        arguments = {"query": case["query"], "limit": page_limit, **filters}
        if cursor:
            arguments["cursor"] = cursor
        result = app.call_tool("search_docs", arguments)
        if result.get("isError"):
            error = " ".join(c.get("text", "") for c in result.get("content", [])) or "isError"
            break
        structured = result.get("structuredContent") or {}
        if hint is None and structured.get("hint"):
            hint = structured["hint"].get("message") or json.dumps(structured["hint"])
        for hit in structured.get("hits") or []:
            pages.setdefault(hit["filepath"], hit)
        cursor = structured.get("next_cursor")
        if len(pages) >= k or not cursor:
            break
    latency_ms = (time.perf_counter() - started) * 1000.0
    ranked = list(pages.items())[:k]
    matched = tuple((files.index(f),) if f in grades else () for f, _ in ranked)
    return CaseResult(
        id=case["id"],
        corpus=case["corpus"],
        category=case["category"],
        query=case["query"],
        filters=dict(filters),
        relevant=tuple(Entry(f, None) for f in files),
        chunk_ids=tuple(f for f, _ in ranked),
        matched=matched,
        gains=tuple(float(grades.get(f, 0)) for f, _ in ranked),
        in_filter=tuple(in_filters(hit, filters) for _, hit in ranked),
        hit_chars=(),
        hint=hint,
        error=error,
        latency_ms=latency_ms,
        k=k,
        ideal=tuple(float(g) for g in sorted(grades.values(), reverse=True)),
    )


def evaluate_pages(
    apps: dict[str, DocsApp],
    cases: list[dict],
    k: int = 5,
    advance: Callable[[], None] | None = None,
    page_limit: int = PAGE_LIMIT,
) -> EvalReport:
    """The page-level report of every case whose corpus is a key of `apps`."""
    results: list[CaseResult] = []
    skipped: list[dict] = []
    for case in cases:
        if case["corpus"] not in apps:
            skipped.append(case)
            continue
        results.append(run_pages(apps[case["corpus"]], case, k, page_limit))
        if advance is not None:
            advance()
    return report_of(k, results, skipped)
