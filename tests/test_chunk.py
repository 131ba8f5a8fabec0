"""Chunking rules, chunk ids and searchable text, on real files in a temporary docs folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from docsmcp.chunking.chunk import chunk_file
from docsmcp.chunking.levels import structural_levels
from docsmcp.model.chunk import Chunk
from docsmcp.model.text import slugify
from docsmcp.sources.corpus import load_corpus
from docsmcp_runtime.search.analyzer import AnalyzerConfig, analyze


def chunks_of(tmp_path: Path, text: str, name: str = "page.md", **strategy: object) -> list[Chunk]:
    docs = tmp_path / "docs"
    (docs / name).parent.mkdir(parents=True, exist_ok=True)
    (docs / name).write_text(text, encoding="utf-8")
    manifest = {"version": "1", "strategy": {"chunk_by": "h2", **strategy}}
    (docs / ".docs-mcp.json").write_text(json.dumps(manifest), encoding="utf-8")
    corpus = load_corpus(docs)
    assert not corpus.problems, corpus.problems
    (sf,) = [f for f in corpus.files if f.path == name]
    return chunk_file(sf)


def ids(chunks: list[Chunk]) -> list[str]:
    return [c.id for c in chunks]


def test_slug_rules() -> None:
    assert slugify("Create Many (bulk)!") == "create-many-bulk"
    assert slugify("  a -- b  ") == "a-b"
    assert slugify("update_many") == "updatemany"
    assert slugify("会话密钥") == slugify("会话密钥")  # stable
    assert slugify("会话密钥") != slugify("会话管理")  # distinct
    assert slugify("会话密钥").startswith("section-")
    assert slugify("") == "section"


def test_docs_mcp_ids_with_preamble_duplicates_and_parents(tmp_path: Path) -> None:
    text = (
        "intro\n\n# Auth\n\nabout auth\n\n## Login\n\none\n\n## Login\n\ntwo\n\n"
        "# Billing\n\n## Retry\n\nthree\n"
    )
    assert ids(chunks_of(tmp_path, text)) == [
        "page.md#_preamble",
        "page.md#auth",
        "page.md#auth/login",
        "page.md#auth/login-2",
        "page.md#billing/retry",
    ]


def test_duplicate_parents_carry_their_suffix(tmp_path: Path) -> None:
    text = "# Examples\n\n## Setup\n\na\n\n# Examples\n\n## Setup\n\nb\n"
    assert ids(chunks_of(tmp_path, text)) == [
        "page.md#examples/setup",
        "page.md#examples-2/setup",
    ]


def test_shallower_heading_always_starts_a_chunk(tmp_path: Path) -> None:
    # With chunk_by h3, an h1 and h2 with their own text are never swallowed by the h3 before.
    text = "# A\n\nalpha\n\n### a1\n\nx\n\n## B\n\nbeta\n\n### b1\n\ny\n\n# C\n\ngamma\n"
    chunks = chunks_of(tmp_path, text, chunk_by="h3")
    assert ids(chunks) == [
        "page.md#a",
        "page.md#a/a1",
        "page.md#a/b",
        "page.md#a/b/b1",
        "page.md#c",
    ]
    assert chunks[2].text == "## B\n\nbeta"
    assert chunks[4].text == "# C\n\ngamma"


def test_a_page_that_skips_levels_splits_at_its_top_sections(tmp_path: Path) -> None:
    """Starlette's responses.md (no h1, each response class a `###`, a `##` at the end) was one
    7 KB chunk under chunk_by h2: a heading nothing but the title encloses is a top section
    whatever its markup level, and what it encloses stays in it (chunking/levels.py)."""
    text = (
        "Response classes.\n\n### Response\n\nbase\n\n#### Set Cookie\n\ncookie\n\n"
        "### StreamingResponse\n\nstream\n\n## Third party responses\n\nsse\n\n"
        "#### EventSourceResponse\n\nevents\n"
    )
    chunks = chunks_of(tmp_path, text)
    assert ids(chunks) == [
        "page.md#_preamble",
        "page.md#response",
        "page.md#streamingresponse",
        "page.md#third-party-responses",
    ]
    assert chunks[1].text == "### Response\n\nbase\n\n#### Set Cookie\n\ncookie"
    assert chunks[1].level == 3  # the level as written
    # Under a title: `# T` then `### X` splits at X; a page without skips keeps its levels.
    assert ids(chunks_of(tmp_path, "# T\n\nt\n\n### X\n\nx\n")) == ["page.md#t", "page.md#t/x"]
    kept = "# T\n\nt\n\n## S\n\ns\n\n### D\n\nd\n"
    assert ids(chunks_of(tmp_path, kept)) == ["page.md#t", "page.md#t/s"]


def test_a_sole_first_heading_is_the_title(tmp_path: Path) -> None:
    """mdBook chapters open with `## What Is Ownership?` and cut at `###`: with the `##` as the
    page's title, chunk_by h2 splits at the `###` (the Rust book was one 14 KB chunk a page)."""
    text = "## What Is Ownership?\n\nintro\n\n### The Stack\n\ns\n\n### Rules\n\nr\n"
    assert ids(chunks_of(tmp_path, text)) == [
        "page.md#what-is-ownership",
        "page.md#what-is-ownership/the-stack",
        "page.md#what-is-ownership/rules",
    ]
    # Two headings at the shallowest level: neither is a title.
    assert ids(chunks_of(tmp_path, "## A\n\na\n\n### a1\n\nx\n\n## B\n\nb\n")) == [
        "page.md#a",
        "page.md#b",
    ]


