"""Names the words alone lose (bundle-spec.md, *Terms*, step 7): MDN's `for...in` and
`for...of` pages, whose words are stop words, and operator pages such as `??=` and `?.`, which
hold no word at all, found by their names; prose stop words still unsearchable; a bundle built
before names searched as it was built. Real builds of a small docs folder in MDN's shape."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest
from conftest import build_bundle
from docsmcp.bundle.write import top_without_names
from docsmcp.indexing.lexical import LexicalIndex
from docsmcp.pipeline.build import build
from docsmcp.pipeline.collect import BuildOptions
from docsmcp_runtime.bundle.reader import open_bundle
from docsmcp_runtime.search.analyzer import NAME_MARK, AnalyzerConfig, analyze
from docsmcp_runtime.search.engine import Searcher
from hypothesis import given, settings
from hypothesis import strategies as st

REF = "web/javascript/reference"
PAGES = {
    f"{REF}/statements/for...in/index.md": (
        "---\ntitle: for...in\nslug: Web/JavaScript/Reference/Statements/for...in\n---\n\n"
        "The **`for...in`** statement iterates over all string properties of an object.\n\n"
        "## Syntax\n\n```js\nfor (variable in object)\n  statement\n```\n\n"
        "## Description\n\nThe loop iterates over enumerable string properties.\n"
    ),
    f"{REF}/statements/for...of/index.md": (
        "---\ntitle: for...of\nslug: Web/JavaScript/Reference/Statements/for...of\n---\n\n"
        "The **`for...of`** statement executes a loop over a sequence of values from an "
        "iterable object.\n\n## Syntax\n\n```js\nfor (variable of iterable)\n  statement\n```\n\n"
        "## Difference between for...of and for...in\n\n"
        "Both `for...in` and `for...of` statements iterate over something; `for...in` iterates "
        "over the enumerable string properties of an object, `for...of` over values.\n"
    ),
    f"{REF}/operators/nullish_coalescing_assignment/index.md": (
        "---\ntitle: Nullish coalescing assignment (??=)\n---\n\n"
        "The **nullish coalescing assignment (`??=`)** operator only evaluates the right operand "
        "and assigns to the left if the left operand is nullish.\n\n"
        "## Syntax\n\n```js\nx ??= y\n```\n"
    ),
    f"{REF}/operators/optional_chaining/index.md": (
        "---\ntitle: Optional chaining (?.)\n---\n\n"
        "The **optional chaining (`?.`)** operator accesses an object's property or calls a "
        "function.\n\n## Syntax\n\n```js\nobj?.prop\nobj.val?.prop\n```\n"
    ),
    f"{REF}/global_objects/map/index.md": (
        "---\ntitle: Map\n---\n\n"
        "The **`Map`** object holds key-value pairs. Iterate over it for the values, for "
        "instance in a loop; objects vs maps are compared below.\n\n"
        "## Objects vs. Maps\n\nAn object is similar to a map: both let you set keys to values "
        "and iterate over them. For what it is worth, in most cases a map is the better choice."
        "\n"
    ),
    # A name whose impact is the bundle's largest (its only word, repeated, on a page of its
    # own): the impact codes' scale must not follow it.
    f"{REF}/operators/elvis/index.md": "---\ntitle: ?:\n---\n\n`?:` `?:` `?:` `?:` `?:`\n",
    f"{REF}/operators/this/index.md": (
        "---\ntitle: this\n---\n\nThe **`this`** keyword refers to the context where a piece "
        "of code, such as a function's body, is supposed to run.\n"
    ),
    f"{REF}/statements/for/index.md": (
        "---\ntitle: for\n---\n\nThe **`for`** statement creates a loop that consists of three "
        "optional expressions.\n\n## Syntax\n\n```js\nfor (initialization; condition; "
        "afterthought)\n  statement\n```\n"
    ),
}


@pytest.fixture(scope="module")
def docs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("mdn") / "docs"
    for name, text in PAGES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def bundle(docs: Path) -> Path:
    return build_bundle(docs, docs.parent / "idx")


def _pages(bundle: Path, query: str) -> list[str]:
    b = open_bundle(bundle)
    pages: list[str] = []
    for row in Searcher(b).search(query, {}, 0, 10).rows:
        page = b.id(row).split("#")[0].removeprefix(f"{REF}/")
        if page not in pages:
            pages.append(page)
    return pages


def test_bundle_records_names(bundle: Path) -> None:
    meta = json.loads((bundle / "metadata.json").read_text(encoding="utf-8"))
    assert meta["analyzer"]["names"] is True


@pytest.mark.parametrize(
    ("query", "first"),
    [
        ("for...in", "statements/for...in/index.md"),
        ("for...of", "statements/for...of/index.md"),
        ("for...in vs for...of", "statements/for...of/index.md"),
        ("difference between for...of and for...in", "statements/for...of/index.md"),
        ("??=", "operators/nullish_coalescing_assignment/index.md"),
        ("?.", "operators/optional_chaining/index.md"),
        ("optional chaining ?.", "operators/optional_chaining/index.md"),
        # A title that is a stop word alone names its page: found by the word alone, in
        # backticks, or before a kind of name.
        ("this", "operators/this/index.md"),
        ("`this`", "operators/this/index.md"),
        ("this keyword", "operators/this/index.md"),
        ("for statement", "statements/for/index.md"),
    ],
)
def test_a_name_of_stop_words_or_punctuation_finds_its_page(
    bundle: Path, query: str, first: str
) -> None:
    assert _pages(bundle, query)[0] == first


def test_stop_words_in_prose_stay_unsearchable(bundle: Path) -> None:
    # `for in` written apart is two stop words: the pages whose prose says "for" and "in" (Map)
    # are no hits; a query of stop words alone searches the names they end (`for...in`).
    found = _pages(bundle, "for in")
    assert "global_objects/map/index.md" not in found
    assert found[0] == "statements/for...in/index.md"
    # (nor a stop word in a longer query: "this" of "this object" is the pronoun)
    assert "operators/this/index.md" not in _pages(bundle, "iterate over this object")
    config = AnalyzerConfig(names=True)
    assert analyze("`this`", config).terms == ["this"] and analyze("this", config).n_names == 1
    # A `::` path is a name beside its parts (C++'s `std::vector`, Rust's `tokio::spawn`).
    assert analyze("Use std::vector<int> here", config).terms[-1] == "std::vector"
    assert analyze("::std::mem", config).n_names == 0
    assert analyze("Iterate over it for the values, in a loop", config).terms == [
        "iterate",
        "over",
        "value",
        "loop",
    ]


def test_a_bundle_built_before_names_is_searched_as_built(docs: Path, tmp_path: Path) -> None:
    # The same docs built without names (as a builder before them did): no `names` key, and
    # the query's names are not searched either, so results are what that bundle always gave.
    options = BuildOptions(docs_dir=docs, analyzer=AnalyzerConfig(), workers=1)
    build(options, tmp_path / "old")
    meta = json.loads((tmp_path / "old" / "metadata.json").read_text(encoding="utf-8"))
    assert "names" not in meta["analyzer"]
    assert open_bundle(tmp_path / "old").metadata.analyzer.names is False
    assert _pages(tmp_path / "old", "??=") == []
    assert "for...in" not in Searcher(open_bundle(tmp_path / "old")).searched("for...in", {})[0]


def test_names_change_no_other_query(docs: Path, bundle: Path, tmp_path: Path) -> None:
    # Names are left out of fields' lengths: a query without one ranks and scores every row
    # as a bundle without names does, whatever operators the pages' code holds.
    build(BuildOptions(docs_dir=docs, analyzer=AnalyzerConfig(), workers=1), tmp_path / "old")
    old, new = open_bundle(tmp_path / "old"), open_bundle(bundle)
    # the codes' scale is the largest impact of a term that is not a name: here a name's is
    # larger, and takes the last code
    levels = "impact_levels.bin"
    assert (tmp_path / "old" / levels).read_bytes() == (bundle / levels).read_bytes()
    top = np.fromfile(bundle / levels, np.float32)[-1]
    lexicon = Searcher(new).lexicon
    assert lexicon.values([lexicon.postings(lexicon.lookup("?:"))[1]]).max() == top
    # (stop words in a longer query stay no words, also where a title gives one alone: `for`;
    # a question between two things counts the words both sides name, lexical.coordination)
    queries = ["loop over values", "statement syntax", "nullish operand", "object property"]
    for query in [*queries, "loop or statement for values", "this object or property"]:
        a, b = Searcher(old).search(query, {}, 0, 20), Searcher(new).search(query, {}, 0, 20)
        assert [old.id(r) for r in a.rows] == [new.id(r) for r in b.rows], query
        assert a.scores == b.scores, query


def test_analyzer_metadata_round_trips() -> None:
    base = {"name": "docsmcp-1", "stem": True, "stopwords": ["for", "in"]}
    assert AnalyzerConfig.from_json(base).names is False
    named = AnalyzerConfig.from_json({**base, "names": True})
    assert named.names is True
    assert named.to_json() == {**base, "names": True}
    assert AnalyzerConfig.from_json(base).to_json() == base  # an older bundle's bytes
    assert dataclasses.replace(named, names=False).to_json() == base


@settings(max_examples=200, deadline=None, derandomize=True, database=None)
@given(
    st.lists(
        st.sampled_from(["for", "...", "in", "?", ".", "=", "<", "x", " ", "…", "é", "_", "-"]),
        max_size=12,
    ).map("".join)
)
def test_names_only_add_terms(text: str) -> None:
    """Names come after the terms the line gave without them, and change no bigram."""
    plain = analyze(text, AnalyzerConfig())
    named = analyze(text, AnalyzerConfig(names=True))
    assert named.terms[: len(plain.terms)] == plain.terms
    assert named.bigrams == plain.bigrams
    assert all(len(t) >= 2 and t == t.lower() for t in named.terms[len(plain.terms) :])


@settings(max_examples=150, deadline=None, derandomize=True, database=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["a", "b", "??", "x...y", "c.d", "<<", "e f", "in", "this"]),
            st.lists(st.integers(1, 60), min_size=1, max_size=4),
        ),
        max_size=8,
    )
)
def test_top_without_names_is_the_largest_impact_of_other_terms(
    entries: list[tuple[str, list[int]]],
) -> None:
    terms = sorted({t for t, _ in entries}, key=str.encode)
    impacts = {t: next(i for s, i in entries if s == t) for t in terms}
    blob = "".join(terms).encode()
    offsets = np.cumsum([0, *(len(t.encode()) for t in terms)]).astype(np.uint64)
    posting_offsets = np.cumsum([0, *(len(impacts[t]) for t in terms)]).astype(np.uint64)
    values = np.array([v / 4 for t in terms for v in impacts[t]], np.float16)
    index = LexicalIndex(blob, offsets, posting_offsets, np.zeros(len(values), np.uint32), values)
    stop = ("in", "this")  # (a stop word is a term only as a name: a line of it alone)
    plain = [
        v / 4
        for t in terms
        if not NAME_MARK.search(t.encode()) and t not in stop
        for v in impacts[t]
    ]
    names = len(plain) < len(values)
    expected = float(np.float16(max(plain))) if plain and names else None
    assert top_without_names(index, stop) == expected
