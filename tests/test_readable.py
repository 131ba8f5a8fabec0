"""What a reader sees (issue 27): MDX components, inline HTML and pymdownx blocks are indexed and
shown as their text, code blocks stay exact, explicit heading anchors are the chunk id's slug
(so `get_doc("tutorial/cors.md#use-corsmiddleware")` and `{anchor}` links work), and every
chunk's `source.lines` still points at the file's own lines."""

from __future__ import annotations

import json
import re
import shutil
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from conftest import FUZZ, build_bundle, corpus, run_docsmcp
from docsmcp.chunking.chunk import chunk_file
from docsmcp.sources.corpus import load_corpus
from docsmcp.sources.formats.markdown.readable import reduce
from hypothesis import given
from hypothesis import strategies as st
from mcp_client import McpSession, text_of

# Shaped like the MCP docs' own Mintlify pages (community/contributing.mdx, extensions/*).
MINTLIFY = """---
title: Client credentials
---

import { Badge } from "/snippets/badge.mdx";

export const Check = () => (
  <span className="text-green-500">

    <Icon icon="check" />
  </span>
);

<div className="mx-auto inline-grid max-w-lg grid-cols-1 gap-4">
  <CustomizingYourThemeColors utility="accent" />
</div>

## Install the SDK

<Steps>
  <Step title="Declare support">
    Include the extension in its <Tooltip content={defs.capabilities}>capabilities</Tooltip>:

    <CodeGroup>
    ```json capabilities.json
    {
      "extensions": {"io.modelcontextprotocol/oauth-client-credentials": {}}
    }
    ```
    </CodeGroup>
  </Step>
  <Step title="Validate the token">
    <Note>
      Verify the JWT signature against the JWKS endpoint.
    </Note>
  </Step>
</Steps>

<CardGroup cols={2}>
  <Card title="Authorization" icon="lock" href="/specification/authorization">
    How servers check tokens.
  </Card>
</CardGroup>

## Response

<ResponseField name="access_token" type="string" required>
  The token the client sends.
</ResponseField>
<ParamField query="scope" type="string" default="read">
  Space-separated scopes.
</ParamField>
<Param name="audience" type="String" optional>
  The resource the token is for.
</Param>

<Accordion title="Why client credentials?">
  No user is present: a machine talks to a machine.
</Accordion>

<Frame caption="The token flow">
  <img
    src="/images/flow.png"
    alt="Client, authorization server and MCP server"
  />
</Frame>

{/* a comment the reader never sees */}
Tokens expire{' '}after an hour &mdash; refresh them.
"""

CODE = '{\n  "extensions": {"io.modelcontextprotocol/oauth-client-credentials": {}}\n}'
MARKUP = ("className", "<Step", "<CodeGroup", "<Card", "<Note", "<Tooltip", "<div", "<img", "{/*")

# pymdownx and mkdocs-material as FastAPI and pydantic write them.
PYMDOWNX = """# Request Files { #request-files }

/// note | `async` Technical Details

When you use the `async` methods, **FastAPI** runs them in a threadpool.

///

//// tab | Python 3.10+
    type: python

```Python hl_lines="1"
async def create_file(file: bytes = File()):
    return {"file_size": len(file)}
```

////

=== "Python"

    Use <abbr title="also known as">a.k.a.</abbr> `UploadFile`.<br>
    It has a file-like <dfn title="asynchronous">async</dfn> interface.

!!! tip "Files"
    Read them with `await file.read()`.
"""

# FastAPI's tutorial/cors.md, abridged (FastAPI, MIT licence, © Sebastián Ramírez).
CORS = """# CORS (Cross-Origin Resource Sharing) { #cors-cross-origin-resource-sharing }

CORS or "Cross-Origin Resource Sharing" refers to the situations when a frontend running in a
browser has JavaScript code that communicates with a backend.

## Origin { #origin }

An origin is the combination of protocol (`http`, `https`), domain and port.

## Use `CORSMiddleware` { #use-corsmiddleware }

You can configure it in your **FastAPI** application using the `CORSMiddleware`.

```Python
app.add_middleware(CORSMiddleware, allow_origins=origins)
```

### CORS preflight requests {#cors-preflight-requests .small}

These are any `OPTIONS` request with `Origin` and `Access-Control-Request-Method` headers.
"""


def _write(tmp_path: Path, files: dict[str, str]) -> Path:
    docs = tmp_path / "docs"
    for name, text in files.items():
        (docs / name).parent.mkdir(parents=True, exist_ok=True)
        (docs / name).write_text(text, encoding="utf-8")
    return docs


