"""`docsmcp eval`: score bundles against labelled queries (format: shared/eval/README.md).

Every case's query goes through the same `search_docs` tool call an MCP client makes, so what is
measured is what an agent gets. Cases and the judging of a hit: eval_cases.py; the metrics and
the report: eval_metrics.py; `--pages`, the ranking of distinct pages with graded judgments:
eval_pages.py.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from typing import Any

from docsmcp_runtime.bundle.reader import open_bundle
from docsmcp_runtime.errors import BundleError
from docsmcp_runtime.search.budget import MAX_TOKENS, MIN_TOKENS
from docsmcp_runtime.search.options import SearchOptions
from docsmcp_runtime.tools.app import DocsApp
from docsmcp_runtime.tools.arguments import MAX_LIMIT

from docsmcp.commands.eval_cases import (
    CaseError,
    chunk_content,
    heading_lines,
    in_filters,
    load_cases,
    relevant_entries,
    satisfies,
)
from docsmcp.commands.eval_metrics import CaseResult, EvalReport, format_report, report_of
from docsmcp.commands.eval_pages import evaluate_pages

PROG = "docsmcp"


# --------------------------------------------------------------------------- evaluation


class _ContentCache:
    """get_doc content and heading lines per chunk id, fetched once per app."""

    def __init__(self, app: DocsApp) -> None:
        self.app = app
        self._cache: dict[str, tuple[int, set[str]]] = {}

    def get(self, chunk_id: str) -> tuple[int, set[str]]:
        if chunk_id not in self._cache:
            # the whole chunk (not one default response budget): judged on all its headings
            whole = {"chunk_id": chunk_id, "max_tokens": MAX_TOKENS}
            content = chunk_content(self.app.call_tool("get_doc", whole))
            self._cache[chunk_id] = (len(content), heading_lines(content))
        return self._cache[chunk_id]


def _run_case(app: DocsApp, contents: _ContentCache, case: dict, k: int) -> CaseResult:
    filters = case["filters"]
    entries = relevant_entries(case)
    started = time.perf_counter()
    result = app.call_tool("search_docs", {"query": case["query"], "limit": k, **filters})
    latency_ms = (time.perf_counter() - started) * 1000.0
    error = None
    hits: list[dict] = []
    hint = None
    if result.get("isError"):
        error = " ".join(c.get("text", "") for c in result.get("content", [])) or "isError"
    else:
        structured = result.get("structuredContent") or {}
        hits = list(structured.get("hits") or [])[:k]
        if structured.get("hint"):
            hint = structured["hint"].get("message") or json.dumps(structured["hint"])
    matched: list[tuple[int, ...]] = []
    gains: list[int] = []
    sizes: list[int] = []
    done: set[int] = set()
    for hit in hits:
        size, headings = contents.get(hit["chunk_id"])
        sizes.append(size)
        m = tuple(i for i, e in enumerate(entries) if satisfies(hit, e, headings))
        matched.append(m)
        gains.append(1 if set(m) - done else 0)
        done.update(m)
    return CaseResult(
        id=case["id"],
        corpus=case["corpus"],
        category=case["category"],
        query=case["query"],
        filters=dict(filters),
        relevant=entries,
        chunk_ids=tuple(h["chunk_id"] for h in hits),
        matched=tuple(matched),
        gains=tuple(gains),
        in_filter=tuple(in_filters(h, filters) for h in hits),
        hit_chars=tuple(sizes),
        hint=hint,
        error=error,
        latency_ms=latency_ms,
        k=k,
    )


def evaluate(
    apps: dict[str, DocsApp],
    cases: list[dict],
    k: int = 5,
    advance: Callable[[], None] | None = None,
) -> EvalReport:
    """Run every case whose corpus is a key of `apps`; the others are reported as skipped.
    `advance` is called after each case (a progress counter)."""
    if not 1 <= k <= MAX_LIMIT:
        raise ValueError(f"k must be between 1 and {MAX_LIMIT}")
    caches = {name: _ContentCache(app) for name, app in apps.items()}
    results: list[CaseResult] = []
    skipped: list[dict] = []
    for case in cases:
        corpus = case["corpus"]
        if corpus not in apps:
            skipped.append(case)
            continue
        results.append(_run_case(apps[corpus], caches[corpus], case, k))
        if advance is not None:
            advance()
    return report_of(k, results, skipped)


# --------------------------------------------------------------------------- CLI


RESCORER_WAIT = 600  # seconds: a 300M-parameter f32 encoder loads in a few on a laptop


def _rescorer_ready(app: DocsApp) -> str | None:
    """Wait for the bundle's rescoring model (evaluating while it loads would measure the first
    stage); what stops it, if anything (pass --no-rescore to evaluate without it)."""
    rescorer = app.searcher.rescorer
    if rescorer is None:
        return None
    if not rescorer.wait(RESCORER_WAIT):
        return f"the rescoring model did not load in {RESCORER_WAIT} s"
    if rescorer.error:
        return f"the rescoring model cannot load ({rescorer.error}); --no-rescore leaves it out"
    return None


def _error(message: str) -> int:
    print(f"{PROG}: error: {message}", file=sys.stderr)
    return 2


def parse_bundle_arg(spec: str) -> tuple[str | None, str]:
    """`[CORPUS=]DIR` -> (corpus or None, dir). A `=` after a `/` belongs to the path."""
    corpus, sep, path = spec.partition("=")
    if not sep or "/" in corpus or "\\" in corpus:
        return None, spec
    return corpus, path


def run_eval_cli(args: Any) -> int:
    """`docsmcp eval`: exit 0 after printing the report, 2 on a usage, cases or bundle error."""
    k = args.k
    if not 1 <= k <= MAX_LIMIT:
        return _error(f"--k must be between 1 and {MAX_LIMIT}")
    budget = getattr(args, "max_tokens", None)
    if budget is not None and not MIN_TOKENS <= budget <= MAX_TOKENS:
        return _error(f"--max-tokens must be between {MIN_TOKENS} and {MAX_TOKENS}")
    try:
        cases = load_cases(args.cases)
    except CaseError as exc:
        return _error(str(exc))
    apps: dict[str, DocsApp] = {}
    for spec in args.bundle:
        corpus, path = parse_bundle_arg(spec)
        if corpus is not None and (not corpus.strip() or not path):
            return _error(f"--bundle {spec!r}: expected [CORPUS=]DIR")
        try:
            bundle = open_bundle(path)
        except BundleError as exc:
            return _error(str(exc))
        name = corpus if corpus is not None else bundle.metadata.name
        if not name:
            return _error(f"--bundle {spec!r}: the bundle has no name; pass CORPUS={path}")
        if name in apps:
            return _error(f"--bundle {spec!r}: corpus {name!r} is given twice")
        options = SearchOptions(
            expand_references=bool(getattr(args, "expand_references", False)),
            max_tokens=getattr(args, "max_tokens", None),
            rescore=not getattr(args, "no_rescore", False),
        )
        apps[name] = DocsApp(bundle, options)
        problem = _rescorer_ready(apps[name])
        if problem:
            return _error(f"--bundle {spec!r}: {problem}")
    from docsmcp.common.progress import Progress

    pages = bool(getattr(args, "pages", False))
    counter = Progress("docsmcp", "evaluating cases", len(cases) * (2 if pages else 1))
    report = evaluate(apps, cases, k, counter.advance)
    by_page = evaluate_pages(apps, cases, k, counter.advance) if pages else None
    counter.close()
    if args.json:
        data = report.to_json()
        if by_page is not None:
            data["pages"] = by_page.to_json()
        text = json.dumps(data, indent=2, ensure_ascii=False)
    else:
        text = format_report(report)
        if by_page is not None:
            title = (
                f"page level: {len(by_page.results)} cases, the first {k} distinct pages, "
                f"graded nDCG@{k}"
            )
            text += "\n\n" + format_report(by_page, title)
    # a reader gone away (`| head`): cli.main
    print(text, flush=True)
    if cases and not report.results:
        print(
            f"{PROG}: warning: no case is for the corpora of the given bundles "
            f"({', '.join(sorted(apps))}); all {len(cases)} were skipped",
            file=sys.stderr,
        )
    return 0
