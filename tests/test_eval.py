"""`docsmcp eval`: case loading, the judging rule, metric arithmetic and the CLI.

Exact arithmetic is checked on the real example bundle (examples/acme-sdk) with ranks observed
from real searches and pinned (each pin is re-checked before the arithmetic that uses it); the
real yellow-docs bundle checks the end-to-end path with cases whose answer is certain (an
identifier found in one section only). No part of the app is faked.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from conftest import EVAL_CASES, run_docsmcp
from docsmcp.cli import main
from docsmcp.commands.eval_cases import (
    CaseError,
    Entry,
    chunk_content,
    heading_lines,
    load_cases,
    relevant_entries,
    satisfies,
)
from docsmcp.commands.eval_metrics import format_report, percentile
from docsmcp.commands.evaluate import evaluate, parse_bundle_arg
from docsmcp_runtime.bundle.reader import open_bundle
from docsmcp_runtime.search.budget import MAX_TOKENS
from docsmcp_runtime.tools.app import DocsApp

YELLOW = "yellow-docs"
TS_CONFIG = "docs/build/sdk/typescript/configuration.mdx"


def write_cases(path: Path, *cases: dict | str) -> Path:
    lines = [c if isinstance(c, str) else json.dumps(c) for c in cases]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def case(id: str, query: str, relevant: list[dict], **extra: object) -> dict:
    return {
        "id": id,
        "corpus": extra.pop("corpus", YELLOW),
        "category": extra.pop("category", "exact-name"),
        "query": query,
        "filters": extra.pop("filters", {}),
        "relevant": relevant,
        **extra,
    }


def rel(file: str, heading: str | None = None) -> dict:
    return {"file": file, "heading": heading}


# --------------------------------------------------------------------------- example corpus
#
# Metric arithmetic over the real example bundle (examples/acme-sdk, 19 chunks). Expected ranks
# were first observed from real search_docs calls on a freshly built bundle and are pinned
# below; each query is chosen so that the pinned positions rest on identifiers found in one or
# a few sections only, not on near-ties. `ranked()` re-checks every pinned position before the
# arithmetic, so a ranking change elsewhere fails there, with the observed order in the message.

ACME = "acme-sdk"  # the example bundle's name (its docs directory)
ERRORS = "guides/errors.mdx"
ERRORS_MAIN = "guides/errors.mdx#error-handling"
ERRORS_RETRIES = "guides/errors.mdx#error-handling/retries"
# The retries section's language tabs are chunks of their own (dialects.py).
ERRORS_RETRIES_PY = ERRORS_RETRIES + "/python"
ERRORS_RETRIES_TS = ERRORS_RETRIES + "/typescript"
SCOPED_KEYS = "guides/authentication.md#authentication/scoped-keys"
PY_README = "python/README.md"
PY_PAYMENTS = "python/payments.md"
PY_CREATE = "python/payments.md#payments/create"
PY_LIST = "python/payments.md#payments/listpayments"
PY_QUICK = "python/README.md#acme-python-sdk/quick-start"
PY_PAGINATION = "python/README.md#acme-python-sdk/pagination"
TS_README = "typescript/README.md"
TS_INSTALL = "typescript/README.md#acme-typescript-sdk/installation"
TS_QUICK = "typescript/README.md#acme-typescript-sdk/quick-start"
TS_PAYMENTS = "typescript/payments.md"
TS_LIST = "typescript/payments.md#payments/listpayments"
TS_PAGINATION = "typescript/README.md#acme-typescript-sdk/pagination"
TS_REFUND = "typescript/payments.md#payments/refund"


@pytest.fixture(scope="module")
def example_app(example_bundle: Path) -> DocsApp:
    return DocsApp(open_bundle(example_bundle))


def acme(id: str, query: str, relevant: list[dict], **extra: object) -> dict:
    return case(id, query, relevant, **{"corpus": ACME, **extra})


def search_hits(app: DocsApp, query: str, limit: int = 5, **filters: str) -> list[dict]:
    result = app.call_tool("search_docs", {"query": query, "limit": limit, **filters})
    assert not result["isError"], result
    return result["structuredContent"]["hits"]


def ranked(app: DocsApp, query: str, limit: int = 5, **filters: str) -> list[str]:
    """The chunk ids the real search returns, for checking the pinned ranks."""
    return [h["chunk_id"] for h in search_hits(app, query, limit, **filters)]


def get_doc_content(app: DocsApp, chunk_id: str) -> str:
    """A chunk's markdown as get_doc returns it, without the delimiter line."""
    result = app.call_tool("get_doc", {"chunk_id": chunk_id})
    assert not result["isError"], result
    header, _, content = result["content"][0]["text"].partition("\n")
    assert header.startswith(f"--- Chunk: {chunk_id} (")
    return content


