"""Markdown dialects: mkdocs-material admonitions, content tabs split per language, attribute
lists, abbreviations and reference links; on the example corpus and real docs extracts."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from conftest import EXAMPLE_DOCS, build_bundle, run_docsmcp
from docsmcp.chunking.chunk import chunk_file
from docsmcp.sources.corpus import load_corpus
from docsmcp.sources.formats.markdown.dialects import rewrite
from docsmcp.sources.formats.markdown.tab_languages import tab_language
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp_client import McpSession

FIXTURES = Path(__file__).parent / "fixtures"
DOCUSAURUS_TABS = FIXTURES / "docusaurus-language-tabs" / "docs"
DIALECT_SYNTAX = (
    "<TabItem",
    "</TabItem>",
    "<Tabs",
    "</Tabs>",
    "LanguageTabs>",
    "!!!",
    "???",
    "===",
)


def _page(tmp_path: Path, name: str, text: str) -> list:
    """The chunks of one page `name` holding `text`, alone in a docs folder."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / name).write_text(text, encoding="utf-8")
    return _chunks(docs, name)


def _chunks(docs: Path, path: str) -> list:
    corpus = load_corpus(docs)
    assert not corpus.problems, corpus.problems
    (sf,) = [f for f in corpus.files if f.path == path]
    return chunk_file(sf)


# -- the language-filter leak on the example corpus ---------------------------------------------


@pytest.fixture(scope="module")
def example(example_bundle: Path) -> Path:
    return example_bundle  # the session's build of the example corpus (read only here)


def test_a_language_filter_sees_only_its_tab_of_a_guide(example: Path) -> None:
    with McpSession(example) as s:
        hits = s.search(query="retry with backoff", language="python")["hits"]
        texts = [s.get_doc(h["chunk_id"]) for h in hits]
        ts_hits = s.search(query="retry with backoff", language="typescript")["hits"]
    top = hits[0]
    assert top["chunk_id"].startswith("guides/errors.mdx#error-handling/retries")
    for hit, text in zip(hits, texts, strict=True):
        assert "new Acme({" not in text and "maxAttempts" not in text, hit["chunk_id"]
        assert "TabItem" not in text and "</Tabs>" not in text, hit["chunk_id"]
        assert hit["metadata"].get("language") in (None, "python"), hit
    python_tab = next(h for h in hits if h["chunk_id"].endswith("/retries/python"))
    assert python_tab["metadata"] == {
        "language": "python",
        "role": "guide",
        "scope": "global-guide",
    }
    assert "retries=RetryConfig(max_attempts=5" in texts[hits.index(python_tab)]
    ts_ids = [h["chunk_id"] for h in ts_hits]
    assert "guides/errors.mdx#error-handling/retries/typescript" in ts_ids
    assert not any(i.endswith("/python") for i in ts_ids)


def test_the_guide_text_outside_the_tabs_stays_one_chunk() -> None:
    chunks = {c.id: c for c in _chunks(EXAMPLE_DOCS, "guides/errors.mdx")}
    parent = chunks["guides/errors.mdx#error-handling/retries"]
    assert parent.text == (
        "## Retries\nRetries use exponential backoff with jitter and stop after `max_attempts`."
    )
    assert dict(parent.metadata) == {"role": "guide", "scope": "global-guide"}
    ts = chunks["guides/errors.mdx#error-handling/retries/typescript"]
    assert ts.text.startswith("TypeScript\n\n```typescript\n")
    assert ts.heading == "TypeScript"
    assert ts.breadcrumb == "guides/errors.mdx > Error handling > Retries > TypeScript"
    assert (ts.line_start, ts.line_end) == (33, 37)


# -- a real Docusaurus site with language tabs ----------------------------------------------------


@pytest.fixture(scope="module")
def docusaurus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_bundle(DOCUSAURUS_TABS, tmp_path_factory.mktemp("docusaurus") / "idx")


def test_real_docusaurus_language_tabs_are_split_and_filtered(docusaurus: Path) -> None:
    meta = json.loads((docusaurus / "metadata.json").read_text())
    # Only the tabs name a language: a filter keeps the pages' other text (include_unset).
    assert meta["taxonomy"]["language"] == {
        "description": "Filter results by language.",
        "vector_collapse": False,
        "values": ["go", "python", "typescript"],
        "include_unset": True,
    }
    assert meta["requires"] == ["impact-codes", "include-unset", "narrow-index"]
    with McpSession(docusaurus) as s:
        for language in ("go", "python", "typescript"):
            hits = s.search(query="retrieve messages from a topic", language=language, limit=50)
            own = [h for h in hits["hits"] if h["metadata"].get("language") == language]
            assert own and all(h["chunk_id"].endswith("/" + language) for h in own), language
            assert all(h["metadata"].get("language") in (None, language) for h in hits["hits"])
            assert any("language" not in h["metadata"] for h in hits["hits"])
        text = s.get_doc("hcs-10/base-client.mdx#hcs-10-base-client/core-functionality/go")
    assert "```go" in text and "```typescript" not in text and "```python" not in text
    assert not any(mark in text for mark in DIALECT_SYNTAX), text


def test_real_docusaurus_pages_read_without_tab_markup() -> None:
    for path in ("hcs-10/base-client.mdx", "hcs-11/api.mdx"):
        chunks = _chunks(DOCUSAURUS_TABS, path)
        for c in chunks:
            assert not any(mark in c.text for mark in DIALECT_SYNTAX), (c.id, c.text)
        untabbed = [c for c in chunks if not dict(c.metadata).get("language")]
        assert untabbed and all("```go" not in c.text for c in untabbed)


# -- non-language tabs stay together, labelled --------------------------------------------------


def test_tabs_that_are_not_languages_stay_in_their_section(tmp_path: Path) -> None:
    text = (
        '# Install\n\n## Get it\n\n<Tabs groupId="pm">\n  <TabItem value="npm" label="npm">\n\n'
        '```bash\nnpm i acme\n```\n\n  </TabItem>\n  <TabItem value="yarn" label="yarn">\n\n'
        "```bash\nyarn add acme\n```\n\n  </TabItem>\n</Tabs>\n\n"
        '=== "Python 3.9 and above"\n\n    ```python\n    x: list[int]\n    ```\n\n'
        '=== "Python 3.10 and above"\n\n    ```python\n    x: int | None\n    ```\n'
    )
    (chunk,) = _page(tmp_path, "install.mdx", text)
    # No language: only the page's own role (an install page is a guide).
    assert chunk.id == "install.mdx#install/get-it" and chunk.metadata == (("role", "guide"),)
    assert "\nnpm\n" in chunk.text and "\nyarn\n" in chunk.text
    assert "Python 3.9 and above\n\n```python\nx: list[int]\n```" in chunk.text
    assert not any(mark in chunk.text for mark in DIALECT_SYNTAX)


