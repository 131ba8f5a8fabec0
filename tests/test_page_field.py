"""Page-level evidence (issue 27): every chunk of a page carries its page's title, description
and lead paragraph (the `page` field), and a heading that repeats on many pages weighs less, so
a query about a page finds that page rather than a short section that many pages repeat. Real
builds of small docs folders written here; the corpus-tier checks are in
test_page_field_corpus.py."""

from __future__ import annotations

import json
from array import array
from pathlib import Path

import numpy as np
import pytest
from conftest import build_bundle
from docsmcp.chunking.chunk import parse_file
from docsmcp.indexing.pagefield import (
    LEAD_CHARS,
    heading_factors,
    heading_key,
    lead_text,
    page_field,
)
from docsmcp.sources.corpus import load_corpus
from docsmcp_runtime.bundle.reader import open_bundle
from docsmcp_runtime.search.engine import Searcher
from docsmcp_runtime.search.lexical import Lexicon

UTILITIES = ("background-color", "border-color", "text-color", "outline-color", "fill", "stroke")


def _utility(name: str) -> str:
    # The template section every utility page repeats, short and full of the query's words.
    return (
        f"# {name}\n\nUtilities for controlling the {name} of an element.\n\n"
        f"## Basic example\n\nUse `{name}-red-500` to set the {name}.\n\n"
        f"## Applying on hover\n\nPrefix a {name} utility with hover to apply it on hover.\n"
    )


STATES = (
    "---\ntitle: Hover, focus, and other states\n"
    "description: Using utilities to style elements on hover, focus, and more.\n---\n\n"
    "Every utility class can be applied conditionally by adding a variant to the beginning of "
    "the class name that describes the condition you want to target.\n\n"
    "## Pseudo-classes\n\nStyle elements as the user interacts with them: the first, last, "
    "odd and even children, and elements that are required, invalid or disabled, each with "
    "the variant of its condition in front of the class.\n\n"
    "## Styling based on parent state\n\nMark the parent with the group class and use "
    "group-* variants to style a child when the parent is interacted with.\n"
)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    docs = tmp_path_factory.mktemp("site") / "docs"
    docs.mkdir()
    for name in UTILITIES:
        (docs / f"{name}.md").write_text(_utility(name), encoding="utf-8")
    (docs / "hover-focus-and-other-states.md").write_text(STATES, encoding="utf-8")
    return build_bundle(docs, docs.parent / "idx")


def _ids(bundle: Path, query: str, limit: int = 10) -> list[str]:
    b = open_bundle(bundle)
    return [b.id(r) for r in Searcher(b).search(query, {}, 0, limit).rows]


def test_a_query_about_a_page_finds_it_over_a_repeated_template_section(site: Path) -> None:
    # "Applying on hover" on six pages says little; the page about styling on hover answers.
    for query in ("applying styles on hover", "style an element on hover or focus"):
        assert _ids(site, query)[0].startswith("hover-focus-and-other-states.md"), query


def test_a_page_title_query_finds_the_page(site: Path) -> None:
    assert _ids(site, "hover focus and other states")[0] == (
        "hover-focus-and-other-states.md#_preamble"
    )


def test_every_chunk_of_a_page_carries_its_page_field(site: Path) -> None:
    # "conditionally" is only in the lead paragraph of the states page: every chunk of that
    # page has it in its postings (the `page` field), no other chunk does.
    b = open_bundle(site)
    lexicon = Lexicon(b.arrays)
    term = lexicon.lookup("conditionally")
    assert term is not None
    docs, _ = lexicon.postings(term)
    page = [r for r in range(b.n_chunks) if b.id(r).startswith("hover-focus-and-other-states")]
    assert len(page) == 3 and docs.tolist() == page


def test_the_heading_discount_is_recorded(site: Path) -> None:
    lexical = json.loads((site / "metadata.json").read_text())["lexical"]
    assert lexical["heading_informativeness"] == 1.0
    assert (lexical["field_weights"]["page"], lexical["field_weights"]["lead"]) == (1.5, 0.5)


