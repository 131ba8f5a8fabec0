"""`docsmcp eval`: case loading, the judging rule, metric arithmetic and the CLI.

Exact arithmetic is checked against a stub app whose hits are fixed, so ranking changes made
elsewhere cannot move the numbers; the real yellow-docs bundle checks the end-to-end path with
cases whose answer is certain (an identifier found in one section only).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from conftest import EVAL_CASES, run_docsmcp
from docsmcp.cli import main
from docsmcp.evaluate import (
    CaseError,
    Entry,
    chunk_content,
    evaluate,
    format_report,
    heading_lines,
    load_cases,
    parse_bundle_arg,
    percentile,
    satisfies,
)
from docsmcp_runtime.bundle import open_bundle
from docsmcp_runtime.tools import DocsApp

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


# --------------------------------------------------------------------------- stub app


def hit(file: str, heading: str, metadata: dict | None = None, breadcrumb: str = "") -> dict:
    return {
        "chunk_id": f"{file}#{heading.lower().replace(' ', '-')}",
        "score": 1.0,
        "heading": heading,
        "breadcrumb": breadcrumb or f"{file} > Title > {heading}",
        "snippet": "",
        "filepath": file,
        "metadata": metadata or {},
    }


class StubApp:
    """Fixed search results per query and chunk texts, behind DocsApp's call_tool surface."""

    def __init__(self, results: dict[str, dict], texts: dict[str, str] | None = None) -> None:
        self.results = results
        self.texts = texts or {}
        self.calls: list[tuple[str, dict]] = []

    def call_tool(self, name: str, arguments: dict) -> dict:
        self.calls.append((name, arguments))
        if name == "get_doc":
            cid = arguments["chunk_id"]
            text = f"--- Chunk: {cid} (Chunk 1 of 1) (Target) ---\n{self.texts.get(cid, 'x' * 10)}"
            return {"content": [{"type": "text", "text": text}], "isError": False}
        result = self.results[arguments["query"]]
        if "error" in result:
            return {"content": [{"type": "text", "text": result["error"]}], "isError": True}
        hits = result.get("hits", [])[: arguments["limit"]]
        return {
            "structuredContent": {"hits": hits, "next_cursor": None, "hint": result.get("hint")},
            "isError": False,
        }


def stub_report(results: dict[str, dict], cases: list[dict], k: int = 5, texts=None):
    return evaluate({YELLOW: StubApp(results, texts)}, cases, k)  # type: ignore[dict-item]


def test_ranks_and_ndcg_arithmetic() -> None:
    hits = [hit("a.md", "One"), hit("b.md", "Two"), hit("b.md", "Three"), hit("c.md", "Four")]
    cases = [
        case("first", "q", [rel("a.md", "One")]),
        case("second", "q", [rel("b.md", "Two")]),
        case("missing", "q", [rel("nope.md", "One")]),
        # two entries at ranks 2 and 4: DCG = 1/log2(3) + 1/log2(5), ideal = 1 + 1/log2(3)
        case("two", "q", [rel("b.md", "two"), rel("c.md", "FOUR")]),
        # a whole-file entry matched by ranks 2 and 3 gains once; duplicates are one entry
        case("file", "q", [rel("b.md"), rel("b.md")]),
        # one entry found at rank 1, one never: ideal counts both
        case("half", "q", [rel("a.md", "One"), rel("zzz.md", None)]),
    ]
    report = stub_report({"q": {"hits": hits}}, cases)
    by_id = {r.id: r for r in report.results}
    assert [by_id[i].first_rank for i in ("first", "second", "missing", "two", "file", "half")] == [
        1,
        2,
        None,
        2,
        2,
        1,
    ]
    assert by_id["file"].gains == (0, 1, 0, 0)
    assert len(by_id["file"].relevant) == 1
    ideal2 = 1 + 1 / math.log2(3)
    expected_ndcg = {
        "first": 1.0,
        "second": 1 / math.log2(3),
        "missing": 0.0,
        "two": (1 / math.log2(3) + 1 / math.log2(5)) / ideal2,
        "file": 1 / math.log2(3),
        "half": 1 / ideal2,
    }
    for cid, value in expected_ndcg.items():
        assert by_id[cid].ndcg == pytest.approx(value), cid
    m = report.overall
    assert m.cases == m.answerable == 6
    assert m.mrr == pytest.approx((1 + 0.5 + 0 + 0.5 + 0.5 + 1) / 6)
    assert m.ndcg == pytest.approx(sum(expected_ndcg.values()) / 6)
    assert m.hit_rate == pytest.approx(5 / 6)
    assert m.facet_precision == 1.0  # no filters anywhere
    assert m.no_answer_ok is None
    assert [r.id for r in report.failing] == ["missing"]