def test_one_line_tabs_are_split_per_language(tmp_path: Path) -> None:
    """`<TabItem …>text</TabItem>` on one line, tab after tab with no blank line between them
    (one paragraph to markdown), still gives each language its own chunk."""
    text = (
        '# Setup\n\n## Install\n\nPick your client.\n\n<Tabs groupId="language">\n'
        '<TabItem value="python" label="Python">Run `pip install acme` first.</TabItem>\n'
        '<TabItem value="go" label="Go">Run `go get acme.dev/acme`\nthen import it.</TabItem>\n'
        "</Tabs>\n"
    )
    chunks = {c.id: c for c in _page(tmp_path, "setup.mdx", text)}
    assert set(chunks) == {
        "setup.mdx#setup/install",
        "setup.mdx#setup/install/python",
        "setup.mdx#setup/install/go",
    }
    python, go = chunks["setup.mdx#setup/install/python"], chunks["setup.mdx#setup/install/go"]
    assert dict(python.metadata) == {"language": "python", "role": "guide"}
    assert python.text == "Python: Run `pip install acme` first."
    assert dict(go.metadata) == {"language": "go", "role": "guide"}
    assert go.text == "Go: Run `go get acme.dev/acme`\nthen import it."
    assert (go.line_start, go.line_end) == (9, 10)
    assert "pip" not in chunks["setup.mdx#setup/install"].text
    for c in chunks.values():
        assert not any(mark in c.text for mark in DIALECT_SYNTAX), c.text