def _chunks(docs: Path, path: str) -> list:
    corpus = load_corpus(docs)
    (sf,) = [f for f in corpus.files if f.path == path]
    return chunk_file(sf)


def _source_lines(docs: Path, path: str, c) -> list[str]:  # type: ignore[no-untyped-def]
    return (docs / path).read_text(encoding="utf-8").split("\n")[c.line_start - 1 : c.line_end]


def test_mintlify_components_read_as_their_text(tmp_path: Path) -> None:
    docs = _write(tmp_path, {"auth.mdx": MINTLIFY})
    chunks = {c.heading: c for c in _chunks(docs, "auth.mdx")}
    install = chunks["Install the SDK"]
    for c in chunks.values():
        for mark in MARKUP:
            assert mark not in c.text and mark not in c.search_text, (c.id, mark, c.text)
        assert "mx-auto" not in c.text and "accent" not in c.text and "text-green" not in c.text
    # Step titles, text children and the tooltip's text stay; the code block is exact (its
    # indentation inside the components gone, as MDX renders it).
    assert "Declare support" in install.text and "Validate the token" in install.text
    assert "Include the extension in its capabilities:" in install.text
    assert f"```json capabilities.json\n{CODE}\n```" in install.text
    assert "Verify the JWT signature against the JWKS endpoint." in install.text
    assert "Authorization" in install.text and "How servers check tokens." in install.text
    response = chunks["Response"]
    assert "access_token (string, required)" in response.text
    assert "scope (string, default: read)" in response.search_text
    assert "audience (String, optional)" in response.text  # Express' `<Param … optional>`
    assert "Why client credentials?" in response.text
    assert "The token flow — " not in response.text and "The token flow" in response.text
    assert "Client, authorization server and MCP server" in response.text
    assert "Tokens expire after an hour — refresh them." in response.text
    assert "a comment the reader never sees" not in response.text
    # The lines stay the file's: each chunk's range holds exactly its heading and last words.
    for c in chunks.values():
        lines = _source_lines(docs, "auth.mdx", c)
        if c.heading in ("Install the SDK", "Response"):
            assert lines[0] == f"## {c.heading}", (c.id, lines[0])


def test_pymdownx_blocks_tabs_and_inline_html_read_as_text(tmp_path: Path) -> None:
    docs = _write(tmp_path, {"request-files.md": PYMDOWNX})
    main, tab = _chunks(docs, "request-files.md")  # the Python tab has a chunk of its own
    assert main.id == "request-files.md#request-files"
    text = main.text
    assert "Note: `async` Technical Details" in text
    assert "///" not in text and "type: python" not in text
    assert "Python 3.10+\n" in text
    assert 'async def create_file(file: bytes = File()):\n    return {"file_size"' in text
    assert "Tip: Files\nRead them with `await file.read()`." in text
    # The content tab's body is dedented; <abbr> and <dfn> are their text, <br> a line break.
    assert tab.text == "Python\n\nUse a.k.a. `UploadFile`.\nIt has a file-like async interface."
    assert "also known as" not in tab.search_text  # a tooltip, not text on the page
    assert (main.line_start, main.line_end, tab.line_start, tab.line_end) == (1, 25, 19, 22)


