"""The site's own order (issue 27: navigation files give titles *and order*): `list_sections`
lists pages as the site's navigation does (mkdocs `nav`, mdBook `SUMMARY.md`, Mintlify
`docs.json`, Docusaurus `sidebars.json`), the pages it does not name after them in path order;
a bundle of a site without one lists pages in path order and has no page_order.bin
(bundle-spec.md, *Page order*)."""

from __future__ import annotations

import json
import resource
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import EXAMPLE_DOCS, build_bundle, run_docsmcp
from docsmcp.sources.navigation.navfiles import read_nav
from docsmcp_runtime.format import PAGE_UNORDERED, bundle_id, sha256_file
from docsmcp_runtime.format.table_problems import page_order_problem
from mcp_client import McpSession, text_of

SITE = {
    "mkdocs.yml": (
        "site_name: Widgets\nnav:\n  - Start here: zeta.md\n  - alpha.md\n"
        "  - Guide:\n    - Second: guide/b.md\n    - guide/a.md\n"
        "  - External: https://example.com/\n"
    ),
    "docs/zeta.md": "# Zeta\n\nRead me first.\n",
    "docs/alpha.md": "# Alpha\n\nThen me.\n",
    "docs/beta.md": "# Beta\n\nNo nav names me.\n",
    "docs/guide/a.md": "# Guide A\n\nLast of the guide.\n",
    "docs/guide/b.md": "# Guide B\n\nFirst of the guide.\n",
    "docs/appendix/c.md": "# Appendix\n\nNot in the nav either.\n",
}