def test_code_blocks_after_language_tabs_keep_the_code_table_in_row_order(
    tmp_path: Path,
) -> None:
    """A section's code block after its language tabs belongs to the section's row, which
    comes before the tabs' rows: React Native's guides wrote code rows 79, 80, 79 and the
    bundle failed `verify` (and `get_code_examples` called it damaged)."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "guide.mdx").write_text(
        "# Guide\n\n## Create the controller\n\nPick a language.\n\n"
        '<Tabs groupId="language">\n<TabItem value="objc">\n\n```objc\n#import "A.h"\n```\n\n'
        '</TabItem>\n<TabItem value="swift">\n\n```swift\nimport UIKit\n```\n\n</TabItem>\n'
        "</Tabs>\n\nThen build it:\n\n```sh\nxcodebuild\n```\n",
        encoding="utf-8",
    )
    out = build_bundle(docs, tmp_path / "idx")
    code = pq.read_table(out / "code.parquet").to_pylist()
    assert [r["row"] for r in code] == sorted(r["row"] for r in code)
    assert sorted(r["language"] for r in code) == ["bash", "objc", "swift"]
    assert run_docsmcp("verify", out).returncode == 0


def test_explicit_heading_ids_leave_titles_and_keep_ids(tmp_path: Path) -> None:
    """`## Title {#id}` (Docusaurus, mdBook): the title and text read without it and the id is
    the heading's slug in the chunk id (issue 27: it was `title-id`, `guide-guide/...`; links to
    `#id` resolve: test_xref.py)."""
    text = "# Guide {#guide}\n\nIntro.\n\n## Configure the client {#configure}\n\nSet `timeout`.\n"
    chunks = {c.id: c for c in _page(tmp_path, "a.md", text)}
    c = chunks["a.md#guide/configure"]
    assert c.heading == "Configure the client"
    assert c.breadcrumb == "a.md > Guide > Configure the client"
    assert c.text == "## Configure the client\n\nSet `timeout`."
    assert chunks["a.md#guide"].text == "# Guide\n\nIntro."


def test_react_comment_heading_ids(tmp_path: Path) -> None:
    """react.dev writes heading ids as JSX comments, `## Rendering lists {/*rendering-lists*/}`:
    the id, not words of the title (it was `rendering-lists-rendering-lists`)."""
    text = "# Lists\n\n## Rendering data from arrays {/*rendering-data*/}\n\nUse `map()`.\n"
    chunks = {c.id: c for c in _page(tmp_path, "a.md", text)}
    c = chunks["a.md#lists/rendering-data"]
    assert c.heading == "Rendering data from arrays"
    assert c.text.endswith("## Rendering data from arrays\n\nUse `map()`.")
    assert "{/*" not in c.text


def test_escaped_mdx_heading_ids(tmp_path: Path) -> None:
    """Rspress (and Docusaurus 3's MDX) write an explicit id escaped, `## MDX fragments
    \\{#fragments}`: the id, and no backslash ending the title (Rspress' docs: 21 headings)."""
    text = "# Use MDX\n\n## `:::` Syntax \\{#three-colon}\n\nWrite a container.\n"
    chunks = {c.id: c for c in _page(tmp_path, "a.mdx", text)}
    c = chunks["a.mdx#use-mdx/three-colon"]
    assert c.heading == "::: Syntax"
    assert c.text.endswith("## `:::` Syntax\n\nWrite a container.")


def test_bracket_heading_ids(tmp_path: Path) -> None:
    """Fumadocs and Nextra write heading ids in brackets, `## Revalidate on Focus
    [#revalidate-on-focus]` (SWR's site), with or without a space: the id, not words of the
    title (it was `revalidate-on-focus-revalidate-on-focus`); `[#n]` inside a title stays."""
    text = (
        "# Revalidation\n\n## Revalidate on Focus [#on-focus]\n\nRefetch.\n\n"
        "## Revalidate on Mount[#on-mount]\n\nOnce.\n\n## Issue [#12] and more\n\nText.\n"
    )
    chunks = {c.id: c for c in _page(tmp_path, "a.mdx", text)}
    c = chunks["a.mdx#revalidation/on-focus"]
    assert c.heading == "Revalidate on Focus"
    assert c.text.endswith("## Revalidate on Focus\n\nRefetch.")
    assert chunks["a.mdx#revalidation/on-mount"].heading == "Revalidate on Mount"
    assert chunks["a.mdx#revalidation/issue-12-and-more"].heading == "Issue [#12] and more"


def test_tab_language_names() -> None:
    assert tab_language("Python") == "python"
    assert tab_language("TypeScript SDK") == "typescript"
    assert tab_language("Node.js", "node") == "javascript"
    assert tab_language("Go", "golang") == "go"
    assert tab_language("Kotlin", "kt") == "kotlin"
    assert tab_language("x", "zig", "code-language") == "zig"  # the set says: languages
    for label in ("npm", "yarn", "Sandbox", "macOS", "JSON", "cURL", "Python 3.10 and above"):
        assert tab_language(label, label.lower()) == "", label


# -- mkdocs-material ------------------------------------------------------------------------------


def test_mkdocs_material_tabs_split_per_language(tmp_path: Path) -> None:
    text = (
        "# Page\n\n## Call it\n\nIntro.\n\n"
        '=== "Python"\n\n    ```python\n    client.call()\n    ```\n\n'
        "    !!! note\n        Needs Python 3.9.\n\n"
        '=== "Go"\n\n    ```go\n    client.Call()\n    ```\n\nAfter the tabs.\n'
    )
    chunks = {c.id: c for c in _page(tmp_path, "page.md", text)}
    assert list(chunks) == [
        "page.md#page/call-it",
        "page.md#page/call-it/python",
        "page.md#page/call-it/go",
    ]
    assert chunks["page.md#page/call-it"].text == "# Page\n\n## Call it\n\nIntro.\nAfter the tabs."
    py = chunks["page.md#page/call-it/python"]
    assert py.text == "Python\n\n```python\nclient.call()\n```\n\nNote\nNeeds Python 3.9."
    assert dict(py.metadata) == {"language": "python", "role": "reference"}
    assert "Needs Python 3.9." in py.search_text and "client.call()" in py.search_text


def test_admonitions_attribute_lists_abbreviations_and_reference_links() -> None:
    lines = [
        "## Models { #models .api }",
        "",
        '!!! tip "Use `model_validate`"',
        "    Validate [`dicts`][pydantic.BaseModel.model_validate] with it.",
        "",
        "    ??? example",
        "        ```py",
        "        Model(x=1)  # [a][b] stays",
        "        ```",
        "",
        "A paragraph with an id.",
        "{: #para }",
        "*[HTML]: Hyper Text Markup Language",
        "See [the guide][guide] and [`x[0][1]`] and `y[0][1]`.",
        "",
        "[guide]: https://example.com/guide",
    ]
    out = rewrite(lines)
    assert len(out.display) == len(lines) == len(out.parse)
    assert out.parse[0] == "## Models {#models}"  # the anchor links reach, and the chunk id
    assert out.display[:10] == [
        "## Models",
        "",
        "Tip: Use `model_validate`",
        "Validate `dicts` with it.",
        "",
        "Example",
        "```py",
        "Model(x=1)  # [a][b] stays",
        "```",
        "",
    ]
    assert out.parse[2] == "Tip: Use `model_validate`\\"
    assert out.display[11] == ""
    assert out.display[12] == "HTML: Hyper Text Markup Language"
    # A defined reference shows its URL (a chunk seldom holds the page's definitions); code
    # spans are kept.
    assert out.display[13] == (
        "See [the guide](https://example.com/guide) and [`x[0][1]`] and `y[0][1]`."
    )
    assert out.tabs == ()


def test_github_alerts_read_as_their_label_and_reference_links_show_their_url() -> None:
    """Electron's API pages: `> [!NOTE]` 305 times shown as written, and 460 `[text][label]`
    links whose definitions, at the page's end, no chunk holds."""
    lines = [
        "> [!NOTE]",
        "> The `ready` event fires once.",
        "",
        ">  [!warning]  Check your work ",
        "- > [!TIP]",
        "Call [`app.quit()`][quit] or see [Apple's docs][Activity  Type] or [Collapsed][].",
        "Undefined [text][nope]; `[code][quit]`; [spaced][spaced].",
        "",
        "```md",
        "> [!NOTE]",
        "```",
        "",
        "[quit]: app.md#appquit",
        "[activity type]: https://developer.apple.com/x 'Title'",
        "[collapsed]: <./a.md>",
        "[spaced]: <a b.md>",
    ]
    out = rewrite(lines)
    assert out.display[:7] == [
        "> Note:",
        "> The `ready` event fires once.",
        "",
        ">  Warning: Check your work",  # (OpenTelemetry: 59 titled alerts)
        "- > [!TIP]",  # (a list item holding the quote: not an alert GitHub shows)
        "Call [`app.quit()`](app.md#appquit) or see [Apple's docs](https://developer.apple.com/x)"
        " or [Collapsed](./a.md).",
        "Undefined text; `[code][quit]`; [spaced][spaced].",
    ]
    assert out.display[9] == "> [!NOTE]"  # in code: as written
    # markdown-it-toc's marker (VitePress): the table of contents, no words of the page
    assert rewrite(["# T", "[[toc]]", "text [[x]]"]).display == ["# T", "", "text [[x]]"]
    assert out.parse[:7] == out.display[:7]


def test_an_admonition_holding_two_blank_lines_ends_where_its_indent_does(tmp_path: Path) -> None:
    """A code sample in an admonition may hold two blank lines in a row (PEP 8 between a class
    and its imports): mkdocs keeps reading the admonition, as the indent says. Ended there, the
    rest of the sample stayed indented, its closing fence did not close, and every heading
    after it was code (five sections of pydantic's concepts/fields.md were lost that way)."""
    text = (
        "# Fields\n\n## Deprecated fields\n\nIntro.\n\n"
        '!!! warning "In validators"\n    Ignore it:\n\n    ```python\n    import warnings\n\n\n'
        "    class Model:\n        x: int\n    ```\n\n"
        "    ??? example\n        Nested, after the two blank lines.\n\n"
        "## The computed_field decorator\n\nComputed fields are serialized.\n\n"
        "1. A step.\n\n    !!! note\n        In a list item.\n\n"
        "## Last\n\nThe end.\n"
    )
    chunks = {c.id: c for c in _page(tmp_path, "page.md", text)}
    assert list(chunks) == [
        "page.md#fields/deprecated-fields",
        "page.md#fields/the-computedfield-decorator",
        "page.md#fields/last",
    ]
    first = chunks["page.md#fields/deprecated-fields"].text
    assert "```python\nimport warnings\n\n\nclass Model:\n    x: int\n```" in first
    assert "Example\nNested, after the two blank lines." in first
    # In a list item: labelled, its label and body one level in (at the item's own indent).
    listed = chunks["page.md#fields/the-computedfield-decorator"].text
    assert "\n    Note\n    In a list item." in listed


def test_tabs_and_admonitions_in_a_list_item_stay_in_it(tmp_path: Path) -> None:
    """pydantic's validators.md: content tabs inside a list item, then an admonition holding more
    tabs. The labels took column 0, which ended the list: the tab bodies, still indented, read
    as indented code, and the admonition after them was never found (`??? example` was shown)."""
    text = (
        "# Validators\n\n## Field validators\n\n* **After** validators run last.\n\n"
        '    === "Annotated pattern"\n\n        ```python\n        x = 1\n        ```\n\n'
        '    === "Decorator"\n\n        ```python\n        y = 2\n        ```\n\n'
        '    ??? example "Example mutating the value"\n        Doubling it.\n\n'
        '        === "Decorator"\n\n            ```python\n            z = 3\n            ```\n\n'
        "## Next\n\nThe end.\n"
    )
    chunks = {c.id: c for c in _page(tmp_path, "page.md", text)}
    text = chunks["page.md#validators/field-validators"].text
    assert "???" not in text and "===" not in text
    assert "\n    Annotated pattern\n\n    ```python\n    x = 1\n    ```" in text
    assert "\n    Example mutating the value\n    Doubling it." in text
    assert "\n    Decorator\n\n    ```python\n    z = 3\n    ```" in text
    assert list(chunks) == ["page.md#validators/field-validators", "page.md#validators/next"]


def test_template_lines_leave_nothing() -> None:
    """A line that is one template expression or tag (mkdocs-macros' `{{ table }}`, Liquid's
    `{% include %}`, the Rust Reference's `{{ grammar-summary }}`) shows a reader what it renders,
    never itself; mdBook's `{{#include}}` and braces within prose or code stay."""
    lines = [
        "{{ conversion_table_all }}",
        '  {% include "snippet.md" %}',
        "{{#include listing.rs}}",
        "Use {{ name }} in a template.",
        "```",
        "{{ in_code }}",
        "```",
    ]
    out = rewrite(lines)
    assert out.display == ["", "", *lines[2:]]
    assert out.parse == out.display


def test_liquid_within_a_line_leaves_nothing_and_its_url_filter_is_a_link() -> None:
    """Jekyll's own docs: a version badge included in a heading made its anchor
    `detecting-nil-values-with-where-filter-include-docsversionbadgehtml-version40`; its links
    go through the URL filter, whose spaces made them no links at all."""
    lines = [
        '### Detecting `nil` values {%- include docs_version_badge.html version="4.0" -%}',
        "Write `{% raw %}{{ page.title }}{% endraw %}` to show it {% if x %}here{% endif %}.",
        "A [Ruby Gem]({{ '/docs/ruby-101/#gems' | relative_url }}) and {{ site.url }} stay.",
    ]
    out = rewrite(lines)
    assert out.display == [
        "### Detecting `nil` values",
        "Write `{% raw %}{{ page.title }}{% endraw %}` to show it here.",
        "A [Ruby Gem](/docs/ruby-101/#gems) and {{ site.url }} stay.",
    ]


def test_nuxt_mdc_components_read_as_their_callouts_and_links(tmp_path: Path) -> None:
    """Nuxt Content's MDC: `::note` ... `::` blocks (Nuxt's docs: 238 notes, 146 tips) and
    `:read-more{to=... title=...}` links (149) were shown as written, their links not followed."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "server.md").write_text(
        '# Server\n\n## Routes\n\n::note{title="Dynamic routes"}\nNot every param works.\n::\n\n'
        ':read-more{to="/docs/shared#why" title="Why not mix code"}\n\n'
        "::code-group\n```ts [a.ts]\nexport {}\n```\n::\n",
        encoding="utf-8",
    )
    (chunk,) = chunk_file(load_corpus(docs).files[0])
    assert "Note: Dynamic routes\nNot every param works." in chunk.text
    assert "[Why not mix code](/docs/shared#why)" in chunk.text
    assert "::" not in chunk.text.replace("```ts [a.ts]", "") and "{to=" not in chunk.text


def test_mdc_props_blocks_and_inline_components_read_as_shown(tmp_path: Path) -> None:
    """A block's YAML props between `---` lines were read as a paragraph under a heading
    underline (Nuxt's MCP page: one section titled `to: "cursor://…" label: …`); inline
    `:badge[v4.3]{…}`, `:br` and a code span's `{lang="ts"}` were shown as written (35, 25
    and 54 times)."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "mcp.md").write_text(
        '# MCP\n\n## Cursor\n\n::u-button\n---\nto: "cursor://x"\nlabel: Install MCP Server\n'
        "color: neutral\n---\n::\n\nThen restart.\n\n"
        '## Named views :badge[v4.5]{color="info"}\n\n'
        "| option | type |\n| --- | --- |\n"
        '| `--profile` :badge[v4.4]{size="xs"} | `Record<string, any>`{lang="ts"} |\n\n'
        'Returns `data`. :br :br Next. Keep `:badge[x]{a="b"}` in code.\n',
        encoding="utf-8",
    )
    chunks = chunk_file(load_corpus(docs).files[0])
    assert [c.heading for c in chunks] == ["Cursor", "Named views v4.5"]
    assert chunks[1].id == "mcp.md#mcp/named-views-v45"
    assert "Install MCP Server\n" in chunks[0].text and "cursor://" not in chunks[0].text
    text = chunks[1].text
    assert "| `--profile` v4.4 | `Record<string, any>` |" in text
    assert "Returns `data`.   Next." in text and 'Keep `:badge[x]{a="b"}` in code' in text


def test_shortcut_references_split_link_texts_and_destinations_on_the_next_line() -> None:
    """Tauri's [`Arc`] (336 shortcut references) and OpenTelemetry's `[Collector hosting best`
    / `practices][security]` with `[security]:` / `  https://…` kept their text, no URL."""
    lines = [
        "See the [Collector hosting best",
        "practices][security], the [`Arc`] type, [plain], ![img] and `[Arc]`.",
        "- [x] done",
        "",
        "[security]:",
        "  https://example.com/security",
        "[`arc`]: https://doc.rust-lang.org/std/sync/struct.Arc.html",
        "[img]: a.png",
    ]
    assert rewrite(lines).display[:3] == [
        "See the [Collector hosting best",
        "practices](https://example.com/security), the "
        "[`Arc`](https://doc.rust-lang.org/std/sync/struct.Arc.html) type, [plain], ![img] and "
        "`[Arc]`.",
        "- [x] done",
    ]


def test_only_mdc_components_read_as_their_text() -> None:
    # Express' morgan page shows its tokens as written: `:date[format]` is no component (no
    # props, not a name Nuxt writes bare).
    lines = ["##### :date[format]", ":kbd[Ctrl] + K", "see :foo[bar](url)"]
    assert rewrite(lines).display == ["##### :date[format]", "Ctrl + K", "see :foo[bar](url)"]
    assert rewrite(["### Search [step]"]).display == ["### Search"]  # (Fumadocs' step marker)


def test_html_code_blocks_read_as_fenced_code(tmp_path: Path) -> None:
    """GitBook writes a code block with highlighted lines as `<pre><code>`: its YAML comments
    became headings and its indentation went. The fences take the blank lines around it."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "config.md").write_text(
        "# Configure\n\n## Scopes\n\n**Example:**\n\n"
        '<pre class="language-yaml"><code class="lang-yaml"><strong>scopes:\n</strong>'
        "    # Spaces\n    - space:read\n    # Sites\n    - site:read &amp; more\n</code></pre>\n\n"
        "## Script\n\n"
        '<pre class="language-js"><code>a &lt; b</code></pre>\n',
        encoding="utf-8",
    )
    bundle = build_bundle(docs, tmp_path / "idx")
    rows = pq.read_table(bundle / "chunks.parquet").to_pylist()
    assert [r["heading"] for r in rows] == ["Scopes", "Script"]
    assert "```yaml\nscopes:\n    # Spaces\n    - space:read\n" in rows[0]["text"]
    assert "    - site:read & more\n```" in rows[0]["text"]
    code = pq.read_table(bundle / "code.parquet").to_pylist()
    assert [c["language"] for c in code] == ["yaml", "javascript"]
    assert rows[1]["text"].endswith("```js\na < b\n```")


def test_attribute_lists_within_a_line_leave_nothing() -> None:
    lines = [
        "[Get started](./start.md){ .md-button .md-button--primary } or the [Tutorial](t.md)",
        "![Logo](logo.png){ width=300 } text",
        "In code: `f(x){ .a }` stays.",
    ]
    assert rewrite(lines).display == [
        "[Get started](./start.md) or the [Tutorial](t.md)",
        "![Logo](logo.png) text",
        "In code: `f(x){ .a }` stays.",
    ]


def test_gitbook_blocks_keep_what_they_say() -> None:
    """GitBook's tab, hint and code titles say what follows (a platform, a warning, a file):
    their lines keep that as a label; `{% tabs %}` and the closing tags leave nothing."""
    lines = [
        "{% tabs %}",
        '{% tab title="Linux" %}',
        "Run `gum upgrade`.",
        "{% endtab %}",
        "",
        "  {% tab title='Maven POM' %}",
        '{% code title="pom.xml" overflow="wrap" %}',
        "```xml",
        "<project/>",
        "```",
        "{% endcode %}",
        "{% endtab %}",
        "{% endtabs %}",
        '{% hint style="warning" %}',
        "Back up first.",
        "{% endhint %}",
        '{% code lineNumbers="true" %}',
    ]
    out = rewrite(lines)
    assert out.display == [
        "", "Linux", "Run `gum upgrade`.", "", "", "  Maven POM", "pom.xml", "```xml",
        "<project/>", "```", "", "", "", "Warning", "Back up first.", "", "",
    ]  # fmt: skip
    # A changelog entry's date (138 of GitBook's entries were undated) and an embed's URL.
    dated = ['{% update date="2025-12-18" %}', '{% embed url="https://youtu.be/x" %}']
    assert rewrite(dated).display == ["2025-12-18", "<https://youtu.be/x>"]


def test_hugo_shortcodes_read_as_their_gist() -> None:
    """Hugo shortcodes: a line of one keeps its title or admonition name as a label; within a
    line one reads as its text, its page (`ref`) or its name and arguments; closing ones and
    the escaped form that shows one (`{{</* ref */>}}`) are handled as a reader sees them."""
    lines = [
        "{{< note >}}",
        "Back up first.",
        "{{< /note >}}",
        '{{% alert title="Careful" color="warning" %}}',
        '  {{< tab header="Python" >}}',
        "{{< tabpane >}}",
        "`lang`",
        ": {{< deprecated-in 0.153.0 />}}",
        'A {{< glossary_tooltip text="Pod" term_id="pod" >}} runs; see [it]({{< ref "a.md" >}}).',
        'Shown as `{{</* ref "x" */>}}` in code.',
    ]
    out = rewrite(lines)
    assert out.display == [
        "Note", "Back up first.", "", "Careful", "  Python", "", "`lang`",
        ": deprecated in 0.153.0", "A Pod runs; see [it](a.md).", lines[-1],
    ]  # fmt: skip


def test_docsy_tabs_and_a_shortcode_closed_before_text() -> None:
    """OpenTelemetry (Docsy): `{{< tabpane text=true >}} {{% tab DockerHub %}}` read as "true
    tab DockerHub" (147 and 307 lines); `{{% config_option` / `  name="…" %}} Suppress…` was
    left as written (15)."""
    lines = [
        "{{< tabpane text=true >}} {{% tab DockerHub %}}",
        "docker pull x",
        "{{% /tab %}} {{% tab ghcr.io %}}",
        "{{< /tabpane >}}",
        '{{< tabs name="kubectl_autocompletion" >}}',  # (Kubernetes': an id, no words)
        "{{% config_option",
        '  name="otel.exclude-methods" %}} Suppress',
        "instrumentation. {{% /config_option %}}",
    ]
    assert rewrite(lines).display == [
        "DockerHub", "docker pull x", "ghcr.io", "", "", "otel.exclude-methods", "Suppress",
        "instrumentation. ",
    ]  # fmt: skip


def test_hugo_shortcodes_over_several_lines() -> None:
    """A shortcode written over several lines (Hugo's `{{< img` with its arguments one a line)
    reads as one: its alt text as a label, or nothing; the line count stays."""
    lines = [
        "{{< img",
        '  src="zion.jpg"',
        '  alt="Zion National Park"',
        ">}}",
        "{{< datatable",
        '  "config"',
        ">}}",
        "```",
        "{{< img",
        "```",
    ]
    out = rewrite(lines)
    assert out.display == ["Zion National Park", "", "", "", "", "", "", *lines[7:]]


def test_template_calls_over_several_lines_leave_nothing() -> None:
    """ESLint's docs (11ty, Nunjucks) call macros over several lines, `{{ npm_tabs({` …
    `}) }}`, and on one line with braces inside, `{{ button({ type: "primary" }) }}`: none of it
    is what a reader sees. One left open, or closed inside a code block, stays."""
    lines = [
        "Install it:",
        "{{ npm_tabs({",
        '    command: "install",',
        '    packages: ["yo"],',
        "}) }}",
        '{{ button({ type: "primary", text: "Go", url: "#" }) }}',
        "{% set rule = {",
        '  name: "x"',
        "} %}",
        "Use {{ a }} or {{ b }} in a template.",
        "{{ never_closed({",
        "```js",
        "}) }}",
        "```",
    ]
    out = rewrite(lines)
    assert out.display == ["Install it:", *[""] * 8, *lines[9:]]
    assert out.parse == out.display


def test_material_icon_shortcodes_leave_nothing(tmp_path: Path) -> None:
    """mkdocs-material's icons (`:octicons-file-code-16:`, `:material-clock-fast:{ .lg }`)
    render as pictures: gone from text and headings (the site's anchor has no icon name either),
    kept in code and code spans; an emoji shortcode reads as the emoji (emoji.py)."""
    lines = [
        "# Adding a :simple-materialformkdocs: badge",
        ":octicons-file-code-16: `docs/page.md`",
        "- :material-clock-fast:{ .lg .middle } __Set up in 5 minutes__",
        "Type `:material-check:` to get :material-check: a tick :smile:",
        "```",
        ":fontawesome-brands-youtube:{ .youtube }",
        "```",
    ]
    out = rewrite(lines)
    assert out.display == [
        "# Adding a badge",
        "`docs/page.md`",
        "- __Set up in 5 minutes__",
        "Type `:material-check:` to get a tick 😄",
        *lines[4:],
    ]
    chunks = _page(tmp_path, "page.md", "\n".join(lines) + "\n")
    assert [(c.id, c.heading) for c in chunks] == [("page.md#adding-a-badge", "Adding a badge")]


def test_fenced_dialect_syntax_is_left_alone() -> None:
    lines = ["```md", '!!! note "x"', "    body", '=== "Python"', "<Tabs>", "```"]
    out = rewrite(lines)
    assert out.display == lines and out.tabs == ()


# -- robustness -----------------------------------------------------------------------------------

_PIECES = st.sampled_from(
    [
        "!!! note",
        '!!! tip "T"',
        "???+ example",
        '=== "Python"',
        '=== "Go"',
        '===! "npm"',
        "    body",
        "        deeper",
        "\tTabbed",
        "<Tabs>",
        "</Tabs>",
        '<TabItem value="py" label="Python">',
        '<TabItem value="go">',
        '<TabItem value="ts" label="TypeScript">npm i acme</TabItem>',
        '<TabItem value="rust">cargo add acme',
        "the end</TabItem>",
        "</TabItem>",
        "<CodeTabs",
        "  values={[{label: 'Go', value: 'go'}]}>",
        "</CodeTabs>",
        "```",
        "## Heading { #id }",
        "### Custom {#custom-id}",
        "{: .cls }",
        "*[A]: b",
        "[a][b] [c][]",
        "[b]: /x",
        "## Title [#bracket-id]",
        '{% tab title="Linux" %}',
        '{% hint style="info" %}',
        "{% endtab %}",
        '{{< tab header="Python" >}}',
        "{{< /tab >}}",
        'a {{< glossary_tooltip text="Pod" >}} {{% note %}} b',
        "{{< ref 'x.md' >}}",
        "{{ npm_tabs({",
        "}) }}",
        "{% set x = {",
        ":octicons-file-code-16: `a.md`",
        "# Title :material-check:{ .y }",
        "```{note}",
        ":::{tip}",
        ":class: x",
        "(label)=",
        "see {ref}`t <x>`",
        "",
        "text",
    ]
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_PIECES, max_size=40))
def test_rewrite_keeps_lines_and_never_fails(pieces: list[str]) -> None:
    out = rewrite(pieces)
    assert len(out.display) == len(out.parse) == len(pieces)
    for tab in out.tabs:
        assert 0 <= tab.start < tab.end <= len(pieces)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_PIECES, max_size=40))
def test_chunking_dialect_soup_gives_unique_ids_and_exact_lines(
    tmp_path_factory: pytest.TempPathFactory, pieces: list[str]
) -> None:
    docs = tmp_path_factory.mktemp("soup")
    for name in ("p.mdx", "p.md"):  # .md also goes through MyST (myst.py)
        (docs / name).write_text("# P\n\n## S\n\n" + "\n".join(pieces) + "\n", encoding="utf-8")
        chunks = _chunks(docs, name)
        ids = [c.id for c in chunks]
        assert len(ids) == len(set(ids))
        for c in chunks:
            assert 1 <= c.line_start <= c.line_end
            assert dict(c.metadata).get("language", "x") != ""


# -- MDX exports and JSX string props ------------------------------------------------------------


def test_mdx_exports_give_title_and_description(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    # Shaped like Tailwind's and Next.js app-router pages: no frontmatter, ESM metadata.
    (docs / "padding.mdx").write_text(
        'import { ApiTable } from "@/components/api-table.tsx";\n'
        'export const title = "padding";\n'
        'export const description = "Utilities for controlling an element\'s padding.";\n\n'
        '<ApiTable rows={[["p-<number>", "padding: calc(var(--spacing) * <number>);"]]} />\n\n'
        "## Examples\n\n"
        '<Figure hint="Try it" caption="Padding on a single side" alt="boxes with padding">\n\n'
        "Use `pt-<number>` utilities.\n\n</Figure>\n",
        encoding="utf-8",
    )
    (docs / "layout.mdx").write_text(
        "export const metadata = {\n  title: 'Layout',\n  description: `Pages and layouts`,\n};\n\n"
        "Intro.\n",
        encoding="utf-8",
    )
    chunks = _chunks(docs, "padding.mdx")
    assert chunks[-1].breadcrumb == "padding.mdx > padding > Examples"
    assert "Padding on a single side" in chunks[-1].search_text
    assert "boxes with padding" in chunks[-1].search_text
    assert "Try it" in chunks[-1].search_text  # a hint is prose too (issue 27)
    out = tmp_path / "idx"
    build_bundle(docs, out)
    with McpSession(out) as s:
        page = s.call("get_page", {"path": "padding.mdx"})
        layout = s.call("get_page", {"path": "layout.mdx"})
    from mcp_client import text_of

    assert "Utilities for controlling an element's padding." in text_of(page)
    assert "Layout" in text_of(layout) and "Pages and layouts" in text_of(layout)


def test_meta_title_and_description_frontmatter_title_a_page(tmp_path: Path) -> None:
    """Radix's component pages give `metaTitle`/`metaDescription`, which the site shows; their
    first heading, "API Reference", was the title of 56 of them."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "radio.mdx").write_text(
        "---\nmetaTitle: Radio\nmetaDescription: Standalone radio button.\n---\n\n"
        "Intro text.\n\n## API Reference\n\nProps.\n",
        encoding="utf-8",
    )
    (docs / "both.md").write_text("---\ntitle: Both\nmetaTitle: Other\n---\n\nText.\n")
    out = build_bundle(docs, tmp_path / "idx")
    pages = pq.read_table(out / "pages.parquet").to_pylist()
    shown = {p["path"]: (p["title"], p["description"]) for p in pages}
    assert shown["radio.mdx"] == ("Radio", "Standalone radio button.")
    assert shown["both.md"][0] == "Both"  # `title` wins


SUPABASE = FIXTURES / "supabase-mdx" / "docs"


def test_real_mdx_page_takes_its_title_from_its_export_and_reads_cleanly(tmp_path: Path) -> None:
    """Supabase's docs (Next.js MDX): no frontmatter, no H1, `export const meta = {title,
    description}`, and its own `<Tabs>`/`<TabPanel label>` components."""
    chunks = _chunks(SUPABASE, "guides/auth/auth-captcha.mdx")
    assert {c.breadcrumb.split(" > ")[1] for c in chunks} == {"Enable Captcha Protection"}
    for c in chunks:
        assert not any(mark in c.text for mark in (*DIALECT_SYNTAX, "<TabPanel", "</TabPanel>"))
        assert "export const" not in c.text and "export default" not in c.text, c.id
    signup = next(c for c in chunks if c.id.endswith("#sign-up-for-captcha"))
    assert "\nHCaptcha\n" in signup.text and "\nTurnstile\n" in signup.text  # the tab labels
    out = build_bundle(SUPABASE, tmp_path / "idx")
    with McpSession(out) as s:
        page = s.call("get_page", {"path": "guides/auth/auth-captcha.mdx"})
        hits = s.search(query="Enable Captcha Protection")["hits"]
    from mcp_client import text_of

    assert "Add Captcha Protection to your Supabase project" in text_of(page)
    assert hits[0]["breadcrumb"].startswith("guides/auth/auth-captcha.mdx > Enable Captcha")


# -- a real mkdocs-material site -----------------------------------------------------------------

PYDANTIC = FIXTURES / "pydantic-docs" / "docs"


def test_real_mkdocs_material_pages_read_cleanly() -> None:
    corpus = load_corpus(PYDANTIC)
    assert not corpus.problems
    seen = 0
    for sf in corpus.files:
        for c in chunk_file(sf):
            for line in c.text.split("\n"):
                assert not line.lstrip().startswith(("!!!", "???", "=== ")), (c.id, line)
                assert "][pydantic." not in line and "[](){#" not in line, (c.id, line)
                assert "{ #" not in line and "{:" not in line, (c.id, line)
            seen += 1
    assert seen > 10
    strict = {
        c.id: c
        for sf in corpus.files
        if sf.path == "concepts/strict_mode.md"
        for c in chunk_file(sf)
    }
    first = strict["concepts/strict_mode.md#_preamble"].text
    # `??? api "API Documentation"` and its indented body, a mkdocs-autorefs link kept as text
    # (the `<br>` after it is a line break to a reader: issue 27)
    assert first.startswith("API Documentation\n`pydantic.types.Strict`\n")
    perf = [
        c for sf in corpus.files if sf.path == "concepts/performance.md" for c in chunk_file(sf)
    ]
    tabs = "\n".join(c.text for c in perf)
    assert "❌ Bad\n" in tabs and "✅ Good\n" in tabs  # no languages: kept, as pymdownx shows
    assert all("language" not in dict(c.metadata) for c in perf)


_ESM_PIECES = st.sampled_from(
    [
        "export const title = 'T';",
        'export const description = "D \\" q";',
        "export const metadata = {",
        "  title: `Tmpl`,",
        "  description: 'x',",
        "  other: { a: [1, {b: 2}] },",
        "};",
        "}",
        "export default function X() {",
        "import A from 'a'",
        "```",
        "",
        "# Heading",
        "text {with} braces",
    ]
)


@settings(max_examples=200, deadline=None)
@given(st.lists(_ESM_PIECES, max_size=30))
def test_esm_metadata_never_fails(pieces: list[str]) -> None:
    from docsmcp.sources.formats.markdown.mdx import esm_metadata

    found = esm_metadata(pieces)
    assert set(found) <= {"title", "description"}
    assert all(isinstance(v, str) and v for v in found.values())


def test_builds_with_tabs_and_includes_are_identical_whatever_the_workers(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    import shutil

    shutil.copytree(DOCUSAURUS_TABS, docs / "tabs")
    shutil.copytree(FIXTURES / "pydantic-docs" / "docs", docs / "pydantic")
    one = build_bundle(docs, tmp_path / "one", "--workers", "1", "--no-cache")
    two = build_bundle(docs, tmp_path / "two", "--workers", "2", "--no-cache")
    names = sorted(p.name for p in one.iterdir())
    assert names == sorted(p.name for p in two.iterdir())
    for name in names:
        assert (one / name).read_bytes() == (two / name).read_bytes(), name


def test_the_spec_reader_filters_tabs_like_the_runtime(docusaurus: Path, example: Path) -> None:
    from docsmcp_runtime.bundle.reader import open_bundle
    from docsmcp_runtime.tools.app import DocsApp
    from spec_reader import SpecReader

    cases = (
        (docusaurus, "retrieve messages from a topic", ("go", "python", "typescript")),
        (example, "retry", ("python", "typescript")),
    )
    for bundle, query, languages in cases:
        app, reader = DocsApp(open_bundle(bundle)), SpecReader(bundle)
        for language in languages:
            args = {"query": query, "language": language, "limit": 10}
            hits = app.call_tool("search_docs", args)["structuredContent"]["hits"]
            expected = [h["chunk_id"] for h in hits]
            assert reader.search(query, limit=10, filters={"language": language}) == expected


# Lines of what the inline cleanup and explicit ids act on (attribute lists, abbreviations,
# reference links and definitions, code fences), mixed with plain text.
_CLEANUP_LINE = st.lists(
    st.sampled_from(
        [
            "# ",
            "## T ",
            "{#id}",
            "{: .x }",
            "{ #a .b k=v }",
            "*[HTML]: Hyper",
            "[a][b]",
            "[a][]",
            "[b]: /u",
            "`",
            "```",
            "~~~",
            "{",
            "}",
            "text ",
            " ",
            "\t",
            "[",
            "]",
            "][",
            "{#x",
        ]
    ),
    max_size=6,
).map("".join)


@pytest.mark.slow  # fuzz, ~1 s
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_CLEANUP_LINE, max_size=10))
def test_the_plain_file_path_rewrites_as_the_general_one(lines: list[str]) -> None:
    """A file without labels, tabs or dedents takes a shorter loop in `rewrite`: the same lines
    followed by an admonition (which sends them through the general loop) read the same."""
    fast = rewrite(lines)
    general = rewrite([*lines, "", "!!! note", "    x"])
    assert fast.display == general.display[: len(lines)]
    assert fast.parse == general.parse[: len(lines)]


def test_hugo_params_show_their_values(tmp_path: Path) -> None:
    """OpenTelemetry: `docker pull otel/opentelemetry-collector:{{% param vers %}}` with
    `cascade: {vers: 0.158.0}` in the section's `_index.md` showed the shortcode (203 times):
    the value, from the page, else the nearest section's cascade; unknown names stay."""
    docs = tmp_path / "docs"
    (docs / "collector" / "install").mkdir(parents=True)
    (docs / "_index.md").write_text("---\ncascade:\n  vers: 0.1.0\n  sdk: {otel: 1.2.3}\n---\n")
    (docs / "collector" / "_index.md").write_text("---\ncascade:\n  vers: 0.158.0\n---\n# C\n")
    (docs / "collector" / "install" / "docker.md").write_text(
        "---\ntitle: Docker\nown: mine\n---\n# Docker\n\nUse {{% param own %}}.\n\n"
        "```sh\ndocker pull otel/collector:{{% param vers %}}\n```\n\n"
        '{{< param "sdk.otel" >}} and {{% param site_only %}}.\n'
    )
    corpus = load_corpus(docs)
    (page,) = [f for f in corpus.files if f.path.endswith("docker.md")]
    (chunk,) = chunk_file(page)
    assert "Use mine." in chunk.text
    assert "docker pull otel/collector:0.158.0" in chunk.text
    assert "1.2.3 and param site_only." in chunk.text  # (a site parameter: not read)


def test_terraform_note_and_warning_paragraphs() -> None:
    """Terraform provider docs: `->` (a note) and `~>` (a warning) open a paragraph the registry
    shows in a box without its marker; 185 markers showed in four providers' chunks. A bold
    label of the author's own (`~> **Note:**`) is kept instead of ours."""
    out = rewrite(["~> **Note:** Stored in state.", "-> If the managed field changes.",
                   "  ~> Read more about it.", "a -> b", "~>1.0", "-> objeto direto"])  # fmt: skip
    assert out.display == ["**Note:** Stored in state.", "Note: If the managed field changes.",
                           "  Warning: Read more about it.", "a -> b", "~>1.0",
                           "-> objeto direto"]  # fmt: skip


def test_docsify_ids_ignores_and_callouts(tmp_path: Path) -> None:
    """docsify: `## themeColor :id=themecolor` kept `:id=` in the heading and its anchor (links
    to `#themecolor` failed); `{docsify-ignore}` stayed in headings; `?>`/`!>` paragraphs (its
    tip and warning) showed their markers. Its sidebar, navbar and cover page are no pages."""
    out = rewrite(["## themeColor :id=themecolor", "# Heading 1 {docsify-ignore}", "?> A tip.",
                   "!> Careful.", "a ?> b"])  # fmt: skip
    assert out.display == ["## themeColor", "# Heading 1", "Tip: A tip.", "Important: Careful.",
                           "a ?> b"]  # fmt: skip
    assert out.parse[0] == "## themeColor {#themecolor}"
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "_sidebar.md").write_text("- [Config](config.md)\n")
    (docs / "_navbar.md").write_text("- [中文](/zh-cn/)\n")
    (docs / "_coverpage.md").write_text("# docsify :id=docsify\n")
    (docs / "config.md").write_text(
        "# Config\n\n## themeColor :id=themecolor\n\nSee [it](#themecolor).\n"
    )
    proc = run_docsmcp("build", "--docs-dir", docs, "--out", tmp_path / "idx", "--json")
    summary = json.loads(proc.stdout)
    assert summary["files"] == 1 and summary["references"]["found"] == 1
    assert summary["references"]["resolved"] == 1
    assert "docsify's own files: 3 pages left out" in summary["unpublished"]