def test_page_field_is_title_description_and_lead(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text(
        "---\ntitle: Alpha\ndescription: About alpha.\nkeywords: [k1, k2]\n---\n\n"
        "# Alpha heading\n\nThe lead paragraph.\n\nA second paragraph.\n\n## Part\n\nText.\n",
        encoding="utf-8",
    )
    (tmp_path / "b.md").write_text("## Straight to a section\n\nNot a lead.\n", encoding="utf-8")
    long_lead = " ".join(["word"] * 200)
    (tmp_path / "c.md").write_text(f"# Gamma\n\n{long_lead}\n", encoding="utf-8")
    parsed = {sf.path: parse_file(sf) for sf in load_corpus(tmp_path).files}
    assert page_field(parsed["a.md"]) == "Alpha\nAbout alpha.\nk1\nk2"
    assert lead_text(parsed["a.md"].blocks) == "The lead paragraph."
    assert page_field(parsed["b.md"]) == "" == lead_text(parsed["b.md"].blocks)
    lead = lead_text(parsed["c.md"].blocks)
    assert page_field(parsed["c.md"]) == "Gamma"
    assert len(lead) <= LEAD_CHARS and lead == " ".join(["word"] * 60)


def test_heading_factors_fall_with_the_pages_a_heading_is_on() -> None:
    keys = array("q", [heading_key(h) for h in ("Fields", " fields ", "Fields", "Setup", "", "")])
    pages = array("q", [0, 1, 1, 2, 3, 4])
    factors = heading_factors(keys, pages, 0.5)
    # "Fields" on pages 0 and 1 (twice on page 1: counted once), "Setup" on one page; none
    assert factors.tolist() == pytest.approx([1 / (1 + 0.5 * np.log(2))] * 3 + [1.0, 1.0, 1.0])
    assert heading_factors(keys, pages, 0.0).tolist() == [1.0] * 6
    assert heading_key("") == 0 and heading_key("A  b") == heading_key("a b") != 0


NAV_PAGES = {
    "mkdocs.yml": (
        "site_name: S\nmarkdown_extensions:\n  - pymdownx.emoji:\n"
        "      emoji_index: !!python/name:material.extensions.emoji.twemoji\n"
        "nav:\n  - Home: index.md\n  - Guide:\n    - Quickstart walkthrough: start.md\n"
        "    - plain.md\n"
    ),
    "docs/index.md": "# Welcome\n\nHello.\n",
    "docs/start.md": "# Start\n\nInstall it, then run it.\n",
    "docs/plain.md": "# Plain\n\nNothing to see.\n",
}


def test_nav_file_titles_join_the_page_field(tmp_path: Path) -> None:
    """mkdocs.yml beside docs/ (read inside the source roots, its Python tags ignored) titles
    pages in the page field; a page it lists bare keeps its own title; SUMMARY.md, docs.json
    and sidebars.json give titles and group labels (sidebars.js too, when it is data:
    tests/test_page_order.py)."""
    from docsmcp.sources.navigation.navfiles import read_nav

    def nav_titles(*args: object) -> dict[str, str]:
        return read_nav(*args).titles

    for name, text in NAV_PAGES.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    docs = tmp_path / "docs"
    pages = ["index.md", "start.md", "plain.md"]
    assert nav_titles(docs, [docs], pages) == {}  # mkdocs.yml is outside the source roots
    assert nav_titles(docs, [tmp_path], pages) == {
        "index.md": "Home",
        "start.md": "Quickstart walkthrough",
    }
    out = build_bundle(docs, tmp_path / "idx", "--source-root", str(tmp_path))
    assert _ids(out, "walkthrough") == ["start.md#start"]

    book = tmp_path / "book"
    (book / "src").mkdir(parents=True)
    (book / "src" / "SUMMARY.md").write_text("- [The Intro](intro.md)\n", encoding="utf-8")
    (book / "src" / "intro.md").write_text("# Intro\n", encoding="utf-8")
    (book / "docs.json").write_text(
        json.dumps({"navigation": {"groups": [{"group": "Setup", "pages": ["src/intro"]}]}}),
        encoding="utf-8",
    )
    (book / "sidebars.js").write_text("module.exports = {a: ['src/intro']};", encoding="utf-8")
    assert nav_titles(book, [book], ["src/intro.md"]) == {"src/intro.md": "The Intro"}
    (book / "src" / "SUMMARY.md").unlink()
    assert nav_titles(book, [book], ["src/intro.md"]) == {"src/intro.md": "Setup"}


def test_nav_files_above_the_roots_are_not_read_and_missing_ones_say_nothing(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from docsmcp.sources.navigation.navfiles import read_nav

    def nav_titles(*args: object) -> dict[str, str]:
        return read_nav(*args).titles

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "intro.md").write_text("# Intro\n", encoding="utf-8")
    (tmp_path / "sidebars.json").write_text(
        json.dumps({"docs": [{"type": "category", "label": "Outside", "items": ["intro"]}]})
    )
    with caplog.at_level("INFO"):
        assert nav_titles(docs, [docs], ["intro.md"]) == {}  # the folder above: not a root
    assert caplog.records == []  # no docs.json, no mkdocs.yml: nothing to say
    assert nav_titles(docs, [tmp_path], ["intro.md"]) == {"intro.md": "Outside"}
