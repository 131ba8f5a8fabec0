"""A banner above a page's own title (Fastify: `<h1 align="center">Fastify</h1>` then `##
Decorators` on 34 of 42 pages) is no text of the page: no one-word preamble chunk, no page
description "Fastify". An HTML heading with the page's text under it stays."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import build_bundle
from docsmcp.sources.formats.markdown.banner import drop_banner
from mcp_client import McpSession

DECORATORS = """<h1 align="center">Acme</h1>

## Decorators

The decorators API customizes core Acme objects, such as the server instance.
"""
PLUGINS = """<h1 style="text-align: center;">Acme</h1>

# How to write a good plugin
First, thank you for deciding to write a plugin for Acme.
"""
SERVERLESS = """<h1 align="center">Serverless</h1>

Run serverless applications using your existing Acme application.

#### Should you use Acme in a serverless platform?

That is up to you.
"""


def test_a_banner_over_the_page_title_is_blanked_and_lines_are_kept() -> None:
    lines = DECORATORS.split("\n")
    assert drop_banner(lines) == ["", *lines[1:]]
    assert drop_banner(SERVERLESS.split("\n")) == SERVERLESS.split("\n")
    # Only an HTML heading alone on its line: text or other elements stay.
    for first in ("Acme", "<p align='center'>Acme</p>", "<h1>Acme</h1> and more"):
        page = [first, "", "## Decorators"]
        assert drop_banner(page) == page


def test_pages_under_a_banner_have_no_banner_chunk_or_description(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    (docs / "Reference").mkdir(parents=True)
    (docs / "Reference" / "Decorators.md").write_text(DECORATORS)
    (docs / "Reference" / "Write-Plugin.md").write_text(PLUGINS)
    (docs / "Reference" / "Serverless.md").write_text(SERVERLESS)
    out = build_bundle(docs, tmp_path / "idx")
    with McpSession(out) as s:
        listed = s.call("list_sections", {"category": "Reference"}).structured_content
        pages = {e["path"]: e for e in listed["entries"]}  # type: ignore[index]
        hits = s.search(query="acme write a plugin")
        decorators = s.call("get_page", {"path": "Reference/Decorators.md"}).structured_content
        serverless = s.call("get_page", {"path": "Reference/Serverless.md"}).structured_content
    assert pages["Reference/Decorators.md"]["description"].startswith("The decorators API"), pages
    assert pages["Reference/Write-Plugin.md"]["description"].startswith("First, thank you"), pages
    assert pages["Reference/Serverless.md"]["description"].startswith("Serverless"), pages
    ids = [h["chunk_id"] for h in hits["hits"]]
    banners = ("Reference/Decorators.md#_preamble", "Reference/Write-Plugin.md#_preamble")
    assert not set(ids) & set(banners), json.dumps(hits)[:2000]
    assert decorators["text"].startswith("## Decorators"), decorators  # type: ignore[index]
    assert serverless["text"].startswith("Serverless"), serverless  # type: ignore[index]
