"""The bundle as bundle-spec.md describes it: a reader written from the spec alone
(tests/spec_reader.py: numpy, pyarrow, hashlib, unicodedata; nothing from docsmcp_runtime) must
find what the runtime finds, and its analyzer must yield exactly the runtime analyzer's terms."""

from __future__ import annotations

import json
import shutil
import sys
import unicodedata
from pathlib import Path

import jsonschema
import numpy as np
import pyarrow.parquet as pq
import pytest
from conftest import EXAMPLE_DOCS, REPO, SHARED, build_bundle, corpus, run_docsmcp
from docsmcp_runtime.bundle.reader import open_bundle
from docsmcp_runtime.search.analyzer import AnalyzerConfig, analyze
from docsmcp_runtime.search.lexical import query_terms as runtime_query_terms
from docsmcp_runtime.search.options import SearchOptions
from docsmcp_runtime.search.porter2 import inflection_stem
from docsmcp_runtime.tools.app import DocsApp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from spec_reader import DEFAULT_STOPWORDS, Analyzer, SpecReader, analyze_line, query_terms
from spec_reader import inflection_stem as spec_inflection_stem

SPEC_FILES = {
    "metadata.json",
    "chunks.parquet",
    "pages.parquet",
    "sections.parquet",
    "api.parquet",
    "code.parquet",
    "terms.bin",
    "term_offsets.bin",
    "postings_offsets.bin",
    "postings_docs.bin",
    "postings_impacts.bin",
    "impact_levels.bin",
    "stem_rings.bin",
    "facets.bin",
    "display.bin",
    "display_offsets.bin",
    "display_dictionary.bin",  # yellow-docs has 1,335 rows (a dictionary from 1,024)
}
EVAL_FILES = ("dev-cases.jsonl", "dev-cases-nl.jsonl")


@pytest.fixture(scope="module")
def reader(yellow_bundle: Path) -> SpecReader:
    return SpecReader(yellow_bundle)


def test_bundle_holds_exactly_the_spec_files(yellow_bundle: Path) -> None:
    assert {p.name for p in yellow_bundle.iterdir()} == SPEC_FILES


def test_browse_tables_read_as_the_spec_says(yellow_bundle: Path) -> None:
    """Read the four browse tables with plain pyarrow, from bundle-spec.md alone."""
    chunks = pq.read_table(yellow_bundle / "chunks.parquet")
    texts, paths = chunks.column("text").to_pylist(), chunks.column("path").to_pylist()
    n = len(texts)
    pages = pq.read_table(yellow_bundle / "pages.parquet").to_pylist()
    row = 0
    for page in pages:  # pages cover the rows in order
        assert page["first_row"] == row and page["chunk_count"] >= 1
        assert set(paths[row : row + page["chunk_count"]]) == {page["path"]}
        assert isinstance(json.loads(page["frontmatter"]), dict) and page["title"]
        row += page["chunk_count"]
    assert row == n
    sections = pq.read_table(yellow_bundle / "sections.parquet").to_pylist()
    assert len(sections) == n
    targets = {t for s in sections for t in s["references"]}
    for r, s in enumerate(sections):
        assert r not in s["references"] and all(0 <= t < n for t in s["references"])
        assert (s["summary"] is not None) <= (r in targets)  # summaries only on targets
        assert s["summary"] is None or len(s["summary"]) <= 200
    code = pq.read_table(yellow_bundle / "code.parquet").to_pylist()
    assert code and [c["row"] for c in code] == sorted(c["row"] for c in code)
    for c in code:  # the code, and before it the prose and the opening fence line
        text = texts[c["row"]]
        assert c["context_start"] <= c["start"] < c["end"] <= len(text)
        opening = text[: c["start"]].rstrip("\n").rsplit("\n", 1)[-1].lstrip()
        assert opening.startswith(("```", "~~~")), opening
        assert not text[c["start"] : c["end"]].rstrip().endswith("```")
    api = pq.read_table(yellow_bundle / "api.parquet").to_pylist()
    assert {"method", "type"} >= {a["kind"] for a in api} and api
    for a in api:
        assert a["row"] < n and a["line_start"] <= a["line_end"]
        assert all(
            {"name", "type", "required", "description"} <= set(p)
            for p in json.loads(a["parameters"])
        )
        assert all({"language", "code"} <= set(x) for x in json.loads(a["examples"]))


