"""One Kotlin declaration, one section: what the tree-wide pass (packages/kotlin_merge.py) tells
the KDoc reader (kdoc.py) about a page's declarations that other files also hold.

Dokka documents a declaration once: a multiplatform module's `expect` with its platforms'
`actual`s, or a declaration written again in each platform's source set (koin's
`object GlobalContext` in `jvmMain`, `jsMain`, `wasmJsMain` and `nativeMain`), is one page with
its platforms named. And an `override` without KDoc shows the overridden member's. The reader
converts one file at a time, so the pass appends one line to a page, after a marker
(`MERGE`): a JSON object with the keys of the declarations another page shows (`hide`), the
platforms of those this page shows for all (`platforms`), and the KDoc text a declaration
without any takes from its platform copies or from the member it overrides (`docs`), the
`actual` declarations the page shows (`show`: its `expect` is no page of the tree, or its type
holds members the `expect` lacks) and the module's Dokka options that differ from Dokka's
defaults (`options`: `visibilities`, the visibilities documented; `skip_deprecated`).

A key names a declaration as both sides read it: the package, the path of types, an
extension's receiver and the name, a function's parameter types (`org.koin.core.context.
GlobalContext.startKoin(KoinApplication)`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from docsmcp.sources.formats.source import pass_line
from docsmcp.sources.formats.source.kotlin_syntax import Decl, Unit, is_type

MERGE = "//@docsmcp-kotlin-merge "  # the marker of the line the pass appends to a page


@dataclass(frozen=True)
class Merge:
    """What a page learns from the others (see the module's docstring)."""

    hide: frozenset[str] = frozenset()
    platforms: dict[str, tuple[str, ...]] = field(default_factory=dict)
    docs: dict[str, str] = field(default_factory=dict)
    # a type's key -> its bases of the tree and what it inherits of each, nearest first
    # (packages/kotlin_inherit.py; written by kotlin_inherit.py here)
    inherits: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    show: frozenset[str] = frozenset()  # (`actual`s shown: the reader hides them by default)
    options: dict[str, Any] = field(default_factory=dict)  # (kotlin_project.dokka_options)

    def encode(self) -> str:
        data: dict[str, Any] = {
            "hide": sorted(self.hide),
            "platforms": {k: list(v) for k, v in sorted(self.platforms.items())},
            "docs": dict(sorted(self.docs.items())),
        }
        if self.inherits:  # (only then: a page without bases reads as before)
            data["inherits"] = dict(sorted(self.inherits.items()))
        if self.show:
            data["show"] = sorted(self.show)
        if self.options:
            data["options"] = dict(sorted(self.options.items()))
        return pass_line.encode(MERGE, data)

    def __bool__(self) -> bool:
        return bool(
            self.hide or self.platforms or self.docs or self.inherits or self.show or self.options
        )


def split(text: str) -> tuple[str, Merge]:
    """`text` without the pass's line, and what the line says (nothing when none or broken)."""
    return pass_line.split(text, "\n" + MERGE, _read, Merge)


def _read(data: Any) -> Merge:
    return Merge(
        frozenset(str(k) for k in data.get("hide", ())),
        {str(k): tuple(str(p) for p in v) for k, v in data.get("platforms", {}).items()},
        {str(k): str(v) for k, v in data.get("docs", {}).items()},
        {str(k): list(v) for k, v in data.get("inherits", {}).items()},
        frozenset(str(k) for k in data.get("show", ())),
        {str(k): v for k, v in data.get("options", {}).items()},
    )


def _type_text(kotlin_type: str) -> str:
    return "".join(kotlin_type.split())


def declaration_key(decl: Decl, owner: str) -> str:
    """The key of `decl` declared in `owner` (the package, or the key of its type)."""
    name = decl.name
    if decl.receiver:
        name = f"{_type_text(decl.receiver)}.{name}"
    key = f"{owner}.{name}" if owner else name
    if decl.kind in ("function", "constructor"):
        key += "(" + ",".join(_type_text(t) for _, t, _ in decl.params) + ")"
    return key


def keys(unit: Unit) -> dict[int, str]:
    """Every declaration of `unit` (by `id`) to its key."""
    out: dict[int, str] = {}
    todo = [(d, unit.package) for d in unit.declarations]
    while todo:
        decl, owner = todo.pop()
        key = declaration_key(decl, owner)
        out[id(decl)] = key
        if is_type(decl):
            todo += [(m, key) for m in decl.members]
    return out
