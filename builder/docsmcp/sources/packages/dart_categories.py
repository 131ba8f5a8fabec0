"""dartdoc's categories (`dartdoc_options.yaml`), for the Dart package reader (dart_package.py).

A package may group its API in categories: `dartdoc_options.yaml` names each one's markdown
page (`dartdoc: categories: "Core": {markdown: doc/core.md}`) and a declaration joins one with
`{@category Core}` in its comment. dartdoc's category page is that markdown followed by the
lists of the category's classes, functions, … each with its first sentence. The markdown file
is a page of the docs already; `with_lists` appends those lists to it, each name linked to its
section on the library page showing it (`../lib/riverpod.dart#Provider`).
"""

from __future__ import annotations

import logging
import posixpath
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import yaml

from docsmcp.sources.formats.source.dart_parse import Decl, parse
from docsmcp.sources.formats.source.dartdoc import anchor, shown

log = logging.getLogger("docsmcp.sources.packages.dart_categories")

OPTIONS = "dartdoc_options.yaml"
MAX_LISTED = 2_000  # names listed on one category page, at most
_CATEGORY = re.compile(r"\{@category\s+([^}]+?)\s*\}")
_SECTIONS = (
    ("Classes", ("class",)),
    ("Enums", ("enum",)),
    ("Mixins", ("mixin",)),
    ("Extension Types", ("extension type",)),
    ("Extensions", ("extension",)),
    ("Properties", ("variable", "getter")),
    ("Functions", ("function",)),
    ("Typedefs", ("typedef",)),
)


@dataclass(frozen=True)
class Listed:
    name: str
    kind: str
    summary: str
    page: str  # the library page showing it


def pages(docs_dir: Path, folder: str) -> dict[str, str]:
    """Category name -> its markdown page's path in the tree, from the package's options."""
    base = (docs_dir / folder) if folder else docs_dir
    try:
        data = yaml.safe_load((base / OPTIONS).read_text(encoding="utf-8", errors="replace"))
    except (OSError, yaml.YAMLError) as e:
        if not isinstance(e, FileNotFoundError):
            log.warning("%s: %s unreadable: %s", folder or ".", OPTIONS, str(e).split("\n")[0])
        return {}
    categories = (data or {}).get("dartdoc", {}) if isinstance(data, dict) else {}
    categories = categories.get("categories") if isinstance(categories, dict) else None
    if not isinstance(categories, dict):
        return {}
    out: dict[str, str] = {}
    for name, spec in categories.items():
        md = spec.get("markdown") if isinstance(spec, dict) else None
        if isinstance(md, str) and md:
            path = (
                posixpath.normpath(posixpath.join(folder, md)) if folder else posixpath.normpath(md)
            )
            out[str(name)] = path
    return out


def members(
    exported: Mapping[str, Iterable[tuple[str, str, tuple[str, ...], tuple[str, ...]]]],
) -> dict[str, list[Listed]]:
    """Category name -> its declarations, from each library page's files (library page ->
    (file, text, show, hide)); a declaration is listed once, on the first page showing it."""
    out: dict[str, list[Listed]] = {}
    seen: set[tuple[str, str]] = set()
    for page, files in exported.items():
        for _, text, show, hide in files:
            if "{@category" not in text:
                continue
            for d in parse(text).decls:
                if not shown(d) or not d.doc or (show and d.name not in show) or d.name in hide:
                    continue
                for name in _CATEGORY.findall(d.doc):
                    if (name, d.name) in seen:
                        continue
                    seen.add((name, d.name))
                    out.setdefault(name, []).append(Listed(d.name, d.kind, _summary(d), page))
    return out


def _summary(d: Decl) -> str:
    text = _CATEGORY.sub("", d.doc or "")
    first = re.split(r"\n\s*\n", text.strip(), maxsplit=1)[0]
    first = re.sub(r"\{@[^}]*\}", "", " ".join(first.split()))
    m = re.match(r"(.+?[.!?])(?:\s|$)", first)
    summary = (m.group(1) if m else first).strip()
    return re.sub(r"\[([^\]]+)\](?![(\[])", r"`\1`", summary)[:300]


def lists(category_page: str, listed: list[Listed]) -> str:
    """The markdown dartdoc's category page shows below its text."""
    lines: list[str] = []
    for title, kinds in _SECTIONS:
        group = [x for x in listed if x.kind in kinds][:MAX_LISTED]
        if not group:
            continue
        lines += ["", f"## {title}", ""]
        for x in sorted(group, key=lambda x: x.name.lower()):
            rel = posixpath.relpath(x.page, posixpath.dirname(category_page) or ".")
            summary = f": {x.summary}" if x.summary else ""
            lines.append(f"- [`{x.name}`]({rel}#{anchor(x.name)}){summary}")
    return "\n".join(lines)