def test_metadata_matches_its_json_schema(yellow_bundle: Path, example_bundle: Path) -> None:
    schema = json.loads((REPO / "schemas" / "bundle-metadata.schema.json").read_text())
    for bundle in (yellow_bundle, example_bundle):
        jsonschema.validate(json.loads((bundle / "metadata.json").read_text()), schema)


def test_chunk_table_columns_order_and_invariants(reader: SpecReader) -> None:
    rows = reader.rows
    assert list(rows[0]) == [
        "id", "path", "heading", "breadcrumb", "level", "position", "file_chunk_count",
        "line_start", "line_end", "metadata", "text",
    ]  # fmt: skip
    assert len({r["id"] for r in rows}) == len(rows)
    assert [(r["path"].encode(), r["position"]) for r in rows] == sorted(
        (r["path"].encode(), r["position"]) for r in rows
    )
    for i, r in enumerate(rows):
        first = rows[i - r["position"]]
        assert first["path"] == r["path"] and first["position"] == 0
        assert 0 <= r["position"] < r["file_chunk_count"]
        assert r["breadcrumb"].startswith(r["path"])
        assert 1 <= r["line_start"] <= r["line_end"]
        assert json.loads(r["metadata"]) == dict(sorted(json.loads(r["metadata"]).items()))
    assert reader.meta["stats"]["chunks"] == len(rows)


def test_dictionary_is_sorted_and_postings_ascending(reader: SpecReader) -> None:
    n = len(reader.arr["term_offsets"]) - 1
    terms = [reader.term(i) for i in range(n)]
    assert terms == sorted(terms) and len(set(terms)) == n
    assert all(b" " not in t or t.count(b" ") == 1 for t in terms)
    off = reader.arr["postings_offsets"]
    docs = reader.arr["postings_docs"]
    for i in range(0, n, 97):
        assert np.all(np.diff(docs[off[i] : off[i + 1]].astype(np.int64)) > 0)
    assert int(docs.max()) < len(reader.rows)


def test_facets_encode_metadata(reader: SpecReader) -> None:
    keys = list(reader.meta["taxonomy"])
    assert keys == sorted(keys) == ["role", "section", "version"]
    for r, row in enumerate(reader.rows):
        meta = json.loads(row["metadata"])
        for k, key in enumerate(keys):
            code = int(reader.arr["facets"][r, k])
            values = reader.meta["taxonomy"][key]["values"]
            assert (values[code - 1] if code else None) == meta.get(key)


# -- the spec reader ranks like the runtime ---------------------------------------------------


def _eval_queries(corpus_name: str) -> list[tuple[str, dict[str, str]]]:
    cases = []
    for name in EVAL_FILES:
        path = SHARED / "eval" / name
        if not path.is_file():
            pytest.fail(f"eval cases missing: {path}")
        for line in path.read_text(encoding="utf-8").splitlines():
            case = json.loads(line)
            if line.strip() and case["corpus"] == corpus_name:
                cases.append((case["query"], case.get("filters") or {}))
    return cases


def _runtime_ids(app: DocsApp, query: str, filters: dict[str, str]) -> list[str]:
    result = app.call_tool("search_docs", {"query": query, "limit": 10, **filters})
    return [h["chunk_id"] for h in result["structuredContent"]["hits"]]


EXTRA_QUERIES = {  # identifiers, bigrams, stop words, several lines
    "yellow-docs": [
        "withHandshakeTimeout",
        "session keys",
        "challenge period",
        "app session quorum",
        "how does the app session\nwork with session keys?",
    ],
    "speakeasy-sdks": ["d_client.links.create_many", "RateLimitExceeded error handling"],
    "rust-reference": ["impl Trait for Vec<T>", "r#raw identifiers", "non_exhaustive"],
}


