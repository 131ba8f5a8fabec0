"""The supertypes a Dart library's page names but does not hold, for the dartdoc reader's
inherited-member lines (formats/source/dartdoc_inherit.py): part of the after-reading pass of
dart_package.resolve, which alone sees every library of a package.

dartdoc lists under `IOClient` (library `io_client`) the members it inherits from `BaseClient`,
which the `http` library shows. A page converts alone, so for each page whose types extend,
mix in or implement a type of the package it does not show, the pass appends one line after
dartdoc_inherit.SUPERS: those types (and their own such supertypes), each with the library
whose page shows it (the package's main library first, then by path), its header and its
inheritable members (no constructor, no static member, a setter joins its getter; each with
its header, return type and first paragraph). Another package's types add nothing.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from docsmcp.model.source import SourceFile
from docsmcp.sources.formats.source import dartdoc, dartdoc_inherit, pass_line
from docsmcp.sources.formats.source.dart_parse import Decl, Unit, parse

MAX_SUPERS = 32  # types appended to one page, at most
# package folder -> library page -> its files (path, text, show, hide), as dart_package has them
Shows = dict[str, dict[str, list[tuple[str, str, tuple[str, ...], tuple[str, ...]]]]]


def _member(m: Decl) -> dict[str, Any]:
    summary = " ".join((m.doc or "").strip().split("\n\n", 1)[0].split())
    return {"kind": m.kind, "name": m.name, "signature": m.signature,
            "returns": m.returns, "summary": summary}  # fmt: skip


_HEADER = re.compile(
    r"^[ \t]*(?:(?:abstract|base|final|sealed|interface|mixin)\s+)*(class|mixin|enum)\s+"
    r"([A-Za-z_$][\w$]*)([^{;]*)",
    re.M,
)


@dataclasses.dataclass
class _Table:
    """The package's types by name, each with the library whose page shows it first: found by
    their headers, read (parsed) only when a page needs one."""

    found: dict[str, tuple[str, str, str]] = dataclasses.field(default_factory=dict)
    units: dict[str, Unit] = dataclasses.field(default_factory=dict)  # (path, text, library)

    def get(self, name: str) -> tuple[str, Decl] | None:
        if name not in self.found:
            return None
        path, text, library = self.found[name]
        unit = self.units.setdefault(path, parse(text))
        d = next((d for d in unit.decls if d.name == name and dartdoc.shown(d)), None)
        return (library, d) if d is not None else None


def _inheritable(d: Decl, table: _Table) -> list[dict[str, Any]]:
    members = [m for m in d.members if dartdoc.shown(m) and m.kind != "constructor"]
    getters = {m.name for m in members if m.kind in ("getter", "field")}
    out = []
    for m in members:
        if m.static or (m.kind == "setter" and m.name in getters):
            continue
        said = _member(m)
        if not said["summary"]:  # (an `@override` without text shows its supertype's, as dartdoc)
            said["summary"] = _overridden(d, m.name, table)
        out.append(said)
    return out


def _overridden(d: Decl, name: str, table: _Table) -> str:
    """The first paragraph of the nearest supertype member `name` that has text."""
    todo, seen = dartdoc_inherit.supertypes(d.signature), {d.name}
    while todo and len(seen) < MAX_SUPERS:
        t = todo.pop(0)
        found = table.get(t) if t not in seen else None
        if found is None:
            continue
        seen.add(t)
        base = found[1]
        said = next((_member(m)["summary"] for m in base.members if m.name == name), "")
        if said:
            return said
        todo += dartdoc_inherit.supertypes(base.signature)
    return ""


def with_supers(
    files: list[SourceFile], shows: Shows, packages: dict[str, str]
) -> list[SourceFile]:
    """`files` with each library page's missing supertypes appended (see the docstring);
    `packages`: package folder -> its name."""
    wanted: dict[str, dict[str, Any]] = {}  # page -> the types to append
    for folder, libs in sorted(shows.items()):
        table = _Table()
        on_page: dict[str, dict[str, str]] = {}  # page -> its types -> their headers
        main = [p for p in libs if p.rsplit("/", 1)[-1] == f"{packages.get(folder, '')}.dart"]
        for page in main + sorted(p for p in libs if p not in main):
            segments = libs[page]
            own = table.units.setdefault(page, parse(segments[0][1]))
            library = dartdoc.library_name(page, own)
            names = on_page.setdefault(page, {})
            for path, text, show, hide in segments:
                for m in _HEADER.finditer(text):
                    name = m.group(2)
                    if name.startswith("_") or (show and name not in show) or name in hide:
                        continue
                    names.setdefault(name, " ".join(m.group(1, 2, 3)))
                    table.found.setdefault(name, (path, text, library))
        for page, names in on_page.items():
            todo = [s for n in sorted(names) for s in dartdoc_inherit.supertypes(names[n])]
            found: dict[str, Any] = {}
            while todo and len(found) < MAX_SUPERS:
                name = todo.pop(0)
                got = table.get(name) if name not in names and name not in found else None
                if got is None:
                    continue
                library, d = got
                found[name] = {"library": library, "kind": d.kind, "signature": d.signature,
                               "members": _inheritable(d, table)}  # fmt: skip
                todo += dartdoc_inherit.supertypes(d.signature)
            if found:
                wanted[page] = found
    if not wanted:
        return files
    out = []
    for f in files:
        if f.path not in wanted:
            out.append(f)
            continue
        out.append(pass_line.appended(f, dartdoc_inherit.encode(wanted[f.path])))
    return out