def test_reciprocal_ranks_at_1_2_3_and_absent(example_app: DocsApp) -> None:
    # RateLimitExceededError is only in the errors table; npm only in the TypeScript
    # installation section. list_payments is the Python section's heading, listPayments the
    # TypeScript one's; both Pagination sections mention list operations, everything else only
    # "payments" (the pinned positions are each far apart in score, and the two Pagination
    # sections are one case, so their mutual order does not matter).
    assert ranked(example_app, "RateLimitExceededError")[0] == ERRORS_MAIN
    lp = ranked(example_app, "list_payments")
    assert lp[:2] == [PY_LIST, TS_LIST] and set(lp[2:4]) == {PY_PAGINATION, TS_PAGINATION}, lp
    assert ranked(example_app, "npm") == [TS_INSTALL]

    cases = [
        acme("first", "RateLimitExceededError", [rel(ERRORS, "Error handling")]),
        acme("second", "list_payments", [rel(TS_PAYMENTS, "listPayments")]),
        acme(
            "third", "list_payments", [rel(PY_README, "Pagination"), rel(TS_README, "Pagination")]
        ),
        acme("absent", "npm", [rel(PY_README, "Installation")]),
    ]
    ticks: list[int] = []
    report = evaluate({ACME: example_app}, cases, k=5, advance=lambda: ticks.append(1))
    assert len(ticks) == len(cases)  # the progress counter of `docsmcp eval` sees every case
    by_id = {r.id: r for r in report.results}
    assert [by_id[i].first_rank for i in ("first", "second", "third", "absent")] == [
        1,
        2,
        3,
        None,
    ]
    expected_rr = {"first": 1.0, "second": 1 / 2, "third": 1 / 3, "absent": 0.0}
    expected_ndcg = {
        "first": 1.0,
        "second": 1 / math.log2(3),
        # two entries, at ranks 3 and 4: DCG = 1/log2(4) + 1/log2(5), ideal = 1 + 1/log2(3)
        "third": (1 / math.log2(4) + 1 / math.log2(5)) / (1 + 1 / math.log2(3)),
        "absent": 0.0,
    }
    for cid in expected_rr:
        assert by_id[cid].reciprocal_rank == pytest.approx(expected_rr[cid]), cid
        assert by_id[cid].ndcg == pytest.approx(expected_ndcg[cid]), cid
    assert by_id["absent"].chunk_ids == (TS_INSTALL,)
    assert by_id["absent"].matched == ((),)
    m = report.overall
    assert m.cases == m.answerable == 4
    assert m.mrr == pytest.approx((1 + 1 / 2 + 1 / 3 + 0) / 4)
    assert m.ndcg == pytest.approx(sum(expected_ndcg.values()) / 4)
    assert m.hit_rate == pytest.approx(3 / 4)
    assert m.facet_precision == 1.0  # no filters anywhere
    assert m.no_answer_ok is None
    assert [r.id for r in report.failing] == ["absent"]