def test_a_command_per_package_manager_is_text(tmp_path: Path) -> None:
    """Tauri's `<CommandTabs npm=… yarn=… />` (121 uses, inside `<TabItem>`s, over several
    lines): every install command was lost, the self-closing tag read as a set of tabs."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.mdx").write_text(
        "import CommandTabs from '@components/CommandTabs.astro';\n\n## Setup\n\n<Tabs>\n"
        '  <TabItem label="Automatic">\n\n    Add the dependency:\n\n    <CommandTabs\n'
        '      npm="npm run tauri add autostart"\n      yarn="yarn run tauri add autostart"\n'
        '    />\n\n  </TabItem>\n</Tabs>\n\nOne: <CommandTabs npm="npm x" />\n',
        encoding="utf-8",
    )
    (chunk,) = chunk_file(load_corpus(docs).files[0])
    assert "npm run tauri add autostart — yarn run tauri add autostart" in chunk.text
    assert chunk.text.endswith("One:")  # (one prop alone: no set of commands)


def test_yes_and_no_icons_in_a_table_are_their_marks() -> None:
    """Next.js' "Server or Client Component?" table says everything with `<Check size={18} />`
    and `<Cross size={18} />`: its cells were empty."""
    mdx = [
        "| What do you need to do? | Server Component | Client Component |",
        "| --- | --- | --- |",
        "| Fetch data | <Check size={18} /> | <Cross size={18} /> |",
        "| A checkbox | <Checkbox /> | <CheckIcon/> |",
    ]
    display = reduce(mdx, mdx, True)[0]
    assert display[2] == "| Fetch data | ✓ | ✗ |"
    assert display[3] == "| A checkbox | | ✓ |"


def test_a_union_type_written_in_html_keeps_its_indent_a_table_row_starts_the_line() -> None:
    """The MCP schema's TypeDoc HTML writes `JSONRPCMessage:<br/>&nbsp;&nbsp;| JSONRPCRequest`:
    its lines keep their indent, where an HTML table's rows (`| a | b |`) start at the margin."""
    union = (
        '<div class="tsd-signature"><span>JSONRPCMessage</span>:<br/>&nbsp;&nbsp;<span>|</span> '
        '<a href="#a">JSONRPCRequest</a><br/>&nbsp;&nbsp;<span>|</span> <a href="#b">JSONRPCError'
        "</a></div>"
    )
    table = "  <table><tr><td>a</td><td>b</td></tr></table>"
    display = reduce([union, "", table], [union, "", table], True)[0]
    assert display[0].split("\n") == ["JSONRPCMessage:", "  | JSONRPCRequest", "  | JSONRPCError"]
    assert display[2].split("\n") == ["| a | b |", "| --- | --- |"]


def test_reduction_keeps_every_line_where_it_was() -> None:
    """Line count and code lines are unchanged; lines of text only lose markup."""
    lines = MINTLIFY.split("\n")
    for mdx in (True, False):
        display, parse, _ = reduce(lines, lines, mdx)
        assert len(display) == len(parse) == len(lines)
    display, _, _ = reduce(lines, lines, True)
    at = lines.index("    ```json capabilities.json")
    assert display[at] == "```json capabilities.json"
    assert display[at + 2] == lines[at + 2][4:]  # dedented, relative indentation kept
    # A .md file keeps what CommonMark would show as text of an unknown tag.
    md = ["Pass <your-token> here, <b>now</b>."]
    assert reduce(md, md, False)[0] == ["Pass <your-token> here, now."]
    # A table written a tag a line (NestJS) shows its rows, the lines after it blank.
    tall = ["<table>", "  <tr>", "    <td>", "      <code>get()</code>", "    </td>",
            "    <td>", "      Retrieves an instance.", "    </td>", "  </tr>", "</table>", "",
            "After."]  # fmt: skip
    display, parse, _ = reduce(tall, tall, False)
    assert len(display) == len(parse) == len(tall)
    assert display[0] == "| get() | Retrieves an instance. |\n| --- | --- |"
    assert not any(display[1:11]) and display[11] == "After."
    # ... and a link in a cell is on the line its text shows on (else in no chunk's lines)
    linked = [*tall[:6], '      See <a href="/module-ref">module ref</a>.', *tall[7:]]
    assert reduce(linked, linked, False)[2] == ((0, "href", "/module-ref"),)
    # A blank line ends an HTML block: the rows after it keep their lines.
    gap = ["<table><tr><td>a</td>", "", "<td>b</td></tr></table>", "# Next"]
    assert reduce(gap, gap, False)[0][3] == "# Next"
    # A closed custom element is markup (Angular's banners in NestJS' pages, web components).
    md = ["<app-banner-courses></app-banner-courses>", "<sl-button>Go</sl-button> <x-y>"]
    assert reduce(md, md, False)[0] == ["", "Go <x-y>"]
    table = ["<table><tr><th>Name</th><th>Type</th></tr><tr><td>id</td><td>str</td></tr></table>"]
    # an HTML table shows as pipe rows (GitBook's 44 tables had their cells run together)
    assert reduce(table, table, False)[0] == ["| Name | Type |\n| --- | --- |\n| id | str |"]
    assert reduce(table, table, False)[1][0].strip() == "| Name | Type | | --- | --- | | id | str |"
    cell = ["<table><tr><td>a<br>b</td><td><p>c</p></td></tr></table>"]
    assert reduce(cell, cell, False)[0] == ["| a b | c |\n| --- | --- |"]


