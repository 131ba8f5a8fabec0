"""Section ids, rule ids and cross references (docsmcp.enrich: section_ids, xref, xref_resolve),
on small markdown files written to a temporary docs folder, on the shared corpora, and on fuzzed
markdown."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import CORPORA, FUZZ_EXAMPLES
from docsmcp.chunking.chunk import chunk_parsed, parse_file
from docsmcp.enrich.section_ids import section_id
from docsmcp.enrich.summary import page_description, summary
from docsmcp.enrich.xref import KINDS, CrossRefs, FileRefs, extract_refs
from docsmcp.enrich.xref_resolve import cross_references, resolve_refs
from docsmcp.model.chunk import Chunk, ParsedFile
from docsmcp.sources.convert import convert_source
from docsmcp.sources.corpus import load_corpus
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st


def load(docs: Path) -> tuple[list[ParsedFile], list[list[Chunk]]]:
    corpus = load_corpus(docs)
    files = [parse_file(sf) for sf in corpus.files]
    return files, [chunk_parsed(p) for p in files]


def write(docs: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (docs / name).parent.mkdir(parents=True, exist_ok=True)
        (docs / name).write_text(text, encoding="utf-8")
    return docs


class Refs:
    """Cross references of a docs folder, addressed by chunk id."""

    def __init__(self, docs: Path) -> None:
        files, chunks = load(docs)
        self.rows = [c for cs in chunks for c in cs]
        self.x: CrossRefs = cross_references(files, chunks)
        self.row = {c.id: k for k, c in enumerate(self.rows)}

    def targets(self, chunk_id: str) -> list[str]:
        return [self.rows[t].id for t in self.x.references[self.row[chunk_id]]]

    def rules(self, chunk_id: str) -> tuple[str, ...]:
        return self.x.rule_ids[self.row[chunk_id]]

    def summary(self, chunk_id: str) -> str | None:
        return self.x.summaries[self.row[chunk_id]]


def refs(tmp_path: Path, files: dict[str, str]) -> Refs:
    return Refs(write(tmp_path / "docs", files))


# -- section ids --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("heading", "expected"),
    [
        ("2.4.2.1 SID String Format Syntax", "2.4.2.1"),
        ("D1.2.3 Exception vectors", "D1.2.3"),
        ("§3.14 Foo", "3.14"),
        ("§ 3.14", "3.14"),
        ("Appendix A.2 Extra tables", "A.2"),
        ("Appendix B", "B"),
        ("1. Introduction", "1"),
        ("2.3. Scope", "2.3"),
        ("Chapter 4", "4"),
        ("Chapter 4: Types", "4"),
        ("Section 5.9.1 Keys", "5.9.1"),
        ("A.1 — Name", "A.1"),
        ("2.0 Overview", "2.0"),
        ("10.2 Errors", "10.2"),
        ("2024 roadmap", None),
        ("2024. Roadmap", None),
        ("404 errors", None),
        ("3 ways to log in", None),
        ("1password", None),
        ("3D graphics", None),
        ("v1.2.0", None),
        ("v1.2 changes", None),
        ("V1.2 changes", None),
        ("0.5.x", None),
        ("0.5 migration", None),
        ("1.2.0 (2024-05-01)", None),
        ("1.4 release notes", None),
        ("1.2", None),
        ("A Tour", None),
        ("H2 headings", None),
        ("e.g. things", None),
        ("Introduction", None),
        ("", None),
    ],
)
def test_section_id(heading: str, expected: str | None) -> None:
    assert section_id(heading) == expected


def test_section_ids_per_row_come_from_the_chunk_heading(tmp_path: Path) -> None:
    r = refs(
        tmp_path,
        {"spec.md": "# Spec\n\n## 1. Introduction\n\nText.\n\n## 2024 roadmap\n\nPlans.\n"},
    )
    by_id = dict(zip((c.id for c in r.rows), r.x.section_ids, strict=True))
    assert by_id["spec.md#spec/1-introduction"] == "1"
    assert by_id["spec.md#spec/2024-roadmap"] is None


# -- rule ids -----------------------------------------------------------------------------------


RULES = """r[items.fn]
# Functions

r[items.fn.intro]
A function is a block.

r[items.fn.namespace]
Functions live in the value namespace.

```text
r[not.a.rule]
```

r[items.fn.params]
## Function parameters

r[items.fn.params.intro]
Parameters are patterns. Not a rule: r[inline.rule] in text.

r[items.fn.params.self]
r[items.fn.params.self-pat]

