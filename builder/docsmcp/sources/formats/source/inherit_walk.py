"""The members a type inherits, nearest base first, as the Java, Kotlin and C# readers list
them (helper i's rule, session 17): each base the type names, then the bases those name, each
once, at most MAX_BASES; a name the type or a nearer base declares is theirs (a line lists each
name once, as javadoc's "Methods inherited from" does). The language decides what a base is
called (`lookup`), which bases a type writes (`bases`) and which members it shows (`members`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

MAX_BASES = 8  # bases followed from one type, at most

B = TypeVar("B")  # a base type as the language's pass holds it
M = TypeVar("M")  # one of its members


def nearest_first(
    written: Iterable[str],
    own: set[str],
    lookup: Callable[[str, B | None], B | None],
    bases: Callable[[B], Iterable[str]],
    members: Callable[[B], list[M]],
    name: Callable[[M], str],
    key: Callable[[B], str],
) -> list[tuple[B, list[M]]]:
    """(base, the members of it the type inherits) nearest first. `written` are the bases the
    type names; `lookup(name, seen_from)` finds one (None: outside the tree), seen from the type
    (None) or from the base that names it; `own` the names the type declares itself."""
    names = set(own)
    out: list[tuple[B, list[M]]] = []
    queue: list[tuple[str, B | None]] = [(w, None) for w in written]
    seen: set[str] = set()
    while queue and len(seen) < MAX_BASES:
        written_name, seen_from = queue.pop(0)
        found = lookup(written_name, seen_from)
        if found is None or key(found) in seen:
            continue
        seen.add(key(found))
        shown = [m for m in members(found) if name(m) not in names]
        names |= {name(m) for m in shown}
        if shown:
            out.append((found, shown))
        queue += [(w, found) for w in bases(found)]
    return out