def test_custom_elements_a_page_closes_are_markup() -> None:
    """React Router's `.md` pages call out with `<docs-info>…</docs-info>` (108 tags on 49
    pages were shown): a custom element the file closes is markup, its text stays; one never
    closed is a placeholder and stays text, and a tag in a code span is code."""
    md = [
        "<docs-warning>This API is experimental, pay **very** close",
        "attention to release notes.</docs-warning>",
        "",
        "<docs-info>",
        "",
        "Use `<docs-info>` for notes; pass <your-token> here.",
        "",
        "</docs-info>",
    ]
    display = reduce(md, md, False)[0]
    assert display[0] == "This API is experimental, pay **very** close"
    assert display[1] == "attention to release notes."
    assert display[3] == "" and display[7] == ""
    assert display[5] == "Use `<docs-info>` for notes; pass <your-token> here."


def test_explicit_anchor_is_the_id_and_get_doc_reaches_it(tmp_path: Path) -> None:
    docs = _write(tmp_path, {"tutorial/cors.md": CORS})
    ids = [c.id for c in _chunks(docs, "tutorial/cors.md")]
    assert "tutorial/cors.md#cors-cross-origin-resource-sharing/use-corsmiddleware" in ids
    assert not any(re.search(r"([a-z-]{5,})-\1\b", i) for i in ids), ids
    bundle = build_bundle(
        docs, tmp_path / "idx", "--source-url", "https://x.test/{path_noext}#{anchor}"
    )
    with McpSession(bundle) as s:
        doc = s.get_doc("tutorial/cors.md#use-corsmiddleware")
        assert "## Use `CORSMiddleware`\n" in doc and "{ #" not in doc
        assert "### CORS preflight requests\n" in doc and ".small" not in doc  # `{#x .class}`
        hit = s.search(query="CORSMiddleware allow_origins", limit=1)["hits"][0]
        assert hit["source"]["url"] == "https://x.test/tutorial/cors#use-corsmiddleware"
        assert "{ #" not in hit["snippet"]
        error = s.tool_error("get_doc", {"chunk_id": "tutorial/cors.md#no-such-anchor"})
        assert "not found" in error


def test_badges_in_a_heading_are_pictures_not_its_words(tmp_path: Path) -> None:
    """A README's title with status badges (`# Serilog [![Build status](…)](…)`, python-fire's
    `# Python Fire [![PyPI](…)](…)`) reads as GitHub shows it: the badges are pictures, so the
    heading, its id and every breadcrumb below it are the title's words; a heading that is
    only an image keeps its alt text."""
    readme = (
        "# Serilog [![Build status](https://ci.test/b.svg)](https://ci.test) "
        "[![NuGet Version](https://n.test/v.svg)](https://n.test/p)\n\n"
        "Flexible, structured events.\n\n## Get started ![new](new.png) today\n\nInstall it.\n"
    )
    docs = _write(tmp_path, {"README.md": readme, "logo.md": "# ![Acme logo](logo.png)\n\nText.\n"})
    chunks = _chunks(docs, "README.md")
    assert [c.id for c in chunks] == ["README.md#serilog", "README.md#serilog/get-started-today"]
    assert chunks[1].breadcrumb == "README.md > Serilog > Get started today"
    assert [c.heading for c in _chunks(docs, "logo.md")] == ["Acme logo"]


REACT_MD = """---
title: Rendering Lists
---

<Intro>

You will often want to display similar components from a collection of data.

</Intro>

<YouWillLearn>

* How to render components from an array

</YouWillLearn>

## Rendering data from arrays {/*rendering-data-from-arrays*/}

<Diagram name="list" height={350} alt="Three cards in a row." />

Use `map()` with a `key={id}` prop: `{people.map(p => <li>{p}</li>)}` stays code.

<Sandpack>

```js
export default function List() {
  return <ul>{items}</ul>;
}
```

</Sandpack>
"""