The first parameter may be self.
"""


def test_rule_ids_in_chunks_and_markers_before_a_heading_go_with_it(tmp_path: Path) -> None:
    r = refs(tmp_path, {"fn.md": RULES})
    assert r.rules("fn.md#functions") == ("items.fn", "items.fn.intro", "items.fn.namespace")
    assert r.rules("fn.md#functions/function-parameters") == (
        "items.fn.params",
        "items.fn.params.intro",
        "items.fn.params.self",
        "items.fn.params.self-pat",
    )
    assert sum(map(len, r.x.rule_ids)) == 7  # not the one in a code block, nor the inline one


def test_rule_anchors_and_bare_rule_ids_resolve_to_the_rule_chunk(tmp_path: Path) -> None:
    r = refs(
        tmp_path,
        {
            "fn.md": RULES,
            "use.md": "# Use\n\nSee [params](fn.md#r-items.fn.params.self) and [intro][i].\n\n"
            "[i]: items.fn.intro\n",
        },
    )
    assert r.targets("use.md#use") == ["fn.md#functions/function-parameters", "fn.md#functions"]
    assert r.x.stats["link"] == (2, 2)


# -- links --------------------------------------------------------------------------------------


def test_inline_and_reference_links_resolve_to_the_heading_chunk(tmp_path: Path) -> None:
    r = refs(
        tmp_path,
        {
            "guide/intro.md": "# Intro\n\nRead [the API](../api.md#update_many) first, then "
            "[keys][k], then [the API again](../api.md).\n\nAlso [nothing](../api.md#missing).\n\n"
            "[k]: ../api.md#the-key_id-field\n",
            "api.md": "# API\n\nOverview.\n\n## Create\n\nCreates.\n\n### The key_id field\n\n"
            "A key.\n\n## update_many\n\nUpdates.\n",
        },
    )
    # `#the-key_id-field` is an h3 inside the `create` chunk: the chunk holding the heading.
    assert r.targets("guide/intro.md#intro") == [
        "api.md#api/updatemany",
        "api.md#api/create",
        "api.md#api",
    ]
    assert r.x.stats["link"] == (4, 3)  # the missing anchor is found but not resolved


def test_docusaurus_routes_html_links_and_index_pages(tmp_path: Path) -> None:
    r = refs(
        tmp_path,
        {
            "docs/protocol/overview.mdx": "# Overview\n\n"
            "- [Auth](./authentication)\n"
            "- [Flows](./flows/)\n"
            "- [Guide](../guide)\n"
            "- [Book](book.html#the-end)\n"
            "- [Start](/docs/start)\n"
            "- [Readme](../../README.md)\n",
            "docs/protocol/authentication.md": "# Authentication\n\nSign in.\n",
            "docs/protocol/flows/index.mdx": "# Flows\n\nAll flows.\n",
            "docs/guide/README.md": "# Guide\n\nHow to.\n",
            "docs/protocol/book.md": "# Book\n\nStart.\n\n## The end\n\nEnd.\n",
            "docs/start.md": "# Start\n\nBegin.\n",
            "README.md": "# Readme\n\nRoot.\n",
        },
    )
    assert r.targets("docs/protocol/overview.mdx#overview") == [
        "docs/protocol/authentication.md#authentication",
        "docs/protocol/flows/index.mdx#flows",
        "docs/guide/README.md#guide",
        "docs/protocol/book.md#book/the-end",
        "docs/start.md#start",
        "README.md#readme",
    ]
    assert r.x.stats["link"] == (6, 6)


def test_next_app_routes_are_their_page_mdx(tmp_path: Path) -> None:
    # Nextra 4 (a Next.js app): `/docs/guide/search` is `docs/guide/search/page.mdx`, and a
    # relative link is written against the route (17% of Nextra's own links resolved).
    r = refs(
        tmp_path,
        {
            "docs/guide/search/page.mdx": "# Search\n\nSee [i18n](/docs/guide/i18n#setup) and "
            "[exports](./static-exports).\n",
            "docs/guide/i18n/page.mdx": "# I18n\n\nLocales.\n\n## Setup\n\nConfigure.\n",
            "docs/guide/static-exports/page.mdx": "# Static exports\n\nExport.\n",
        },
    )
    assert r.targets("docs/guide/search/page.mdx#search") == [
        "docs/guide/i18n/page.mdx#i18n/setup",
        "docs/guide/static-exports/page.mdx#static-exports",
    ]


def test_pages_are_reached_by_the_routes_their_frontmatter_gives(tmp_path: Path) -> None:
    # Jekyll's `_docs/installation.md` is `/docs/installation/` by its `permalink`, linked as
    # such or through Liquid (`{{ '/docs/x/' | relative_url }}`): 78 of 202 links resolved.
    # A Docusaurus `slug` without a leading `/` is relative to the page's folder; a template
    # value (`{{ site.repository }}/issues/7`) is no page of the docs and is not counted.
    r = refs(
        tmp_path,
        {
            "_docs/installation.md": "---\npermalink: /docs/installation/\n---\n# Install\n\n"
            "Gems.\n\n## Requirements\n\nRuby.\n",
            "_docs/usage.md": "---\npermalink: /docs/usage/\n---\n# Usage\n\nSee "
            "[install](/docs/installation/#requirements), "
            "[again]({{ '/docs/installation/' | relative_url }}), "
            "[routing](/guides/routing) and [issue]({{ site.repository }}/issues/7).\n",
            "guides/router.md": "---\nslug: routing\n---\n# Router\n\nRoutes.\n",
            "faq.md": "# FAQ\n\nRead [the guide]({{ '/docs/usage/' | relative_url }}).\n",
        },
    )
    assert r.targets("faq.md#faq") == ["_docs/usage.md#usage"]
    assert r.targets("_docs/usage.md#usage") == [
        "_docs/installation.md#install/requirements",
        "_docs/installation.md#install",
        "guides/router.md#router",
    ]
    assert r.x.stats["link"] == (4, 4)  # the template value is not counted


def test_ordering_prefixes_are_no_part_of_a_route(tmp_path: Path) -> None:
    # Nuxt's `1.getting-started/02.installation.md` is `/docs/4.x/getting-started/installation`
    # (two route segments before it, numbered folders and files): 10 of 922 links resolved.
    r = refs(
        tmp_path,
        {
            "1.getting-started/02.installation.md": "# Installation\n\nnpx nuxi init.\n",
            "2.guide/1.intro.md": "# Intro\n\nFirst [install](/docs/4.x/getting-started/"
            "installation) and [again](../getting-started/installation).\n",
        },
    )
    assert r.targets("2.guide/1.intro.md#intro") == [
        "1.getting-started/02.installation.md#installation"
    ]
    assert r.x.stats["link"] == (2, 2)


def test_route_groups_are_no_part_of_a_route(tmp_path: Path) -> None:
    # Fumadocs and Next.js: `(root)/cli.mdx` is served at `/docs/cli` (shadcn: 15 links from
    # other folders unresolved, and `/docs/mcp` reached `registry/mcp.mdx`).
    r = refs(
        tmp_path,
        {
            "(root)/cli.mdx": "# CLI\n\nnpx shadcn add.\n",
            "(root)/mcp.mdx": "# MCP server\n\nConnect it.\n",
            "registry/mcp.mdx": "# Registry MCP\n\nFor registries.\n",
            "installation/manual.mdx": "# Manual\n\nSee the [CLI](/docs/cli) and "
            "[MCP](/docs/mcp).\n",
        },
    )
    assert r.targets("installation/manual.mdx#manual") == [
        "(root)/cli.mdx#cli",
        "(root)/mcp.mdx#mcp-server",
    ]


def test_absolute_routes_strip_a_leading_segment_that_is_no_folder(tmp_path: Path) -> None:
    # The docs root is the `docs` folder itself: `/docs/...` is a route, not a folder.
    r = refs(
        tmp_path,
        {
            "build/quick-start.md": "# Quick start\n\nGo.\n",
            "learn/intro.md": "# Intro\n\nSee [quick start](/docs/build/quick-start).\n",
        },
    )
    assert r.targets("learn/intro.md#intro") == ["build/quick-start.md#quick-start"]


def test_a_docs_only_docusaurus_sites_routes_start_at_its_docs(tmp_path: Path) -> None:
    # Agenta's site serves `docs/` at `/` (`routeBasePath: '/'`), its version 1.0 at `/1.0/`,
    # and its API pages by their `id` (`x.api.mdx`, `id: x`): 402 of 823 links resolved.
    r = refs(
        tmp_path,
        {
            "docs/concepts/agents.md": "# Agents\n\nWhat an agent is.\n",
            "docs/reference/api/create-workspace.api.mdx": "---\nid: create-workspace\n---\n"
            "# Create Workspace\n\nPOST.\n",
            "versioned_docs/version-1.0/setup.md": "# Setup\n\nOld setup.\n",
            "blog/2025-01-01-agents.md": "# Agents are here\n\nRead [agents](/concepts/agents),"
            " [the endpoint](/reference/api/create-workspace), [setup](/1.0/setup) and "
            "[nothing](/concepts/nothing).\n",
        },
    )
    assert r.targets("blog/2025-01-01-agents.md#agents-are-here") == [
        "docs/concepts/agents.md#agents",
        "docs/reference/api/create-workspace.api.mdx#create-workspace",
        "versioned_docs/version-1.0/setup.md#setup",
    ]
    assert r.x.stats["link"] == (4, 3)


def test_a_sites_default_language_folder_is_its_root(tmp_path: Path) -> None:
    # Rspress serves `docs/en/` at `/` (its default language) and `docs/zh/` at `/zh/`: built
    # from the site's folder, `/guide/x` of `docs/en/api/y.mdx` is `docs/en/guide/x.mdx` (99 of
    # 354 of its links resolved).
    r = refs(
        tmp_path,
        {
            "docs/en/guide/basic/i18n.mdx": "# Internationalization\n\nLocales.\n",
            "docs/en/api/config.mdx": "# Config\n\nSee [i18n](/guide/basic/i18n), "
            "[the hook](/guide/basic/i18n.html) and [nothing](/guide/none).\n",
        },
    )
    assert r.targets("docs/en/api/config.mdx#config") == [
        "docs/en/guide/basic/i18n.mdx#internationalization"
    ]
    assert r.x.stats["link"] == (3, 2)


def test_pretty_urls_with_a_trailing_slash_are_the_page(tmp_path: Path) -> None:
    # Deno's docs (Lume) link `/runtime/fundamentals/node/` for `runtime/fundamentals/node.md`
    # (27% of its links resolved); a folder's index page still comes first.
    r = refs(
        tmp_path,
        {
            "runtime/fundamentals/node.md": "# Node\n\nnpm.\n\n## Built-ins\n\nnode:fs\n",
            "runtime/test/index.md": "# Testing\n\nDeno.test.\n",
            "runtime/test.md": "# Not the index\n\nx\n",
            "runtime/index.md": "# Runtime\n\nSee [node](/runtime/fundamentals/node/#built-ins), "
            "[tests](/runtime/test/) and [help](/runtime/help/).\n",
        },
    )
    assert r.targets("runtime/index.md#runtime") == [
        "runtime/fundamentals/node.md#node/built-ins",
        "runtime/test/index.md#testing",
    ]
    assert r.x.stats["link"] == (3, 2)


def test_raw_html_links_written_against_the_page_url(tmp_path: Path) -> None:
    # mkdocs serves `styles/color.md` at `styles/color/`: Textual's raw HTML links
    # (`<a href="../../css_types/color">`, 38 pages) are relative to that URL; markdown links
    # are relative to the file, and come first.
    r = refs(
        tmp_path,
        {
            "css_types/color.md": "# Color\n\nA color.\n",
            "styles/border.md": "# Border\n\nx\n",
            "styles/color.md": '# Color style\n\n<a href="../../css_types/color">color</a>, '
            "[border](border.md), [no page](../../nothing).\n",
            "styles/index.md": '# Styles\n\n<a href="../../css_types/color">beyond the root</a>\n',
        },
    )
    assert sorted(r.targets("styles/color.md#color-style")) == [
        "css_types/color.md#color",
        "styles/border.md#border",
    ]
    assert r.targets("styles/index.md#styles") == []


def test_zola_internal_links_start_at_the_content_folder(tmp_path: Path) -> None:
    # `[get_image_metadata](@/documentation/templates/overview.md#get-image-metadata)`: none of
    # Zola's 65 resolved.
    r = refs(
        tmp_path,
        {
            "documentation/templates/overview.md": "# Overview\n\n## get_image_metadata\n\nx\n",
            "documentation/content/image.md": "# Images\n\nSee "
            "[it](@/documentation/templates/overview.md#get_image_metadata).\n",
        },
    )
    assert r.targets("documentation/content/image.md#images") == [
        "documentation/templates/overview.md#overview/getimagemetadata"
    ]


def test_same_page_anchors_self_links_and_dedup(tmp_path: Path) -> None:
    r = refs(
        tmp_path,
        {
            "page.md": "# Page\n\nSee [b](#part-b), [b again](#Part-B), [a](#part-a).\n\n"
            "## Part A\n\nText, see [myself](#part-a).\n\n## Part B\n\nMore.\n",
        },
    )
    assert r.targets("page.md#page") == ["page.md#page/part-b", "page.md#page/part-a"]
    assert r.targets("page.md#page/part-a") == []  # a link to its own chunk is no reference
    assert r.x.stats["link"] == (4, 4)


def test_duplicate_headings_and_explicit_and_html_anchors(tmp_path: Path) -> None:
    r = refs(
        tmp_path,
        {
            "a.md": "# A\n\n[1](b.md#usage-1) [2](b.md#custom) [3](b.md#old-name)\n",
            "b.md": "# B\n\n## Usage\n\nOne.\n\n## Other\n\nText.\n\n## Usage\n\nTwo.\n\n"
            '## Renamed {#custom}\n\nThree.\n\n## Legacy\n\n<a name="old-name"></a>\nFour.\n',
        },
    )
    # (an explicit id is the section's slug: issue 27; it was `renamed-custom`)
    assert r.targets("a.md#a") == ["b.md#b/usage-2", "b.md#b/custom", "b.md#b/legacy"]


def test_links_and_anchors_of_components_reduced_to_text(tmp_path: Path) -> None:
    """A Mintlify `<Card href>` and an `<a id>` are reduced to their text (issue 27): their
    link and anchor are still references and targets."""
    r = refs(
        tmp_path,
        {
            "a.mdx": '# A\n\n<CardGroup cols={2}>\n  <Card title="Setup" href="b.mdx#keys">'
            "\n    Get keys.\n  </Card>\n</CardGroup>\n",
            "b.mdx": "# B\n\n## Install\n\nSteps here.\n\n## Later\n\n"
            '<a id="keys"></a>\nKeys are here.\n',
        },
    )
    assert r.targets("a.mdx#a") == ["b.mdx#b/later"]


def test_external_escaping_encoded_and_hostile_links(tmp_path: Path) -> None:
    hostile = "x" * 10000
    r = refs(
        tmp_path,
        {
            "docs/a.md": "# A\n\n"
            "[web](https://example.com/a.md) [mail](mailto:a@b.c) [proto](//cdn/x.md)\n"
            "[up](../../etc/passwd.md) [encoded](my%20page.md#sec%C3%A7%C3%A3o) "
            f"[long]({hostile}.md) [bad](%ZZ%00.md) [dots](....md) [code](./src/main.py)\n",
            "docs/my page.md": "# My page\n\n## Secção\n\nText.\n",
        },
    )
    assert r.targets("docs/a.md#a") == ["docs/my page.md#my-page/seco"]
    # external URLs and links to non-page files are not references; the rest is unresolved
    assert r.x.stats["link"] == (5, 1)


# -- text references ----------------------------------------------------------------------------


def test_text_section_references(tmp_path: Path) -> None:
    r = refs(
        tmp_path,
        {
            "ms-dtyp.md": "# MS-DTYP\n\n## 2.3 Structures\n\nStructs.\n\n### 2.3.3 FILETIME\n\n"
            "Time.\n",
            "other/dt.md": "# Windows Data Types\n\n## 1.1 Glossary\n\nTerms.\n",
            "spec.md": "# Spec\n\n## 1. Introduction\n\nSee section 2.1 and §3.14 and "
            "Section 9.9 [Nowhere].\nTimes are a [MS-DTYP] section 2.3.3 value, see\n"
            "[Windows Data Types] section 1.1 and [Unknown] section 2.1.\n\n"
            "## 2.1 Scope\n\nScope.\n\n## §3.14 Pi\n\nPi, unlike 3.14 in prose.\n",
        },
    )
    assert r.targets("spec.md#spec/1-introduction") == [
        "spec.md#spec/21-scope",
        "spec.md#spec/314-pi",
        "ms-dtyp.md#ms-dtyp/23-structures",  # 2.3.3 is an h3 inside the 2.3 chunk
        "other/dt.md#windows-data-types/11-glossary",  # the document named by its title
    ]
    assert r.x.stats["section"] == (3, 2)
    assert r.x.stats["document-section"] == (3, 2)  # [Unknown] is no document of the corpus


def test_section_references_fall_back_to_the_folder_then_a_unique_heading(tmp_path: Path) -> None:
    r = refs(
        tmp_path,
        {
            "spec/a.md": "# A\n\nSee section 4.1 and section 7.2 and section 5.\n",
            "spec/b.md": "# B\n\n## 4.1 Here\n\nText.\n",
            "other/c.md": "# C\n\n## 4.1 Not here\n\nText.\n\n## 7.2 Unique\n\nText.\n",
        },
    )
    assert r.targets("spec/a.md#a") == ["spec/b.md#b/41-here", "other/c.md#c/72-unique"]
    assert r.x.stats["section"] == (3, 2)


def test_grammar_productions_are_anchors(tmp_path: Path) -> None:
    r = refs(
        tmp_path,
        {
            "fn.md": "# Functions\n\nText.\n\n## Syntax\n\n```grammar,items\nFunction ->\n"
            "    `fn` IDENTIFIER\n```\n",
            "use.md": "# Use\n\nA [function](fn.md#grammar-Function), a [Function].\n\n"
            "[Function]: Function\n",
        },
    )
    assert r.targets("use.md#use") == ["fn.md#functions/syntax"]
    assert r.x.stats["link"] == (2, 2)


# -- summaries ----------------------------------------------------------------------------------


def test_summary_is_extractive_plain_and_bounded() -> None:
    text = (
        "# Title\n\nimport X from '@site/x';\n\n<Tabs groupId=\"a\">\n\n```js\ncode();\n```\n\n"
        "The **`used`** attribute keeps a [static](../x.md) item. It matters for "
        "*linkers*! A third sentence that is long enough to push the summary over its limit "
        "of two hundred characters, so it is left out entirely, however many words of "
        "padding and filler it takes to get there.\n"
    )
    assert summary(text) == ("The used attribute keeps a static item. It matters for linkers!")
    long = "word " * 100
    assert len(summary(long, 50)) <= 50 and summary(long, 50).endswith("…")
    assert summary("```\ncode only\n```\n") == ""
    assert summary("| a | b |\n|---|---|\n| 1 | 2 |\n") == ""
    assert summary("anything", 0) == ""


def test_a_rule_marker_over_the_first_paragraph_is_no_part_of_a_page_description(
    tmp_path: Path,
) -> None:
    """The Rust Reference opens pages with `r[abi.intro]` over their first paragraph: 110
    descriptions read "rabi.intro This section documents ..."."""
    page = "# ABI\n\nr[abi]\n\nr[abi.intro]\nThis section documents the *ABI*.\n"
    (tmp_path / "abi.md").write_text(page, encoding="utf-8")
    (sf,) = load_corpus(tmp_path).files
    assert page_description(parse_file(sf)) == "This section documents the ABI."


def test_a_summary_keeps_the_underscores_of_code() -> None:
    """Celery's CLI page is described "The prefix `CELERY_` must be added": the summary read
    "CELERY", as `__init__.py` read "init.py"; emphasis outside code still goes."""
    text = "Add `CELERY_` to `__init__.py`, _really_ __now__ (`**kwargs`)."
    assert summary(text) == "Add CELERY_ to __init__.py, really now (**kwargs)."


def test_a_page_opening_with_a_note_is_described_by_the_note(tmp_path: Path) -> None:
    """Celery's CLI page opens with `.. note::`, NumPy's 20 pages and pip's 5 with an
    admonition too: their description was the label alone, "Note"."""
    (tmp_path / "cli.rst").write_text(
        "CLI\n===\n\n.. note:: The prefix ``CELERY_`` must be added.\n\nMore text.\n",
        encoding="utf-8",
    )
    (tmp_path / "guide.md").write_text(
        "# Guide\n\nWarning\n\nBack up first.\n\nThen run it.\n", encoding="utf-8"
    )
    files = {sf.path: convert_source(sf) for sf in load_corpus(tmp_path).files}
    assert page_description(parse_file(files["cli.rst"])) == (
        "Note: The prefix CELERY_ must be added."
    )
    assert page_description(parse_file(files["guide.md"])) == "Warning: Back up first."
    # A description reads the block's text as parsed: code keeps its `_`, `*` and `<`.
    (tmp_path / "types.md").write_text(
        "# Types\n\nAn `Array<string>` of `**kwargs` in `__init__.py`, *really*.\n",
        encoding="utf-8",
    )
    (sf,) = [f for f in load_corpus(tmp_path).files if f.path == "types.md"]
    assert page_description(parse_file(sf)) == (
        "An Array<string> of **kwargs in __init__.py, really."
    )


def test_a_table_of_contents_is_no_summary() -> None:
    """Laravel's pages open with a list of links to their own sections (and a page or two):
    that list was their summary. A list of other links keeps its titles, and links in a list
    after prose are the list the prose introduces."""
    toc = (
        "# Routing\n\n- [Basic Routing](#basic-routing)\n    - [Redirects](#redirects)\n"
        '- [Socialite](/docs/{{version}}/socialite)\n\n<a name="basic-routing"></a>\n\n'
        "Routes accept a URI.\n"
    )
    assert summary(toc) == "Routes accept a URI."
    assert summary("## Resources\n\n- [WAI](https://w3.org/WAI)\n- [MDN](https://mdn.dev)\n") == (
        "WAI MDN"
    )
    assert summary("Install one of:\n\n- [VirtualBox](https://vb.example)\n") == (
        "Install one of: VirtualBox"
    )
    assert summary("- [Install](#install) the package first.\n") == "Install the package first."


def test_summaries_only_for_reference_targets(tmp_path: Path) -> None:
    r = refs(
        tmp_path,
        {
            "a.md": "# A\n\nGo to [b](b.md).\n",
            "b.md": "# B\n\nThe *b* page. More text here.\n",
        },
    )
    assert r.summary("b.md#b") == "The b page. More text here."
    assert r.summary("a.md#a") is None


# -- streaming: one small record per file -----------------------------------------------------


def _plain(value: object) -> bool:
    """Whether a value is made only of strings, ints, None, tuples and dicts of those."""
    if value is None or isinstance(value, (str, int)):
        return True
    if isinstance(value, tuple):
        return all(_plain(v) for v in value)
    if isinstance(value, dict):
        return all(_plain(k) and _plain(v) for k, v in value.items())
    return False


def test_file_records_hold_no_parse_and_resolve_like_the_wrapper(tmp_path: Path) -> None:
    docs = write(
        tmp_path / "docs",
        {
            "a.md": "# A\n\nSee [b](b.md#usage), [empty](empty.md), [out](https://x.org) and"
            " section 2.1.\n\n## 2.1 Part\n\nr[a.rule]\n\nText [up](#a).\n",
            "b.md": "# B\n\n## Usage\n\nUse it. <a name='here'></a> [a](a.md#r-a.rule)\n",
            "empty.md": "",
            "sub/c.md": "# C\n\n[MS-A] section 2.1 and [b](../b.md#here)\n",
        },
    )
    records: list[FileRefs] = []
    row = 0
    for sf in load_corpus(docs).files:  # each parse is dropped right after its record is made
        parsed = parse_file(sf)
        chunks = chunk_parsed(parsed)
        records.append(extract_refs(parsed, chunks, row))
        row += len(chunks)
    for f in records:
        assert all(_plain(getattr(f, name)) for name in FileRefs.__slots__), f.path
        assert all(f.first_row <= source < f.first_row + f.count for _, source, _ in f.refs)
        assert all("https://" not in str(payload) for _, _, payload in f.refs)  # external: left out
    assert [f.path for f in records] == ["a.md", "b.md", "empty.md", "sub/c.md"]
    assert records[2].count == 0 and records[2].refs == ()  # an empty file is kept: a link target
    streamed = resolve_refs(records, row)
    assert streamed == cross_references(*load(docs))
    # 5 links (the one to the empty page unresolved), `section 2.1`, `[MS-A] section 2.1`
    assert streamed.stats == {
        "link": (5, 4),
        "section": (1, 1),
        "document-section": (1, 0),
        "object": (0, 0),  # code roles of reST pages (none here)
    }


# -- fuzzing ------------------------------------------------------------------------------------

_FRAGMENTS = st.sampled_from(
    [
        "# Title\n",
        "## 2.3 Part\n",
        "### §1.2 Sub\n",
        "r[a.b]\n",
        "r[a.b.c]\n",
        "[x](b.md#part)\n",
        "[x](./b)\n",
        "[x](#23-part)\n",
        "[x](/docs/b.md)\n",
        "[x](../../../x.md)\n",
        "[x][r]\n\n[r]: b.md#r-a.b\n",
        "[x](a.b)\n",
        "see section 2.3 and §1.2\n",
        "[B] section 2.3\n",
        "```\n",
        "<a name='q'>\n",
        "| a | b |\n|---|---|\n| 1 | 2 |\n",
        "- item [l](b.md)\n",
        "\n",
    ]
)
_TEXT = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00\r"),
    max_size=40,
)
_DOC = st.lists(st.one_of(_FRAGMENTS, _TEXT), max_size=25).map("".join)


@pytest.mark.slow  # fuzz, ~1 s
@settings(
    max_examples=FUZZ_EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(docs=st.dictionaries(st.sampled_from(["a.md", "b.md", "sub/c.mdx"]), _DOC, min_size=1))
def test_fuzzed_markdown_never_raises_and_targets_are_valid(docs: dict[str, str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        files, chunks = load(write(Path(tmp), docs))
    x = cross_references(files, chunks)
    rows = sum(map(len, chunks))
    for name in ("section_ids", "rule_ids", "references", "summaries"):
        assert len(getattr(x, name)) == rows
    for source, targets in enumerate(x.references):
        assert len(set(targets)) == len(targets)
        assert all(0 <= t < rows and t != source for t in targets)
    targeted = {t for ts in x.references for t in ts}
    assert all(s is None or k in targeted for k, s in enumerate(x.summaries))
    assert all(s is None or 0 < len(s) <= 200 for s in x.summaries)
    assert set(x.stats) == set(KINDS)
    assert all(0 <= resolved <= found for found, resolved in x.stats.values())


@settings(max_examples=FUZZ_EXAMPLES, deadline=None, derandomize=True, database=None)
@given(heading=_TEXT, text=st.lists(st.one_of(_FRAGMENTS, _TEXT), max_size=30).map("".join))
def test_fuzzed_section_id_and_summary_never_raise(heading: str, text: str) -> None:
    sid = section_id(heading)
    assert sid is None or (sid and sid in heading)
    assert len(summary(text)) <= 200


# -- real corpora -------------------------------------------------------------------------------


def shared_corpus(name: str) -> Path:
    path = CORPORA / name
    if not path.is_dir():
        pytest.skip(f"shared corpus missing: {path} (set DOCSMCP_SHARED)")
    return path


def corpus_refs(name: str) -> tuple[Any, list[Chunk], float]:
    files, chunks = load(shared_corpus(name))
    start = time.process_time()
    x = cross_references(files, chunks)
    return x, [c for cs in chunks for c in cs], time.process_time() - start


@pytest.mark.corpus
def test_rust_reference_links_and_rule_ids() -> None:
    x, rows, seconds = corpus_refs("rust-reference")
    found, resolved = x.stats["link"]
    assert found > 2000
    assert resolved / found >= 0.95  # measured 97.2%: the rest leave the book (std, rustc, ...)
    rules = [r for rs in x.rule_ids for r in rs]
    assert len(rules) >= 2900 and len(set(rules)) == len(rules)  # measured 2,996, all distinct
    assert sum(1 for rs in x.rule_ids if len(rs) > 1) > 300
    by_id = {c.id: k for k, c in enumerate(rows)}
    assert (
        "items.fn.generics"
        in x.rule_ids[by_id["src/items/functions.md#functions/generic-functions"]]
    )
    assert seconds < 2


@pytest.mark.corpus
def test_yellow_docs_route_links_resolve() -> None:
    x, rows, _ = corpus_refs("yellow-docs")
    found, resolved = x.stats["link"]
    assert resolved / found >= 0.93  # measured 96.3%: the rest are anchors missing in the source
    by_id = {c.id: k for k, c in enumerate(rows)}
    # docs/protocol/app-layer/off-chain/*.mdx link to each other as `./authentication`
    sources = [k for k, c in enumerate(rows) if c.path.startswith("docs/protocol/app-layer/off")]
    targets = {rows[t].path for k in sources for t in x.references[k]}
    assert "docs/protocol/app-layer/off-chain/authentication.mdx" in targets
    assert x.stats["section"][1] >= 15  # the white paper's `section H.5` references
    assert x.section_ids[by_id[next(i for i in by_id if "/a1-name" in i)]] == "A.1"


def _strip_inline_every_pattern(text: str) -> str:
    """xref._strip_inline as it was before it skipped patterns whose first character is absent
    (every substitution, always): the reference the guarded version must equal."""
    import re

    text = re.sub(r"!\[[^\]\n]{0,500}\]\([^)\n]{0,2000}\)", "", text)
    text = re.sub(r"\[\^[^\]\n]{0,200}\]", "", text)
    text = re.sub(r"\[([^\]\n]{0,500})\]\([^)\n]{0,2000}\)", r"\1", text)
    text = re.sub(r"\[([^\]\n]{0,500})\]\[[^\]\n]{0,500}\]", r"\1", text)
    text = re.sub(r"\[([^\]\n]{0,500})\]", r"\1", text)
    end = text.rfind(">") + 1
    text = re.sub(r"<[^<>]{0,2000}>", " ", text[:end]) + text[end:]
    text = re.sub(r"\{[^{}\n]{0,500}\}", " ", text)

    def unemphasised(part: str) -> str:
        part = re.sub(r"(\*\*|__|\*|~~)(?=\S)|(?<=\S)(\*\*|__|\*|~~)", "", part)
        return re.sub(r"(?<![\w])_(?=\w)|(?<=\w)_(?![\w])", "", part)

    # (emphasis is read outside code spans only)
    pieces = re.split(r"(`+)([^`\n]+?)\1(?!`)", text)
    text = "".join(
        unemphasised(p.replace("`", "")) if i % 3 == 0 else p if i % 3 == 2 else ""
        for i, p in enumerate(pieces)
    )
    return re.sub(r"\s+", " ", text).strip()


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.sampled_from(list("ab Z9_*~`[]()!^<>{}/#.\n\t") + ["**", "__", "~~", "](x)"]),
        max_size=40,
    ).map("".join)
)
def test_strip_inline_skipping_absent_patterns_changes_nothing(text: str) -> None:
    from docsmcp.enrich.summary import _strip_inline

    assert _strip_inline(text) == _strip_inline_every_pattern(text)


@pytest.mark.parametrize("remembered", [1, 2, 1 << 17])
def test_remembered_link_paths_resolve_as_from_each_folder(
    tmp_path: Path, remembered: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Link paths are remembered with the folder of the page linking (the same `../x.md`
    means another file from another folder), a bounded number at a time: the references are
    the same whatever the bound."""
    import docsmcp.enrich.xref_resolve

    pages = {
        "a/x.md": "# A x\n\nIn a.\n",
        "b/x.md": "# B x\n\nIn b.\n",
        "x.md": "# Root x\n\nAt the root.\n",
        "a/one.md": "# One\n\n[x](x.md) [root](../x.md) [b](/b/x) [gone](y.md) [x again](x.md)\n",
        "a/two.md": "# Two\n\n[x](x.md) [b](../b/x.md) [gone](y.md)\n",
        "b/one.md": "# B one\n\n[x](x.md) [root](../x.md) [a](/a/x) [gone](y.md)\n",
        "c/one.md": "# C one\n\n[x](x.md) [a](../a/x.md) [route](/x)\n",
    }
    monkeypatch.setattr(docsmcp.enrich.xref_resolve, "MAX_REMEMBERED_PATHS", remembered)
    r = refs(tmp_path, pages)
    assert r.targets("a/one.md#one") == ["a/x.md#a-x", "x.md#root-x", "b/x.md#b-x"]
    assert r.targets("a/two.md#two") == ["a/x.md#a-x", "b/x.md#b-x"]
    assert r.targets("b/one.md#b-one") == ["b/x.md#b-x", "x.md#root-x", "a/x.md#a-x"]
    # (no c/x.md: `x.md` from c/ is the route fallback, the root page)
    assert r.targets("c/one.md#c-one") == ["x.md#root-x", "a/x.md#a-x"]
    assert r.x.stats["link"] == (15, 12)