def test_ndcg_two_entries_whole_file_and_duplicates(example_app: DocsApp) -> None:
    # sk_test_123: the retries example's two tabs first, then both quick starts (either order).
    sk = ranked(example_app, "sk_test_123")
    assert set(sk[:2]) == {ERRORS_RETRIES_PY, ERRORS_RETRIES_TS}, sk
    assert set(sk[2:4]) == {PY_QUICK, TS_QUICK}, sk
    # RetryConfig: only in the retries section's Python tab; four more weak hits, three of them
    # the rest of the errors page.
    retry = ranked(example_app, "RetryConfig")
    assert retry[0] == ERRORS_RETRIES_PY and ERRORS_MAIN in retry and len(retry) == 5, retry
    assert sum(h.startswith(ERRORS) for h in retry) == 4, retry
    assert ranked(example_app, "RateLimitExceededError")[0] == ERRORS_MAIN

    cases = [
        # two entries (headings compared casefolded, whitespace collapsed) at ranks 3 and 4:
        # DCG = 1/log2(4) + 1/log2(5), ideal = 1 + 1/log2(3)
        acme(
            "two", "sk_test_123", [rel(PY_README, "QUICK START"), rel(TS_README, "quick   start")]
        ),
        # a whole-file entry matched by two hits gains once; duplicates are one entry
        acme("file", "RetryConfig", [rel(ERRORS), rel(ERRORS)]),
        # a heading entry also satisfied through a later hit's breadcrumb gains once
        acme("crumb", "RetryConfig", [rel(ERRORS, "Error handling")]),
        # one entry found at rank 1, one never: the ideal counts both
        acme("half", "RateLimitExceededError", [rel(ERRORS, "Error handling"), rel("nope.md")]),
    ]
    report = evaluate({ACME: example_app}, cases, k=5)
    by_id = {r.id: r for r in report.results}
    assert [by_id[i].first_rank for i in ("two", "file", "crumb", "half")] == [3, 1, 1, 1]
    assert by_id["two"].gains == (0, 0, 1, 1, 0)
    assert len(by_id["file"].relevant) == 1
    assert by_id["file"].gains == (1, 0, 0, 0, 0)
    assert sum(bool(m) for m in by_id["file"].matched) == 4  # the errors page's four hits
    assert by_id["crumb"].matched[0] == (0,)  # the tab, via "... > Error handling > Retries"
    assert by_id["crumb"].gains == (1, 0, 0, 0, 0)
    ideal2 = 1 + 1 / math.log2(3)
    expected_ndcg = {
        "two": (1 / math.log2(4) + 1 / math.log2(5)) / ideal2,
        "file": 1.0,
        "crumb": 1.0,
        "half": 1 / ideal2,
    }
    for cid, value in expected_ndcg.items():
        assert by_id[cid].ndcg == pytest.approx(value), cid
    m = report.overall
    assert m.mrr == pytest.approx((1 / 3 + 1 + 1 + 1) / 4)
    assert m.ndcg == pytest.approx(sum(expected_ndcg.values()) / 4)
    assert m.hit_rate == 1.0
    assert report.failing == ()


def test_chunk_covering_two_entries_gains_once(example_app: DocsApp) -> None:
    # The Python `create` section holds a `### Parameters` H3; "ISO currency code" is only there.
    hits = ranked(example_app, "ISO currency code")
    assert hits[0] == PY_CREATE and not any(h.startswith(PY_PAYMENTS) for h in hits[1:]), hits
    assert {"create", "parameters"} <= heading_lines(get_doc_content(example_app, PY_CREATE))
    report = evaluate(
        {ACME: example_app},
        [
            acme(
                "c",
                "ISO currency code",
                [rel(PY_PAYMENTS, "create"), rel(PY_PAYMENTS, "Parameters")],
            )
        ],
    )
    (r,) = report.results
    assert r.matched[0] == (0, 1)
    assert r.gains[0] == 1 and sum(r.gains) == 1
    assert r.ndcg == pytest.approx(1 / (1 + 1 / math.log2(3)))


def test_cutoff_k_limits_hits_and_ideal(example_app: DocsApp) -> None:
    # PermissionDeniedError: the two sections naming it, far above the rest (either order).
    pd = ranked(example_app, "PermissionDeniedError")
    assert set(pd[:2]) == {SCOPED_KEYS, ERRORS_MAIN}, pd
    assert ranked(example_app, "list_payments", limit=2) == [PY_LIST, TS_LIST]
    cases = [
        # three entries, two in the top 2: the ideal is min(k, 3) = 2 gains
        acme(
            "ideal",
            "PermissionDeniedError",
            [
                rel(ERRORS, "Error handling"),
                rel("guides/authentication.md", "Scoped keys"),
                rel(PY_README),
            ],
        ),
        # found at ranks 3 and 4, so a miss at k=2
        acme("cut", "list_payments", [rel(PY_README, "Pagination"), rel(TS_README, "Pagination")]),
    ]
    report = evaluate({ACME: example_app}, cases, k=2)
    by_id = {r.id: r for r in report.results}
    assert report.k == 2
    assert set(by_id["ideal"].chunk_ids) == {SCOPED_KEYS, ERRORS_MAIN}
    assert by_id["ideal"].gains == (1, 1)
    assert by_id["ideal"].ndcg == pytest.approx(1.0)
    assert by_id["cut"].chunk_ids == (PY_LIST, TS_LIST)
    assert by_id["cut"].first_rank is None and by_id["cut"].ndcg == 0.0
    m = report.overall
    assert (m.mrr, m.hit_rate) == (pytest.approx(0.5), pytest.approx(0.5))
    assert [r.id for r in report.failing] == ["cut"]