@pytest.mark.corpus
@pytest.mark.parametrize("corpus_name", ["yellow-docs", "speakeasy-sdks", "rust-reference"])
def test_spec_reader_ranks_every_eval_query_like_the_runtime(
    corpus_name: str, request: pytest.FixtureRequest
) -> None:
    """Top 10 of every dev query, unfiltered and with its filters (the spec reader applies
    *Facets* as written: `auto_include`, own values first, `include_unset`)."""
    fixture = {"yellow-docs": "yellow_bundle", "speakeasy-sdks": "speakeasy_bundle"}
    bundle = request.getfixturevalue(fixture.get(corpus_name, "rust_bundle"))
    reader = SpecReader(bundle)
    # The format's ranking: without the runtime's taxonomy boost, page-role prior,
    # coordination and tie-break by headings (policies on top of it).
    options = SearchOptions(
        name_boost=0.0, role_prior=False, coordination=False, heading_ties=False
    )
    app = DocsApp(open_bundle(bundle), options)
    cases = _eval_queries(corpus_name)
    assert cases, f"no eval cases for {corpus_name}"
    cases += [(q, {}) for q in EXTRA_QUERIES[corpus_name]]
    mismatches, compared = [], 0
    for query, filters in cases:
        runs = [{}] if not filters else [{}, filters]
        for f in runs:
            expected = _runtime_ids(app, query, f)
            got = reader.search(query, limit=10, filters=f)
            compared += 1
            if got != expected:
                mismatches.append((query, f, got, expected))
    assert not mismatches, f"{len(mismatches)} of {compared} searches differ: {mismatches[:3]}"


def test_analyzer_metadata_forms() -> None:
    """`stopwords`: a byte-ordered list, or legacy true (the default list) / false (none)."""
    base = {"name": "docsmcp-1", "stem": True}
    assert Analyzer.from_metadata({**base, "stopwords": True}).stopwords == set(DEFAULT_STOPWORDS)
    assert Analyzer.from_metadata({**base, "stopwords": False}).stopwords == set()
    assert Analyzer.from_metadata({**base, "stopwords": []}).stopwords == set()
    assert Analyzer.from_metadata({**base, "stopwords": ["of", "the"]}).stopwords == {"of", "the"}
    for bad in (["the", "of"], ["of", "of"], "the", [1]):
        with pytest.raises(ValueError):
            Analyzer.from_metadata({**base, "stopwords": bad})
    with pytest.raises(ValueError):
        Analyzer.from_metadata({**base, "name": "docsmcp-2", "stopwords": []})


def test_spec_default_stop_list_is_the_runtime_default() -> None:
    assert list(DEFAULT_STOPWORDS) == sorted(DEFAULT_STOPWORDS, key=str.encode)
    legacy = AnalyzerConfig.from_json({"name": "docsmcp-1", "stem": True, "stopwords": True})
    assert tuple(legacy.stopwords) == DEFAULT_STOPWORDS


def test_bundle_analyzer_metadata_is_read(reader: SpecReader) -> None:
    stop = reader.meta["analyzer"]["stopwords"]
    assert isinstance(stop, bool) or stop == sorted(set(stop), key=str.encode)
    assert reader.analyzer.stem is reader.meta["analyzer"]["stem"]


# -- the spec analyzer yields exactly the runtime analyzer's terms ----------------------------


def _configs() -> list[tuple[Analyzer, AnalyzerConfig]]:
    """Each (spec, runtime) pair built from the same `analyzer` metadata."""
    out = []
    for stem in (True, False):
        for stop in (list(DEFAULT_STOPWORDS), []):
            meta = {"name": "docsmcp-1", "stem": stem, "stopwords": stop}
            out.append((Analyzer.from_metadata(meta), AnalyzerConfig.from_json(meta)))
    names = {"name": "docsmcp-1", "stem": True, "stopwords": list(DEFAULT_STOPWORDS)}
    names["names"] = True  # what the builder writes now (step 7)
    out.append((Analyzer.from_metadata(names), AnalyzerConfig.from_json(names)))
    return out


CONFIGS = _configs()


def assert_same_analysis(text: str, spec: Analyzer, runtime: AnalyzerConfig) -> None:
    a = analyze(text, runtime)
    assert analyze_line(text, spec) == (a.terms, a.bigrams), text
    # operators=True: the format's query terms; leaving `vs` out is the runtime's policy.
    assert query_terms(text, spec) == runtime_query_terms(text, runtime, operators=True), text


