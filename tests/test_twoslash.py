"""Twoslash code blocks read as their page shows them (issue 27, *Index what a reader sees*): the
setup above `// ---cut---`, cut ranges, compiler flags, query markers and `twoslash include`
blocks are neither indexed nor shown; what the reader sees stays exact, at its own lines."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import FUZZ, build_bundle
from docsmcp.chunking.chunk import chunk_file
from docsmcp.sources.corpus import load_corpus
from docsmcp.sources.formats.markdown.twoslash import hide_twoslash
from hypothesis import given
from hypothesis import strategies as st
from mcp_client import McpSession

# Shaped like tRPC's and Hono's pages (VitePress and Docusaurus sites with Shiki twoslash).
PAGE = """# Validators

```twoslash include router
import { initTRPC } from '@trpc/server';
const t = initTRPC.create();
```

## Input validators

To set up an input validator, use the `procedure.input()` method:

```ts twoslash title='server.ts'
// @target: esnext
// @filename: server.ts
import { initTRPC } from '@trpc/server';
import { z } from 'zod';
const t = initTRPC.create();
// ---cut---
export const appRouter = t.router({
  hello: t.procedure.input(z.object({ name: z.string() })).query((opts) => {
    const name = opts.input.name;
    //    ^?
    // @ts-expect-error
    return { greeting: `Hello ${name}` };
  }),
});
// ---cut-start---
declare function hiddenHelper(): void;
// ---cut-end---
export type AppRouter = typeof appRouter;
// ---cut-after---
appRouter.createCaller({});
```

Plain blocks keep every line:

```ts
// ---cut---
const plain = true;
```

## Including only

```ts twoslash
// @include: router
// ---cut---
```

The block above shows nothing.
"""

SHOWN = """```ts title='server.ts'
export const appRouter = t.router({
  hello: t.procedure.input(z.object({ name: z.string() })).query((opts) => {
    const name = opts.input.name;
    // @ts-expect-error
    return { greeting: `Hello ${name}` };
  }),
});
export type AppRouter = typeof appRouter;
```"""


def _docs(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "validators.md").write_text(PAGE, encoding="utf-8")
    return docs


def test_a_twoslash_block_is_what_its_page_shows(tmp_path: Path) -> None:
    docs = _docs(tmp_path)
    (sf,) = load_corpus(docs).files
    chunks = {c.heading: c for c in chunk_file(sf)}
    # The page's first section holds only an include block: nothing shown, merged with the next.
    assert sorted(chunks) == ["Including only", "Input validators"]
    inputs, only = chunks["Input validators"], chunks["Including only"]
    assert SHOWN in inputs.text
    for c in (inputs, only):
        for hidden in ("initTRPC", "@target", "@filename", "^?", "hiddenHelper", "createCaller"):
            assert hidden not in c.text and hidden not in c.search_text, (c.heading, hidden)
    # A block that is not twoslash keeps every line.
    assert inputs.text.count("---cut") == 1 and "// ---cut---\nconst plain = true;" in inputs.text
    assert "@include" not in only.text and "```" not in only.text
    assert "The block above shows nothing." in only.text
    # The lines are the file's: the shown code keeps its line numbers.
    lines = PAGE.split("\n")
    assert lines[inputs.line_start - 1] == "# Validators"
    assert lines[only.line_end - 1] == "The block above shows nothing."
    at = lines.index("export const appRouter = t.router({")
    shown = hide_twoslash(lines)
    fence = lines.index("```ts twoslash title='server.ts'")
    assert shown[at] == lines[at] and shown[at - 1] == SHOWN.split("\n")[0]  # the fence moved
    assert lines[fence] == "```ts twoslash title='server.ts'"  # down, without `twoslash`


def test_search_and_get_doc_see_the_shown_code_only(tmp_path: Path) -> None:
    bundle = build_bundle(_docs(tmp_path), tmp_path / "idx")
    with McpSession(bundle) as s:
        hits = s.search(query="greeting appRouter", limit=3)["hits"]
        assert hits[0]["chunk_id"] == "validators.md#validators/input-validators"
        assert "---cut" not in hits[0]["snippet"] and "@target" not in hits[0]["snippet"]
        assert not s.search(query="initTRPC", limit=3)["hits"]  # the hidden setup only
        doc = s.get_doc("validators.md#validators/input-validators")
        assert SHOWN in doc and "initTRPC" not in doc


_LINES = st.lists(
    st.sampled_from(
        [
            "```ts twoslash",
            "```twoslash include x",
            "```",
            "~~~ts twoslash",
            "~~~",
            "// ---cut---",
            "// ---cut-after---",
            "// ---cut-start---",
            "// ---cut-end---",
            "// @errors: 2322",
            "//   ^?",
            "const a = 1;",
            "",
            "  ```tsx twoslash",
            "// highlight-next-line",
            "{/* highlight-start */}",
            "text",
        ]
    ),
    max_size=40,
)


def _unmarked(line: str) -> str:
    return re.sub(r" twoslash\b", "", line) if line.lstrip().startswith(("```", "~~~")) else line


@FUZZ
@given(lines=_LINES)
def test_hiding_keeps_the_line_count_and_the_order_of_what_stays(lines: list[str]) -> None:
    out = hide_twoslash(lines)
    assert len(out) == len(lines)
    # What stays is the input's lines, in order (an opening fence without the word `twoslash`,
    # which no reader sees), the rest blank.
    kept = iter(lines)
    assert all(line == "" or any(line in (k, _unmarked(k)) for k in kept) for line in out)
    assert hide_twoslash(out) == out  # once is enough
    if not any("twoslash" in line or "highlight-" in line for line in lines):
        assert out is lines


def test_docusaurus_magic_comments_and_shiki_notations_are_not_shown() -> None:
    """Sequelize's code showed 274 `// highlight-next-line` / `highlight-start` lines, which
    Docusaurus reads and never shows; Shiki's `// [!code ++]` ends lines on VitePress sites."""
    lines = [
        "```js",
        "const a = 1;",
        "// highlight-next-line",
        "const b = 2; // [!code ++]",
        "  {/* highlight-start */}",
        "  <div/>",
        "  {/* highlight-end */}",
        "```",
        "```python",
        "# highlight-next-line is a comment about highlighting",
        "```",
    ]
    out = hide_twoslash(lines)
    assert len(out) == len(lines)
    assert out[:6] == ["```js", "const a = 1;", "const b = 2;", "  <div/>", "```", ""]
    assert out[8:] == lines[8:]  # a comment that says more is code