def test_an_anchor_before_a_heading_is_its_id() -> None:
    """Laravel writes `<a name="method-str-slug"></a>` over each heading (3,090): the site's
    anchors, which its links use; the chunk ids and `{anchor}` took the heading's slug."""
    out = rewrite(
        ['<a name="method-str-slug"></a>', "#### `Str::slug()` {.collection-method}", "",
         '<a id="intro"></a>', "", "## Introduction", "Text <a name=\"x\"></a> here.",
         '<a name="kept"></a>', "Not a heading."]
    )  # fmt: skip
    assert out.parse[:6] == ["", "#### `Str::slug()` {#method-str-slug}", "", "", "",
                             "## Introduction {#intro}"]  # fmt: skip
    assert out.display[1] == "#### `Str::slug()`" and out.display[7] == '<a name="kept"></a>'


def test_mdx_code_block_fences_are_mdx() -> None:
    from docsmcp.sources.formats.markdown.mdx import mdx_code_blocks

    lines = ["````mdx-code-block", "<Tabs>", "```js", "x", "```", "</Tabs>", "````", "after"]
    assert mdx_code_blocks(lines) == ["", "<Tabs>", "```js", "x", "```", "</Tabs>", "", "after"]


def test_vuepress_code_tabs_and_inline_code_languages() -> None:
    """VuePress' `::: code-tabs#shell` / `@tab pnpm` (its install pages) were shown as written;
    rehype-pretty-code's `` `true{:js}` `` (Nextra) showed its language."""
    from docsmcp.sources.formats.markdown.mdx import admonitions_to_text

    lines = ["::: code-tabs#shell", "@tab pnpm", "```bash", "pnpm add x", "```"]
    lines += ["@tab:active npm", "```bash", "npm i x", "```", ":::"]
    assert admonitions_to_text(lines, hard_break=False) == [
        "", "pnpm", "```bash", "pnpm add x", "```", "npm", "```bash", "npm i x", "```", "",
    ]  # fmt: skip
    assert rewrite(["A value of `true{:js}` is `<A />{:jsx}`."]).display == [
        "A value of `true` is `<A />`."
    ]
