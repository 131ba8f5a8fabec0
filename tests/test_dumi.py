"""Component-library docs built with dumi (Ant Design's generator, umijs/dumi): pages named
`index.en-US.md` / `index.zh-CN.md`, demos pulled in by `<code src="./demo/basic.tsx">Title</code>`
with a description beside them (`demo/basic.md`, one `## en-US` section per language, or the
demo's own `/** title: ... */` comment), `:::warning{title=...}` containers and `## API` property
tables. Fixtures are written in the shape of Ant Design's `components/` folder."""

from __future__ import annotations

from pathlib import Path

from conftest import write_tree
from docsmcp.sources.corpus import load_corpus

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
