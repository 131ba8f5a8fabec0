"""Document-side fields (anchor texts of incoming links, frontmatter description and keywords)
and hit size (long sections and tables split at 2,500 characters), on real builds of small
docs folders written here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import build_bundle
from docsmcp.chunking.chunk import DEFAULT_MAX_CHUNK_SIZE, chunk_file
from docsmcp.enrich.xref_resolve import anchor_text
from docsmcp.indexing.lexical import page_text
from docsmcp.model.chunk import Chunk
from docsmcp.sources.corpus import load_corpus
from docsmcp_runtime.bundle.reader import open_bundle
from docsmcp_runtime.search.engine import Searcher
from hypothesis import given, settings
from hypothesis import strategies as st

PAGES = {
    "guide.md": (
        "# Guide\n\n## Setup\n\nBefore anything else, [frobnicate the widgets](widgets.md#install)."
        "\nMore in [here](widgets.md#remove).\n"
    ),
    "widgets.md": (
        "# Widgets\n\n## Install\n\nRun the installer, then call init.\n\n"
        "## Remove\n\nRun the uninstaller.\n"
    ),
    "physics.md": (
        "---\ntitle: Physics\ndescription: A primer on quantum entanglement.\n"
        "keywords: [spooky, action]\n---\n\n# Physics\n\nParticles and how they interact.\n\n"
        "## Waves\n\nInterference patterns.\n"
    ),
}


@pytest.fixture(scope="module")
def fields_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    docs = tmp_path_factory.mktemp("fields") / "docs"
    docs.mkdir()
    for name, text in PAGES.items():
        (docs / name).write_text(text, encoding="utf-8")
    return build_bundle(docs, docs.parent / "idx")


def _ids(bundle: Path, query: str) -> list[str]:
    b = open_bundle(bundle)
    return [b.id(r) for r in Searcher(b).search(query, {}, 0, 10).rows]


def test_anchor_text_finds_the_link_target(fields_bundle: Path) -> None:
    # "frobnicate" is only in guide.md's link to the Install section: both are found.
    assert sorted(_ids(fields_bundle, "frobnicate")) == [
        "guide.md#guide/setup",
        "widgets.md#widgets/install",
    ]


def test_generic_link_text_adds_nothing(fields_bundle: Path) -> None:
    assert "widgets.md#widgets/remove" not in _ids(fields_bundle, "here")


def test_frontmatter_description_and_keywords_find_the_page(fields_bundle: Path) -> None:
    # Every chunk of the page carries them (the `page` field, issue 27): the page's first
    # chunk, whose own text is shorter, comes first.
    for query in ("entanglement", "spooky action"):
        assert _ids(fields_bundle, query) == ["physics.md#physics", "physics.md#physics/waves"]


def test_field_weights_are_recorded(fields_bundle: Path) -> None:
    weights = json.loads((fields_bundle / "metadata.json").read_text())["lexical"]["field_weights"]
    assert weights == {
        "heading": 3.0,
        "trail": 3.0,
        "body": 1.0,
        "context": 0.5,
        "page": 1.5,
        "lead": 0.5,
        "anchors": 3.0,
    }


def test_page_text() -> None:
    frontmatter = json.dumps({"description": "About X.", "keywords": ["a", "b", 3], "title": "T"})
    assert page_text(frontmatter) == "About X.\na\nb"
    assert page_text("{}") == "" and page_text("[]") == "" and page_text("{") == ""


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=80))
def test_anchor_text_rule_never_raises(text: str) -> None:
    assert anchor_text(text) in (True, False)
    assert not anchor_text("  Click HERE ") and not anchor_text("https://example.com/x")
    assert anchor_text("frobnicate the widgets")


# -- hit size ---------------------------------------------------------------------------------


def chunks_of(tmp_path: Path, text: str, manifest: dict | None) -> list[Chunk]:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "page.md").write_text(text, encoding="utf-8")
    if manifest is not None:
        (docs / ".docs-mcp.json").write_text(json.dumps(manifest), encoding="utf-8")
    corpus = load_corpus(docs)
    assert not corpus.problems, corpus.problems
    (sf,) = corpus.files
    return chunk_file(sf)


def test_long_sections_split_at_the_default_size(tmp_path: Path) -> None:
    paragraph = "The borrow checker enforces the aliasing rules of references. " * 6
    text = "# Reference\n\n## Lifetimes\n\n" + "\n\n".join([paragraph] * 20) + "\n"
    chunks = chunks_of(tmp_path, text, None)
    assert DEFAULT_MAX_CHUNK_SIZE == 2500
    assert len(chunks) > 3 and all(len(c.text) <= DEFAULT_MAX_CHUNK_SIZE for c in chunks)
    assert chunks[0].id == "page.md#reference/lifetimes"
    assert chunks[1].id == "page.md#reference/lifetimes-part-2"
    # Every part keeps the heading trail (the breadcrumb and the boosted heading field).
    assert all(c.breadcrumb == "page.md > Reference > Lifetimes" for c in chunks)


def test_table_sections_split_at_the_default_size_and_the_manifest_wins(tmp_path: Path) -> None:
    header = "| Field | Type | Description |\n|---|---|---|\n"
    rows = "".join(
        f"| `field_{i}` | string | What field {i} holds, in some words. |\n" for i in range(120)
    )
    text = "# Model\n\n## Fields\n\n" + header + rows
    chunks = chunks_of(tmp_path, text, None)
    assert len(text) > 6000 and len(chunks) >= 3
    assert all(len(c.text) <= DEFAULT_MAX_CHUNK_SIZE for c in chunks)
    # Each part repeats the header, so it reads on its own.
    assert all("| Field | Type | Description |" in c.text for c in chunks)
    # A manifest's max_chunk_size is what the docs' owner chose: tables keep it too.
    manifest = {"version": "1", "strategy": {"chunk_by": "h2", "max_chunk_size": 12000}}
    (tmp_path / "docs").rename(tmp_path / "old")
    assert len(chunks_of(tmp_path, text, manifest)) == 1


def test_a_definition_names_its_section(tmp_path: Path) -> None:
    """An API entry's name is in its section's `anchors` field (as the text of a link to it
    would be): a long configuration section defining many values comes first for one of them,
    above a short section that only mentions it (Sphinx's own `autodoc_mock_imports`)."""
    options = "".join(
        f".. confval:: option_{i}\n\n   " + f"What option {i} changes in the output. " * 12 + "\n\n"
        for i in range(8)
    )
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "config.rst").write_text(
        "Configuration\n=============\n\nGeneral\n-------\n\n"
        + options
        + ".. confval:: mock_imports_list\n\n   Modules to mock when they cannot be imported.\n",
        encoding="utf-8",
    )
    (docs / "stubs.rst").write_text(
        "Stubs\n=====\n\nWhen imports fail, set mock_imports_list.\n", encoding="utf-8"
    )
    bundle = build_bundle(docs, tmp_path / "idx")
    ids = _ids(bundle, "mock_imports_list")
    assert ids[0].startswith("config.rst#"), ids
    assert any(i.startswith("stubs.rst#") for i in ids)


