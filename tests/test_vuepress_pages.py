"""What a VuePress (or VitePress) reader sees that its markdown does not say as written: emoji
shortcodes rendered by markdown-it-emoji (formats/markdown/emoji.py), and a home page whose text
is all frontmatter (formats/markdown/home_page.py). Real builds of small sites in VuePress'
shape."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_docsmcp
from docsmcp.sources.corpus import load_corpus
from docsmcp.sources.formats.markdown.emoji import shortcodes
from mcp_client import McpSession, text_of

HOME = """---
home: true
title: Home
heroText: Widgets
tagline: Small parts for big machines
actions:
  - text: Get Started
    link: /guide/start.html
    type: primary
features:
  - title: Simplicity First
    details: Minimal setup with a markdown-centred project.
  - title: Vue-Powered
    details: Use Vue components in markdown.
footer: MIT Licensed
---
"""

GUIDE = """# Start

## Emoji :tada:

Type `:tada:` to get one. Widgets 2 is out :tada: !

| Feature | Supported |
| --- | --- |
| Gears | :white_check_mark: |
| Levers | :x: |

See [the emoji section](#emoji). A `:param:` and :not_an_emoji: stay as written.

```md
Widgets 2 is out :tada: !
```
"""


def _site(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    (docs / "guide").mkdir(parents=True)
    (docs / "README.md").write_text(HOME, encoding="utf-8")
    (docs / "guide" / "start.md").write_text(GUIDE, encoding="utf-8")
    return docs


def test_emoji_shortcodes_read_as_the_emoji_outside_code(tmp_path: Path) -> None:
    docs = _site(tmp_path)
    out = tmp_path / "idx"
    built = json.loads(run_docsmcp("build", "--docs-dir", docs, "--out", out, "--json").stdout)
    assert built["references"]["resolved"] == built["references"]["found"]  # (`#emoji`)
    with McpSession(out) as session:
        result = session.call("get_doc", {"chunk_id": "guide/start.md#start/emoji"})
        text = text_of(result)
    assert not result.is_error, text
    assert "## Emoji 🎉" in text and "Widgets 2 is out 🎉 !" in text
    assert "| Gears | ✅ |" in text and "| Levers | ❌ |" in text
    assert "Type `:tada:` to get one." in text and "```md\nWidgets 2 is out :tada: !" in text
    assert "A `:param:` and :not_an_emoji: stay as written." in text
    assert shortcodes("a:tada:b :tada::x:") == "a:tada:b :tada::x:"  # (not within words)


def test_a_home_page_of_frontmatter_is_indexed_as_its_theme_shows_it(tmp_path: Path) -> None:
    """VuePress' own home page (`home: true`, all frontmatter) had no text and no chunk."""
    docs = _site(tmp_path)
    (home,) = [f for f in load_corpus(docs).files if f.path == "README.md"]
    lines = home.body.split("\n")
    assert lines[:6] == [
        "# Widgets",
        "",
        "Small parts for big machines",
        "",
        "[Get Started](/guide/start.html)",
        "",
    ]
    assert "## Vue-Powered" in lines and "Use Vue components in markdown." in lines
    out = tmp_path / "idx"
    run_docsmcp("build", "--docs-dir", docs, "--out", out)
    with McpSession(out) as session:
        result = session.call("search_docs", {"query": "markdown-centred project setup"})
        assert not result.is_error, text_of(result)
        assert result.structured_content is not None
        hits = result.structured_content["hits"]
    assert hits[0]["filepath"] == "README.md"
    assert len(home.line_map) == len(lines) and set(home.line_map[:6]) == {1}


def test_a_vitepress_home_page_too(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text(
        "---\nlayout: home\nhero:\n  name: Gadget\n  text: A web framework\n"
        "  tagline: Fast and small.\n  actions:\n    - text: Docs\n      link: /docs/\n"
        "features:\n  - icon: 🚀\n    title: Ultrafast\n    details: Routers that are fast.\n"
        "---\n\nMore below the features.\n",
        encoding="utf-8",
    )
    (page,) = load_corpus(docs).files
    assert page.body.split("\n")[:11] == [
        "# Gadget", "", "A web framework", "", "Fast and small.", "", "[Docs](/docs/)", "",
        "## Ultrafast", "", "Routers that are fast.",
    ]  # fmt: skip
    assert page.body.rstrip().endswith("More below the features.")
