"""`docsmcp eval`: score bundles against labelled queries (format: shared/eval/README.md).

Every case's query goes through the same `search_docs` tool call an MCP client makes, so what is
measured is what an agent gets. A hit is relevant to a case's `relevant` entry when its filepath
equals the entry's file and either the entry's heading is null, or the heading text (casefolded,
whitespace-collapsed) equals the hit's heading or one of its breadcrumb's parts, or the chunk's
content (from `get_doc`) has that heading as a markdown ATX heading line outside code fences.
Comparing whole breadcrumb parts rather than substrings keeps a short heading such as "create" or
"Q" from matching "create_many" or every breadcrumb that contains a q; the content rule keeps the
judgement independent of how the builder chunks (a merged or whole-file chunk still counts), and
the mean hit size reported beside the scores is what catches returning whole files.

Metrics (all at cut-off k, averaged per case over the group's cases):
- MRR@k: 1 / rank of the first relevant hit, 0 when none is in the top k.
- nDCG@k, binary gain: relevant entries are deduplicated (file, normalised heading); a hit gains 1
  when it satisfies at least one entry not matched by a higher-ranked hit, and then marks every
  entry it satisfies as matched. So a chunk covering several answer locations is one result and
  gains once. The ideal DCG puts min(k, number of distinct entries) gains of 1 at the top.
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

import json
import math
import re
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from docsmcp_runtime.bundle.reader import open_bundle
from docsmcp_runtime.errors import BundleError
from docsmcp_runtime.search.budget import MAX_TOKENS, MIN_TOKENS
from docsmcp_runtime.search.engine import SearchOptions
from docsmcp_runtime.tools.app import DocsApp
from docsmcp_runtime.tools.arguments import MAX_LIMIT

from docsmcp.sources.formats.fences import fenced_lines

PROG = "docsmcp"
DEFAULT_CATEGORY = "uncategorized"

# An ATX heading line: up to 3 spaces, 1-6 #s, then a space and the text, optional closing #s.
_ATX = re.compile(r"^ {0,3}#{1,6}(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_DELIMITER = re.compile(r"^--- Chunk: .* ---$")


class CaseError(ValueError):
    """A cases file cannot be read or a line is malformed; the message names file:line."""


# --------------------------------------------------------------------------- cases


def load_cases(path: str | Path) -> list[dict]:
    """Read a JSONL cases file into normalised dicts (`category` and `filters` defaulted).

    Raises CaseError "FILE:LINE: reason" for the first malformed line, so a typo in a
    hand-written case is found at once instead of silently scoring as a miss.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise CaseError(f"{path}: cannot read cases file: {reason}") from None
    cases: list[dict] = []
    seen: dict[str, int] = {}
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path}:{lineno}"
        try:
            raw = json.loads(line)
        except json.JSONDecodeError as exc:
            raise CaseError(f"{where}: invalid JSON: {exc.msg} (column {exc.colno})") from None
        case = _check_case(raw, where)
        if case["id"] in seen:
            raise CaseError(
                f"{where}: duplicate case id {case['id']!r} (first on line {seen[case['id']]})"
            )
        seen[case["id"]] = lineno
        cases.append(case)
    return cases


def _check_case(raw: Any, where: str) -> dict:
    def fail(reason: str) -> CaseError:
        return CaseError(f"{where}: {reason}")

    if not isinstance(raw, dict):
        raise fail("a case must be a JSON object")
    for key in ("id", "corpus", "query"):
        if not isinstance(raw.get(key), str) or not raw[key].strip():
            raise fail(f"'{key}' must be a non-empty string")
    category = raw.get("category", DEFAULT_CATEGORY)
    if not isinstance(category, str) or not category.strip():
        raise fail("'category' must be a non-empty string")
    filters = raw.get("filters", {})
    if not isinstance(filters, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in filters.items()
    ):
        raise fail("'filters' must be an object of string values")
    relevant = raw.get("relevant")
    if not isinstance(relevant, list):
        raise fail("'relevant' must be a list (empty when the case has no answer)")
    for i, entry in enumerate(relevant):
        if not isinstance(entry, dict) or not isinstance(entry.get("file"), str):
            raise fail(f"relevant[{i}] must be an object with a string 'file'")
        if "heading" not in entry or not (
            entry["heading"] is None or isinstance(entry["heading"], str)
        ):
            raise fail(f"relevant[{i}].heading must be a string or null")
    return {**raw, "category": category, "filters": dict(filters)}


# --------------------------------------------------------------------------- judging


def normalize(text: str) -> str:
    """Casefolded and whitespace-collapsed, the comparison the README prescribes."""
    return " ".join(text.split()).casefold()


