"""The other files' declarations a TypeScript page is read with (packages/typescript_links.py
gathers them after marker lines): its classes' and interfaces' bases, whose public members the
page shows under the child as TypeDoc's "Inherited from", and, for a module no entry point
exports, which of its declarations the page shows (the types the API names).
"""

from __future__ import annotations

from dataclasses import dataclass

from docsmcp.sources.formats.source.ts_decls import Declaration, Member, declarations

MARK = "\0ts-"  # a marker line of a gathered page (TypeScript source holds no NUL)
MAX_INHERITED = 400  # members one declaration inherits


@dataclass(frozen=True)
class Base:
    child: str  # the declaration extending it (the page's, or a base's)
    decl: Declaration  # the base, as its own file declares it
    path: str  # its file


@dataclass(frozen=True)
class Context:
    bases: tuple[Base, ...]
    only: frozenset[str] | None  # the declarations a referenced module's page shows
    # namespaces its declarations are exported under (`z`: `z.object` names `object`)
    namespaces: tuple[str, ...] = ()


def split(text: str) -> tuple[str, Context]:
    """(the file's own text, what follows it) of a gathered page; a plain file is its text."""
    cut = text.find("\n" + MARK)
    if cut < 0:
        return text, Context((), None)
    own, rest = text[:cut], text[cut + 1 :].split("\n")
    bases: list[Base] = []
    only: frozenset[str] | None = None
    spaces: tuple[str, ...] = ()
    k = 0
    while k < len(rest):
        line = rest[k]
        j = k + 1
        while j < len(rest) and not rest[j].startswith(MARK):
            j += 1
        words = line[len(MARK) :].split(" ") if line.startswith(MARK) else []
        if words[:1] == ["only"]:
            only = frozenset(words[1:])
        elif words[:1] == ["namespace"]:
            spaces = tuple(w for w in words[1:] if w)
        elif words[:1] == ["base"] and len(words) >= 4:
            child, name, path = words[1], words[2], " ".join(words[3:])
            found = declarations("\n".join(rest[k + 1 : j]), ambient=True)
            short = name.rsplit(".", 1)[-1]
            decl = next((d for d in found if d.name.rsplit(".", 1)[-1] == short), None)
            if decl is not None:
                bases.append(Base(child, decl, path))
        k = j
    return own, Context(tuple(bases), only, spaces)


def _chain(decl: Declaration, context: Context) -> list[tuple[Member, str]]:
    """Every member of `decl`'s bases, nearest base first, each with its base's name."""
    out: list[tuple[Member, str]] = []
    queue = [decl.name]
    done: set[str] = set()
    while queue and len(out) < MAX_INHERITED * 4:
        child = queue.pop(0).rsplit(".", 1)[-1]
        if child in done:
            continue
        done.add(child)
        for base in context.bases:
            if base.child.rsplit(".", 1)[-1] != child:
                continue
            name = base.decl.name.rsplit(".", 1)[-1]
            out.extend((m, name) for m in base.decl.members if m.kind != "constructor")
            queue.append(base.decl.name)
    return out


def inherited(decl: Declaration, context: Context) -> list[tuple[Member, str]]:
    """The members `decl` inherits that it does not declare itself, nearest base first, each
    with the base declaring it (`APIError`); constructors are not inherited."""
    if not context.bases:
        return []
    own = {m.name for m in decl.members}
    out: list[tuple[Member, str]] = []
    seen: set[str] = set()
    for m, name in _chain(decl, context):
        if m.name not in own and m.name not in seen:
            seen.add(m.name)
            out.append((m, name))
    return out[:MAX_INHERITED]


def overridden(decl: Declaration, context: Context) -> dict[str, tuple[Member, str]]:
    """The members of `decl` a base declares too (an override): name -> the nearest base's
    member and that base's name. TypeDoc marks them "Overrides" and, where the override has
    no comment of its own, shows the base's."""
    if not context.bases:
        return {}
    own = {m.name for m in decl.members if m.kind != "constructor"}
    out: dict[str, tuple[Member, str]] = {}
    for m, name in _chain(decl, context):
        if m.name in own and m.name not in out:
            out[m.name] = (m, name)
    return out
