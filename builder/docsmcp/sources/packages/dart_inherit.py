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
from typing import Any

from docsmcp.model.source import SourceFile
from docsmcp.sources.formats.source import dartdoc, dartdoc_inherit
from docsmcp.sources.formats.source.dart_parse import Decl, Unit, parse

MAX_SUPERS = 32  # types appended to one page, at most
# package folder -> library page -> its files (path, text, show, hide), as dart_package has them
Shows = dict[str, dict[str, list[tuple[str, str, tuple[str, ...], tuple[str, ...]]]]]


def _member(m: Decl) -> dict[str, Any]:
    summary = " ".join((m.doc or "").strip().split("\n\n", 1)[0].split())
    return {"kind": m.kind, "name": m.name, "signature": m.signature,
            "returns": m.returns, "summary": summary}  # fmt: skip


def _inheritable(d: Decl, table: dict[str, tuple[str, Decl]]) -> list[dict[str, Any]]:
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


def _overridden(d: Decl, name: str, table: dict[str, tuple[str, Decl]]) -> str:
    """The first paragraph of the nearest supertype member `name` that has text."""
    todo, seen = dartdoc_inherit.supertypes(d.signature), {d.name}
    while todo and len(seen) < MAX_SUPERS:
        t = todo.pop(0)
        if t in seen or t not in table:
            continue
        seen.add(t)
        base = table[t][1]
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
    units: dict[str, Unit] = {}
    wanted: dict[str, dict[str, Any]] = {}  # page -> the types to append
    for folder, libs in sorted(shows.items()):
        table: dict[str, tuple[str, Decl]] = {}  # type -> (its library, it)
        on_page: dict[str, set[str]] = {}
        main = [p for p in libs if p.rsplit("/", 1)[-1] == f"{packages.get(folder, '')}.dart"]
        for page in main + sorted(p for p in libs if p not in main):
            segments = libs[page]
            library = dartdoc.library_name(page, units.setdefault(page, parse(segments[0][1])))
            names = on_page.setdefault(page, set())
            for path, text, show, hide in segments:
                for d in units.setdefault(path, parse(text)).decls:
                    if d.kind not in dartdoc_inherit.INHERITING or not dartdoc.shown(d):
                        continue
                    if (show and d.name not in show) or d.name in hide:
                        continue
                    names.add(d.name)
                    table.setdefault(d.name, (library, d))
        for page, names in on_page.items():
            todo = [
                s for n in sorted(names) for s in dartdoc_inherit.supertypes(table[n][1].signature)
            ]
            found: dict[str, Any] = {}
            while todo and len(found) < MAX_SUPERS:
                name = todo.pop(0)
                if name in names or name in found or name not in table:
                    continue
                library, d = table[name]
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
        body = f.body + dartdoc_inherit.encode(wanted[f.path])
        own = f.line_map or tuple(range(f.body.count("\n") + 1))
        out.append(dataclasses.replace(f, body=body, line_map=(*own, own[-1])))
    return out
