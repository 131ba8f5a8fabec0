"""What a Kotlin type inherits from types of the tree, as the KDoc reader (kdoc.py) writes it,
by the rule Java's, TypeScript's and Doxygen's pages follow (helper i, session 17): in the
type's own section, a line per base, nearest first, naming the members it inherits
(`**Inherited from `RequestBody`:** `isDuplex`, `isOneShot``), each a link to the base's
section when the base is on the page, else a reference the build resolves to it; and each an
API entry named as the child's (`okhttp3.MultipartBody.isOneShot`) with the base's declaration
and comment. The entry's section is the base member's own when that is on the page (no chunk
more), else the line. Never a copy of the text. The tree-wide pass found the members
(packages/kotlin_inherit.py) and told them in the page's merge line.
"""

from __future__ import annotations

from typing import Any, Protocol

from docsmcp.sources.formats.markdown.fences import code_span
from docsmcp.sources.formats.source.inherit_walk import alias_entries, inherited_line, linked
from docsmcp.sources.formats.source.javadoc_text import Doc
from docsmcp.sources.formats.source.kdoc_text import render
from docsmcp.sources.formats.source.kotlin_syntax import Decl, Unit


class _Page(Protocol):
    """What this module uses of kdoc._Page (which imports this module)."""

    path: str
    unit: Unit
    out: list[tuple[int, str]]
    refs: list[tuple[int, str]]
    api: list[Any]
    local: dict[str, str]
    pending: list[str]
    examples: list[str]
    aliases: list[tuple[str, str, Decl, int]]

    def add(self, line: int, text: str) -> None: ...

    def blank(self, line: int) -> None: ...

    def entry(
        self, decl: Decl, name: str, doc: Doc, deprecated: str | None, at: int, end: int
    ) -> None: ...


def _plain(target: str, label: str) -> str:
    """A KDoc link in an inherited member's comment: its text (the entry's description)."""
    return label or code_span(target)


def _decl(member: dict[str, Any]) -> Decl:
    return Decl(
        str(member.get("kind", "function")),
        str(member.get("name", "")),
        0,
        doc=str(member.get("doc", "")),
        declaration=str(member.get("declaration", "")),
        params=tuple(tuple(str(x) for x in p[:3]) for p in member.get("params", ()) if len(p) >= 3),
        returns=str(member.get("returns", "")),
    )


def write(page: _Page, decl: Decl, name: str, bases: list[dict[str, Any]]) -> None:
    """The lines and entries of what `decl` (the type named `name`) inherits."""
    package = page.unit.package
    for base in bases:
        if not isinstance(base, dict):
            continue
        members = [_decl(m) for m in base.get("members", ()) if isinstance(m, dict)]
        key = str(base.get("key", ""))
        here = base.get("path") == page.path
        below = key[len(package) + 1 :] if package and key.startswith(package + ".") else key
        shown: list[str] = []
        targets: list[str] = []
        for m in dict.fromkeys(m.name for m in members):
            anchor = page.local.get(f"{below}.{m}") if here else None
            shown.append(linked(code_span(m), anchor))
            if anchor is None and base.get("shown"):
                targets.append(f"{key}.{m}")
        if not shown:
            continue
        label = code_span(str(base.get("name", below)))
        at = inherited_line(page, decl.line, label, shown, targets)
        page.pending = []
        for m in members:
            page.aliases.append((f"{name}.{m.name}", f"{key}.{m.name}", m, at))


def resolve(page: _Page) -> None:
    """The entries of the inherited members, once the page is written (a base may come after
    its child): the base member's own entry under the child's name where the page shows it,
    else an entry at the line."""

    def new_entry(m: Decl, child: str, at: int) -> None:
        page.examples = []
        page.entry(m, child, render(m.doc or "", _plain), None, at, at + 1)

    alias_entries(page, lambda name: name, new_entry)
