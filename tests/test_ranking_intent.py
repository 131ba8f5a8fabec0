"""Query understanding (runtime intent.py): taxonomy values named in a query boost their rows,
and the identifier/question class of a query; through the real runtime over MCP where the
result is what an agent sees."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from conftest import build_bundle
from docsmcp_runtime.bundle.reader import open_bundle
from docsmcp_runtime.search.analyzer import AnalyzerConfig
from docsmcp_runtime.search.engine import Searcher
from docsmcp_runtime.search.explain import explain
from docsmcp_runtime.search.intent import (
    IDENTIFIER,
    MIXED,
    QUERY_CLASSES,
    QUESTION,
    named_values,
    query_class,
    wants_every_word,
)
from docsmcp_runtime.search.lexical import query_terms
from docsmcp_runtime.search.options import SearchOptions
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp_client import McpSession

FIXTURE = Path(__file__).parent / "fixtures" / "two-sdks"
GO_PAGE = "go/links.md#links/create-a-short-link"
PYTHON_PAGE = "python/links.md#links/create-a-short-link"
SDK_TAXONOMY = {
    "language": ["go", "php", "python", "ruby", "typescript"],
    "product": ["dub", "mistral"],
}


@pytest.fixture(scope="module")
def two_sdks(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_bundle(FIXTURE, tmp_path_factory.mktemp("two-sdks") / "idx")


@pytest.fixture(scope="module")
def session(two_sdks: Path):
    with McpSession(two_sdks) as s:
        yield s


def _search(session: McpSession, **args: object) -> dict:
    return session.search(limit=5, **args)


def test_language_named_in_query_ranks_its_page_first(session: McpSession) -> None:
    # Without the language named, the Python page is first (the fixture is written so)...
    plain = _search(session, query="create a short link")
    assert plain["hits"][0]["chunk_id"] == PYTHON_PAGE
    # ...and "in the Go SDK" brings the Go page up, saying why.
    named = _search(session, query="create a short link in the Go SDK")
    assert named["hits"][0]["chunk_id"] == GO_PAGE
    assert any("boosted language=go" in n and "'Go'" in n for n in named["notes"])
    # A boost, never a filter: the Python page is still there.
    assert PYTHON_PAGE in [h["chunk_id"] for h in named["hits"]]


def test_alias_names_a_language(session: McpSession) -> None:
    result = _search(session, query="create a short link with golang")
    assert result["hits"][0]["chunk_id"] == GO_PAGE
    assert any("boosted language=go" in n and "golang" in n for n in result["notes"])


def test_a_filter_on_the_key_wins_over_the_named_value(session: McpSession) -> None:
    result = _search(session, query="create a short link in the Go SDK", language="python")
    assert result["hits"][0]["chunk_id"] == PYTHON_PAGE
    assert not any("boosted" in n for n in result.get("notes") or [])


def test_query_naming_nothing_is_unchanged(two_sdks: Path) -> None:
    bundle = open_bundle(two_sdks)
    on = Searcher(bundle)
    off = Searcher(bundle, options=SearchOptions(name_boost=0.0))
    for query in ("create a short link", "delete", "go create a short link", "links"):
        a, b = on.search(query, {}, 0, 10), off.search(query, {}, 0, 10)
        assert (a.rows, a.scores, a.notes) == (b.rows, b.scores, b.notes)
    # The same searcher does boost a query that names a language (so the check above can fail).
    a = on.search("create a short link in the Go SDK", {}, 0, 10)
    b = off.search("create a short link in the Go SDK", {}, 0, 10)
    assert a.rows != b.rows


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("Dub python: fetch a customer", {("product", "dub"), ("language", "python")}),
        ("Mistral TS: upload a file", {("product", "mistral"), ("language", "typescript")}),
        ("Dub node client retries", {("product", "dub"), ("language", "typescript")}),
        ("Go SDK: settle on chain", {("language", "go")}),
        ("the go sdk retries", {("language", "go")}),
        ("how do I go about retries", set()),
        ("go to the settings page", set()),
        ("PHP client pagination", {("language", "php")}),
        ("update many links at once", set()),
    ],
)
def test_named_values(query: str, expected: set[tuple[str, str]]) -> None:
    assert {(n.key, n.value) for n in named_values(query, SDK_TAXONOMY)} == expected


def test_only_languages_and_named_keys_are_detected() -> None:
    # yellow-docs' `section` values are ordinary words of questions: never boosted.
    taxonomy = {"section": ["build", "learn", "protocol"], "version": ["0.5.x", "current"]}
    assert named_values("build a new config struct and learn the protocol", taxonomy) == []
    # JavaScript named in a corpus that documents its JavaScript SDK as TypeScript.
    assert [n.value for n in named_values("node.js client", {"lang": ["typescript"]})] == [
        "typescript"
    ]
    assert [n.value for n in named_values("C# client", {"language": ["csharp", "go"]})] == [
        "csharp"
    ]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("d_client.links.create_many python", IDENTIFIER),
        ("mistral.classifiers.moderateChat", IDENTIFIER),
        ("#[track_caller] attribute", IDENTIFIER),
        ("R_LIBS_USER", IDENTIFIER),
        ("REprintf Rvprintf", IDENTIFIER),
        ("IOError handling", IDENTIFIER),
        ("list the APIs and their IDs", MIXED),
        ("withHandshakeTimeout default @yellow-org/sdk", IDENTIFIER),
        ("in what order does Rust run drop for a struct's fields and tuple elements", QUESTION),
        ("how do I page through results?", QUESTION),
        ("make a short URL for a marketing landing page using the Dub python SDK", QUESTION),
        ("pagination", MIXED),
        ("session keys", MIXED),
        ("", MIXED),
    ],
)
def test_query_class(query: str, expected: str) -> None:
    assert query_class(query) == expected


def _write_docs(root: Path, pages: dict[str, str], others: list[str]) -> Path:
    """`pages` (name → markdown) and 20 pages "Topic i" whose text is others[i % len(others)]:
    a corpus in which the words of `pages` are rare."""
    root.mkdir()
    for name, text in pages.items():
        (root / name).write_text(text)
    for i in range(20):
        (root / f"topic{i}.md").write_text(
            f"# Topic {i}\n\n## Details\n\n{others[i % len(others)]}\n"
        )
    return root


def _coordination_docs(root: Path) -> Path:
    """A page that names two functions once each, and one that calls the first in four lines of
    code (and so has the larger term score for it)."""
    filler = "The console output may be a GUI window or a file redirected by sink. " * 12
    printing = (
        "# Printing\n\n## Printing\n\nThe function REprintf writes to the error stream, and "
        f"Rvprintf is its analogue using the vprintf interface. {filler}\n"
    )
    calls = "".join(f'X::X{i}() {{ REprintf("constructor {i}"); }}\n' for i in range(4))
    cpp = f"# C++\n\n## Interfacing C++ code\n\n```cpp\n{calls}```\n\n{filler}\n"
    return _write_docs(root, {"printing.md": printing, "cpp.md": cpp}, [filler])


def test_a_query_of_several_names_ranks_the_section_naming_them_all(tmp_path: Path) -> None:
    bundle = open_bundle(build_bundle(_coordination_docs(tmp_path / "docs"), tmp_path / "idx"))
    searcher = Searcher(bundle)
    ids = bundle.chunk_ids()
    both = searcher.search("REprintf Rvprintf", {}, 0, 5)
    assert [ids[r].split("#")[0] for r in both.rows] == ["printing.md", "cpp.md"]
    # "why this rank" shows the factor: 2 of 2 words, and 1 of 2 → (2/3)².
    parts = explain(searcher, "REprintf Rvprintf", {}, both.rows)
    assert [p["coordination"] for p in parts] == [
        {"factor": 1.0, "words": 2},
        {"factor": 0.4444, "words": 2},
    ]
    assert [p["full_text"] for p in parts] == [round(x, 4) for x in both.scores]
    # One name: the section that calls it four times ranks first, as BM25 ranks it.
    one = searcher.search("REprintf", {}, 0, 5)
    assert ids[one.rows[0]].startswith("cpp.md#")


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("REprintf Rvprintf", True),
        ("IG vs WG, which to join for my idea", True),
        ("database schema: expose as resource or tool?", True),
        ("difference between a tuple and a list", True),
        ("errors.RateLimitExceeded dub typescript", True),
        ("create a short link", False),
        ("vendor versions", False),
        ("orchestrate the workers", False),
        ("R_LIBS_USER", False),  # an identifier query, but one word: nothing to coordinate
        ("which", False),
    ],
)
def test_queries_that_want_every_word(query: str, expected: bool) -> None:
    assert wants_every_word(query) == expected


def test_vs_is_not_searched_as_a_word_but_its_bigrams_stay() -> None:
    config = AnalyzerConfig()  # the builder's default analyzer
    terms, bigrams = query_terms("strict vs lax", config)
    assert terms == ["strict", "lax"] and "strict vs" in bigrams
    assert query_terms("VS Code", config)[0] == ["code"]
    assert query_terms("vs", config)[0] == ["vs"]  # nothing else to search


def _choice_docs(root: Path) -> Path:
    """A page that names both sides of two choices once each in a long text; one whose heading
    says "VS Code" and whose text says "strict"; one that says "tool" in its heading and in
    every line of an example. "resource" is a common word of the other pages, "tool" a rarer one."""
    filler = "Settings live in a file next to the project, read once at start. " * 8
    modes = (
        f"# Modes\n\n## Validation modes\n\n{filler}In strict mode types must match; lax mode "
        f"converts what it can. A resource or a tool may use either. {filler}{filler}\n"
    )
    editor = f"# Editors\n\n## Configure VS Code\n\nTurn on strict formatting. {filler}\n"
    calls = "".join(f"call tool {i} with the tool arguments of tool {i}\n" for i in range(4))
    tools = f"# Tools\n\n## Calling a tool\n\n```\n{calls}```\n\n{filler}\n"
    pages = {"modes.md": modes, "editor.md": editor, "tools.md": tools}
    return _write_docs(root, pages, [filler, f"Each resource has a URI. {filler}"])


def test_a_choice_ranks_the_section_naming_both_sides(tmp_path: Path) -> None:
    bundle = open_bundle(build_bundle(_choice_docs(tmp_path / "docs"), tmp_path / "idx"))
    searcher = Searcher(bundle)
    ids = bundle.chunk_ids()

    def first(query: str) -> str:
        return ids[searcher.search(query, {}, 0, 5).rows[0]].split("#")[0]

    assert first("strict vs lax") == "modes.md"  # not the "VS Code" heading
    assert first("VS Code") == "editor.md"
    assert first("resource or tool?") == "modes.md"  # both sides, above "tool" eight times
    assert first("tool") == "tools.md"


_WORDS = [
    "createWidget",
    "retryPolicy",
    "widgets",
    "vs",
    "or",
    "which",
    "delete",
    "python",
    "client.widgets.create_widget",
    "backoff",
    "errors",
    "HTTPServer",
    "404",
    "会话密钥",
]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(_WORDS), min_size=1, max_size=6))
def test_coordination_reorders_and_never_filters(tiny_bundle: Path, words: list[str]) -> None:
    """Coordination is a factor of at most 1 on the rows a query matches: the same rows match
    with it on or off (`vs` aside, which is then not searched), none scores higher, and a query
    that asks for no coordination scores exactly as without it."""
    bundle = open_bundle(tiny_bundle)
    plain = SearchOptions(name_boost=0.0, role_prior=False)
    on = Searcher(bundle, options=plain)
    off = Searcher(bundle, options=replace(plain, coordination=False))
    query = " ".join(words)
    a, b = on.search(query, {}, 0, 50), off.search(query, {}, 0, 50)
    if "vs" in (w.lower() for w in words):
        return
    assert set(a.rows) == set(b.rows)
    before = dict(zip(b.rows, b.scores, strict=True))
    after = dict(zip(a.rows, a.scores, strict=True))
    assert all(after[r] <= before[r] + 1e-6 for r in after)
    if not wants_every_word(query):
        assert after == before


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_query_understanding_never_raises_and_is_deterministic(query: str) -> None:
    cls = query_class(query)
    assert cls in QUERY_CLASSES and query_class(query) == cls
    found = named_values(query, SDK_TAXONOMY)
    assert found == named_values(query, SDK_TAXONOMY)
    for n in found:
        assert n.value in SDK_TAXONOMY[n.key] and n.words


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from(["Go", "go", "SDK", "golang", "node", "C#", "dub", "x.y", "a_b", "?", " "])
    ),
    st.dictionaries(
        st.sampled_from(["language", "product", "lang"]), st.lists(st.text(max_size=8))
    ),
)
def test_named_values_of_any_taxonomy(words: list[str], taxonomy: dict[str, list[str]]) -> None:
    query = " ".join(words)
    for n in named_values(query, taxonomy):
        assert n.value in taxonomy[n.key]
