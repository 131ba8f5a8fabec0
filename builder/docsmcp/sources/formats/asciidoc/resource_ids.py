"""Antora's resource ids: which file an `xref:` or `include::` of an AsciiDoc page names.

A page of an Antora component sits at `modules/<module>/<family>/…` (families: `pages/`,
`partials/`, `examples/`, `attachments/`, `images/`). A resource id
(`[version@][component:][module:][family$]relative`) names a file of that layout:
`xref:install:upgrade.adoc` is `modules/install/pages/upgrade.adoc`,
`include::partial$success.adoc[]` the page's module's `partials/success.adoc`. Outside that
layout (a plain Asciidoctor folder) a target is relative to the file naming it, as Asciidoctor
reads it. This is syntax the AsciiDoc reader resolves on every page; what else the builder knows
of an Antora site (its descriptors, navigation, which files are pages) is sites/antora.py.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass

FAMILIES = {
    "page": "pages",
    "partial": "partials",
    "example": "examples",
    "attachment": "attachments",
    "image": "images",
}
_PLACE = re.compile(r"^(?:(.*)/)?modules/([^/]+)/([^/]+)/(.+)$")


@dataclass(frozen=True)
class Place:
    """Where a file sits in an Antora component: `root/modules/module/family/relative`."""

    root: str  # the component's folder ("" at the docs folder)
    module: str
    family: str  # pages, partials, examples, ...
    relative: str

    def folder(self, module: str, family: str) -> str:
        return posixpath.join(self.root, "modules", module, family)


def place(path: str) -> Place | None:
    m = _PLACE.match(path)
    if m is None:
        return None
    return Place(m.group(1) or "", m.group(2), m.group(3), m.group(4))


def resource(current: str, target: str, family: str) -> str | None:
    """The docs-relative path of resource id `target` named in the file at `current`, of
    `family` unless the id names its own (`partial$x.adoc`); None when it names another
    component (or version) or leaves the docs folder."""
    here = place(current)
    version, _, rest = target.rpartition("@") if "@" in target.split("$")[0] else ("", "", target)
    coordinates, _, relative = rest.rpartition(":") if ":" in rest.split("$")[0] else ("", "", rest)
    family_name, _, relative = relative.rpartition("$") if "$" in relative else ("", "", relative)
    if here is None or not (version or coordinates or family_name or family == "pages"):
        joined = posixpath.normpath(posixpath.join(posixpath.dirname(current), target))
        return None if joined.startswith("../") or joined == ".." else joined
    if version or coordinates.count(":") > 0 or "/" in coordinates:
        return None  # another component (or version): its folder is not known from here
    module = coordinates or here.module
    kind = FAMILIES.get(family_name, "") if family_name else family
    if not kind or not relative:
        return None
    if kind == here.family and module == here.module and relative.startswith("./"):
        base = posixpath.dirname(here.relative)  # (Antora 3: `./` is the page's own folder)
        relative = posixpath.join(base, relative[2:])
    joined = posixpath.normpath(posixpath.join(here.folder(module, kind), relative))
    return None if joined.startswith("../") else joined


def relative_href(current: str, target: str) -> str:
    """The link from the file at `current` to the docs-relative `target` (a markdown link's
    path, which xref resolves against the page's folder)."""
    return posixpath.relpath(target, posixpath.dirname(current) or ".")
