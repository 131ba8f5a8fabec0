"""One code-fence tracker for every pass that runs before (or beside) markdown-it: MDX import
stripping, admonitions, inline chunking hints and the eval's heading judge. Checked against
markdown-it itself, the parser that later cuts the chunks."""

from __future__ import annotations

from pathlib import Path

from conftest import build_bundle
from docsmcp.commands.eval_cases import heading_lines
from docsmcp.sources.formats.markdown.fences import _fenced_lines, fenced_lines
from docsmcp.sources.formats.markdown.mdx import admonitions_to_text, drop_esm
from docsmcp.sources.frontmatter import find_inline_hints
from docsmcp_runtime.bundle.reader import open_bundle
from docsmcp_runtime.tools.app import DocsApp
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

# A one-line code span that looks like a fence: CommonMark says it opens nothing.
MDX = """\
# Install

```npm i acme``` is the first step.

import { Tabs } from '@theme/Tabs';

:::tip Keep keys secret

Never commit them.

:::

<!-- mcp_chunking_hint: {"chunk_by": "h3"} -->

## Usage

```js
import x from "y";
# not a heading
```
"""


def test_one_line_code_span_does_not_open_a_fence() -> None:
    lines = MDX.split("\n")
    assert not any(fenced_lines(lines)[:16])
    assert "import { Tabs }" not in "\n".join(drop_esm(lines))  # stripped: not code
    assert 'import x from "y";' in "\n".join(drop_esm(lines))  # kept: inside a real fence
    assert "Tip: Keep keys secret\\" in admonitions_to_text(lines)
    assert [line for line, _ in find_inline_hints(MDX)] == [13]
    assert heading_lines(MDX) == {"install", "usage"}


def test_a_fence_written_inside_an_export_is_javascript() -> None:
    """Nextra's page builds a code block in a template literal: its `~~~jsx` line opened a
    fence that never closed, and every component after it was left as markup."""
    lines = [
        "import { Steps } from 'nextra/components'",
        "",
        "export async function Example() {",
        '  const raw = `~~~jsx filename="page.jsx"',
        "${source}",
        "~~~`",
        "  return <Remote source={raw} />",
        "}",
        "",
        "# Content directory",
        "",
        "<Steps>",
        "### Create a page",
        "</Steps>",
        "",
        "```js",
        "export const kept = 1",
        "```",
    ]
    out = drop_esm(lines)
    assert not any(out[:8]) and out[9:15] == lines[9:15]
    assert out[16] == "export const kept = 1"  # inside a real fence
    assert not any(fenced_lines(out)[9:15])  # the page's own lines are no code


def test_the_fix_reaches_the_bundle(tmp_path: Path) -> None:
    """Chunks keep the original markdown, but the import is no longer searchable text."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "page.mdx").write_text(MDX, encoding="utf-8")
    app = DocsApp(open_bundle(build_bundle(docs, tmp_path / "idx")))

    def found(query: str) -> list[str]:
        hits = app.call_tool("search_docs", {"query": query})["structuredContent"]["hits"]
        return [h["chunk_id"] for h in hits]

    assert found("theme Tabs") == []
    assert found("Keep keys secret") == ["page.mdx#install"]


LINES = st.sampled_from(
    [
        "```", "````", "~~~", "~~~~", "```js", "```js```", "``` `x`", "~~~ `x`", "``` ", "~~~ x",
        "  ```", "   ~~~", "text", "", "# heading", "````` more", "```python title=a.py",
    ]
)  # fmt: skip


@settings(max_examples=400, derandomize=True, database=None, deadline=None)
@given(st.lists(LINES, max_size=14))
def test_tracker_agrees_with_markdown_it(lines: list[str]) -> None:
    """Where CommonMark defines fences (indent 0-3, outside lists), our lines are its lines.
    (markdown-it leaves trailing blank lines out of an unclosed fence; they matter to no one.)"""
    while lines and not lines[-1]:
        lines.pop()
    expected = [False] * len(lines)
    for token in MarkdownIt("commonmark").parse("\n".join(lines)):
        if token.type == "fence" and token.map is not None:
            start, end = token.map
            for i in range(start, min(end, len(lines))):
                expected[i] = True
    assert fenced_lines(lines) == expected


_FENCE_PIECES = st.sampled_from(
    ["```", "````", "~~~", "~~~~", "`", "~", " ", "\t", "js", "a", "`x`", "\r", "\u00a0", "\u2003"]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.lists(_FENCE_PIECES, max_size=5).map("".join), max_size=14))
def test_remembered_fence_flags_are_the_rule_s(lines: list[str]) -> None:
    """`fenced_lines` remembers the last lines' flags (a file's passes ask about the same
    lines): asked again, after its answer was changed by the caller or about other lines, it
    still gives what the rule gives."""
    want = _fenced_lines(lines)
    first = fenced_lines(lines)
    assert first == want
    first.append(True)  # the caller's copy, not the remembered one
    assert fenced_lines(list(lines)) == want
    other = [*lines, "```"]
    assert fenced_lines(other) == _fenced_lines(other)
    assert fenced_lines(lines) == want