def test_markdown_written_as_mdx_reads_as_its_text(tmp_path: Path) -> None:
    """react.dev's pages are `.md` files of JSX components (Docusaurus 3 reads every `.md` as
    MDX too): their tags go and their text stays, as in an `.mdx`; explicit heading ids hold.
    A `.md` whose only capitals in brackets are placeholders stays plain markdown."""
    docs = _write(
        tmp_path,
        {
            "learn/rendering-lists.md": REACT_MD,
            "auth.md": "# Auth\n\n<API_KEY> goes in the `Authorization` header: {token}.\n",
            "tabs.md": "import Tabs from '@theme/Tabs';\n\n# Tabs\n\n<Tabs>\nIn tabs.\n</Tabs>\n",
            "home.md": "# React\n\n{/* See HomeContent.js */}\n\nThe library for web UIs.\n",
            "sponsors.md": '# Sponsors\n\nThanks.\n\n<VPSponsors :data="sponsors ?? []" />\n',
            "team.md": "# Team\n\n<VPTeamPage>\n  <template #title>Meet the Team</template>\n"
            "  <template v-slot:lead>Guided by an international team.</template>\n"
            "  <template><p>Inert markup.</p></template>\n</VPTeamPage>\n",
        },
    )
    chunks = {c.id: c for c in _chunks(docs, "learn/rendering-lists.md")}
    assert list(chunks) == [
        "learn/rendering-lists.md#_preamble",
        "learn/rendering-lists.md#rendering-data-from-arrays",
    ]
    text = "\n".join(c.text for c in chunks.values())
    for mark in ("<Intro>", "</Intro>", "<YouWillLearn>", "<Diagram", "<Sandpack>", "{/*"):
        assert mark not in text, mark
    assert "You will often want to display similar components" in text
    assert "Three cards in a row." in text  # alt text is prose
    assert "`key={id}`" in text and "`{people.map(p => <li>{p}</li>)}`" in text
    assert "```js\nexport default function List() {\n  return <ul>{items}</ul>;\n}\n```" in text
    (auth,) = _chunks(docs, "auth.md")
    assert "<API_KEY> goes in the `Authorization` header: {token}." in auth.text
    (tabs,) = _chunks(docs, "tabs.md")
    assert "import" not in tabs.text and "<Tabs>" not in tabs.text and "In tabs." in tabs.text
    # An MDX comment on a line of its own says the same (react.dev's index.md holds only that).
    (home,) = _chunks(docs, "home.md")
    assert "{/*" not in home.text and "The library for web UIs." in home.text
    # A component named with capitals first (VitePress' `<VPSponsors>`, vite's sponsors page).
    (sponsors,) = _chunks(docs, "sponsors.md")
    assert "<VPSponsors" not in sponsors.text and "Thanks." in sponsors.text
    # Vue renders a `<template>` with a slot directive (vite's team page); HTML's stays unseen.
    (team,) = _chunks(docs, "team.md")
    assert "Meet the Team" in team.text and "Guided by an international team." in team.text
    assert "Inert markup" not in team.text and "<template" not in team.text


def test_mdx_headings_keep_their_explicit_ids(tmp_path: Path) -> None:
    """`{#id}` and `{/*id*/}` end an MDX heading as its id, not as an expression to drop."""
    docs = _write(
        tmp_path,
        {
            "a.mdx": "# T\n\n## Install it {#setup}\n\nText.\n\n## Other {/*other-id*/}\n\n"
            "More {x}.\n"
        },
    )
    chunks = _chunks(docs, "a.mdx")
    assert [c.id for c in chunks] == ["a.mdx#t/setup", "a.mdx#t/other-id"]
    assert chunks[0].text == "# T\n\n## Install it\n\nText."
    assert chunks[1].text == "## Other\n\nMore ."


def test_get_page_shows_the_reduced_text(tmp_path: Path) -> None:
    docs = _write(tmp_path, {"auth.mdx": MINTLIFY})
    bundle = build_bundle(docs, tmp_path / "idx")
    with McpSession(bundle) as s:
        page = json.loads(text_of(s.call("get_page", {"path": "auth.mdx"})))
        hits = s.search(query="validate the token JWKS", limit=3)["hits"]
    text = page["text"] if "text" in page else json.dumps(page)
    for mark in MARKUP:
        assert mark not in text, mark
    assert CODE in text and "Declare support" in text
    # The page component defined in the page (`export const Check = () => (` with blank lines)
    # is not its description.
    assert page["description"] != ");"
    assert hits and all("<Note" not in h["snippet"] for h in hits)


# -- fuzz: tag soup ------------------------------------------------------------------------------

_SOUP = st.lists(
    st.sampled_from(
        [
            "<",
            ">",
            "</",
            "/>",
            "<div ",
            '<Step title="',
            '"',
            "'",
            "{",
            "}",
            "{/*",
            "*/}",
            "<!--",
            "-->",
            "`",
            "```",
            "\n",
            "    ",
            "<br>",
            "<li>",
            "&amp;",
            "&",
            "=",
            "x",
            "className={{a: 1}}",
            "<svg>",
            "</svg>",
            "/// note | T",
            "///",
            "<Card title='y'>",
            "</Card>",
            '<img alt="z"/>',
            "text ",
            '<ResponseField name="n" type="t">',
        ]
    ),
    max_size=80,
).map("".join)


