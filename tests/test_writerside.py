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


def _project(tmp_path: Path) -> Path:
    """A Writerside project in ktor's shape: `project.ihp`, `v.list`, `codeSnippets/`, `topics/`."""
    (tmp_path / "project.ihp").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<ihp version="2.0">\n'
        '    <snippets src="codeSnippets"/>\n    <vars src="v.list"/>\n'
        '    <topics dir="topics"/>\n    <instance src="ktor.tree" id="docs"/>\n</ihp>\n'
    )
    (tmp_path / "v.list").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<vars>\n'
        '    <var name="ktor_version" value="3.5.2"/>\n</vars>\n'
    )
    app = tmp_path / "codeSnippets" / "snippets" / "cookies" / "src"
    app.mkdir(parents=True)
    (app / "Application.kt").write_text(
        "package com.example\n\nimport io.ktor.client.*\n\n"
        "fun main() {\n    val client = HttpClient(CIO) {\n        install(HttpCookies)\n"
        "    }\n}\n\nfun other() = 1\n"
    )
    (tmp_path / "topics").mkdir()
    return tmp_path


def test_code_blocks_from_the_snippets_folder_and_variables(tmp_path: Path) -> None:
    """ktor's 540 code blocks written empty with `{src=…}` under them showed nothing; the
    lines, or the symbol, they name are the block; `%ktor_version%` is v.list's value."""
    root = _project(tmp_path)
    (root / "topics" / "client-cookies.md").write_text(
        '[//]: # (title: Cookies)\n\n<var name="artifact" value="ktor-client-core"/>\n'
        "Use Ktor %ktor_version% and %unknown%, add `%artifact%`.\n\n"
        "## Install\n\n```kotlin\n```\n"
        '{src="snippets/cookies/src/Application.kt" include-lines="6-8"}\n\n'
        "1. A list item:\n   ```kotlin\n   ```\n"
        '   {src="snippets/cookies/src/Application.kt" include-symbol="main"}\n\n'
        '```kotlin\n```\n{src="/snippets/cookies/src/Application.kt" include-symbol="other"}\n\n'
        '```groovy\nimplementation "io.ktor:ktor-client-core:%ktor_version%"\n```\n\n'
        '```kotlin\n```\n{src="snippets/none/Missing.kt"}\n'
    )
    chunks = {c.id: c for c in _chunks(root, "topics/client-cookies.md")}
    intro = chunks["topics/client-cookies.md#cookies"].text
    assert "Use Ktor 3.5.2 and %unknown%, add `ktor-client-core`." in intro
    install = chunks["topics/client-cookies.md#cookies/install"].text
    assert "```kotlin\nval client = HttpClient(CIO) {\n    install(HttpCookies)\n}\n```" in install
    assert "   ```kotlin\n   fun main() {\n       val client" in install
    assert install.count("fun other() = 1") == 1 and "{src=" not in install
    assert 'ktor-client-core:3.5.2"' in install
    assert install.rstrip().endswith("```kotlin\n```")  # a file not found: the block as written
