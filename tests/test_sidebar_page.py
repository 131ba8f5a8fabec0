"""Laravel's docs (laravel/docs): plain markdown pages whose sidebar is a page,
`documentation.md`, a nested list of links under headings written from the site's root
(`/docs/{{version}}/routing`). It was indexed as a page (its links to every page), the pages got
no titles or order from it, and each page opens with a list of links to its own sections, which
was its summary wherever a reference showed one ("Basic Routing The Default Route Files ...")."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
from conftest import run_docsmcp, write_tree
from docsmcp.commands.init import propose

SITE = {
    "documentation.md": (
        "- ## Prologue\n    - [Release Notes](/docs/{{version}}/releases)\n"
        "- ## The Basics\n    - [Routing Basics](/docs/{{version}}/routing)\n"
        "    - [Request Middleware](/docs/{{version}}/middleware)\n"
        "- [API Documentation](https://api.example.com/docs/12.x)\n"
    ),
    "releases.md": "# Release Notes\n\nEach major release comes once a year.\n",
    "routing.md": (
        "# Routing\n\n- [Basic Routing](#basic-routing)\n    - [Redirects](#redirects)\n"
        "- [Middleware](/docs/{{version}}/middleware)\n\n"
        '<a name="basic-routing"></a>\n## Basic Routing\n\n'
        "The most basic routes accept a URI and a closure.\n\n"
        '<a name="redirects"></a>\n### Redirects\n\nRedirect with `Route::redirect`.\n'
    ),
    "middleware.md": (
        "# Middleware\n\n- [Introduction](#introduction)\n\n"
        '<a name="introduction"></a>\n## Introduction\n\n'
        "Middleware inspects requests. See [routing](/docs/{{version}}/routing).\n"
    ),
}


def test_a_sidebar_page_orders_and_titles_the_pages_and_is_no_page(tmp_path: Path) -> None:
    site = write_tree(tmp_path / "docs", SITE)
    proc = run_docsmcp("build", "--docs-dir", site, "--out", tmp_path / "idx", "--json")
    summary = json.loads(proc.stdout)
    assert summary["files"] == 3
    assert summary["navigation"] == "navigation: documentation.md (titles and order of 3 pages)"
    assert summary["unpublished"] == (
        "the site's sidebar page: 1 pages left out, as the site's build does "
        "(documentation.md); a manifest decides instead"
    )
    pages = pq.read_table(tmp_path / "idx" / "pages.parquet").to_pylist()
    assert [p["path"] for p in pages] == ["middleware.md", "releases.md", "routing.md"]
    # `{{version}}` links resolve: the site serves the docs folder under /docs/{version}/
    assert summary["references"]["found"] == summary["references"]["resolved"]
    chunks = pq.read_table(tmp_path / "idx" / "chunks.parquet").to_pylist()
    sections = pq.read_table(tmp_path / "idx" / "sections.parquet").to_pylist()
    by_id = {c["id"]: s for c, s in zip(chunks, sections, strict=True)}
    # the page a reference names reads as its first prose, not as its table of contents
    assert by_id["routing.md#routing"]["summary"] == (
        "The most basic routes accept a URI and a closure."
    )
    assert propose(site).manifest["exclude"] == ["documentation.md"]


def test_a_page_named_documentation_that_is_prose_stays_a_page(tmp_path: Path) -> None:
    site = write_tree(
        tmp_path / "docs",
        {
            "documentation.md": (
                "# Documentation\n\nHow we write docs:\n\n- [Style](style.md)\n"
                "- [Voice](voice.md)\n- [Tone](tone.md)\n"
            ),
            "style.md": "# Style\n\nShort sentences.\n",
        },
    )
    proc = run_docsmcp("build", "--docs-dir", site, "--out", tmp_path / "idx", "--json")
    summary = json.loads(proc.stdout)
    assert summary["files"] == 2 and summary["unpublished"] is None
