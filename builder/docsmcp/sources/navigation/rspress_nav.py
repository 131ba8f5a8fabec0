"""Rspress' `_meta.json`: a folder's sidebar as a JSON array, read as the Nextra `_meta` object
meta_navs.py walks (the same file name; Nextra 2 writes an object, Rspress an array).

    ["introduction", {"type": "file", "name": "index", "label": "apiOverview"},
     {"type": "dir", "name": "config", "label": "Config"},
     {"type": "dir-section-header", "name": "basic", "label": "features"},
     {"type": "section-header", "label": "Guides"}, {"type": "divider"},
     {"type": "custom-link", "label": "GitHub", "link": "https://…"}]

A string or a `file`/`dir`/`dir-section-header` item names a page or a folder in sidebar order
(with or without its `.md`/`.mdx`); headers, dividers and links are no pages. A `label` that is a
key of the site's `i18n.json` (Rspress' `i18nSource`, beside the docs folder: `"gettingStarted":
{"en": "Getting Started", "zh": "开始"}`) is that key's text in the folder's language (the locale
folder the page is in, else English, else the first given). Rspress' docs: 96 pages were read in
file-name order with 26 lines saying their `_meta.json` was no Nextra navigation.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from pathlib import Path
from typing import TypeGuard

from docsmcp.sources.site_config import read_text

_PAGES = ("file", "dir", "dir-section-header")
_SUFFIXES = (".mdx", ".md")
MAX_LEVELS = 6  # folders above a `_meta.json` looked in for the site's `i18n.json`
MAX_ITEMS = 10_000


def meta(items: list[object], folder: Path, allowed: Collection[Path]) -> dict[str, object]:
    """The Nextra-shaped `_meta` object (name -> title, in order) of an Rspress array in
    `folder`; `i18n.json` is looked for in the `allowed` folders above it (inside the roots)."""
    texts, languages = _i18n(folder, allowed)
    pairs = any(_pair(item) for item in items[:MAX_ITEMS])  # (Drizzle's shape)
    out: dict[str, object] = {}
    for item in items[:MAX_ITEMS]:
        if _pair(item):
            name, label = item
        elif isinstance(item, str) and not pairs:
            name, label = item, ""
        elif isinstance(item, dict) and item.get("type", "file") in _PAGES:
            name = item.get("name") if isinstance(item.get("name"), str) else ""
            label = item.get("label") if isinstance(item.get("label"), str) else ""
        else:
            continue
        for suffix in _SUFFIXES:
            name = name.removesuffix(suffix)
        if name:
            out.setdefault(name, _translated(label, texts, languages))
    return out


def _pair(item: object) -> TypeGuard[list[str]]:
    """Whether `item` is Drizzle's `[name, title]` page entry."""
    return isinstance(item, list) and len(item) == 2 and all(isinstance(x, str) for x in item)


def _translated(label: str, texts: dict[str, object], languages: tuple[str, ...]) -> str:
    entry = texts.get(label)
    if not isinstance(entry, dict):
        return label
    for language in (*languages, "en"):
        if isinstance(entry.get(language), str):
            return entry[language]
    return next((v for v in entry.values() if isinstance(v, str)), label)


def _i18n(folder: Path, allowed: Collection[Path]) -> tuple[dict[str, object], tuple[str, ...]]:
    """The site's `i18n.json` in `folder` or above it among `allowed` (or {}), and the folder
    names on the way, nearest first (one of them may be the locale: `docs/en/guide`)."""
    names: list[str] = []
    for _ in range(MAX_LEVELS):
        if folder not in allowed:
            break
        found = _read(folder / "i18n.json")
        if found:
            return found, tuple(names)
        names.append(folder.name)
        if folder.parent == folder:
            break
        folder = folder.parent
    return {}, ()


def _read(path: Path) -> dict[str, object]:
    text = read_text(path) if path.is_file() else ""
    try:
        data = json.loads(text) if text else {}
    except (ValueError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}