def test_a_fences_style_options_are_not_shown() -> None:
    """shadcn (995 fences), Biome (846), SQLModel, Vue Router: `showLineNumbers`, `{1,7}`,
    `hl_lines="3"` were shown on the fence; a reader sees the code and its title."""
    lines = [
        '```tsx showLineNumbers title="app/layout.tsx" {1,7}',
        "export default function Layout() {}",
        "```",
        '~~~{ .python .annotate hl_lines="42-53" }',
        "x = 1",
        "~~~",
        "```vue{3-5} [settings.vue]",
        "<template/>",
        "```",
        "```json Windows",
        "{}",
        "```",
        "````md",
        "```tsx showLineNumbers",
        "````",
        "```{code-block} python",
        "x = 1",
        "```",
        "```{note}",
        "A note {1}.",
        "```",
        '```sh frame="none" title="Terminal" npm2yarn',  # Expressive Code (Tauri: 48)
        "ls",
        "```",
    ]
    out = hide_twoslash(lines)
    assert out[-3] == '```sh title="Terminal"'
    assert [out[0], out[3], out[6], out[9]] == [
        '```tsx title="app/layout.tsx"',
        "~~~python",
        "```vue [settings.vue]",
        "```json Windows",
    ]
    assert out[13] == "```tsx showLineNumbers"  # inside another block: its text
    assert out[15:21] == lines[15:21]  # MyST directives are no options (myst.py reads them)
    assert len(out) == len(lines)
    # A block that also hides lines (a magic comment) shows its fence without the options too.
    both = ["```js showLineNumbers", "// highlight-next-line", "a()", "```"]
    assert hide_twoslash(both) == ["", "```js", "a()", "```"]


def test_shiki_notations_after_a_comments_words_go() -> None:
    # Fumadocs: `// disable SSR [!code highlight]` (48 lines) kept the notation.
    lines = ["```ts", "const a = 1; // disable SSR [!code highlight]", "b() # [!code ++]", "```"]
    assert hide_twoslash(lines) == ["```ts", "const a = 1; // disable SSR", "b()", "```"]