@FUZZ
@given(soup=_SOUP, mdx=st.booleans())
def test_random_tag_soup_reduces_without_error_or_growth(soup: str, mdx: bool) -> None:
    lines = soup.split("\n")
    display, parse, _ = reduce(lines, lines, mdx)
    assert len(display) == len(parse) == len(lines)
    size = sum(len(line) for line in lines)
    # Breaks may become newlines and `<li>` a `- `: never more than a few characters each.
    assert sum(len(line) for line in display) <= 2 * size + 8
    assert sum(len(line) for line in parse) <= 2 * size + 8
    assert not any("\n" in line for line in parse)


def test_long_unclosed_soup_is_linear() -> None:
    """Each unclosed `{`, `<x a={` or comment is a bounded search, and a file's failed searches
    share one budget: 200,000 of them take about a second, not hours."""
    for soup in ("{" * 200_000, "<a b={" * 40_000, "<!--" * 50_000, "<svg>" * 40_000):
        started = time.process_time()
        display, _, _ = reduce([soup], [soup], True)
        assert time.process_time() - started < 20
        assert len(display[0]) <= len(soup)


VITEPRESS = """# Basic auth

Set <Badge type="tip" text="beta" /> options. Replace <YourToken> with yours.

## Options

### <Badge type="danger" text="required" /> username: `string`

The user name.
"""


def test_vitepress_components_in_markdown_read_as_their_text(tmp_path: Path) -> None:
    """VitePress' `.md` pages hold Vue components written self-closing (Hono: 105 badges): their
    prose props are their text, but in a heading, whose anchor VitePress makes without them;
    a placeholder (`<YourToken>`) is no component and stays."""
    docs = _write(tmp_path, {"auth.md": VITEPRESS})
    intro, options = _chunks(docs, "auth.md")
    assert "Set beta options. Replace <YourToken> with yours." in intro.text
    assert "### username: `string`\n" in options.text and "<Badge" not in options.text
    assert "required" not in options.search_text
    manifest = {"version": "1", "strategy": {"chunk_by": "h3"}}
    (docs / ".docs-mcp.json").write_text(json.dumps(manifest), encoding="utf-8")
    bundle = build_bundle(docs, tmp_path / "idx")
    with McpSession(bundle) as s:
        assert "The user name." in s.get_doc("auth.md#basic-auth/options/username-string")


def test_a_dark_mode_twin_is_read_once(tmp_path: Path) -> None:
    """Mintlify's pages show a picture per colour scheme: `dark:hidden` for light mode,
    `hidden dark:block` for dark mode. A reader sees one: its alt text is read once."""
    page = (
        "# Navigation\n\n## Groups\n\nUse groups.\n\n"
        '<img className="block dark:hidden" alt="Groups in the sidebar." src="/l.png" />\n'
        '<img className="hidden dark:block" alt="Groups in the sidebar." src="/d.png" />\n'
        '<div className="hidden md:block">Wide screens say ocelot.</div>\n'
    )
    (groups,) = _chunks(_write(tmp_path, {"nav.mdx": page}), "nav.mdx")
    assert groups.text.count("Groups in the sidebar.") == 1
    assert "ocelot" in groups.text  # hidden on small screens only: still on the page


# -- real corpora --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def mcp_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The MCP docs built as a user would: `init --write`, then build."""
    root = tmp_path_factory.mktemp("mcp")
    docs = root / "docs"
    shutil.copytree(corpus("mcp-docs"), docs)
    run_docsmcp("init", "--docs-dir", docs, "--write")
    return build_bundle(docs, root / "idx")


_TAG_SOURCE = re.compile(r"className=|</?(?:Steps?|CodeGroup|Tabs?|Card|Note|Warning)\b")


def _outside_code(text: str) -> str:
    """`text` without code blocks and spans (a snippet's flattened block may be cut short)."""
    text = re.sub(r"^([ \t]*)(`{3,}|~{3,}).*?^\1\2[ \t]*$", "", text, flags=re.M | re.S)
    text = re.sub(r"```.*?(```|$)", "", text, flags=re.S)
    return re.sub(r"`[^`\n]*`", "", text)


