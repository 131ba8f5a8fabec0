"""Component-library docs built with dumi (Ant Design's generator, umijs/dumi): pages named
`index.en-US.md` / `index.zh-CN.md`, demos pulled in by `<code src="./demo/basic.tsx">Title</code>`
with a description beside them (`demo/basic.md`, one `## en-US` section per language, or the
demo's own `/** title: ... */` comment), `:::warning{title=...}` containers and `## API` property
tables. Fixtures are written in the shape of Ant Design's `components/` folder."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
from conftest import FUZZ, build_bundle, run_docsmcp, write_tree
from docsmcp.chunking.chunk import chunk_file
from docsmcp.commands.init import propose
from docsmcp.model.source import SourceFile, Strategy
from docsmcp.sources.corpus import load_corpus
from docsmcp.sources.formats.markdown.fences import fenced_lines
from docsmcp.sources.formats.markdown.mdx import admonitions_to_text
from docsmcp.sources.inclusion import dumi_demos
from docsmcp.sources.sites import dumi_tabs
from hypothesis import given
from hypothesis import strategies as st

BUTTON_EN = """---
category: Components
title: Button
description: To trigger an operation.
group:
  title: General
  order: 1
---

## When To Use

A button means an operation.

## Examples

<!-- prettier-ignore -->
<code src="./demo/basic.tsx">Syntactic sugar</code>
<code src="./demo/size.tsx" version="5.21.0">Size</code>
<code src="./demo/debug-color.tsx" debug>Debug Color</code>

## API

| Property | Description | Type | Default | Version |
| --- | --- | --- | --- | --- |
| htmlType | Set the original html `type` of `button` | `submit` \\| `button` | `button` |  |
| loading | Set the loading status of button | boolean | false |  |
| ~~iconPosition~~ | Set the icon position, use `iconPlacement` | `start` \\| `end` | `start` |  |
"""

BUTTON_ZH = BUTTON_EN.replace("title: Button", "title: Button\nsubtitle: 按钮").replace(
    "A button means an operation.", "按钮用于开始一个即时操作。"
)

DEMO_MD = """## zh-CN

通过 `type` 语法糖，使用预设的按钮样式。

## en-US

Through the `type` syntactic sugar, use the preset button styles.
"""

DEMO_TSX = """import React from 'react';
import { Button } from 'antd';

const App: React.FC = () => <Button type="primary">Primary Button</Button>;

export default App;
"""

SIZE_TSX = """/**
 * title: Size of a button
 * description: Buttons come in `large`, `medium` and `small`.
 */
import React from 'react';
import { Button } from 'antd';

export default () => <Button size="large">Large</Button>;
"""


def _site(root: Path, **extra: str) -> Path:
    return write_tree(
        root / "docs",
        {
            "components/button/index.en-US.md": BUTTON_EN,
            "components/button/index.zh-CN.md": BUTTON_ZH,
            "components/space/index.en-US.md": "---\ntitle: Space\n---\n\nSet spacing.\n",
            "components/space/index.zh-CN.md": "---\ntitle: Space\n---\n\n设置间距。\n",
            "components/button/demo/basic.md": DEMO_MD,
            "components/button/demo/basic.tsx": DEMO_TSX,
            "components/button/demo/size.tsx": SIZE_TSX,
            "components/button/demo/debug-color.md": DEMO_MD.replace("preset", "debug"),
            "components/button/demo/debug-color.tsx": DEMO_TSX,
            **extra,
        },
    )


def test_a_title_given_per_language_is_the_pages_language_title(tmp_path: Path) -> None:
    """A dumi demo's `title: {zh-CN: ..., en-US: ...}` stopped the whole build of Ant Design
    ("frontmatter title must be a string, got dict"): it is the title in the page's language."""
    docs = write_tree(
        tmp_path / "docs",
        {
            "guide/token.md": "---\ntitle:\n  zh-CN: 组件 Token\n  en-US: Component Token\n---\n\n",
            "guide/theme.zh-CN.md": "---\ntitle:\n  zh-CN: 主题\n  en-US: Theme\n---\n\n文字。\n",
            "guide/links.md": "---\ntitle:\n  label: Links\n  href: /links\n---\n\nText.\n",
        },
    )
    corpus = load_corpus(docs, exclude=["guide/links.md"])
    assert not corpus.problems, corpus.problems
    titles = {f.path: f.title for f in corpus.files}
    assert titles["guide/token.md"] == "Component Token"
    assert titles["guide/theme.zh-CN.md"] == "主题"
    # A mapping that is not one per language is still no title.
    assert load_corpus(docs, include=["guide/links.md"]).problems