def test_structural_levels() -> None:
    assert structural_levels([1, 2, 3, 2, 3, 4]) == [1, 2, 3, 2, 3, 4]
    assert structural_levels([2, 3, 3, 4, 3]) == [1, 2, 2, 3, 2]  # a sole first `##`: the title
    assert structural_levels([2, 2, 3]) == [2, 2, 3]
    assert structural_levels([3, 4, 3, 2, 4]) == [2, 3, 2, 2, 3]
    assert structural_levels([1, 3, 5, 3]) == [1, 2, 3, 2]
    assert structural_levels([4, 2, 4, 5]) == [2, 2, 3, 4]
    assert structural_levels([]) == []


def test_heading_without_text_joins_the_next_section(tmp_path: Path) -> None:
    chunks = chunks_of(tmp_path, "# Links\n\n## Overview\n\nAll about links.\n")
    assert ids(chunks) == ["page.md#links/overview"]
    assert chunks[0].text == "# Links\n\n## Overview\n\nAll about links."
    assert chunks[0].breadcrumb == "page.md > Links > Overview"
    assert (chunks[0].line_start, chunks[0].line_end) == (1, 5)


def test_chunk_by_file_and_h1(tmp_path: Path) -> None:
    text = "# T\n\nt\n\n## S\n\ns\n"
    assert ids(chunks_of(tmp_path, text, chunk_by="file")) == ["page.md"]
    assert ids(chunks_of(tmp_path, text, chunk_by="h1")) == ["page.md#t"]


def test_inline_hint_changes_the_split_level(tmp_path: Path) -> None:
    text = '<!-- mcp_chunking_hint: {"chunk_by": "h3"} -->\n# T\n\n## S\n\ns\n\n### D\n\nd\n'
    assert ids(chunks_of(tmp_path, text)) == ["page.md#t/s", "page.md#t/s/d"]


def test_oversize_section_splits_at_finer_headings_then_blocks(tmp_path: Path) -> None:
    para = "word " * 60  # 300 characters
    text = (
        f"## Big\n\n{para}\n\n### One\n\n{para}\n\n{para}\n\n{para}\n\n### Two\n\n{para}\n\n"
        f"## Small\n\nok\n"
    )
    chunks = chunks_of(tmp_path, text, max_chunk_size=700)
    assert ids(chunks) == [
        "page.md#big",
        "page.md#big/one",
        "page.md#big/one-part-2",
        "page.md#big/two",
        "page.md#small",
    ]
    assert chunks[1].breadcrumb == "page.md > Big > One"
    assert chunks[2].heading == "One"
    assert all(len(c.text) <= 700 for c in chunks)