@pytest.mark.corpus
def test_mcp_docs_snippets_and_sections_read_without_jsx(mcp_bundle: Path) -> None:
    rows = pq.read_table(mcp_bundle / "chunks.parquet", columns=["id", "text"]).to_pylist()
    leaks = [r["id"] for r in rows if _TAG_SOURCE.search(_outside_code(r["text"]))]
    assert not leaks, leaks[:5]
    assert not [r["id"] for r in rows if "<span class=" in r["text"]][:5]
    # Code blocks are intact: every fenced block of a page's source is in its chunks' text.
    source = (corpus("mcp-docs") / "community/contributing.mdx").read_text(encoding="utf-8")
    page = "\n".join(r["text"] for r in rows if r["id"].startswith("community/contributing.mdx"))
    blocks = re.findall(r"^([ \t]*)```[^\n]*\n(.*?)^\1```", source, flags=re.M | re.S)
    assert len(blocks) > 3
    for indent, body in blocks:
        dedented = "\n".join(line[len(indent) :] for line in body.rstrip("\n").split("\n"))
        assert dedented in page, body
    with McpSession(mcp_bundle) as s:
        for query in ("client credentials install SDK steps", "contribute documentation changes"):
            for hit in s.search(query=query, limit=10)["hits"]:
                assert not _TAG_SOURCE.search(_outside_code(hit["snippet"])), hit["chunk_id"]
                doc = s.get_doc(hit["chunk_id"])
                assert not _TAG_SOURCE.search(_outside_code(doc)), hit["chunk_id"]


@pytest.mark.corpus
def test_yellow_docs_read_without_component_markup(tmp_path: Path) -> None:
    bundle = build_bundle(corpus("yellow-docs"), tmp_path / "idx")
    rows = pq.read_table(bundle / "chunks.parquet", columns=["id", "text"]).to_pylist()
    text = {r["id"]: _outside_code(r["text"]) for r in rows}
    assert not [i for i, t in text.items() if "<Tooltip" in t or "<TabItem" in t][:5]
    # `<Tooltip content={definitions.channel}>state channel</Tooltip>`: the text a reader sees
    assert any("A state channel protocol" in t for t in text.values())


def test_a_script_block_with_blank_lines_leaves_nothing_in_markdown(tmp_path: Path) -> None:
    """CommonMark runs a `<script>` or `<style>` HTML block to its closing tag, blank lines and
    all: VitePress' `<script setup>` (a page's imports and code) showed as text after its first
    blank line."""
    docs = _write(
        tmp_path,
        {
            "ack.md": "# Ack\n\n<script setup>\nimport { data } from './x.data'\n\n"
            "const sponsors = useSponsor()\n</script>\n\nThanks to all.\n\n"
            "<style>\n.a { color: red }\n\n.b {}\n</style>\n\nMore text.\n",
        },
    )
    (chunk,) = _chunks(docs, "ack.md")
    for leaked in ("import", "useSponsor", "color", ".b"):
        assert leaked not in chunk.text and leaked not in chunk.search_text, leaked
    assert "Thanks to all." in chunk.text and "More text." in chunk.text
    assert (chunk.line_start, chunk.line_end) == (1, 17)


def test_a_comment_around_a_fenced_block_leaves_nothing(tmp_path: Path) -> None:
    """CommonMark reads an HTML comment to its `-->`, fences and all: Electron's API pages
    comment out a YAML block of each method's history (112 blocks in 26 pages), which was
    indexed and led the method's snippet."""
    docs = _write(
        tmp_path,
        {
            "api.md": "# ipcRenderer\n\n### `ipcRenderer.invoke(channel)`\n\n<!--\n"
            "```YAML history\nadded:\n  - pr-url: https://github.com/electron/pull/18449\n"
            "```\n-->\n\n* `channel` string\n\n```js\n// <!-- a comment in code stays\n"
            "ipcRenderer.invoke('x')\n```\n",
        },
    )
    (chunk,) = _chunks(docs, "api.md")
    for leaked in ("pr-url", "YAML", "history"):
        assert leaked not in chunk.search_text, leaked
    assert "pr-url" not in chunk.text and "```YAML" not in chunk.text
    assert "* `channel` string" in chunk.text
    assert "// <!-- a comment in code stays" in chunk.text  # code is never touched


def test_docusaurus_md_pages_with_imports_code_block_components_and_comments(
    tmp_path: Path,
) -> None:
    """React Native's `.md` pages, read as MDX by Docusaurus 3: an import line with no component
    after it was shown as text (121 chunks), each `<CodeBlock>` command as nothing but its
    title (66), and `[//]: # 'Android'` comments were indexed (132 lines)."""
    docs = _write(
        tmp_path,
        {
            "debugging.md": "# Debugging\n\n"
            "import Tabs from '@theme/Tabs'; import constants from '@site/core/TabsConstants';\n\n"
            "[//]: # 'Android'\n\nDownload the template:\n\n"
            '<CodeBlock language="bash" title="shell">\n'
            "{`curl -O https://example.com/${branch()}/package.json`}\n</CodeBlock>\n\n"
            "Then run it.\n",
            "plain.md": "# Plain\n\nimport the data from the file, then plot it.\n",
        },
    )
    (chunk,) = _chunks(docs, "debugging.md")
    assert "@theme" not in chunk.text and "Android" not in chunk.search_text
    assert "```bash\ncurl -O https://example.com/${branch()}/package.json\n```" in chunk.text
    assert "curl" in chunk.search_text and "Then run it." in chunk.text
    assert (chunk.line_start, chunk.line_end) == (1, 13)
    (plain,) = _chunks(docs, "plain.md")
    assert "import the data from the file" in plain.text  # prose, not an import statement


