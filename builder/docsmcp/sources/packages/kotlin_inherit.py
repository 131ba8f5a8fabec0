"""What each Kotlin class, interface or object inherits from types of the tree, for the KDoc
reader's line of links (formats/source/kotlin_inherit.py): part of the tree-wide pass
(packages/kotlin_merge.py), which alone sees every page.

A base is looked up as an override's is (through the file's imports, its nested scopes and
package: kotlin_merge._supertype), nearest first (formats/source/inherit_walk.py). Its members
are the functions and properties Dokka shows (no private, internal, protected or `actual` one,
no extension declared inside it, no constructor or nested type); a name the type or a nearer
base declares is theirs. Bases outside the tree (`Closeable`, `kotlin.Exception`) add nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from docsmcp.sources.formats.source.inherit_walk import nearest_first
from docsmcp.sources.formats.source.kotlin_syntax import Decl, is_type

_NOT_SHOWN = frozenset({"actual", "private", "internal", "protected"})  # (kdoc.py's rule)


class Found(Protocol):  # (kotlin_merge._Found)
    key: str
    decl: Decl
    path: str


def _members(base: Found) -> list[Decl]:
    return [
        m
        for m in base.decl.members
        if m.kind in ("function", "property")
        and not m.receiver
        and not m.modifiers & _NOT_SHOWN
        and m.name
    ]


def _member(m: Decl) -> dict[str, Any]:
    return {
        "name": m.name,
        "kind": m.kind,
        "declaration": m.declaration,
        "params": [list(p) for p in m.params],
        "returns": m.returns,
        "doc": m.doc or "",
    }


def inherits(
    items: list[Any], types: dict[str, Any], supertype: Callable[[str, Any, dict[str, Any]], Any]
) -> dict[str, list[dict[str, Any]]]:
    """For each type of one page's `items` inheriting something: its bases' entries (the
    base's key, simple name, page, whether Dokka shows it, and its members), by the type's
    key."""
    out: dict[str, list[dict[str, Any]]] = {}
    for item in items:
        decl = item.decl
        if not is_type(decl) or not decl.supertypes or decl.kind == "typealias":
            continue
        own = {m.name for m in decl.members}
        found = nearest_first(
            decl.supertypes,
            own,
            lambda name, seen_from, item=item: supertype(name, seen_from or item, types),
            lambda base: base.decl.supertypes,
            _members,
            lambda m: m.name,
            lambda base: base.key,
        )
        found = [(b, ms) for b, ms in found if b.key != item.key]
        if found:
            out[item.key] = [
                {
                    "key": base.key,
                    "name": base.decl.name,
                    "path": base.path,
                    "shown": not base.decl.modifiers & _NOT_SHOWN,
                    "members": [_member(m) for m in members],
                }
                for base, members in found
            ]
    return out
