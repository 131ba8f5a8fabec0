"""Dogfood: docsmcp's own guide (docs/) built into a bundle with the real builder and searched with
the real runtime, with questions a new user asks; the page that answers must be in the top 3.
Also: the links between the guide's pages (and to the repository's files) resolve, and the
README stays a short entry point. Fast tier: needs nothing but the repository.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import REPO, build_bundle
from docsmcp_runtime.bundle.reader import open_bundle
from docsmcp_runtime.tools.app import DocsApp

DOCS = REPO / "docs"
PAGES = [REPO / "README.md", *sorted(DOCS.glob("*.md"))]

# Written before the first run, as a new user would ask: question -> the page that answers it.
# Rank of that page's first hit when written (full text, the guide's default build): 2, 2, 1,
# 1, 2, 1, 1 (cli.md, the README's index or another page's section took the other places).
QUESTIONS = {
    "how do I serve several bundles": "serving.md",
    "push a bundle to a registry": "publishing.md",
    "build from a git repository": "sources.md",
    "use docsmcp with Claude Code": "serving.md",
    "index PDF manuals": "sources.md",
    "run the server over HTTP": "serving.md",
    "how are results ranked": "search.md",
}


@pytest.fixture(scope="module")
def guide(tmp_path_factory: pytest.TempPathFactory) -> DocsApp:
    return DocsApp(open_bundle(build_bundle(DOCS, tmp_path_factory.mktemp("guide") / "idx")))


@pytest.mark.parametrize("question", QUESTIONS)
def test_the_answering_page_is_in_the_top_3(guide: DocsApp, question: str) -> None:
    result = guide.call_tool("search_docs", {"query": question, "limit": 10})
    hits = result["structuredContent"]["hits"]
    pages = [hit["filepath"] for hit in hits]
    assert QUESTIONS[question] in pages[:3], (question, [h["chunk_id"] for h in hits[:5]])


def _slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation but `-` and `_` dropped."""
    return re.sub(r"[^\w\- ]", "", heading.replace("`", "").strip().lower()).replace(" ", "-")


def _prose(text: str) -> list[str]:
    """The lines outside fenced code blocks."""
    lines, fence = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            fence = not fence
        elif not fence:
            lines.append(line)
    return lines


def _anchors(page: Path) -> set[str]:
    anchors: set[str] = set()
    for line in _prose(page.read_text("utf-8")):
        if line.startswith("#"):
            slug = base = _slug(line.lstrip("#"))
            n = 0
            while slug in anchors:  # GitHub numbers repeated headings
                n += 1
                slug = f"{base}-{n}"
            anchors.add(slug)
    return anchors


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_relative_links_resolve(page: Path) -> None:
    """Links to other pages, their headings and the repository's files (bundle-spec.md, bench/
    from docs/ with ../) lead somewhere."""
    broken = []
    for line in _prose(page.read_text("utf-8")):
        line = re.sub(r"`[^`]*`", "", line)  # examples of links inside code spans
        for link in re.findall(r"\]\(([^)\s]+)\)", line):
            if re.match(r"[a-z]+:", link):
                continue
            target, _, anchor = link.partition("#")
            dest = (page.parent / target).resolve() if target else page
            if not dest.exists():
                broken.append(f"{link}: no {dest}")
            elif anchor and dest.suffix == ".md" and anchor not in _anchors(dest):
                broken.append(f"{link}: no heading #{anchor}")
    assert not broken, broken


def test_the_readme_is_short_and_names_every_source() -> None:
    readme = (REPO / "README.md").read_text("utf-8")
    assert len(readme.splitlines()) < 120
    intro = readme.split("\n## ", 1)[0]
    for source in (
        "markdown",
        "MDX",
        "reStructuredText",
        "Sphinx",
        "AsciiDoc",
        "HTML",
        "notebooks",
        "PDF",
        "git",
    ):
        assert source in intro, source
    for page in sorted(DOCS.glob("*.md")):
        if page.name != "README.md":
            assert f"(docs/{page.name})" in readme, page.name
