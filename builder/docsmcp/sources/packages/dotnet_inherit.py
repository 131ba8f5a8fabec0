"""What each C# type inherits from types of the tree, for the converter's line of links
(formats/source/csharp_inherit.py): part of the tree-wide pass (packages/dotnet_merge.py),
which alone sees every page.

docfx lists a type's *Inherited Members*: those of its base classes (an interface's members
a class implements are its own, so a class follows no interface; an interface follows the
interfaces it extends). A base is found as an `<inheritdoc/>`'s is (dotnet_merge._resolve: by
name and arity, the namespace and `using`s first), nearest first
(formats/source/inherit_walk.py). Its members are the methods, properties, events and fields
docfx shows (csharpdoc.visible); a name the type or a nearer base declares is theirs. Bases
outside the tree (`System.Exception`) add nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from docsmcp.sources.formats.source.csharp_decls import Decl, is_type
from docsmcp.sources.formats.source.csharp_decls import bare_name as _bare
from docsmcp.sources.formats.source.csharp_merge import key
from docsmcp.sources.formats.source.csharpdoc import visible
from docsmcp.sources.formats.source.inherit_walk import nearest_first

_KINDS = frozenset({"method", "property", "event", "field"})


def _member(m: Decl) -> dict[str, Any]:
    return {
        "name": _bare(m.name),
        "kind": m.kind,
        "declaration": m.declaration,
        "doc": m.doc,
        "params": [list(p) for p in m.params],
        "returns": m.returns,
    }


def inherits(
    page_types: list[Any],
    resolve: Callable[[str, Any], list[Any]],
    bases: Callable[[str], list[str]],
    path_of: dict[int, str],
    partials: Callable[[Any], list[Any]],
) -> dict[str, list[dict[str, Any]]]:
    """For each type of one page (dotnet_merge._Type) inheriting something: its bases' members
    (the base's qualified name, simple name, page and members), by the type's key. What a
    partial type declares in any of its files (`partials`) is its own."""
    out: dict[str, list[dict[str, Any]]] = {}
    for t in page_types:
        decl = t.decl
        written = bases(decl.declaration)
        if not written or not is_type(decl) or decl.kind in ("enum", "delegate"):
            continue
        follow_interfaces = decl.kind == "interface"

        def members(base: Any, follow: bool = follow_interfaces) -> list[Decl]:
            if base.decl.kind == "interface" and not follow:
                return []  # (implemented: the type's own members)
            shown = [
                m for m in base.decl.members if m.kind in _KINDS and visible(m, base.decl.kind)
            ]
            return [m for m in shown if "." not in _bare(m.name)]  # (no `IFoo.Bar` explicit one)

        found = nearest_first(
            written,
            {_bare(m.name) for part in partials(t) for m in part.decl.members},
            lambda name, seen_from, t=t: next(iter(resolve(name, seen_from or t)), None),
            lambda base: bases(base.decl.declaration),
            members,
            lambda m: _bare(m.name),
            lambda base: base.name,
        )
        found = [(b, ms) for b, ms in found if b.decl is not decl]
        if found:
            out[key(decl)] = [
                {
                    "key": base.name,
                    "name": base.name.rpartition(".")[2],
                    "path": path_of.get(id(base.unit), ""),
                    "shown": "public" in base.decl.modifiers or "protected" in base.decl.modifiers,
                    "members": [_member(m) for m in ms],
                }
                for base, ms in found
            ]
    return out
