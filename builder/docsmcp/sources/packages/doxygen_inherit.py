"""The members a C++ class inherits, as Doxygen lists them on the class's page ("Public Member
Functions inherited from sf::Window"): for each class of a Doxygen project with public base
classes, each base (found by name across the project's headers, then its own bases in turn)
with the public members it shows that the class does not declare again. Constructors,
destructors and assignment are not inherited. doxygen_project.py writes the result into the
header line of the class's page, with the members' declarations (`members`), and
formats/source/doxygen.py lists them there as links, each an API entry named as the class's.
"""

from __future__ import annotations

from collections.abc import Mapping

from docsmcp.sources.formats.source.doxygen_decls import Decl, Header

MAX_BASES = 16  # bases followed from one class, its bases' bases included
_MEMBER_KINDS = frozenset({"function", "variable", "typedef", "enum"})


def _classes(parsed: Mapping[str, Header]) -> dict[str, Decl]:
    """Qualified name -> class, for every class or struct of the project (the first one
    wins where a name is declared twice)."""
    out: dict[str, Decl] = {}
    for header in parsed.values():
        for d in header.decls:
            if d.kind in ("class", "struct"):
                out.setdefault(d.name, d)
    return out


def _find(base: str, derived: str, classes: Mapping[str, Decl]) -> Decl | None:
    """The class a base name written in `derived` means: looked up from the derived class's
    scope outwards, as C++ does (`Window` in `sf::RenderWindow` is `sf::Window`)."""
    scope = derived.split("::")[:-1]
    for k in range(len(scope), -1, -1):
        found = classes.get("::".join([*scope[:k], base]))
        if found is not None:
            return found
    return None


def _shown(m: Decl, extract_all: bool) -> bool:
    """Whether Doxygen shows a base's member (a documented one, or any with EXTRACT_ALL)."""
    last = m.name.rsplit("::", 1)[-1]
    return m.kind in _MEMBER_KINDS and (m.doc is not None or (extract_all and last[:1] != "_"))


def inherited(
    parsed: Mapping[str, Header], extract_all: bool
) -> dict[str, tuple[tuple[str, tuple[str, ...]], ...]]:
    """Class -> ((base, its members' qualified names), ...) for each class inheriting any; a
    member documented has a section of its own (an undocumented one, shown with EXTRACT_ALL,
    is only in its class's list: `documented` tells them apart)."""
    classes = _classes(parsed)
    out: dict[str, tuple[tuple[str, tuple[str, ...]], ...]] = {}
    for name, d in classes.items():
        if not d.bases:
            continue
        own = {m.name.rsplit("::", 1)[-1] for m in d.members}
        found: list[tuple[str, tuple[str, ...]]] = []
        seen = {name}
        todo = [(b, d.name) for b in d.bases]
        while todo and len(seen) <= MAX_BASES:
            written, where = todo.pop(0)
            base = _find(written, where, classes)
            if base is None or base.name in seen:
                continue
            seen.add(base.name)
            short = base.name.rsplit("::", 1)[-1]
            members = []
            for m in base.members:
                last = m.name.rsplit("::", 1)[-1]
                special = last in (short, "~") or last.startswith(("~", "operator="))
                if special or last in own or not _shown(m, extract_all):
                    continue
                own.add(last)  # (a nearer base's member hides a farther one's)
                members.append(m.name)
            if members:
                found.append((base.name, tuple(dict.fromkeys(members))))
            todo.extend((b, base.name) for b in base.bases)
        if found:
            out[name] = tuple(found)
    return out


def documented(parsed: Mapping[str, Header]) -> set[str]:
    """The qualified names of the class members that have a doc comment."""
    return {
        m.name
        for header in parsed.values()
        for d in header.decls
        if d.kind in ("class", "struct")
        for m in d.members
        if m.doc is not None
    }


def members(parsed: Mapping[str, Header]) -> dict[str, Decl]:
    """Qualified name -> a class member's declaration (the first of its overloads): what the
    entry of an inherited member shows (its signature and comment)."""
    out: dict[str, Decl] = {}
    for header in parsed.values():
        for d in header.decls:
            if d.kind in ("class", "struct"):
                for m in d.members:
                    out.setdefault(m.name, m)
    return out