def test_astro_set_html_fragments_read_as_their_html(tmp_path: Path) -> None:
    """Biome's lint rule pages put each diagnostic in `<Fragment set:html={"<pre>…"} />` (1,674
    of them, on 580 pages): the page shows that HTML, and it left nothing."""
    html = (
        '<pre class=\\"language-text\\"><code>code-block.js:1:1 '
        '<a href=\\"/r\\">lint/noDebugger</a>'
        '<br /><br />  <span style=\\"color: Tomato;\\">✖</span> This is an unexpected use of the '
        "debugger statement.<br /></code></pre>"
    )
    docs = _write(
        tmp_path,
        {
            "rule.mdx": "# noDebugger\n\n### Invalid\n\n"
            f'<Fragment set:html={{"{html}"}} />\n\nEnd.\n'
        },
    )
    (chunk,) = [c for c in _chunks(docs, "rule.mdx") if "Invalid" in c.heading]
    assert "This is an unexpected use of the debugger statement." in chunk.text
    assert "lint/noDebugger" in chunk.search_text
    for leaked in ("set:html", "<pre", "Tomato", "<br"):
        assert leaked not in chunk.text, leaked


def test_get_doc_reaches_a_heading_whose_empty_section_merged_into_the_next(
    tmp_path: Path,
) -> None:
    """shadcn's `## Outline` holds only a demo component: its section, empty, merges into the
    next chunk and has no id of its own (201 headings), yet the site links `#outline`."""
    docs = _write(
        tmp_path,
        {
            "button.mdx": '# Button\n\nIntro.\n\n## Default\n\n<ComponentPreview name="a" />\n\n'
            '## Outline\n\n<ComponentPreview name="b" />\n\n## With `Icon`\n\nText.\n',
        },
    )
    out = build_bundle(docs, tmp_path / "idx")
    with McpSession(out) as s:
        merged = s.get_doc("button.mdx#outline")
        assert "## Outline" in merged and "Text." in merged
        assert "Text." in s.get_doc("button.mdx#with-icon")
        assert "not found" in s.tool_error("get_doc", {"chunk_id": "button.mdx#nothing"})


def test_a_script_opening_within_a_paragraph_is_no_text() -> None:
    """OpenTelemetry's benchmark pages: two `<script src>` lines, then a 6 KB `<script>` with
    blank lines inside, all in one HTML block: the script was indexed as prose."""
    lines = [
        "Results below.",
        "",
        '<script src="https://cdn.example/chart.js"></script>',
        '<script id="main">',
        "  'use strict';",
        "",
        "  const COLORS = ['#48aaf9'];",
        "</script>",
        "",
        "After.",
    ]
    display, _, _ = reduce(lines, lines, False)
    assert [x for x in display if x.strip()] == ["Results below.", "After."]
    assert len(display) == len(lines)


def test_processing_instructions_are_no_text() -> None:
    """OpenTelemetry's `<?code-excerpt path-base="…"?>` lines (168, a code sync tool's marks):
    CommonMark reads them as raw HTML, which no reader sees."""
    lines = ["# Go", "", '<?code-excerpt path-base="examples/go"?>', "", "Text <?x y?> more."]
    lines += ["", "`<?php echo 1; ?>` in code."]
    display, _, _ = reduce(lines, lines, False)
    assert display == ["# Go", "", "", "", "Text more.", "", "`<?php echo 1; ?>` in code."]


def test_a_callouts_type_is_its_label() -> None:
    """Fumadocs' `<Callout type="warn">Server Component only.</Callout>` (~30) read as the bare
    sentence; its `[step]` headings kept the marker."""
    lines = ['<Callout type="warn">Server Component only.</Callout>', "",
             '<Callout title="Using always" type="info">', "Body", "</Callout>"]  # fmt: skip
    assert reduce(lines, lines, True)[0][:4] == [
        "Warning: Server Component only.", "", "Info: Using always", "Body",
    ]  # fmt: skip