def _page(docs: Path, path: str) -> str:
    corpus = load_corpus(docs)
    assert not corpus.problems, corpus.problems
    (sf,) = [f for f in corpus.files if f.path == path]
    return "\n\n".join(c.text for c in chunk_file(sf))


def test_demos_show_title_description_and_code_and_their_files_are_no_pages(
    tmp_path: Path,
) -> None:
    """Ant Design's component pages showed each demo's title alone; its code was nowhere and its
    description file (`demo/basic.md`, a section per language) was a page of its own, Chinese
    included: 1,067 of 1,258 pages."""
    docs = _site(tmp_path)
    corpus = load_corpus(docs)
    assert not corpus.problems, corpus.problems
    assert {f.path for f in corpus.files} == {
        "components/button/index.en-US.md",
        "components/space/index.en-US.md",
    }
    text = _page(docs, "components/button/index.en-US.md")
    # The site's table of contents lists the demos under Examples: a heading each.
    assert "### Syntactic sugar\n\nThrough the `type` syntactic sugar" in text
    assert "通过" not in text  # the description in the page's language only
    assert '<Button type="primary">Primary Button</Button>' in text
    assert "<code" not in text and "src=" not in text
    # The title from the tag, the description from the demo's own `/** ... */` comment.
    assert "### Size\n\nButtons come in `large`, `medium` and `small`." in text
    assert "title: Size of a button" not in text and "/**" not in text
    # A debug demo is shown in development only.
    assert "Debug Color" not in text and "debug styles" not in text


def test_a_chinese_page_gets_the_chinese_description(tmp_path: Path) -> None:
    docs = _site(tmp_path)
    corpus = load_corpus(docs, include=["components/button/index.zh-CN.md"])
    (sf,) = corpus.files
    text = "\n\n".join(c.text for c in chunk_file(sf))
    assert "通过 `type` 语法糖" in text and "Through the" not in text


def test_a_demo_between_paragraphs_keeps_the_text_after_it_in_its_section(tmp_path: Path) -> None:
    """Ant Design's theme guide: a demo in the middle of a section has its title as a bold
    line, not a heading that would take the paragraphs after it."""
    guide = (
        "---\ntitle: Customize Theme\n---\n\n## Customize Design Token\n\n"
        "Modify `token` in `theme`.\n\n"
        '<code src="./_demo/modify-theme-token.tsx">Customize Design Token</code>\n\n'
        "Seed Tokens change other tokens.\n\n## Next\n\nMore.\n"
    )
    docs = write_tree(
        tmp_path / "docs",
        {
            "react/customize-theme.en-US.md": guide,
            "react/_demo/modify-theme-token.tsx": DEMO_TSX,
            "react/_demo/modify-theme-token.md": DEMO_MD,
        },
    )
    corpus = load_corpus(docs)
    assert [f.path for f in corpus.files] == ["react/customize-theme.en-US.md"]
    chunks = chunk_file(corpus.files[0])
    section = next(c for c in chunks if c.heading == "Customize Design Token")
    assert "**Customize Design Token**" in section.text
    assert "Seed Tokens change other tokens." in section.text
    assert "const App" in section.text


def test_long_missing_and_quoted_demos(tmp_path: Path) -> None:
    """A demo's code is bounded; a tag whose file is missing stays as written (the build's
    include summary names it); a tag shown in a code block (dumi's own docs) is an example."""
    long_demo = "import React from 'react';\n" + "".join(f"const a{i} = {i};\n" for i in range(400))
    page = (
        "---\ntitle: Demos\n---\n\n## Examples\n\n"
        '<code src="./demos/long.tsx">Long</code>\n'
        '<code src="./demos/gone.tsx">Gone</code>\n\n'
        '## Writing demos\n\n```md\n<code src="./demos/long.tsx">Shown</code>\n```\n'
    )
    docs = write_tree(
        tmp_path / "docs", {"guide/demos.md": page, "guide/demos/long.tsx": long_demo}
    )
    text = _page(docs, "guide/demos.md")
    assert "const a140 = 140;" in text and "const a200 = 200;" not in text
    assert "(251 more lines of this demo in guide/demos/long.tsx.)" in text
    assert "Gone" in text
    assert '<code src="./demos/long.tsx">Shown</code>' in text


# -- bounded fuzz: whatever a page, a demo file or its description holds ----------------------