def test_chunk_covering_two_entries_gains_once() -> None:
    texts = {"a.md#one": "# One\n\ntext\n\n## Two\n\nmore"}
    report = stub_report(
        {"q": {"hits": [hit("a.md", "One")]}},
        [case("c", "q", [rel("a.md", "One"), rel("a.md", "Two")])],
        texts=texts,
    )
    (r,) = report.results
    assert r.matched == ((0, 1),)
    assert r.ndcg == pytest.approx(1 / (1 + 1 / math.log2(3)))


def test_cutoff_k_limits_hits_and_ideal() -> None:
    hits = [hit("a.md", "One"), hit("b.md", "Two"), hit("c.md", "Three")]
    cases = [case("c", "q", [rel("c.md", "Three"), rel("b.md", "Two"), rel("a.md", "One")])]
    report = stub_report({"q": {"hits": hits}}, cases, k=2)
    (r,) = report.results
    assert r.chunk_ids == ("a.md#one", "b.md#two")
    assert r.ndcg == pytest.approx(1.0)  # ideal is min(k, 3) = 2 gains
    assert report.k == 2


def test_facet_precision_and_no_answer_cases() -> None:
    inside = {"version": "0.5.x", "section": "learn"}
    outside = {"version": "current", "section": "learn"}
    f = {"version": "0.5.x"}
    results = {
        "mixed": {"hits": [hit("a.md", "A", inside), hit("b.md", "B", outside)]},
        "none": {"hits": [], "hint": {"message": "0 results", "suggested_filters": {}}},
        "hinted": {
            "hits": [hit("a.md", "A", inside)],
            "hint": {"message": "maybe", "suggested_filters": {}},
        },
        "silent": {"hits": [hit("a.md", "A", inside)]},
        "leaky": {"hits": [hit("b.md", "B", outside)], "hint": {"message": "m"}},
        "broken": {"error": "Invalid taxonomy value for 'version'"},
    }
    cases = [
        case("mixed", "mixed", [rel("a.md", "A")], filters=f),
        case("none", "none", [], filters=f, category="facet"),
        case("hinted", "hinted", [], filters=f, category="facet"),
        case("silent", "silent", [], filters=f, category="facet"),
        case("leaky", "leaky", [], filters=f, category="facet"),
        case("broken", "broken", [rel("a.md", "A")], filters=f),
    ]
    report = stub_report(results, cases)
    by_id = {r.id: r for r in report.results}
    assert by_id["mixed"].facet_precision == 0.5
    assert by_id["none"].facet_precision is None  # no hits: nothing to be precise about
    assert by_id["leaky"].facet_precision == 0.0
    assert [by_id[i].no_answer_ok for i in ("none", "hinted", "silent", "leaky")] == [
        True,
        True,
        False,
        False,
    ]
    assert by_id["broken"].error == "Invalid taxonomy value for 'version'"
    assert by_id["broken"].chunk_ids == ()
    m = report.overall
    assert (m.cases, m.answerable, m.no_answer, m.errors) == (6, 2, 4, 1)
    # no-answer cases stay out of MRR; the error is a miss
    assert m.mrr == pytest.approx(0.5)
    assert m.hit_rate == pytest.approx(0.5)
    assert m.no_answer_ok == pytest.approx(0.5)
    # mixed 0.5, hinted 1, silent 1, leaky 0 (none and broken have no hits)
    assert m.facet_precision == pytest.approx(2.5 / 4)
    facet = report.by_category["facet"]
    assert (facet.cases, facet.answerable, facet.mrr, facet.no_answer_ok) == (4, 0, None, 0.5)
    assert {r.id for r in report.failing} == {"silent", "leaky", "broken"}