def test_facet_precision_and_no_answer_cases(example_app: DocsApp) -> None:
    py = {"language": "python"}
    # With language=python the scope=global-guide guides stay in (auto-include): three of the
    # five sk_test_123 hits are sections of a guide without a language (its lead paragraph
    # names `sk_test_` keys: the lead field of each of its sections), so they count as outside
    # (the errors guide's Python tab carries language=python).
    sk = search_hits(example_app, "sk_test_123", **py)
    assert {h["chunk_id"] for h in sk} == {
        ERRORS_RETRIES_PY,
        PY_QUICK,
        "guides/authentication.md#authentication",
        "guides/authentication.md#authentication/rotating-keys",
        "guides/authentication.md#authentication/scoped-keys",
    }
    assert sk[0]["chunk_id"] in (ERRORS_RETRIES_PY, PY_QUICK)
    cases = [
        acme(
            "mixed",
            "sk_test_123",
            [rel(PY_README, "Quick start"), rel(ERRORS, "Retries")],
            filters=py,
        ),
        # npm is TypeScript-only: no hits, a hint suggesting language=typescript
        acme("none", "npm", [], filters=py, category="facet"),
        acme("none-scope", "npm", [], filters={"scope": "global-guide"}, category="facet"),
        # hits, all inside the filter, but no hint: not a correct no-answer
        acme("silent", "refund", [], filters={"language": "typescript"}, category="facet"),
        # hits outside the filters (the auto-included guides) and no hint
        acme("leaky", "sk_test_123", [], filters=py, category="facet"),
        acme("broken", "npm", [rel(TS_README, "Installation")], filters={"language": "rust"}),
    ]
    report = evaluate({ACME: example_app}, cases, k=5)
    by_id = {r.id: r for r in report.results}
    assert by_id["mixed"].first_rank == 1
    assert sorted(by_id["mixed"].in_filter) == [False, False, False, True, True]
    assert by_id["mixed"].facet_precision == pytest.approx(2 / 5)
    assert by_id["none"].chunk_ids == ()
    assert by_id["none"].hint is not None and "language='python'" in by_id["none"].hint
    assert by_id["none"].facet_precision is None  # no hits: nothing to be precise about
    assert by_id["silent"].chunk_ids == (TS_REFUND,) and by_id["silent"].hint is None
    assert by_id["silent"].facet_precision == 1.0
    assert by_id["leaky"].facet_precision == pytest.approx(2 / 5)
    assert [by_id[i].no_answer_ok for i in ("none", "none-scope", "silent", "leaky")] == [
        True,
        True,
        False,
        False,
    ]
    assert by_id["broken"].error.startswith("Invalid taxonomy value for 'language'")
    assert '"rust"' in by_id["broken"].error
    assert by_id["broken"].chunk_ids == ()
    assert by_id["broken"].facet_precision is None
    m = report.overall
    assert (m.cases, m.answerable, m.no_answer, m.errors) == (6, 2, 4, 1)
    # no-answer cases stay out of MRR; the error is a miss
    assert m.mrr == pytest.approx(0.5)
    assert m.hit_rate == pytest.approx(0.5)
    assert m.no_answer_ok == pytest.approx(0.5)
    # mixed 2/5, silent 1, leaky 2/5 (none, none-scope and broken have no hits)
    assert m.facet_precision == pytest.approx((2 / 5 + 1 + 2 / 5) / 3)
    facet = report.by_category["facet"]
    assert (facet.cases, facet.answerable, facet.mrr, facet.no_answer_ok) == (4, 0, None, 0.5)
    assert {r.id for r in report.failing} == {"silent", "leaky", "broken"}