PIECES = st.sampled_from(
    [
        '<code src="./demo/a.tsx">A</code>',
        "<code src='./demo/b' debug />",
        '<code src="x" simplify="true"></code>',
        "<code ",
        "</code>",
        "## zh-CN",
        "## en-US",
        "### Title",
        "/**",
        " * title: T",
        " */",
        "---",
        "title:",
        "  en-US: E",
        "```tsx",
        "```",
        "<!-- x -->",
        ":::info{title=",
        ':::warning{title="a b" x=y}',
        "}",
        ":::",
        "index.$tab-x.md",
        "\n",
        "",
    ]
)
TEXT = st.lists(st.one_of(PIECES, st.text(max_size=12)), max_size=30).map("".join)


@FUZZ
@given(TEXT, TEXT, TEXT, st.sampled_from(["p/index.en-US.md", "p/index.zh-CN.md", "p/a.md"]))
def test_demos_raise_nothing_and_stay_bounded(page: str, code: str, about: str, path: str) -> None:
    lines = page.split("\n")
    found = dumi_demos.tags(lines, fenced_lines(lines))
    assert all(0 <= k < len(lines) and d.end == k and d.level <= 6 for k, d in found.items())
    for demo in found.values():
        out = dumi_demos.render(
            path, demo, ("p/demo/a.tsx", code), ("p/demo/a.md", about), lambda _p, x: x
        )
        assert len(out) <= dumi_demos.MAX_DEMO_LINES + len(about.split("\n")) + 12
        assert not demo.hidden or out == []


AVATAR_EN = """---
category: Components
title: Avatar
---

## API

Common props ref：[Common props](/docs/react/common-props)

### Avatar

| Property | Description | Type | Default | Version |
| --- | --- | --- | --- | --- |
| gap | Letter type unit distance between left and right sides | number | 4 | 4.3.0 |

### Avatar.Group <Badge>4.5.0+</Badge>

| Property | Description | Type | Default | Version |
| --- | --- | --- | --- | --- |
| max | Set maximum display related configurations | `{ count?: number }` | - | 5.18.0 |
"""

INPUT_EN = """---
title: Input
---

## API

### Input

| Property | Description | Type | Default |
| --- | --- | --- | --- |
| allowClear | Whether to show a clear icon | boolean | - |

### TextArea props

| Property | Description | Type | Default |
| --- | --- | --- | --- |
| autoSize | Height autosize feature | boolean | false |

### Common props

| Property | Description | Type | Default |
| --- | --- | --- | --- |
| className | The class name | string | - |
"""

GUIDE_EN = """---
title: Getting Started
---

## API

| Property | Description | Type |
| --- | --- | --- |
| theme | The theme | object |
"""


def test_a_component_pages_api_table_is_its_registry_entry(tmp_path: Path) -> None:
    """Ant Design's pages give their props under `## API`, the page titled by its frontmatter
    (`title: Button`): 32 of 74 components had no registry entry; `### Avatar.Group
    <Badge>4.5.0+</Badge>` (dumi's version badge), `### Input` (read as the word "input") and
    `### TextArea props` had none either."""
    docs = write_tree(
        tmp_path / "docs",
        {
            "components/button/index.en-US.md": BUTTON_EN,
            "components/avatar/index.en-US.md": AVATAR_EN,
            "components/input/index.en-US.md": INPUT_EN,
            "docs/getting-started.en-US.md": GUIDE_EN,
        },
    )
    out = build_bundle(docs, tmp_path / "idx")
    entries = {r["name"]: r for r in pq.read_table(out / "api.parquet").to_pylist()}
    # `### Input` on Input's page is its entry, not the word "input" (a parameters heading).
    assert set(entries) == {"Button", "Avatar", "Avatar.Group", "Input", "TextArea"}
    button = json.loads(entries["Button"]["parameters"])
    assert [p["name"] for p in button] == ["htmlType", "loading", "iconPosition"]
    assert button[2]["description"] == "Deprecated. Set the icon position, use iconPlacement"
    assert button[0]["type"] == "`submit` \\| `button`" or "submit" in button[0]["type"]
    assert [p["name"] for p in json.loads(entries["Avatar.Group"]["parameters"])] == ["max"]


def test_a_container_titled_by_its_attributes_reads_as_a_label(tmp_path: Path) -> None:
    """dumi's containers take their title as an attribute (`:::warning{title=Deprecated}`):
    Ant Design's List page showed `:::warning{title=Deprecated Notice}` as written."""
    page = (
        "---\ntitle: List\n---\n\n## When To Use\n\nA list.\n\n<!-- prettier-ignore -->\n"
        ":::warning{title=Deprecated Notice}\nList has been deprecated.\n:::\n\n"
        ':::info{title="Custom title"}\nAn info.\n:::\n'
    )
    docs = write_tree(tmp_path / "docs", {"components/list/index.en-US.md": page})
    text = _page(docs, "components/list/index.en-US.md")
    assert "Warning: Deprecated Notice" in text and "Info: Custom title" in text
    assert ":::" not in text and "{title" not in text