def test_a_query_of_stop_words_alone_searches_the_names_they_end(tmp_path: Path) -> None:
    """Hugo's `where` and `in` functions, SQL's WHERE: stop words are no terms, so "where"
    found nothing at all. Such a query searches the qualified names ending in its words
    (`collections.where`) and says so; with none, it says why nothing was found."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "where.md").write_text(
        "# collections.Where\n\nThe `where` function filters a slice by a key.\n", encoding="utf-8"
    )
    (docs / "apply.md").write_text(
        "# collections.Apply\n\nReturns a slice, with a function applied to each element.\n",
        encoding="utf-8",
    )
    searcher = Searcher(open_bundle(build_bundle(docs, tmp_path / "idx")))
    page = searcher.search("where", {}, 0, 5)
    assert [searcher.bundle.chunk_ids()[r] for r in page.rows] == ["where.md#collectionswhere"]
    assert page.notes == [
        "'where': stop words, not indexed; searched the names ending in them: collections.where."
    ]
    assert searcher.searched("Where?", {}) == (["collections.where"], [])
    empty = searcher.search("with the", {}, 0, 5)
    assert not empty.rows
    assert empty.notes == [
        "The query's words ('with', 'the') are stop words, not indexed: add a word the docs use."
    ]
    # A query with other words searches them, and a stop word it names as a kind of name
    # ("where function") or in backticks searches its names too, without a note.
    page = searcher.search("where function", {}, 0, 5)
    assert [searcher.bundle.chunk_ids()[r] for r in page.rows][0] == "where.md#collectionswhere"
    assert page.notes == []
    assert searcher.searched("where function", {}) == (["function", "collections.where"], [])
    assert searcher.searched("the `where` filter", {}) == (["filter", "collections.where"], [])
    # Elsewhere a stop word is only a stop word: a question, a longer query.
    assert searcher.searched("where is the function", {}) == (["function"], [])
    assert "collections.where" not in searcher.searched("where function in go templates", {})[0]


def test_a_title_counts_whatever_heading_the_section_has(tmp_path: Path) -> None:
    """A component library (shadcn/ui, Hono's middleware, Ant Design): every component page has
    a `## Usage` and a `## API` section. Many pages repeat those headings, so they say little
    (the heading discount), but the page's title above them says what the section is about:
    "tooltip" weighs as much in *Tooltip > Usage* as "sidebar" in *Sidebar > Placement*, whose
    heading no other page has. Before the `trail` field the discount fell on the whole
    breadcrumb, and the title under a repeated heading weighed less: Hono's `bearerAuth` ranked
    the Combine middleware's usage, which calls it three times, above Bearer Auth's own."""
    docs = tmp_path / "docs"
    docs.mkdir()
    body = "Import the component and render it where it belongs.\n"
    for name in ("Accordion", "Popover", "Sheet", "Tabs", "Select", "Drawer", "Menu", "Tooltip"):
        (docs / f"{name.lower()}.md").write_text(
            f"# {name}\n\n## Usage\n\n{body}\n## API\n\nProps of the component.\n", encoding="utf-8"
        )
    (docs / "sidebar.md").write_text(
        f"# Sidebar\n\n## Placement\n\n{body}\n## API\n\nProps of the component.\n",
        encoding="utf-8",
    )
    b = open_bundle(build_bundle(docs, tmp_path / "idx"))
    searcher = Searcher(b)

    def score_of(query: str, chunk_id: str) -> float:
        page = searcher.search(query, {}, 0, 10)
        return dict(zip((b.id(r) for r in page.rows), page.scores, strict=True))[chunk_id]

    usage = score_of("tooltip", "tooltip.md#tooltip/usage")
    placement = score_of("sidebar", "sidebar.md#sidebar/placement")
    assert usage == pytest.approx(placement, rel=0.02)