def heading_lines(content: str) -> set[str]:
    """Normalised texts of the ATX heading lines of markdown, ignoring fenced code
    (a `# comment` in a shell or Python block is not a heading)."""
    found: set[str] = set()
    lines = content.splitlines()
    for line, code in zip(lines, fenced_lines(lines), strict=True):
        if code:
            continue
        h = _ATX.match(line)
        if h and h.group(1):
            found.add(normalize(h.group(1)))
    return found


def chunk_content(get_doc_result: dict) -> str:
    """The chunk's markdown from a get_doc result, without the `--- Chunk: ... ---` line."""
    if get_doc_result.get("isError"):
        return ""
    text = "".join(c.get("text", "") for c in get_doc_result.get("content", []))
    first, sep, rest = text.partition("\n")
    return rest if sep and _DELIMITER.match(first) else text


@dataclass(frozen=True)
class Entry:
    """One deduplicated relevant location: a file and a normalised heading (None: whole file)."""

    file: str
    heading: str | None
    label: str | None = field(default=None, compare=False)  # the heading as written, for output


def relevant_entries(case: dict) -> tuple[Entry, ...]:
    seen: dict[Entry, None] = {}
    for r in case["relevant"]:
        heading = r["heading"]
        entry = Entry(r["file"], None if heading is None else normalize(heading), heading)
        seen.setdefault(entry, None)
    return tuple(seen)


def satisfies(hit: dict, entry: Entry, headings: set[str]) -> bool:
    """Whether a hit is relevant to an entry; `headings` are the chunk content's heading lines."""
    if hit.get("filepath") != entry.file:
        return False
    if entry.heading is None:
        return True
    if normalize(hit.get("heading", "")) == entry.heading:
        return True
    # whole breadcrumb parts (" > " separated), also when a heading itself contains " > "
    if f" > {entry.heading} > " in f" > {normalize(hit.get('breadcrumb', ''))} > ":
        return True
    return entry.heading in headings


def in_filters(hit: dict, filters: dict[str, str]) -> bool:
    metadata = hit.get("metadata") or {}
    return all(metadata.get(key) == value for key, value in filters.items())


# --------------------------------------------------------------------------- results


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
    gains: tuple[int, ...]  # per hit: 1 when it matched a not-yet-matched entry
    in_filter: tuple[bool, ...]  # per hit
    hit_chars: tuple[int, ...]  # per hit: get_doc content length
    hint: str | None
    error: str | None
    latency_ms: float
    k: int

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
        ideal = sum(1.0 / math.log2(i + 2) for i in range(min(self.k, len(self.relevant))))
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


# --------------------------------------------------------------------------- evaluation


class _ContentCache:
    """get_doc content and heading lines per chunk id, fetched once per app."""

    def __init__(self, app: DocsApp) -> None:
        self.app = app
        self._cache: dict[str, tuple[int, set[str]]] = {}

    def get(self, chunk_id: str) -> tuple[int, set[str]]:
        if chunk_id not in self._cache:
            content = chunk_content(self.app.call_tool("get_doc", {"chunk_id": chunk_id}))
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


def _grouped(results: list[CaseResult], key: str) -> dict[str, Metrics]:
    groups: dict[str, list[CaseResult]] = {}
    for r in results:
        groups.setdefault(getattr(r, key), []).append(r)
    return {name: Metrics.of(groups[name]) for name in sorted(groups)}


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
    return EvalReport(
        k=k,
        results=tuple(results),
        skipped=tuple(skipped),
        overall=Metrics.of(results),
        by_category=_grouped(results, "category"),
        by_corpus=_grouped(results, "corpus"),
    )


# --------------------------------------------------------------------------- table


def _fmt(value: float | None, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def format_report(report: EvalReport) -> str:
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
        f"{total} cases: {len(report.results)} evaluated, {len(report.skipped)} skipped "
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


# --------------------------------------------------------------------------- CLI


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
        )
        apps[name] = DocsApp(bundle, options)
    from docsmcp.common.progress import Progress

    counter = Progress("docsmcp", "evaluating cases", len(cases))
    report = evaluate(apps, cases, k, counter.advance)
    counter.close()
    text = json.dumps(report.to_json(), indent=2, ensure_ascii=False) if args.json else None
    # a reader gone away (`| head`): cli.main
    print(text if text is not None else format_report(report), flush=True)
    if cases and not report.results:
        print(
            f"{PROG}: warning: no case is for the corpora of the given bundles "
            f"({', '.join(sorted(apps))}); all {len(cases)} were skipped",
            file=sys.stderr,
        )
    return 0
