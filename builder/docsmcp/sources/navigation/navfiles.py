"""Titles from the navigation files a docs site already has: mkdocs `nav` (mkdocs.yml), mdBook
`SUMMARY.md` (and a GitBook space's summary, whatever `.gitbook.yaml` names it:
gitbook_site.py), Documenter.jl's `make.jl` `pages` (documenter_make.py), Laravel's
`documentation.md` sidebar, Quarto's `_quarto.yml` sidebar, Jupyter Book's `myst.yml` and
`_toc.yml`, Mintlify `docs.json`, Fumadocs' `meta.json` and Nextra's and Rspress' `_meta` files
(read folder by folder: meta_navs.py), Docusaurus `sidebars.json`, an Antora component's
`nav.adoc` files (antora.py), a Writerside project's instance trees (writerside.py), docfx's
`toc.yml` (docfx_toc.py), and the order of pkgdown's `_pkgdown.yml` and bookdown's
`_bookdown.yml` (r_nav.py). Every reader stays within nav_bounds' bounds. They name pages as the
site's sidebar shows them ("Tutorial - User Guide" > "First Steps"), words a reader searches
with that the page itself may not use; they feed each page's `page` field
(indexing/pagefield.py). Their order is the site's: `list_sections` lists pages that way
(page_order.bin, bundle-spec.md).

Only what parses as data is read: a Docusaurus `sidebars.js`/`.ts` is code, never run; the
object literal it exports is read when it holds only data (jsliteral.py), as most do. A nav file
that does not parse gives nothing; it is a hint, never an error.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from docsmcp.sources.jsliteral import exported_literal
from docsmcp.sources.navigation import docfx_toc, documenter_make, meta_navs, r_nav
from docsmcp.sources.navigation.nav_bounds import MAX_NAV_DEPTH, MAX_NAV_NODES, Budget
from docsmcp.sources.site_config import mkdocs_configs, read_text, read_yaml
from docsmcp.sources.sites import antora, exdoc_site, gitbook_site, quarto, writerside

log = logging.getLogger(__name__)

# What a nav entry's page may be written with (mkdocs: the file; Mintlify, Docusaurus: the
# file without its extension).
SUFFIXES = ("", ".md", ".mdx", ".markdown")
# Docusaurus' sidebars, as data or as code (a site has one of them).
SIDEBARS = ("sidebars.json", "sidebars.js", "sidebars.ts", "sidebars.mjs", "sidebars.cjs")
_SUMMARY_LINK = re.compile(r"\[([^\]]+)\]\(<?([^)>\s]+)>?\)")
# Where an mdBook keeps its table of contents, relative to the docs folder, and docsify's
# `_sidebar.md` (the same list of links).
SUMMARY_FILES = ("SUMMARY.md", "src/SUMMARY.md", "_sidebar.md")
# Links to pages that make a SUMMARY.md a table of contents (not a page that summarises).
CONTENTS_LINKS = 3
# A page that is the site's sidebar, shown beside every page: Laravel's `documentation.md`, a
# nested list of links under headings (`- ## Prologue`, `    - [Routing](/docs/{{version}}/
# routing)`). One is a sidebar when every line of it is a list item (`is_sidebar`).
SIDEBAR_PAGES = ("documentation.md",)
_LIST_ITEM = re.compile(r"^[ \t]*[-*+][ \t]")


def _inside(path: Path, roots: Sequence[Path]) -> bool:
    real = path.resolve()
    return any(real == r or r in real.parents for r in (root.resolve() for root in roots))


def _mkdocs(config: Path) -> Iterator[tuple[Path, str]]:
    """(page file, title) of each titled page of mkdocs.yml's `nav`."""
    data = read_yaml(config)
    if not isinstance(data, dict):
        return
    docs = data.get("docs_dir") if isinstance(data.get("docs_dir"), str) else "docs"
    base = config.parent / docs

    budget = Budget()

    def walk(items: object, depth: int) -> Iterator[tuple[Path, str]]:
        if depth > MAX_NAV_DEPTH:
            return
        for item in items if isinstance(items, list) else []:
            if not budget.take():
                return
            if isinstance(item, str) and "://" not in item:
                yield base / item, ""  # a bare path: the page's own title, a place in the order
            if not isinstance(item, dict):
                continue
            for title, value in item.items():
                if isinstance(value, str) and isinstance(title, str) and "://" not in value:
                    yield base / value, title
                elif isinstance(value, list):
                    yield from walk(value, depth + 1)

    yield from walk(data.get("nav"), 0)


