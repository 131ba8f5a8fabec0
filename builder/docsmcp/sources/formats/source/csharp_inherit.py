"""What a C# type inherits from types of the tree, as the converter (csharpdoc.py) writes it,
by the rule Java's, Kotlin's, TypeScript's and Doxygen's pages follow (helper i, session 17):
in the type's own section, a line per base, nearest first, naming the members it inherits
(docfx's *Inherited Members*: `**Inherited from `ResilienceStrategyOptions`:** `Name``),
each a link to the base's section when the base is on the page, else a reference the build
resolves to it; and each an API entry named as the child's (`Polly.Retry.RetryStrategyOptions.
Name`) with the base's declaration and comment. The entry's section is the base member's own
when that is on the page (no chunk more), else the line. Never a copy of the text. The
tree-wide pass found the members (packages/dotnet_inherit.py) and told them in the page's
merge line.
"""

from __future__ import annotations

from typing import Any, Protocol

from docsmcp.sources.formats.markdown.fences import code_span
from docsmcp.sources.formats.source import xmldoc
from docsmcp.sources.formats.source.csharp_decls import Decl
from docsmcp.sources.formats.source.csharp_decls import bare_name as _bare
from docsmcp.sources.formats.source.inherit_walk import alias_entries, inherited_line, linked


class _Page(Protocol):
    """What this module uses of csharpdoc._Page (which imports this module)."""

    out: list[tuple[int, str]]
    refs: list[tuple[int, str]]
    api: list[Any]
    local: dict[str, str]
    aliases: list[tuple[str, str, Decl, int]]
    path: str

    def add(self, line: int, text: str) -> None: ...

    def blank(self, line: int) -> None: ...

    def entry(self, decl: Decl, name: str, doc: xmldoc.XmlDoc, at: int) -> None: ...


def _plain(cref: str, label: str) -> str:
    """A cref in an inherited member's comment: its name (the entry's description)."""
    return label or code_span(xmldoc.cref_name(cref).rsplit(".", 1)[-1])


def _decl(member: dict[str, Any]) -> Decl:
    return Decl(
        str(member.get("kind", "method")),
        str(member.get("name", "")),
        0,
        declaration=str(member.get("declaration", "")),
        doc=str(member.get("doc", "")),
        params=tuple(tuple(str(x) for x in p[:2]) for p in member.get("params", ()) if len(p) >= 2),
        returns=str(member.get("returns", "")),
    )


def write(page: _Page, decl: Decl, name: str, bases: list[Any]) -> None:
    """The lines of what `decl` (the type named `name`) inherits; its entries (`resolve`)."""
    for base in bases:
        if not isinstance(base, dict):
            continue
        members = [_decl(m) for m in base.get("members", ()) if isinstance(m, dict)]
        key = str(base.get("key", ""))
        simple = str(base.get("name", key))
        here = base.get("path") == page.path
        shown: list[str] = []
        targets: list[str] = []
        for m in dict.fromkeys(m.name for m in members):
            anchor = page.local.get(f"{simple}.{m}") if here else None
            shown.append(linked(code_span(m), anchor))
            if anchor is None and base.get("shown"):
                targets.append(f"{key}.{m}")
        if not shown:
            continue
        at = inherited_line(page, decl.line, code_span(simple), shown, targets)
        for m in members:
            page.aliases.append((f"{name}.{m.name}", f"{key}.{m.name}", m, at))


def resolve(page: _Page) -> None:
    """The entries of the inherited members, once the page is written (a base may come after
    its child): the base member's own entries under the child's name where the page shows
    them, else an entry at the line."""
    alias_entries(
        page,
        _bare,
        lambda m, child, at: page.entry(m, child, xmldoc.read(m.doc, _plain, {}), at),
        ends_at_line=True,
    )
