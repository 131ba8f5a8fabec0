"""Markdoc pages (formats/markdown/markdoc.py, markdoc_partials.py), in the shapes of the Markdoc
site's own docs (markdoc/docs: `# {% $markdoc.frontmatter.title %}` on 20 of 21 pages, list
tables, callouts, partials from `markdoc/partials/`) and of `.mdoc` content folders (Astro,
Keystatic)."""

from __future__ import annotations

from pathlib import Path

from conftest import FUZZ, build_bundle, write_tree
from docsmcp.sources.formats.markdown import markdoc
from docsmcp.sources.formats.markdown.fences import fenced_lines
from docsmcp.sources.inclusion.markdoc_partials import call, included
from docsmcp_runtime.bundle.reader import open_bundle
from hypothesis import given
from hypothesis import strategies as st

PAGE = """---
title: Nodes
description: Markdoc nodes.
---

# {% $markdoc.frontmatter.title %}

Nodes are the elements {% $product %} inherits from Markdown.

## Built-in nodes {% #built-in .wide %}

{% table %}
* Node type
* Attributes {% width="40%" %}
---
* `document`
* `frontmatter`
---
* `fence`
* - `content`
  - `language`
  ```js
  { a | b }
  ```
---
* `transform`
* ```js
  (node) =>
    | Node
  ```
{% /table %}

{% table %}
---
* ### Open source {% .jumbo %}

  Full control.
* Writer friendly
{% /table %}

{% callout type="warning" title="Careful" %}
Nodes are not tags.
{% /callout %}

``` {% process=false %}
{% table %}
- kept as written
{% /table %}
```

{% partial file="footer.md" variables={sdk: "Ruby"} /%}
"""


def _chunks(bundle: Path) -> dict[str, str]:
    b = open_bundle(bundle)
    return {b.id(r): b.text(r) for r in range(b.n_chunks)}


def test_a_markdoc_page_reads_as_its_site_shows_it(tmp_path: Path) -> None:
    site = write_tree(
        tmp_path / "site",
        {
            "pages/docs/nodes.md": PAGE,
            "markdoc/partials/footer.md": "## Next steps\n\nInstall the {% $sdk %} client.\n",
        },
    )
    chunks = _chunks(build_bundle(site / "pages", tmp_path / "idx", "--source-root", site))
    # The H1 is the front matter's title, and so are the chunk ids (were `#section/...`).
    assert set(chunks) == {
        "docs/nodes.md#nodes",
        "docs/nodes.md#nodes/built-in",
        "docs/nodes.md#nodes/next-steps",
    }
    assert chunks["docs/nodes.md#nodes"].startswith("# Nodes\n")
    table = chunks["docs/nodes.md#nodes/built-in"]
    assert "| Node type | Attributes |\n| --- | --- |\n" in table
    assert "| `fence` | - `content` - `language` `{ a \\| b }` |" in table
    # A cell may open with its fence (`* ```js`); a table opening with `---` has no header.
    assert "| `transform` | `(node) => \\| Node` |\n" in table
    assert "|  |  |\n| --- | --- |\n| Open source Full control. | Writer friendly |" in table
    assert "Warning: Careful\nNodes are not tags." in table
    assert "{% table %}\n- kept as written" in table  # (code is shown as written)
    assert "process=false" not in table
    shown = "\n".join(chunks.values()).split("\n")
    assert not [x for x, c in zip(shown, fenced_lines(shown), strict=True) if "{%" in x and not c]
    assert "Install the Ruby client." in chunks["docs/nodes.md#nodes/next-steps"]


def test_mdoc_files_are_pages(tmp_path: Path) -> None:
    docs = write_tree(
        tmp_path / "docs",
        {
            "guide/intro.mdoc": "# Intro\n\n{% partial file='_note.mdoc' /%}\n",
            "guide/_note.mdoc": "A note {% $missing %}shared by pages.\n",
        },
    )
    chunks = _chunks(build_bundle(docs, tmp_path / "idx"))
    # The partial a single page inlines is part of it, no page of its own (a `_` file).
    assert list(chunks) == ["guide/intro.mdoc#intro"]
    assert "A note shared by pages." in chunks["guide/intro.mdoc#intro"]


def test_liquid_and_hugo_pages_are_no_markdoc() -> None:
    assert not markdoc.is_markdoc("a.md", "{% if x %}a{% endif %}\n{{% /tab %}}\n")
    assert markdoc.is_markdoc("a.md", "{% callout %}\nx\n{% /callout %}\n")
    assert markdoc.is_markdoc("a.md", "# {% $markdoc.frontmatter.title %}\n")
    assert markdoc.is_markdoc("a.mdoc", "plain")


def test_a_partial_call_and_its_variables() -> None:
    found = call('  {% partial file="header.md" variables={sdk: "Ruby", version: 3} /%}')
    assert found is not None and found.file == "header.md"
    assert found.variables == {"sdk": "Ruby", "version": "3"}
    text = "---\nx: 1\n---\n{% $sdk %} {% $version %} {% $other %}\n"
    assert included(found, text) == ["  Ruby 3 {% $other %}"]
    assert call("{% partial /%}") is None and call("text {% partial file='a' /%}") is None


PIECES = st.sampled_from(
    [
        "{% table %}",
        "{% /table %}",
        "---",
        "* ",
        "- ",
        "  ",
        "```",
        "{% $markdoc.frontmatter.title %}",
        "{% $x %}",
        "# ",
        "{% #id .c %}",
        '{% callout type="note" title="T" %}',
        "{% tab label='a' %}",
        "{% colspan=2 %}",
        "|",
        "`",
        "\n",
        "",
    ]
)
TEXT = st.lists(st.one_of(PIECES, st.text(max_size=10)), max_size=40).map("".join)


@FUZZ
@given(TEXT)
def test_markdoc_reading_keeps_the_line_count(text: str) -> None:
    lines = text.split("\n")
    out = markdoc.read(lines, {"title": "T"})
    assert len(out) == len(lines)
    assert all("\n" not in x for x in out)
    code = fenced_lines(lines)
    assert [x for x, c in zip(out, code, strict=True) if c and "{%" not in x] == [
        x for x, c in zip(lines, code, strict=True) if c and "{%" not in x
    ]
    found = call(lines[0])
    if found is not None:
        included(found, text)