def test_an_oversize_section_of_no_text_of_its_own_joins_its_first_subsection(
    tmp_path: Path,
) -> None:
    """A section split at finer headings whose only block is its heading is no chunk of its
    own (Ant Design's 49 `## Examples` chunks, React Router's titles over a mode badge: each an
    11-character hit); its heading opens its first subsection's chunk."""
    para = "word " * 60
    text = (
        f"# Button\n\nIntro.\n\n## Examples\n\n### Basic\n\n{para}\n\n{para}\n\n"
        f"### Sizes\n\n{para}\n\n{para}\n\n## API\n\nProps.\n"
    )
    chunks = chunks_of(tmp_path, text, max_chunk_size=700)
    assert ids(chunks) == [
        "page.md#button",
        "page.md#button/examples/basic",
        "page.md#button/examples/sizes",
        "page.md#button/api",
    ]
    assert chunks[1].text.startswith("## Examples\n\n### Basic\n\nword")
    assert chunks[1].breadcrumb == "page.md > Button > Examples > Basic"


def test_code_blocks_and_list_items_are_never_cut(tmp_path: Path) -> None:
    code = "\n".join(f"line_{i} = {i}" for i in range(100))  # ~1300 characters
    items = "\n".join(f"- item {i} " + "x" * 80 for i in range(12))
    text = f"## S\n\n```python\n{code}\n```\n\n{items}\n"
    chunks = chunks_of(tmp_path, text, max_chunk_size=400)
    assert any(f"```python\n{code}\n```" in c.text for c in chunks)  # whole, though over the limit
    item_lines = [line for c in chunks for line in c.text.splitlines() if line.startswith("- item")]
    assert len(item_lines) == 12  # each item intact, none duplicated
    assert all(c.text.count("```") in (0, 2) for c in chunks)
    assert [c.id for c in chunks][:2] == ["page.md#s", "page.md#s-part-2"]


def test_tables_split_between_rows_and_repeat_the_header(tmp_path: Path) -> None:
    rows = "\n".join(f"| `field_{i}` | string | description of field {i} |" for i in range(30))
    text = f"## Fields\n\n| Name | Type | Description |\n|---|---|---|\n{rows}\n"
    chunks = chunks_of(tmp_path, text, max_chunk_size=600)
    assert len(chunks) > 2
    for c in chunks:
        table_lines = [ln for ln in c.text.splitlines() if ln.startswith("|")]
        assert table_lines[:2] == ["| Name | Type | Description |", "|---|---|---|"]
    body_rows = [ln for c in chunks for ln in c.text.splitlines() if "`field_" in ln]
    assert body_rows == rows.splitlines()  # every row once, in order
    assert "Name" in chunks[1].search_text  # the header is searchable in every part


def test_a_part_id_never_repeats_a_later_heading(tmp_path: Path) -> None:
    """win32's factoid pages: a table under "Factoids" splits in parts (`factoids-part-2`),
    then comes "## Factoids, part 2" with the same slug: every id stays unique (the build
    refused the page as duplicate ids)."""
    rows = "\n".join(f"| U+{i:04X} | value {i} |" for i in range(40))
    table = f"| Factoid | Value |\n|---|---|\n{rows}\n"
    text = f"# Factoids\n\n## Factoids\n\n{table}\n## Factoids, part 2\n\n{table}"
    chunks = chunks_of(tmp_path, text, max_chunk_size=600)
    assert len(ids(chunks)) == len(set(ids(chunks))), ids(chunks)
    assert "page.md#factoids/factoids-part-2" in ids(chunks)  # the heading keeps its slug
    assert "page.md#factoids/factoids-part-2-2" in ids(chunks)  # the part's, made unique
    by_id = {c.id: c for c in chunks}
    assert by_id["page.md#factoids/factoids-part-2"].heading == "Factoids, part 2"
    assert by_id["page.md#factoids/factoids-part-2-2"].heading == "Factoids"