def test_hit_sizes_and_latency(example_app: DocsApp) -> None:
    report = evaluate(
        {ACME: example_app},
        [acme("1", "npm", [rel(TS_README)]), acme("2", "RetryConfig", [rel(ERRORS)])],
    )
    sizes = [
        tuple(len(get_doc_content(example_app, cid)) for cid in r.chunk_ids) for r in report.results
    ]
    assert [len(s) for s in sizes] == [1, 5]
    assert all(n > 0 for s in sizes for n in s)
    assert [r.hit_chars for r in report.results] == sizes
    # per hit, not per case: the case with five hits weighs five times
    all_sizes = [n for s in sizes for n in s]
    assert report.overall.mean_hit_chars == pytest.approx(sum(all_sizes) / 6)
    assert report.by_corpus[ACME].mean_hit_chars == report.overall.mean_hit_chars
    assert report.overall.latency_p50_ms is not None
    assert 0 <= report.overall.latency_p50_ms <= report.overall.latency_p95_ms


def test_percentile_interpolates() -> None:
    assert percentile([], 0.5) is None
    assert percentile([3.0], 0.95) == 3.0
    assert percentile([1.0, 2.0, 3.0, 4.0], 0.5) == 2.5
    assert percentile([float(i) for i in range(1, 101)], 0.95) == pytest.approx(95.05)


class RecordingApp(DocsApp):
    """The real DocsApp over a real bundle, additionally recording the tool calls it gets."""

    def __init__(self, bundle_path: Path) -> None:
        super().__init__(open_bundle(bundle_path))
        self.calls: list[tuple[str, dict]] = []

    def call_tool(self, name: str, arguments: dict) -> dict:
        self.calls.append((name, dict(arguments)))
        return super().call_tool(name, arguments)


def test_skipped_cases_and_get_doc_cached(example_bundle: Path) -> None:
    app = RecordingApp(example_bundle)
    cases = [
        acme("1", "npm", [rel(TS_README)]),
        acme("2", "npm", [rel(TS_README)]),
        acme("3", "npm", [rel(TS_README)], corpus="other"),
    ]
    report = evaluate({ACME: app}, cases)
    assert [r.id for r in report.results] == ["1", "2"]
    assert [c["id"] for c in report.skipped] == ["3"]
    # npm has one hit; the second case reads it from the cache (whole: not one default budget)
    whole = {"chunk_id": TS_INSTALL, "max_tokens": MAX_TOKENS}
    assert [a for name, a in app.calls if name == "get_doc"] == [whole]
    assert sum(name == "search_docs" for name, _ in app.calls) == 2
    doc = report.to_json()
    assert (doc["cases"], doc["evaluated"], doc["skipped"]) == (3, 2, 1)
    assert "1 skipped" in format_report(report)


def test_k_out_of_range() -> None:
    with pytest.raises(ValueError):
        evaluate({}, [], k=0)


# --------------------------------------------------------------------------- judging


def test_heading_lines() -> None:
    text = (
        "# Title\n\nintro\n\n##   Client   Options  ##\n```bash\n# not a heading\n```\n"
        "~~~~\n## nor this\n~~~\nstill fenced\n~~~~\n### `withX(ms)`\n#hashtag\n"
        "    # indented code\n"
        "## C#\n"
    )
    assert heading_lines(text) == {"title", "client options", "withx(ms)", "c#"}


def test_a_judged_heading_matches_the_text_a_reader_sees() -> None:
    """Judged headings are written as in the markdown source, code spans and all; a hit's
    heading and breadcrumb hold the text (rust-reference dev-024: the continuation part of
    "The `non_exhaustive` attribute" is that section, whose heading line it does not repeat)."""
    (entry,) = relevant_entries(
        {"relevant": [{"file": "a.md", "heading": "The `non_exhaustive`  attribute"}]}
    )
    hit = {
        "filepath": "a.md",
        "heading": "The non_exhaustive attribute",
        "breadcrumb": "a.md > Type system attributes > The non_exhaustive attribute",
    }
    assert satisfies(hit, entry, set())
    assert satisfies({**hit, "heading": "Part"}, entry, set())  # by its breadcrumb
    assert not satisfies({**hit, "heading": "x", "breadcrumb": "a.md > x"}, entry, set())


def test_chunk_content_strips_delimiter() -> None:
    def result(text: str) -> dict:
        return {"content": [{"type": "text", "text": text}], "isError": False}

    assert chunk_content(result("--- Chunk: a.md#x (Chunk 1 of 2) (Target) ---\n# X\nbody")) == (
        "# X\nbody"
    )
    assert chunk_content(result("# X")) == "# X"
    assert chunk_content({"content": [], "isError": True}) == ""