def _quarto(config: Path) -> Iterator[tuple[Path, str]]:
    """(page file, title) of each page a Quarto `_quarto.yml` sidebar names (`website.sidebar`,
    one or a list of them: a path, `{href, text}`, `{section, contents}`), paths from the
    project's folder; a folder's `href` (`docs/x/`) is its index page."""
    data = read_yaml(config)
    website = data.get("website") if isinstance(data, dict) else None
    sidebars = website.get("sidebar") if isinstance(website, dict) else None
    budget = Budget()

    def page(href: str) -> Path:
        return config.parent / (href + "index.qmd" if href.endswith("/") else href)

    def walk(items: object, depth: int) -> Iterator[tuple[Path, str]]:
        if depth > MAX_NAV_DEPTH:
            return
        for item in items if isinstance(items, list) else [items]:
            if not budget.take():
                return
            if isinstance(item, str) and "://" not in item:
                yield page(item), ""
            elif isinstance(item, dict):
                href, text = item.get("href"), item.get("text")
                if isinstance(href, str) and "://" not in href:
                    yield page(href), text if isinstance(text, str) else ""
                if "contents" in item:
                    yield from walk(item["contents"], depth + 1)

    yield from walk(sidebars if isinstance(sidebars, list) else [sidebars], 0)


def _book_toc(config: Path) -> Iterator[tuple[Path, str]]:
    """(page file, title) of each page a Jupyter Book table of contents names: mystmd's
    `myst.yml` (`project.toc`: `file`, `title`, `children`) or Jupyter Book 1's `_toc.yml`
    (`root`, then `chapters`, `parts` and `sections` of `file` entries, without suffix)."""
    data = read_yaml(config)
    if not isinstance(data, dict):
        return
    project = data.get("project")
    entries = project.get("toc") if isinstance(project, dict) else None
    if entries is None:  # Jupyter Book 1
        root = data.get("root")
        entries = [{"file": root}, data] if isinstance(root, str) else [data]
    budget = Budget()

    def walk(items: object, depth: int) -> Iterator[tuple[Path, str]]:
        if depth > MAX_NAV_DEPTH:
            return
        for item in items if isinstance(items, list) else [items]:
            if not isinstance(item, dict) or not budget.take():
                continue
            file, title = item.get("file"), item.get("title")
            if isinstance(file, str):
                yield config.parent / file, title if isinstance(title, str) else ""
            for key in ("children", "chapters", "parts", "sections"):
                if key in item:
                    yield from walk(item[key], depth + 1)

    yield from walk(entries, 0)


def _summary_links(text: str) -> list[tuple[str, str]]:
    """(title, target) of each link of a SUMMARY.md's text to a page of the book (not a URL)."""
    return [(title, target) for title, target in _SUMMARY_LINK.findall(text) if "://" not in target]


def _summary(summary: Path) -> Iterator[tuple[Path, str]]:
    """(page file, title) of each link of an mdBook SUMMARY.md (or a sidebar page). A link from
    the site's root (`/docs/{{version}}/routing`) is tried without its leading route segments
    (`routing`), as the site serves the docs folder under them; read_nav keeps the one that is
    a page."""
    for title, target in _summary_links(read_text(summary)):
        path = target.split("#")[0].split("?")[0]
        if not path.startswith("/"):
            yield summary.parent / path, title.strip()
            continue
        parts = [p for p in path.split("/") if p]
        for k in range(len(parts)):
            yield summary.parent.joinpath(*parts[k:]), title.strip()


def is_sidebar(text: str) -> bool:
    """Whether a SIDEBAR_PAGES page's `text` is a sidebar: only list items (links, and the
    headings of their groups), linking CONTENTS_LINKS pages or more."""
    lines = [x for x in text.split("\n") if x.strip()]
    return (
        bool(lines)
        and all(_LIST_ITEM.match(x) for x in lines)
        and len(_summary_links(text)) >= CONTENTS_LINKS
    )


def _summary_names(paths: Sequence[str]) -> list[str]:
    """Where read_nav looks for a SUMMARY.md: SUMMARY_FILES, and any folder's `SUMMARY.md`
    (a GitBook repository holds one per space: `developers/SUMMARY.md`, ...)."""
    nested = sorted(p for p in paths if p.rpartition("/")[2] == "SUMMARY.md")
    return list(dict.fromkeys([*SUMMARY_FILES, *nested]))


def tables_of_contents(texts: Mapping[str, str]) -> list[str]:
    """The tables of contents among `texts` (path relative to the docs folder -> text): an
    mdBook or GitBook SUMMARY.md or docsify `_sidebar.md` where read_nav looks for one,
    linking CONTENTS_LINKS pages or more, and a sidebar page (`is_sidebar`)."""
    return [
        n
        for n in _summary_names(list(texts))
        if len(_summary_links(texts.get(n, ""))) >= CONTENTS_LINKS
    ] + [n for n in SIDEBAR_PAGES if is_sidebar(texts.get(n, ""))]


