"""Bounded fuzz of the readers added in sessions 13 and 14 (issue 27): whatever text a page
holds, each returns in bounded time, raises nothing, and keeps what the pipeline relies on (as
many lines, where a reader rewrites lines in place; a value it does not understand leaves the
page alone). Their behaviour on the real sites' shapes is tested in each reader's own file."""

from __future__ import annotations

import base64
import json
import zlib

from conftest import FUZZ
from docsmcp.sources.formats.markdown import emoji, nestjs
from docsmcp.sources.formats.markdown.banner import drop_banner
from docsmcp.sources.formats.markdown.fences import fenced_lines
from docsmcp.sources.formats.markdown.home_page import home_lines
from docsmcp.sources.formats.openapi_docs import api_operation
from docsmcp.sources.inclusion import type_tables
from docsmcp.sources.inclusion.hugo_includes import Call, call, included
from docsmcp.sources.sites.ref_pages import shown_text
from docsmcp.sources.sites.router_pages import for_router
from hypothesis import given
from hypothesis import strategies as st

# Pieces of the syntaxes these readers look for, with text between them.
PIECES = st.sampled_from(
    [
        "@@filename(app.module)",
        "@@switch",
        "```ts",
        "```",
        "{{ '{' }}",
        "> info **Hint**",
        ":tada:",
        ":white_check_mark:",
        "::",
        '{{% include "x.md" %}}',
        "{{< include `a` b=c >}}",
        "{{ $1 }}",
        "{{ if $x }}",
        "{{ end }}",
        "<AppOnly>",
        "</AppOnly>",
        "<PagesOnly>",
        "[//]: # 'Example'",
        "[//]: # 'Materials'",
        '<h1 align="center">Fastify</h1>',
        "# Title",
        "\n",
        "",
    ]
)
TEXT = st.lists(st.one_of(PIECES, st.text(max_size=12)), max_size=30).map("".join)


@FUZZ
@given(TEXT)
def test_line_readers_keep_the_line_count(text: str) -> None:
    lines = text.split("\n")
    assert len(nestjs.read(lines, fenced_lines(lines))) == len(lines)
    assert len(drop_banner(lines)) == len(lines)
    for line in lines:
        shown = emoji.shortcodes(line)
        assert "\n" not in shown or "\n" in line
        assert emoji.shortcodes(shown) == shown  # once is enough


@FUZZ
@given(TEXT, st.sampled_from(["app", "pages", None]))
def test_router_parts_and_hugo_includes_raise_nothing(text: str, router: str | None) -> None:
    for_router(text, router)
    for line in text.split("\n"):
        found = call(line)
        if found is not None:
            included(found, text)
    included(Call("", "x.md", {"0": "x.md", "1": text[:20]}), text)


@FUZZ
@given(TEXT, TEXT, st.lists(st.tuples(st.text(min_size=1, max_size=4), st.text(max_size=4))))
def test_a_ref_page_shows_text_without_markers(named: str, own: str, replacements) -> None:
    shown = shown_text(named, own, replacements)
    assert "[//]: # 'Example'" not in shown.split("\n")


VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)


@FUZZ
@given(
    st.dictionaries(
        st.sampled_from(
            [
                "hero",
                "features",
                "actions",
                "footer",
                "tagline",
                "heroText",
                "home",
                "layout",
                "title",
            ]
        ),
        VALUES,
    )
)
def test_home_pages_of_any_frontmatter_raise_nothing(frontmatter: dict) -> None:
    assert all(isinstance(line, str) for line in home_lines(frontmatter))


@FUZZ
@given(VALUES)
def test_an_api_frontmatter_that_is_no_operation_is_none(value: object) -> None:
    """`api:` values as the plugin encodes them (deflated JSON, base64) of any shape, and raw
    values: an operation needs a method and a path."""
    encoded = base64.b64encode(zlib.compress(json.dumps(value).encode())).decode()
    for api in (value, encoded):
        found = api_operation({"api": api})
        assert found is None or (found.get("method"), found.get("path")) != (None, None)


TYPESCRIPT = st.lists(
    st.one_of(
        st.sampled_from(
            [
                "export interface Props {",
                "type Props = {",
                "}",
                "/** The size. @default 1 */",
                "size?: number;",
                "onClick: (e: Event) => void,",
                "items: Array<{ a: string }>;",
                "import { X } from './x';",
                "export { Props } from './props';",
                "/*",
                "*/",
                "'quoted': `tmpl ${a}`;",
                "\n",
            ]
        ),
        st.text(max_size=10),
    ),
    max_size=30,
).map("".join)


@FUZZ
@given(TYPESCRIPT)
def test_a_type_table_of_any_typescript_is_a_table_or_a_line(tmp_path_factory, source: str) -> None:
    """`<auto-type-table path="./props.ts" name="Props" />` over a file of any text: the props
    table or the one line naming the type, never an exception."""
    docs = tmp_path_factory.mktemp("types")
    (docs / "props.ts").write_text(source, encoding="utf-8")
    lines = ['<auto-type-table path="./props.ts" name="Props" />']
    (tag,) = type_tables.tags(lines, [False]).values()
    shown, _ = type_tables.render("page.mdx", tag, type_tables.Files(docs, (docs,)))
    assert shown and all(isinstance(line, str) for line in shown)
