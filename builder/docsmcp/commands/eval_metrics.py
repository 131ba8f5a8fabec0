"""Figures of `docsmcp eval`: one case's result, the metrics of a group of cases, the report.

Metrics (all at cut-off k, averaged per case over the group's cases):
- MRR@k: 1 / rank of the first relevant hit, 0 when none is in the top k.
- nDCG@k, binary gain (section level): relevant entries are deduplicated (file, normalised
  heading); a hit gains 1 when it satisfies at least one entry not matched by a higher-ranked
  hit, and then marks every entry it satisfies as matched. So a chunk covering several answer
  locations is one result and gains once. The ideal DCG puts min(k, number of distinct entries)
  gains of 1 at the top. Page level (eval_pages.py) gains a page's grade instead.
- hit@k: 1 when any relevant hit is in the top k.
- facet precision: share of a case's returned hits whose metadata carries every case filter value
  (1.0 for a case without filters); cases that returned no hits are left out of the mean.
- no-answer cases (`"relevant": []`) are left out of MRR/nDCG/hit@k; their score is the
  no_answer_ok rate: correct when there are no hits or a hint came with them, and no hit lies
  outside the filters.
- mean hit chars: mean `get_doc` content length over all returned hits of the group (per hit, not
  per case, so a case returning more hits weighs more).
- latency p50/p95: wall time of the `search_docs` call_tool, linear-interpolated percentiles.
A search that returns isError counts as a failed case (no hits, the message recorded).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from docsmcp.commands.eval_cases import Entry


@dataclass(frozen=True)
class CaseResult:
    id: str
    corpus: str
    category: str
    query: str
    filters: dict[str, str]
    relevant: tuple[Entry, ...]
    chunk_ids: tuple[str, ...]
    matched: tuple[tuple[int, ...], ...]  # per hit: indices into `relevant` it satisfies
    gains: tuple[float, ...]  # per hit: its DCG gain (sections 1 or 0, pages a grade)
    in_filter: tuple[bool, ...]  # per hit
    hit_chars: tuple[int, ...]  # per hit: get_doc content length
    hint: str | None
    error: str | None
    latency_ms: float
    k: int
    # The best possible gains in rank order (the ideal DCG's); None: binary, one gain of 1 per
    # distinct relevant entry, at most k.
    ideal: tuple[float, ...] | None = None

    @property
    def no_answer(self) -> bool:
        return not self.relevant

    @property
    def first_rank(self) -> int | None:
        """1-based rank of the first relevant hit, None when none is in the top k."""
        return next((i + 1 for i, m in enumerate(self.matched) if m), None)

    @property
    def reciprocal_rank(self) -> float:
        rank = self.first_rank
        return 0.0 if rank is None else 1.0 / rank

    @property
    def ndcg(self) -> float:
        dcg = sum(g / math.log2(i + 2) for i, g in enumerate(self.gains))
        gains = self.ideal if self.ideal is not None else (1.0,) * len(self.relevant)
        ideal = sum(g / math.log2(i + 2) for i, g in enumerate(gains[: self.k]))
        return dcg / ideal if ideal else 0.0

    @property
    def facet_precision(self) -> float | None:
        if not self.filters:
            return 1.0
        if not self.in_filter:
            return None
        return sum(self.in_filter) / len(self.in_filter)

    @property
    def no_answer_ok(self) -> bool | None:
        if not self.no_answer:
            return None
        if self.error is not None:
            return False
        return (not self.chunk_ids or self.hint is not None) and all(self.in_filter)

    @property
    def passed(self) -> bool:
        if self.error is not None:
            return False
        if self.no_answer:
            return bool(self.no_answer_ok)
        return self.first_rank is not None

    def to_json(self) -> dict:
        return {
            "id": self.id,
            "corpus": self.corpus,
            "category": self.category,
            "query": self.query,
            "filters": self.filters,
            "passed": self.passed,
            "first_relevant_rank": self.first_rank,
            "reciprocal_rank": None if self.no_answer else self.reciprocal_rank,
            "ndcg": None if self.no_answer else round(self.ndcg, 6),
            "facet_precision": self.facet_precision,
            "no_answer_ok": self.no_answer_ok,
            "chunk_ids": list(self.chunk_ids),
            "matched": [list(m) for m in self.matched],
            "in_filter": list(self.in_filter),
            "hit_chars": list(self.hit_chars),
            "relevant": [{"file": e.file, "heading": e.label} for e in self.relevant],
            "hint": self.hint,
            "error": self.error,
            "latency_ms": round(self.latency_ms, 3),
        }


def percentile(values: list[float], q: float) -> float | None:
    """Linear-interpolated percentile (numpy's default), None for no values."""
    if not values:
        return None
    xs = sorted(values)
    pos = (len(xs) - 1) * q
    lo, hi = math.floor(pos), math.ceil(pos)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def _mean(values: Iterable[float]) -> float | None:
    vs = list(values)
    return sum(vs) / len(vs) if vs else None


@dataclass(frozen=True)
class Metrics:
    """Figures over a group of evaluated cases; None where the group has nothing to average."""

    cases: int
    answerable: int
    no_answer: int
    errors: int
    mrr: float | None
    ndcg: float | None
    hit_rate: float | None
    facet_precision: float | None
    no_answer_ok: float | None
    mean_hit_chars: float | None
    latency_p50_ms: float | None
    latency_p95_ms: float | None

    @classmethod
    def of(cls, results: list[CaseResult]) -> Metrics:
        answerable = [r for r in results if not r.no_answer]
        no_answer = [r for r in results if r.no_answer]
        latencies = [r.latency_ms for r in results]
        return cls(
            cases=len(results),
            answerable=len(answerable),
            no_answer=len(no_answer),
            errors=sum(r.error is not None for r in results),
            mrr=_mean(r.reciprocal_rank for r in answerable),
            ndcg=_mean(r.ndcg for r in answerable),
            hit_rate=_mean(float(r.first_rank is not None) for r in answerable),
            facet_precision=_mean(p for r in results if (p := r.facet_precision) is not None),
            no_answer_ok=_mean(float(bool(r.no_answer_ok)) for r in no_answer),
            mean_hit_chars=_mean(c for r in results for c in r.hit_chars),
            latency_p50_ms=percentile(latencies, 0.50),
            latency_p95_ms=percentile(latencies, 0.95),
        )

    def to_json(self) -> dict:
        out: dict[str, Any] = {}
        for name, value in self.__dict__.items():
            out[name] = round(value, 6) if isinstance(value, float) else value
        return out


@dataclass(frozen=True)
class EvalReport:
    k: int
    results: tuple[CaseResult, ...]
    skipped: tuple[dict, ...]  # cases whose corpus had no bundle
    overall: Metrics
    by_category: dict[str, Metrics]
    by_corpus: dict[str, Metrics]

    @property
    def failing(self) -> tuple[CaseResult, ...]:
        return tuple(r for r in self.results if not r.passed)

    def to_json(self) -> dict:
        return {
            "k": self.k,
            "cases": len(self.results) + len(self.skipped),
            "evaluated": len(self.results),
            "skipped": len(self.skipped),
            "skipped_cases": [{"id": c["id"], "corpus": c["corpus"]} for c in self.skipped],
            "overall": self.overall.to_json(),
            "by_category": {k: m.to_json() for k, m in self.by_category.items()},
            "by_corpus": {k: m.to_json() for k, m in self.by_corpus.items()},
            "failing": [r.id for r in self.failing],
            "results": [r.to_json() for r in self.results],
        }


def report_of(k: int, results: list[CaseResult], skipped: list[dict]) -> EvalReport:
    """The report of evaluated `results` (and the cases `skipped` for want of a bundle)."""
    return EvalReport(
        k=k,
        results=tuple(results),
        skipped=tuple(skipped),
        overall=Metrics.of(results),
        by_category=_grouped(results, "category"),
        by_corpus=_grouped(results, "corpus"),
    )


def _grouped(results: list[CaseResult], key: str) -> dict[str, Metrics]:
    groups: dict[str, list[CaseResult]] = {}
    for r in results:
        groups.setdefault(getattr(r, key), []).append(r)
    return {name: Metrics.of(groups[name]) for name in sorted(groups)}


def _fmt(value: float | None, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def format_report(report: EvalReport, title: str | None = None) -> str:
    """The report as text tables; `title` replaces the first line's "N cases" (page-level)."""
    k = report.k
    header = (
        f"{'':<24} {'cases':>5} {'MRR@' + str(k):>7} {'nDCG@' + str(k):>7} "
        f"{'hit@' + str(k):>6} {'facetP':>6} {'noAns':>6} {'chars':>7} "
        f"{'p50ms':>7} {'p95ms':>7}"
    )

    def row(label: str, m: Metrics) -> str:
        return (
            f"{label:<24.24} {m.cases:>5} {_fmt(m.mrr):>7} {_fmt(m.ndcg):>7} "
            f"{_fmt(m.hit_rate):>6} {_fmt(m.facet_precision):>6} {_fmt(m.no_answer_ok):>6} "
            f"{_fmt(m.mean_hit_chars, 0):>7} {_fmt(m.latency_p50_ms, 2):>7} "
            f"{_fmt(m.latency_p95_ms, 2):>7}"
        )

    total = len(report.results) + len(report.skipped)
    lines = [
        title
        or f"{total} cases: {len(report.results)} evaluated, {len(report.skipped)} skipped "
        f"(no bundle for their corpus), k={k}",
        "",
        header,
        row("overall", report.overall),
        "by category",
        *(row("  " + name, m) for name, m in report.by_category.items()),
        "by corpus",
        *(row("  " + name, m) for name, m in report.by_corpus.items()),
    ]
    if report.skipped:
        corpora = sorted({c["corpus"] for c in report.skipped})
        lines += ["", f"skipped corpora: {', '.join(corpora)}"]
    failing = report.failing
    lines += ["", f"failing cases ({len(failing)} of {len(report.results)}):"]
    for r in failing:
        lines.append(f"  {r.id} [{r.corpus} / {r.category}] {r.query!r}")
        if r.error is not None:
            lines.append(f"      error: {r.error}")
        wanted = ", ".join(
            e.file if e.label is None else f"{e.file} # {e.label}" for e in r.relevant
        )
        lines.append(f"      expected: {wanted or '(no answer: no hits, or a hint)'}")
        for i, chunk_id in enumerate(r.chunk_ids[:3], start=1):
            outside = "" if r.in_filter[i - 1] else "  (outside filters)"
            lines.append(f"      {i}. {chunk_id}{outside}")
        if not r.chunk_ids and r.error is None:
            lines.append("      (no hits)")
    if not failing:
        lines.append("  none")
    return "\n".join(lines)