_IDENT_WORDS = [
    "get", "Set", "HTTP", "Server", "ID", "id", "v2", "X", "json", "URL", "Many", "a", "the",
    "does", "queries", "types", "classes", "status", "analysis", "eies", "aies", "boxes", "es",
    "ies", "s", "ss", "IO", "ABCdef", "iOS", "2FA", "x86", "B2B", "Vec",
]  # fmt: skip
_SPECIALS = [
    # non-ASCII letters, Final_Sigma, special casing, title case, NFKC ligatures and compatibility
    "é", "É", "ß", "Straße", "ΟΔΟΣ", "Σ", "ς", "İ", "ǅ", "Ǆ", "ﬁ", "K", "Å", "ŉ", "ẞ", "Ⅻ", "ⅻ",
    "Москва", "עברית", "عربي", "ह", "ि", "ـ",
    # numbers: superscripts, other decimal digits, letter-like and other numbers
    "²", "³", "½", "٣", "٤٥", "௰", "①", "𝟙", "༳", "፳", "〇", "Ⅷ", "ↂ",
    # combining marks: non-spacing, spacing, enclosing; composable and not
    "\u0301", "\u0308", "\u0327", "\u20d7", "\u093f", "\u20dd", "q\u0301", "e\u0301", "\u3099",
    # CJK, kana, Hangul, Jamo, halfwidth and fullwidth forms, ideographs outside the CJK ranges
    "東京", "タワー", "ｶﾀｶﾅ", "ー", "・", "〜", "。", "한국어", "가", "ᄒ", "ㄱ", "ㇰ", "豈",
    "𠀀", "𪜀", "ｱﾞ", "ＡＢＣ", "ａｂｃ１２", "＿", "．", "／", "＠", "－", "‐", "\u3000",
    # spaces and invisible characters
    "\u00a0", "\u200b", "\u2028", "\ufeff", "\t", "\r",
]  # fmt: skip
_PUNCT = list(" .:/@-_,;!?()[]{}'\"#*`~+=<>|\\$%&^") + ["..", "::", "--", "__", "._", "_."]
_PUNCT += ["...", "…", "?.", "??=", "<<", "->", "=>", "!==", "...>", "/>", "＜＜"]

identifier = st.lists(st.sampled_from(_IDENT_WORDS), min_size=1, max_size=4).flatmap(
    lambda words: st.lists(
        st.sampled_from(["", "_", ".", ":", "/", "@", "-", "__"]),
        min_size=len(words) + 1,
        max_size=len(words) + 1,
    ).map(lambda seps: seps[0] + "".join(w + s for w, s in zip(words, seps[1:], strict=True)))
)
fragment = st.one_of(
    identifier,
    st.sampled_from(_SPECIALS),
    st.sampled_from(_PUNCT),
    st.from_regex(r"[0-9]{1,4}", fullmatch=True),
    st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,10}", fullmatch=True),
    st.characters(categories=["Lu", "Ll", "Lt", "Lm", "Lo", "Nd", "Nl", "No", "Mn", "Mc", "Me"]),
    st.characters(categories=["Pc", "Pd", "Ps", "Pe", "Po", "Sm", "Sc", "Sk", "So", "Zs", "Cf"]),
    st.characters(min_codepoint=0x3000, max_codepoint=0xFFEF),
    st.characters(),
)
texts = st.lists(fragment, max_size=16).map("".join)