def test_tiny_chunks_merge_into_the_previous_chunk(tmp_path: Path) -> None:
    text = "## Long\n\n" + "text " * 40 + "\n\n## Tiny\n\nx\n\n## Next\n\n" + "more " * 40 + "\n"
    chunks = chunks_of(tmp_path, text, min_chunk_size=50)
    assert ids(chunks) == ["page.md#long", "page.md#next"]
    assert "## Tiny\n\nx" in chunks[0].text
    # ...but never across files and never a heading shallower than the split level.
    text2 = "## A\n\n" + "a " * 60 + "\n\n# Top\n\nt\n"
    assert ids(chunks_of(tmp_path, text2, name="other.md", min_chunk_size=50)) == [
        "other.md#a",
        "other.md#top",
    ]


def test_mdx_imports_jsx_and_admonitions(tmp_path: Path) -> None:
    text = (
        "---\ntitle: Guide\n---\nimport Tabs from '@theme/Tabs';\nimport {\n  A,\n} from 'x';\n"
        'export const meta = {a: 1};\n\n# Guide\n\n## Install\n\n<Tabs>\n<TabItem value="npm">\n\n'
        "Run the **installer** now.\n\n</TabItem>\n</Tabs>\n\n:::warning[Work in Progress]\n"
        "Beta only.\n:::\n\nSee <Tooltip content={t.x}>state channel</Tooltip> docs.\n"
    )
    (chunk,) = chunks_of(tmp_path, text, name="guide.mdx")
    assert chunk.id == "guide.mdx#guide/install"
    assert "import" not in chunk.text and "export" not in chunk.text
    # The display text reads without dialect syntax: the tab keeps its label, the admonition
    # its kind and title.
    assert "<TabItem" not in chunk.text and "<Tabs>" not in chunk.text and ":::" not in chunk.text
    assert "\nnpm\n" in chunk.text and "Warning: Work in Progress\nBeta only." in chunk.text
    assert "Run the installer now." in chunk.search_text
    assert "Warning: Work in Progress" in chunk.search_text
    assert "Beta only." in chunk.search_text
    assert "state channel" in chunk.search_text
    assert "Tooltip" not in chunk.search_text and "TabItem" not in chunk.search_text


def test_vitepress_containers(tmp_path: Path) -> None:
    """VitePress `::: details Title` reads as its label; `::: code-group` only groups code
    blocks (tabs labelled by their fences) and leaves no line of its own."""
    text = (
        "# Build\n\n::: details Why a library?\nTo share code.\n:::\n\n::: code-group\n\n"
        "```sh [npm]\nnpm run build\n```\n\n```sh [pnpm]\npnpm build\n```\n\n:::\n"
    )
    (chunk,) = chunks_of(tmp_path, text, name="build.md")
    assert ":::" not in chunk.text and "code-group" not in chunk.search_text.lower()
    assert "Details: Why a library?\nTo share code." in chunk.text
    assert "npm run build" in chunk.text and "pnpm build" in chunk.text


def test_nested_containers_take_more_colons(tmp_path: Path) -> None:
    """A container holding another has more colons (`:::: details` around `::: tip`: vite's
    guide/index.md); its marker lines read as its label and as nothing, like `:::`'s."""
    text = (
        "# Start\n\n:::: details Using create vite with options\n\nRun it.\n\n"
        "::: tip Note\nAlso works.\n:::\n\n::::\n"
    )
    (chunk,) = chunks_of(tmp_path, text, name="start.md")
    assert ":::" not in chunk.text
    assert "Details: Using create vite with options" in chunk.text
    assert "Tip: Note\nAlso works." in chunk.text


def test_vitepress_tabs_container_labels_its_tabs(tmp_path: Path) -> None:
    """vitepress-plugin-tabs (vitest's docs): `::: tabs` holds tabs opened by `== label`; the
    labels read as labels, the container as nothing, and `::: tabs` is no mkdocstrings
    `::: module` directive (the build warned it found no source for "tabs")."""
    text = "# Panel\n\n::: tabs\n== bottom\nAt the bottom.\n== right\nAt the right.\n:::\n"
    (chunk,) = chunks_of(tmp_path, text, name="panel.md")
    assert ":::" not in chunk.text and "==" not in chunk.text and "Tabs" not in chunk.text
    assert "bottom\nAt the bottom." in chunk.text and "right\nAt the right." in chunk.text
    assert "mkdocstrings" not in chunk.text


