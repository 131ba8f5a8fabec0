"""JetBrains Writerside projects (ktor's docs): markdown topics titled by `[//]: # (title: X)`,
kramdown attribute lists giving headings their ids, code blocks filled from the snippets folder,
`%var%` variables of `v.list`."""

from __future__ import annotations

from pathlib import Path

from docsmcp.chunking.chunk import chunk_file
from docsmcp.sources.corpus import load_corpus


def _chunks(docs: Path, path: str) -> list:
    corpus = load_corpus(docs)
    assert not corpus.problems, corpus.problems
    (sf,) = [f for f in corpus.files if f.path == path]
    return chunk_file(sf)


def test_title_comment_and_attribute_ids(tmp_path: Path) -> None:
    """The title comment is the page's H1 (ktor's 142 markdown topics were titled by their
    first section or file name); `{id="x"}` after a heading is its id (947 ids, which links
    such as `client-requests.md#cookies` name), `{style="note"}` after a block leaves nothing."""
    docs = tmp_path / "topics"
    docs.mkdir()
    (docs / "client-cookies.md").write_text(
        "[//]: # (title: Cookies)\n\nThe client keeps cookies.\n\n"
        '## Add dependencies {id="add_dependencies"}\n\nNo artifact.\n\n'
        '> Cookies are kept in memory.\n>\n{style="note"}\n'
    )
    chunks = {c.id: c for c in _chunks(docs, "client-cookies.md")}
    assert set(chunks) == {
        "client-cookies.md#cookies",
        "client-cookies.md#cookies/add_dependencies",
    }
    first = chunks["client-cookies.md#cookies"]
    assert first.heading == "Cookies" and "title:" not in first.text
    c = chunks["client-cookies.md#cookies/add_dependencies"]
    assert c.heading == "Add dependencies"
    assert "{" not in c.text and "Cookies are kept in memory." in c.text