def test_docfx_xrefs_reach_the_page_of_their_uid(tmp_path: Path) -> None:
    # docfx names pages by the `uid` of their front matter: `<xref:file1>`, `[text](xref:file1)`
    # (a query such as `?displayProperty=name` aside) reach that page; one naming no page of the
    # docs (a .NET type of Microsoft's xrefmap) counts for nothing, as an intersphinx object.
    r = refs(
        tmp_path,
        {
            "file1.md": "---\nuid: Guide.File1\n---\n# File one\n\nText.\n",
            "links.md": "# Links\n\nSee <xref:Guide.File1>, [it](xref:guide.file1?title=One) "
            "and <xref:System.String>.\n",
        },
    )
    assert r.targets("links.md#links") == ["file1.md#file-one"]
    assert r.x.stats["object"] == (2, 2)


def test_docfx_shorthand_and_xref_tags_reach_the_page_of_their_uid(tmp_path: Path) -> None:
    # docfx's other two forms of `<xref:uid>`: the shorthand `@uid` (or `@"uid"`, a query such
    # as `?text=x` aside) and the HTML tag `<xref href="uid"/>`. Like `xref:`, one naming no
    # page (a .NET type) counts for nothing: before, the tag was a link to a file of that name
    # that no page is (docfx's own docs: 2 of its 7 "links to no page").
    r = refs(
        tmp_path,
        {
            "file1.md": "---\nuid: Guide.File1\n---\n# File one\n\nText.\n",
            "links.md": "# Links\n\nSee @Guide.File1. Mail me@example.com, `@file1` is code.\n\n"
            '## Tag\n\nUse <xref href="guide.file1?alt=One"/> and '
            '<xref href="System.Collections.Immutable.ImmutableArray`1" altProperty="name"/>.\n\n'
            '## Quoted\n\nAs @"Guide.File1?text=file one" shows, or @System.String.\n\n'
            '## Block\n\n<xref href="Guide.File1"/>\n',
        },
    )
    assert r.targets("links.md#links") == ["file1.md#file-one"]
    assert r.targets("links.md#links/tag") == ["file1.md#file-one"]
    assert r.targets("links.md#links/quoted") == ["file1.md#file-one"]
    assert r.targets("links.md#links/block") == ["file1.md#file-one"]
    assert r.x.stats["object"] == (4, 4)
    assert r.x.stats["link"] == (0, 0)