def test_links_to_routes_and_demos_resolve(tmp_path: Path) -> None:
    """dumi serves `common-props.en-US.md` at `/docs/react/common-props` and `index.en-US.md` at
    its folder, and gives each demo the anchor `<page>-demo-<file>`: Ant Design's build
    resolved 469 of 904 links."""
    form = (
        "---\ntitle: Form\n---\n\nSee [Common props](/docs/react/common-props), "
        "[Button](/components/button#api) and [the basic demo](#form-demo-basic).\n\n"
        '## Examples\n\n<code src="./demo/basic.tsx">Basic Usage</code>\n'
    )
    docs = _site(
        tmp_path,
        **{
            "components/form/index.en-US.md": form,
            "components/form/demo/basic.tsx": DEMO_TSX,
            "docs/react/common-props.en-US.md": "---\ntitle: Common props\n---\n\nText.\n",
        },
    )
    proc = run_docsmcp("build", "--docs-dir", docs, "--out", tmp_path / "idx", "--json")
    references = json.loads(proc.stdout)["references"]
    assert references["unresolved_links"] == []


def test_init_counts_pages_without_the_demo_descriptions(tmp_path: Path) -> None:
    """`docsmcp init` said "1258 files" for Ant Design, 1,067 of them demo descriptions."""
    proposal = propose(_site(tmp_path))
    report = proposal.report()
    assert report[0] == "2 files"
    assert any(line.startswith("demos: 2 demo descriptions") for line in report)
    assert "**/*.zh-CN.md" in proposal.manifest["exclude"]


def test_a_badge_in_a_markdown_pages_heading_is_markup(tmp_path: Path) -> None:
    """dumi's guides are `.md` pages with `<Badge>` components in their headings (`### editLink
    <Badge>2.2.2+</Badge>`); a page with no component line was not read as MDX, and the tags
    showed (dumi's docs: 26 in 16 chunks). A component the page closes is markup, as a custom
    element is; a placeholder such as `<Name>` is never closed."""
    page = (
        "---\ntitle: Theme\n---\n\n## Site\n\n### editLink <Badge>2.2.2+</Badge>\n\n"
        "Set `<Name>` to your repository.\n\n```md\n### x <Badge>1.0</Badge>\n```\n"
    )
    docs = write_tree(tmp_path / "docs", {"theme/default.md": page})
    text = _page(docs, "theme/default.md")
    assert "### editLink 2.2.2+" in text and "</Badge>\n" not in text.split("```")[0]
    assert "`<Name>`" in text and "### x <Badge>1.0</Badge>" in text  # code stays code


def test_a_tab_page_is_titled_by_its_page_and_tab(tmp_path: Path) -> None:
    """Ant Design's `index.$tab-design.en-US.md` is the Design tab of its component's page;
    five such pages were each titled "Component Definition" (their first heading)."""
    design = "## Component Definition\n\nThe essence of Button.\n"
    docs = _site(
        tmp_path,
        **{
            "components/button/index.$tab-design.en-US.md": design,
            "components/button/index.$tab-design.zh-CN.md": design,
            "guide/page-tab.md": "---\ntitle: Page Tab\n---\n\nText.\n",
            "guide/page-tab.$tab-example.md": "---\ntitle: Tab Example\n---\n\nText.\n",
        },
    )
    titles = {f.path: f.title for f in load_corpus(docs).files}
    assert titles["components/button/index.$tab-design.en-US.md"] == "Button: Design"
    assert titles["guide/page-tab.$tab-example.md"] == "Tab Example"  # its own title wins


@FUZZ
@given(TEXT)
def test_containers_and_tab_titles_raise_nothing(text: str) -> None:
    lines = text.split("\n")
    assert len(admonitions_to_text(lines)) == len(lines)
    path = "p/" + "".join(c for c in text[:20] if c.isalnum() or c in ".$-") + ".md"
    files = [_source(path, None), _source("p/index.md", "Page")]
    assert len(dumi_tabs.resolve(files)) == 2


def _source(path: str, title: str | None) -> SourceFile:
    return SourceFile(path, "Text.\n", "Text.\n", Strategy("h2", 4000), (), title, None)