def test_frontmatter_title_and_line_numbers(tmp_path: Path) -> None:
    text = "---\ntitle: Configuration\n---\n\nIntro text.\n\n## Options\n\nSet it.\n"
    chunks = chunks_of(tmp_path, text)
    assert ids(chunks) == ["page.md#_preamble", "page.md#options"]
    assert chunks[0].heading == "Configuration"
    assert chunks[1].breadcrumb == "page.md > Configuration > Options"
    assert (chunks[1].line_start, chunks[1].line_end) == (7, 9)


def test_frontmatter_after_blank_lines_is_frontmatter(tmp_path: Path) -> None:
    """Biome's getting-started page opens with a blank line, then its frontmatter (Astro reads
    it): its YAML was the page's title and first chunk. A `---` that opens no mapping stays a
    thematic break."""
    text = "\n---\ntitle: Getting Started\n---\n\nIntro text.\n\n## Install\n\nRun it.\n"
    chunks = chunks_of(tmp_path, text)
    assert ids(chunks) == ["page.md#_preamble", "page.md#install"]
    assert chunks[0].heading == "Getting Started" and "title:" not in chunks[0].text
    assert (chunks[1].line_start, chunks[1].line_end) == (8, 10)
    rule = chunks_of(tmp_path, "\n---\n\nSome text.\n\n---\n\nMore.\n")
    assert "Some text." in rule[0].text


def test_toml_frontmatter_of_hugo_and_zola(tmp_path: Path) -> None:
    """Zola's pages (and Hugo's, often) open with `+++` TOML: it was indexed as text, every
    page titled by its file name (180 pages); an invalid block says where."""
    text = '+++\ntitle = "Search"\nweight = 100\n[extra]\nrepo = "x"\n+++\n'
    text += "\nIntro.\n\n## Index\n\nBuild it.\n"
    chunks = chunks_of(tmp_path, text)
    assert ids(chunks) == ["page.md#_preamble", "page.md#index"]
    assert chunks[0].heading == "Search" and "+++" not in chunks[0].text
    assert (chunks[1].line_start, chunks[1].line_end) == (10, 12)
    docs = tmp_path / "bad"
    docs.mkdir()
    (docs / "bad.md").write_text("+++\ntitle = \n+++\n# Bad\n", encoding="utf-8")
    (problem,) = load_corpus(docs).problems
    assert (problem.path, problem.line) == ("bad.md", 1)
    assert problem.message.startswith("invalid TOML frontmatter: Invalid value")


def test_zola_escapes_show_what_the_site_shows(tmp_path: Path) -> None:
    text = '## Sitemap\n\n```jinja\nSitemap: {{/* get_url(path="s.xml") */}}\n{%/* if x */%}\n```\n'
    (chunk,) = chunks_of(tmp_path, text)
    assert 'Sitemap: {{ get_url(path="s.xml") }}\n{% if x %}' in chunk.text


def test_searchable_text_is_block_aware(tmp_path: Path) -> None:
    text = (
        "## Ops\n\n| Method | Returns |\n|---|---|\n| `links.upsert` | Link |\n\n"
        "- first item\n- second item\n\n```ts\nconst x = client.createMany();\n```\n"
    )
    (chunk,) = chunks_of(tmp_path, text)
    lines = chunk.search_text.splitlines()
    assert {"Method", "Returns", "links.upsert", "Link", "first item", "second item"} <= set(lines)
    assert "const x = client.createMany();" in lines
    config = AnalyzerConfig()
    # A bigram never spans two cells: "upsert link" is not a phrase of this chunk.
    bigrams = [b for line in lines for b in analyze(line, config).bigrams]
    assert "upsert link" not in bigrams
    assert "create many" in bigrams


@pytest.mark.parametrize("name", ["my guide/C# tips.md", "a b/ü.md"])
def test_unusual_paths_keep_their_exact_text(tmp_path: Path, name: str) -> None:
    chunks = chunks_of(tmp_path, "## Setup\n\nDo it.\n", name=name)
    assert ids(chunks) == [f"{name}#setup"]
    assert chunks[0].path == name