def test_satisfies_compares_whole_breadcrumb_parts(example_app: DocsApp) -> None:
    (h,) = [x for x in search_hits(example_app, "list_payments") if x["chunk_id"] == PY_LIST]
    assert h["breadcrumb"] == "python/payments.md > Payments > list_payments"
    assert not satisfies(h, Entry(PY_PAYMENTS, "list"), set())
    assert satisfies(h, Entry(PY_PAYMENTS, "payments"), set())
    assert satisfies(h, Entry(PY_PAYMENTS, "list_payments"), set())
    assert not satisfies(h, Entry("typescript/payments.md", "payments"), set())
    assert satisfies(h, Entry(PY_PAYMENTS, None), set())
    assert satisfies(h, Entry(PY_PAYMENTS, "q"), {"q"})
    assert satisfies(h, Entry(PY_PAYMENTS, "payments > list_payments"), set())


def test_parse_bundle_arg() -> None:
    assert parse_bundle_arg("/tmp/idx") == (None, "/tmp/idx")
    assert parse_bundle_arg("yellow-docs=/tmp/idx") == ("yellow-docs", "/tmp/idx")
    assert parse_bundle_arg("/tmp/a=b") == (None, "/tmp/a=b")


# --------------------------------------------------------------------------- load_cases


@pytest.mark.corpus
def test_load_cases_defaults_and_dev_set() -> None:
    dev = load_cases(EVAL_CASES)
    assert len(dev) >= 50
    assert {c["corpus"] for c in dev} >= {YELLOW, "speakeasy-sdks", "rust-reference"}


def test_load_cases_defaults(tmp_path: Path) -> None:
    path = write_cases(
        tmp_path / "c.jsonl", {"id": "a", "corpus": "x", "query": "q", "relevant": []}, ""
    )
    (c,) = load_cases(path)
    assert c["category"] == "uncategorized"
    assert c["filters"] == {}


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json", "invalid JSON"),
        ("[1, 2]", "must be a JSON object"),
        ('{"id": "b", "corpus": "x", "relevant": []}', "'query' must be a non-empty string"),
        ('{"id": "b", "corpus": "x", "query": "q"}', "'relevant' must be a list"),
        (
            '{"id": "b", "corpus": "x", "query": "q", "relevant": [{"file": "a.md"}]}',
            "relevant[0].heading must be a string or null",
        ),
        (
            '{"id": "b", "corpus": "x", "query": "q", "relevant": [], "filters": {"v": 1}}',
            "'filters' must be an object of string values",
        ),
        ('{"id": "a", "corpus": "x", "query": "q", "relevant": []}', "duplicate case id 'a'"),
    ],
)
def test_load_cases_errors_name_the_line(tmp_path: Path, line: str, message: str) -> None:
    good = {"id": "a", "corpus": "x", "query": "q", "relevant": []}
    path = write_cases(tmp_path / "c.jsonl", good, "", line)
    with pytest.raises(CaseError) as err:
        load_cases(path)
    assert str(err.value).startswith(f"{path}:3: ")
    assert message in str(err.value)


def test_load_cases_missing_file(tmp_path: Path) -> None:
    with pytest.raises(CaseError, match="cannot read cases file"):
        load_cases(tmp_path / "missing.jsonl")


# --------------------------------------------------------------------------- real bundle


@pytest.fixture(scope="module")
def yellow_app(yellow_bundle: Path) -> DocsApp:
    return DocsApp(open_bundle(yellow_bundle))