def _page_folders(docs_dir: Path, paths: Sequence[str]) -> frozenset[Path]:
    """The folders holding the pages at `paths` (relative to docs_dir), and those above them."""
    folders: set[Path] = set()
    for path in paths:
        parts = path.split("/")[:-1]
        folders.update(docs_dir.joinpath(*parts[:i]) for i in range(len(parts) + 1))
    return frozenset(folders)


def _data_nav(config: Path, base: Path) -> Iterator[tuple[Path, str]]:
    """(page file, group label, "" outside a group) of Mintlify docs.json (`group`, `pages`) and
    Docusaurus sidebars.json (`label`, `items`, `id`): pages are named without their extension,
    in lists (a string elsewhere outside a group is a setting: `theme`, `name`)."""
    text = read_text(config)
    if not text:  # (no such file: most sites)
        return
    if config.suffix == ".json":
        try:
            data = json.loads(text)
        except (ValueError, RecursionError):
            log.info("%s: not read as JSON; it gives no titles", config)
            return
    else:
        data = exported_literal(text)
        if data is None:
            log.info("%s: its sidebars are made by code; they give no titles", config)
            return

    budget = Budget()

    def walk(node: object, group: str, listed: bool, depth: int) -> Iterator[tuple[Path, str]]:
        if depth > MAX_NAV_DEPTH or not budget.take():
            return
        if isinstance(node, list):
            for item in node:
                yield from walk(item, group, True, depth + 1)
        elif isinstance(node, str):
            if (group or listed) and "://" not in node:
                yield base / node.lstrip("/"), group
        elif isinstance(node, dict):
            label = node.get("group", node.get("label"))
            here = label if isinstance(label, str) and label.strip() else group
            if isinstance(node.get("id"), str):  # a Docusaurus doc item
                yield from walk(node["id"], here, True, depth + 1)
            for key, value in node.items():
                if key not in ("group", "label", "id", "href", "icon"):
                    yield from walk(value, here, False, depth + 1)

    yield from walk(data, "", False, 0)


_MKDOCS_NAV = re.compile(r"^nav\s*:", re.MULTILINE)


def _antora(docs_dir: Path, nav: str) -> Iterator[tuple[Path, str]]:
    """An Antora component's `nav.adoc` (antora.py): `* xref:page.adoc[Title]` items."""
    for page, title in antora.nav_entries(nav, read_text(docs_dir / nav)):
        yield docs_dir / page, title


def _has_nav(path: Path) -> bool:
    """Whether a nav file outside the roots has a navigation (mkdocs.yml may hold only settings;
    a sidebars file is one): a yes or no for the build summary, nothing of it is indexed."""
    if path.suffix in (".yml", ".yaml"):
        return _MKDOCS_NAV.search(read_text(path)) is not None
    return True


@dataclass(frozen=True)
class Nav:
    """What the nav files say of the pages they name: a title (or, in docs.json and
    sidebars.json, the group label), and a place in the site's order (0 first)."""

    titles: dict[str, str]
    order: dict[str, int]
    read: tuple[Path, ...] = ()  # the nav files read
    outside: tuple[Path, ...] = ()  # nav files found beside the docs but outside every root