def test_hit_sizes_and_latency() -> None:
    texts = {"a.md#a": "x" * 100, "b.md#b": "y" * 300}
    report = stub_report(
        {"q": {"hits": [hit("a.md", "A"), hit("b.md", "B")]}, "p": {"hits": [hit("a.md", "A")]}},
        [case("1", "q", [rel("a.md")]), case("2", "p", [rel("a.md")])],
        texts=texts,
    )
    assert [r.hit_chars for r in report.results] == [(100, 300), (100,)]
    assert report.overall.mean_hit_chars == pytest.approx(500 / 3)
    assert report.overall.latency_p50_ms is not None
    assert 0 <= report.overall.latency_p50_ms <= report.overall.latency_p95_ms


def test_percentile_interpolates() -> None:
    assert percentile([], 0.5) is None
    assert percentile([3.0], 0.95) == 3.0
    assert percentile([1.0, 2.0, 3.0, 4.0], 0.5) == 2.5
    assert percentile([float(i) for i in range(1, 101)], 0.95) == pytest.approx(95.05)


def test_skipped_cases_and_get_doc_cached() -> None:
    app = StubApp({"q": {"hits": [hit("a.md", "A")]}})
    cases = [
        case("1", "q", [rel("a.md")]),
        case("2", "q", [rel("a.md")]),
        case("3", "q", [rel("a.md")], corpus="other"),
    ]
    report = evaluate({YELLOW: app}, cases)  # type: ignore[dict-item]
    assert [r.id for r in report.results] == ["1", "2"]
    assert [c["id"] for c in report.skipped] == ["3"]
    assert sum(name == "get_doc" for name, _ in app.calls) == 1
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
    assert heading_lines(text) == {"title", "client options", "`withx(ms)`", "c#"}


def test_chunk_content_strips_delimiter() -> None:
    def result(text: str) -> dict:
        return {"content": [{"type": "text", "text": text}], "isError": False}

    assert chunk_content(result("--- Chunk: a.md#x (Chunk 1 of 2) (Target) ---\n# X\nbody")) == (
        "# X\nbody"
    )
    assert chunk_content(result("# X")) == "# X"
    assert chunk_content({"content": [], "isError": True}) == ""


def test_satisfies_compares_whole_breadcrumb_parts() -> None:
    h = hit("a.md", "create_many", breadcrumb="a.md > Links > create_many")
    assert not satisfies(h, Entry("a.md", "create"), set())
    assert satisfies(h, Entry("a.md", "links"), set())
    assert satisfies(h, Entry("a.md", "create_many"), set())
    assert not satisfies(h, Entry("b.md", "links"), set())
    assert satisfies(h, Entry("a.md", None), set())
    assert satisfies(h, Entry("a.md", "q"), {"q"})
    nested = hit("a.md", "x", breadcrumb="a.md > A > B > x")
    assert satisfies(nested, Entry("a.md", "a > b"), set())


def test_parse_bundle_arg() -> None:
    assert parse_bundle_arg("/tmp/idx") == (None, "/tmp/idx")
    assert parse_bundle_arg("yellow-docs=/tmp/idx") == ("yellow-docs", "/tmp/idx")
    assert parse_bundle_arg("/tmp/a=b") == (None, "/tmp/a=b")


# --------------------------------------------------------------------------- load_cases


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