def test_real_bundle_cases(yellow_app: DocsApp) -> None:
    cases = [
        case("found", "withHandshakeTimeout", [rel(TS_CONFIG, "Client Options")]),
        # an H3 inside the Client Options section: matched through get_doc content only
        case("content", "withHandshakeTimeout", [rel(TS_CONFIG, "`withHandshakeTimeout(ms)`")]),
        case("missing", "withHandshakeTimeout", [rel("docs/nope.mdx", "Client Options")]),
        case("no-answer", "withHandshakeTimeout", [], filters={"section": "blog"}),
        case("bad-filter", "withHandshakeTimeout", [], filters={"version": "9.9"}),
        case("elsewhere", "withHandshakeTimeout", [rel("a.md")], corpus="no-such-corpus"),
    ]
    report = evaluate({YELLOW: yellow_app}, cases, k=5)
    by_id = {r.id: r for r in report.results}
    assert by_id["found"].first_rank == 1
    assert by_id["found"].reciprocal_rank == 1.0
    assert by_id["content"].first_rank == 1
    assert by_id["content"].chunk_ids[0] == by_id["found"].chunk_ids[0]
    assert by_id["missing"].first_rank is None
    assert by_id["missing"].reciprocal_rank == 0.0 and by_id["missing"].ndcg == 0.0
    assert by_id["no-answer"].chunk_ids == ()
    assert by_id["no-answer"].hint is not None
    assert by_id["no-answer"].no_answer_ok is True
    assert by_id["bad-filter"].error is not None and "version" in by_id["bad-filter"].error
    assert by_id["bad-filter"].no_answer_ok is False
    assert [c["id"] for c in report.skipped] == ["elsewhere"]
    m = report.overall
    assert (m.cases, m.answerable, m.no_answer, m.errors) == (5, 3, 2, 1)
    assert m.mrr == pytest.approx(2 / 3)
    assert m.hit_rate == pytest.approx(2 / 3)
    assert m.no_answer_ok == 0.5
    assert m.mean_hit_chars is not None and m.mean_hit_chars > 0
    assert all(len(r.chunk_ids) == 5 for r in report.results if r.id in ("found", "missing"))


# --------------------------------------------------------------------------- CLI


def test_cli_table_and_json(
    yellow_bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = write_cases(
        tmp_path / "c.jsonl",
        case("found", "withHandshakeTimeout", [rel(TS_CONFIG, "Client Options")]),
        case("miss", "withHandshakeTimeout", [rel("docs/nope.mdx", None)]),
        case("other", "q", [rel("a.md")], corpus="speakeasy-sdks"),
    )
    assert main(["eval", "--bundle", str(yellow_bundle), "--cases", str(cases)]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert "3 cases: 2 evaluated, 1 skipped" in out
    assert "MRR@5" in out and "overall" in out and YELLOW in out
    failing = out.split("failing cases (1 of 2):", 1)[1]
    assert "miss" in failing and "1. docs/build/sdk/typescript/configuration.mdx#" in failing

    # the CORPUS= prefix overrides the bundle's name, and --k is honoured
    args = ["eval", "--bundle", f"renamed={yellow_bundle}", "--cases", str(cases), "--json"]
    assert main([*args, "--k", "3"]) == 0
    out, err = capsys.readouterr()
    doc = json.loads(out)
    assert doc["k"] == 3 and doc["evaluated"] == 0 and doc["skipped"] == 3
    assert "warning: no case is for the corpora of the given bundles (renamed)" in err

    assert main(["eval", "--bundle", str(yellow_bundle), "--cases", str(cases), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["overall"]["mrr"] == 0.5
    assert doc["failing"] == ["miss"]
    found = next(r for r in doc["results"] if r["id"] == "found")
    assert found["first_relevant_rank"] == 1
    assert found["corpus"] == YELLOW and found["category"] == "exact-name"
    assert len(found["chunk_ids"]) == 5
    assert set(doc["by_category"]) == {"exact-name"} and set(doc["by_corpus"]) == {YELLOW}


@pytest.mark.parametrize(
    ("make_args", "message"),
    [
        (lambda b, c: ["--bundle", "/nonexistent/idx", "--cases", c], "bundle directory not found"),
        (lambda b, c: ["--bundle", b, "--cases", c + ".missing"], "cannot read cases file"),
        (lambda b, c: ["--bundle", b, "--cases", c, "--k", "0"], "--k must be between 1 and"),
        (lambda b, c: ["--bundle", b, "--bundle", b, "--cases", c], "is given twice"),
        (lambda b, c: ["--bundle", f"={b}", "--cases", c], "expected [CORPUS=]DIR"),
    ],
)
def test_cli_usage_errors(
    yellow_bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], make_args, message
) -> None:
    cases = write_cases(tmp_path / "c.jsonl", case("a", "q", []))
    assert main(["eval", *make_args(str(yellow_bundle), str(cases))]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("docsmcp: error: ") and message in err
    assert err.count("\n") == 1


def test_cli_malformed_cases_in_child_process(yellow_bundle: Path, tmp_path: Path) -> None:
    cases = write_cases(tmp_path / "c.jsonl", case("a", "q", []), '{"id": ')
    proc = run_docsmcp("eval", "--bundle", yellow_bundle, "--cases", cases, check=False)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr == f"docsmcp: error: {cases}:2: invalid JSON: Expecting value (column 8)\n"