def read_nav(docs_dir: Path, roots: Sequence[Path], paths: Sequence[str]) -> Nav:
    """For the pages at `paths` (relative to docs_dir) that a nav file names: the title it
    gives them and their order. The first nav file found wins for a page's title, in the order
    mkdocs.yml, SUMMARY.md, docs.json, sidebars.json/.js/.ts, and a page's first mention gives its
    place; nav files are looked for in docs_dir and its parent (mkdocs.yml usually sits beside
    `docs/`; one further up whose `docs_dir` is this folder counts too: site_config.
    mkdocs_configs) and read only inside the source roots."""
    docs_dir = docs_dir.resolve()
    found: list[tuple[Path, str]] = []
    read: list[Path] = []
    outside: list[Path] = []

    def take(path: Path, entries: Callable[[], Iterator[tuple[Path, str]]]) -> None:
        if not path.is_file():
            return
        if not _inside(path, roots):  # (the folder above only where it is a source root)
            if _has_nav(path):  # (for the build summary's hint only, like site_config's name)
                outside.append(path)
            return
        before = len(found)
        found.extend(entries())
        if len(found) > before:
            read.append(path)

    for config in mkdocs_configs(docs_dir):
        take(config, lambda f=config: _mkdocs(f))
    for make in documenter_make.make_files(docs_dir):  # (Documenter.jl's `pages`)
        if "makedocs" in read_text(make):
            take(make, lambda f=make: documenter_make.pages(f))
    for name in ("myst.yml", "_toc.yml"):
        toc = docs_dir / name
        take(toc, lambda f=toc: _book_toc(f))
    project = quarto.project(docs_dir, roots)
    if project is not None:
        take(project / quarto.CONFIG, lambda f=project / quarto.CONFIG: _quarto(f))
    for name in _summary_names(paths):
        summary = docs_dir / name
        if name not in SUMMARY_FILES and len(_summary_links(read_text(summary))) < CONTENTS_LINKS:
            continue  # a page of a folder that summarises, no table of contents
        take(summary, lambda f=summary: _summary(f))
    space = gitbook_site.find(docs_dir, roots)
    named = gitbook_site.summary_file(space) if space is not None else None
    if named is not None:  # (`.gitbook.yaml`'s `structure.summary: toc.md`)
        take(named, lambda f=named: _summary(f))
    for name in SIDEBAR_PAGES:
        if is_sidebar(read_text(docs_dir / name)):
            take(docs_dir / name, lambda f=docs_dir / name: _summary(f))
    take(docs_dir / "meta.json", lambda f=docs_dir / "meta.json": meta_navs.fumadocs(f))
    pkgdown = r_nav.pkgdown_config(docs_dir)  # an R package's site (r_nav.py)
    if pkgdown is not None:
        take(pkgdown, lambda f=pkgdown: r_nav.pkgdown(f, docs_dir, paths))
    book = docs_dir / r_nav.BOOKDOWN_CONFIG
    take(book, lambda: r_nav.bookdown(book, paths))
    mix_project = exdoc_site.project(docs_dir)
    if mix_project is not None:  # an ExDoc project's `extras`, in mix.exs
        mix = mix_project / exdoc_site.MIX_FILE
        take(mix, lambda f=mix: exdoc_site.nav_entries(f, read_text(f)))
    folders = _page_folders(docs_dir, paths)
    for root in meta_navs.nextra_roots(folders):
        names = (*meta_navs.NEXTRA_GLOBAL, *meta_navs.NEXTRA_META)
        meta = next(root / n for n in names if (root / n).is_file())
        take(meta, lambda r=root: meta_navs.nextra(r, folders))
    components = antora.read_components(docs_dir, paths)
    for nav in antora.nav_files(components, paths) if components else ():
        take(docs_dir / nav, lambda n=nav: _antora(docs_dir, n))
    if (docs_dir / "docfx.json").is_file():  # docfx: the `toc.yml` beside it, those it names
        toc, budget = docs_dir / docfx_toc.NAME, [MAX_NAV_NODES]
        take(toc, lambda: docfx_toc.entries(toc, MAX_NAV_DEPTH, budget))
    if (project := writerside.find(docs_dir, roots)) is not None and project.trees:
        take(project.trees[0], lambda p=project: writerside.nav_entries(p, docs_dir, paths))
    configs = [(docs_dir / "docs.json", docs_dir)]
    for name in SIDEBARS:  # a Docusaurus site, or its docs/ folder
        configs += [(docs_dir / name, docs_dir / "docs"), (docs_dir.parent / name, docs_dir)]
    for config, base in configs:
        take(config, lambda f=config, b=base: _data_nav(f, b))
    known = set(paths)
    titles: dict[str, str] = {}
    order: dict[str, int] = {}
    for file, title in found:
        for suffix in SUFFIXES:
            try:
                rel = (file.parent / (file.name + suffix)).resolve().relative_to(docs_dir)
            except ValueError:
                break
            page = rel.as_posix()
            if page in known:
                order.setdefault(page, len(order))
                title = " ".join(title.split())
                if title:
                    titles.setdefault(page, title)
                break
    return Nav(titles, order, tuple(read), tuple(outside))


def summary_line(nav: Nav, docs_dir: Path) -> str | None:
    """What the build summary (and init's report) says of the site's navigation files: those
    read (they titled and ordered the pages), else one found beside the docs but outside every
    source root, with the option that reads it."""
    if nav.read:
        files = ", ".join(_shown(f, docs_dir) for f in nav.read)
        pages = f"{len(nav.order)} page{'' if len(nav.order) == 1 else 's'}"
        return f"navigation: {files} (titles and order of {pages})"
    if nav.outside:
        found = nav.outside[0]
        if found.name == exdoc_site.MIX_FILE and (found.parent / "lib").is_dir():
            # an ExDoc project's guides: its module pages (the API reference) are in lib/
            return (
                f"navigation: {found} would title and order the pages, and its lib/ holds "
                f"the API reference hexdocs shows: build the project, --docs-dir {found.parent}"
            )
        return (
            f"navigation: {found} would title and order the pages; it is outside the source "
            f"roots: add --source-root {found.parent}"
        )
    return None


def _shown(path: Path, docs_dir: Path) -> str:
    try:
        return path.relative_to(Path(docs_dir).resolve()).as_posix()
    except ValueError:
        return str(path)