def _site(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def _list(bundle: Path, **arguments: Any) -> list[dict]:
    with McpSession(bundle) as session:
        result = session.call("list_sections", arguments)
        assert not result.is_error, text_of(result)
        assert result.structured_content is not None
        return result.structured_content["entries"]


def test_pages_are_listed_in_the_order_of_the_sites_navigation(tmp_path: Path) -> None:
    root = _site(tmp_path / "site", SITE)
    docs = root / "docs"
    pages = ["alpha.md", "appendix/c.md", "beta.md", "guide/a.md", "guide/b.md", "zeta.md"]
    nav = read_nav(docs, [root], pages)
    assert nav.order == {"zeta.md": 0, "alpha.md": 1, "guide/b.md": 2, "guide/a.md": 3}
    assert nav.titles == {"zeta.md": "Start here", "guide/b.md": "Second"}  # as before
    out = build_bundle(docs, tmp_path / "idx", "--source-root", str(root))
    order = np.fromfile(out / "page_order.bin", dtype="<u4")  # pages.parquet's rows: path order
    assert order.tolist() == [1, PAGE_UNORDERED, PAGE_UNORDERED, 3, 2, 0]
    listed = [e.get("path") or e.get("folder") for e in _list(out, depth=5)]
    assert listed == [
        "zeta.md", "alpha.md", "guide/b.md", "guide/a.md", "appendix/c.md", "beta.md"
    ]  # fmt: skip
    # A folded folder stands where its first page would.
    folded = [e.get("path") or e.get("folder") for e in _list(out, depth=0)]
    assert folded == ["zeta.md", "alpha.md", "guide/", "appendix/", "beta.md"]
    assert run_docsmcp("verify", out).stdout.startswith("ok: ")


def test_a_mintlify_site_is_listed_in_its_docs_json_order(tmp_path: Path) -> None:
    nav = {
        "name": "alpha",  # a setting, not a page, though a page is called so
        "navigation": {
            "tabs": [
                {"tab": "Docs", "groups": [
                    {"group": "Start", "pages": ["quickstart", "concepts/b"]},
                    {"group": "More", "pages": [
                        "concepts/a", {"group": "Deep", "pages": ["alpha"]}
                    ]},
                ]}
            ]
        },
    }  # fmt: skip
    files = {
        "docs.json": json.dumps(nav),
        "alpha.mdx": "# Alpha\n\nDeep inside.\n",
        "quickstart.mdx": "# Quickstart\n\nFirst.\n",
        "concepts/a.mdx": "# A\n\nThird.\n",
        "concepts/b.mdx": "# B\n\nSecond.\n",
    }
    docs = _site(tmp_path / "mint", files)
    out = build_bundle(docs, tmp_path / "idx")
    listed = [e["path"] for e in _list(out, depth=5)]
    assert listed == ["quickstart.mdx", "concepts/b.mdx", "concepts/a.mdx", "alpha.mdx"]


def test_without_a_navigation_pages_are_in_path_order(tmp_path: Path) -> None:
    out = build_bundle(EXAMPLE_DOCS, tmp_path / "idx")
    assert not (out / "page_order.bin").exists()
    listed = [e.get("path") or e.get("folder") for e in _list(out, depth=5)]
    assert listed == sorted(listed, key=str.encode)


@pytest.mark.parametrize(
    "order, problem",
    [
        ([0, 1, PAGE_UNORDERED], None),
        ([PAGE_UNORDERED] * 3, None),
        ([0, 1], "shape [2], expected [n_pages] = [3]"),
        ([0, 0, 1], "ranks are not 0, 1, 2, ... once each"),
        ([0, 2, PAGE_UNORDERED], "ranks are not 0, 1, 2, ... once each"),
    ],
)
def test_page_order_is_checked_against_the_pages(order: list[int], problem: str | None) -> None:
    found = page_order_problem(np.array(order, dtype="<u4"), 3)
    assert (found is None) if problem is None else (problem in (found or "")), found


def test_a_damaged_page_order_is_one_clear_error_and_search_goes_on(tmp_path: Path) -> None:
    """A page_order.bin whose ranks repeat (re-signed, so only its own check can object):
    list_sections is a tool error naming it, search answers, verify reports it."""
    root = _site(tmp_path / "site", SITE)
    out = build_bundle(root / "docs", tmp_path / "idx", "--source-root", str(root))
    (out / "page_order.bin").write_bytes(np.array([0, 0, 1, 2, 3, 4], dtype="<u4").tobytes())
    meta = json.loads((out / "metadata.json").read_text())
    meta["files"]["page_order.bin"]["sha256"] = sha256_file(out / "page_order.bin")
    meta["bundle_id"] = bundle_id({k: v["sha256"] for k, v in meta["files"].items()})
    (out / "metadata.json").write_text(json.dumps(meta))
    with McpSession(out) as session:
        assert not session.call("search_docs", {"query": "guide"}).is_error
        error = session.tool_error("list_sections", {})
    assert "page_order.bin ranks are not 0, 1, 2, ... once each" in error
    checked = run_docsmcp("verify", out, check=False)
    assert checked.returncode == 1 and "page_order.bin ranks" in checked.stderr + checked.stdout


DOCUSAURUS = {
    "sidebars.js": (
        "// @ts-check\n/** @type {import('@docusaurus/plugin-content-docs').SidebarsConfig} */\n"
        "const sidebars = {\n  tutorialSidebar: [\n    'intro',\n    {\n      type: 'category',\n"
        "      label: 'Tutorial - Basics',\n      items: ['tutorial-basics/deploy', "
        "'tutorial-basics/create-a-document'],\n    },\n  ],\n};\n\nmodule.exports = sidebars;\n"
    ),
    "docs/intro.md": "# Intro\n\nStart here.\n",
    "docs/tutorial-basics/create-a-document.md": "# Create a Document\n\nWrite markdown.\n",
    "docs/tutorial-basics/deploy.md": "# Deploy your site\n\nShip it.\n",
    "docs/aaa-unlisted.md": "# Unlisted\n\nNo sidebar names me.\n",
}


def test_a_docusaurus_sidebars_js_is_read_as_data_never_run(tmp_path: Path) -> None:
    root = _site(tmp_path / "site", DOCUSAURUS)
    docs = root / "docs"
    out = build_bundle(docs, tmp_path / "idx", "--source-root", str(root))
    listed = [e["path"] for e in _list(out, depth=5)]
    assert listed == [
        "intro.md",
        "tutorial-basics/deploy.md",
        "tutorial-basics/create-a-document.md",
        "aaa-unlisted.md",
    ]
    nav = read_nav(docs, [root], listed)
    assert nav.titles == {
        "tutorial-basics/deploy.md": "Tutorial - Basics",
        "tutorial-basics/create-a-document.md": "Tutorial - Basics",
    }
    # Sidebars made by code give nothing (and say nothing on a terminal): path order.
    (root / "sidebars.js").unlink()
    (root / "sidebars.ts").write_text(
        "import type {SidebarsConfig} from '@docusaurus/plugin-content-docs';\n"
        "const sidebars: SidebarsConfig = {docs: require('./generated').items};\n"
        "export default sidebars;\n",
        encoding="utf-8",
    )
    proc = run_docsmcp(
        "build", "--docs-dir", docs, "--out", tmp_path / "idx2", "--source-root", root, "-q"
    )
    assert proc.stderr == ""
    assert not (tmp_path / "idx2" / "page_order.bin").exists()


def test_llms_txt_follows_the_sites_order(tmp_path: Path) -> None:
    root = _site(tmp_path / "site", SITE)
    out = build_bundle(root / "docs", tmp_path / "idx", "--source-root", str(root))
    run_docsmcp("export", "--bundle", out, "--llms-txt", tmp_path / "llms")
    lines = (tmp_path / "llms" / "llms.txt").read_text().splitlines()
    links = [line.split("](")[1].split(")")[0] for line in lines if line.startswith("- [")]
    # The root's pages first (in the nav's order), then each top folder's.
    assert links == ["zeta.md", "alpha.md", "beta.md", "guide/b.md", "guide/a.md", "appendix/c.md"]


def test_the_build_summary_says_which_navigation_it_read(tmp_path: Path) -> None:
    """A mkdocs.yml beside the docs folder is read only inside the source roots; the summary
    says so and names the root that reads it."""
    root = _site(tmp_path / "site", SITE)
    docs = root / "docs"
    alone = run_docsmcp("build", "--docs-dir", docs, "--out", tmp_path / "a")
    assert (
        f"  navigation: {root.resolve() / 'mkdocs.yml'} would title and order the pages; it is "
        f"outside the source roots: add --source-root {root.resolve()}"
    ) in alone.stdout.splitlines()
    assert not (tmp_path / "a" / "page_order.bin").exists()
    rooted = run_docsmcp(
        "build", "--docs-dir", docs, "--out", tmp_path / "b", "--source-root", root
    )
    line = f"  navigation: {root.resolve() / 'mkdocs.yml'} (titles and order of 4 pages)"
    assert line in rooted.stdout.splitlines()
    mint = _site(tmp_path / "mint", {"docs.json": json.dumps({"pages": ["a"]}), "a.md": "# A\n"})
    built = run_docsmcp("build", "--docs-dir", mint, "--out", tmp_path / "c", "--json")
    assert (
        json.loads(built.stdout)["navigation"]
        == "navigation: docs.json (titles and order of 1 page)"
    )


def test_init_reports_the_navigation_too(tmp_path: Path) -> None:
    root = _site(tmp_path / "site", SITE)
    docs = root / "docs"
    alone = run_docsmcp("init", "--docs-dir", docs)
    assert f"navigation: {root.resolve() / 'mkdocs.yml'} would title" in alone.stderr
    rooted = run_docsmcp("init", "--docs-dir", docs, "--source-root", root)
    assert "(titles and order of 4 pages)" in rooted.stderr


def _alias_bomb() -> str:
    """mkdocs.yml whose nav, through YAML aliases, repeats a list 10^9 times over."""
    lines = ["site_name: x", "a0: &a0 [index.md, index.md, index.md, index.md, index.md, index.md]"]
    lines += [f"a{i}: &a{i} [{', '.join(f'*a{i - 1}' for _ in range(10))}]" for i in range(1, 9)]
    return "\n".join(lines) + "\nnav: [*a8]\n"


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


@pytest.mark.parametrize(
    "name, text",
    [
        ("docs.json", '{"navigation": ' + "[" * 5000 + "]" * 5000 + "}"),  # past json's stack
        ("docs.json", '{"navigation": ' + "[" * 900 + '"index"' + "]" * 900 + "}"),
        ("mkdocs.yml", "nav: " + "[" * 3000 + "index.md" + "]" * 3000 + "\n"),
        ("mkdocs.yml", _alias_bomb()),
        ("sidebars.js", "module.exports = " + "[" * 5000 + "'index'" + "]" * 5000 + ";"),
    ],
    ids=["json-5000-deep", "json-900-deep", "yaml-3000-deep", "yaml-alias-bomb", "js-5000-deep"],
)
def test_a_hostile_navigation_file_is_cut_short_never_a_traceback(
    tmp_path: Path, name: str, text: str
) -> None:
    docs = _site(tmp_path / "docs", {name: text, "index.md": "# Index\n\nHello.\n"})
    started = _children_cpu()
    proc = run_docsmcp("build", "--docs-dir", docs, "--out", tmp_path / "idx", check=False)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert _children_cpu() - started < 60  # CPU seconds: the clock is not the build's under load


def test_a_page_without_its_own_title_takes_the_navigations(tmp_path: Path) -> None:
    """httpx's `ssl.md` opens with a paragraph and a `###`: its page title was that heading
    ("Enabling and disabling verification") where the site's nav calls it "SSL". A title of the
    page's own (frontmatter, h1) still wins."""
    root = _site(
        tmp_path / "site",
        {
            "mkdocs.yml": "nav:\n  - SSL: ssl.md\n  - Start here: zeta.md\n",
            "docs/ssl.md": "Verify hosts.\n\n### Enabling and disabling verification\n\nText.\n",
            "docs/zeta.md": "# Zeta\n\nRead me first.\n",
        },
    )
    out = build_bundle(root / "docs", tmp_path / "idx", "--source-root", str(root))
    titles = {e["path"]: e["title"] for e in _list(out, depth=5) if "path" in e}
    assert titles == {"ssl.md": "SSL", "zeta.md": "Zeta"}


def test_jupyter_book_tables_of_contents_order_the_pages(tmp_path: Path) -> None:
    """Jupyter Book 2's `myst.yml` (`project.toc`) and Jupyter Book 1's `_toc.yml` (`root`,
    `chapters`/`parts`/`sections`, files without suffix) name the book's pages in order."""
    pages = {"index.md": "# Home\n", "b.md": "# B\n", "guide/a.md": "# A\n"}
    two = _site(
        tmp_path / "two",
        {
            **pages,
            "myst.yml": "version: 1\nproject:\n  toc:\n    - file: index.md\n"
            "    - title: Guide\n      file: guide/a.md\n      children:\n        - file: b.md\n",
        },
    )
    one = _site(
        tmp_path / "one",
        {
            **pages,
            "_toc.yml": "format: jb-book\nroot: index\nparts:\n  - caption: Guide\n"
            "    chapters:\n      - file: guide/a\n        sections:\n          - file: b\n",
        },
    )
    for name, docs in (("myst.yml", two), ("_toc.yml", one)):
        out = tmp_path / f"idx-{name}"
        built = run_docsmcp("build", "--docs-dir", docs, "--out", out, "--json")
        assert json.loads(built.stdout)["navigation"] == (
            f"navigation: {name} (titles and order of 3 pages)"
        )
        # pages in path order: b.md, guide/a.md, index.md
        assert np.fromfile(out / "page_order.bin", dtype="<u4").tolist() == [2, 1, 0]


def test_fumadocs_meta_json_orders_the_pages(tmp_path: Path) -> None:
    """Fumadocs: each folder's `meta.json` lists its pages and folders (`---Label---` groups,
    `...` the rest by name, `!x` left out); Fumadocs' own docs had no navigation."""
    docs = _site(
        tmp_path / "docs",
        {
            "meta.json": '{"pages": ["ui", "(framework)"]}',
            "(framework)/index.mdx": "# Start\n",
            "(framework)/zeta.mdx": "# Zeta\n",
            "(framework)/alpha.mdx": "# Alpha\n",
            "ui/meta.json": '{"title": "UI", "pages": ["---Intro---", "theme", "...", "!old"]}',
            "ui/theme.mdx": "# Theme\n",
            "ui/cards.mdx": "# Cards\n",
            "ui/old.mdx": "# Old\n",
        },
    )
    out = tmp_path / "idx"
    built = run_docsmcp("build", "--docs-dir", docs, "--out", out, "--json")
    assert json.loads(built.stdout)["navigation"] == (
        "navigation: meta.json (titles and order of 5 pages)"
    )
    # pages in path order: (framework)/alpha, index, zeta, ui/cards, ui/old, ui/theme
    order = np.fromfile(out / "page_order.bin", dtype="<u4").tolist()
    assert order == [3, 2, 4, 1, 0xFFFFFFFF, 0]


NEXTRA_GLOBAL = """import type { MetaRecord } from 'nextra'
import { LinkIcon } from 'nextra/icons'

const GUIDE: MetaRecord = {
  zeta: '',
  alpha: { title: <span className="badge">Alpha <b>first</b></span> },
  _: { type: 'separator', title: 'More' },
  external: { title: 'Next.js', href: 'https://nextjs.org' }
}

export default {
  index: { type: 'page', display: 'hidden' },
  docs: {
    type: 'page',
    title: 'Documentation',
    items: { index: '', guide: { items: GUIDE }, start: 'Getting Started' }
  }
}
"""


def test_nextra_meta_files_title_and_order_the_pages(tmp_path: Path) -> None:
    """Nextra 4's `_meta.global.tsx` (an app of `page.mdx` routes, `items` per folder, a const
    and JSX titles) and a `content/` folder's `_meta.ts` and `_meta.json` name the pages in
    the sidebar's order and title them; the `_meta` files are no pages."""
    app = _site(
        tmp_path / "app",
        {
            "_meta.global.tsx": NEXTRA_GLOBAL,
            "page.mdx": "# Home\n",
            "docs/page.mdx": "# Introduction\n",
            "docs/start/page.mdx": "# Start\n",
            "docs/guide/page.mdx": "# Guide\n",
            "docs/guide/alpha/page.mdx": "# A\n",
            "docs/guide/beta/page.mdx": "# B\n",
            "docs/guide/zeta/page.mdx": "# Z\n",
            "_components/shared.mdx": "# Private\n",
        },
    )
    out = tmp_path / "idx"
    built = run_docsmcp("build", "--docs-dir", app, "--out", out, "--json")
    assert json.loads(built.stdout)["navigation"] == (
        "navigation: _meta.global.tsx (titles and order of 7 pages)"
    )
    listed = [e["path"] for e in _list(out, depth=5)]
    assert listed == [
        "page.mdx", "docs/page.mdx", "docs/guide/page.mdx", "docs/guide/zeta/page.mdx",
        "docs/guide/alpha/page.mdx", "docs/guide/beta/page.mdx", "docs/start/page.mdx",
        "_components/shared.mdx",
    ]  # fmt: skip
    pages = [p.relative_to(app).as_posix() for p in app.rglob("*.mdx")]
    nav = read_nav(app, [app], pages)
    assert nav.titles == {
        "docs/page.mdx": "Documentation",
        "docs/guide/alpha/page.mdx": "Alpha first",
        "docs/start/page.mdx": "Getting Started",
    }
    content = _site(
        tmp_path / "content",
        {
            "_meta.ts": "export default {\n  index: 'Home',\n  docs: { title: 'Docs' },\n}\n",
            "index.mdx": "# Welcome\n",
            "docs.mdx": "# The folder's page, beside it\n",
            "docs/_meta.json": '{"b": "Second", "a": {"display": "hidden"}}',
            "docs/a.md": "# A\n",
            "docs/b.mdx": "# B\n",
            "docs/c.mdx": "# C\n",
        },
    )
    paths = ["docs.mdx", "docs/a.md", "docs/b.mdx", "docs/c.mdx", "index.mdx"]
    nav = read_nav(content, [content], paths)
    assert nav.order == {
        "index.mdx": 0, "docs.mdx": 1, "docs/b.mdx": 2, "docs/a.md": 3, "docs/c.mdx": 4
    }  # fmt: skip
    assert nav.titles == {"index.mdx": "Home", "docs.mdx": "Docs", "docs/b.mdx": "Second"}


def test_nextra_route_groups_nested_deep_are_cut_short(tmp_path: Path) -> None:
    """A tree of route groups 300 deep (each `(g)/`) under a `_meta.js`: the navigation reads
    what it can (MAX_NAV_DEPTH levels), never a RecursionError."""
    folder = docs = tmp_path / "docs"
    for _ in range(300):
        folder = folder / "(g)"
    folder.mkdir(parents=True)
    (folder / "deep.mdx").write_text("# Deep\n", encoding="utf-8")
    (docs / "top.mdx").write_text("# Top\n", encoding="utf-8")
    (docs / "_meta.js").write_text("export default { top: 'The top' }\n", encoding="utf-8")
    deep = folder.relative_to(docs).as_posix() + "/deep.mdx"
    nav = read_nav(docs, [docs], ["top.mdx", deep])
    assert nav.order == {"top.mdx": 0} and nav.titles == {"top.mdx": "The top"}


def test_rspress_meta_arrays_title_and_order_the_pages(tmp_path: Path) -> None:
    """Rspress writes `_meta.json` as an array per folder (names, `file`/`dir` items with a
    label, section headers and links that are no pages), its labels keys of the site's
    `i18n.json`: the pages in the sidebar's order, titled in the locale's language."""
    site = _site(
        tmp_path / "website",
        {
            "i18n.json": '{"gettingStarted": {"zh": "开始", "en": "Getting Started"}}',
            "docs/en/guide/_meta.json": json.dumps(
                [
                    {"type": "section-header", "label": "Guide"},
                    {"type": "dir-section-header", "name": "start", "label": "gettingStarted"},
                    {"type": "divider"},
                    {"type": "custom-link", "label": "GitHub", "link": "https://x.test"},
                    {"type": "dir", "name": "basic", "label": "Basics"},
                ]
            ),
            "docs/en/guide/start/_meta.json": '["introduction", "quick-start.mdx"]',
            "docs/en/guide/start/index.md": "# Start\n",
            "docs/en/guide/start/quick-start.mdx": "# Quick start\n",
            "docs/en/guide/start/introduction.mdx": "# Introduction\n",
            "docs/en/guide/basic/_meta.json": '[{"type": "file", "name": "zeta", "label": "Z"}]',
            "docs/en/guide/basic/alpha.mdx": "# Alpha\n",
            "docs/en/guide/basic/zeta.mdx": "# Zeta\n",
        },
    )
    paths = sorted(p.relative_to(site).as_posix() for p in site.rglob("*.md*"))
    nav = read_nav(site, [site], paths)
    assert sorted(nav.order, key=nav.order.get) == [
        "docs/en/guide/start/index.md",
        "docs/en/guide/start/introduction.mdx",
        "docs/en/guide/start/quick-start.mdx",
        "docs/en/guide/basic/zeta.mdx",
        "docs/en/guide/basic/alpha.mdx",
    ]
    assert nav.titles == {
        "docs/en/guide/start/index.md": "Getting Started",
        "docs/en/guide/basic/zeta.mdx": "Z",
    }


def test_drizzle_meta_pairs_title_and_order_the_pages(tmp_path: Path) -> None:
    """Drizzle's `_meta.json` is an array of group headers (strings, `---` a separator) and
    `[name, title]` pairs, one per page in the sidebar's order; a dialect folder's own file
    orders its copies (drizzle-orm-docs: 522 pages came in file-name order, untitled)."""
    site = _site(
        tmp_path / "docs",
        {
            "_meta.json": json.dumps(
                [
                    "meet drizzle",
                    ["overview", "Why Drizzle?"],
                    "Fundamentals",
                    ["column-types", "Data types"],
                    "---",
                    ["zod", "zod"],
                ]
            ),
            "overview.mdx": "# Overview\n",
            "zod.mdx": "# zod\n",
            "fundamentals.mdx": "# Fundamentals page\n",
            "column-types/_meta.json": '[["pg", "PostgreSQL"], ["mysql", "MySQL"]]',
            "column-types/mysql.mdx": "# MySQL column types\n",
            "column-types/pg.mdx": "# PostgreSQL column types\n",
            "pg/_meta.json": '["Access your data", ["select", "Select"], ["operators", "Filters"]]',
            "pg/operators.mdx": "# Filters\n",
            "pg/select.mdx": "# SQL Select\n",
        },
    )
    paths = sorted(p.relative_to(site).as_posix() for p in site.rglob("*.mdx"))
    nav = read_nav(site, [site], paths)
    assert sorted(nav.order, key=nav.order.get) == [
        "overview.mdx",
        "column-types/pg.mdx",
        "column-types/mysql.mdx",
        "zod.mdx",
        "fundamentals.mdx",
        "pg/select.mdx",
        "pg/operators.mdx",
    ]
    assert nav.titles == {
        "overview.mdx": "Why Drizzle?",
        "column-types/pg.mdx": "PostgreSQL",
        "column-types/mysql.mdx": "MySQL",
        "zod.mdx": "zod",
        "pg/select.mdx": "Select",
        "pg/operators.mdx": "Filters",
    }