@pytest.mark.slow  # fuzz, ~1-2 s
@settings(
    max_examples=300,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(text=texts, line_break=st.sampled_from(["", "\n"]), config=st.sampled_from(CONFIGS))
def test_spec_analyzer_matches_the_runtime_on_generated_text(
    text: str, line_break: str, config: tuple[Analyzer, AnalyzerConfig]
) -> None:
    assert_same_analysis(text + line_break + text[::-1], *config)


def _corpus_lines() -> list[str]:
    """Every distinct non-ASCII line of the shared corpora, and every 20th distinct line."""
    lines: dict[str, None] = {}
    for name in ("yellow-docs", "speakeasy-sdks", "rust-reference"):
        for path in sorted(corpus(name).rglob("*.md*")):
            lines.update(dict.fromkeys(path.read_text(encoding="utf-8").split("\n")))
    distinct = list(lines)
    return [line for i, line in enumerate(distinct) if i % 20 == 0 or not line.isascii()]


@pytest.mark.corpus
def test_spec_analyzer_matches_the_runtime_on_corpus_lines() -> None:
    lines = _corpus_lines()
    assert len(lines) > 1000
    for spec, runtime in CONFIGS:
        for line in lines:
            a = analyze(line, runtime)
            assert analyze_line(line, spec) == (a.terms, a.bigrams), line


def _code_points() -> list[int]:
    """Every code point except unassigned ones and the inside of large uniform blocks
    (ideographs, Hangul syllables, private use, surrogates), of which every 97th is kept."""
    uniform = [
        (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xAC00, 0xD7A3), (0xD800, 0xF8FF),
        (0x20000, 0x3134F), (0x31350, 0xDFFFF), (0xF0000, 0x10FFFF),
    ]  # fmt: skip
    skip = np.zeros(sys.maxunicode + 1, bool)
    for lo, hi in uniform:
        skip[lo : hi + 1] = True
    for cp in range(sys.maxunicode + 1):
        if not skip[cp] and unicodedata.category(chr(cp)) == "Cn":
            skip[cp] = True
    skip[::97] = False
    return np.flatnonzero(~skip).tolist()


@pytest.mark.slow
def test_spec_character_classes_match_the_runtime_on_every_code_point() -> None:
    """Each code point c in contexts that exercise every rule: alone, inside and after ASCII
    upper, lower and digit runs, next to `_`, separators, a non-ASCII letter, a non-ASCII digit
    and CJK."""
    templates = ["{c}", "a{c}b", "AB{c}cD{c}", "x{c}9{c}", "_{c}_a.{c}-b", "é{c}Ω{c}٣{c}"]
    templates.append("東{c}京")
    spec, runtime = CONFIGS[1]  # stemming, no stop words: every sub-word stays visible
    cps = _code_points()
    for i in range(0, len(cps), 64):
        block = [chr(cp) for cp in cps[i : i + 64]]
        line = " ".join(t.format(c=c) for c in block for t in templates)
        a = analyze(line, runtime)
        if analyze_line(line, spec) != (a.terms, a.bigrams):
            for c in block:  # name the first code point that differs
                for t in templates:
                    text = t.format(c=c)
                    b = analyze(text, runtime)
                    assert analyze_line(text, spec) == (b.terms, b.bigrams), f"U+{ord(c):04X}"
            raise AssertionError(f"block at U+{cps[i]:04X} differs")


@pytest.mark.corpus
def test_build_is_deterministic(tmp_path: Path) -> None:
    a = build_bundle(corpus("yellow-docs"), tmp_path / "a")
    b = build_bundle(corpus("yellow-docs"), tmp_path / "b")
    for name in SPEC_FILES:
        assert (a / name).read_bytes() == (b / name).read_bytes(), name


def test_failed_build_leaves_previous_bundle_untouched(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    shutil.copytree(EXAMPLE_DOCS, docs)
    out = build_bundle(docs, tmp_path / "idx")
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    (docs / ".docs-mcp.json").write_text('{"version": "1", "strategy": {"chunk_by": "h9"}}')
    proc = run_docsmcp("build", "--docs-dir", docs, "--out", out, check=False)
    assert proc.returncode == 1
    assert "left untouched" in proc.stderr and "Traceback" not in proc.stderr
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    # no temp leftovers (caches live in the cache root, not beside the bundle)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["docs", "idx"]


def test_build_refuses_to_replace_a_foreign_directory(tmp_path: Path) -> None:
    out = tmp_path / "precious"
    out.mkdir()
    (out / "notes.txt").write_text("keep me")
    proc = run_docsmcp("build", "--docs-dir", EXAMPLE_DOCS, "--out", out, check=False)
    assert proc.returncode == 2
    assert "not a docsmcp bundle" in proc.stderr
    assert (out / "notes.txt").read_text() == "keep me"


def test_rebuild_replaces_an_existing_bundle(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    shutil.copytree(EXAMPLE_DOCS, docs)
    out = build_bundle(docs, tmp_path / "idx")
    old_id = json.loads((out / "metadata.json").read_text())["bundle_id"]
    (docs / "python" / "extra.md").write_text("# Extra\n\n## Webhooks\n\nVerify signatures.\n")
    build_bundle(docs, out)
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["bundle_id"] != old_id
    assert "python/extra.md#extra/webhooks" in [
        r["id"] for r in pq.read_table(out / "chunks.parquet").to_pylist()
    ]


@settings(max_examples=2000, deadline=None)
@given(st.text(alphabet="aeiouybcdeglmnprstz", min_size=1, max_size=14))
def test_the_spec_inflection_stem_is_the_runtime_one(word: str) -> None:
    """*Stem variants*: steps 0 to 1c as the spec words them, against the runtime's Porter2
    (itself checked against Snowball's own: tests/test_porter2.py)."""
    assert spec_inflection_stem(word) == inflection_stem(word)
