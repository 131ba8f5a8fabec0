"""The members a type inherits, nearest base first, as the Java, Kotlin and C# readers list
them (helper i's rule, session 17): each base the type names, then the bases those name, each
once, at most MAX_BASES; a name the type or a nearer base declares is theirs (a line lists each
name once, as javadoc's "Methods inherited from" does). The language decides what a base is
called (`lookup`), which bases a type writes (`bases`) and which members it shows (`members`).
The line the readers write and the entries of the members it names are one code too
(`inherited_line`, `linked`, `alias_entries`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any, TypeVar

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
    limit: int = MAX_BASES,
) -> list[tuple[B, list[M]]]:
    """(base, the members of it the type inherits) nearest first. `written` are the bases the
    type names; `lookup(name, seen_from)` finds one (None: outside the tree), seen from the type
    (None) or from the base that names it; `own` the names the type declares itself; at most
    `limit` bases."""
    names = set(own)
    out: list[tuple[B, list[M]]] = []
    queue: list[tuple[str, B | None]] = [(w, None) for w in written]
    seen: set[str] = set()
    while queue and len(seen) < limit:
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


def inherited_line(
    page: Any,
    line: int,
    label: str,
    shown: list[str],
    targets: list[str],
    word: str = "Inherited from",
) -> int:
    """Write `**Inherited from LABEL:** a, b, …` on `page` (a reader's page: `out`, `refs`,
    `add`, `blank`) at source `line`, after a blank line, with a reference to each of
    `targets` on it; its place in `page.out`, which the inherited members' entries point at.
    `shown`: the members as the line names them (`linked`), at least one; `word`: what the
    line says of them (a mixin's or trait's: `Included from`, `From trait`)."""
    page.blank(line)
    at = len(page.out)
    page.add(line, f"**{word} {label}:** {', '.join(shown)}")
    page.refs += [(at, t) for t in targets]
    return at


def linked(text: str, anchor: str | None) -> str:
    """A member on the line: a link to its section where the page has it, else its name."""
    return f"[{text}](#{anchor})" if anchor else text


def alias_entries(
    page: Any,
    own_name: Callable[[str], str],
    new_entry: Callable[[Any, str, int], None],
    first_only: bool = False,
    ends_at_line: bool = False,
) -> None:
    """The entries of the inherited members `page.aliases` holds ((child's name, base's name,
    member, line)), once the page is written (a base may come after its child): the base
    member's own entries (`first_only`: its first) under the child's name where the page shows
    them (by `own_name` of an entry's name), each child once; else `new_entry(member, child,
    line)`, whose section is the line when `ends_at_line` (a reader's entry ends a section at
    the page's last line). Each is marked `inherited` (model/api.py)."""
    own: dict[str, list[Any]] = {}
    for e in page.api:
        own.setdefault(own_name(e.name), []).append(e)
    done: set[str] = set()
    for child, base, member, at in page.aliases:
        found = own.get(base)
        if found:
            if child not in done:
                page.api += [
                    replace(e, name=child, inherited=True)
                    for e in (found[:1] if first_only else found)
                ]
            done.add(child)
            continue
        count = len(page.api)
        new_entry(member, child, at)
        if len(page.api) > count:  # (a copy: named by its last part only as the base's)
            end = at + 1 if ends_at_line else page.api[-1].line_end
            page.api[-1] = replace(page.api[-1], line_end=end, inherited=True)
    page.aliases = []
