"""docfx's tables of contents: a `toc.yml` beside `docfx.json` (its top bar) whose items name
pages (`href: page.md`, titled by `name`, or by the page itself when `name` is absent), groups
(`name` and `items`), other tables of contents (`href: ../reference/toc.yml`) and folders
holding one (`href: docs/`). Read in order, each file once, as deep and as far as navfiles'
bounds allow; the entries title and order the pages (navfiles.py)."""

from __future__ import annotations

import posixpath
from collections.abc import Iterator
from pathlib import Path

from docsmcp.sources.site_config import read_yaml

NAME = "toc.yml"


def entries(
    toc: Path, max_depth: int, budget: list[int], seen: set[Path] | None = None
) -> Iterator[tuple[Path, str]]:
    """(page file, its `name` or "") of each page `toc` names, and of the tables of contents
    it names in turn; `budget`: nodes left to visit, shared by every file read."""
    seen = set() if seen is None else seen
    real = toc.resolve()
    if real in seen or not toc.is_file():
        return
    seen.add(real)
    yield from _walk(read_yaml(toc), toc.parent, 0, max_depth, budget, seen)


def _walk(
    items: object, base: Path, depth: int, max_depth: int, budget: list[int], seen: set[Path]
) -> Iterator[tuple[Path, str]]:
    if depth > max_depth:
        return
    for item in items if isinstance(items, list) else []:
        budget[0] -= 1
        if budget[0] < 0 or not isinstance(item, dict):
            return
        name = item.get("name") if isinstance(item.get("name"), str) else ""
        for key in ("href", "topicHref"):
            href = item.get(key)
            if not isinstance(href, str) or "://" in href or href.startswith(("#", "xref:")):
                continue
            href = href.partition("#")[0].partition("?")[0]
            if href.endswith("/") or posixpath.basename(href).lower() == NAME:
                target = base / href / NAME if href.endswith("/") else base / href
                yield from entries(target, max_depth - depth - 1, budget, seen)
            elif href:
                yield base / href, name
        yield from _walk(item.get("items"), base, depth + 1, max_depth, budget, seen)
