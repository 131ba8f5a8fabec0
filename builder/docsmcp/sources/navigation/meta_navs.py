"""The navigation files a docs site keeps folder by folder (navfiles.read_nav reads them with the
others): Fumadocs' `meta.json` (a folder's `pages`), Nextra's `_meta` files (an object of data in
JSON, JavaScript or TypeScript, read as a literal: jsliteral.py) and `_meta.global`, and Rspress'
`_meta.json` array (rspress_nav.py). Each yields (page file, title or group label) in the
sidebar's order, within nav_bounds' depth and node bounds.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Collection, Iterator, Sequence
from pathlib import Path

from docsmcp.sources.jsliteral import exported_literal
from docsmcp.sources.navigation import rspress_nav
from docsmcp.sources.navigation.nav_bounds import MAX_NAV_DEPTH, Budget
from docsmcp.sources.site_config import read_json, read_text

log = logging.getLogger(__name__)


def fumadocs(root_meta: Path) -> Iterator[tuple[Path, str]]:
    """(page file, group label) of each page Fumadocs' `meta.json` files order: a folder's
    `pages` lists its pages and folders by name (`index`, `(framework)`), `---Label---` opens a
    group, `...` is the rest in name order, `...folder` a folder's pages in place, `!name`
    leaves one out; a folder without its own `meta.json` lists its pages in name order."""
    budget = Budget()

    def names(folder: Path) -> list[str]:
        found = {p.stem for p in folder.glob("*.md*") if p.suffix in (".md", ".mdx")}
        found |= {p.name for p in folder.iterdir() if p.is_dir() and not p.name.startswith(".")}
        return (["index"] if "index" in found else []) + sorted(found - {"index"})

    def walk(folder: Path, group: str, depth: int, titled: bool) -> Iterator[tuple[Path, str]]:
        """The pages of `folder`; `titled`: its `meta.json` title, if any, is their group."""
        if depth > MAX_NAV_DEPTH:
            return
        meta = read_json(folder / "meta.json")
        title = meta.get("title") if titled and isinstance(meta, dict) else None
        group = title if isinstance(title, str) else group
        pages = meta.get("pages") if isinstance(meta, dict) else None
        entries = [p for p in pages if isinstance(p, str)] if isinstance(pages, list) else ["..."]
        taken = {e.lstrip("!.") for e in entries if not e.startswith("---")}
        for entry in entries:
            if not budget.take():
                return
            if entry.startswith("---") and entry.endswith("---"):
                group = entry.strip("-").strip()
                continue
            if entry.startswith("!") or "](" in entry or ".." in entry.lstrip("."):
                continue  # (a link; nothing above the docs folder is read)
            if entry in ("...", "z...a"):
                rest = [n for n in names(folder) if n not in taken]
                for name in reversed(rest) if entry == "z...a" else rest:
                    yield from one(folder, name, group, depth)
            elif entry.startswith("..."):  # (extracted in place: no group of its own)
                yield from walk(folder / entry[3:], group, depth + 1, False)
            else:
                yield from one(folder, entry, group, depth)

    def one(folder: Path, name: str, group: str, depth: int) -> Iterator[tuple[Path, str]]:
        if (folder / name).is_dir():
            yield from walk(folder / name, group, depth + 1, True)
        else:
            for suffix in (".mdx", ".md"):
                if (folder / (name + suffix)).is_file():
                    yield folder / (name + suffix), group
                    break

    yield from walk(root_meta.parent, "", 0, False)


# Nextra's navigation: a `_meta` file in a folder (Nextra 2's `_meta.json`, 3 and 4's JavaScript
# or TypeScript), or one `_meta.global` file for the whole tree (Nextra 4).
NEXTRA_SUFFIXES = (".json", ".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs")
NEXTRA_META = tuple(f"_meta{s}" for s in NEXTRA_SUFFIXES)
NEXTRA_GLOBAL = tuple(f"_meta.global{s}" for s in NEXTRA_SUFFIXES)
# A Nextra page: `name.mdx` (pages/ and content/ folders), or a folder's `page.mdx` (app/
# routes) or `index.mdx`.
_NEXTRA_PAGE = (".mdx", ".md")


def _nextra_meta(
    folder: Path, names: Sequence[str], allowed: Collection[Path] = ()
) -> dict[str, object] | None:
    """The object of a folder's first Nextra `_meta` file among `names`, None when it has none
    or its file gives no object (a file whose keys are made by code); Rspress' `_meta.json`
    array as that object (rspress_nav.py)."""
    for name in names:
        path = folder / name
        if not path.is_file():
            continue
        text = read_text(path)
        data: object
        if path.suffix == ".json":
            try:
                data = json.loads(text)
            except (ValueError, RecursionError):
                data = None
        else:
            data = exported_literal(text, loose=True)
        if isinstance(data, dict):
            return data
        if isinstance(data, list) and path.suffix == ".json":
            return rspress_nav.meta(data, folder, allowed)
        log.info("%s: not read as Nextra navigation (no object literal of data)", path)
        return None
    return None


def nextra(root: Path, folders: frozenset[Path]) -> Iterator[tuple[Path, str]]:
    """(page file, title, "" for the page's own) of the pages Nextra's `_meta` files order below
    `root`, in the sidebar's order: a folder's keys name its pages and folders in display order
    (`index` is the folder's own page), a string value or `title` is the sidebar's title; keys
    of separators, links (`href`) and `*` defaults are no pages; a folder's pages its `_meta`
    leaves out follow in name order. `_meta.global` holds the folders' keys under `items`.
    Route groups (`(docs)/`) are no level of the sidebar; `_` folders are private (no route).
    Only `folders` (those holding the build's pages, and the folders above them) are looked in."""
    budget = Budget()

    def children(folder: Path, depth: int = 0) -> list[Path]:
        """The folders and files that may be pages of `folder`, route groups looked into."""
        found: list[Path] = []
        for entry in sorted(folder.iterdir()) if folder.is_dir() else []:
            if entry.name.startswith((".", "_")):
                continue
            if entry.is_dir() and entry not in folders:
                continue
            if entry.is_dir() and entry.name.startswith("(") and entry.name.endswith(")"):
                found += children(entry, depth + 1) if depth < MAX_NAV_DEPTH else []
            elif entry.is_dir() or entry.suffix in _NEXTRA_PAGE:
                found.append(entry)
        return found

    def own_page(folder: Path) -> Path | None:
        for stem in ("page", "index"):
            for suffix in _NEXTRA_PAGE:
                if (folder / (stem + suffix)).is_file():
                    return folder / (stem + suffix)
        return None

    def walk(folder: Path, meta: object, depth: int) -> Iterator[tuple[Path, str]]:
        if depth > MAX_NAV_DEPTH:
            return
        if not isinstance(meta, dict):
            meta = _nextra_meta(folder, NEXTRA_META, folders) or {}
        # A name is a page (`a.mdx`), a folder (`a/`), or both: `a.mdx` is then the folder's page.
        entries: dict[str, list[Path]] = {}
        for entry in children(folder):
            name = entry.stem if entry.is_file() else entry.name
            entries.setdefault("index" if name == "page" else name, []).append(entry)
        keys = [k for k in meta if k in entries]
        rest = sorted(set(entries) - set(keys), key=lambda k: (k != "index", k))
        for key in [*keys, *rest]:
            if not budget.take():
                return
            value = meta.get(key, "")
            title = value if isinstance(value, str) else ""
            if isinstance(value, dict):
                if "href" in value or value.get("type") == "separator":
                    continue  # (a link or a label: no page)
                title = value.get("title") if isinstance(value.get("title"), str) else ""
            found = sorted(entries[key], key=Path.is_dir)  # (the page, then the folder)
            page = found[0] if found[0].is_file() else own_page(found[0])
            if page is not None:
                yield page, title
            if found[-1].is_dir():
                items = value.get("items") if isinstance(value, dict) else None
                yield from walk(found[-1], items, depth + 1)

    yield from walk(root, _nextra_meta(root, NEXTRA_GLOBAL), 0)


def nextra_roots(folders: frozenset[Path]) -> list[Path]:
    """The top folders of Nextra navigation among `folders`: each holding a `_meta` file (or
    `_meta.global`) that no folder above it among them holds."""
    roots: list[Path] = []
    for path in sorted(folders, key=lambda f: (len(f.parts), f)):
        if any(r in path.parents for r in roots):
            continue
        if any((path / n).is_file() for n in (*NEXTRA_GLOBAL, *NEXTRA_META)):
            roots.append(path)
    return roots
