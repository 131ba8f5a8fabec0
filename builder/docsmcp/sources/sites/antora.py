"""Antora's layout of an AsciiDoc site, as far as the builder needs it: which `.adoc` files are
pages, a component's descriptor (`antora.yml`) and its navigation; where a resource id points is
formats/asciidoc/resource_ids.py (the AsciiDoc reader resolves them on every page).

An Antora component is a folder holding `antora.yml` (its `name`, `title`, `version`, `nav`
files, AsciiDoc attributes) and `modules/<module>/<family>/…`: `pages/` holds the pages;
`partials/`, `examples/`, `attachments/`, `images/` hold files pages include or show, never
pages; `nav.adoc` files (and those `antora.yml` names under `nav:`) are navigation. Files and
folders whose name starts with `_` are hidden (Antora publishes none). Outside that layout (a
plain Asciidoctor folder) every `.adoc` is a page.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from docsmcp.sources.files import ASCIIDOC_SUFFIXES
from docsmcp.sources.formats.asciidoc.resource_ids import place, resource

DESCRIPTOR = "antora.yml"


def is_asciidoc(path: str) -> bool:
    return path.lower().endswith(ASCIIDOC_SUFFIXES)


def not_a_page(path: str, nav: frozenset[str] | set[str] = frozenset()) -> bool:
    """Whether the AsciiDoc file at `path` is no page of its site: an Antora module's file
    outside `pages/`, a navigation file, a hidden (`_`) file or folder of a module's pages."""
    if not is_asciidoc(path):
        return False
    name = posixpath.basename(path)
    if path in nav or name.lower() == "nav.adoc":
        return True
    where = place(path)
    if where is None:
        return False
    if where.family != "pages":
        return True
    return any(part.startswith("_") for part in where.relative.split("/"))


@dataclass(frozen=True)
class Descriptor:
    """An `antora.yml`: its folder and what the builder uses of it."""

    folder: str
    name: str = ""
    title: str = ""
    version: str = ""
    prerelease: bool = False  # `prerelease: true` or a suffix (`.0-alpha.0`): never the latest
    nav: tuple[str, ...] = ()  # docs-relative paths of its navigation files, in order
    attributes: tuple[tuple[str, str], ...] = ()


def read_descriptor(folder: str, text: str) -> Descriptor | None:
    """The descriptor in `text` (the `antora.yml` of `folder`), or None when it is not one."""
    import yaml

    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError:
        return None
    if not isinstance(data, dict):
        return None
    nav = data.get("nav") if isinstance(data.get("nav"), list) else []
    asciidoc = data.get("asciidoc") if isinstance(data.get("asciidoc"), dict) else {}
    attributes = asciidoc.get("attributes") if isinstance(asciidoc.get("attributes"), dict) else {}
    version = data.get("version")
    prerelease = data.get("prerelease")
    return Descriptor(
        folder=folder,
        name=str(data.get("name") or ""),
        title=str(data.get("title") or ""),
        # `version: true` takes the git branch's name, which a folder of files does not know.
        version="" if version in (None, False, True, "~") else str(version),
        prerelease=prerelease is True or (isinstance(prerelease, str) and bool(prerelease)),
        nav=tuple(posixpath.normpath(posixpath.join(folder, str(p))) for p in nav if p),
        attributes=tuple(
            (str(k).lower(), _attribute_value(v))
            for k, v in attributes.items()
            if v is not False and v is not None
        ),
    )


def _attribute_value(value: object) -> str:
    """An attribute's value as the pages read it (`short@`: a soft value, same text)."""
    text = "" if value is True else str(value)
    return text[:-1] if text.endswith("@") else text


def component(docs_dir: Path, root: str) -> Descriptor | None:
    """The descriptor of the component at folder `root` of the docs (its `antora.yml`), or
    None; a descriptor whose real path leaves the docs folder is not read."""
    from docsmcp.sources.site_config import read_text

    found = docs_dir / root / DESCRIPTOR
    top = os.path.realpath(docs_dir)
    real = os.path.realpath(found)
    if not real.startswith(top.rstrip("/") + "/") or not found.is_file():
        return None
    return read_descriptor(root, read_text(found))


def read_components(docs_dir: Path, paths: Iterable[str]) -> dict[str, Descriptor]:
    """The descriptors (`antora.yml`) of the Antora components holding AsciiDoc `paths`, by
    component folder."""
    out: dict[str, Descriptor] = {}
    seen: set[str] = set()
    for path in paths:
        where = place(path) if is_asciidoc(path) else None
        if where is None or where.root in seen:
            continue
        seen.add(where.root)
        descriptor = component(docs_dir, where.root)
        if descriptor is not None:
            out[where.root] = descriptor
    return out


def nav_files(components: dict[str, Descriptor], paths: Iterable[str]) -> list[str]:
    """The navigation files of the components: those `antora.yml` lists, in its order, else
    each module's `nav.adoc`."""
    listed = [p for d in components.values() for p in d.nav]
    if listed:
        return listed
    return sorted(p for p in paths if posixpath.basename(p).lower() == "nav.adoc")


_NAV_ITEM = re.compile(r"^(\*{1,8})[ \t]+(.*)$")
_NAV_XREF = re.compile(r"xref:([^\s\[\]]+)\[([^\]]*)\]")


def nav_entries(nav: str, text: str) -> list[tuple[str, str]]:
    """(docs-relative page, title) of each page a `nav.adoc` names, in its order: a list item
    `* xref:install.adoc[Install]` (a module's nav names its own module's pages)."""
    module = posixpath.dirname(nav)
    as_page = posixpath.join(module, "pages", "_nav.adoc")  # (where its xrefs are read from)
    out: list[tuple[str, str]] = []
    for line in text.split("\n")[:100_000]:
        m = _NAV_ITEM.match(line)
        x = _NAV_XREF.search(m.group(2)) if m else None
        if x is None:
            continue
        target = resource(as_page, x.group(1).split("#")[0], "pages")
        if target is not None:
            out.append((target, x.group(2).split(",")[0].strip().strip('"')))
    return out


def non_pages(docs_dir: Path, paths: Iterable[str]) -> set[str]:
    """The AsciiDoc files among `paths` that are no pages (not_a_page), their components'
    nav files included."""
    adoc = [p for p in paths if is_asciidoc(p)]
    if not adoc:
        return set()
    nav = set(nav_files(read_components(docs_dir, adoc), adoc))
    return {p for p in adoc if not_a_page(p, nav)}
