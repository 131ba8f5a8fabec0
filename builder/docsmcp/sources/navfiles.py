"""Titles from the navigation files a docs site already has: mkdocs `nav` (mkdocs.yml), mdBook
`SUMMARY.md`, Mintlify `docs.json` and Docusaurus `sidebars.json`. They name pages as the site's
sidebar shows them ("Tutorial - User Guide" > "First Steps"), words a reader searches with that
the page itself may not use; they feed each page's `page` field (indexing/pagefield.py).

Only files that parse as data are read: a Docusaurus `sidebars.js`/`.ts` is code and is skipped
(running it is out of the question). A nav file that does not parse gives nothing; it is a hint,
never an error.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator, Sequence
from pathlib import Path

from docsmcp.sources.site_config import read_text

log = logging.getLogger(__name__)

# What a nav entry's page may be written with (mkdocs: the file; Mintlify, Docusaurus: the
# file without its extension).
SUFFIXES = ("", ".md", ".mdx", ".markdown")
_SUMMARY_LINK = re.compile(r"\[([^\]]+)\]\(<?([^)>\s]+)>?\)")


def _inside(path: Path, roots: Sequence[Path]) -> bool:
    real = path.resolve()
    return any(real == r or r in real.parents for r in (root.resolve() for root in roots))


def _mkdocs(config: Path) -> Iterator[tuple[Path, str]]:
    """(page file, title) of each titled page of mkdocs.yml's `nav`."""
    import yaml  # (the builder's YAML reader, also used for frontmatter)

    class Loader(yaml.SafeLoader):
        """Safe YAML that reads mkdocs' custom tags (`!!python/name:…`, `!ENV`) as null."""

    Loader.add_multi_constructor("", lambda loader, suffix, node: None)
    Loader.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, suffix, node: None)
    text = read_text(config)
    try:
        data = yaml.load(text, Loader=Loader) if text else None  # noqa: S506 (safe subclass)
    except yaml.YAMLError:
        log.info("%s: not read as YAML; its nav gives no titles", config)
        return
    if not isinstance(data, dict):
        return
    docs = data.get("docs_dir") if isinstance(data.get("docs_dir"), str) else "docs"
    base = config.parent / docs

    def walk(items: object) -> Iterator[tuple[Path, str]]:
        for item in items if isinstance(items, list) else []:
            if not isinstance(item, dict):
                continue  # a bare path: the page's own title
            for title, value in item.items():
                if isinstance(value, str) and isinstance(title, str) and "://" not in value:
                    yield base / value, title
                elif isinstance(value, list):
                    yield from walk(value)

    yield from walk(data.get("nav"))


def _summary(summary: Path) -> Iterator[tuple[Path, str]]:
    """(page file, title) of each link of an mdBook SUMMARY.md."""
    for title, target in _SUMMARY_LINK.findall(read_text(summary)):
        if "://" not in target:
            yield summary.parent / target.split("#")[0], title.strip()


def _data_nav(config: Path, base: Path) -> Iterator[tuple[Path, str]]:
    """(page file, group label) of Mintlify docs.json (`group`, `pages`) and Docusaurus
    sidebars.json (`label`, `items`, `id`): pages are named without their extension."""
    text = read_text(config)
    if not text:  # (no such file: most sites)
        return
    try:
        data = json.loads(text)
    except ValueError:
        log.info("%s: not read as JSON; it gives no titles", config)
        return

    def walk(node: object, group: str) -> Iterator[tuple[Path, str]]:
        if isinstance(node, list):
            for item in node:
                yield from walk(item, group)
        elif isinstance(node, str):
            if group and "://" not in node:
                yield base / node.lstrip("/"), group
        elif isinstance(node, dict):
            label = node.get("group", node.get("label"))
            here = label if isinstance(label, str) and label.strip() else group
            if isinstance(node.get("id"), str):  # a Docusaurus doc item
                yield from walk(node["id"], here)
            for key, value in node.items():
                if key not in ("group", "label", "id", "href", "icon"):
                    yield from walk(value, here)

    yield from walk(data, "")


def nav_titles(docs_dir: Path, roots: Sequence[Path], paths: Sequence[str]) -> dict[str, str]:
    """For the pages at `paths` (relative to docs_dir) that a nav file names: the title (or, in
    docs.json and sidebars.json, the group label) it gives them. The first nav file found wins
    for a page, in the order mkdocs.yml, SUMMARY.md, docs.json, sidebars.json; nav files are
    looked for in docs_dir and its parent (mkdocs.yml usually sits beside `docs/`) and read
    only inside the source roots."""
    docs_dir = docs_dir.resolve()
    found: list[tuple[Path, str]] = []
    for folder in (docs_dir, docs_dir.parent):
        for name in ("mkdocs.yml", "mkdocs.yaml"):
            if _inside(folder / name, roots):
                found.extend(_mkdocs(folder / name))
    for summary in (docs_dir / "SUMMARY.md", docs_dir / "src" / "SUMMARY.md"):
        if _inside(summary, roots):
            found.extend(_summary(summary))
    for config, base in (
        (docs_dir / "docs.json", docs_dir),
        (docs_dir / "sidebars.json", docs_dir / "docs"),
        (docs_dir.parent / "sidebars.json", docs_dir),  # (read only inside the source roots)
    ):
        if _inside(config, roots):
            found.extend(_data_nav(config, base))
    known = set(paths)
    titles: dict[str, str] = {}
    for file, title in found:
        title = " ".join(title.split())
        if not title:
            continue
        for suffix in SUFFIXES:
            try:
                rel = (file.parent / (file.name + suffix)).resolve().relative_to(docs_dir)
            except ValueError:
                break
            if rel.as_posix() in known:
                titles.setdefault(rel.as_posix(), title)
                break
    return titles
