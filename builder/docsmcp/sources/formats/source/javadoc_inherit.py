"""The methods a Java class inherits, as Javadoc lists them under the class's own ("Methods
inherited from class org.jsoup.nodes.Element: after, append, …"): for a type of the page, each
supertype found among the files java_project.expand appends to the page (its superclass and
interfaces, then theirs in turn, nearest first), with the methods it shows that the type (or a
nearer supertype) does not declare again. javadoc.py writes a line per supertype, each name a
reference to the supertype's section, and an API entry per method named as the child's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from docsmcp.sources.formats.source.inherit_walk import nearest_first
from docsmcp.sources.formats.source.java_parse import Decl

_SUPERTYPES = re.compile(r"\b(?:extends|implements)\s+(.*)$")
_GENERICS = re.compile(r"<[^<>]*(?:<[^<>]*>[^<>]*)*>")
_KEYWORDS = frozenset({"extends", "implements", "permits"})


@dataclass(frozen=True)
class Supertype:
    qualified: str  # `org.jsoup.nodes.Element`
    decl: Decl


def written(decl: Decl) -> list[str]:
    """The supertypes `decl`'s declaration names, as written without type arguments
    (`Element`, `org.x.Y`)."""
    m = _SUPERTYPES.search(decl.declaration)
    if m is None:
        return []
    words = _GENERICS.sub("", m.group(1)).split(" permits ")[0]
    return [w for w in re.split(r"[\s,{]+", words) if w and w not in _KEYWORDS]


def _shown(m: Decl, owner_kind: str) -> bool:
    if m.kind != "method" or re.search(r"(?m)^[\s*]*@hidden\b", m.doc or ""):
        return False
    if owner_kind in ("interface", "annotation"):
        return "private" not in m.modifiers and "static" not in m.modifiers
    return "public" in m.modifiers or "protected" in m.modifiers


def inherited(decl: Decl, supertypes: dict[str, Supertype]) -> list[tuple[Supertype, list[Decl]]]:
    """(supertype, the methods of it `decl` inherits, each overload) nearest first; a name
    `decl` or a nearer supertype declares is theirs (Javadoc lists each name once): the walk
    the Kotlin and C# readers share (inherit_walk.nearest_first), supertypes found by their
    simple name among the files java_project appends."""

    def lookup(name: str, _seen_from: Supertype | None) -> Supertype | None:
        found = supertypes.get(name.rpartition(".")[2])
        return None if found is None or found.decl is decl else found

    return nearest_first(
        written(decl),
        {m.name for m in decl.members if m.kind == "method"},
        lookup,
        lambda s: written(s.decl),
        lambda s: [m for m in s.decl.members if _shown(m, s.decl.kind)],
        lambda m: m.name,
        lambda s: s.qualified,
    )
